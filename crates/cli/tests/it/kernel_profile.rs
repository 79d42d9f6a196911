//! The `kernel-profile` leg through `aorlta score` on the fake device, with a stand-in `ncu`
//! that runs the harness command it is given (the one launch job) and writes a metrics table
//! as ncu's `--csv --page raw` does: the leg reads it into its summary, the reward is the same
//! as without the leg, and without an `ncu` the leg is `unsettled no-profiler` while the entry
//! stays scored.

use crate::common;

use std::path::Path;
use std::process::Command;

const PROFILE: &str = "name: kprof
reward-fn: rewardfn.base
legs:
  - {name: parse, adapter: parse, on-broke: -1.0}
  - {name: compile, adapter: kernel-compile, needs: [parse], on-broke: -0.75}
  - {name: ref.native, adapter: kernel-run, needs: [compile], on-broke: -0.5}
";

const PROFILE_LEG: &str =
    "  - {name: prof, adapter: kernel-profile, needs: [ref.native], informational: true}
feedback: {template: \"{legs}\\n{leg:prof}\"}
";

/// A stand-in for ncu: notes its arguments, runs the command after `--log-file FILE` (the
/// harness's launch job), then writes a table for the kernel it was asked to profile.
const FAKE_NCU: &str = r#"#!/bin/bash
echo "$@" > "$(dirname "$0")/ncu.args"
log=""; name=""
while [ $# -gt 0 ]; do
  case "$1" in
    --log-file) log="$2"; shift 2; break ;;
    --kernel-name) name="${2#regex:^}"; name="${name%\$}"; shift 2 ;;
    *) shift ;;
  esac
done
"$@" || exit $?
{
  echo '==PROF== Disconnected from process 1'
  echo '"ID","Kernel Name","gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed","sm__throughput.avg.pct_of_peak_sustained_elapsed","sm__warps_active.avg.pct_of_peak_sustained_active","launch__registers_per_thread","smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"'
  echo '"","","%","%","%","register/thread","ratio"'
  echo "\"0\",\"$name\",\"88.5\",\"9.25\",\"71.0\",\"18\",\"31.5\""
} > "$log"
"#;

fn setup(dir: &Path, with_leg: bool, ncu: Option<&Path>) {
    let reference = common::copy_kernel_task(dir, "vector_add");
    let line = serde_json::json!({
        "task": "vector_add",
        "id": "va",
        "completion": format!("```cuda\n{reference}```\n"),
    });
    std::fs::write(dir.join("pool.jsonl"), format!("{line}\n")).unwrap();
    let profile = if with_leg {
        format!("{PROFILE}{PROFILE_LEG}")
    } else {
        PROFILE.to_string()
    };
    std::fs::write(dir.join("profile.yaml"), profile).unwrap();
    let ncu = ncu
        .map(|p| format!("  ncu: {}\n", p.display()))
        .unwrap_or_default();
    std::fs::write(
        dir.join("run.yaml"),
        format!(
            "tasks: tasks\npool: pool.jsonl\nprofile: profile.yaml\nout: out\nkernel:\n  fake-gpu: true\n{ncu}"
        ),
    )
    .unwrap();
}

fn score(dir: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_aorlta"))
        .env_remove(aorlta_store::CACHE_URL_VAR)
        .env_remove("AORLTA_NCU")
        .env("PATH", "/usr/bin:/bin")
        .args(["score", "--quiet"])
        .arg(dir.join("run.yaml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("out/rewards.jsonl")).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

fn leg<'a>(entry: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    entry["legs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == name)
        .unwrap_or_else(|| panic!("no leg {name}: {entry}"))
}

#[test]
fn the_profile_leg_reads_ncus_table_and_never_changes_the_reward() {
    let plain = tempfile::tempdir().unwrap();
    setup(plain.path(), false, None);
    let without = score(plain.path());

    let dir = tempfile::tempdir().unwrap();
    let ncu = dir.path().join("bin/ncu");
    std::fs::create_dir_all(ncu.parent().unwrap()).unwrap();
    std::fs::write(&ncu, FAKE_NCU).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ncu, std::fs::Permissions::from_mode(0o755)).unwrap();
    setup(dir.path(), true, Some(&ncu));
    let with = score(dir.path());
    let prof = leg(&with, "prof");
    assert_eq!(prof["state"], "clean", "{prof}");
    let s = &prof["detail"]["summary"];
    assert_eq!(s["memory_sol_pct"], 88.5, "{prof}");
    assert_eq!(s["compute_sol_pct"], 9.25);
    assert_eq!(s["achieved_occupancy_pct"], 71.0);
    assert_eq!(s["registers_per_thread"], 18.0);
    assert_eq!(s["top_stalls"][0]["reason"], "long scoreboard");
    assert_eq!(prof["detail"]["kernel"], "vector_add");
    assert_eq!(prof["detail"]["metrics"]["Kernel Name"]["value"], "vector_add");
    // The launch job ran: the harness wrote its record with the candidate's geometry.
    assert!(prof["detail"]["geometry"]["grid"].is_array(), "{prof}");
    // What ncu was asked: one launch of the task's kernel, the summary's metrics, the job.
    let args = std::fs::read_to_string(dir.path().join("bin/ncu.args")).unwrap();
    for want in [
        "--csv --page raw",
        "--kernel-name regex:^vector_add$",
        "--launch-count 1",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        " run --fake --device 0 --job ",
    ] {
        assert!(args.contains(want), "{want}: {args}");
    }
    // The feedback names the figures when the template asks for the leg.
    let feedback = with["feedback"].as_str().unwrap();
    for want in [
        "Profile (Nsight Compute, one launch at n = ",
        "memory throughput 88.5%",
        "achieved occupancy 71.0%",
        "18 registers per thread",
        "warps mostly waiting on long scoreboard (31.5 cycles per instruction)",
    ] {
        assert!(feedback.contains(want), "{want}: {feedback}");
    }
    // Informational: the reward is what it is without the leg.
    assert_eq!(with["reward"], without["reward"], "{with}\n{without}");
    assert_eq!(with["reward"], 1.0);

    // No ncu anywhere: unsettled, and the entry is still scored.
    let none = tempfile::tempdir().unwrap();
    setup(none.path(), true, Some(&none.path().join("no/ncu")));
    let entry = score(none.path());
    let prof = leg(&entry, "prof");
    assert_eq!(prof["state"], "unsettled", "{prof}");
    assert_eq!(prof["reasons"][0]["code"], "no-profiler");
    assert_eq!(entry["reward"], 1.0, "{entry}");
}

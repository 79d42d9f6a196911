//! The harness process: `serve` answers jobs from its standard input with record files, and
//! exits after a job that lost the context.

use crate::common::*;
use aorlta_record::FakeBehaviour;
use aorlta_record::{DeviceList, HarnessReady, HarnessRecord};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn wait_for(path: &std::path::Path) -> Vec<u8> {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(20) {
        if let Ok(b) = std::fs::read(path) {
            return b;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("{} never appeared", path.display());
}

#[test]
fn serve_answers_jobs_in_turn_and_exits_after_a_fault() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_aorlta-harness"))
        .args(["serve", "--fake", "--device", "0", "--spool"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let ready: HarnessReady = serde_json::from_slice(&wait_for(&dir.path().join("ready.json"))).unwrap();
    assert_eq!(ready.device.unwrap().backend, "fake");
    let mut stdin = child.stdin.take().unwrap();
    for (k, behaviour) in [
        FakeBehaviour::Correct,
        FakeBehaviour::OobWrite,
        FakeBehaviour::Fault,
    ]
    .into_iter()
    .enumerate()
    {
        let sub = dir.path().join(format!("j{k}"));
        std::fs::create_dir(&sub).unwrap();
        let mut j = job(&sub, &image(behaviour, 1.0, false), check_work());
        j.id = format!("j{k}");
        let path = sub.join(format!("j{k}.job.json"));
        std::fs::write(&path, serde_json::to_vec(&j).unwrap()).unwrap();
        writeln!(stdin, "{}", path.display()).unwrap();
        let rec: HarnessRecord = serde_json::from_slice(&wait_for(&j.record)).unwrap();
        assert_eq!(rec.job, j.id);
        match k {
            0 => assert!(rec.findings.is_empty()),
            1 => assert_eq!(codes(&rec), ["candidate:guard-overwritten"]),
            _ => assert!(rec.context_lost),
        }
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(aorlta_gpu::EXIT_CONTEXT_LOST));
}

#[test]
fn an_unreadable_job_gets_a_record_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.job.json");
    std::fs::write(&path, b"{not json").unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_aorlta-harness"))
        .args(["run", "--fake", "--job"])
        .arg(&path)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let rec: HarnessRecord =
        serde_json::from_slice(&std::fs::read(dir.path().join("bad.record.json")).unwrap()).unwrap();
    assert_eq!(codes(&rec), ["harness:bad-job"]);
}

#[test]
fn devices_lists_the_fake_device_and_no_driver_is_no_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.json");
    let st = Command::new(env!("CARGO_BIN_EXE_aorlta-harness"))
        .args(["devices", "--fake", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(0));
    let l: DeviceList = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(l.devices.len(), 1);
    if !aorlta_gpu::driver_present() {
        let st = Command::new(env!("CARGO_BIN_EXE_aorlta-harness"))
            .args(["devices", "--out"])
            .arg(&out)
            .status()
            .unwrap();
        assert_eq!(st.code(), Some(aorlta_gpu::EXIT_NO_DEVICE));
        let l: DeviceList = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(l.error.unwrap().code, "no-gpu");
    }
}

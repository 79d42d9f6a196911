//! The harness process on the HIP backend where there is no AMD GPU (CI: Debian's HIP runtime
//! is installed, no device): `serve --hip` reports `no-gpu` in `ready.json` and exits, `devices
//! --hip` writes the error, and `--hip` with `--fake` is a usage error.

use aorlta_gpu::{EXIT_NO_DEVICE, EXIT_USAGE};
use aorlta_record::{DeviceList, HarnessReady};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn harness() -> Command {
    Command::new(env!("CARGO_BIN_EXE_aorlta-harness"))
}

/// True (after saying so) where an AMD GPU is visible: then there is no "no device" to check.
fn amd_gpu_present() -> bool {
    let present = aorlta_gpu::hip_devices().is_ok();
    if present {
        eprintln!("an AMD GPU is visible here: the no-device behaviour is not checked");
    }
    present
}

#[test]
fn serve_hip_without_a_device_reports_no_gpu_and_exits() {
    if amd_gpu_present() {
        return;
    }
    // With the architecture given and without (then the device is looked for before the KFD
    // topology is read).
    for arch in [&["--offload-arch", "gfx942"][..], &[][..]] {
        let dir = tempfile::tempdir().unwrap();
        let mut child = harness()
            .args(["serve", "--hip", "--device", "0"])
            .args(arch)
            .arg("--spool")
            .arg(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let t = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if t.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("serve --hip did not exit without a device");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        assert_eq!(status.code(), Some(EXIT_NO_DEVICE), "{arch:?}");
        let ready: HarnessReady =
            serde_json::from_slice(&std::fs::read(dir.path().join("ready.json")).unwrap()).unwrap();
        assert!(ready.device.is_none());
        let error = ready.error.expect("ready.json carries the error");
        assert_eq!(error.code, "no-gpu", "{}", error.detail);
        assert!(!error.detail.is_empty());
        assert_eq!(ready.build, aorlta_gpu::BUILD);
    }
}

#[test]
fn devices_hip_without_a_device_writes_the_error() {
    if amd_gpu_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.json");
    let st = harness()
        .args(["devices", "--hip", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(EXIT_NO_DEVICE));
    let l: DeviceList = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert!(l.devices.is_empty());
    assert_eq!(l.error.unwrap().code, "no-gpu");
}

#[test]
fn run_hip_without_a_device_exits_with_no_device() {
    if amd_gpu_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.job.json");
    std::fs::write(&job, b"{}").unwrap();
    let st = harness()
        .args(["run", "--hip", "--job"])
        .arg(&job)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(EXIT_NO_DEVICE));
    // The device is opened before the job is read: no record.
    assert!(!dir.path().join("j.record.json").exists());
}

#[test]
fn fake_and_hip_together_are_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.json");
    for args in [
        &["devices", "--fake", "--hip", "--out"][..],
        &["serve", "--hip", "--fake", "--device", "0", "--spool"][..],
    ] {
        let st = harness()
            .args(args)
            .arg(if args[0] == "serve" {
                dir.path()
            } else {
                out.as_path()
            })
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert_eq!(st.code(), Some(EXIT_USAGE), "{args:?}");
    }
    assert!(!out.exists());
    assert!(!dir.path().join("ready.json").exists());
}

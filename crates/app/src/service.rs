//! An `aorlta serve` of a benchmark's own (`bench serve`, `bench soak`): the given binary
//! started as a child process on a free loopback port with a config, found listening through
//! its ready file, stopped with SIGTERM when the benchmark is done or dropped.

use anyhow::Context;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long the service may take to listen.
const START_LIMIT: Duration = Duration::from_secs(30);
/// How long it may take to exit after SIGTERM before it is killed.
const STOP_LIMIT: Duration = Duration::from_secs(60);

/// A running `aorlta serve`, stopped (SIGTERM, then waited for) when dropped.
pub(crate) struct Service(Option<Child>);

impl Service {
    /// Starts `exe serve --config CONFIG` on `127.0.0.1:0` (warnings only in its log, no token:
    /// its own service, on loopback) and waits until it writes its address to `ready`.
    pub(crate) fn start(exe: &Path, config: &Path, ready: &Path) -> anyhow::Result<(Service, SocketAddr)> {
        let child = Command::new(exe)
            .args(["serve", "--bind", "127.0.0.1:0", "--config"])
            .arg(config)
            .arg("--ready-file")
            .arg(ready)
            .env("RUST_LOG", "warn")
            .env_remove(aorlta_server::TOKEN_VAR)
            .stdout(Stdio::null())
            .stdin(Stdio::null())
            .spawn()
            .context("starting `aorlta serve`")?;
        let mut service = Service(Some(child));
        let t0 = Instant::now();
        loop {
            if let Ok(text) = std::fs::read_to_string(ready) {
                let addr = text.trim().parse().context("reading the ready file")?;
                return Ok((service, addr));
            }
            if let Some(status) = service.child().try_wait()? {
                anyhow::bail!("`aorlta serve` exited with {status} before listening");
            }
            anyhow::ensure!(
                t0.elapsed() < START_LIMIT,
                "`aorlta serve` did not start in {} s",
                START_LIMIT.as_secs()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn child(&mut self) -> &mut Child {
        self.0.as_mut().expect("a service not yet stopped")
    }

    /// The service's process id.
    pub(crate) fn pid(&mut self) -> u32 {
        self.child().id()
    }

    /// Sends SIGTERM and waits for the exit (killing it after a minute): its exit code, or
    /// minus the number of the signal that ended it.
    pub(crate) fn stop(mut self) -> anyhow::Result<i32> {
        let mut child = self.0.take().expect("a service not yet stopped");
        let status = terminate(&mut child)?;
        use std::os::unix::process::ExitStatusExt;
        Ok(status.code().or(status.signal().map(|s| -s)).unwrap_or(-1))
    }
}

fn terminate(child: &mut Child) -> anyhow::Result<ExitStatus> {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if t0.elapsed() > STOP_LIMIT {
            let _ = child.kill();
            return Ok(child.wait()?);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = terminate(&mut child);
        }
    }
}

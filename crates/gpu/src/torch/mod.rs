//! The trusted reference process of a task whose reference is a PyTorch module
//! (`reference.py`, run by the job's Python with `-I`): forked for the harness by that Python's
//! zygote (`zygote.py`: torch imported once, nothing of it run, so each module's process starts
//! in milliseconds instead of seconds and is still a process of its own), kept while jobs ask
//! for the same module, and given the reference's buffer set of each case or pair: each
//! allocation lent by the device ([`Backend::lend`]: a CUDA IPC handle, or a file on the fake
//! device), bound as tensors in place, the forward written into the outputs.
//!
//! Why it cannot help a candidate pass wrong: it is a process of its own (its CUDA context and
//! its memory are out of a candidate kernel's reach; a kernel reaches only its own context's
//! allocations), it imports the task's module file after checking its hash and nothing else a
//! candidate wrote, and it is given the reference's set only after the candidate's launch (the
//! expected outputs exist only from then on, as with a reference kernel). Timed, the module runs
//! as a CUDA graph replayed between two events on its own stream, after the harness has drawn
//! fresh inputs and made the L2 cold.

use crate::backend::{Backend, Lent};
use crate::layout::{BufferSet, GUARD_BYTES, Layout};
use crate::plan::{Op, Runner, Stop};
use aorlta_record::{Party, TorchJob};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

#[cfg(test)]
mod tests;

/// The reference process's program.
pub(crate) const SCRIPT: &str = include_str!("reference.py");

/// The program every reference process is forked from (torch imported once).
pub(crate) const ZYGOTE: &str = include_str!("zygote.py");

/// Seconds the process may take to start (Python, torch, the module's construction).
const START_S: f64 = 120.0;

/// Processes kept for the modules asked for last (started in seconds, so a run that alternates
/// between tasks does not start one per job), the most recent last.
static PROCESSES: Mutex<Vec<Process>> = Mutex::new(Vec::new());

/// The parents the reference processes are forked from, one per Python.
static ZYGOTES: Mutex<Vec<Zygote>> = Mutex::new(Vec::new());

/// Modules kept running at most.
const KEPT: usize = 4;

/// Lines of a process's standard output (or socket), read by a thread of their own.
fn line_reader(from: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// The next `{"ok": ...}` of `lines` within `timeout_s`, or why not (`tail` adds the process's
/// last words when it ended).
fn next_answer(
    lines: &Receiver<String>,
    timeout_s: f64,
    tail: &dyn Fn() -> String,
) -> Result<serde_json::Value, String> {
    let line = match lines.recv_timeout(Duration::from_secs_f64(timeout_s)) {
        Ok(l) => l,
        Err(RecvTimeoutError::Timeout) => {
            return Err(format!(
                "the reference process gave no answer within {timeout_s:.0} s"
            ));
        }
        Err(RecvTimeoutError::Disconnected) => {
            return Err(format!("the reference process ended{}", tail()));
        }
    };
    let v: serde_json::Value =
        serde_json::from_str(&line).map_err(|e| format!("the reference process answered {line:?}: {e}"))?;
    match (v.get("ok"), v.get("error")) {
        (Some(ok), _) => Ok(ok.clone()),
        (None, Some(e)) => Err(e.as_str().unwrap_or("an error").to_string()),
        _ => Err(format!("the reference process answered {line:?}")),
    }
}

/// The last lines of a process's standard error file, after `: `, or nothing.
fn tail_of(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(6).collect();
    if lines.is_empty() {
        String::new()
    } else {
        let tail: Vec<&str> = lines.into_iter().rev().collect();
        format!(": {}", tail.join(" | "))
    }
}

/// A Python with torch imported, forking reference processes on request (zygote.py).
struct Zygote {
    python: std::path::PathBuf,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: std::path::PathBuf,
    dir: tempfile::TempDir,
}

impl Zygote {
    fn start(python: &std::path::Path) -> Result<Zygote, String> {
        let dir = tempfile::tempdir().map_err(|e| format!("a temporary folder: {e}"))?;
        let script = dir.path().join("zygote.py");
        std::fs::write(&script, ZYGOTE).map_err(|e| format!("{}: {e}", script.display()))?;
        let reference = dir.path().join("reference.py");
        std::fs::write(&reference, SCRIPT).map_err(|e| format!("{}: {e}", reference.display()))?;
        let stderr = dir.path().join("stderr.txt");
        let err_file = std::fs::File::create(&stderr).map_err(|e| format!("{}: {e}", stderr.display()))?;
        let mut child = Command::new(python)
            .arg("-I")
            .arg(&script)
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(err_file))
            .spawn()
            .map_err(|e| format!("{}: {e}", python.display()))?;
        let stdin = child.stdin.take().expect("piped");
        let lines = line_reader(child.stdout.take().expect("piped"));
        let z = Zygote {
            python: python.to_path_buf(),
            child,
            stdin,
            lines,
            stderr,
            dir,
        };
        next_answer(&z.lines, START_S, &|| tail_of(&z.stderr))?;
        Ok(z)
    }

    /// Forks a reference process that connects to `socket`; its pid.
    fn spawn(
        &mut self,
        argv: &[String],
        cwd: &std::path::Path,
        stderr: &std::path::Path,
        socket: &std::path::Path,
    ) -> Result<i32, String> {
        let req = serde_json::json!({
            "op": "spawn",
            "script": self.dir.path().join("reference.py"),
            "argv": argv,
            "cwd": cwd,
            "stderr": stderr,
            "connect": socket,
        });
        writeln!(self.stdin, "{req}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| format!("the reference processes' parent: {e}{}", tail_of(&self.stderr)))?;
        let ok = next_answer(&self.lines, 30.0, &|| tail_of(&self.stderr))?;
        ok.get("pid")
            .and_then(serde_json::Value::as_i64)
            .and_then(|p| i32::try_from(p).ok())
            .ok_or_else(|| format!("the reference processes' parent answered {ok}"))
    }
}

impl Drop for Zygote {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "{{\"op\": \"quit\"}}");
        let _ = self.stdin.flush();
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Forks a reference process from the zygote of `python` (started on first use, and again when
/// it has ended).
fn fork_reference(
    python: &std::path::Path,
    argv: &[String],
    cwd: &std::path::Path,
    stderr: &std::path::Path,
    socket: &std::path::Path,
) -> Result<i32, String> {
    let mut zygotes = ZYGOTES.lock().unwrap_or_else(|p| p.into_inner());
    zygotes.retain_mut(|z| !matches!(z.child.try_wait(), Ok(Some(_)) | Err(_)));
    let i = match zygotes.iter().position(|z| z.python == python) {
        Some(i) => i,
        None => {
            zygotes.push(Zygote::start(python)?);
            zygotes.len() - 1
        }
    };
    let pid = zygotes[i].spawn(argv, cwd, stderr, socket);
    if pid.is_err() {
        // A parent in an unknown state is not kept.
        zygotes.remove(i);
    }
    pid
}

struct Process {
    key: String,
    pid: rustix::process::Pid,
    stream: std::os::unix::net::UnixStream,
    lines: Receiver<String>,
    stderr: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Process {
    fn start(t: &TorchJob, device: &str, key: String) -> Result<Process, String> {
        let dir = tempfile::tempdir().map_err(|e| format!("a temporary folder: {e}"))?;
        let stderr = dir.path().join("stderr.txt");
        let socket = dir.path().join("reference.sock");
        let listener = std::os::unix::net::UnixListener::bind(&socket)
            .map_err(|e| format!("{}: {e}", socket.display()))?;
        let mut argv: Vec<String> = [
            "--module",
            &t.module.display().to_string(),
            "--sha256",
            &t.sha256,
            "--class",
            &t.class,
            "--init",
            &json(&t.init),
            "--state",
            &json(&t.state),
            "--device",
            device,
            "--forward-names",
            &json(&t.forward),
            "--output-names",
            &json(&t.outputs),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if t.compile {
            argv.push("--compile".into());
        }
        let pid = fork_reference(&t.python, &argv, dir.path(), &stderr, &socket)?;
        let pid = rustix::process::Pid::from_raw(pid).ok_or("the reference process has no pid")?;
        // The child connects first thing; it may die before (its last words are in `stderr`).
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("{}: {e}", socket.display()))?;
        let t0 = std::time::Instant::now();
        let stream = loop {
            match listener.accept() {
                Ok((s, _)) => break s,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if rustix::process::test_kill_process(pid).is_err() {
                        return Err(format!("the reference process ended{}", tail_of(&stderr)));
                    }
                    if t0.elapsed().as_secs_f64() > START_S {
                        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                        return Err(format!(
                            "the reference process did not start within {START_S:.0} s"
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => return Err(format!("{}: {e}", socket.display())),
            }
        };
        stream
            .set_nonblocking(false)
            .map_err(|e| format!("{}: {e}", socket.display()))?;
        let lines = line_reader(
            stream
                .try_clone()
                .map_err(|e| format!("{}: {e}", socket.display()))?,
        );
        let p = Process {
            key,
            pid,
            stream,
            lines,
            stderr,
            _dir: dir,
        };
        let ready = p.answer(START_S)?;
        // Where the start went (the module's import, its construction, the move to the device).
        for (step, call) in [
            ("load", "torch_start_load"),
            ("construct", "torch_start_construct"),
            ("to_device", "torch_start_to_device"),
        ] {
            if let Some(s) = ready["seconds"].get(step).and_then(serde_json::Value::as_f64) {
                crate::profile::add(call, s);
            }
        }
        Ok(p)
    }

    /// The next answer, within `timeout_s`.
    fn answer(&self, timeout_s: f64) -> Result<serde_json::Value, String> {
        next_answer(&self.lines, timeout_s, &|| tail_of(&self.stderr))
    }

    fn ask(&mut self, req: &serde_json::Value, timeout_s: f64) -> Result<serde_json::Value, String> {
        writeln!(self.stream, "{req}")
            .and_then(|_| self.stream.flush())
            .map_err(|e| format!("the reference process: {e}{}", tail_of(&self.stderr)))?;
        self.answer(timeout_s)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = writeln!(self.stream, "{{\"op\": \"quit\"}}");
        let _ = self.stream.flush();
        // It has quit when its end of the socket closes (its parent reaps it; its pid, free from
        // then on, is never probed); one still there after a second is killed.
        let until = std::time::Instant::now() + Duration::from_secs(1);
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(_) => continue,
                Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) => break,
            }
        }
        let _ = rustix::process::kill_process(self.pid, rustix::process::Signal::KILL);
    }
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serialises")
}

fn key(t: &TorchJob, device: &str) -> String {
    format!(
        "{device}\u{1}{}",
        serde_json::to_string(t).expect("a TorchJob serialises")
    )
}

/// Drops the binding of the process (its IPC handles closed) before the harness frees the set.
pub(crate) fn release() {
    let mut kept = PROCESSES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(last) = kept.last_mut()
        && crate::profile::timed("torch_release", || {
            last.ask(&serde_json::json!({"op": "release"}), 30.0)
        })
        .is_err()
    {
        kept.pop();
    }
}

/// What the reference process is asked after the binding.
#[derive(Debug, Clone)]
enum Ask {
    /// `forward` or `time` ([`Op`]).
    Run(Op),
    /// `forward`, then `precision` with each floating-point output's tolerance
    /// (`{"out": [atol, rtol]}`).
    Precision(serde_json::Value),
}

impl<B: Backend> Runner<'_, B> {
    /// Runs the module once on the reference's set (filled, everything queued finished), its
    /// outputs written in place; returns the seconds the process measured (`Op::Time`: between
    /// its events) or the host's seconds (`Op::Forward`).
    pub(crate) fn torch_run(
        &mut self,
        t: &TorchJob,
        layout: &Layout,
        set: &BufferSet,
        op: Op,
    ) -> Result<f64, Stop> {
        let (answer, host_s) = self.torch_ask(t, layout, set, Ask::Run(op))?;
        Ok(answer.get("seconds").and_then(|s| s.as_f64()).unwrap_or(host_s))
    }

    /// Runs the module once on the reference's set, its outputs written in place in its own
    /// precision, then again in double precision on the same inputs and parameters (in the reference
    /// process, on copies), and returns where the two differ most in units of each output's
    /// tolerance (the task's, else its element type's default); the caller names the size and
    /// the inputs' families. No kernel can be held to a tolerance that the module's own
    /// rounding exceeds.
    pub(crate) fn torch_precision(
        &mut self,
        t: &TorchJob,
        layout: &Layout,
        set: &BufferSet,
        tolerance: Option<aorlta_record::Tolerance>,
    ) -> Result<aorlta_record::PrecisionCase, Stop> {
        let tols: serde_json::Map<String, serde_json::Value> = layout
            .bufs
            .iter()
            .filter(|b| b.is_output())
            .map(|b| {
                let tol = tolerance.unwrap_or_else(|| aorlta_record::Tolerance::default_for(b.dtype));
                (b.name.clone(), serde_json::json!([tol.atol, tol.rtol]))
            })
            .collect();
        let (answer, _) = self.torch_ask(t, layout, set, Ask::Precision(tols.into()))?;
        let num = |k: &str| answer.get(k).and_then(|v| v.as_f64());
        let worst = match answer.get("worst") {
            Some(serde_json::Value::String(s)) if s == "inf" => Some(None),
            Some(v) => v.as_f64().map(Some),
            None => None,
        };
        match (worst, answer.get("output").and_then(|o| o.as_str())) {
            (Some(worst), Some(output)) => Ok(aorlta_record::PrecisionCase {
                size: 0,
                inputs: String::new(),
                worst,
                output: output.to_string(),
                index: answer.get("index").and_then(|i| i.as_u64()).unwrap_or(0),
                own: num("own"),
                double: num("double"),
            }),
            _ => {
                self.finding(
                    Party::Reference,
                    "reference-failed",
                    format!("the precision answer holds no `worst` or `output`: {answer}"),
                );
                Err(Stop)
            }
        }
    }

    /// Lends the set to the reference process, binds it and asks `ask`; the last answer and the
    /// host's seconds for the whole exchange.
    fn torch_ask(
        &mut self,
        t: &TorchJob,
        layout: &Layout,
        set: &BufferSet,
        ask: Ask,
    ) -> Result<(serde_json::Value, f64), Stop> {
        self.issue()?;
        if let Err(e) = self.b.synchronize() {
            return Err(self.backend_err(Party::Harness, e));
        }
        let mut lent = Vec::with_capacity(layout.bufs.len());
        for (k, b) in layout.bufs.iter().enumerate() {
            match self.b.lend(set.ptrs[k], b.total_bytes()) {
                Ok(l) => lent.push(l),
                Err(e) => return Err(self.backend_err(Party::Harness, e)),
            }
        }
        let req = match bind_request(&self.job.task, t, layout, &lent) {
            Ok(r) => r,
            Err(m) => {
                self.finding(Party::Harness, "bad-task", m);
                return Err(Stop);
            }
        };
        let device = if self.b.device().backend == "fake" {
            "cpu".to_string()
        } else {
            format!("cuda:{}", self.b.device().index)
        };
        // The first pass of a binding warms up (and compiles a `torch.compile`d module): a slow
        // reference is the task's, never the candidate's, so it gets the start's time.
        let timeout = self.job.launch_timeout_s.max(START_S);
        let t0 = std::time::Instant::now();
        let answer = {
            let mut kept = PROCESSES.lock().unwrap_or_else(|p| p.into_inner());
            run_in(&mut kept, t, &device, &req, &ask, timeout)
        };
        let host_s = t0.elapsed().as_secs_f64();
        let answer = match answer {
            Ok(v) => v,
            Err(m) => {
                self.finding(Party::Reference, "reference-failed", m);
                return Err(Stop);
            }
        };
        for (k, l) in lent.iter().enumerate() {
            if let Err(e) = self.b.take_back(set.ptrs[k], l) {
                return Err(self.backend_err(Party::Harness, e));
            }
        }
        Ok((answer, host_s))
    }
}

/// Starts the process when none runs for this module, then binds and asks; the module's
/// process becomes the last of `kept`.
fn run_in(
    kept: &mut Vec<Process>,
    t: &TorchJob,
    device: &str,
    bind: &serde_json::Value,
    ask: &Ask,
    timeout_s: f64,
) -> Result<serde_json::Value, String> {
    let k = key(t, device);
    match kept.iter().position(|p| p.key == k) {
        Some(i) => {
            let p = kept.remove(i);
            kept.push(p);
        }
        None => {
            if kept.len() >= KEPT {
                kept.remove(0);
            }
            kept.push(crate::profile::timed("torch_start", || {
                Process::start(t, device, k)
            })?);
        }
    }
    let p = kept.last_mut().expect("started");
    let forward = serde_json::json!({ "op": "forward" });
    let result = crate::profile::timed("torch_bind", || p.ask(bind, timeout_s)).and_then(|_| match ask {
        Ask::Run(Op::Forward) => crate::profile::timed("torch_forward", || p.ask(&forward, timeout_s)),
        Ask::Run(Op::Time) => crate::profile::timed("torch_time", || {
            p.ask(&serde_json::json!({ "op": "time" }), timeout_s)
        }),
        Ask::Precision(tols) => p.ask(&forward, timeout_s).and_then(|_| {
            crate::profile::timed("torch_precision", || {
                p.ask(
                    &serde_json::json!({ "op": "precision", "tolerances": tols }),
                    timeout_s,
                )
            })
        }),
    });
    if result.is_err() {
        // A process in an unknown state is not kept.
        kept.pop();
    }
    result
}

/// The `bind` request of a set: every buffer with its shape at this size and how it is lent,
/// and the forward's integer arguments.
fn bind_request(
    task: &aorlta_record::KernelTask,
    t: &TorchJob,
    layout: &Layout,
    lent: &[Lent],
) -> Result<serde_json::Value, String> {
    let mut buffers = Vec::with_capacity(layout.bufs.len());
    for (b, l) in layout.bufs.iter().zip(lent) {
        let shape: Vec<i64> = match t.shapes.get(&b.name) {
            Some(dims) => dims
                .iter()
                .map(|d| layout.eval(d))
                .collect::<Result<_, _>>()
                .map_err(|e| format!("the shape of `{}`: {e}", b.name))?,
            None => vec![b.len as i64],
        };
        if shape.iter().product::<i64>() != b.len as i64 {
            return Err(format!(
                "the shape of `{}` {shape:?} does not hold its {} elements",
                b.name, b.len
            ));
        }
        let mut v = serde_json::json!({
            "name": b.name, "dtype": b.dtype.name(), "shape": shape, "offset": GUARD_BYTES,
        });
        match l {
            Lent::Ipc(h) => v["ipc"] = h.clone().into(),
            Lent::File(p) => v["file"] = p.display().to_string().into(),
        }
        buffers.push(v);
    }
    let mut scalars = serde_json::Map::new();
    for name in &t.forward {
        if layout.bufs.iter().any(|b| &b.name == name) {
            continue;
        }
        let expr = task.scalars.get(name).ok_or_else(|| {
            format!("the forward's argument `{name}` is neither a buffer nor a scalar of the task")
        })?;
        scalars.insert(name.clone(), layout.eval(expr)?.into());
    }
    Ok(serde_json::json!({"op": "bind", "buffers": buffers, "scalars": scalars}))
}

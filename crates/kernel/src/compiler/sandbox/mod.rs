//! The compile jail. Every program that reads a candidate's source (nvcc, hipcc, the NVRTC
//! workers, the Triton driver that imports the candidate's Python) and the Triton probe run
//! under bubblewrap ([`bwrap`]), the jail Flatpak runs untrusted applications in, never in a jail
//! of our own making:
//!
//! - a user namespace always, the service's root or not, with `nobody` inside, no capability
//!   and no further user namespace; fresh mount, PID, IPC, UTS, network and cgroup namespaces;
//!   a new session; the jail dies with its parent;
//! - a root reached by `pivot_root` with the host's root detached, holding only the read-only
//!   toolkit ([`SYSTEM_READ`] and the compiler's own folders), a writable `/dev/null` and the
//!   compile folder: a size-limited `tmpfs` ([`DISK_LIMIT`]) at the work folder's own path, into
//!   which the inputs are bound read-only and the named outputs bound writable;
//! - a seccomp filter ([`seccomp`]) refusing chroot, mount, mknod, BPF, perf, the kernel log,
//!   keys, modules, ptrace and the other calls an escape or a probe would make;
//! - per process: address space, output file size, CPU seconds and no core files; per compile,
//!   where the host gives the service a cgroup to make ([`cgroup`]): at most [`PROCESS_LIMIT`]
//!   tasks and the compile memory limit for all its processes together;
//! - a wall-time limit, after which the jail is killed: its PID namespace goes with it, so
//!   nothing a candidate started (a `setsid` helper, System V shared memory) outlives it.
//!
//! Where bubblewrap is missing or cannot make its namespaces, nothing runs
//! ([`SandboxError::Unavailable`], an `unsettled` leg `compile-sandbox-unavailable`).
//! [`super::diagnostic`] checks what the preprocessor read and what of its output a client sees.

mod bwrap;
mod cgroup;
mod seccomp;

use std::io::{Read, Seek, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The host folders and files a compiler may read and run besides its own installation: what a
/// C++ compiler driver, its preprocessor, assembler and their shared libraries need, and
/// nothing that holds a host's configuration or its users' files (`/etc`, `/home`, `/root`,
/// `/proc`, `/var`, `/tmp`, `/dev` are not here). Paths missing on a host are skipped.
pub(crate) const SYSTEM_READ: &[&str] = &[
    "/usr/bin",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libexec",
    "/usr/include",
    "/usr/share/perl",
    "/usr/share/perl5",
    "/bin",
    "/lib",
    "/lib32",
    "/lib64",
    "/etc/ld.so.cache",
];

/// What a program that is no compiler driver needs of the host (the NVRTC worker: its shared
/// libraries and the loader's cache), and no program or header folder.
pub(crate) const SYSTEM_LIBS: &[&str] = &[
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/lib",
    "/lib32",
    "/lib64",
    "/etc/ld.so.cache",
];

/// Most tasks (processes and threads) one compile may hold at once, where a cgroup bounds them.
pub(crate) const PROCESS_LIMIT: u64 = 256;

/// Size of one compile's folder (a `tmpfs`: its pages count against the compile's memory).
pub(crate) const DISK_LIMIT: u64 = 512 << 20;

/// What a compiler process may touch.
#[derive(Debug, Clone, Default)]
pub(crate) struct Jail {
    /// Folders and files it may read (and run), besides [`SYSTEM_READ`].
    pub read: Vec<PathBuf>,
    /// Its folder: on the host, where its inputs lie and its outputs come back; inside, a
    /// size-limited `tmpfs` at the same path.
    pub work: PathBuf,
    /// Files in `work` it reads (bound read-only).
    pub inputs: Vec<String>,
    /// Files in `work` it writes and the service reads back (made empty on the host, bound
    /// writable); nothing else it writes reaches the host.
    pub outputs: Vec<String>,
    /// Of the host's folders, only its shared libraries ([`SYSTEM_LIBS`]), not all of
    /// [`SYSTEM_READ`].
    pub libs_only: bool,
}

/// The limits a compiler runs under.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Wall time, after which the jail is killed.
    pub timeout: Duration,
    /// Address space of each process, and memory of the whole compile where a cgroup bounds it,
    /// bytes.
    pub memory_bytes: u64,
    /// Largest file it may write, bytes.
    pub output_bytes: u64,
    /// CPU seconds (`RLIMIT_CPU`, every thread counted), when limited.
    pub cpu_seconds: Option<u64>,
}

/// What a jailed run produced.
#[derive(Debug)]
pub(crate) struct Run {
    /// It exited with status 0.
    pub success: bool,
    /// The signal that ended the compiler (bubblewrap reports it as `128 + signal`) or the jail.
    pub signal: Option<i32>,
    /// Its exit code, if it exited.
    pub code: Option<i32>,
    /// It ran past its wall time and was killed.
    pub timed_out: bool,
    /// The kernel killed one of its processes for passing the compile's memory limit.
    pub out_of_memory: bool,
    /// The first 64 KiB of its standard output and error, together.
    pub output: String,
}

impl Run {
    /// Killed by `SIGKILL` that neither its wall time nor its memory limit sent: someone else's
    /// doing (the host's out-of-memory killer, an operator), never the candidate's verdict.
    pub(crate) fn killed_from_outside(&self) -> bool {
        killed_from_outside(self.signal, self.timed_out, self.out_of_memory)
    }
}

/// The rule of [`Run::killed_from_outside`], for a jail whose end was not a [`Run`]'s (a
/// compile worker's).
pub(crate) fn killed_from_outside(signal: Option<i32>, timed_out: bool, out_of_memory: bool) -> bool {
    signal == Some(libc::SIGKILL) && !timed_out && !out_of_memory
}

/// The signal that ended a jailed program: the one that ended bubblewrap, else the one
/// bubblewrap reports as its exit code `128 + signal`.
pub(crate) fn signal_of(status: std::process::ExitStatus) -> Option<i32> {
    status
        .signal()
        .or_else(|| status.code().filter(|c| (129..160).contains(c)).map(|c| c - 128))
}

/// Why a compiler could not be run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SandboxError {
    /// The jail cannot be made on this host: nothing is run.
    #[error("the compiler sandbox is unavailable: {0}")]
    Unavailable(String),
    /// Starting or waiting for the process failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// The jail as found on this host: bubblewrap and the seccomp programs, tried once.
#[derive(Debug)]
struct Jailer {
    bwrap: bwrap::Bwrap,
    programs: &'static [Vec<u8>],
}

fn jailer() -> Result<&'static Jailer, SandboxError> {
    static FOUND: std::sync::OnceLock<Result<Jailer, String>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            let j = Jailer {
                bwrap: bwrap::find()?,
                programs: seccomp::programs()?,
            };
            probe(&j)?;
            eprintln!("compiler sandbox: {}", j.describe());
            Ok(j)
        })
        .as_ref()
        .map_err(|e| SandboxError::Unavailable(e.clone()))
}

impl Jailer {
    /// The bubblewrap found and how a compile's processes are bounded together.
    fn describe(&self) -> String {
        format!(
            "bubblewrap {} ({}); {}",
            self.bwrap.version,
            self.bwrap.path.display(),
            cgroup::status()
        )
    }
}

/// Runs `/bin/true` in a jail: a host whose kernel or policy refuses the namespaces fails here.
fn probe(j: &Jailer) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let jail = Jail {
        work: dir.path().to_path_buf(),
        ..Jail::default()
    };
    let limits = Limits {
        timeout: Duration::from_secs(20),
        memory_bytes: 1 << 30,
        output_bytes: 1 << 20,
        cpu_seconds: None,
    };
    match run_in(j, Path::new("/bin/true"), &[], &jail, limits, &[]) {
        Ok(r) if r.success => Ok(()),
        Ok(r) => Err(format!(
            "bubblewrap could not make the jail on this host: {}",
            r.output.trim()
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether compiles can be jailed here, and if not why.
#[cfg(test)]
pub(crate) fn available() -> Result<(), String> {
    jailer().map(drop).map_err(|e| e.to_string())
}

/// How the compile jail stands on this host, in one line (the service logs it at start): the
/// bubblewrap found and how a compile's processes are bounded together, or why no compile can
/// run.
pub fn describe() -> String {
    match jailer() {
        Ok(j) => j.describe(),
        Err(e) => e.to_string(),
    }
}

/// Sends `SIGKILL` to the process group `pgid` (a child started with `process_group(0)`); a
/// group that is already gone is no error.
pub(crate) fn kill_group(pgid: u32) {
    if let Some(pid) = i32::try_from(pgid).ok().and_then(rustix::process::Pid::from_raw) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// A jailed process: bubblewrap, whose death takes the whole jail with it, and the compile's
/// cgroup. Dropping it kills whatever is left.
#[derive(Debug)]
pub(crate) struct Sandboxed {
    /// bubblewrap (its standard streams are the compiler's).
    pub child: Child,
    cgroup: Option<cgroup::Cgroup>,
    reaped: bool,
}

impl Sandboxed {
    /// Kills the jail and everything in it, and reaps bubblewrap: its status.
    pub(crate) fn kill(&mut self) -> Option<std::process::ExitStatus> {
        if !self.reaped {
            kill_group(self.child.id());
        }
        if let Some(cg) = &self.cgroup {
            cg.kill_all();
        }
        self.wait()
    }

    /// Waits for bubblewrap to end (and with it the jail).
    pub(crate) fn wait(&mut self) -> Option<std::process::ExitStatus> {
        let st = self.child.wait().ok();
        self.reaped = true;
        st
    }

    /// The compile met its memory limit (an out-of-memory kill in its cgroup).
    pub(crate) fn out_of_memory(&self) -> bool {
        self.cgroup.as_ref().is_some_and(cgroup::Cgroup::oom_killed)
    }
}

impl Drop for Sandboxed {
    fn drop(&mut self) {
        if !self.reaped && matches!(self.child.try_wait(), Ok(None)) {
            kill_group(self.child.id());
        }
        if !self.reaped {
            let _ = self.child.wait();
        }
        // The cgroup's own drop kills what is left in it and removes it.
    }
}

/// Runs `program args` in `jail.work` inside the jail, under `limits`.
pub(crate) fn run(program: &Path, args: &[&str], jail: &Jail, limits: Limits) -> Result<Run, SandboxError> {
    run_with(program, args, jail, limits, &[])
}

/// [`run`] with variables added to the minimal environment.
pub(crate) fn run_with(
    program: &Path,
    args: &[&str],
    jail: &Jail,
    limits: Limits,
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<Run, SandboxError> {
    run_in(jailer()?, program, args, jail, limits, env)
}

/// Starts `program args` in the jail under `limits`' memory, file size and CPU (not its wall
/// time: the caller keeps that), with the given standard streams. The compile workers are
/// started so.
pub(crate) fn spawn(
    program: &Path,
    args: &[&str],
    jail: &Jail,
    limits: Limits,
    stdio: [Stdio; 3],
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<Sandboxed, SandboxError> {
    spawn_in(jailer()?, program, args, jail, limits, stdio, env)
}

/// A memory file holding `bytes`, read from its start, closed on exec unless the child clears it.
fn memfd(bytes: &[u8]) -> std::io::Result<OwnedFd> {
    let fd = rustix::fs::memfd_create("aorlta-seccomp", rustix::fs::MemfdFlags::CLOEXEC)?;
    let mut f = std::fs::File::from(fd);
    f.write_all(bytes)?;
    f.rewind()?;
    Ok(OwnedFd::from(f))
}

fn spawn_in(
    j: &Jailer,
    program: &Path,
    args: &[&str],
    jail: &Jail,
    limits: Limits,
    stdio: [Stdio; 3],
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<Sandboxed, SandboxError> {
    let dir = jail.work.as_path();
    // The outputs exist on the host before the jail binds them.
    for name in &jail.outputs {
        std::fs::File::create(dir.join(name))?;
    }
    // The program by the path given where a bound folder holds that path (a virtual
    // environment's `bin/python` link, which finds its environment by where it is), else by its
    // real path: inside the jail only real paths are bound.
    let given = std::path::absolute(program)?;
    let program = if jail.read.iter().any(|r| given.starts_with(r) && given != *r) {
        given
    } else {
        program.canonicalize().unwrap_or(given)
    };
    let filters: Vec<OwnedFd> = j.programs.iter().map(|p| memfd(p)).collect::<Result<_, _>>()?;
    let filter_fds: Vec<RawFd> = filters.iter().map(AsRawFd::as_raw_fd).collect();
    let cgroup = cgroup::Cgroup::make(PROCESS_LIMIT, limits.memory_bytes)
        .map_err(|e| SandboxError::Unavailable(format!("making the compile's cgroup: {e}")))?;
    let cgroup_fds = cgroup.as_ref().map(cgroup::Cgroup::procs_fds).unwrap_or_default();
    let [stdin, stdout, stderr] = stdio;
    let mut cmd = Command::new(&j.bwrap.path);
    cmd.args(bwrap::arguments(jail, DISK_LIMIT, &filter_fds))
        .arg(&program)
        .args(args)
        .current_dir("/")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("TMPDIR", dir)
        .env("LANG", "C")
        .envs(env.iter().copied())
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0);
    let (memory, output, cpu) = (limits.memory_bytes, limits.output_bytes, limits.cpu_seconds);
    // SAFETY: between fork and exec only async-signal-safe system calls run (write, setrlimit,
    // fcntl; rustix makes each one raw system call), on values computed before the fork;
    // nothing allocates.
    unsafe {
        cmd.pre_exec(move || {
            for fd in &cgroup_fds {
                cgroup::enter(*fd)?;
            }
            let lim = |res, v: u64| {
                let r = rustix::process::Rlimit {
                    current: Some(v),
                    maximum: Some(v),
                };
                rustix::process::setrlimit(res, r)
            };
            lim(rustix::process::Resource::As, memory)?;
            lim(rustix::process::Resource::Fsize, output)?;
            lim(rustix::process::Resource::Core, 0)?;
            if let Some(cpu) = cpu {
                lim(rustix::process::Resource::Cpu, cpu)?;
            }
            for fd in &filter_fds {
                // SAFETY: the memory files are open in the parent until the spawn returns.
                let fd = std::os::fd::BorrowedFd::borrow_raw(*fd);
                rustix::io::fcntl_setfd(fd, rustix::io::FdFlags::empty())?;
            }
            Ok(())
        });
    }
    let child = cmd.spawn()?;
    drop(filters);
    Ok(Sandboxed {
        child,
        cgroup,
        reaped: false,
    })
}

fn run_in(
    j: &Jailer,
    program: &Path,
    args: &[&str],
    jail: &Jail,
    limits: Limits,
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<Run, SandboxError> {
    // The log is the host's file, written through the inherited descriptor (never visible in the
    // jail's folder); only its first 64 KiB is read.
    let log = tempfile::tempfile()?;
    let stdio = [
        Stdio::null(),
        Stdio::from(log.try_clone()?),
        Stdio::from(log.try_clone()?),
    ];
    let mut jailed = spawn_in(j, program, args, jail, limits, stdio, env)?;
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(st) = jailed.child.try_wait()? {
            jailed.reaped = true;
            break st;
        }
        if start.elapsed() > limits.timeout {
            timed_out = true;
            break jailed
                .kill()
                .ok_or_else(|| std::io::Error::other("bubblewrap could not be reaped"))?;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out_of_memory = jailed.out_of_memory();
    // Whatever is left in the compile's cgroup goes now.
    drop(jailed);
    let mut buf = Vec::new();
    let mut log = log;
    log.rewind()?;
    let _ = log.take(64 * 1024).read_to_end(&mut buf);
    // bubblewrap exits with 128 + the signal that ended the compiler.
    Ok(Run {
        success: status.success(),
        signal: signal_of(status),
        code: status.code(),
        timed_out,
        out_of_memory,
        output: String::from_utf8_lossy(&buf).into_owned(),
    })
}

#[cfg(test)]
pub(crate) mod tests;

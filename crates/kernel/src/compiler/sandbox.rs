//! The compiler's process sandbox. Every compiler run (nvcc, hipcc, the reference's and the
//! candidates') is a child process that, between `fork` and `exec`:
//!
//! 1. enters a mount namespace of its own (as root, or through a user namespace where an
//!    unprivileged one may be made) whose root is an empty `tmpfs` holding only the toolkit (the
//!    compiler's own installation folder, the host system's program, library and header folders
//!    that a C++ compiler needs, `/etc/ld.so.cache`), `/dev/null` and its own temporary folder,
//!    each bound at its own path, and `chroot`s into it: every other host path (`/etc/passwd`,
//!    `/dev/zero`, `/proc`, another candidate's folder) does not exist there, so nothing can read
//!    it nor learn that it exists (`__has_include`, `#pragma GCC dependency`);
//! 2. is confined by a Landlock ruleset (with `no_new_privs`) that lets it read the same toolkit
//!    and write only its own folder and `/dev/null`, make no TCP connection and signal no process
//!    outside it;
//! 3. runs under an address-space limit (`RLIMIT_AS`), an output-size limit (`RLIMIT_FSIZE`), no
//!    core files, a minimal environment, and a wall-time limit after which its whole process
//!    group is killed.
//!
//! Landlock is required: where the running kernel has none, no compiler runs
//! ([`SandboxError::Unavailable`], an `unsettled` leg `compile-sandbox-unavailable`). The mount
//! namespace is used wherever the host allows one ([`Confinement`], probed once, said once on
//! standard error when missing); without it Landlock still denies every read outside the
//! toolkit, but a path's existence can be probed through the compile's outcome.
//! [`super::diagnostic`] checks what the preprocessor read and what of its output a client sees.

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetError, Scope, path_beneath_rules,
};
use std::ffi::CString;
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
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

/// What a compiler process may touch.
#[derive(Debug, Clone, Default)]
pub(crate) struct Jail {
    /// Folders and files it may read (and run), besides [`SYSTEM_READ`].
    pub read: Vec<PathBuf>,
    /// Its own folder, which it may read and write.
    pub work: PathBuf,
    /// In the mount namespace, also a network namespace of its own (no interface but a loopback
    /// that is down) and a PID namespace for its children: the first process it starts is that
    /// namespace's first, and when it ends every process in it is killed. For compiles that run
    /// a candidate's own program (Triton); a C++ compiler needs neither.
    pub isolate: bool,
}

/// The limits a compiler runs under.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Wall time, after which the process group is killed.
    pub timeout: Duration,
    /// Address space, bytes.
    pub memory_bytes: u64,
    /// Largest file it may write, bytes.
    pub output_bytes: u64,
    /// CPU seconds (`RLIMIT_CPU`, every thread counted), when limited.
    pub cpu_seconds: Option<u64>,
}

/// What a sandboxed run produced.
#[derive(Debug)]
pub(crate) struct Run {
    /// It exited with status 0.
    pub success: bool,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    /// Its exit code, if it exited.
    pub code: Option<i32>,
    /// It ran past its wall time and was killed.
    pub timed_out: bool,
    /// The first 64 KiB of its standard output and error, together.
    pub output: String,
}

/// Why a compiler could not be run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SandboxError {
    /// The running kernel cannot confine the compiler: nothing is run.
    #[error("the compiler sandbox is unavailable: {0}")]
    Unavailable(String),
    /// Starting or waiting for the process failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Builds the Landlock ruleset for `jail`; its file descriptor is applied in the child.
fn ruleset(jail: &Jail) -> Result<OwnedFd, SandboxError> {
    let unavailable = |e: RulesetError| SandboxError::Unavailable(e.to_string());
    let read = AccessFs::from_read(ABI::V1) | AccessFs::Execute;
    let created = Ruleset::default()
        // Version 1 (Linux 5.13) or nothing: without it no file access is confined.
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V1))
        .map_err(unavailable)?
        // Newer rights (refer, truncate, TCP, scopes) where the kernel has them.
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(ABI::V5))
        .map_err(unavailable)?
        .handle_access(AccessNet::from_all(ABI::V4))
        .map_err(unavailable)?
        .scope(Scope::from_all(ABI::V6))
        .map_err(unavailable)?
        .create()
        .map_err(unavailable)?
        .add_rules(path_beneath_rules(SYSTEM_READ, read))
        .map_err(unavailable)?
        .add_rules(path_beneath_rules(&jail.read, read))
        .map_err(unavailable)?
        .add_rules(path_beneath_rules(
            [jail.work.as_path(), Path::new("/dev/null")],
            AccessFs::from_all(ABI::V5),
        ))
        .map_err(unavailable)?;
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| {
        SandboxError::Unavailable("this kernel has no Landlock (Linux 5.13 or later, enabled)".into())
    })
}

/// How far a compiler is confined on this host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Confinement {
    /// A mount namespace holding only the toolkit, and Landlock.
    Namespace,
    /// Landlock alone (this host makes no mount namespace for the service's user).
    Landlock,
}

/// One step of building the compiler's root, prepared before the fork.
#[derive(Debug)]
enum Step {
    /// A folder (its parents made by earlier steps).
    Dir(CString),
    /// An empty file to bind a file over.
    File(CString),
    /// A symbolic link `at` → `target` (`/bin` → `usr/bin` on a merged-`/usr` host).
    Link { target: CString, at: CString },
    /// A bind mount of the host's `src` at `dst`.
    Bind { src: CString, dst: CString },
}

/// The mount namespace a compiler enters: everything computed before the fork, so that the
/// child only makes system calls.
#[derive(Debug)]
struct Namespace {
    root: CString,
    work: CString,
    steps: Vec<Step>,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    isolate: bool,
}

fn cstr(p: &Path) -> std::io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a path holds a NUL byte"))
}

impl Namespace {
    /// The root for `jail`, to be mounted at `root` (an empty folder).
    fn plan(jail: &Jail, root: &Path) -> std::io::Result<Self> {
        let mut paths: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
        paths.extend(jail.read.iter().cloned());
        paths.push(PathBuf::from("/dev/null"));
        paths.push(jail.work.clone());
        let mut steps = Vec::new();
        let mut made: Vec<PathBuf> = Vec::new();
        let mut bound: Vec<PathBuf> = Vec::new();
        for p in paths {
            let Ok(meta) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if bound.iter().any(|b| p.starts_with(b)) {
                continue;
            }
            let at = root.join(p.strip_prefix("/").unwrap_or(&p));
            // Its parent folders, each once.
            let mut parents: Vec<&Path> = at.ancestors().skip(1).take_while(|a| *a != root).collect();
            parents.reverse();
            for d in parents {
                if !made.iter().any(|m| m == d) {
                    made.push(d.to_path_buf());
                    steps.push(Step::Dir(cstr(d)?));
                }
            }
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&p)?;
                steps.push(Step::Link {
                    target: cstr(&target)?,
                    at: cstr(&at)?,
                });
                continue;
            }
            steps.push(if meta.is_dir() {
                made.push(at.clone());
                Step::Dir(cstr(&at)?)
            } else {
                Step::File(cstr(&at)?)
            });
            steps.push(Step::Bind {
                src: cstr(&p)?,
                dst: cstr(&at)?,
            });
            bound.push(p);
        }
        let (uid, gid) = (
            rustix::process::getuid().as_raw(),
            rustix::process::getgid().as_raw(),
        );
        Ok(Namespace {
            root: cstr(root)?,
            work: cstr(&jail.work)?,
            steps,
            uid_map: format!("{uid} {uid} 1").into_bytes(),
            gid_map: format!("{gid} {gid} 1").into_bytes(),
            isolate: jail.isolate,
        })
    }

    /// Enters the namespace and its root. Runs in the child between fork and exec: only
    /// system calls on what [`Namespace::plan`] prepared.
    ///
    /// # Safety
    /// Only between fork and exec, in the child.
    unsafe fn enter(&self) -> std::io::Result<()> {
        use rustix::fs::{Mode, OFlags};
        use rustix::mount::{MountFlags, MountPropagationFlags};
        use rustix::thread::UnshareFlags;
        // Every path is a NUL-terminated string owned by `self` or a literal, so rustix passes it
        // as it is: none of these calls allocates, each is one system call.
        let unshare = |flags| {
            // SAFETY: the child is single-threaded between fork and exec, and neither flag is
            // `CLONE_FILES`, so no thread can see a file table other than its own.
            unsafe { rustix::thread::unshare_unsafe(flags) }
        };
        let own = if self.isolate {
            UnshareFlags::NEWNS | UnshareFlags::NEWNET | UnshareFlags::NEWPID
        } else {
            UnshareFlags::NEWNS
        };
        if !(rustix::process::geteuid().is_root() && unshare(own).is_ok()) {
            unshare(UnshareFlags::NEWUSER | own)?;
            for (file, text) in [
                (c"/proc/self/setgroups", b"deny".as_slice()),
                (c"/proc/self/uid_map", self.uid_map.as_slice()),
                (c"/proc/self/gid_map", self.gid_map.as_slice()),
            ] {
                let fd = rustix::fs::open(file, OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty())?;
                if rustix::io::write(&fd, text)? != text.len() {
                    return Err(std::io::Error::from(rustix::io::Errno::IO));
                }
            }
        }
        rustix::mount::mount_change(c"/", MountPropagationFlags::REC | MountPropagationFlags::PRIVATE)?;
        rustix::mount::mount(
            c"none",
            self.root.as_c_str(),
            c"tmpfs",
            MountFlags::NOSUID | MountFlags::NODEV,
            c"size=1m,mode=755",
        )?;
        for step in &self.steps {
            match step {
                Step::Dir(d) => match rustix::fs::mkdir(d.as_c_str(), Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err(e.into()),
                },
                Step::File(f) => {
                    let flags = OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC;
                    drop(rustix::fs::open(f.as_c_str(), flags, Mode::from_raw_mode(0o644))?);
                }
                Step::Link { target, at } => rustix::fs::symlink(target.as_c_str(), at.as_c_str())?,
                Step::Bind { src, dst } => {
                    rustix::mount::mount_bind_recursive(src.as_c_str(), dst.as_c_str())?
                }
            }
        }
        rustix::process::chroot(self.root.as_c_str())?;
        rustix::process::chdir(self.work.as_c_str())?;
        Ok(())
    }
}

/// Sends `SIGKILL` to the process group `pgid` (a child started with `process_group(0)`); a
/// group that is already gone is no error.
pub(crate) fn kill_group(pgid: u32) {
    if let Some(pid) = i32::try_from(pgid).ok().and_then(rustix::process::Pid::from_raw) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// How compilers are confined on this host: tried once, with `/bin/true`, the first time it is
/// asked.
pub(crate) fn confinement() -> Confinement {
    static FOUND: std::sync::OnceLock<Confinement> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| {
        let probe = || -> Result<Run, SandboxError> {
            let dir = tempfile::tempdir()?;
            let jail = Jail {
                read: Vec::new(),
                work: dir.path().to_path_buf(),
                isolate: false,
            };
            let limits = Limits {
                timeout: Duration::from_secs(20),
                memory_bytes: 1 << 30,
                output_bytes: 1 << 20,
                cpu_seconds: None,
            };
            run_as(
                Path::new("/bin/true"),
                &[],
                &jail,
                limits,
                Confinement::Namespace,
                &[],
            )
        };
        match probe() {
            Ok(r) if r.success => Confinement::Namespace,
            other => {
                let why = match other {
                    Ok(r) => r.output,
                    Err(e) => e.to_string(),
                };
                eprintln!(
                    "compiler sandbox: Landlock only; this host makes no mount namespace for this user ({}): \
                     host files stay unreadable, but a source can probe whether a host path exists",
                    why.trim()
                );
                Confinement::Landlock
            }
        }
    })
}

/// Runs `program args` in `jail.work` inside the sandbox, under `limits`.
pub(crate) fn run(program: &Path, args: &[&str], jail: &Jail, limits: Limits) -> Result<Run, SandboxError> {
    run_as(program, args, jail, limits, confinement(), &[])
}

/// [`run`] with variables added to the minimal environment.
pub(crate) fn run_with(
    program: &Path,
    args: &[&str],
    jail: &Jail,
    limits: Limits,
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<Run, SandboxError> {
    run_as(program, args, jail, limits, confinement(), env)
}

/// Starts `program args` in `jail.work` inside the sandbox, under `limits`' memory and file
/// size (not its wall time: the caller keeps that), in its own process group, with the given
/// standard streams. The compile workers are started so.
pub(crate) fn spawn(
    program: &Path,
    args: &[&str],
    jail: &Jail,
    limits: Limits,
    stdio: [Stdio; 3],
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<std::process::Child, SandboxError> {
    spawn_as(program, args, jail, limits, confinement(), stdio, env)
}

fn spawn_as(
    program: &Path,
    args: &[&str],
    jail: &Jail,
    limits: Limits,
    how: Confinement,
    stdio: [Stdio; 3],
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<std::process::Child, SandboxError> {
    let dir = jail.work.as_path();
    let rules = ruleset(jail)?;
    // The program by its real path: inside the namespace only real paths are bound.
    let program = program.canonicalize().unwrap_or_else(|_| program.to_path_buf());
    let namespace = match how {
        Confinement::Namespace => {
            let root = dir.join(".root");
            std::fs::create_dir_all(&root)?;
            Some(Namespace::plan(jail, &root)?)
        }
        Confinement::Landlock => None,
    };
    let rules_fd = rules.as_raw_fd();
    let [stdin, stdout, stderr] = stdio;
    let mut cmd = Command::new(&program);
    cmd.args(args)
        .current_dir(dir)
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
    // SAFETY: between fork and exec only async-signal-safe system calls run (unshare, mount,
    // mkdir, chroot, setrlimit, prctl, landlock_restrict_self; rustix makes each one raw system
    // call), on values computed before the fork; nothing allocates.
    unsafe {
        cmd.pre_exec(move || {
            if let Some(ns) = &namespace {
                // In the child, between fork and exec, as `enter` requires.
                ns.enter()?;
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
            rustix::thread::set_no_new_privs(true)?;
            // libc, not rustix: rustix has no landlock_restrict_self, and the landlock crate's
            // own wants its ruleset object, which is not to be touched after the fork.
            if libc::syscall(libc::SYS_landlock_restrict_self, rules_fd, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let spawned = cmd.spawn();
    drop(rules);
    Ok(spawned?)
}

fn run_as(
    program: &Path,
    args: &[&str],
    jail: &Jail,
    limits: Limits,
    how: Confinement,
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<Run, SandboxError> {
    let log_path = jail.work.join("compile.log");
    let log = std::fs::File::create(&log_path)?;
    let stdio = [Stdio::null(), Stdio::from(log.try_clone()?), Stdio::from(log)];
    let mut child = spawn_as(program, args, jail, limits, how, stdio, env)?;
    let pgid = child.id();
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break st;
        }
        if start.elapsed() > limits.timeout {
            timed_out = true;
            kill_group(pgid);
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // Anything left in the group (a grandchild) goes too.
    kill_group(pgid);
    let mut buf = Vec::new();
    if let Ok(f) = std::fs::File::open(&log_path) {
        let _ = f.take(64 * 1024).read_to_end(&mut buf);
    }
    Ok(Run {
        success: status.success(),
        signal: status.signal(),
        code: status.code(),
        timed_out,
        output: String::from_utf8_lossy(&buf).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether compilers can be confined here at all (a Landlock ruleset can be made).
    fn available() -> Result<(), SandboxError> {
        ruleset(&Jail {
            read: Vec::new(),
            work: std::env::temp_dir(),
            isolate: false,
        })
        .map(drop)
    }

    fn limits() -> Limits {
        Limits {
            timeout: Duration::from_secs(20),
            memory_bytes: 1 << 30,
            output_bytes: 1 << 20,
            cpu_seconds: None,
        }
    }

    fn sh(script: &str, jail: &Jail) -> Run {
        run(Path::new("/bin/sh"), &["-c", script], jail, limits()).expect("the sandbox runs")
    }

    #[test]
    fn a_confined_process_reads_the_toolkit_and_its_folder_and_nothing_else() {
        available().expect("CI's kernel has Landlock");
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "the secret").unwrap();
        let work = tempfile::tempdir().unwrap();
        let jail = Jail {
            read: Vec::new(),
            work: work.path().to_path_buf(),
            isolate: false,
        };
        let secret = outside.path().join("secret");
        let r = sh(
            &format!(
                "echo mine > own; cat own; cat /usr/include/stdio.h >/dev/null && echo toolkit; \
                 cat {} || echo denied-tmp; cat /etc/passwd || echo denied-etc; \
                 head -c 16 /dev/zero | wc -c || echo denied-zero; echo x > {}/planted || echo denied-write",
                secret.display(),
                outside.path().display()
            ),
            &jail,
        );
        assert!(r.success || r.output.contains("denied"), "{}", r.output);
        for want in ["mine", "toolkit", "denied-tmp", "denied-etc", "denied-write"] {
            assert!(r.output.contains(want), "missing {want} in {}", r.output);
        }
        assert!(!r.output.contains("the secret"), "{}", r.output);
        assert!(!r.output.contains("root:"), "{}", r.output);
        assert!(!outside.path().join("planted").exists());
        // /dev/zero is not readable: `wc` never sees 16 bytes.
        assert!(!r.output.lines().any(|l| l.trim() == "16"), "{}", r.output);
    }

    #[test]
    fn in_the_namespace_no_other_host_path_exists() {
        if confinement() != Confinement::Namespace {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI's host makes mount namespaces: the compiler's root must hold only the toolkit"
            );
            eprintln!("skipped: this host makes no mount namespace");
            return;
        }
        let work = tempfile::tempdir().unwrap();
        let jail = Jail {
            read: Vec::new(),
            work: work.path().to_path_buf(),
            isolate: false,
        };
        let r = sh(
            "for p in /etc/passwd /etc/shadow /proc/self /home /root /var /dev/zero; do \
               test -e $p && echo \"present $p\"; done; \
             test -e /usr/include/stdio.h && echo toolkit; test -e /dev/null && echo devnull; pwd; \
             echo \"beside: $(ls -A ..)\"",
            &jail,
        );
        assert!(!r.output.contains("present"), "{}", r.output);
        assert!(
            r.output.contains("toolkit") && r.output.contains("devnull"),
            "{}",
            r.output
        );
        assert!(
            r.output.contains(&work.path().display().to_string()),
            "{}",
            r.output
        );
    }

    #[test]
    fn extra_read_folders_are_readable_and_a_timeout_kills_the_group() {
        let extra = tempfile::tempdir().unwrap();
        std::fs::write(extra.path().join("h.h"), "toolkit header").unwrap();
        let work = tempfile::tempdir().unwrap();
        let jail = Jail {
            read: vec![extra.path().to_path_buf()],
            work: work.path().to_path_buf(),
            isolate: false,
        };
        let r = sh(&format!("cat {}/h.h", extra.path().display()), &jail);
        assert!(r.success && r.output.contains("toolkit header"), "{}", r.output);
        let quick = Limits {
            timeout: Duration::from_millis(200),
            ..limits()
        };
        let t = Instant::now();
        let r = run(Path::new("/bin/sh"), &["-c", "sleep 30 & sleep 30"], &jail, quick).unwrap();
        assert!(r.timed_out && !r.success);
        assert!(t.elapsed() < Duration::from_secs(10));
    }
}

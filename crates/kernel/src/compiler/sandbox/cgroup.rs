//! A control group per compile, where the host gives the service one to make: the compile's
//! processes together may hold at most [`super::PROCESS_LIMIT`] tasks and the compile memory
//! limit (the size-limited compile folder's pages included), so a fork bomb or six 1 GiB
//! children meet their own compile's limit and not the host's. The cgroup also tells an
//! out-of-memory kill (the candidate's doing) from a kill that came from outside (never the
//! candidate's fault), and on the way out every process still in it is killed.
//!
//! Where: `$AORLTA_COMPILE_CGROUP` (a cgroup v2 folder delegated to the service, with `memory`
//! and `pids` in its `cgroup.subtree_control`), else the service's own cgroup v2 folder when its
//! subtree has both controllers or it is the root, else cgroup v1's `pids` and `memory`
//! hierarchies where the service may make folders in them. Found once; without any, each
//! process keeps its own limits (address space, CPU, file size) and the processes together are
//! not bounded: [`status`] says so, and docs/OPERATIONS.md tells a deployment how to delegate.

use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where the per-compile cgroups are made.
#[derive(Debug, Clone)]
enum Parent {
    /// A cgroup v2 folder whose children get `memory` and `pids`.
    V2(PathBuf),
    /// cgroup v1: a folder in the `pids` hierarchy and one in the `memory` hierarchy.
    V1 { pids: PathBuf, memory: PathBuf },
}

fn parent() -> &'static Result<Parent, String> {
    static FOUND: std::sync::OnceLock<Result<Parent, String>> = std::sync::OnceLock::new();
    FOUND.get_or_init(find)
}

/// How processes of one compile are bounded together on this host, in words.
pub(crate) fn status() -> String {
    match parent() {
        Ok(Parent::V2(p)) => format!("a cgroup v2 per compile under {}", p.display()),
        Ok(Parent::V1 { pids, memory }) => format!(
            "a cgroup v1 per compile under {} and {}",
            pids.display(),
            memory.display()
        ),
        Err(why) => format!("no cgroup per compile ({why}): per-process limits only"),
    }
}

fn has_controllers(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("cgroup.subtree_control"))
        .map(|s| {
            let c: Vec<&str> = s.split_whitespace().collect();
            c.contains(&"memory") && c.contains(&"pids")
        })
        .unwrap_or(false)
}

/// A folder `dir/aorlta-compiles` can be made (or is there) and written to.
fn writable_child(dir: &Path) -> Option<PathBuf> {
    let child = dir.join("aorlta-compiles");
    match std::fs::create_dir(&child) {
        Ok(()) => Some(child),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Some(child),
        Err(_) => None,
    }
}

fn find() -> Result<Parent, String> {
    if let Some(dir) = std::env::var_os("AORLTA_COMPILE_CGROUP").map(PathBuf::from) {
        return if has_controllers(&dir) {
            Ok(Parent::V2(dir))
        } else {
            Err(format!(
                "AORLTA_COMPILE_CGROUP={}: not a cgroup v2 folder with memory and pids in cgroup.subtree_control",
                dir.display()
            ))
        };
    }
    let own = std::fs::read_to_string("/proc/self/cgroup").map_err(|e| format!("/proc/self/cgroup: {e}"))?;
    let root = Path::new("/sys/fs/cgroup");
    if root.join("cgroup.controllers").is_file() {
        // The unified hierarchy alone.
        let path = own
            .lines()
            .find_map(|l| l.strip_prefix("0::"))
            .ok_or("no cgroup v2 line in /proc/self/cgroup")?;
        let dir = root.join(path.trim_start_matches('/'));
        if path == "/" {
            // The root may hold processes and still hand controllers down.
            let _ = std::fs::write(root.join("cgroup.subtree_control"), "+memory +pids");
            if has_controllers(root)
                && let Some(c) = writable_child(root)
            {
                let _ = std::fs::write(c.join("cgroup.subtree_control"), "+memory +pids");
                if has_controllers(&c) {
                    return Ok(Parent::V2(c));
                }
            }
        } else if has_controllers(&dir) {
            // A delegated subtree (systemd's `Delegate=yes` with the service in a leaf).
            return Ok(Parent::V2(dir));
        }
        return Err(format!(
            "the service's cgroup {} does not hand memory and pids to cgroups it may make",
            dir.display()
        ));
    }
    // cgroup v1: a line `N:pids:/path` and one `N:memory:/path`.
    let v1 = |controller: &str| {
        own.lines().find_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, names, path) = (parts.next()?, parts.next()?, parts.next()?);
            names
                .split(',')
                .any(|n| n == controller)
                .then(|| root.join(controller).join(path.trim_start_matches('/')))
        })
    };
    let (Some(pids), Some(memory)) = (v1("pids"), v1("memory")) else {
        return Err("no cgroup v2 and no cgroup v1 pids and memory hierarchies".into());
    };
    match (writable_child(&pids), writable_child(&memory)) {
        (Some(pids), Some(memory)) => Ok(Parent::V1 { pids, memory }),
        _ => Err(format!(
            "{} and {} do not let the service make cgroups",
            pids.display(),
            memory.display()
        )),
    }
}

/// One compile's cgroup: made before the compile starts, its processes killed and the folder
/// removed when dropped.
#[derive(Debug)]
pub(crate) struct Cgroup {
    /// The folders (one for v2; pids and memory for v1), the memory one last.
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each folder, opened for writing: the child writes itself into each.
    procs: Vec<std::fs::File>,
    v2: bool,
}

impl Cgroup {
    /// A cgroup for one compile with at most `tasks` tasks and `memory` bytes; `None` where the
    /// host gives none (see [`status`]).
    pub(crate) fn make(tasks: u64, memory: u64) -> std::io::Result<Option<Cgroup>> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let Ok(parent) = parent() else {
            return Ok(None);
        };
        let name = format!("c{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let (dirs, v2) = match parent {
            Parent::V2(p) => (vec![p.join(&name)], true),
            Parent::V1 { pids, memory } => (vec![pids.join(&name), memory.join(&name)], false),
        };
        let mut cg = Cgroup {
            dirs: Vec::new(),
            procs: Vec::new(),
            v2,
        };
        for d in &dirs {
            std::fs::create_dir(d)?;
            cg.dirs.push(d.clone());
        }
        let set = |dir: &Path, file: &str, value: String| {
            std::fs::write(dir.join(file), value)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", dir.join(file).display())))
        };
        if v2 {
            set(&dirs[0], "pids.max", tasks.to_string())?;
            set(&dirs[0], "memory.max", memory.to_string())?;
            // No swap: memory past the limit is an out-of-memory kill, not a slow compile.
            let _ = set(&dirs[0], "memory.swap.max", "0".into());
        } else {
            set(&dirs[0], "pids.max", tasks.to_string())?;
            set(&dirs[1], "memory.limit_in_bytes", memory.to_string())?;
        }
        for d in &dirs {
            cg.procs.push(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(d.join("cgroup.procs"))?,
            );
        }
        Ok(Some(cg))
    }

    /// The `cgroup.procs` files to write the child's own pid into (`0`) between fork and exec.
    pub(crate) fn procs_fds(&self) -> Vec<RawFd> {
        self.procs.iter().map(AsRawFd::as_raw_fd).collect()
    }

    fn memory_dir(&self) -> &Path {
        self.dirs.last().expect("a cgroup has a folder")
    }

    /// The kernel killed a process of this compile for passing its memory limit.
    pub(crate) fn oom_killed(&self) -> bool {
        let file = if self.v2 {
            "memory.events"
        } else {
            "memory.oom_control"
        };
        let text = std::fs::read_to_string(self.memory_dir().join(file)).unwrap_or_default();
        let count = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        match count("oom_kill ") {
            Some(n) => n > 0,
            // An older v1 kernel without the count: the limit was met at all.
            None if !self.v2 => std::fs::read_to_string(self.memory_dir().join("memory.failcnt"))
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .is_some_and(|n| n > 0),
            None => false,
        }
    }

    /// Kills every process in the cgroup, until none is left (or a second has passed).
    pub(crate) fn kill_all(&self) {
        if self.v2 && std::fs::write(self.dirs[0].join("cgroup.kill"), "1").is_ok() {
            wait_empty(&self.dirs[0]);
            return;
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        loop {
            let pids = pids_in(&self.dirs[0]);
            if pids.is_empty() || std::time::Instant::now() > deadline {
                return;
            }
            for pid in pids {
                if let Some(p) = rustix::process::Pid::from_raw(pid) {
                    let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}

fn pids_in(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn wait_empty(dir: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    while !pids_in(dir).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        self.kill_all();
        self.procs.clear();
        for d in &self.dirs {
            // A folder whose last process is still being reaped cannot go yet.
            for _ in 0..50 {
                if std::fs::remove_dir(d).is_ok() || !d.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
    }
}

/// Writes `0` (the writer itself) into a `cgroup.procs` file. Between fork and exec: one
/// system call, no allocation.
pub(crate) fn enter(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: `fd` is an open file descriptor owned by the parent's `Cgroup`, alive across the
    // fork; the child borrows it for one write.
    let file = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    match rustix::io::write(file, b"0") {
        Ok(_) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

//! The jail, attacked from inside: each test runs what a candidate's code could run in a compile
//! (a shell, the system's Python) and checks on the host that it got nothing. The compile legs'
//! own tests (`triton_tests.rs`, the kernel crate's `tests.rs`) run the same attacks through a
//! real compile.

use super::*;

fn limits() -> Limits {
    Limits {
        timeout: Duration::from_secs(30),
        memory_bytes: 1 << 30,
        output_bytes: 1 << 20,
        cpu_seconds: None,
    }
}

fn jail_in(work: &Path) -> Jail {
    Jail {
        work: work.to_path_buf(),
        ..Jail::default()
    }
}

fn sh_with(script: &str, jail: &Jail, limits: Limits) -> Run {
    run(Path::new("/bin/sh"), &["-c", script], jail, limits).expect("the jail runs")
}

fn sh(script: &str, jail: &Jail) -> Run {
    sh_with(script, jail, limits())
}

/// The system's Python, which every host that runs these tests has (Debian's `python3`).
fn python(code: &str, jail: &Jail) -> Run {
    run(Path::new("/usr/bin/python3"), &["-I", "-c", code], jail, limits()).expect("the jail runs")
}

fn need_jail() -> bool {
    match available() {
        Ok(()) => true,
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI installs bubblewrap (scripts/install-bwrap.sh): {why}"
            );
            eprintln!("skipped: {why}");
            false
        }
    }
}

/// Processes on the host whose command line holds `marker`.
pub(crate) fn processes_with(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|d| std::fs::read(d.ok()?.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).contains(marker))
        .count()
}

#[test]
fn the_toolkit_and_the_work_folder_are_read_only_and_nothing_else_exists() {
    if !need_jail() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "the secret").unwrap();
    let extra = tempfile::tempdir().unwrap();
    std::fs::write(extra.path().join("h.h"), "toolkit header").unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("src.cu"), "the source").unwrap();
    let jail = Jail {
        read: vec![extra.path().to_path_buf()],
        work: work.path().to_path_buf(),
        inputs: vec!["src.cu".into()],
        outputs: vec!["out.bin".into()],
        libs_only: false,
    };
    // Every folder bound into the jail, and the root itself: a write anywhere is refused.
    let mut targets: Vec<String> = bwrap::read_paths(&jail)
        .into_iter()
        .filter(|(_, link)| link.is_none())
        .map(|(p, _)| {
            if p.is_dir() {
                p
            } else {
                p.parent().unwrap().to_path_buf()
            }
        })
        .map(|p| p.display().to_string())
        .collect();
    targets.push("/".into());
    targets.push(work.path().parent().unwrap().display().to_string());
    let writes: String = targets
        .iter()
        .map(|t| format!("(echo x > '{t}/aorlta-planted') 2>/dev/null && echo \"WROTE {t}\"; "))
        .collect();
    let r = sh(
        &format!(
            "{writes} echo mine > own && cat own; cat src.cu; echo changed > src.cu 2>/dev/null && echo WROTE-INPUT; \
             echo result > out.bin; cat {}/h.h; cat /usr/include/stdio.h >/dev/null && echo toolkit; \
             for p in {} /etc/passwd /etc/shadow /proc/self /home /root /var /dev/zero /sys; do \
               test -e $p && echo \"present $p\"; done; echo \"beside: $(ls -A ..)\"",
            extra.path().display(),
            outside.path().join("secret").display(),
        ),
        &jail,
    );
    assert!(r.success, "{}", r.output);
    for want in ["mine", "the source", "toolkit header", "toolkit"] {
        assert!(r.output.contains(want), "missing {want} in {}", r.output);
    }
    assert!(!r.output.contains("WROTE"), "{}", r.output);
    assert!(!r.output.contains("present"), "{}", r.output);
    for t in &targets {
        assert!(!Path::new(t).join("aorlta-planted").exists(), "{t}");
    }
    // Only the named output came back; the folder's other writes stayed in the jail.
    assert_eq!(
        std::fs::read_to_string(work.path().join("out.bin")).unwrap(),
        "result\n"
    );
    assert_eq!(
        std::fs::read_to_string(work.path().join("src.cu")).unwrap(),
        "the source"
    );
    assert!(!work.path().join("own").exists());
}

#[test]
fn the_program_is_bound_alone_and_nothing_beside_it_is_readable() {
    if !need_jail() {
        return;
    }
    // A program in a folder that also holds a token (a container's `/app`): the jail binds the
    // program's file, never its folder.
    let app = tempfile::tempdir().unwrap();
    let program = app.path().join("tool");
    std::fs::copy("/bin/cat", &program).unwrap();
    std::fs::write(app.path().join("token"), "the-service-token").unwrap();
    let work = tempfile::tempdir().unwrap();
    let jail = Jail {
        read: vec![program.clone()],
        ..jail_in(work.path())
    };
    let token = app.path().join("token").display().to_string();
    let r = run(&program, &[&token], &jail, limits()).unwrap();
    assert!(!r.success, "{}", r.output);
    assert!(!r.output.contains("the-service-token"), "{}", r.output);
    let r = run(&program, &["/usr/include/stdio.h"], &jail, limits()).unwrap();
    assert!(r.success && r.output.contains("printf"), "{}", r.output);
}

#[test]
fn no_capability_and_the_privileged_calls_are_refused() {
    if !need_jail() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    // A UNIX socket of the host's (a database's, a container runtime's), and an abstract one.
    let sockets = tempfile::tempdir().unwrap();
    let path = sockets.path().join("host.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let abstract_name = format!("aorlta-test-{}", std::process::id());
    let _abstract = {
        use std::os::linux::net::SocketAddrExt;
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(abstract_name.as_bytes()).unwrap();
        std::os::unix::net::UnixListener::bind_addr(&addr).unwrap()
    };
    let code = format!(
        r#"
import ctypes, errno, os, socket, stat
libc = ctypes.CDLL(None, use_errno=True)
hdr = (ctypes.c_uint32 * 2)(0x20080522, 0)
data = (ctypes.c_uint32 * 6)()
assert libc.capget(hdr, data) == 0
print("caps", data[0], data[1], data[3], data[4])
print("uid", os.getuid(), os.geteuid())
def tried(name, f):
    try:
        f()
        print("ALLOWED", name)
    except OSError as e:
        print("refused", name, errno.errorcode.get(e.errno, e.errno))
def sys(name, nr, *args):
    def f():
        if libc.syscall(nr, *args) == -1:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
    tried(name, f)
tried("chroot", lambda: os.chroot("/usr"))
tried("mknod", lambda: os.mknod("dev", stat.S_IFCHR | 0o600, os.makedev(1, 3)))
tried("sethostname", lambda: socket.sethostname("x"))
tried("unix", lambda: socket.socket(socket.AF_UNIX).connect({path:?}))
tried("abstract", lambda: socket.socket(socket.AF_UNIX).connect("\0{abstract_name}"))
tried("tcp", lambda: socket.create_connection(("127.0.0.1", 22), timeout=1))
sys("unshare-user", 272, 0x10000000)
tried("stat-shadow", lambda: os.stat("/etc/shadow"))
sys("bpf", 321, 0, 0, 0)
sys("perf_event_open", 298, 0, 0, -1, -1, 0)
sys("syslog", 103, 3, 0, 0)
sys("keyctl", 250, 0, 0, 0)
sys("init_module", 175, 0, 0, 0)
sys("ptrace", 101, 16, 1, 0, 0)
sys("mount", 165, 0, 0, 0, 0, 0)
sys("x32-getpid", 0x40000000 + 39)
print("done")
"#
    );
    let r = python(&code, &jail_in(work.path()));
    assert!(r.success && r.output.contains("done"), "{}", r.output);
    assert!(
        r.output.contains("caps 0 0 0 0"),
        "capabilities left: {}",
        r.output
    );
    assert!(r.output.contains("uid 65534 65534"), "{}", r.output);
    assert!(!r.output.contains("ALLOWED"), "{}", r.output);
    for name in [
        "chroot",
        "mknod",
        "sethostname",
        "unix",
        "abstract",
        "tcp",
        "unshare-user",
        "stat-shadow",
        "bpf",
        "perf_event_open",
        "syslog",
        "keyctl",
        "init_module",
        "ptrace",
        "mount",
        "x32-getpid",
    ] {
        assert!(
            r.output.contains(&format!("refused {name} ")),
            "{name}: {}",
            r.output
        );
    }
}

#[test]
fn a_timeout_kills_every_process_and_nothing_is_left_behind() {
    if !need_jail() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let marker = format!("{}.{}", 1000 + std::process::id() % 1000, 31337);
    let key = 0x4152_0000 + (std::process::id() & 0xffff);
    // A helper that leaves the session with its parent stopped, System V shared memory, and a
    // sleeper: the jail is killed at its limit and takes all of them with it.
    let code = format!(
        r#"
import ctypes, os, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.restype = ctypes.c_int
shm = libc.shmget({key}, 64 << 20, 0o1000 | 0o600)
print("shm", shm, flush=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "{marker}"])
    os.kill(os.getpid(), signal.SIGSTOP)
time.sleep(1000)
"#
    );
    let quick = Limits {
        timeout: Duration::from_millis(1500),
        ..limits()
    };
    let t = Instant::now();
    let r = run(
        Path::new("/usr/bin/python3"),
        &["-I", "-c", &code],
        &jail_in(work.path()),
        quick,
    )
    .unwrap();
    assert!(r.timed_out && !r.success, "{r:?}");
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(!r.output.contains("shm -1"), "{}", r.output);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(processes_with(&marker), 0, "the helper outlived its compile");
    let shm = std::fs::read_to_string("/proc/sysvipc/shm").unwrap_or_default();
    assert!(
        !shm.lines()
            .any(|l| l.split_whitespace().next() == Some(&key.to_string())),
        "shared memory {key} outlived its compile:\n{shm}"
    );
}

#[test]
fn the_compile_folder_is_bounded_and_nothing_reaches_the_host_disk() {
    if !need_jail() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let big = Limits {
        memory_bytes: 2 << 30,
        output_bytes: 1 << 30,
        ..limits()
    };
    let r = sh_with(
        "i=0; while [ $i -lt 12 ]; do head -c 67108864 /usr/bin/* 2>/dev/null > fill$i || { echo full at $i; break; }; i=$((i+1)); done; \
         du -sk . | cut -f1",
        &jail_in(work.path()),
        big,
    );
    assert!(r.output.contains("full at"), "{}", r.output);
    let used_kib: u64 = r.output.lines().last().unwrap().trim().parse().unwrap();
    assert!(
        used_kib <= DISK_LIMIT / 1024 + 64,
        "{used_kib} KiB in {}",
        r.output
    );
    let on_host: Vec<_> = std::fs::read_dir(work.path()).unwrap().collect();
    assert!(on_host.is_empty(), "{on_host:?}");
}

/// Whether this host gives compiles a cgroup of their own (CI's does: it runs as root with
/// writable cgroup hierarchies).
fn need_cgroup() -> bool {
    if cgroup::status().starts_with("no cgroup") {
        assert!(std::env::var_os("CI").is_none(), "{}", cgroup::status());
        eprintln!("skipped: {}", cgroup::status());
        return false;
    }
    true
}

#[test]
fn a_fork_bomb_and_a_memory_hog_meet_their_own_limits_while_another_compile_succeeds() {
    if !need_jail() || !need_cgroup() {
        return;
    }
    let bomb_dir = tempfile::tempdir().unwrap();
    let hog_dir = tempfile::tempdir().unwrap();
    let quick = Limits {
        timeout: Duration::from_secs(4),
        ..limits()
    };
    let bomb_jail = jail_in(bomb_dir.path());
    let bomb = std::thread::spawn(move || {
        let code = "import os, time\nn = 0\nwhile True:\n    try:\n        os.fork(); n += 1\n    except OSError:\n        time.sleep(0.01)\n";
        run(
            Path::new("/usr/bin/python3"),
            &["-I", "-c", code],
            &bomb_jail,
            quick,
        )
        .unwrap()
    });
    let hog_jail = jail_in(hog_dir.path());
    let hog = std::thread::spawn(move || {
        // Six children of 512 MiB each against a 1 GiB compile: each within its own address
        // space limit, together past the compile's memory.
        let code = "import os, time\nfor _ in range(6):\n    if os.fork() == 0:\n        b = bytearray(512 << 20)\n        time.sleep(3)\n        os._exit(0)\nfor _ in range(6):\n    os.wait()\n";
        run(
            Path::new("/usr/bin/python3"),
            &["-I", "-c", code],
            &hog_jail,
            quick,
        )
        .unwrap()
    });
    std::thread::sleep(Duration::from_millis(800));
    let work = tempfile::tempdir().unwrap();
    let ok = sh(
        "i=0; while [ $i -lt 20 ]; do /bin/true; i=$((i+1)); done; echo fine",
        &jail_in(work.path()),
    );
    assert!(ok.success && ok.output.contains("fine"), "{ok:?}");
    let bomb = bomb.join().unwrap();
    assert!(bomb.timed_out, "{bomb:?}");
    let hog = hog.join().unwrap();
    assert!(hog.out_of_memory, "{hog:?}");
    assert!(!hog.killed_from_outside(), "{hog:?}");
}

#[test]
fn a_kill_from_outside_is_told_from_the_compiles_own_doing() {
    let own = Run {
        success: false,
        signal: Some(libc::SIGKILL),
        code: None,
        timed_out: false,
        out_of_memory: true,
        output: String::new(),
    };
    assert!(!own.killed_from_outside());
    let outside = Run {
        out_of_memory: false,
        ..own
    };
    assert!(outside.killed_from_outside());
    let timed = Run {
        timed_out: true,
        ..outside
    };
    assert!(!timed.killed_from_outside());
}

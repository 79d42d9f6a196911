//! bubblewrap, the jail every compile runs in: found once (`$AORLTA_BWRAP`, else `bwrap` on the
//! `PATH`, else `/usr/bin/bwrap`), at version 0.8 or later (`--disable-userns`, `--size`,
//! `--add-seccomp-fd`), and given one argument list per compile ([`arguments`]).

use super::{Jail, SYSTEM_LIBS, SYSTEM_READ};
use std::ffi::OsString;
use std::path::PathBuf;

/// The uid and gid a compiler runs as inside its user namespace (`nobody`).
pub(crate) const INSIDE_ID: u32 = 65534;

/// The bubblewrap this process uses: its path and version.
#[derive(Debug, Clone)]
pub(crate) struct Bwrap {
    /// The program.
    pub path: PathBuf,
    /// `bwrap --version`'s number.
    pub version: String,
}

/// The oldest bubblewrap with every option [`arguments`] uses.
const OLDEST: (u32, u32) = (0, 8);

/// Finds bubblewrap and checks its version.
pub(crate) fn find() -> Result<Bwrap, String> {
    let candidates: Vec<PathBuf> = match std::env::var_os("AORLTA_BWRAP") {
        Some(p) => vec![PathBuf::from(p)],
        None => std::env::var_os("PATH")
            .map(|p| {
                std::env::split_paths(&p)
                    .map(|d| d.join("bwrap"))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
            .into_iter()
            .chain([PathBuf::from("/usr/bin/bwrap")])
            .collect(),
    };
    let Some(path) = candidates.into_iter().find(|p| p.is_file()) else {
        return Err(
            "bubblewrap (`bwrap`) was not found: install Debian's or Ubuntu's `bubblewrap`, \
                    or set AORLTA_BWRAP (scripts/install-bwrap.sh fetches one)"
                .into(),
        );
    };
    let path = path.canonicalize().unwrap_or(path);
    let out = std::process::Command::new(&path)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.split_whitespace().last().unwrap_or("").to_string();
    let mut nums = version.split('.').map(|n| n.parse::<u32>().unwrap_or(0));
    let (major, minor) = (nums.next().unwrap_or(0), nums.next().unwrap_or(0));
    if (major, minor) < OLDEST {
        return Err(format!(
            "{} is bubblewrap {version:?}; the compile jail needs {}.{} or later",
            path.display(),
            OLDEST.0,
            OLDEST.1
        ));
    }
    Ok(Bwrap { path, version })
}

/// The folders and files a jail binds read-only, parents before children, a path under one
/// already bound left out, missing ones skipped; a symbolic link is made as a link.
pub(crate) fn read_paths(jail: &Jail) -> Vec<(PathBuf, Option<PathBuf>)> {
    let system = if jail.libs_only { SYSTEM_LIBS } else { SYSTEM_READ };
    let mut paths: Vec<PathBuf> = system.iter().map(PathBuf::from).collect();
    paths.extend(jail.read.iter().cloned());
    paths.sort_by_key(|p| p.components().count());
    let mut out: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    for p in paths {
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if out.iter().any(|(b, link)| link.is_none() && p.starts_with(b)) || out.iter().any(|(b, _)| *b == p)
        {
            continue;
        }
        let link = meta
            .file_type()
            .is_symlink()
            .then(|| std::fs::read_link(&p).ok())
            .flatten();
        out.push((p, link));
    }
    out
}

fn os(s: &str) -> OsString {
    OsString::from(s)
}

/// bubblewrap's arguments for `jail`, up to and including `--`: every namespace of its own (user,
/// mount, PID, IPC, UTS, network, cgroup), `nobody` inside with no capability and no further
/// user namespace, a new session, killed with its parent; a root holding only the read-only
/// toolkit, a writable `/dev/null` and the compile folder: a `disk`-byte `tmpfs` at the work
/// folder's own path, with the inputs bound read-only and the outputs bound writable from the
/// host's folder; the seccomp programs on `seccomp_fds`.
pub(crate) fn arguments(jail: &Jail, disk: u64, seccomp_fds: &[i32]) -> Vec<OsString> {
    let mut a: Vec<OsString> = [
        "--unshare-user",
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]
    .into_iter()
    .map(os)
    .collect();
    let id = INSIDE_ID.to_string();
    a.extend([os("--uid"), os(&id), os("--gid"), os(&id)]);
    for (p, link) in read_paths(jail) {
        match link {
            Some(target) => a.extend([os("--symlink"), target.into_os_string(), p.into_os_string()]),
            None => a.extend([os("--ro-bind"), p.clone().into_os_string(), p.into_os_string()]),
        }
    }
    a.extend([os("--dev-bind"), os("/dev/null"), os("/dev/null")]);
    let work = jail.work.as_os_str().to_os_string();
    a.extend([
        os("--size"),
        os(&disk.to_string()),
        os("--perms"),
        os("0700"),
        os("--tmpfs"),
        work.clone(),
    ]);
    let at = |name: &str| -> (OsString, OsString) {
        let host = jail.work.join(name).into_os_string();
        (host.clone(), host)
    };
    for name in &jail.inputs {
        let (src, dst) = at(name);
        a.extend([os("--ro-bind"), src, dst]);
    }
    for name in &jail.outputs {
        let (src, dst) = at(name);
        a.extend([os("--bind"), src, dst]);
    }
    // The jail's own root (bubblewrap's `tmpfs`) read-only too: nothing but the compile folder
    // takes a write.
    a.extend([os("--remount-ro"), os("/")]);
    a.extend([os("--chdir"), work]);
    for fd in seccomp_fds {
        a.extend([os("--add-seccomp-fd"), os(&fd.to_string())]);
    }
    a.push(os("--"));
    a
}

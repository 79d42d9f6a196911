//! A throwaway PostgreSQL server in a temporary folder, for the store's tests and
//! `aorlta bench score`: `initdb` makes a cluster there, `pg_ctl` starts it listening only on a
//! unix socket in that folder (no TCP: `listen_addresses=''`), and dropping the server stops it
//! and removes the folder. The server refuses to run as root, so under root it runs as the
//! `postgres` user that Debian's packages create, owning the folder.
//!
//! The binaries are found in `$AORLTA_PG_BIN`, else beside `pg_ctl` on the `PATH`, else in the
//! newest `/usr/lib/postgresql/<version>/bin`.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The variable naming the folder of `initdb`, `pg_ctl` and `createdb`.
pub const PG_BIN_VAR: &str = "AORLTA_PG_BIN";

/// The folder holding `initdb` and `pg_ctl`, if there is one.
pub fn find_bin() -> Option<PathBuf> {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("pg_ctl").is_file();
    if let Some(d) = std::env::var_os(PG_BIN_VAR).map(PathBuf::from) {
        return has(&d).then_some(d);
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("pg_ctl"))
            .find(|p| p.is_file())
            .and_then(|p| std::fs::canonicalize(p).ok())
            .and_then(|p| p.parent().map(Path::to_path_buf))
    });
    if let Some(d) = on_path.filter(|d| has(d)) {
        return Some(d);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            Some((v, e.path().join("bin")))
        })
        .filter(|(_, d)| has(d))
        .collect();
    versions.sort();
    versions.pop().map(|(_, d)| d)
}

/// The uid and gid of a user, from `/etc/passwd`.
fn user_ids(name: &str) -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|l| {
        let f: Vec<&str> = l.split(':').collect();
        if f.len() > 3 && f[0] == name {
            Some((f[2].parse().ok()?, f[3].parse().ok()?))
        } else {
            None
        }
    })
}

/// A running throwaway server.
#[derive(Debug)]
pub struct TempServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    owner: Option<(u32, u32)>,
}

impl TempServer {
    /// Makes and starts a server. `durable: false` turns `fsync` off (for tests: nothing they
    /// store needs to survive a machine crash); the benchmark keeps the defaults.
    pub fn start(durable: bool) -> Result<Self, String> {
        let bin = find_bin().ok_or_else(|| {
            format!("no PostgreSQL server binaries (initdb, pg_ctl): install Debian's `postgresql` or set {PG_BIN_VAR}")
        })?;
        let dir = tempfile::Builder::new()
            .prefix("aorlta-pg-")
            .tempdir()
            .map_err(|e| format!("creating a folder for the server: {e}"))?;
        let root = rustix::process::geteuid().is_root();
        let owner = if root {
            let ids = user_ids("postgres")
                .ok_or("running as root, and the server refuses root: no `postgres` user to run it as")?;
            std::os::unix::fs::chown(dir.path(), Some(ids.0), Some(ids.1))
                .map_err(|e| format!("giving {} to the postgres user: {e}", dir.path().display()))?;
            Some(ids)
        } else {
            None
        };
        // No TCP, so any port number is free: it only names the socket file in the folder. One
        // from the kernel anyway, so no two servers of a host share the number.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or(5432);
        let server = TempServer {
            dir,
            bin,
            port,
            owner,
        };
        let data = server.dir.path().join("data");
        server.run(
            "initdb",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-U".as_ref(),
                "aorlta".as_ref(),
                "-A".as_ref(),
                "trust".as_ref(),
                "-E".as_ref(),
                "UTF8".as_ref(),
                "--locale=C".as_ref(),
                "--no-sync".as_ref(),
            ],
        )?;
        let mut opts = format!(
            "-k {} -p {} -c listen_addresses=''",
            server.dir.path().display(),
            server.port
        );
        if !durable {
            opts.push_str(" -c fsync=off -c full_page_writes=off -c synchronous_commit=off");
        }
        let log = server.dir.path().join("server.log");
        server
            .run(
                "pg_ctl",
                &[
                    "-D".as_ref(),
                    data.as_os_str(),
                    "-l".as_ref(),
                    log.as_os_str(),
                    "-o".as_ref(),
                    opts.as_ref(),
                    "-w".as_ref(),
                    "-t".as_ref(),
                    "60".as_ref(),
                    "start".as_ref(),
                ],
            )
            .map_err(|e| {
                let log = std::fs::read_to_string(&log).unwrap_or_default();
                format!("{e}\nserver log:\n{log}")
            })?;
        Ok(server)
    }

    /// Runs one of the server's tools, as the folder's owner.
    fn run(&self, tool: &str, args: &[&std::ffi::OsStr]) -> Result<(), String> {
        let mut cmd = Command::new(self.bin.join(tool));
        cmd.args(args)
            .current_dir(self.dir.path())
            .env("LC_ALL", "C")
            .stdin(Stdio::null());
        if let Some((uid, gid)) = self.owner {
            cmd.uid(uid).gid(gid);
        }
        let out = cmd
            .output()
            .map_err(|e| format!("running {}: {e}", self.bin.join(tool).display()))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{tool} failed ({}): {}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// The URL of database `db` on this server (user `aorlta`, over the socket).
    pub fn url(&self, db: &str) -> String {
        format!(
            "postgresql://aorlta@/{db}?host={}&port={}",
            self.dir.path().display(),
            self.port
        )
    }

    /// Creates database `db` and gives its URL.
    pub fn create_db(&self, db: &str) -> Result<String, String> {
        let dir = self.dir.path().display().to_string();
        let port = self.port.to_string();
        let words = ["-h", &dir, "-p", &port, "-U", "aorlta", db];
        let args: Vec<&std::ffi::OsStr> = words.iter().map(|s| s.as_ref()).collect();
        self.run("createdb", &args)?;
        Ok(self.url(db))
    }

    /// A server for a test, or `None` (the reason printed) when there are no binaries and
    /// `CI` is unset. In CI a missing server is a failure, and anywhere a server that is found
    /// and does not start is one.
    pub fn for_tests() -> Option<Self> {
        if find_bin().is_none() {
            let why = format!(
                "no PostgreSQL server binaries (initdb, pg_ctl): install Debian's `postgresql` or set {PG_BIN_VAR}"
            );
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set, and the PostgreSQL store tests need a server: {why}"
            );
            eprintln!("skipped: {why}");
            return None;
        }
        Some(
            Self::start(false)
                .unwrap_or_else(|e| panic!("the throwaway PostgreSQL server did not start: {e}")),
        )
    }
}

impl Drop for TempServer {
    /// Stops the server at once (its data is thrown away with the folder).
    fn drop(&mut self) {
        let data = self.dir.path().join("data");
        let _ = self.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-m".as_ref(),
                "immediate".as_ref(),
                "-w".as_ref(),
                "stop".as_ref(),
            ],
        );
    }
}

//! What of a compiler's output may reach a client, and what the preprocessor may have read.
//!
//! A compile failure's detail goes back to the client and into the result store, so it must
//! quote nothing but the candidate's own source. [`sanitize`] keeps, in the compiler's order:
//!
//! - diagnostics located in the candidate's own file (`k.cu(3): error: …`, `k.cu:3:5: error:
//!   …`), with any source line the compiler quotes under them replaced by that line of the
//!   candidate's source as it was sent (so a quote can never carry another file's text), and the
//!   caret lines under them;
//! - the tools' own lines (`ptxas error   : …`, `cc1plus: fatal error: …`, `ld.lld: error: …`) and
//!   their closing counts (`1 error detected in the compilation of "k.cu".`);
//!
//! and drops everything else (diagnostics located in any other file, "In file included from"
//! chains, template-instantiation context), saying how many lines it withheld. A message that
//! speaks of a file the compiler could not open, find or compare (a missing include, one the
//! sandbox denied, `#pragma GCC dependency`) is replaced by one fixed sentence, so the answer
//! never tells whether a host path exists.
//!
//! [`check_dependencies`] reads the dependency list the compiler wrote (`-MD -MF k.d`) and
//! refuses any file outside the toolkit's header folders and the candidate's own source.

use std::path::{Path, PathBuf};

/// Longest detail kept, bytes.
pub(crate) const DETAIL_BYTES: usize = 1500;
/// Most lines of a detail.
pub(crate) const DETAIL_LINES: usize = 12;

/// The sentence that stands for any message about a file the compiler could not read.
pub(crate) const UNREADABLE: &str =
    "an included file cannot be read here: only the toolkit's own headers can be included";

/// Words that mark a message about the file system: its text is never passed on.
const FILE_SYSTEM_WORDS: &[&str] = &[
    "no such file",
    "permission denied",
    "cannot open",
    "could not open",
    "can not open",
    "cannot find",
    "file not found",
    "older than",
    "dependency",
    "is a directory",
    "not a directory",
    "operation not permitted",
    "symbolic links",
    "file name too long",
    "cannot read",
    "input/output error",
];

/// Tools whose own lines (not located in a file) are passed on.
const TOOLS: &[&str] = &[
    "ptxas",
    "nvcc",
    "nvlink",
    "cicc",
    "cudafe++",
    "cc1plus:",
    "cc1:",
    "clang",
    "ld.lld:",
    "lld:",
    "error:",
    "fatal error:",
    "warning:",
];

/// A located diagnostic line: the file, the line number and the rest (`error: …`).
fn located(line: &str) -> Option<(&str, usize, &str)> {
    // EDG (nvcc's front end): `FILE(LINE): rest`.
    if let Some(open) = line.find('(')
        && let Some(close) = line[open..].find("): ").map(|c| open + c)
        && let Ok(n) = line[open + 1..close].parse::<usize>()
    {
        return Some((&line[..open], n, &line[close + 3..]));
    }
    // gcc and clang: `FILE:LINE:COL: rest` or `FILE:LINE: rest`.
    let mut parts = line.splitn(4, ':');
    let file = parts.next()?;
    let n = parts.next()?.parse::<usize>().ok()?;
    let third = parts.next()?;
    let rest = match third.trim().parse::<usize>() {
        Ok(_) => parts.next()?,
        Err(_) => {
            let at = file.len() + 1 + line[file.len() + 1..].find(':')? + 1;
            &line[at..]
        }
    };
    if file.is_empty() || file.contains(' ') && !file.contains('/') {
        return None;
    }
    Some((file, n, rest.trim_start()))
}

/// A caret line (`      ^~~~`), possibly with clang's gutter (`      |     ^`).
fn is_caret(line: &str) -> bool {
    line.contains('^')
        && line
            .chars()
            .all(|c| matches!(c, ' ' | '\t' | '^' | '~' | '|' | '0'..='9'))
}

/// The message with file-system messages replaced by [`UNREADABLE`], keeping its severity.
fn message(rest: &str) -> String {
    let low = rest.to_ascii_lowercase();
    if FILE_SYSTEM_WORDS.iter().any(|w| low.contains(w)) {
        let severity = ["catastrophic error", "fatal error", "error", "warning"]
            .into_iter()
            .find(|s| low.trim_start().starts_with(s))
            .unwrap_or("error");
        format!("{severity}: {UNREADABLE}")
    } else {
        rest.to_string()
    }
}

/// The first lines of the compiler's `output` that speak of the candidate's own source
/// `source` (named `name` in the compile folder), the folder's path `dir` removed.
pub(crate) fn sanitize(output: &str, dir: &Path, name: &str, source: &str) -> String {
    let dir = format!("{}/", dir.display());
    let src: Vec<&str> = source.lines().collect();
    let mut kept: Vec<String> = Vec::new();
    let mut withheld = 0usize;
    // The source line of the located diagnostic being passed on, and whether its quote is out.
    let mut current: Option<(usize, bool)> = None;
    for raw in output.lines() {
        let line = raw.replace(&dir, "");
        let line = line.trim_end();
        if line.trim().is_empty() {
            continue;
        }
        if let Some((file, n, rest)) = located(line) {
            if file == name {
                kept.push(format!("{file}({n}): {}", message(rest)));
                current = Some((n, false));
            } else {
                withheld += 1;
                current = None;
            }
            continue;
        }
        let t = line.trim_start();
        if let Some(summary) = closing(t, name) {
            kept.push(summary);
            current = None;
            continue;
        }
        if TOOLS.iter().any(|p| t.starts_with(p)) {
            kept.push(message(t));
            current = None;
            continue;
        }
        match &mut current {
            Some(_) if is_caret(line) => kept.push(line.to_string()),
            Some((n, quoted)) if !*quoted => {
                *quoted = true;
                let own = src.get(*n - 1).copied().unwrap_or("").trim_end();
                kept.push(format!("  {own}"));
            }
            _ => withheld += 1,
        }
    }
    let mut detail: Vec<String> = kept.into_iter().take(DETAIL_LINES).collect();
    if withheld > 0 {
        detail.push(format!(
            "({withheld} line(s) of compiler output about other files withheld)"
        ));
    }
    let mut s = detail.join("\n");
    if s.len() > DETAIL_BYTES {
        let mut end = DETAIL_BYTES;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push('…');
    }
    if s.is_empty() {
        "the compiler failed without a diagnostic".into()
    } else {
        s
    }
}

/// A compiler's closing count, when it names the candidate's file or no file.
fn closing(t: &str, name: &str) -> Option<String> {
    let counted = t
        .split_once(' ')
        .is_some_and(|(n, rest)| n.parse::<usize>().is_ok() && rest.starts_with("error"));
    if counted && (t.ends_with(&format!("\"{name}\".")) || t.ends_with("generated.")) {
        return Some(t.to_string());
    }
    (t == "compilation terminated.").then(|| t.to_string())
}

/// The files a make-style dependency list (`k.cubin : k.cu \ /usr/include/… \`) names.
pub(crate) fn dependencies(text: &str) -> Vec<String> {
    let joined = text.replace("\\\n", " ");
    let mut out = Vec::new();
    for rule in joined.lines() {
        let Some((_, deps)) = rule.split_once(": ").or_else(|| rule.split_once(":\t")) else {
            continue;
        };
        let mut cur = String::new();
        let mut chars = deps.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if matches!(chars.peek(), Some(' ' | '#' | '\\')) => {
                    cur.push(chars.next().unwrap_or(' '))
                }
                '$' if chars.peek() == Some(&'$') => {
                    chars.next();
                    cur.push('$');
                }
                ' ' | '\t' => {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                }
                c => cur.push(c),
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

/// Checks that every file the preprocessor read is the candidate's source (`dir/name`) or lies
/// under one of `roots` (canonical folders). `Err` carries a fixed sentence (never the path,
/// whose presence in the list would tell that it exists).
pub(crate) fn check_dependencies(
    list: &str,
    dir: &Path,
    name: &str,
    roots: &[PathBuf],
) -> Result<(), String> {
    let own = dir.join(name).canonicalize().ok();
    for dep in dependencies(list) {
        let path = if Path::new(&dep).is_absolute() {
            PathBuf::from(&dep)
        } else {
            dir.join(&dep)
        };
        let Ok(real) = path.canonicalize() else {
            return Err("the preprocessor read a file that cannot be checked".into());
        };
        if own.as_ref() == Some(&real) || roots.iter().any(|r| real.starts_with(r)) {
            continue;
        }
        return Err(
            "the preprocessor included a file outside the toolkit's header folders; only the toolkit's own headers may be included"
                .into(),
        );
    }
    Ok(())
}

/// The folders whose headers a source may include: the compiler installation's `include`
/// folder and everything under it (for nvcc, `bin/..`; not when that is `/usr` itself), the host
/// C and C++ headers (`/usr/include`, gcc's and clang's own), and `extra` (AORLTA's HIP
/// portability headers). All canonical.
pub(crate) fn header_roots(compiler: &Path, extra: &[PathBuf]) -> Vec<PathBuf> {
    let real = compiler.canonicalize().ok();
    let top = real.as_deref().and_then(install_root).map(Path::to_path_buf);
    top.into_iter()
        .chain(system_header_roots().iter().cloned())
        .chain(extra.iter().filter_map(|r| r.canonicalize().ok()))
        .collect()
}

/// A compiler's installation folder (`bin/..` of its real path), unless that is the host's
/// `/`, `/usr` or `/usr/local` as a whole (a compiler installed by the system's packages).
pub(crate) fn install_root(real_compiler: &Path) -> Option<&Path> {
    real_compiler
        .parent()
        .and_then(Path::parent)
        .filter(|top| !matches!(top.to_str(), Some("/" | "/usr" | "/usr/local")))
}

/// The host's C and C++ header folders, canonical: `/usr/include`, gcc's and clang's own, and
/// LLVM's and ROCm's versioned folders. Read once per process (they do not move while it runs).
fn system_header_roots() -> &'static [PathBuf] {
    static ROOTS: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    ROOTS.get_or_init(|| {
        let mut roots: Vec<PathBuf> = [
            "/usr/include",
            "/usr/lib/gcc",
            "/usr/lib/clang",
            "/usr/lib64/clang",
        ]
        .map(PathBuf::from)
        .to_vec();
        // LLVM's versioned folders (`/usr/lib/llvm-15`, clang's own headers) and ROCm's.
        for parent in ["/usr/lib", "/opt"] {
            for e in std::fs::read_dir(parent).into_iter().flatten().flatten() {
                let n = e.file_name();
                if n.to_string_lossy().starts_with("llvm-") || n.to_string_lossy().starts_with("rocm") {
                    roots.push(e.path());
                }
            }
        }
        roots.into_iter().filter_map(|r| r.canonicalize().ok()).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "#include \"/etc/passwd\"\n__global__ void k(float* x){ x[0]=y; }\n";

    #[test]
    fn another_files_diagnostics_and_quotes_are_withheld() {
        let out = "/etc/passwd(1): error: this declaration has no storage class or type specifier\n  root:x:0:0:root:/root:/bin/bash\n  ^\n\n/etc/passwd(1): error: expected a \";\"\n  root:x:0:0:root:/root:/bin/bash\n      ^\n\n2 errors detected in the compilation of \"k.cu\".\n";
        let d = sanitize(out, Path::new("/w/compile-1"), "k.cu", SRC);
        assert!(!d.contains("root:"), "{d}");
        assert!(d.contains("2 errors detected"), "{d}");
        assert!(d.contains("6 line(s)"), "{d}");
    }

    #[test]
    fn own_diagnostics_keep_the_candidates_own_line() {
        let out = "/w/compile-1/k.cu(2): error: identifier \"y\" is undefined\n  __attribute__((global)) void k(float* x){ x[0]=y; }\n                                                 ^\n\n1 error detected in the compilation of \"k.cu\".\n";
        let d = sanitize(out, Path::new("/w/compile-1"), "k.cu", SRC);
        assert_eq!(
            d,
            "k.cu(2): error: identifier \"y\" is undefined\n  __global__ void k(float* x){ x[0]=y; }\n                                                 ^\n1 error detected in the compilation of \"k.cu\"."
        );
    }

    #[test]
    fn a_quote_never_carries_text_the_candidate_did_not_send() {
        // A located line in the candidate's file, followed by text from elsewhere.
        let out = "k.cu:1:10: fatal error: x\n    1 | root:x:0:0:root\n      |          ^~~~\nroot:x:0:0\n";
        let d = sanitize(out, Path::new("/w"), "k.cu", "#include \"/etc/passwd\"\n");
        assert!(!d.contains("root"), "{d}");
        assert!(d.contains("#include \"/etc/passwd\""), "{d}");
    }

    #[test]
    fn file_system_messages_do_not_tell_whether_a_path_exists() {
        let src = "#include \"/etc/shadowx\"\n";
        let missing = "k.cu:1:10: fatal error: /etc/shadowx: No such file or directory\n    1 | #include \"/etc/shadowx\"\n      |          ^~~~~\ncompilation terminated.\n";
        let denied = "k.cu:1:10: fatal error: /etc/shadowx: Permission denied\n    1 | #include \"/etc/shadowx\"\n      |          ^~~~~\ncompilation terminated.\n";
        let a = sanitize(missing, Path::new("/w"), "k.cu", src);
        let b = sanitize(denied, Path::new("/w"), "k.cu", src);
        assert_eq!(a, b);
        assert!(a.contains(UNREADABLE), "{a}");
        for tool in [
            "cc1plus: fatal error: /etc/nonex: No such file or directory",
            "k.cu:1:9: warning: current file is older than /etc/passwd",
            "k.cu(1): catastrophic error: cannot open source file \"/etc/x\"",
        ] {
            let d = sanitize(tool, Path::new("/w"), "k.cu", src);
            assert!(!d.contains("/etc/") && d.contains(UNREADABLE), "{tool}: {d}");
        }
    }

    #[test]
    fn tool_lines_are_kept() {
        let out =
            "ptxas error   : Entry function '_Z1kPf' uses too much shared data (0x61a80 bytes, 0xc000 max)\n";
        assert_eq!(sanitize(out, Path::new("/w"), "k.cu", ""), out.trim_end());
        assert_eq!(
            sanitize("", Path::new("/w"), "k.cu", ""),
            "the compiler failed without a diagnostic"
        );
    }

    #[test]
    fn dependency_lists_are_read_and_checked() {
        let list = "k.cubin : k.cu \\\n    /usr/include/stdc-predef.h \\\n    /a\\ b/c.h\n";
        assert_eq!(
            dependencies(list),
            ["k.cu", "/usr/include/stdc-predef.h", "/a b/c.h"]
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("k.cu"), "").unwrap();
        let roots = vec![PathBuf::from("/usr/include").canonicalize().unwrap()];
        assert_eq!(
            check_dependencies(
                "k.cubin : k.cu /usr/include/stdio.h\n",
                dir.path(),
                "k.cu",
                &roots
            ),
            Ok(())
        );
        let err = check_dependencies("k.cubin : k.cu /etc/passwd\n", dir.path(), "k.cu", &roots).unwrap_err();
        assert!(!err.contains("passwd"), "{err}");
        assert!(check_dependencies("k.cubin : k.cu /etc/nope-nope\n", dir.path(), "k.cu", &roots).is_err());
        // A file beside the source (the compiler's own log) is not the candidate's source.
        std::fs::write(dir.path().join("compile.log"), "").unwrap();
        assert!(check_dependencies("k.cubin : k.cu compile.log\n", dir.path(), "k.cu", &roots).is_err());
    }
}

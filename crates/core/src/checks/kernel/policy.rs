//! What a candidate's source may contain before it reaches the compiler: a size cap, and
//! `#include` only of a short list of CUDA, HIP and C headers in angle brackets. Quoted includes,
//! absolute or relative paths, `..`, computed includes (`#include MACRO`), `#include_next`,
//! `#import`, `#embed` and `__has_include` are refused, so no host file's content can reach a
//! diagnostic (which a leg reports back) or the code object.
//!
//! Comments are removed (strings kept) and line continuations joined first, as the
//! preprocessor does, so a directive cannot hide behind `/* */` or a backslash-newline.

/// Headers a candidate may include.
pub const ALLOWED_HEADERS: &[&str] = &[
    "cuda_fp16.h",
    "cuda_bf16.h",
    "cuda_runtime.h",
    "cuda.h",
    "stdint.h",
    "cstdint",
    "stddef.h",
    "cstddef",
    "math.h",
    "cmath",
    "float.h",
    "cfloat",
    "limits.h",
    "climits",
    "stdio.h",
    "cstdio",
    "assert.h",
    "cassert",
    "cooperative_groups.h",
    "cooperative_groups/reduce.h",
    "cooperative_groups/memcpy_async.h",
    "mma.h",
    "cuda/pipeline",
    "cuda/barrier",
    "cuda_pipeline.h",
    "cuda_awbarrier.h",
    "cub/cub.cuh",
    // HIP tasks: hipcc's own headers on AMD, AORLTA's portability headers on NVIDIA.
    "hip/hip_runtime.h",
    "hip/hip_fp16.h",
];

/// Why a source is refused: `(code, detail)`.
pub type Refusal = (&'static str, String);

/// Checks the size cap and the include policy.
pub fn check_source(source: &str, max_bytes: usize) -> Result<(), Refusal> {
    if source.len() > max_bytes {
        return Err((
            "source-too-large",
            format!(
                "the kernel source is {} bytes; at most {max_bytes} are accepted",
                source.len()
            ),
        ));
    }
    if source.contains('\0') {
        return Err(("include-forbidden", "the source contains a NUL byte".into()));
    }
    let text = strip_comments(&source.replace("\\\r\n", "").replace("\\\n", ""));
    if text.contains("__has_include") {
        return Err(("include-forbidden", "`__has_include` is not allowed".into()));
    }
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#').or_else(|| t.strip_prefix("%:")) else {
            continue;
        };
        let rest = rest.trim_start();
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !matches!(word.as_str(), "include" | "include_next" | "import" | "embed") {
            continue;
        }
        let at = format!("line {}", n + 1);
        if word != "include" {
            return Err(("include-forbidden", format!("{at}: `#{word}` is not allowed")));
        }
        let arg = rest[word.len()..].trim();
        let header = arg
            .strip_prefix('<')
            .and_then(|a| a.split_once('>'))
            .filter(|(_, after)| after.trim().is_empty())
            .map(|(h, _)| h.trim());
        match header {
            Some(h) if ALLOWED_HEADERS.contains(&h) => {}
            Some(h) => {
                return Err((
                    "include-forbidden",
                    format!(
                        "{at}: `<{h}>` is not an allowed header (allowed: {})",
                        ALLOWED_HEADERS.join(", ")
                    ),
                ));
            }
            None => {
                return Err((
                    "include-forbidden",
                    format!("{at}: only `#include <header>` of an allowed header is accepted, not `{arg}`"),
                ));
            }
        }
    }
    Ok(())
}

/// Removes `//` and `/* */` comments, keeping string and character literals (a removed block
/// comment becomes a space, its newlines kept so line numbers hold).
fn strip_comments(s: &str) -> String {
    let b: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            '"' | '\'' => {
                out.push(c);
                i += 1;
                while i < b.len() && b[i] != c && b[i] != '\n' {
                    if b[i] == '\\' && i + 1 < b.len() {
                        out.push(b[i]);
                        i += 1;
                    }
                    out.push(b[i]);
                    i += 1;
                }
                if i < b.len() {
                    out.push(b[i]);
                    i += 1;
                }
            }
            '/' if b.get(i + 1) == Some(&'/') => {
                while i < b.len() && b[i] != '\n' {
                    i += 1;
                }
            }
            '/' if b.get(i + 1) == Some(&'*') => {
                i += 2;
                out.push(' ');
                while i < b.len() && !(b[i] == '*' && b.get(i + 1) == Some(&'/')) {
                    if b[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
                i += 2;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(src: &str) -> Option<&'static str> {
        check_source(src, 10_000).err().map(|e| e.0)
    }

    #[test]
    fn allowed_headers_pass() {
        assert_eq!(
            code("#include <cuda_fp16.h>\n#  include <cstdint>\n__global__ void k() {}"),
            None
        );
        assert_eq!(code("#include <cuda/pipeline>\n"), None);
        assert_eq!(code("// #include \"/etc/passwd\"\nint x;"), None);
        assert_eq!(code("const char* s = \"#include </etc/passwd>\";"), None);
    }

    #[test]
    fn host_files_and_tricks_are_refused() {
        for src in [
            "#include \"/etc/passwd\"",
            "#include </etc/passwd>",
            "#include <../../etc/passwd>",
            "#include <fstream>",
            "#define F \"/etc/passwd\"\n#include F",
            "/* x */ #include \"k.h\"",
            "#incl\\\nude \"secret\"",
            "#include_next <math.h>",
            "#import <x>",
            "#embed \"/etc/passwd\"",
            "%:include \"x\"",
            "#if __has_include(\"/etc/passwd\")\n#endif",
            "#include <math.h> junk",
        ] {
            assert_eq!(code(src), Some("include-forbidden"), "{src}");
        }
    }

    #[test]
    fn size_cap() {
        assert_eq!(
            check_source(&"x".repeat(101), 100).unwrap_err().0,
            "source-too-large"
        );
        assert!(check_source(&"x".repeat(100), 100).is_ok());
    }
}

//! What a candidate's source may contain before it reaches the compiler: a size cap, and
//! `#include` only of a short list of CUDA, HIP and C headers in angle brackets. Quoted includes,
//! absolute or relative paths, `..`, computed includes (`#include MACRO`), `#include_next`,
//! `#import`, `#embed` and `__has_include` are refused, so no host file's content can reach a
//! diagnostic (which a leg reports back) or the code object.
//!
//! Lines are split as the preprocessor splits them (at `\n`, `\r\n` and a lone `\r`), a
//! backslash followed by blanks and a line end joins two lines (as gcc does, with a warning),
//! and comments are removed with string, character and raw string literals kept whole, so a
//! directive cannot hide behind `/* */`, a continuation or a literal the stripper misreads.
//! `#pragma GCC dependency` and a `_Pragma` that names a dependency are refused too.
//!
//! This is a quick first filter with a clear message, not the boundary: a text policy can be
//! outwitted by the preprocessor (token pasting, macros). What holds is below it: the compiler
//! runs in [`super::sandbox`], which cannot read host files, and [`super::diagnostic`] checks
//! what the preprocessor read and what of its output a client sees.

use crate::reason::KernelReason;

/// Headers a candidate may include.
pub(crate) const ALLOWED_HEADERS: &[&str] = &[
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
pub(crate) type Refusal = (KernelReason, String);

/// Checks the size cap and that the source holds no NUL byte.
pub(crate) fn check_size(source: &str, max_bytes: usize) -> Result<(), Refusal> {
    if source.len() > max_bytes {
        return Err((
            KernelReason::SourceTooLarge,
            format!(
                "the kernel source is {} bytes; at most {max_bytes} are accepted",
                source.len()
            ),
        ));
    }
    if source.contains('\0') {
        return Err((
            KernelReason::IncludeForbidden,
            "the source contains a NUL byte".into(),
        ));
    }
    Ok(())
}

/// Checks the size cap and the include policy.
pub(crate) fn check_source(source: &str, max_bytes: usize) -> Result<(), Refusal> {
    check_size(source, max_bytes)?;
    let text = strip_comments(&join_lines(source));
    if text.contains("__has_include") {
        return Err((
            KernelReason::IncludeForbidden,
            "`__has_include` is not allowed".into(),
        ));
    }
    if text.contains("_Pragma") && text.contains("dependency") {
        return Err((
            KernelReason::IncludeForbidden,
            "a `_Pragma` that names a dependency is not allowed".into(),
        ));
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
        if !matches!(
            word.as_str(),
            "include" | "include_next" | "import" | "embed" | "pragma"
        ) {
            continue;
        }
        let at = format!("line {}", n + 1);
        if word == "pragma" {
            if rest["pragma".len()..].contains("dependency") {
                return Err((
                    KernelReason::IncludeForbidden,
                    format!("{at}: `#pragma GCC dependency` is not allowed"),
                ));
            }
            continue;
        }
        if word != "include" {
            return Err((
                KernelReason::IncludeForbidden,
                format!("{at}: `#{word}` is not allowed"),
            ));
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
                    KernelReason::IncludeForbidden,
                    format!(
                        "{at}: `<{h}>` is not an allowed header (allowed: {})",
                        ALLOWED_HEADERS.join(", ")
                    ),
                ));
            }
            None => {
                return Err((
                    KernelReason::IncludeForbidden,
                    format!("{at}: only `#include <header>` of an allowed header is accepted, not `{arg}`"),
                ));
            }
        }
    }
    Ok(())
}

/// The source as the preprocessor's line splicing leaves it: `\r\n` and a lone `\r` end lines,
/// and a backslash followed only by blanks up to the line's end joins it with the next.
fn join_lines(source: &str) -> String {
    let text = source.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(text.len());
    let mut lines = text.split('\n').peekable();
    while let Some(line) = lines.next() {
        let body = line.trim_end_matches([' ', '\t', '\x0b', '\x0c']);
        match body.strip_suffix('\\') {
            Some(joined) if lines.peek().is_some() => out.push_str(joined),
            _ => {
                out.push_str(line);
                if lines.peek().is_some() {
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// Removes `//` and `/* */` comments, keeping string, character and raw string literals (a
/// removed block comment becomes a space, its newlines kept so line numbers hold; a raw string's
/// text is dropped, its newlines kept). A `'` inside
/// a number (`1'000`) is a digit separator, not a literal.
fn strip_comments(s: &str) -> String {
    let b: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            '"' if raw_prefix(&b, i) => {
                // R"delim( ... )delim": no escapes, no comments, may span lines.
                let open = b[i + 1..].iter().position(|&c| c == '(').map(|p| i + 1 + p);
                let Some(open) = open.filter(|&o| o - i <= 17) else {
                    out.push(c);
                    i += 1;
                    continue;
                };
                let delim: String = b[i + 1..open].iter().collect();
                let close: Vec<char> = format!("){delim}\"").chars().collect();
                let end = (open + 1..=b.len().saturating_sub(close.len()))
                    .find(|&k| b[k..k + close.len()] == close[..])
                    .map_or(b.len(), |k| k + close.len());
                // Kept as an empty literal, its line ends kept so that line numbers hold
                // and no line of its text reads as a directive.
                out.push_str("\"\"");
                out.extend(b[i..end].iter().filter(|&&c| c == '\n'));
                i = end;
            }
            '\'' if digit_separator(&b, i) => {
                out.push(c);
                i += 1;
            }
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

/// The token before the quote at `i` (letters, digits, `_`).
fn token_before(b: &[char], i: usize) -> &[char] {
    let start = b[..i]
        .iter()
        .rposition(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
        .map_or(0, |p| p + 1);
    &b[start..i]
}

/// A raw string's opening quote: `R"`, `LR"`, `uR"`, `UR"`, `u8R"`.
fn raw_prefix(b: &[char], i: usize) -> bool {
    let t: String = token_before(b, i).iter().collect();
    matches!(t.as_str(), "R" | "LR" | "uR" | "UR" | "u8R")
}

/// A `'` inside a pp-number (`1'000`, `0x1'F`): the token before it starts with a digit.
fn digit_separator(b: &[char], i: usize) -> bool {
    let start = b[..i]
        .iter()
        .rposition(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '\'')))
        .map_or(0, |p| p + 1);
    b.get(start).is_some_and(|c| c.is_ascii_digit()) && start < i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(src: &str) -> Option<&'static str> {
        check_source(src, 10_000).err().map(|e| e.0.as_str())
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
        assert_eq!(code("const char* s = R\"(\n#include \"/etc/passwd\"\n)\";"), None);
        assert_eq!(
            code("#pragma unroll\n_Pragma(\"unroll 4\")\nint n = 1'000'000;"),
            None
        );
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
            // A backslash, blanks and a line end join lines, as gcc does.
            "#incl\\  \nude \"/etc/passwd\"",
            "#include \\ \t\n\"/etc/passwd\"",
            // A lone CR ends a line.
            "int x;\r#include \"/etc/passwd\"",
            "// comment\r#include \"/etc/passwd\"",
            // A raw string the old stripper misread as opening a comment or a string.
            "const char* s = R\"(\n/*\n)\";\n#include \"/etc/passwd\"\n// */",
            "const char* s = R\"x(\n\" /*)\"\n)x\";\n#include \"/etc/passwd\"\n// */",
            "int n = 1'000; const char* s = \"'\";\n#include \"/etc/passwd\"",
            "#pragma GCC dependency \"/etc/passwd\"",
            "_Pragma(\"GCC dependency \\\"/etc/passwd\\\"\")",
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

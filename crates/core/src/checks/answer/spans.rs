//! Finding the final answer's span in a completion, one scanner per answer form. Each is a
//! forward pass that jumps between the few bytes it cares about ([`super::scan`]); the number
//! scanner works back from the end. A completion of any size and shape takes time linear in its
//! length. Scanners return trimmed slices of the completion, cut only at ASCII bytes.

use super::scan::{escaped, next, prev};

/// The content of the last `\boxed{…}` or `\fbox{…}` whose braces balance.
pub(super) fn last_boxed(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    // Braces before the first box cannot pair with a box's braces, so start there.
    let mut i = next_box(b, 0)?.0;
    // Open boxes: (content start, brace depth inside the box).
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut best: Option<(usize, usize)> = None;
    loop {
        i = next(b, i, |c| c == b'\\' || c == b'{' || c == b'}');
        if i >= b.len() {
            break;
        }
        match b[i] {
            b'\\' => {
                if let Some(content) = box_at(b, i) {
                    depth += 1;
                    open.push((content, depth));
                    i = content;
                } else {
                    // Skip the escaped character (`\{`, `\}`, `\\`).
                    i += 2;
                }
                continue;
            }
            b'{' => depth += 1,
            _ => {
                if depth > 0 {
                    if let Some(&(start, d)) = open.last()
                        && d == depth
                    {
                        open.pop();
                        if !s[start..i].trim().is_empty() && best.is_none_or(|(s0, _)| start > s0) {
                            best = Some((start, i));
                        }
                    }
                    depth -= 1;
                }
            }
        }
        i += 1;
    }
    best.map(|(a, z)| s[a..z].trim())
}

/// When a box opens at `i` (a backslash): where its content starts.
fn box_at(b: &[u8], i: usize) -> Option<usize> {
    let rest = &b[i + 1..];
    let name = if rest.starts_with(b"boxed") {
        5
    } else if rest.starts_with(b"fbox") {
        4
    } else {
        return None;
    };
    let after = i + 1 + name;
    if b.get(after).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    let mut j = after;
    while j < b.len() && matches!(b[j], b' ' | b'\t') {
        j += 1;
    }
    (b.get(j) == Some(&b'{')).then_some(j + 1)
}

/// The first box at or after `from`: (its backslash, its content start). Both names contain an
/// `x`, a rare byte in LaTeX, so the search jumps from `x` to `x`.
fn next_box(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut i = from;
    loop {
        i = next(b, i, |c| c == b'x');
        if i >= b.len() {
            return None;
        }
        for back in [3, 4] {
            if i >= back
                && b[i - back] == b'\\'
                && let Some(content) = box_at(b, i - back)
            {
                return Some((i - back, content));
            }
        }
        i += 1;
    }
}

/// The content of the last "answer is …" / "answer: …" statement that is not empty.
pub(super) fn last_statement(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let mut starts = Vec::new();
    let mut i = 0;
    loop {
        // "answer" is found by its `w`, a rarer byte than its `a`.
        i = next(b, i, |c| (c | 0x20) == b'w');
        if i >= b.len() {
            break;
        }
        if i >= 3
            && b.get(i - 3..i + 3).is_some_and(|w| w.eq_ignore_ascii_case(b"answer"))
            && (i == 3 || !b[i - 4].is_ascii_alphanumeric())
            && let Some(start) = statement_start(b, i + 3)
        {
            starts.push(start);
        }
        i += 1;
    }
    // Going back from the last, an empty statement ends before the next match begins, so the
    // scans below cover each byte at most twice.
    starts.iter().rev().find_map(|&start| {
        let text = statement_text(s, start);
        (!text.is_empty()).then_some(text)
    })
}

/// Whether `b[i..]` starts with `pat`, ignoring ASCII case.
fn starts_with_ci(b: &[u8], i: usize, pat: &[u8]) -> bool {
    b.get(i..i + pat.len()).is_some_and(|s| s.eq_ignore_ascii_case(pat))
}

/// Where the statement's text begins after "answer" (at `i`): `:`, `is`, `is:`, or `=`, with
/// optional markdown emphasis and spaces around; `None` when "answer" is not a statement.
fn statement_start(b: &[u8], mut i: usize) -> Option<usize> {
    let skip_marks = |mut i: usize| {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'*' | b'_') {
            i += 1;
        }
        i
    };
    i = skip_marks(i);
    if b.get(i) == Some(&b':') || b.get(i) == Some(&b'=') {
        i += 1;
    } else if starts_with_ci(b, i, b"is") && !b.get(i + 2).is_some_and(u8::is_ascii_alphanumeric) {
        i = skip_marks(i + 2);
        if b.get(i) == Some(&b':') {
            i += 1;
        }
    } else {
        return None;
    }
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'*' | b'_' | b'\n' | b'\r') {
        i += 1;
    }
    Some(i)
}

/// The statement from `start` to the end of its line or sentence, trimmed of spaces, a final
/// period and markdown emphasis.
fn statement_text(s: &str, start: usize) -> &str {
    let b = s.as_bytes();
    // A display span right at the start is the answer, across lines.
    for (open, close) in [("$$", "$$"), ("\\[", "\\]")] {
        if s[start..].starts_with(open)
            && let Some(end) = s[start + 2..].find(close)
        {
            return s[start..start + 2 + end + 2].trim();
        }
    }
    let mut i = start;
    let mut in_math = false;
    loop {
        i = next(b, i, |c| matches!(c, b'\n' | b'\\' | b'$' | b'.' | b'!' | b'?'));
        if i >= b.len() {
            break;
        }
        match b[i] {
            b'\n' => break,
            b'\\' => {
                i += 2;
                continue;
            }
            b'$' => in_math = !in_math,
            _ => {
                if !in_math && b.get(i + 1).is_none_or(u8::is_ascii_whitespace) {
                    break;
                }
            }
        }
        i += 1;
    }
    let end = i.min(b.len());
    let mut text = s[start..end].trim();
    loop {
        let before = text.len();
        text = text.trim_end_matches('.').trim_matches(|c| c == '*' || c == '_').trim();
        if text.len() == before {
            return text;
        }
    }
}

/// The content of the last non-empty LaTeX math span.
pub(super) fn last_math(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let n = b.len();
    let mut last: Option<(usize, usize)> = None;
    let mut record = |a: usize, z: usize| {
        if a <= z && !s[a..z].trim().is_empty() {
            last = Some((a, z));
        }
    };
    // Once a closer is known to be missing from some point on, later openers cannot close.
    let mut no_close_paren = false;
    let mut no_close_brack = false;
    let mut no_close_display = false;
    let mut i = 0;
    loop {
        i = next(b, i, |c| c == b'$' || c == b'(' || c == b'[');
        if i >= n {
            break;
        }
        let c = b[i];
        if c != b'$' {
            // `\(` or `\[`: an unescaped backslash before the bracket.
            if !escaped(b, i) {
                i += 1;
                continue;
            }
            let (close, missing) = if c == b'(' {
                (b')', &mut no_close_paren)
            } else {
                (b']', &mut no_close_brack)
            };
            if *missing {
                i += 1;
                continue;
            }
            let mut j = i + 1;
            loop {
                j = next(b, j, |x| x == close);
                if j >= n || escaped(b, j) {
                    break;
                }
                j += 1;
            }
            if j >= n {
                *missing = true;
                i += 1;
            } else {
                record(i + 1, j - 1);
                i = j + 1;
            }
            continue;
        }
        if escaped(b, i) {
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'$') {
            if no_close_display {
                i += 2;
                continue;
            }
            let mut j = i + 2;
            loop {
                j = next(b, j, |x| x == b'$');
                if j + 1 >= n || (b[j + 1] == b'$' && !escaped(b, j)) {
                    break;
                }
                j += 1;
            }
            if j + 1 >= n {
                no_close_display = true;
                i += 2;
            } else {
                record(i + 2, j);
                i = j + 2;
            }
            continue;
        }
        // An inline `$` opens before a non-space.
        if !b.get(i + 1).is_some_and(|c| !c.is_ascii_whitespace()) {
            i += 1;
            continue;
        }
        // Find its closer (after a non-space, before a non-digit), or a better opener to restart
        // from (the first `$` was a price). With neither, there is no later `$` that could
        // open a span, so carrying on after this one costs one more pass at most.
        let mut j = i + 1;
        let mut resume = i + 1;
        loop {
            j = next(b, j, |x| x == b'$' || x == b'\n');
            if j >= n {
                break;
            }
            if b[j] == b'\n' {
                if b.get(j + 1) == Some(&b'\n') {
                    resume = j;
                    break;
                }
            } else if !escaped(b, j) {
                let closes = !b[j - 1].is_ascii_whitespace() && !b.get(j + 1).is_some_and(u8::is_ascii_digit);
                if closes {
                    record(i + 1, j);
                    resume = j + 1;
                    break;
                }
                if b.get(j + 1).is_some_and(|c| !c.is_ascii_whitespace()) {
                    resume = j;
                    break;
                }
            }
            j += 1;
        }
        i = resume.max(i + 1);
    }
    last.map(|(a, z)| s[a..z].trim())
}

/// Bytes a number may contain.
fn numeric(c: u8) -> bool {
    c.is_ascii_digit() || matches!(c, b'.' | b',' | b'e' | b'E' | b'+' | b'-' | b'/')
}

/// The last number: optional sign, digits with thousands commas, decimals, exponent, or a
/// fraction `a/b`. Found from the end: the last digit, the run of number bytes around it, and
/// the numbers of that run read from its start (a number never spans other bytes).
pub(super) fn last_number(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let end = prev(b, b.len(), |c| c.is_ascii_digit())? + 1;
    let run_start = prev(b, end, |c| !numeric(c)).map_or(0, |k| k + 1);
    let digits = |j: usize| next(b, j, |c| !c.is_ascii_digit());
    let mut last = None;
    let mut i = run_start;
    while i < end {
        let starts = b[i].is_ascii_digit()
            || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit) && (i == 0 || !b[i - 1].is_ascii_digit()));
        if !starts {
            i += 1;
            continue;
        }
        let start = if i > 0 && b[i - 1] == b'-' && (i < 2 || !b[i - 2].is_ascii_alphanumeric()) {
            i - 1
        } else {
            i
        };
        let mut j = digits(i);
        while b.get(j) == Some(&b',')
            && b.get(j + 1..j + 4).is_some_and(|g| g.iter().all(u8::is_ascii_digit))
            && !b.get(j + 4).is_some_and(u8::is_ascii_digit)
        {
            j += 4;
        }
        if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
            j = digits(j + 1);
        }
        if matches!(b.get(j), Some(b'e' | b'E')) {
            let k = if matches!(b.get(j + 1), Some(b'-' | b'+')) { j + 2 } else { j + 1 };
            if b.get(k).is_some_and(u8::is_ascii_digit) {
                j = digits(k);
            }
        }
        if b.get(j) == Some(&b'/') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
            j = digits(j + 1);
        }
        last = Some((start, j));
        i = j;
    }
    last.map(|(a, z)| &s[a..z])
}

//! Finding the final answer's span in a completion, one scanner per answer form. Each is one
//! forward pass (plus, for statements, a bounded look at the last matches), so a completion of
//! any size and shape takes time linear in its length. Scanners return trimmed slices of the
//! completion, cut only at ASCII bytes.

/// Whether `b[i..]` starts with `pat`, ignoring ASCII case.
fn starts_with_ci(b: &[u8], i: usize, pat: &[u8]) -> bool {
    b.get(i..i + pat.len()).is_some_and(|s| s.eq_ignore_ascii_case(pat))
}

fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// The content of the last `\boxed{…}` or `\fbox{…}` whose braces balance.
pub(super) fn last_boxed(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    // Open boxes: (content start, brace depth inside the box).
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut best: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let name_len = if b[i + 1..].starts_with(b"boxed") {
                    5
                } else if b[i + 1..].starts_with(b"fbox") {
                    4
                } else {
                    0
                };
                let after = i + 1 + name_len;
                if name_len > 0 && !b.get(after).is_some_and(u8::is_ascii_alphabetic) {
                    let j = skip_blanks(b, after);
                    if b.get(j) == Some(&b'{') {
                        depth += 1;
                        open.push((j + 1, depth));
                        i = j + 1;
                        continue;
                    }
                }
                // Skip the escaped character (`\{`, `\}`, `\\`).
                i += 2;
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                if depth == 0 {
                    i += 1;
                    continue;
                }
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
            _ => {}
        }
        i += 1;
    }
    best.map(|(a, z)| s[a..z].trim())
}

/// The content of the last "answer is …" / "answer: …" statement that is not empty.
pub(super) fn last_statement(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let mut starts = Vec::new();
    let mut i = 0;
    while i + 6 <= b.len() {
        if (b[i] | 0x20) == b'a'
            && starts_with_ci(b, i, b"answer")
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
            && let Some(start) = statement_start(b, i + 6)
        {
            starts.push(start);
            i += 6;
            continue;
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
    let mut i = start;
    // A display span right at the start is the answer, across lines.
    for (open, close) in [("$$", "$$"), ("\\[", "\\]")] {
        if s[start..].starts_with(open)
            && let Some(end) = s[start + 2..].find(close)
        {
            return s[start..start + 2 + end + 2].trim();
        }
    }
    let mut in_math = false;
    while i < b.len() {
        match b[i] {
            b'\n' => break,
            b'\\' => {
                i += 2;
                continue;
            }
            b'$' => in_math = !in_math,
            b'.' | b'!' | b'?' if !in_math => {
                if b.get(i + 1).is_none_or(u8::is_ascii_whitespace) {
                    break;
                }
            }
            _ => {}
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
        if !s[a..z].trim().is_empty() {
            last = Some((a, z));
        }
    };
    // Once a closer is known to be missing from some point on, later openers cannot close.
    let mut no_close_paren = false;
    let mut no_close_brack = false;
    let mut no_close_display = false;
    let mut i = 0;
    while i < n {
        match b[i] {
            b'\\' if i + 1 < n && (b[i + 1] == b'(' || b[i + 1] == b'[') => {
                let (close, missing) = if b[i + 1] == b'(' {
                    ("\\)", &mut no_close_paren)
                } else {
                    ("\\]", &mut no_close_brack)
                };
                if !*missing {
                    match s[i + 2..].find(close) {
                        Some(k) => {
                            record(i + 2, i + 2 + k);
                            i = i + 2 + k + 2;
                            continue;
                        }
                        None => *missing = true,
                    }
                }
                i += 2;
            }
            b'\\' => i += 2,
            b'$' if b.get(i + 1) == Some(&b'$') => {
                if !no_close_display {
                    match s[i + 2..].find("$$") {
                        Some(k) => {
                            record(i + 2, i + 2 + k);
                            i = i + 2 + k + 2;
                            continue;
                        }
                        None => no_close_display = true,
                    }
                }
                i += 2;
            }
            b'$' => {
                if !b.get(i + 1).is_some_and(|c| !c.is_ascii_whitespace()) {
                    i += 1;
                    continue;
                }
                // An inline span: find its closer, or a better opener to restart from.
                let mut j = i + 1;
                // With no closer and no later opener, carry on after this `$` (there is no
                // other `$` that could open a span, so this costs one more pass at most).
                let mut next = i + 1;
                while j < n {
                    match b[j] {
                        b'\\' => {
                            j += 2;
                            continue;
                        }
                        b'\n' if b.get(j + 1) == Some(&b'\n') => {
                            next = j;
                            break;
                        }
                        b'$' => {
                            let after_ok = !b.get(j + 1).is_some_and(u8::is_ascii_digit);
                            if !b[j - 1].is_ascii_whitespace() && after_ok {
                                record(i + 1, j);
                                next = j + 1;
                                break;
                            }
                            if b.get(j + 1).is_some_and(|c| !c.is_ascii_whitespace()) {
                                // The first `$` was a price; this one opens a span.
                                next = j;
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                i = next.max(i + 1);
            }
            _ => i += 1,
        }
    }
    last.map(|(a, z)| s[a..z].trim())
}

/// The last number: optional sign, digits with thousands commas, decimals, exponent, or a
/// fraction `a/b`.
pub(super) fn last_number(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let n = b.len();
    let digits = |mut j: usize| {
        while j < n && b[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let mut last = None;
    let mut i = 0;
    while i < n {
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

//! The first, plain forms of the scanners [`super`] speeds up: one call per delimiter. They
//! define what the fast scanners must return, and the property tests hold the two equal.

use super::{connectors_only, loose_math, on_own_lines};
use crate::extract::boxes::next_box;
use crate::extract::scan::{closing_brace, escaped, next};

/// The content of the last non-empty LaTeX math span.
pub(super) fn last_math_span(s: &str) -> Option<&str> {
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
    // Set when an inline `$` finds neither closer nor later opener: no `$` after it matters.
    let mut no_more_dollars = false;
    let mut i = 0;
    loop {
        let (dollar, paren, brack) = (!no_more_dollars, !no_close_paren, !no_close_brack);
        i = next(b, i, |c| {
            (dollar & (c == b'$')) | (paren & (c == b'(')) | (brack & (c == b'['))
        });
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
                // Inline math never stands on lines of its own; display math may.
                if c == b'[' || !on_own_lines(&s[i + 1..j - 1]) {
                    record(i + 1, j - 1);
                }
                i = j + 1;
            }
            continue;
        }
        if escaped(b, i) {
            i += 1;
            continue;
        }
        // `$$$$` is an empty display: skip runs of them at once.
        while b.get(i..i + 4) == Some(b"$$$$") {
            i += 4;
        }
        if b.get(i) != Some(&b'$') {
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
        // An inline `$` opens before a non-space. It closes at a `$` after a non-space and
        // before a non-digit; a `$` that cannot close but can open means the first was a price,
        // and the span restarts there. With neither, there is no later `$` that could open a
        // span, so no later `$` is looked at.
        if b.get(i + 1).is_none_or(u8::is_ascii_whitespace) {
            i += 1;
            continue;
        }
        let mut open = i;
        let mut j = i + 1;
        i = loop {
            j = next(b, j, |x| (x == b'$') | (x == b'\n'));
            if j >= n {
                no_more_dollars = true;
                break open + 1;
            }
            if b[j] == b'\n' {
                if b.get(j + 1) == Some(&b'\n') {
                    break j;
                }
            } else if !escaped(b, j) {
                let closes = !b[j - 1].is_ascii_whitespace() && !b.get(j + 1).is_some_and(u8::is_ascii_digit);
                if closes {
                    record(open + 1, j);
                    break j + 1;
                }
                if b.get(j + 1).is_some_and(|c| !c.is_ascii_whitespace()) {
                    open = j;
                }
            }
            j += 1;
        };
    }
    last.map(|(a, z)| s[a..z].trim())
}

/// The content of the last `\boxed{…}` or `\fbox{…}` whose braces balance (the one that
/// starts last; an empty one is skipped). When boxes before it are joined to it only by
/// connectors (`\boxed{1} \quad \text{and} \quad \boxed{2}`, see [`connectors_only`]), the
/// answer is the whole run from the first such box to the last box's closing brace, boxes and
/// connectors included: several answers, which the comparison reads as a list. The walk back
/// stops once the run is over 8 KiB, longer than any answer the comparison reads.
///
/// Boxes are tried from the last back. A box closes at the first `}` that brings its depth to
/// zero. When a later box never closes, no earlier box can close after that later box starts
/// (the later box's braces keep the depth up to the end), and a later box that closes leaves the
/// depth as it found it, so each earlier box scans only up to the next unclosed box, jumping
/// over closed ones: every byte is scanned about once.
pub(super) fn last_boxed(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let mut boxes: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some((start, content)) = next_box(b, from) {
        boxes.push((start, content));
        from = content;
    }
    let mut closes: Vec<Option<usize>> = vec![None; boxes.len()];
    for k in (0..boxes.len()).rev() {
        let content = boxes[k].1;
        let mut i = content;
        let mut depth = 1i64;
        let mut m = k + 1;
        let close = loop {
            while m < boxes.len() && boxes[m].0 < i {
                m += 1;
            }
            let limit = boxes.get(m).map_or(b.len(), |bx| bx.0);
            if let Some(p) = closing_brace(b, i, limit, &mut depth) {
                break Some(p);
            }
            match closes.get(m) {
                Some(Some(c)) => {
                    i = c + 1;
                    m += 1;
                }
                _ => break None,
            }
        };
        closes[k] = close;
        if let Some(c) = close {
            let text = s[content..c].trim();
            if !text.is_empty() {
                let first = siblings(s, &boxes, k);
                if first == k {
                    return Some(text);
                }
                return Some(&s[boxes[first].0..=c]);
            }
        }
    }
    None
}

/// The first of the boxes that end the answer together with box `k`, from the list of all
/// boxes.
fn siblings(s: &str, boxes: &[(usize, usize)], k: usize) -> usize {
    let b = s.as_bytes();
    let mut first = k;
    while first > 0 && boxes[k].1 - boxes[first].0 <= 8192 {
        let j = first - 1;
        let mut depth = 1i64;
        let Some(c) = closing_brace(b, boxes[j].1, boxes[first].0, &mut depth) else {
            break;
        };
        if s[boxes[j].1..c].trim().is_empty() || !connectors_only(&s[c + 1..boxes[first].0]) {
            break;
        }
        first = j;
    }
    first
}

/// The content of the last loose `$ … $` pair that holds math, in one pass forward: each `$`
/// and line break in turn, pairing lone `$`s as they come.
pub(super) fn loose_dollar_span(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let (mut open, mut last) = (None::<usize>, None);
    let mut i = 0;
    loop {
        i = next(b, i, |c| (c == b'$') | (c == b'\n'));
        if i >= b.len() {
            break;
        }
        match b[i] {
            b'\n' if b.get(i + 1) == Some(&b'\n') => open = None,
            b'$' if escaped(b, i) => {}
            b'$' if b.get(i + 1) == Some(&b'$') || (i > 0 && b[i - 1] == b'$') => open = None,
            b'$' => match open.take() {
                None => open = Some(i),
                Some(a) => last = Some((a, i)).filter(|&(a, z)| loose_math(s, a, z)).or(last),
            },
            _ => {}
        }
        i += 1;
    }
    last.map(|(a, z)| s[a + 1..z].trim())
}

#[cfg(test)]
mod agree {
    use proptest::prelude::*;

    /// Text built from the bytes the scanners look at, in runs long enough to reach the
    /// 32-byte chunks.
    fn text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("$"),
            Just("$$"),
            Just("\\"),
            Just("\\("),
            Just("\\)"),
            Just("\\["),
            Just("\\]"),
            Just("\n"),
            Just("\n\n"),
            Just(" "),
            Just("1"),
            Just("x"),
            Just("ab "),
            Just("{"),
            Just("}"),
            Just("\\boxed{"),
            Just("\\fbox{"),
            Just("\\boxed  {"),
            Just("\\fbox\t{"),
            Just(" and "),
            Just("\\quad "),
            Just("é"),
        ];
        (prop::collection::vec(piece, 0..120), 0usize..40)
            .prop_map(|(ps, pad)| format!("{}{}", "a".repeat(pad), ps.concat()))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

        #[test]
        fn fast_scanners_agree_with_the_plain_ones(s in text()) {
            prop_assert_eq!(super::super::last_math_span(&s), super::last_math_span(&s));
            prop_assert_eq!(super::super::super::dollars::loose_dollar_span(&s, crate::extract::spans::loose_math), super::loose_dollar_span(&s));
            prop_assert_eq!(super::super::last_boxed(&s), super::last_boxed(&s));
        }
    }
}

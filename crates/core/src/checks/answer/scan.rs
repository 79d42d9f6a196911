//! Skipping quickly to the bytes a scanner cares about: a few bytes one by one (hits are often
//! close), then 32 bytes at a time with a test the compiler turns into vector compares, and
//! byte by byte only inside a chunk that has one. Tests passed in must not short-circuit (use
//! `|`, not `||`) so that they vectorize. This keeps each pass over a megabyte of text well
//! under a millisecond.

pub(super) const CHUNK: usize = 32;
/// Bytes looked at one by one before switching to chunks.
const NEAR: usize = 8;

/// Whether `hit` accepts any byte of the chunk (no early exit, so it vectorizes).
#[inline(always)]
fn any(chunk: &[u8; CHUNK], hit: impl Fn(u8) -> bool + Copy) -> bool {
    let mut n = 0u8;
    for &c in chunk {
        n |= u8::from(hit(c));
    }
    n != 0
}

/// The first index at or after `from` whose byte `hit` accepts, or `b.len()`.
#[inline(always)]
pub(super) fn next(b: &[u8], from: usize, hit: impl Fn(u8) -> bool + Copy) -> usize {
    let near = (from + NEAR).min(b.len());
    let mut i = from;
    while i < near {
        if hit(b[i]) {
            return i;
        }
        i += 1;
    }
    while let Some(Ok(chunk)) = b.get(i..i + CHUNK).map(<&[u8; CHUNK]>::try_from) {
        if any(chunk, hit) {
            break;
        }
        i += CHUNK;
    }
    while i < b.len() && !hit(b[i]) {
        i += 1;
    }
    i.min(b.len())
}

/// The last index before `until` whose byte `hit` accepts.
#[inline(always)]
pub(super) fn prev(b: &[u8], until: usize, hit: impl Fn(u8) -> bool + Copy) -> Option<usize> {
    let mut i = until.min(b.len());
    while let Some(Ok(chunk)) = i
        .checked_sub(CHUNK)
        .and_then(|s| b.get(s..i))
        .map(<&[u8; CHUNK]>::try_from)
    {
        if any(chunk, hit) {
            break;
        }
        i -= CHUNK;
    }
    while i > 0 {
        i -= 1;
        if hit(b[i]) {
            return Some(i);
        }
    }
    None
}

/// The last index `i` before `until` where the three bytes at `i`, lower-cased (`| 0x20`),
/// are `pat` (a lower-case pattern of letters).
pub(super) fn prev_folded(b: &[u8], until: usize, pat: [u8; 3]) -> Option<usize> {
    let mut end = until.min(b.len().saturating_sub(2));
    // Chunks of window starts `end - CHUNK .. end`, reading two bytes past each.
    while let Some(start) = end.checked_sub(CHUNK)
        && let Ok(w) = <&[u8; CHUNK + 2]>::try_from(&b[start..end + 2])
    {
        let mut n = 0u8;
        for k in 0..CHUNK {
            n |= u8::from(
                ((w[k] | 0x20) == pat[0]) & ((w[k + 1] | 0x20) == pat[1]) & ((w[k + 2] | 0x20) == pat[2]),
            );
        }
        if n != 0 {
            break;
        }
        end = start;
    }
    (0..end)
        .rev()
        .find(|&i| (0..3).all(|j| (b[i + j] | 0x20) == pat[j]))
}

/// Whether the byte at `i` is escaped: an odd number of backslashes right before it.
pub(super) fn escaped(b: &[u8], i: usize) -> bool {
    let mut k = i;
    while k > 0 && b[k - 1] == b'\\' {
        k -= 1;
    }
    (i - k) % 2 == 1
}

/// The `}` that brings `depth` (open braces, the box's own included) to zero, scanning
/// `b[from..limit]`; `depth` is left as it stands at `limit` when there is none. `\` escapes
/// the next byte. A chunk is taken whole when none of its braces can be escaped and it has
/// fewer `}` than the depth, so deep nesting costs a vector count per 32 bytes.
pub(super) fn closing_brace(b: &[u8], from: usize, limit: usize, depth: &mut i64) -> Option<usize> {
    // Wider chunks than `next` uses: the counts cost a reduction per chunk.
    const WIDE: usize = 64;
    let mut i = from;
    while i < limit {
        if i + WIDE < limit
            && let Ok(w) = <&[u8; WIDE + 1]>::try_from(&b[i..=i + WIDE])
        {
            let (mut opens, mut closes, mut tricky) = (0u8, 0u8, 0u8);
            for k in 0..WIDE {
                let (c, nx) = (w[k], w[k + 1]);
                opens += u8::from(c == b'{');
                closes += u8::from(c == b'}');
                tricky |= u8::from(c == b'\\') & u8::from((nx == b'{') | (nx == b'}') | (nx == b'\\'));
            }
            if tricky == 0 && i64::from(closes) < *depth {
                *depth += i64::from(opens) - i64::from(closes);
                i += WIDE;
                continue;
            }
        }
        let stop = (i + WIDE).min(limit);
        while i < stop {
            match b[i] {
                b'\\' => {
                    i += 2;
                    continue;
                }
                b'{' => *depth += 1,
                b'}' => {
                    *depth -= 1;
                    if *depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_hits_across_chunks() {
        let mut b = vec![b'a'; 100];
        b[70] = b'$';
        assert_eq!(next(&b, 0, |c| c == b'$'), 70);
        assert_eq!(next(&b, 71, |c| c == b'$'), 100);
        assert_eq!(prev(&b, 100, |c| c == b'$'), Some(70));
        assert_eq!(prev(&b, 70, |c| c == b'$'), None);
        assert!(escaped(b"a\\$", 2));
        assert!(!escaped(b"a\\\\$", 3));
    }

    #[test]
    fn finds_folded_patterns_from_the_end() {
        let text = format!("Swe{}swe{}", "x".repeat(70), "y".repeat(70));
        assert_eq!(prev_folded(text.as_bytes(), text.len(), *b"swe"), Some(73));
        assert_eq!(prev_folded(text.as_bytes(), 73, *b"swe"), Some(0));
        assert_eq!(prev_folded(text.as_bytes(), 0, *b"swe"), None);
        assert_eq!(prev_folded(b"sw", 2, *b"swe"), None);
    }

    #[test]
    fn closing_braces_in_chunks_and_bytes() {
        let deep = format!("{}{}", "{".repeat(100), "}".repeat(101));
        let mut d = 1;
        assert_eq!(closing_brace(deep.as_bytes(), 0, deep.len(), &mut d), Some(200));
        let escaped = format!("{}\\}}{}}}", "a".repeat(40), "b".repeat(40));
        let mut d = 1;
        assert_eq!(
            closing_brace(escaped.as_bytes(), 0, escaped.len(), &mut d),
            Some(escaped.len() - 1)
        );
        let mut d = 1;
        assert_eq!(closing_brace(b"{{}", 0, 3, &mut d), None);
        assert_eq!(d, 2);
    }
}

//! Skipping quickly to the bytes a scanner cares about: a few bytes one by one (hits are often
//! close), then 32 bytes at a time with a test the compiler turns into vector compares, and
//! byte by byte only inside a chunk that has one. Tests passed in must not short-circuit (use
//! `|`, not `||`) so that they vectorize. This keeps each pass over a megabyte of text well
//! under a millisecond.
//!
//! Hand-written because no crate serves: `memchr` and `memmem` find fixed bytes and strings, not
//! a byte class given as a predicate nor a case-folded pattern searched backwards (the SSE2
//! loop below); `spans_reference` holds the plain forms the property tests check these against.

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

/// The byte a window test sees beyond either end of the text: a space (neither a delimiter,
/// a backslash, a digit nor a line break).
const EDGE: u8 = b' ';

/// A byte with its neighbours, as the window scanners ([`next_where`], [`prev_where`],
/// [`count_back_to`]) test it.
#[derive(Clone, Copy)]
pub(super) struct Around {
    /// The byte two before.
    pub two_before: u8,
    /// The byte before.
    pub before: u8,
    /// The byte itself.
    pub byte: u8,
    /// The byte after.
    pub after: u8,
}

impl Around {
    /// Whether the byte may be unescaped: `false` only when a single backslash stands before it
    /// (certainly escaped); with two, one may escape the other, and [`escaped`] settles it.
    #[inline(always)]
    pub(super) fn maybe_unescaped(self) -> bool {
        (self.before != b'\\') | (self.two_before == b'\\')
    }
}

/// Bytes a window around a chunk of `CHUNK` holds: two before and one after.
const WINDOW: usize = CHUNK + 3;

/// The byte at `k + 2` of `w` with its neighbours.
#[inline(always)]
fn around(w: &[u8; WINDOW], k: usize) -> Around {
    Around {
        two_before: w[k],
        before: w[k + 1],
        byte: w[k + 2],
        after: w[k + 3],
    }
}

/// The byte at `i` with its neighbours ([`EDGE`] past either end).
#[inline(always)]
fn around_at(b: &[u8], i: usize) -> Around {
    if i >= 2
        && let Some(&[two_before, before, byte, after]) = b.get(i - 2..i + 2)
    {
        return Around {
            two_before,
            before,
            byte,
            after,
        };
    }
    let at = |k: Option<usize>| k.and_then(|k| b.get(k)).copied().unwrap_or(EDGE);
    Around {
        two_before: at(i.checked_sub(2)),
        before: at(i.checked_sub(1)),
        byte: b[i],
        after: at(Some(i + 1)),
    }
}

/// The window around the chunk starting at `i`, when all of it lies inside `b`.
#[inline(always)]
fn window(b: &[u8], i: usize) -> Option<&[u8; WINDOW]> {
    b.get(i.checked_sub(2)?..i + CHUNK + 1)?.try_into().ok()
}

/// The chunk a window is around.
#[inline(always)]
fn middle(w: &[u8; WINDOW]) -> &[u8; CHUNK] {
    w[2..2 + CHUNK].try_into().expect("a chunk inside its window")
}

/// Whether `hit` accepts a byte of the chunk in window `w`. The cheap `byte` test runs first: a
/// chunk none of whose bytes it accepts has its windows left untested.
#[inline(always)]
fn any_where(
    w: &[u8; WINDOW],
    byte: impl Fn(u8) -> bool + Copy,
    hit: impl Fn(Around) -> bool + Copy,
) -> bool {
    if !any(middle(w), byte) {
        return false;
    }
    let mut n = 0u8;
    for k in 0..CHUNK {
        n |= u8::from(hit(around(w, k)));
    }
    n != 0
}

/// The first index at or after `from` whose byte and neighbours `hit` accepts, or `b.len()`:
/// [`next`] for tests that look at a byte's neighbours (a `$` after a non-space), so that bytes
/// that only look like a hit are skipped 32 at a time rather than one call each. `byte` accepts
/// every byte that a hit is at (the `$` of that test).
#[inline(always)]
pub(super) fn next_where(
    b: &[u8],
    from: usize,
    byte: impl Fn(u8) -> bool + Copy,
    hit: impl Fn(Around) -> bool + Copy,
) -> usize {
    let mut i = from;
    while i < b.len() && (i < 2 || i < from + NEAR) {
        if byte(b[i]) && hit(around_at(b, i)) {
            return i;
        }
        i += 1;
    }
    while let Some(w) = window(b, i) {
        if any_where(w, byte, hit) {
            break;
        }
        i += CHUNK;
    }
    while i < b.len() && !(byte(b[i]) && hit(around_at(b, i))) {
        i += 1;
    }
    i.min(b.len())
}

/// The last index in `floor..until` whose byte and neighbours `hit` accepts ([`next_where`] run
/// backwards).
#[inline(always)]
pub(super) fn prev_where(
    b: &[u8],
    floor: usize,
    until: usize,
    byte: impl Fn(u8) -> bool + Copy,
    hit: impl Fn(Around) -> bool + Copy,
) -> Option<usize> {
    let mut i = until.min(b.len());
    // The last byte has no byte after it to read in a window: test it alone.
    if i == b.len() && i > floor {
        i -= 1;
        if byte(b[i]) && hit(around_at(b, i)) {
            return Some(i);
        }
    }
    while i >= floor + CHUNK
        && let Some(w) = window(b, i - CHUNK)
    {
        if any_where(w, byte, hit) {
            break;
        }
        i -= CHUNK;
    }
    while i > floor {
        i -= 1;
        if byte(b[i]) && hit(around_at(b, i)) {
            return Some(i);
        }
    }
    None
}

/// The last index `i` before `until` where the three bytes at `i`, lower-cased (`| 0x20`),
/// are `pat` (a lower-case pattern of letters); the pattern may run past `until`.
pub(super) fn prev_folded(b: &[u8], until: usize, pat: [u8; 3]) -> Option<usize> {
    let end = until.min(b.len().saturating_sub(2));
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    let end = match prev_folded_sse2(b, end, pat) {
        Ok(found) => return found,
        Err(end) => end,
    };
    (0..end)
        .rev()
        .find(|&i| (0..3).all(|j| (b[i + j] | 0x20) == pat[j]))
}

/// [`prev_folded`] 16 window starts at a time, from `end` back: `Ok` with the match, or
/// `Err` with where the windows left to look at end.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn prev_folded_sse2(b: &[u8], mut end: usize, pat: [u8; 3]) -> Result<Option<usize>, usize> {
    // SAFETY: SSE2 is on for the whole build (the cfg on this function), and memory is
    // read and written only where the comments inside say.
    unsafe {
        use core::arch::x86_64::*;
        debug_assert!(end == 0 || end + 2 <= b.len());
        let fold = _mm_set1_epi8(0x20);
        let is = |at: *const u8, p: u8| {
            // SAFETY: the caller reads 16 bytes at `at`, inside `b` (see below).
            let v = _mm_loadu_si128(at.cast());
            _mm_cmpeq_epi8(_mm_or_si128(v, fold), _mm_set1_epi8(p as i8))
        };
        while end >= 16 {
            let start = end - 16;
            // Bytes `start..start + 18` are read: inside `b`, as `end + 2 <= b.len()`.
            let at = b[start..].as_ptr();
            let hits = _mm_and_si128(
                _mm_and_si128(is(at, pat[0]), is(at.wrapping_add(1), pat[1])),
                is(at.wrapping_add(2), pat[2]),
            );
            let m = _mm_movemask_epi8(hits) as u32;
            if m != 0 {
                return Ok(Some(start + 31 - m.leading_zeros() as usize));
            }
            end = start;
        }
        Err(end)
    }
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

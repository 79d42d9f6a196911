//! `\boxed{…}` and `\fbox{…}`: where each opens, and which box is the last to open of those
//! that close, found in one pass over the brace depth, 64 bytes at a time.
//!
//! A box whose content starts where the depth (unescaped `{` less `}` so far) is `d` closes
//! at the first `}` after which the depth is `d - 1`, so it closes exactly when the depth
//! somewhere after its start is lower than `d`. The pass keeps the boxes still open, in the
//! order they opened (their depths then rise: an open box keeps the depth at or above its own),
//! and closes the ones on top while a block's lowest depth is below theirs. Each box is taken
//! and dropped once, and a block with braces costs a few dozen vector operations, so the pass
//! is linear whatever the boxes and braces.

use super::blocks::{BLOCK, Escapes, eq_masks};

/// When a box opens at `i` (a backslash): where its content starts.
#[inline(always)]
pub(super) fn box_at(b: &[u8], i: usize) -> Option<usize> {
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

/// The box whose name has its `x` at `i`: (its backslash, its content start).
#[inline(always)]
fn box_with_x(b: &[u8], i: usize) -> Option<(usize, usize)> {
    [3, 4].into_iter().find_map(|back| {
        let start = i.checked_sub(back)?;
        (b[start] == b'\\').then(|| box_at(b, start).map(|c| (start, c)))?
    })
}

/// The first box at or after `from`: (its backslash, its content start). Both names contain an
/// `x`, a rare byte in LaTeX, so the search jumps from `x` to `x`.
pub(super) fn next_box(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut i = from;
    loop {
        i += memchr::memchr(b'x', b.get(i..)?)?;
        if let Some(bx) = box_with_x(b, i).filter(|bx| bx.0 >= from) {
            return Some(bx);
        }
        i += 1;
    }
}

/// The last box that starts before `until`.
pub(super) fn prev_box(b: &[u8], until: usize) -> Option<(usize, usize)> {
    // A box's `x` is at most 4 bytes after its backslash.
    let mut end = (until + 4).min(b.len());
    loop {
        let i = memchr::memrchr(b'x', &b[..end])?;
        if let Some(bx) = box_with_x(b, i).filter(|bx| bx.0 < until) {
            return Some(bx);
        }
        end = i;
    }
}

/// The 64 bytes from `base`, padded with spaces past the end.
#[inline(always)]
fn block_at(b: &[u8], base: usize) -> [u8; BLOCK] {
    match b.get(base..base + BLOCK) {
        Some(c) => c.try_into().expect("a block's length"),
        None => {
            let mut pad = [b' '; BLOCK];
            pad[..b.len() - base].copy_from_slice(&b[base..]);
            pad
        }
    }
}

/// The number of bits of `m` below bit `k`.
#[inline(always)]
fn below(m: u64, k: usize) -> i64 {
    i64::from((m & ((1u64 << k) - 1)).count_ones())
}

/// The box that starts last among those that close and hold more than whitespace: (its
/// backslash, its content start). `\` escapes the byte after it, so `\{` and `\}` are not braces.
pub(super) fn last_closed(s: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    // A box can close only at a `}` after its content starts: boxes after the last `}` are
    // not looked at.
    let end = memchr::memrchr(b'}', b)?;
    // Boxes open (content start, depth there), their depths strictly rising: of two open at one
    // depth, both close at the same `}`, and only the later one can be the answer.
    let mut open: Vec<(usize, i64)> = Vec::new();
    // Content starts of boxes found whose content starts in a later block (spaces before the `{`).
    let mut waiting: Vec<usize> = Vec::new();
    let mut best: Option<usize> = None;
    let mut close = |content: usize| {
        // Empty: only whitespace before the `}` that closes it.
        if best.is_none_or(|c| c < content) && !s[content..].trim_start().starts_with('}') {
            best = Some(content);
        }
    };
    let mut esc = Escapes::default();
    let mut depth = 0i64;
    let mut base = 0;
    while base <= end {
        let bytes = block_at(b, base);
        let [lbrace, rbrace, backslash, x] = eq_masks(&bytes, [b'{', b'}', b'\\', b'x']);
        let escaped = esc.next(backslash);
        if (lbrace | rbrace | x) == 0 && waiting.is_empty() {
            // Nothing here changes the depth or opens a box: go on at the next byte that may.
            let Some(j) = memchr::memchr3(b'{', b'}', b'x', b.get(base + BLOCK..=end).unwrap_or_default())
            else {
                break;
            };
            base += BLOCK + j;
            esc = Escapes::before(b, base);
            continue;
        }
        let mut xs = x;
        while xs != 0 {
            if let Some((_, content)) = box_with_x(b, base + xs.trailing_zeros() as usize)
                && content <= end
            {
                waiting.push(content);
            }
            xs &= xs - 1;
        }
        let here = waiting.partition_point(|&c| c < base + BLOCK);
        let (opens, closes) = (lbrace & !escaped, rbrace & !escaped);
        let lifts = i64::from(opens.count_ones()) - i64::from(closes.count_ones());
        if here == 0
            && open
                .last()
                .is_none_or(|o| o.1 <= depth - i64::from(closes.count_ones()))
        {
            // No box starts here and none open can close: only the depth moves.
            depth += lifts;
            base += BLOCK;
            continue;
        }
        if closes == 0 {
            // Only rising: nothing closes, every box here stays open.
            for content in waiting.drain(..here) {
                push(&mut open, (content, depth + below(opens, content - base)));
            }
        } else if opens == 0 {
            // Only falling: open boxes close down to the lowest depth, at the block's end; a box
            // here closes when a `}` comes after its start.
            while let Some(&(content, _)) = open.last().filter(|o| o.1 > depth + lifts) {
                close(content);
                open.pop();
            }
            for content in waiting.drain(..here) {
                let k = content - base;
                if closes >> k != 0 {
                    close(content);
                } else {
                    push(&mut open, (content, depth + lifts));
                }
            }
        } else {
            let d = Depths::of(&bytes, opens, closes, (lbrace | rbrace) & escaped != 0);
            let lowest = depth + i64::from(d.suffix_min[0].min(0));
            while let Some(&(content, _)) = open.last().filter(|o| o.1 > lowest) {
                close(content);
                open.pop();
            }
            for content in waiting.drain(..here) {
                let k = content - base;
                let at = depth + if k == 0 { 0 } else { i64::from(d.prefix[k - 1]) };
                if k < BLOCK && depth + i64::from(d.suffix_min[k]) < at {
                    close(content);
                } else {
                    push(&mut open, (content, at));
                }
            }
        }
        depth += lifts;
        base += BLOCK;
    }
    let content = best?;
    let start = b[..content]
        .iter()
        .rposition(|&c| c == b'\\')
        .expect("a box's backslash");
    Some((start, content))
}

/// The `}` that closes the box whose content starts at `content`.
pub(super) fn closing_brace(b: &[u8], content: usize) -> Option<usize> {
    let mut esc = Escapes::before(b, content);
    // Open braces, the box's own included.
    let mut depth = 1i64;
    let mut base = content;
    while base < b.len() {
        let bytes = block_at(b, base);
        let [lbrace, rbrace, backslash] = eq_masks(&bytes, [b'{', b'}', b'\\']);
        let escaped = esc.next(backslash);
        if (lbrace | rbrace) == 0 {
            let j = memchr::memchr2(b'{', b'}', b.get(base + BLOCK..)?)?;
            base += BLOCK + j;
            esc = Escapes::before(b, base);
            continue;
        }
        let (opens, closes) = (lbrace & !escaped, rbrace & !escaped);
        let lifts = i64::from(opens.count_ones()) - i64::from(closes.count_ones());
        if i64::from(closes.count_ones()) >= depth {
            if opens == 0 {
                // The `depth`-th `}`.
                let mut m = closes;
                for _ in 1..depth {
                    m &= m - 1;
                }
                return Some(base + m.trailing_zeros() as usize);
            }
            let d = Depths::of(&bytes, opens, closes, (lbrace | rbrace) & escaped != 0);
            if let Some(k) = d.prefix.iter().position(|&p| depth + i64::from(p) == 0) {
                return Some(base + k);
            }
        }
        depth += lifts;
        base += BLOCK;
    }
    None
}

/// `o` on top of the open boxes, in place of one at the same depth.
fn push(open: &mut Vec<(usize, i64)>, o: (usize, i64)) {
    if open.last().is_some_and(|top| top.1 >= o.1) {
        debug_assert!(open.last().is_some_and(|top| top.1 == o.1));
        open.pop();
    }
    open.push(o);
}

/// The depth through one block, relative to its start: after each byte, and the lowest from
/// each byte on.
struct Depths {
    prefix: [i8; BLOCK],
    suffix_min: [i8; BLOCK],
}

impl Depths {
    /// Of a block's bytes, whose unescaped braces are `opens` and `closes`; `some_escaped` when
    /// the block has escaped braces (then read from the masks rather than the bytes).
    #[inline(always)]
    fn of(bytes: &[u8; BLOCK], opens: u64, closes: u64, some_escaped: bool) -> Depths {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if !some_escaped {
            // SAFETY: the build targets SSE2 (the cfg above), all `depths_sse2` requires; it
            // reads and writes memory only through the arrays it is given and returns.
            return unsafe { depths_sse2(bytes) };
        }
        let _ = (bytes, some_escaped);
        let mut d = Depths {
            prefix: [0; BLOCK],
            suffix_min: [0; BLOCK],
        };
        let mut run = 0i8;
        for k in 0..BLOCK {
            run += (opens >> k & 1) as i8 - (closes >> k & 1) as i8;
            d.prefix[k] = run;
        }
        let mut low = i8::MAX;
        for k in (0..BLOCK).rev() {
            low = low.min(d.prefix[k]);
            d.suffix_min[k] = low;
        }
        d
    }
}

/// [`Depths::of`] from the bytes, 16 at a time: each byte's step (`{` up, `}` down) summed
/// in four shifts per lane, and the lowest from each byte on taken in four more (as unsigned
/// bytes, offset by 128, which SSE2 compares).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
unsafe fn depths_sse2(c: &[u8; BLOCK]) -> Depths {
    use core::arch::x86_64::*;
    let mut d = Depths {
        prefix: [0; BLOCK],
        suffix_min: [0; BLOCK],
    };
    let mut lanes = [_mm_setzero_si128(); BLOCK / 16];
    let mut carry = 0i8;
    for (q, lane) in lanes.iter_mut().enumerate() {
        // SAFETY: 16 bytes at `16 * q` lie inside the 64-byte array.
        let v = unsafe { _mm_loadu_si128(c.as_ptr().add(16 * q).cast()) };
        // `cmpeq` gives -1 where equal: `}` less `{` is +1 at `{`, -1 at `}`.
        let mut p = _mm_sub_epi8(
            _mm_cmpeq_epi8(v, _mm_set1_epi8(b'}' as i8)),
            _mm_cmpeq_epi8(v, _mm_set1_epi8(b'{' as i8)),
        );
        p = _mm_add_epi8(p, _mm_slli_si128::<1>(p));
        p = _mm_add_epi8(p, _mm_slli_si128::<2>(p));
        p = _mm_add_epi8(p, _mm_slli_si128::<4>(p));
        p = _mm_add_epi8(p, _mm_slli_si128::<8>(p));
        p = _mm_add_epi8(p, _mm_set1_epi8(carry));
        carry = (_mm_extract_epi16::<7>(p) >> 8) as i8;
        *lane = p;
        // SAFETY: 16 bytes at `16 * q` lie inside the 64-byte array.
        unsafe { _mm_storeu_si128(d.prefix.as_mut_ptr().add(16 * q).cast(), p) };
    }
    let bias = _mm_set1_epi8(i8::MIN);
    let ones = _mm_set1_epi8(-1);
    let mut after = _mm_set1_epi8(-1);
    for q in (0..BLOCK / 16).rev() {
        // Shifted toward the lane's start, with the highest value coming in at its end.
        let mut u = _mm_xor_si128(lanes[q], bias);
        u = _mm_min_epu8(
            u,
            _mm_or_si128(_mm_srli_si128::<1>(u), _mm_slli_si128::<15>(ones)),
        );
        u = _mm_min_epu8(
            u,
            _mm_or_si128(_mm_srli_si128::<2>(u), _mm_slli_si128::<14>(ones)),
        );
        u = _mm_min_epu8(
            u,
            _mm_or_si128(_mm_srli_si128::<4>(u), _mm_slli_si128::<12>(ones)),
        );
        u = _mm_min_epu8(u, _mm_or_si128(_mm_srli_si128::<8>(u), _mm_slli_si128::<8>(ones)));
        u = _mm_min_epu8(u, after);
        // The lane's lowest, its first byte now, spread over a whole lane for the lane before.
        let first = _mm_unpacklo_epi8(u, u);
        let first = _mm_shufflelo_epi16::<0>(first);
        after = _mm_shuffle_epi32::<0>(first);
        // SAFETY: 16 bytes at `16 * q` lie inside the 64-byte array.
        unsafe {
            _mm_storeu_si128(
                d.suffix_min.as_mut_ptr().add(16 * q).cast(),
                _mm_xor_si128(u, bias),
            )
        };
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        #[test]
        fn vector_depths_agree_with_counting(s in prop::collection::vec(prop_oneof![Just(b'{'), Just(b'}'), Just(b'a')], 64)) {
            let bytes: [u8; BLOCK] = s.as_slice().try_into().unwrap();
            let [o, c] = eq_masks(&bytes, [b'{', b'}']);
            let fast = Depths::of(&bytes, o, c, false);
            let slow = Depths::of(&bytes, o, c, true);
            prop_assert_eq!(fast.prefix, slow.prefix);
            prop_assert_eq!(fast.suffix_min, slow.suffix_min);
        }
    }

    #[test]
    fn boxes_found_either_way() {
        let b = b"a \\boxed{1} \\fbox {2} x \\boxedx{3}";
        assert_eq!(next_box(b, 0), Some((2, 9)));
        assert_eq!(next_box(b, 3), Some((12, 19)));
        assert_eq!(next_box(b, 13), None);
        assert_eq!(prev_box(b, b.len()), Some((12, 19)));
        assert_eq!(prev_box(b, 12), Some((2, 9)));
        assert_eq!(prev_box(b, 2), None);
    }

    #[test]
    fn the_last_box_to_close_is_found() {
        assert_eq!(last_closed("\\boxed{1} \\boxed{2"), Some((0, 7)));
        assert_eq!(last_closed("\\boxed{\\boxed{1}}"), Some((7, 14)));
        assert_eq!(last_closed("\\boxed{ } \\boxed{\\}"), None);
        assert_eq!(last_closed("\\boxed{\\}}"), Some((0, 7)));
        let deep = format!("\\boxed{{{}1{}}}", "{".repeat(300), "}".repeat(300));
        assert_eq!(last_closed(&deep), Some((0, 7)));
        assert_eq!(closing_brace(deep.as_bytes(), 7), Some(deep.len() - 1));
        assert_eq!(closing_brace(b"\\boxed{\\}}", 7), Some(9));
        let spaced = format!("\\boxed{}{{5}}", " ".repeat(200));
        assert_eq!(last_closed(&spaced), Some((0, 207)));
    }
}

//! `\boxed{…}` and `\fbox{…}`: where each opens, which box is the last to open of those that
//! close (found in one walk back over the brace depth, 64 bytes at a time), and where a box
//! closes (one walk forward). A block with braces costs a few dozen vector operations and a
//! block without is jumped over, so both walks are linear whatever the boxes and braces.

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

/// `part` (shorter than a block) followed by spaces.
fn padded(part: &[u8]) -> [u8; BLOCK] {
    let mut pad = [b' '; BLOCK];
    pad[..part.len()].copy_from_slice(part);
    pad
}

/// The box that starts last among those that close and hold more than whitespace: (its
/// backslash, its content start). `\` escapes the byte after it, so `\{` and `\}` are not braces.
///
/// Walked back from the last `}`, block by block, keeping the depth from each byte to that `}`
/// (`{` up, `}` down, so a box's own `{` lifts it) and its highest value after the block: a box
/// whose content starts at depth `d` closes when the depth after it reaches `d + 1` somewhere
/// (the `}` that brings its braces to zero). The first box met that closes is the answer.
/// Boxes are found at their `{`, after the name and any spaces.
pub(super) fn last_closed(s: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    // Boxes after the last `}` cannot close.
    let mut top = memchr::memrchr(b'}', b)? + 1;
    // The depth at `top` (from there to the last `}`), and the highest from `top` on.
    let (mut depth, mut highest) = (0i64, 0i64);
    let mut runs = Runs::default();
    while top > 0 {
        let base = top.saturating_sub(BLOCK);
        let pad;
        let bytes: &[u8; BLOCK] = match b[base..top].try_into() {
            Ok(whole) => whole,
            Err(_) => {
                pad = padded(&b[base..top]);
                &pad
            }
        };
        let [lbrace, rbrace, backslash] = eq_masks(bytes, [b'{', b'}', b'\\']);
        if (lbrace | rbrace) == 0 {
            // No brace here: go on at the last brace before.
            top = memchr::memrchr2(b'{', b'}', &b[..base])? + 1;
            continue;
        }
        let escaped = Escapes::after_run(runs.odd_before(b, base)).next(backslash);
        let (opens, closes) = (lbrace & !escaped, rbrace & !escaped);
        let sums = Sums::of(
            bytes,
            opens,
            closes,
            (lbrace | rbrace) & escaped != 0,
            highest - depth,
        );
        // A box's `{` comes after its name or a space.
        let mut boxes = 0;
        if opens != 0 {
            boxes = opens & box_braces(b, base, bytes);
        }
        // Whether a box there would close, before whether one is there.
        boxes = sums.closing(boxes, highest - depth);
        while boxes != 0 {
            let i = 63 - boxes.leading_zeros() as usize;
            boxes &= !(1u64 << i);
            let content = base + i + 1;
            if let Some(start) = box_before(b, base + i)
                && !s[content..].trim_start().starts_with('}')
            {
                return Some((start, content));
            }
        }
        highest = highest.max(depth + sums.highest(0));
        depth += sums.sum(0);
        top = base;
    }
    None
}

/// The bytes of the block at `base` (`bytes`) that may be the `{` of a box: after `dex` (of
/// `\boxed`), `box` (of `\fbox`), a space or a tab.
#[inline(always)]
fn box_braces(b: &[u8], base: usize, bytes: &[u8; BLOCK]) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if base >= 3 && base + BLOCK <= b.len() {
        return box_braces_sse2(&b[base - 3..base + BLOCK]);
    }
    let mut m = 0;
    for (k, _) in bytes.iter().enumerate().filter(|(_, c)| **c == b'{') {
        let before = |n: usize| (base + k).checked_sub(n).map_or(0, |i| b[i]);
        let named = matches!(
            (before(3), before(2), before(1)),
            (b'x', b'e', b'd') | (b'b', b'o', b'x')
        );
        m |= u64::from(named || matches!(before(1), b' ' | b'\t')) << k;
    }
    m
}

/// [`box_braces`] 16 bytes at a time, from the block and the 3 bytes before it (`w`).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn box_braces_sse2(w: &[u8]) -> u64 {
    assert_eq!(w.len(), BLOCK + 3);
    // SAFETY: SSE2 is on for the whole build (the cfg on this function); the loads read the
    // 16 bytes at `3 + 16 * q - back` for `back` up to 3, inside `w` (asserted above).
    unsafe {
        use core::arch::x86_64::*;
        let mut m = 0u64;
        for q in 0..BLOCK / 16 {
            let at = |back: usize| _mm_loadu_si128(w.as_ptr().add(3 + 16 * q - back).cast());
            let is = |v: __m128i, c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
            let (v1, v2, v3) = (at(1), at(2), at(3));
            let boxed = _mm_and_si128(_mm_and_si128(is(v1, b'd'), is(v2, b'e')), is(v3, b'x'));
            let fbox = _mm_and_si128(_mm_and_si128(is(v1, b'x'), is(v2, b'o')), is(v3, b'b'));
            let spaced = _mm_or_si128(is(v1, b' '), is(v1, b'\t'));
            let named = _mm_or_si128(_mm_or_si128(boxed, fbox), spaced);
            let brace = _mm_and_si128(is(at(0), b'{'), named);
            m |= u64::from(_mm_movemask_epi8(brace) as u16) << (16 * q);
        }
        m
    }
}

/// The backslash of the box whose `{` is at `brace`, when one opens there.
#[inline(always)]
fn box_before(b: &[u8], brace: usize) -> Option<usize> {
    let named = |end: usize| match b[..end].last()? {
        b'd' if end >= 6 && &b[end - 6..end] == b"\\boxed" => Some(end - 6),
        b'x' if end >= 5 && &b[end - 5..end] == b"\\fbox" => Some(end - 5),
        _ => None,
    };
    match b[..brace].last()? {
        b' ' | b'\t' => {
            let start = named(b[..brace].iter().rposition(|&c| c != b' ' && c != b'\t')? + 1)?;
            (box_at(b, start) == Some(brace + 1)).then_some(start)
        }
        _ => named(brace),
    }
}

/// The run of backslashes that ends before a block, counted once however many blocks it
/// reaches back through.
#[derive(Default)]
struct Runs {
    /// The last run counted: where it starts and ends.
    last: Option<(usize, usize)>,
}

impl Runs {
    /// Whether an odd run of backslashes ends right before `base`.
    fn odd_before(&mut self, b: &[u8], base: usize) -> bool {
        if base == 0 || b[base - 1] != b'\\' {
            return false;
        }
        let start = match self.last {
            Some((start, end)) if start < base && base <= end => start,
            _ => {
                let start = b[..base].iter().rposition(|&c| c != b'\\').map_or(0, |k| k + 1);
                self.last = Some((start, base));
                start
            }
        };
        (base - start) % 2 == 1
    }
}

/// The depth through one block from each byte to the block's end (`{` up, `}` down), and its
/// highest from each byte on (the block's end, depth 0, included).
struct Sums {
    opens: u64,
    closes: u64,
    /// Read from the bytes, when the block has both kinds of brace: the depths, their highest
    /// values, and the bytes `j` where the depth after `j` rises above the depth at `j`, the
    /// block's end and what comes after it (higher by `after` than there) included.
    mixed: Option<([i8; BLOCK], [i8; BLOCK], u64)>,
}

impl Sums {
    /// A block's sums, whose unescaped braces are `opens` and `closes` (`some_escaped` when it
    /// has escaped braces: then read from those masks rather than the bytes), with the depth
    /// after the block rising `after` above the depth at its end.
    #[inline(always)]
    fn of(bytes: &[u8; BLOCK], opens: u64, closes: u64, some_escaped: bool, after: i64) -> Sums {
        // Beyond the range of the depths in a block, either way.
        let after = after.clamp(-100, 100) as i8;
        let mixed = (opens != 0 && closes != 0).then(|| {
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            if !some_escaped {
                return sums_sse2(bytes, after);
            }
            let _ = (bytes, some_escaped);
            let (mut sum, mut high, mut rises) = ([0i8; BLOCK], [0i8; BLOCK], 0u64);
            let (mut run, mut top) = (0i8, 0i8);
            for k in (0..BLOCK).rev() {
                run += (opens >> k & 1) as i8 - (closes >> k & 1) as i8;
                top = top.max(run);
                sum[k] = run;
                high[k] = top;
                rises |= u64::from(top.max(after) > run) << k;
            }
            (sum, high, rises)
        });
        Sums { opens, closes, mixed }
    }

    /// Of the `{` in `braces`, those after which the depth rises above the depth just after
    /// them, with the depth after the block `after` above the depth at its end.
    #[inline(always)]
    fn closing(&self, braces: u64, after: i64) -> u64 {
        match &self.mixed {
            Some((_, _, rises)) => braces & ((rises >> 1) | (u64::from(after > 0) << 63)),
            None => {
                let mut m = braces;
                let mut out = 0;
                while m != 0 {
                    let i = m.trailing_zeros() as usize;
                    m &= m - 1;
                    out |= u64::from(after.max(self.highest(i + 1)) > self.sum(i + 1)) << i;
                }
                out
            }
        }
    }

    /// The depth from byte `k` (up to 64) to the block's end.
    #[inline(always)]
    fn sum(&self, k: usize) -> i64 {
        match &self.mixed {
            Some((sum, _, _)) => sum.get(k).map_or(0, |&v| i64::from(v)),
            None => {
                let from = |m: u64| i64::from(m.checked_shr(k as u32).unwrap_or(0).count_ones());
                from(self.opens) - from(self.closes)
            }
        }
    }

    /// The highest depth from byte `k` (up to 64) to the block's end, the end included.
    #[inline(always)]
    fn highest(&self, k: usize) -> i64 {
        match &self.mixed {
            Some((_, high, _)) => high.get(k).map_or(0, |&v| i64::from(v)),
            // Only `{`: the depth falls toward the end, highest at `k`. Only `}`: it rises to 0.
            None if self.closes == 0 => self.sum(k),
            None => 0,
        }
    }
}

/// [`Sums::of`] from the bytes, 16 at a time: each byte's step summed toward the lane's start in
/// four shifts, and the highest from each byte on taken in four more (as unsigned bytes, offset
/// by 128, which SSE2 compares).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn sums_sse2(c: &[u8; BLOCK], after: i8) -> ([i8; BLOCK], [i8; BLOCK], u64) {
    // SAFETY: SSE2 is on for the whole build (the cfg on this function), and memory is
    // read and written only where the comments inside say.
    unsafe {
        use core::arch::x86_64::*;
        let (mut sum, mut high, mut rises) = ([0i8; BLOCK], [0i8; BLOCK], 0u64);
        let beyond = _mm_set1_epi8(after);
        let bias = _mm_set1_epi8(i8::MIN);
        let mut carry = _mm_setzero_si128();
        // The highest of the lanes after, offset: depth 0 at the block's end.
        let mut after = bias;
        for q in (0..BLOCK / 16).rev() {
            let mut p = steps(c, q);
            p = _mm_add_epi8(p, _mm_srli_si128::<1>(p));
            p = _mm_add_epi8(p, _mm_srli_si128::<2>(p));
            p = _mm_add_epi8(p, _mm_srli_si128::<4>(p));
            p = _mm_add_epi8(p, _mm_srli_si128::<8>(p));
            p = _mm_add_epi8(p, carry);
            carry = spread_first(p);
            // SAFETY: 16 bytes at `16 * q` lie inside the 64-byte array.
            _mm_storeu_si128(sum.as_mut_ptr().add(16 * q).cast(), p);
            // Shifting in zeros brings in the lowest offset value, which a max leaves alone.
            let mut u = _mm_xor_si128(p, bias);
            u = _mm_max_epu8(u, _mm_srli_si128::<1>(u));
            u = _mm_max_epu8(u, _mm_srli_si128::<2>(u));
            u = _mm_max_epu8(u, _mm_srli_si128::<4>(u));
            u = _mm_max_epu8(u, _mm_srli_si128::<8>(u));
            u = _mm_max_epu8(u, after);
            after = spread_first(u);
            let top = _mm_xor_si128(u, bias);
            // SAFETY: 16 bytes at `16 * q` lie inside the 64-byte array.
            _mm_storeu_si128(high.as_mut_ptr().add(16 * q).cast(), top);
            let rise = _mm_or_si128(_mm_cmpgt_epi8(top, p), _mm_cmpgt_epi8(beyond, p));
            rises |= u64::from(_mm_movemask_epi8(rise) as u16) << (16 * q);
        }
        (sum, high, rises)
    }
}

/// The brace steps of lane `q` of a block: +1 at `{`, -1 at `}`, 0 elsewhere.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn steps(c: &[u8; BLOCK], q: usize) -> core::arch::x86_64::__m128i {
    assert!(q < BLOCK / 16);
    // SAFETY: SSE2 is on for the whole build (the cfg on this function); the 16 bytes at
    // `16 * q` lie inside the 64-byte array (asserted above).
    unsafe {
        use core::arch::x86_64::*;
        let v = _mm_loadu_si128(c.as_ptr().add(16 * q).cast());
        // `cmpeq` gives -1 where equal: `}` less `{` is +1 at `{`, -1 at `}`.
        _mm_sub_epi8(
            _mm_cmpeq_epi8(v, _mm_set1_epi8(b'}' as i8)),
            _mm_cmpeq_epi8(v, _mm_set1_epi8(b'{' as i8)),
        )
    }
}

/// The first byte of `v` in every byte.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn spread_first(v: core::arch::x86_64::__m128i) -> core::arch::x86_64::__m128i {
    // SAFETY: SSE2 is on for the whole build (the cfg on this function); no memory is touched.
    unsafe {
        use core::arch::x86_64::*;
        _mm_shuffle_epi32::<0>(_mm_shufflelo_epi16::<0>(_mm_unpacklo_epi8(v, v)))
    }
}

/// The `}` that closes the box whose content starts at `content`.
pub(super) fn closing_brace(b: &[u8], content: usize) -> Option<usize> {
    let mut esc = Escapes::before(b, content);
    // Open braces, the box's own included.
    let mut depth = 1i64;
    let mut base = content;
    while base < b.len() {
        let pad;
        let bytes: &[u8; BLOCK] = match b.get(base..base + BLOCK) {
            Some(whole) => whole.try_into().expect("a block's length"),
            None => {
                pad = padded(&b[base..]);
                &pad
            }
        };
        let [lbrace, rbrace, backslash] = eq_masks(bytes, [b'{', b'}', b'\\']);
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
            let prefix = prefix_depths(bytes, opens, closes, (lbrace | rbrace) & escaped != 0);
            if let Some(k) = prefix.iter().position(|&p| depth + i64::from(p) == 0) {
                return Some(base + k);
            }
        }
        depth += lifts;
        base += BLOCK;
    }
    None
}

/// The depth through one block after each byte, relative to its start (`{` up, `}` down), for
/// a block with both kinds of brace; `some_escaped` when it has escaped braces (then read from
/// the masks `opens` and `closes` rather than the bytes).
#[inline(always)]
fn prefix_depths(bytes: &[u8; BLOCK], opens: u64, closes: u64, some_escaped: bool) -> [i8; BLOCK] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if !some_escaped {
        return prefix_sse2(bytes);
    }
    let _ = (bytes, some_escaped);
    let mut prefix = [0i8; BLOCK];
    let mut run = 0i8;
    for (k, p) in prefix.iter_mut().enumerate() {
        run += (opens >> k & 1) as i8 - (closes >> k & 1) as i8;
        *p = run;
    }
    prefix
}

/// [`prefix_depths`] from the bytes, 16 at a time: each byte's step summed in four shifts per
/// lane.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn prefix_sse2(c: &[u8; BLOCK]) -> [i8; BLOCK] {
    // SAFETY: SSE2 is on for the whole build (the cfg on this function), and memory is
    // read and written only where the comments inside say.
    unsafe {
        use core::arch::x86_64::*;
        let mut prefix = [0i8; BLOCK];
        let mut carry = _mm_setzero_si128();
        for q in 0..BLOCK / 16 {
            let mut p = steps(c, q);
            p = _mm_add_epi8(p, _mm_slli_si128::<1>(p));
            p = _mm_add_epi8(p, _mm_slli_si128::<2>(p));
            p = _mm_add_epi8(p, _mm_slli_si128::<4>(p));
            p = _mm_add_epi8(p, _mm_slli_si128::<8>(p));
            p = _mm_add_epi8(p, carry);
            // The lane's last byte, in every byte.
            carry = _mm_shuffle_epi32::<0xff>(_mm_shufflehi_epi16::<0xff>(_mm_unpackhi_epi8(p, p)));
            // SAFETY: 16 bytes at `16 * q` lie inside the 64-byte array.
            _mm_storeu_si128(prefix.as_mut_ptr().add(16 * q).cast(), p);
        }
        prefix
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        #[test]
        fn vector_depths_agree_with_counting(
            s in prop::collection::vec(prop_oneof![Just(b'{'), Just(b'}'), Just(b'a')], 64),
            after in -70i64..70,
        ) {
            let bytes: [u8; BLOCK] = s.as_slice().try_into().unwrap();
            let [o, c] = eq_masks(&bytes, [b'{', b'}']);
            prop_assert_eq!(prefix_depths(&bytes, o, c, false), prefix_depths(&bytes, o, c, true));
            let (fast, slow) = (Sums::of(&bytes, o, c, false, after), Sums::of(&bytes, o, c, true, after));
            for k in 0..=BLOCK {
                let sum: i64 = (k..BLOCK).map(|j| (o >> j & 1) as i64 - (c >> j & 1) as i64).sum();
                let high = (k..=BLOCK)
                    .map(|j| (j..BLOCK).map(|i| (o >> i & 1) as i64 - (c >> i & 1) as i64).sum::<i64>())
                    .max()
                    .unwrap();
                prop_assert_eq!((fast.sum(k), fast.highest(k)), (sum, high), "at {}", k);
                prop_assert_eq!((slow.sum(k), slow.highest(k)), (sum, high), "at {}", k);
            }
            let suffix = |j: usize| (j..BLOCK).map(|i| (o >> i & 1) as i64 - (c >> i & 1) as i64).sum::<i64>();
            let want = (0..BLOCK)
                .filter(|&i| o >> i & 1 == 1)
                .filter(|&i| after.max((i + 1..=BLOCK).map(suffix).max().unwrap()) > suffix(i + 1))
                .fold(0u64, |m, i| m | 1 << i);
            prop_assert_eq!(fast.closing(o, after), want);
            prop_assert_eq!(slow.closing(o, after), want);
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

//! Text 64 bytes at a time as bit masks (bit `k` stands for the byte at `base + k`), for the
//! scanners whose delimiters come too densely for a call each: which bytes are `$`, line
//! breaks, brackets and so on, which are escaped, and the parity of a delimiter count that
//! starts over at given bytes. A block is a few dozen vector compares and shifts, so a
//! megabyte of text costs well under a millisecond however many delimiters it holds.
//!
//! Hand-written because no crate serves: byte-search crates find bytes, not which are escaped or
//! a delimiter count's parity; `spans_reference`, the oracle of the property tests, says what
//! the masks must give.

/// Bytes a block covers.
pub(super) const BLOCK: usize = 64;

/// Bit masks of one block; bytes past the text's end read as spaces.
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    /// Bytes inside the text.
    pub valid: u64,
    /// `$`.
    pub dollar: u64,
    /// `\`.
    pub backslash: u64,
    /// `\n`.
    pub newline: u64,
    /// ASCII whitespace, and the bytes past the end (this and the classes below are set by
    /// [`Block::complete`]; zero before).
    pub space: u64,
    /// ASCII digits.
    pub digit: u64,
    /// `(`.
    pub paren: u64,
    /// `[`.
    pub brack: u64,
    /// Bytes of multi-byte characters.
    pub high: u64,
    /// The byte before the block (a space before the text) and the one after it.
    pub before: u8,
    pub after: u8,
    /// The block's bytes, padded.
    bytes: [u8; BLOCK],
}

/// The classes of bytes a block is read for, as masks of one block.
#[derive(Clone, Copy, Default)]
struct Classes {
    dollar: u64,
    backslash: u64,
    newline: u64,
    space: u64,
    digit: u64,
    paren: u64,
    brack: u64,
    high: u64,
}

/// The classes of 64 bytes, 16 at a time with SSE2 compares: `$`, `\\` and line breaks, or
/// with `rest` the others.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn classes(c: &[u8; BLOCK], rest: bool) -> Classes {
    classes_sse2(c, rest)
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn classes_sse2(c: &[u8; BLOCK], rest: bool) -> Classes {
    // SAFETY: SSE2 is on for the whole build (the cfg on this function), and memory is
    // read and written only where the comments inside say.
    unsafe {
        use core::arch::x86_64::*;
        let mut out = Classes::default();
        for q in 0..BLOCK / 16 {
            // SAFETY: the 16 bytes at `16 * q` lie inside the 64-byte array.
            let v = _mm_loadu_si128(c.as_ptr().add(16 * q).cast());
            let is = |x: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(x as i8));
            let mask = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16) << (16 * q);
            if !rest {
                out.dollar |= mask(is(b'$'));
                out.backslash |= mask(is(b'\\'));
                out.newline |= mask(is(b'\n'));
                continue;
            }
            let space = _mm_or_si128(
                _mm_or_si128(is(b' '), is(b'\t')),
                _mm_or_si128(_mm_or_si128(is(b'\n'), is(b'\r')), is(b'\x0c')),
            );
            // `0`..=`9`: unchanged by both a max with `0` and a min with `9`.
            let digit = _mm_and_si128(
                _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(b'0' as i8)), v),
                _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(b'9' as i8)), v),
            );
            out.space |= mask(space);
            out.digit |= mask(digit);
            out.paren |= mask(is(b'('));
            out.brack |= mask(is(b'['));
            out.high |= mask(v);
        }
        out
    }
}

/// [`classes`] one byte at a time.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn classes(c: &[u8; BLOCK], rest: bool) -> Classes {
    let mut out = Classes::default();
    for (k, &x) in c.iter().enumerate() {
        let bit = |f: bool| u64::from(f) << k;
        if !rest {
            out.dollar |= bit(x == b'$');
            out.backslash |= bit(x == b'\\');
            out.newline |= bit(x == b'\n');
        } else {
            out.space |= bit(x.is_ascii_whitespace());
            out.digit |= bit(x.is_ascii_digit());
            out.paren |= bit(x == b'(');
            out.brack |= bit(x == b'[');
            out.high |= bit(x >= 0x80);
        }
    }
    out
}

/// For each byte of `set`, the mask of the block's bytes equal to it.
#[inline(always)]
pub(super) fn eq_masks<const N: usize>(c: &[u8; BLOCK], set: [u8; N]) -> [u64; N] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        eq_masks_sse2(c, set)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        let mut out = [0u64; N];
        for (k, &x) in c.iter().enumerate() {
            for (m, &y) in out.iter_mut().zip(&set) {
                *m |= u64::from(x == y) << k;
            }
        }
        out
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn eq_masks_sse2<const N: usize>(c: &[u8; BLOCK], set: [u8; N]) -> [u64; N] {
    // SAFETY: SSE2 is on for the whole build (the cfg on this function), and memory is
    // read and written only where the comments inside say.
    unsafe {
        use core::arch::x86_64::*;
        let mut out = [0u64; N];
        for q in 0..BLOCK / 16 {
            // SAFETY: the 16 bytes at `16 * q` lie inside the 64-byte array.
            let v = _mm_loadu_si128(c.as_ptr().add(16 * q).cast());
            for (m, &y) in out.iter_mut().zip(&set) {
                *m |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(y as i8))) as u16)
                    << (16 * q);
            }
        }
        out
    }
}

/// The 64 bytes from `base`, padded with spaces past the end.
#[inline(always)]
fn bytes_at(b: &[u8], base: usize, pad: &mut [u8; BLOCK]) -> [u8; BLOCK] {
    match b.get(base..base + BLOCK) {
        Some(c) => c.try_into().expect("a block's length"),
        None => {
            let rest = &b[base.min(b.len())..];
            pad[..rest.len()].copy_from_slice(rest);
            *pad
        }
    }
}

impl Block {
    /// The block starting at `base` (which may be anywhere in the text), with its `$`,
    /// backslashes and line breaks only; [`Block::complete`] adds the rest.
    #[inline(always)]
    pub(super) fn at(b: &[u8], base: usize) -> Block {
        let bytes = bytes_at(b, base, &mut [b' '; BLOCK]);
        let len = b.len().saturating_sub(base);
        let m = classes(&bytes, false);
        Block {
            valid: if len >= BLOCK { !0 } else { (1u64 << len) - 1 },
            dollar: m.dollar,
            backslash: m.backslash,
            newline: m.newline,
            space: 0,
            digit: 0,
            paren: 0,
            brack: 0,
            high: 0,
            before: base.checked_sub(1).map_or(b' ', |k| b[k]),
            after: b.get(base + BLOCK).copied().unwrap_or(b' '),
            bytes,
        }
    }

    /// The block's `(` and `[`.
    #[inline(always)]
    pub(super) fn brackets(&self) -> [u64; 2] {
        eq_masks(&self.bytes, [b'(', b'['])
    }

    /// Adds the other classes.
    #[inline(always)]
    pub(super) fn complete(&mut self) {
        let m = classes(&self.bytes, true);
        self.space = m.space;
        self.digit = m.digit;
        self.paren = m.paren;
        self.brack = m.brack;
        self.high = m.high;
    }

    /// `m` of the next byte: bit `k` is set when bit `k + 1` of `m` is; bit 63 says `next` of
    /// the byte after the block.
    #[inline(always)]
    pub(super) fn next_of(&self, m: u64, next: bool) -> u64 {
        (m >> 1) | (u64::from(next) << 63)
    }

    /// `m` of the byte before: bit `k` is set when bit `k - 1` of `m` is; bit 0 says `prev` of
    /// the byte before the block.
    #[inline(always)]
    pub(super) fn prev_of(&self, m: u64, prev: bool) -> u64 {
        (m << 1) | u64::from(prev)
    }

    /// Line breaks followed by a line break: where blank lines begin.
    #[inline(always)]
    pub(super) fn blank_lines(&self) -> u64 {
        self.newline & self.next_of(self.newline, self.after == b'\n')
    }

    /// Bytes with a `$` beside them, on either side.
    #[inline(always)]
    pub(super) fn beside_dollar(&self) -> u64 {
        self.next_of(self.dollar, self.after == b'$') | self.prev_of(self.dollar, self.before == b'$')
    }
}

/// Which bytes follow an odd run of backslashes (are escaped), block after block. What it says of
/// a backslash itself is not meaningful.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Escapes {
    /// Whether the text before the current block ends in an odd run of backslashes.
    odd_run: bool,
}

const EVEN: u64 = 0x5555_5555_5555_5555;

impl Escapes {
    /// The state before the byte at `base`: the run of backslashes just before it, counted.
    pub(super) fn before(b: &[u8], base: usize) -> Escapes {
        let run = b[..base.min(b.len())]
            .iter()
            .rev()
            .take_while(|&&c| c == b'\\')
            .count();
        Escapes {
            odd_run: run % 2 == 1,
        }
    }

    /// The state after a run of backslashes, odd or not.
    pub(super) fn after_run(odd: bool) -> Escapes {
        Escapes { odd_run: odd }
    }

    /// Whether the next block's first byte is escaped by backslashes before it.
    pub(super) fn pending(&self) -> bool {
        self.odd_run
    }

    /// The escaped bytes of a block with these backslashes, the blocks being taken in order.
    /// A run of backslashes is found by adding its first bit to it: the carry runs through
    /// the run and lands on the byte after it, which is escaped when the run's length is odd,
    /// that is when the run starts and the byte after it lie on bits of different parity.
    #[inline(always)]
    pub(super) fn next(&mut self, backslash: u64) -> u64 {
        let carry = u64::from(self.odd_run);
        // A run going on from the block before starts "at bit 0" when what came before was
        // even, and "at bit -1" when odd.
        let starts = backslash & !(backslash << 1);
        let first_cont = backslash & 1 & carry;
        let even_starts = (starts & EVEN) & !first_cont;
        let odd_starts = (starts & !EVEN) | first_cont;
        let land_even = backslash.wrapping_add(even_starts) & !backslash;
        let land_odd = backslash.wrapping_add(odd_starts) & !backslash;
        // A lone byte at bit 0 after an odd run that ended with the block before.
        let first = carry & !backslash & 1;
        let escaped = (land_even & !EVEN) | (land_odd & EVEN) | first;
        // The run reaching the block's end, for the next block.
        let tail = (!backslash).leading_zeros();
        self.odd_run = if tail == 64 { self.odd_run } else { tail % 2 == 1 };
        escaped
    }
}

/// The parity of `x`'s bits up to each bit inclusive, counted from the last bit of `reset` at or
/// before it (a reset bit starts the count afresh), or from the block's start with `carry`
/// (the parity so far) when there is none. `x` has no bit where `reset` has one.
///
/// The plain prefix parity `p` is six shifts and xors; a reset at `r` then has to cancel
/// `p(r)` on its segment (up to the next reset), spread there by one addition: the bit `r + 1`
/// added to the run of non-reset bits after `r` carries through it and stops at the next reset.
#[inline(always)]
pub(super) fn segmented_parity(x: u64, reset: u64, carry: bool) -> u64 {
    let mut p = x;
    for s in [1, 2, 4, 8, 16, 32] {
        p ^= p << s;
    }
    if carry {
        p = !p;
    }
    if reset == 0 {
        return p;
    }
    // Resets where the parity so far is odd, and the segments they start.
    let odd = p & reset;
    let between = !reset;
    let spread = (between.wrapping_add(odd << 1) ^ between) & between;
    p ^ (odd | spread)
}

/// The highest set bit of `m` below bit `k`.
#[inline(always)]
pub(super) fn highest_below(m: u64, k: u32) -> Option<u32> {
    let m = if k >= 64 { m } else { m & ((1u64 << k) - 1) };
    (m != 0).then(|| 63 - m.leading_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::scan::escaped;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn escapes_agree_with_counting_backslashes(
            s in prop::collection::vec(prop_oneof![Just(b'\\'), Just(b'\\'), Just(b'$'), Just(b'a')], 0..400),
            from in 0usize..100,
        ) {
            let from = from.min(s.len());
            let mut e = Escapes::before(&s, from);
            let mut base = from;
            while base < s.len() {
                let blk = Block::at(&s, base);
                let m = e.next(blk.backslash);
                for k in 0..BLOCK.min(s.len() - base) {
                    if s[base + k] != b'\\' {
                        prop_assert_eq!(m >> k & 1 == 1, escaped(&s, base + k), "at {}", base + k);
                    }
                }
                base += BLOCK;
            }
        }

        #[test]
        fn segmented_parity_counts_from_the_last_reset(x: u64, reset: u64, carry: bool) {
            let x = x & !reset;
            let p = segmented_parity(x, reset, carry);
            let mut q = carry;
            for k in 0..64 {
                if reset >> k & 1 == 1 {
                    q = false;
                }
                q ^= x >> k & 1 == 1;
                prop_assert_eq!(p >> k & 1 == 1, q, "bit {}", k);
            }
        }
    }

    #[test]
    fn a_block_past_the_end_reads_spaces() {
        let mut b = Block::at(b"a$\n\n(", 0);
        b.complete();
        assert_eq!(b.valid, 0b11111);
        assert_eq!(b.dollar, 0b10);
        assert_eq!(b.blank_lines(), 0b100);
        assert_eq!(b.paren, 0b10000);
        assert_eq!(b.space & !b.valid, !b.valid);
        assert_eq!(highest_below(0b1011, 3), Some(1));
        assert_eq!(highest_below(0b1011, 64), Some(3));
        assert_eq!(highest_below(0b1000, 3), None);
    }
}

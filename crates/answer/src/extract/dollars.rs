//! `$` delimiters taken 64 at a time ([`super::blocks`]), where a call per `$` would cost too
//! much: the runs of plain inline spans that the strict scanner can pass over whole
//! ([`skip_plain_spans`]), and the pairing of lone `$` that the loose rule reads
//! ([`loose_dollar_span`]). Both give what the scanners that take one `$` at a time give (the
//! property tests of `spans_reference` hold them equal).

use super::blocks::{BLOCK, Block, Escapes, highest_below, segmented_parity};

/// Where a run of plain inline spans ends ([`skip_plain_spans`]).
pub(super) struct Plain {
    /// Where the strict scanner goes on, outside any span.
    pub resume: usize,
    /// The content bounds of the last span that closed on the way.
    pub last: Option<(usize, usize)>,
}

/// From `from`, where the strict scanner (`last_math_span`) stands outside any span: how far it
/// goes through `$` spans of the plainest kind only, and the last of them that closed.
///
/// Within a paragraph, the unescaped `$` then alternate: one before an ASCII non-space opens,
/// the next closes (after a non-space, before a non-digit), or a blank line ends the span. The
/// `$` that open are those of odd rank since the last blank line, so a block is read with one
/// segmented parity. The run stops where anything else happens, and the scanner takes it from
/// there one delimiter at a time: a `$` beside another `$`, one that neither opens nor closes
/// where it stands (it resumes at the `$` its span opened at), a `\(` or `\[` outside a span
/// (`paren`, `brack`: whether they can still open one), a span the text ends inside.
pub(super) fn skip_plain_spans(b: &[u8], from: usize, paren: bool, brack: bool) -> Plain {
    let n = b.len();
    let mut esc = Escapes::before(b, from);
    // Inside a span at the block's start, and the `$` it opened at.
    let (mut inside, mut opener) = (false, from);
    let mut last = None;
    let mut base = from;
    while base < n {
        let mut k = Block::at(b, base);
        if (k.dollar | k.backslash) == 0 && !esc.pending() {
            // Up to the next `$` or `\`, only a blank line can happen: it ends a span. The
            // escapes stay as they are: no backslash comes before that byte.
            let j = memchr::memchr2(b'$', b'\\', &b[base..]).unwrap_or(n - base);
            inside &= !blank_line(&b[base..base + j]);
            base += j;
            continue;
        }
        let escaped = esc.next(k.backslash);
        let dollar = k.dollar & !escaped & k.valid;
        if dollar == 0 {
            // No `$` that counts: a blank line ends a span, and outside one (from the block's
            // start, or from the blank line that ends it) a `\(` or `\[` that can open stops
            // the run.
            let blank = k.blank_lines() & k.valid;
            if paren | brack {
                let [p, q] = k.brackets();
                let opening = ((if paren { p } else { 0 }) | (if brack { q } else { 0 })) & escaped & k.valid;
                let outside = match (inside, blank) {
                    (false, _) => !0,
                    (true, 0) => 0,
                    (true, _) => !((blank & blank.wrapping_neg()) - 1),
                };
                if opening & outside != 0 {
                    let resume = base + (opening & outside).trailing_zeros() as usize;
                    return Plain { resume, last };
                }
            }
            inside &= blank == 0;
            base += BLOCK;
            continue;
        }
        k.complete();
        let parity = segmented_parity(dollar, k.blank_lines() & k.valid, inside);
        let (opens, closes) = (dollar & parity, dollar & !parity);
        let ws = |c: u8| c.is_ascii_whitespace();
        let next_space = k.next_of(k.space, ws(k.after));
        let next_high = k.next_of(k.high, k.after >= 0x80);
        let next_digit = k.next_of(k.digit, k.after.is_ascii_digit());
        let prev_space = k.prev_of(k.space, ws(k.before));
        let brackets = ((if paren { k.paren } else { 0 }) | (if brack { k.brack } else { 0 })) & escaped;
        let stops = ((opens & (next_space | next_high))
            | (dollar & k.beside_dollar())
            | (closes & (prev_space | next_digit))
            | (brackets & !parity))
            & k.valid;
        let upto = if stops == 0 { 64 } else { stops.trailing_zeros() };
        // The last span closed before the stop (or in the whole block).
        if let Some(z) = highest_below(closes, upto) {
            let a = highest_below(opens, z).map_or(opener, |a| base + a as usize);
            last = Some((a + 1, base + z as usize));
        }
        if stops != 0 {
            let resume = if closes >> upto & 1 == 1 {
                highest_below(opens, upto).map_or(opener, |a| base + a as usize)
            } else {
                base + upto as usize
            };
            return Plain { resume, last };
        }
        if let Some(a) = highest_below(opens, 64) {
            opener = base + a as usize;
        }
        inside = parity >> 63 == 1;
        base += BLOCK;
    }
    Plain {
        resume: if inside { opener } else { n },
        last,
    }
}

/// Whether `b` holds a blank line (two line breaks in a row).
fn blank_line(b: &[u8]) -> bool {
    memchr::memmem::find(b, b"\n\n").is_some()
}

/// The content of the last `$ … $` pair, taken in order within a paragraph (`$$` and escaped
/// `\$` left out), whose content reads as math (`holds_math(s, a, z)` for the pair of `$` at `a`
/// and `z`; the caller's rule, `spans::loose_math`): `$ 9 $` and
/// `$ \begin{pmatrix}1 & 0\end{pmatrix} $` are math, `$5 and $ 6` is two prices.
///
/// A blank line or a `$` beside another `$` ends the pairing, and the lone `$` between two such
/// ends pair up in order: the ones of even rank close a pair, found with one segmented parity
/// per block. One pass forward notes the blocks where pairs close and whether a pair is open
/// as each begins; the pairs are then tried from the last back, so each pair's content is read
/// at most once and most texts read none.
pub(super) fn loose_dollar_span(s: &str, holds_math: impl Fn(&str, usize, usize) -> bool) -> Option<&str> {
    let b = s.as_bytes();
    let lone_and_ends = |k: &Block, escaped: u64| {
        let dollar = k.dollar & !escaped & k.valid;
        let beside = k.beside_dollar();
        (dollar & !beside, (k.blank_lines() | (dollar & beside)) & k.valid)
    };
    // Blocks where a pair closes: (base, the `$` open when it begins).
    let mut closing: Vec<(usize, Option<usize>)> = Vec::new();
    let mut esc = Escapes::default();
    let mut open: Option<usize> = None;
    let mut base = 0;
    while base < b.len() {
        let k = Block::at(b, base);
        if k.dollar == 0 {
            // Up to the next `$`, only a blank line can happen, ending the pairing.
            let j = memchr::memchr(b'$', &b[base..]).unwrap_or(b.len() - base);
            if open.is_some() && blank_line(&b[base..base + j]) {
                open = None;
            }
            base += j;
            esc = Escapes::before(b, base);
            continue;
        }
        let (lone, ends) = lone_and_ends(&k, esc.next(k.backslash));
        let parity = segmented_parity(lone, ends, open.is_some());
        if lone & !parity != 0 {
            closing.push((base, open));
        }
        // A `$` open at the block's end: the last lone one, when the count since the last end
        // is odd.
        open = if parity >> 63 == 1 {
            highest_below(lone, 64).map(|a| base + a as usize).or(open)
        } else {
            None
        };
        base += BLOCK;
    }
    for &(base, open) in closing.iter().rev() {
        let k = Block::at(b, base);
        let (lone, ends) = lone_and_ends(&k, Escapes::before(b, base).next(k.backslash));
        let parity = segmented_parity(lone, ends, open.is_some());
        let (opens, mut closes) = (lone & parity, lone & !parity);
        while let Some(z) = highest_below(closes, 64) {
            closes &= !(1u64 << z);
            let a = highest_below(opens, z).map(|a| base + a as usize).or(open);
            let (a, z) = (a.expect("a closing `$` has an opener"), base + z as usize);
            if holds_math(s, a, z) {
                return Some(s[a + 1..z].trim());
            }
        }
    }
    None
}

//! Normalised comparison of a candidate answer with a reference answer: the same number,
//! fraction, closed form, set or word written differently is equal; anything that cannot be
//! read is reported as unreadable on the side it came from, never guessed at.
//!
//! The comparison is written in Rust with no `eval`: a single-pass tokenizer (`lexer`), a
//! reader that sorts the answer into a class (`value`: choice letter, words, collection,
//! relation, number with unit, formula), a depth-limited recursive-descent parser and
//! evaluator for formulas (`expr`), exact and approximate number rules (`number`), units
//! (`units`) and class-by-class equality (`equal`). Answers longer than
//! [`MAX_ANSWER_BYTES`] are unreadable without being scanned; everything else is linear in
//! the answer's length, with nesting and comparison work bounded, and never panics.
//!
//! Hand-written because no crate serves: LaTeX crates render or convert formulas, and computer
//! algebra crates evaluate whatever they are given; none applies the answer rules below with
//! bounded work on hostile input.
//!
//! Decisions worth knowing (each module's doc has the details):
//! - Plain decimals compare exactly (`0.5` = `.50` = `5e-1`, `1000000` ≠ `1000001`); closed
//!   forms compare at relative 1e-6; a decimal with a point and three or more significant
//!   digits also equals a closed form it is a rounding of (`6.2832` = `2\pi`, `0.333` =
//!   `\frac13`; `0.3` ≠ `\frac13`). [`Strictness::Strict`] turns that rounding rule off.
//! - A unit, currency, percentage, degree sign or base subscript on one side only is ignored
//!   (leniently); different ones differ and are never converted. `50\%` equals `50%`, `50`,
//!   `28 percentage` style words and `0.5`; `204_5` equals `204_{5}` and `204`, never `54`.
//! - `x = 5`, `x \in [0, 1)`, `\frac{NO}{BO} = \frac{1}{\sqrt6}`, `V_1:V_2 = 11:21`: a left side
//!   that only names the quantity (variables, point and segment names, joined by `\frac`, `/`
//!   or `:`) is dropped; one that constrains (`x^2 + y^2 = 1`) keeps the relation. `x = \sqrt2
//!   \approx 1.414` is `\sqrt2` (the value before `≈`), `\approx 1.414` is `1.414`.
//! - An inequality in one variable is the interval it describes (`-793 < a < 10` = `(-793, 10)`,
//!   `x \ge 2` = `[2, \infty)`, `1 \le |z| \le 2` = `[-2, -1] \cup [1, 2]`); direction and
//!   strictness matter. Solutions joined by "or" equal the union of their intervals.
//! - Sets and bare lists are order-insensitive; tuples, lists and intervals are ordered and
//!   two-element ones keep their bracket kinds (`[0, 1)` ≠ `(0, 1)`). Lists of named values are
//!   solutions: `p=5,q=2;p=7,q=2` = `(5,2),(7,2)` (a solution per repeat of a name, its values in
//!   the names' alphabetical order). `\quad`, "and", "or" and the lines of `align*`/`cases`
//!   separate answers.
//! - Equations are the same when `lhs - rhs` of one is a nonzero constant times the other's at
//!   every formula point (`2x + 4 = 0` = `x + 2 = 0`). An assignment whose name was dropped is
//!   also its equation when the other side is one (`y = -\frac12 x + \frac34` = `2x + 4y - 3 =
//!   0`); a function of one variable ranged by inequalities is an interval (`0 < f(x) < 1` =
//!   `(0, 1)`); `|AB| = 1` names a length, `A:B = 1` a ratio (`A: 1` is choice A).
//! - Ratios (`11:21`) are equal when proportional (`22:42`), and a ratio of two equals its
//!   quotient (`\frac{11}{21}`) leniently; a ratio with a zero term equals only the same terms
//!   (`12:00` is a time, not the proportion `1:0`).
//! - Choice letters compare case-insensitively (`(b)` = `B.` = `option B`); words compare
//!   case- and space-insensitively; a number never equals a word; a text of more than a few
//!   words, or with operators, is not an answer (a worked solution is unreadable).
//! - A comma followed by exactly three digits outside brackets (or `,\!` anywhere) is a
//!   thousands separator (`12,345`, `32,\!349`, `14 {, }916`); inside brackets it separates
//!   (`(1,234)` is a pair). A group of `0` never leads thousands (`0,111` is not 111). Two whole
//!   numbers joined by a comma with no space (`1000,99`, `1,22`, `0,111`) are also the decimal
//!   they spell with a decimal comma: against one number that decimal is compared, against
//!   anything else the list (`1,22` = `1.22` and `1,22` = `\{1, 22\}`; `1, 22` ≠ `1.22`).
//! - Formulas with variables (`2x+1`, `(x-1)(x+1)`, `\ln(x^2)` and `2\ln x`) are equal when they
//!   agree at eight seeded rational points, exactly where the arithmetic stays rational (see
//!   `equal`); `x \pm y` is the two formulas. A formula with a factorial is compared at seeded
//!   whole numbers instead (`\frac{(n+1)!}{n!}` = `n+1`).
//! - A mixed number (`2 3/4`: a whole number, a space, a proper fraction of whole numbers) is
//!   their sum; `-2 3/4` is `-(2 + 3/4)`.
//! - A time of day with AM or PM equals the same minute written on a 24-hour clock (`7:05 PM` =
//!   `19:05`, `12:30 AM` = `0:30`); two times without either stay ratios (`12:00`).
//! - Repeating decimals are exact (`0.\overline{3}` = `\frac13`); `\mathbb{R}` is
//!   `(-\infty, \infty)`; set-builder notation for one variable is the range its condition
//!   describes (`\{x \mid x > 2\}` = `(2, \infty)`); `±` may stand once anywhere
//!   (`\frac{-1 \pm \sqrt5}{2}` is two values).
//! - Not read (unreadable, never guessed): other set-builder conditions, other number sets
//!   (`\mathbb{Z}`), unknown commands and environments. Not converted: units, degrees and
//!   radians (`30^\circ` ≠ `\frac{\pi}{6}`), bases.
//! - `\oplus` and `\otimes` are compared as written (their operands by value), never
//!   evaluated; `\min`/`\max` of numbers are evaluated, of formulas compared as written with
//!   the arguments in any order; `a^3_1` is `a_1^3`; a short word alone (`xy`) against a
//!   formula is the product of its letters (`x \cdot y`).
//! - Complex arithmetic: where two formulas differ with `i` a variable, they are compared again
//!   with `i` the imaginary unit (`(3+i)(1-2i)` = `5-5i`, `i^2` = `-1`, `e^{i\pi}` = `-1`,
//!   `|3+4i|` = `5`); see `expr::complex`. `j` stays a variable.

mod equal;
mod expr;
mod lexer;
mod number;
mod units;
mod value;

#[cfg(test)]
mod tests;

/// Answers longer than this many bytes are unreadable without being scanned.
pub(crate) const MAX_ANSWER_BYTES: usize = value::MAX_BYTES;

/// The outcome of a comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comparison {
    /// Both were read and mean the same.
    Equal,
    /// Both were read and differ.
    NotEqual,
    /// The reference could not be interpreted (the task's fault).
    ReferenceUnreadable(String),
    /// The candidate could not be interpreted (the candidate's fault).
    CandidateUnreadable(String),
}

/// How strictly `compare_with` compares.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strictness {
    /// A unit, currency, percentage, degree sign or base written on one side only is ignored
    /// (`5 cm` = `5`; `50%` = `0.5`), and a decimal with three or more significant digits equals
    /// a closed form it rounds (`3.14` = `\pi`).
    #[default]
    Lenient,
    /// Those marks must agree (`5 cm` ≠ `5`, `50%` ≠ `0.5`, `30^\circ` ≠ `30`), and a rounded
    /// decimal never equals a closed form.
    Strict,
}

/// A whole answer that is a time of day, `H:MM` (hours 0 to 23, or 1 to 12 before AM or PM,
/// minutes two digits, 00 to 59), with an optional `AM` / `PM` (any case, with or without dots
/// or a space, in `\text{}` or not): its minute of the day, and whether it had AM or PM.
fn time_of_day(answer: &str) -> Option<(u32, bool)> {
    if answer.len() > 64 {
        return None;
    }
    let s = answer.trim().trim_matches('$').trim();
    let s = s.replace("\\text{", "").replace("\\mathrm{", "").replace('}', "");
    let s = s.replace("\\,", " ").replace("\\ ", " ");
    let (h, rest) = s.trim().split_once(':')?;
    let digits = |t: &str| !t.is_empty() && t.len() <= 2 && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(h) {
        return None;
    }
    let rest = rest.trim_start();
    let cut = rest.len().min(2);
    if !rest.is_char_boundary(cut) {
        return None;
    }
    let (m, tail) = rest.split_at(cut);
    if m.len() != 2 || !digits(m) {
        return None;
    }
    let (hour, minute): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    if minute > 59 {
        return None;
    }
    // Dots belong to the meridiem (`p.m.`) or end the sentence, never to the digits.
    let meridiem = tail.replace('.', "").trim().to_ascii_lowercase();
    let hour = match meridiem.as_str() {
        "" if hour < 24 => hour,
        "am" | "pm" if (1..=12).contains(&hour) => hour % 12 + if meridiem == "pm" { 12 } else { 0 },
        _ => return None,
    };
    Some((hour * 60 + minute, !meridiem.is_empty()))
}

/// Compares two answers after normalisation, leniently. Linear in the input, bounded, never
/// panics.
pub fn compare(reference: &str, candidate: &str) -> Comparison {
    compare_with(reference, candidate, Strictness::Lenient)
}

/// Compares two answers after normalisation with the given strictness. Linear in the input,
/// bounded, never panics.
pub(crate) fn compare_with(reference: &str, candidate: &str, strictness: Strictness) -> Comparison {
    compare_reference(&Reference::read(reference), candidate, strictness)
}

/// A reference answer read once (its time of day, its value or why it has none), to be
/// compared with every candidate of its task without reading it again.
#[derive(Debug, Clone)]
pub(crate) struct Reference {
    time: Option<(u32, bool)>,
    value: Result<value::Value, String>,
}

#[cfg(test)]
thread_local! {
    /// How many references this thread has read (the tests count them).
    pub(crate) static REFERENCE_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl Reference {
    /// Reads a reference answer.
    pub(crate) fn read(reference: &str) -> Self {
        #[cfg(test)]
        REFERENCE_READS.with(|n| n.set(n.get() + 1));
        Reference {
            time: time_of_day(reference),
            value: value::read(reference),
        }
    }

    /// Whether it reads as an answer of some class.
    pub(crate) fn readable(&self) -> bool {
        self.value.is_ok()
    }
}

/// [`compare_with`] against a reference already read.
pub(crate) fn compare_reference(
    reference: &Reference,
    candidate: &str,
    strictness: Strictness,
) -> Comparison {
    // Two times of day, one of them with AM or PM: the same minute of the day is the same answer.
    if let (Some((a, am_pm_a)), Some((b, am_pm_b))) = (reference.time, time_of_day(candidate))
        && (am_pm_a || am_pm_b)
    {
        return if a == b {
            Comparison::Equal
        } else {
            Comparison::NotEqual
        };
    }
    let r = match &reference.value {
        Ok(v) => v,
        Err(why) => return Comparison::ReferenceUnreadable(why.clone()),
    };
    let c = match value::read(candidate) {
        Ok(v) => v,
        Err(why) => return Comparison::CandidateUnreadable(why),
    };
    let mut budget = equal::Budget::new(equal::BUDGET, strictness == Strictness::Strict);
    match equal::same(r, &c, &mut budget) {
        Ok(true) => Comparison::Equal,
        Ok(false) => Comparison::NotEqual,
        Err(equal::Exhausted) => {
            Comparison::CandidateUnreadable("too many elements to compare with the reference".into())
        }
    }
}

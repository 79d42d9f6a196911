//! Reading an answer into a [`Value`]: the classes of answer the comparison knows, and the
//! order in which a token stream is tried against them.
//!
//! 1. A multiple-choice letter: `B`, `(B)`, `B)`, `B.`, `[B]`, `option B`, `\text{(B)}`, or
//!    `(B)`, `B)` or `B:` followed by the option's text.
//! 2. Words: text whose tokens are words and punctuation only (`Blue whale`, `New York`),
//!    compared case- and space-insensitively after dropping a leading article. Commas and
//!    semicolons split words into a bare list (5.), so `red, blue` equals `blue, red`.
//! 3. A union of intervals (`[0,1) \cup (2,3]`).
//! 4. A bracketed collection: a set `\{1, 2\}` (order-insensitive), a tuple `(1, 2)` or a list
//!    `[1, 2, 3]` (ordered), an interval `[0, 1)` (two ends of mixed brackets; bracket kinds
//!    matter for every two-element collection), a matrix (`\begin{pmatrix}…\end{pmatrix}`).
//!    Sums, differences, multiples and products of matrices of numbers are the matrix they come
//!    to (read after ratios, before a plain number or formula).
//! 5. A bare list `1, 2`, `1; 2`, `1 and 2`, `1 \quad 2`, `x = 2 or x = 3`: order-insensitive,
//!    like a set (answers that list solutions). A list whose items all name their values
//!    (`x = 1, y = 2`, `p=5,q=2;p=7,q=2`) is the solutions it lists, each a tuple of its values
//!    in the names' alphabetical order.
//! 6. `x = 5`, `AB = 5`, `\angle A = 30^\circ`, `x \in [0,1)`, `(x, y) = (1, 2)`, `f(x) = 2x`,
//!    `\frac{NO}{BO} = \frac{1}{\sqrt6}`, `V_1:V_2 = 11:21`: the value on the right (a left side
//!    that only names; also the equation it is, against an equation: `y = 2x + 3` equals
//!    `2x - y + 3 = 0`). Inside a list the name is kept. `v \approx w` is `v` (`\approx w` and
//!    `x \approx w` are `w`); a chain of closed values `\frac12 = 0.5` is its last value. An
//!    inequality in one variable (`a < x \le b`, `x \ge a`, `a \le |x| < b`) is the interval
//!    or union it describes. Any other relation (`x^2 + y^2 = 1`, `x < y`) is compared side by
//!    side (also read right to left).
//! 7. A ratio `a : b (: c…)` of numbers or formulas.
//! 8. A number or formula, with a currency before it or a unit, percentage, degrees or base
//!    subscript (`204_5`) after it ([`super::units`]); a formula with variables is compared at
//!    points; `x \pm y` is the set of its two formulas.
//! 9. If none of that reads but the answer is a short phrase (at most six words, no operator)
//!    with a word that is neither a unit nor a math name (`about 12`, `12 at most`), it is
//!    compared as words. Otherwise it is unreadable.

use super::expr::{self, Ast, describe, is_math_name, symbol};
use super::lexer::{self, NumLit, Tk, Token};
use super::number::Real;
use super::units;

mod relation;

/// Answers longer than this are unreadable without being scanned.
pub(super) const MAX_BYTES: usize = 4096;
/// The deepest nesting of collections.
const MAX_NEST: u32 = 24;
const NONE: u32 = u32::MAX;
/// The most words a phrase compared as words may have when it does not read otherwise.
const MAX_PROSE_WORDS: usize = 6;

/// The kind of bracket at one end of a collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bracket {
    Paren,
    Square,
    Angle,
}

/// A relation between the sides of an answer that is not an assignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rel {
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
    In,
}

impl Rel {
    /// The relation read right to left (`<` becomes `>`).
    pub(super) fn flipped(self) -> Rel {
        match self {
            Rel::Lt => Rel::Gt,
            Rel::Gt => Rel::Lt,
            Rel::Le => Rel::Ge,
            Rel::Ge => Rel::Le,
            other => other,
        }
    }
}

/// An answer, read.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    /// A real number, with its unit if one was written.
    Num { x: Real, unit: Option<Box<str>> },
    /// A formula with variables, and the sign its `±` takes (1 when it has none).
    Formula(Ast, i8),
    /// A ratio `a : b : …` of two or more numbers or formulas.
    Ratio(Vec<Value>),
    /// A multiple-choice letter, upper case.
    Choice(char),
    /// Words, normalised.
    Text(String),
    /// An ordered collection: tuple, list or interval.
    Seq {
        open: Bracket,
        close: Bracket,
        items: Vec<Value>,
    },
    /// An unordered collection: a set or a bare list (also `a ± b`).
    Set(Vec<Value>),
    /// A union of parts (intervals), order-insensitive.
    Union(Vec<Value>),
    /// A matrix, by rows.
    Matrix(Vec<Vec<Value>>),
    /// `a < b ≤ c` and other relations.
    Relation { items: Vec<Value>, ops: Vec<Rel> },
    /// `x = 5` inside a list.
    Named(Box<str>, Box<Value>),
    /// `y = 2x + 3` standing alone: the value on the right (the left side only names it), and
    /// the equation it also is, compared when the other side is an equation
    /// (`2x - y + 3 = 0`).
    Assigned { value: Box<Value>, equation: Box<Value> },
    /// `1,22`: two whole numbers with a comma between them and no space, which is also a
    /// decimal written with a decimal comma. Against one number it is the decimal; against
    /// anything else, the list.
    CommaDecimal { list: Box<Value>, decimal: Real },
    /// `5m`: a number with a one-letter unit run into it, which is also a product. Against a
    /// number written with a unit it is the number with its unit (`5m` = `5 m`); against
    /// anything else, the product (`5m` = `5 \cdot m`, `5m` ≠ `5`).
    GluedUnit {
        with_unit: Box<Value>,
        product: Box<Value>,
    },
}

/// Reads one answer, or says why it cannot be read.
pub(super) fn read(src: &str) -> Result<Value, String> {
    if src.len() > MAX_BYTES {
        return Err(format!("longer than {MAX_BYTES} bytes"));
    }
    let s = src.trim().trim_matches('*').trim();
    let s = undouble(s);
    let toks = lexer::lex(&s)?;
    if toks.is_empty() {
        return Err("empty answer".into());
    }
    let mate = match_brackets(&toks);
    let mut r = Reader {
        t: &toks,
        mate,
        depth: 0,
        matrices: toks.iter().any(|t| t.tk == Tk::MatBegin),
    };
    r.element(0, toks.len(), false)
}

/// Commands whose doubled spelling (`\\frac`) marks a whole answer as escaped twice.
const DOUBLED_COMMANDS: &[&str] = &[
    "left", "right", "frac", "dfrac", "tfrac", "sqrt", "pi", "le", "ge", "leq", "geq", "lt", "gt", "cdot",
    "times", "infty", "begin", "end", "text", "mathrm", "pm", "neq", "ne", "in", "cup", "cap", "circ",
    "degree", "log", "ln", "sin", "cos", "tan",
];

/// Each run of backslashes in `s`: where it starts, how many backslashes, and whether exactly
/// two of them spell a known command (`\\frac`).
fn backslash_runs(s: &str) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
    let b = s.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() && b[i] != b'\\' {
            i += 1;
        }
        if i == b.len() {
            return None;
        }
        let start = i;
        while i < b.len() && b[i] == b'\\' {
            i += 1;
        }
        let word_end = b[i..]
            .iter()
            .position(|c| !c.is_ascii_alphabetic())
            .map_or(b.len(), |n| i + n);
        Some((
            start,
            i - start,
            i - start == 2 && DOUBLED_COMMANDS.contains(&&s[i..word_end]),
        ))
    })
}

/// An answer escaped twice (every backslash doubled, as a raw string in source code or a JSON
/// string written out again gives `\\left( 3, \\frac{\\pi}{2} \\right)`) read with its
/// backslashes halved. Only when every run of backslashes has an even length and at least one
/// doubled run spells a known command: a matrix's row break `\\` beside single-backslash
/// commands, or a bare `1 \\ 2`, is left as written. With some backslashes single, see
/// [`halve_commands`].
fn undouble(s: &str) -> std::borrow::Cow<'_, str> {
    let mut command = false;
    for (_, len, known) in backslash_runs(s) {
        if len % 2 == 1 {
            return halve_commands(s);
        }
        command |= known;
    }
    if command {
        std::borrow::Cow::Owned(s.replace("\\\\", "\\"))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// An answer with some backslashes single and a known command spelled with two
/// (`\\dfrac{1}{2} + \frac{1}{72}`, an escape half undone), outside any environment: each such
/// command read with one. In an environment `\\` is a row break and everything stays as written.
fn halve_commands(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains("\\begin") || s.contains("\\end") {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::new();
    let mut copied = 0;
    for (start, _, known) in backslash_runs(s) {
        if known {
            out.push_str(&s[copied..=start]);
            copied = start + 2;
        }
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(s);
    }
    out.push_str(&s[copied..]);
    std::borrow::Cow::Owned(out)
}

fn opens(tk: &Tk) -> bool {
    matches!(
        tk,
        Tk::LParen | Tk::LBrack | Tk::LSet | Tk::LAngle | Tk::LBrace | Tk::MatBegin
    )
}

fn closes(tk: &Tk) -> bool {
    matches!(
        tk,
        Tk::RParen | Tk::RBrack | Tk::RSet | Tk::RAngle | Tk::RBrace | Tk::MatEnd
    )
}

/// `mate[i]` is the index of the bracket that matches the one at `i` (`(` and `[` pair with
/// either `)` or `]`, for intervals), or `NONE`.
fn match_brackets(t: &[Token]) -> Vec<u32> {
    let mut mate = vec![NONE; t.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, tok) in t.iter().enumerate() {
        if opens(&tok.tk) {
            stack.push(i);
        } else if closes(&tok.tk) {
            let Some(&top) = stack.last() else { continue };
            let pairs = matches!(
                (&t[top].tk, &tok.tk),
                (Tk::LParen | Tk::LBrack, Tk::RParen | Tk::RBrack)
                    | (Tk::LSet, Tk::RSet)
                    | (Tk::LAngle, Tk::RAngle)
                    | (Tk::LBrace, Tk::RBrace)
                    | (Tk::MatBegin, Tk::MatEnd)
            );
            if pairs {
                stack.pop();
                mate[top] = i as u32;
                mate[i] = top as u32;
            }
        }
    }
    mate
}

/// `,`, `;`, and the words "and" and "or" between the items of a bare list.
fn is_list_separator(tk: &Tk) -> bool {
    matches!(tk, Tk::Comma | Tk::Semi | Tk::Quad) || is_word_separator(tk)
}

fn is_word_separator(tk: &Tk) -> bool {
    matches!(tk, Tk::Word(w) if w.eq_ignore_ascii_case("and") || w.eq_ignore_ascii_case("or"))
}

fn bracket(tk: &Tk) -> Option<Bracket> {
    match tk {
        Tk::LParen | Tk::RParen => Some(Bracket::Paren),
        Tk::LBrack | Tk::RBrack => Some(Bracket::Square),
        Tk::LAngle | Tk::RAngle => Some(Bracket::Angle),
        _ => None,
    }
}

struct Reader<'t> {
    t: &'t [Token],
    mate: Vec<u32>,
    depth: u32,
    /// Whether any token opens a matrix (matrix arithmetic is looked for only then).
    matrices: bool,
}

impl<'t> Reader<'t> {
    fn tk(&self, i: usize) -> &'t Tk {
        &self.t[i].tk
    }

    /// One answer or one element of a collection.
    fn element(&mut self, lo: usize, mut hi: usize, in_list: bool) -> Result<Value, String> {
        while hi > lo && *self.tk(hi - 1) == Tk::Dot {
            hi -= 1;
        }
        if lo == hi {
            return Err(if in_list {
                "an empty element"
            } else {
                "empty answer"
            }
            .into());
        }
        if let Some(c) = self.choice(lo, hi) {
            return Ok(Value::Choice(c));
        }
        if self.texty(lo, hi) {
            return Ok(Value::Text(self.render(lo, hi)));
        }
        match self.value(lo, hi, in_list) {
            Ok(v) => Ok(v),
            Err(_) if self.prose(lo, hi) => Ok(Value::Text(self.render(lo, hi))),
            Err(e) => Err(e),
        }
    }

    fn value(&mut self, lo: usize, hi: usize, in_list: bool) -> Result<Value, String> {
        self.depth += 1;
        let r = if self.depth > MAX_NEST {
            Err(format!("collections nested more than {MAX_NEST} deep"))
        } else {
            self.value_inner(lo, hi, in_list)
        };
        self.depth -= 1;
        r
    }

    fn value_inner(&mut self, lo: usize, hi: usize, in_list: bool) -> Result<Value, String> {
        let parts = self.split(lo, hi, |tk| *tk == Tk::Cup)?;
        if parts.len() > 1 {
            let items = parts
                .into_iter()
                .map(|(a, b)| self.element(a, b, false))
                .collect::<Result<_, _>>()?;
            return Ok(Value::Union(items));
        }
        if let Some(v) = self.enclosed(lo, hi, in_list)? {
            return Ok(v);
        }
        let parts = self.split(lo, hi, is_list_separator)?;
        if parts.len() > 1 {
            // `1, 2, and 3`, `1 \quad 2 \quad`: a comma before a word separator, or a wide
            // space beside another separator, leaves nothing between them.
            let loose = self.t[lo..hi]
                .iter()
                .any(|t| is_word_separator(&t.tk) || t.tk == Tk::Quad);
            // A separator at the very end (`p=5,q=2;`) leaves nothing after it either.
            let last = parts.len() - 1;
            let parts: Vec<(usize, usize)> = parts
                .into_iter()
                .enumerate()
                .filter(|&(k, (a, b))| !((loose || k == last) && a == b))
                .map(|(_, p)| p)
                .collect();
            if let [(a, b)] = parts[..] {
                return self.element(a, b, in_list);
            }
            if !in_list
                && let [first, second] = parts[..]
                && let Some(decimal) = self.decimal_comma(first, second)
            {
                let list = Box::new(named_groups(self.elements(&parts)?));
                return Ok(Value::CommaDecimal { list, decimal });
            }
            return Ok(named_groups(self.elements(&parts)?));
        }
        if let Some(v) = self.relation(lo, hi, in_list)? {
            return Ok(v);
        }
        if let Some(v) = self.ratio(lo, hi)? {
            return Ok(v);
        }
        if let Some(v) = self.matrix_arithmetic(lo, hi)? {
            return Ok(v);
        }
        self.scalar(lo, hi)
    }

    /// Arithmetic on matrices of numbers, as the matrix it comes to: sums and differences of
    /// terms, each a product of matrices (side by side or joined by `\cdot`, `\times`) with an
    /// optional closed factor before them (`2\begin{pmatrix}…\end{pmatrix}`). `None` when
    /// `lo..hi` has no matrix at its top level or is not of that shape; an error when the sizes
    /// do not agree or an entry is not a number.
    fn matrix_arithmetic(&mut self, lo: usize, hi: usize) -> Result<Option<Value>, String> {
        /// The most multiplications one product may take (a 21 × 21 square by another).
        const MAX_PRODUCT: usize = 10_000;
        if !self.matrices {
            return Ok(None);
        }
        let top = |r: &Self, i: usize| -> Option<usize> {
            if opens(r.tk(i)) {
                let m = r.mate[i];
                (m != NONE && (m as usize) < hi).then_some(m as usize + 1)
            } else {
                Some(i + 1)
            }
        };
        let mut i = lo;
        let mut any = false;
        while i < hi {
            any |= *self.tk(i) == Tk::MatBegin;
            let Some(next) = top(self, i) else { return Ok(None) };
            i = next;
        }
        if !any {
            return Ok(None);
        }
        let mut total: Option<Vec<Vec<Real>>> = None;
        let mut i = lo;
        while i < hi {
            let negative = match self.tk(i) {
                Tk::Minus => true,
                Tk::Plus => false,
                _ if i == lo => false,
                _ => return Ok(None),
            };
            if matches!(self.tk(i), Tk::Minus | Tk::Plus) {
                i += 1;
            }
            let start = i;
            while i < hi && !matches!(self.tk(i), Tk::Plus | Tk::Minus) {
                let Some(next) = top(self, i) else { return Ok(None) };
                i = next;
            }
            let Some(mut term) = self.matrix_term(start, i, MAX_PRODUCT)? else {
                return Ok(None);
            };
            if negative {
                term = term
                    .iter()
                    .map(|row| row.iter().map(Real::neg).collect())
                    .collect();
            }
            total = Some(match total {
                None => term,
                Some(sum) => {
                    if sum.len() != term.len() || sum.iter().zip(&term).any(|(r, t)| r.len() != t.len()) {
                        return Err("a sum of matrices of different sizes".into());
                    }
                    let mut out = Vec::with_capacity(sum.len());
                    for (r, t) in sum.iter().zip(&term) {
                        out.push(
                            r.iter()
                                .zip(t)
                                .map(|(a, b)| a.add(b))
                                .collect::<Result<Vec<_>, _>>()?,
                        );
                    }
                    out
                }
            });
        }
        let Some(rows) = total else { return Ok(None) };
        Ok(Some(Value::Matrix(
            rows.into_iter()
                .map(|r| r.into_iter().map(|x| Value::Num { x, unit: None }).collect())
                .collect(),
        )))
    }

    /// One term of [`Self::matrix_arithmetic`]: an optional closed factor, then matrices side by
    /// side or joined by `\cdot`/`\times`, multiplied out. `None` when it is not of that shape.
    fn matrix_term(
        &mut self,
        lo: usize,
        hi: usize,
        max_product: usize,
    ) -> Result<Option<Vec<Vec<Real>>>, String> {
        let Some(first) = (lo..hi).find(|&k| *self.tk(k) == Tk::MatBegin) else {
            return Ok(None);
        };
        let mut scale_end = first;
        if scale_end > lo && *self.tk(scale_end - 1) == Tk::Times {
            scale_end -= 1;
        }
        let scale = if scale_end > lo {
            match expr::parse(&self.t[lo..scale_end]) {
                Ok(ast) if ast.closed() => Some(ast.value(1)?),
                _ => return Ok(None),
            }
        } else {
            None
        };
        let mut product: Option<Vec<Vec<Real>>> = None;
        let mut i = first;
        while i < hi {
            if *self.tk(i) == Tk::Times && product.is_some() && i + 1 < hi && *self.tk(i + 1) == Tk::MatBegin
            {
                i += 1;
            }
            if *self.tk(i) != Tk::MatBegin {
                return Ok(None);
            }
            let end = self.mate[i] as usize;
            let Value::Matrix(cells) = self.matrix(i + 1, end)? else {
                return Ok(None);
            };
            let m = cells
                .into_iter()
                .map(|row| {
                    row.into_iter()
                        .map(|v| match v {
                            Value::Num { x, unit: None } => Ok(x),
                            _ => Err("matrix arithmetic on entries that are not numbers".to_string()),
                        })
                        .collect::<Result<Vec<_>, _>>()
                })
                .collect::<Result<Vec<_>, _>>()?;
            product = Some(match product {
                None => m,
                Some(p) => {
                    let (n, k, w) = (p.len(), m.len(), m[0].len());
                    if p[0].len() != k {
                        return Err("a product of matrices whose sizes do not match".into());
                    }
                    if n * k * w > max_product {
                        return Err("matrices too large to multiply".into());
                    }
                    let mut out = Vec::with_capacity(n);
                    for row in &p {
                        let mut r = Vec::with_capacity(w);
                        for c in 0..w {
                            r.push(Real::dot(row.iter().zip(m.iter().map(|m_row| &m_row[c])))?);
                        }
                        out.push(r);
                    }
                    out
                }
            });
            i = end + 1;
        }
        Ok(match (product, scale) {
            (Some(p), Some(c)) => Some(
                p.iter()
                    .map(|row| row.iter().map(|x| c.mul(x)).collect::<Result<Vec<_>, _>>())
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            (p, _) => p,
        })
    }

    /// `1000,99`, `1,22`, `0,111`, `-2,5`: two whole numbers joined by a comma with no space on
    /// either side that the lexer did not take for a thousands separator (the part after it is
    /// not three digits, or the part before it is `0` or longer than three), as the decimal it
    /// is when the comma is a decimal comma.
    fn decimal_comma(&self, (a, b): (usize, usize), (c, d): (usize, usize)) -> Option<Real> {
        let neg = b == a + 2 && *self.tk(a) == Tk::Minus;
        let first = if neg { a + 1 } else { a };
        if b != first + 1 || c != b + 1 || d != c + 1 || *self.tk(b) != Tk::Comma {
            return None;
        }
        if self.t[b].space || self.t[c].space {
            return None;
        }
        let (Tk::Num(int), Tk::Num(frac)) = (self.tk(first), self.tk(c)) else {
            return None;
        };
        if !int.is_plain_int() || !frac.is_plain_int() {
            return None;
        }
        let x = Real::literal(&NumLit {
            digits: format!("{}{}", int.digits, frac.digits),
            frac: u32::try_from(frac.digits.len()).ok()?,
            exp: 0,
            point: true,
        });
        Some(if neg { x.neg() } else { x })
    }

    /// `a : b (: c…)`, each term a number or formula.
    fn ratio(&mut self, lo: usize, hi: usize) -> Result<Option<Value>, String> {
        let parts = self.split(lo, hi, |tk| *tk == Tk::Colon)?;
        if parts.len() < 2 {
            return Ok(None);
        }
        let mut items = Vec::with_capacity(parts.len());
        for (a, b) in parts {
            if a == b {
                return Err("an empty term in a ratio".into());
            }
            let v = self.scalar(a, b)?;
            if !matches!(v, Value::Num { .. } | Value::Formula(..)) {
                return Err("a ratio of something other than numbers".into());
            }
            items.push(v);
        }
        Ok(Some(Value::Ratio(items)))
    }

    fn elements(&mut self, parts: &[(usize, usize)]) -> Result<Vec<Value>, String> {
        parts.iter().map(|&(a, b)| self.element(a, b, true)).collect()
    }

    /// The top-level segments of `lo..hi` between tokens that `sep` picks.
    fn split(&self, lo: usize, hi: usize, sep: impl Fn(&Tk) -> bool) -> Result<Vec<(usize, usize)>, String> {
        let mut parts = Vec::new();
        let mut start = lo;
        let mut i = lo;
        while i < hi {
            let tk = self.tk(i);
            if opens(tk) {
                let m = self.mate[i];
                if m == NONE || m as usize >= hi {
                    return Err(format!("unbalanced brackets: {} is never closed", describe(tk)));
                }
                i = m as usize + 1;
                continue;
            }
            if closes(tk) {
                return Err(format!("unbalanced brackets: {} closes nothing", describe(tk)));
            }
            if sep(tk) {
                parts.push((start, i));
                start = i + 1;
            }
            i += 1;
        }
        parts.push((start, hi));
        Ok(parts)
    }

    /// A collection whose brackets enclose all of `lo..hi`.
    fn enclosed(&mut self, lo: usize, hi: usize, in_list: bool) -> Result<Option<Value>, String> {
        let open = self.tk(lo);
        if !opens(open) || self.mate[lo] as usize != hi - 1 {
            return Ok(None);
        }
        let (a, b) = (lo + 1, hi - 1);
        match open {
            Tk::LBrace => self.element(a, b, in_list).map(Some),
            Tk::LSet => {
                if a == b {
                    return Ok(Some(Value::Set(Vec::new())));
                }
                // Set-builder notation for one variable: `\{x \mid 1 < x \le 2\}`, `\{x : x > 2\}`
                // is the interval (or union) its condition describes, when it describes one.
                if let Some(end) = self.variable(a, b)
                    && end + 1 < b
                    && matches!(self.tk(end), Tk::Bar | Tk::Colon)
                {
                    return match self.relation(end + 1, b, false)? {
                        Some(v @ (Value::Seq { .. } | Value::Union(_))) => Ok(Some(v)),
                        _ => Err("set-builder notation with a condition that is not a range".into()),
                    };
                }
                let parts = self.split(a, b, |tk| matches!(tk, Tk::Comma | Tk::Semi))?;
                Ok(Some(Value::Set(self.elements(&parts)?)))
            }
            Tk::MatBegin => self.matrix(a, b).map(Some),
            _ => {
                let (Some(o), Some(c)) = (bracket(open), bracket(self.tk(hi - 1))) else {
                    return Ok(None);
                };
                if a == b {
                    return Err("empty brackets".into());
                }
                let parts = self.split(a, b, |tk| matches!(tk, Tk::Comma | Tk::Semi))?;
                if parts.len() == 1 {
                    if o != c {
                        return Err("mismatched brackets around one value".into());
                    }
                    return self.element(a, b, in_list).map(Some);
                }
                if o != c && parts.len() != 2 {
                    return Err("mismatched brackets around more than two values".into());
                }
                Ok(Some(Value::Seq {
                    open: o,
                    close: c,
                    items: self.elements(&parts)?,
                }))
            }
        }
    }

    fn matrix(&mut self, lo: usize, hi: usize) -> Result<Value, String> {
        let mut rows = Vec::new();
        let mut width = None;
        for (a, b) in self.split(lo, hi, |tk| *tk == Tk::RowSep)? {
            if a == b {
                continue;
            }
            let cells = self.split(a, b, |tk| *tk == Tk::Amp)?;
            if width.is_some_and(|w| w != cells.len()) {
                return Err("matrix rows of different lengths".into());
            }
            width = Some(cells.len());
            rows.push(self.elements(&cells)?);
        }
        if rows.is_empty() {
            return Err("an empty matrix".into());
        }
        Ok(Value::Matrix(rows))
    }

    /// The end of a variable with an optional subscript starting at `lo`.
    fn variable(&self, lo: usize, hi: usize) -> Option<usize> {
        if !matches!(self.t.get(lo).map(|t| &t.tk), Some(Tk::Letter(_) | Tk::Greek(_))) || lo >= hi {
            return None;
        }
        if lo + 1 < hi && *self.tk(lo + 1) == Tk::Under {
            let s = lo + 2;
            if s >= hi {
                return None;
            }
            if *self.tk(s) == Tk::LBrace {
                let m = self.mate[s];
                return (m != NONE && (m as usize) < hi).then_some(m as usize + 1);
            }
            return Some(s + 1);
        }
        Some(lo + 1)
    }

    /// A number or formula with its currency or unit.
    fn scalar(&mut self, lo: usize, hi: usize) -> Result<Value, String> {
        let mut lo = lo;
        let mut negative = false;
        if *self.tk(lo) == Tk::Minus && units::prefix(&self.t[lo + 1..hi]).is_some() {
            negative = true;
            lo += 1;
        }
        let prefix = units::prefix(&self.t[lo..hi]).map(|(u, n)| {
            lo += n;
            u
        });
        if lo == hi {
            return Err("a currency without an amount".into());
        }
        // The whole as a closed formula first (`\sin 30^\circ` is not 30 degrees of `\sin`),
        // then with a unit peeled off the end (`5 cm` is not 5 times c times m).
        let whole = expr::parse(&self.t[lo..hi]);
        if let Ok(ast) = &whole
            && ast.closed()
        {
            return number(ast, negative, prefix.map(Into::into));
        }
        let longest = (hi - lo - 1).min(6);
        for k in (1..=longest).rev() {
            let Some(unit) = units::suffix(&self.t[hi - k..hi]) else {
                continue;
            };
            if let Ok(ast) = expr::parse(&self.t[lo..hi - k])
                && ast.closed()
            {
                let unit = match prefix {
                    Some(p) if p != unit => return Err(format!("two units, `{p}` and `{unit}`")),
                    _ => unit,
                };
                let with_unit = number(&ast, negative, Some(unit.into()))?;
                // `5m`: a letter run into the number is also a product (5 times m).
                let last = &self.t[hi - 1];
                if k == 1
                    && prefix.is_none()
                    && matches!(last.tk, Tk::Letter(_))
                    && !last.space
                    && !last.text
                    && let Ok(product) = &whole
                    && !product.has_pm()
                {
                    return Ok(Value::GluedUnit {
                        with_unit: Box::new(with_unit),
                        product: Box::new(Value::Formula(product.clone(), 1)),
                    });
                }
                return Ok(with_unit);
            }
        }
        // Two words in a row (`We have`) are a sentence, never a product of variables.
        if self.t[lo..hi]
            .windows(2)
            .any(|w| matches!((&w[0].tk, &w[1].tk), (Tk::Word(_), Tk::Word(_))) && w[1].space && !w[1].text)
        {
            return Err("a sentence, not an answer".into());
        }
        let ast = whole?;
        if prefix.is_some() {
            return Err("a currency before a formula with variables".into());
        }
        if ast.has_pm() {
            return Ok(Value::Set(vec![
                Value::Formula(ast.clone(), 1),
                Value::Formula(ast, -1),
            ]));
        }
        Ok(Value::Formula(ast, 1))
    }

    /// A multiple-choice letter.
    fn choice(&self, lo: usize, hi: usize) -> Option<char> {
        let mut lo = lo;
        if hi - lo >= 2
            && let Tk::Word(w) = self.tk(lo)
            && ["option", "choice", "answer"]
                .iter()
                .any(|n| w.eq_ignore_ascii_case(n))
        {
            lo += 1;
            if *self.tk(lo) == Tk::Colon && hi - lo >= 2 {
                lo += 1;
            }
        }
        let n = hi - lo;
        let at = |k: usize| if k < n { Some(self.tk(lo + k)) } else { None };
        let upper_first = |c: &char| c.is_ascii_uppercase();
        match (at(0), at(1), at(2)) {
            (Some(Tk::Letter(c)), None, _) => Some(c.to_ascii_uppercase()),
            (Some(Tk::LParen), Some(Tk::Letter(c)), Some(Tk::RParen))
            | (Some(Tk::LBrack), Some(Tk::Letter(c)), Some(Tk::RBrack))
                if n == 3 || (n > 3 && upper_first(c) && *self.tk(lo) == Tk::LParen) =>
            {
                Some(c.to_ascii_uppercase())
            }
            (Some(Tk::Letter(c)), Some(Tk::RParen | Tk::Colon), _) if n == 2 => Some(c.to_ascii_uppercase()),
            // `B) text`, `B: text`; a colon with no space after it joins a ratio (`A:B = 1`).
            (Some(Tk::Letter(c)), Some(Tk::RParen), Some(_)) if upper_first(c) => Some(*c),
            (Some(Tk::Letter(c)), Some(Tk::Colon), Some(_)) if upper_first(c) && self.t[lo + 2].space => {
                Some(*c)
            }
            _ => None,
        }
    }

    /// Words and punctuation only, with at least one word of two or more letters (commas and
    /// semicolons are left to split a list of words).
    fn texty(&self, lo: usize, hi: usize) -> bool {
        let mut long_word = false;
        for i in lo..hi {
            match self.tk(i) {
                Tk::Word(w) => {
                    if is_math_name(w) {
                        return false;
                    }
                    long_word = true;
                }
                Tk::Letter(_) | Tk::Sym(_) | Tk::Dot | Tk::Prime | Tk::Colon | Tk::Bang => {}
                Tk::Minus => {
                    // A hyphen inside a word (`x-ray`, `well-known`), not a subtraction.
                    let joined = |j: usize| matches!(self.t.get(j).map(|t| &t.tk), Some(Tk::Word(_)));
                    let next_tight = self.t.get(i + 1).is_some_and(|t| !t.space);
                    if i == lo || self.t[i].space || !next_tight || !(joined(i - 1) || joined(i + 1)) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        long_word
    }

    /// Whether `lo..hi` is a short phrase (at most [`MAX_PROSE_WORDS`] words, numbers and
    /// signs, no operator, relation or sentence break) with a word that is neither a unit nor a math name. A longer text, such as a worked
    /// solution, is not an answer.
    fn prose(&self, lo: usize, hi: usize) -> bool {
        let t = &self.t[lo..hi];
        let words = t.iter().filter(|t| matches!(t.tk, Tk::Word(_))).count();
        let plain = t.iter().enumerate().all(|(k, t)| match t.tk {
            Tk::Word(_) | Tk::Letter(_) | Tk::Num(_) | Tk::Percent | Tk::Dollar | Tk::Currency(_) => true,
            Tk::Degree | Tk::Sym(_) | Tk::Prime => true,
            Tk::Minus | Tk::Plus => k == 0,
            _ => false,
        });
        words <= MAX_PROSE_WORDS
            && plain
            && t.iter().any(|t| match &t.tk {
                Tk::Word(w) => !units::is_unit_word(w) && !is_math_name(w),
                _ => false,
            })
    }

    /// `lo..hi` as normalised text: lower case, one space between words where any was written,
    /// none around punctuation, no leading article.
    fn render(&self, lo: usize, hi: usize) -> String {
        let mut start = lo;
        if hi - lo >= 2 {
            let next_is_word = matches!(self.tk(lo + 1), Tk::Word(_));
            let article = match self.tk(lo) {
                Tk::Word(w) => w.eq_ignore_ascii_case("the") || w.eq_ignore_ascii_case("an"),
                Tk::Letter('a' | 'A') => next_is_word,
                _ => false,
            };
            if article {
                start += 1;
            }
        }
        let mut s = String::new();
        let mut prev_wordy = false;
        for tok in &self.t[start..hi] {
            let wordy = matches!(tok.tk, Tk::Word(_) | Tk::Letter(_) | Tk::Greek(_) | Tk::Num(_));
            if wordy && prev_wordy && tok.space {
                s.push(' ');
            }
            match &tok.tk {
                Tk::Word(w) => s.extend(w.chars().flat_map(char::to_lowercase)),
                Tk::Letter(c) => s.push(c.to_ascii_lowercase()),
                Tk::Greek(g) => s.push_str(g),
                Tk::Num(n) => n.render(&mut s),
                Tk::Rational(n, d) => s.push_str(&format!("{n}/{d}")),
                Tk::Sym(c) | Tk::Currency(c) => s.push(*c),
                Tk::Fn(_) => s.push_str("\\fn"),
                other => s.push_str(symbol(other)),
            }
            prev_wordy = wordy;
        }
        s
    }
}

/// A list whose items all name their values, with a name repeated (`x = 1, x = 2`;
/// `p=5,q=2;p=7,q=2`), as the solutions it lists: a new solution starts where a name repeats;
/// each solution of several names is the tuple of its values in the names' alphabetical order
/// (`(p, q)`, `(x, y)`), a solution of one name is its value. Any other list is a set of its
/// items (`x = 1, y = 2` stays named values).
fn named_groups(items: Vec<Value>) -> Value {
    if items.len() < 2 || !items.iter().all(|v| matches!(v, Value::Named(..))) {
        return Value::Set(items);
    }
    let name = |v: &Value| match v {
        Value::Named(n, _) => Some(n.clone()),
        _ => None,
    };
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    if items.iter().filter_map(name).all(|n| seen.insert(n)) {
        // One solution: kept as named values (it also equals the tuple of its values in the
        // names' order, see `equal`).
        return Value::Set(items);
    }
    let mut groups: Vec<Vec<(Box<str>, Value)>> = vec![Vec::new()];
    seen.clear();
    for v in items {
        let Value::Named(n, v) = v else { continue };
        if !seen.insert(n.clone()) {
            groups.push(Vec::new());
            seen.clear();
            seen.insert(n.clone());
        }
        if let Some(g) = groups.last_mut() {
            g.push((n, *v));
        }
    }
    let mut solutions = Vec::with_capacity(groups.len());
    for mut g in groups {
        g.sort_by(|a, b| a.0.cmp(&b.0));
        if g.len() == 1 {
            solutions.extend(g.into_iter().map(|(_, v)| v));
        } else {
            solutions.push(Value::Seq {
                open: Bracket::Paren,
                close: Bracket::Paren,
                items: g.into_iter().map(|(_, v)| v).collect(),
            });
        }
    }
    match solutions.len() {
        1 => solutions.pop().unwrap_or(Value::Set(Vec::new())),
        _ => Value::Set(solutions),
    }
}

/// The value of a closed formula (two values for `a ± b`), with its unit.
fn number(ast: &Ast, negative: bool, unit: Option<Box<str>>) -> Result<Value, String> {
    let one = |pm: i8| -> Result<Value, String> {
        let x = ast.value(pm)?;
        Ok(Value::Num {
            x: if negative { x.neg() } else { x },
            unit: unit.clone(),
        })
    };
    if ast.has_pm() {
        return Ok(Value::Set(vec![one(1)?, one(-1)?]));
    }
    one(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> &'static str {
        match read(s) {
            Ok(Value::Num { .. }) => "num",
            Ok(Value::Formula(..)) => "formula",
            Ok(Value::Ratio(_)) => "ratio",
            Ok(Value::Choice(_)) => "choice",
            Ok(Value::Text(_)) => "text",
            Ok(Value::Seq { .. }) => "seq",
            Ok(Value::Set(_)) => "set",
            Ok(Value::Union(_)) => "union",
            Ok(Value::Matrix(_)) => "matrix",
            Ok(Value::Relation { .. }) => "relation",
            Ok(Value::Named(..)) => "named",
            Ok(Value::CommaDecimal { .. }) => "comma-decimal",
            Ok(Value::Assigned { .. }) => "assigned",
            Ok(Value::GluedUnit { .. }) => "glued-unit",
            Err(_) => "unreadable",
        }
    }

    #[test]
    fn classes() {
        let cases = [
            ("42", "num"),
            ("\\$5", "num"),
            ("2x+1", "formula"),
            ("(B)", "choice"),
            ("option c", "choice"),
            ("(B) 42", "choice"),
            ("Blue whale", "text"),
            ("(1, 2)", "seq"),
            ("[0, 1)", "seq"),
            ("\\{1, 2\\}", "set"),
            ("1, 2", "set"),
            ("2 \\pm \\sqrt{3}", "set"),
            ("[0,1) \\cup (2,3]", "union"),
            ("\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", "matrix"),
            (
                "2\\begin{pmatrix} 1 \\end{pmatrix} + \\begin{pmatrix} 2 \\end{pmatrix}",
                "matrix",
            ),
            ("\\begin{pmatrix} 1 \\end{pmatrix} cm", "unreadable"),
            ("0 < x \\le 1", "seq"),
            ("x^2 + y^2 = 1", "relation"),
            ("11:21", "ratio"),
            ("1,22", "comma-decimal"),
            ("1, 22", "set"),
            ("1,234", "num"),
            ("V_1:V_2 = 11:21", "ratio"),
            ("x = 5", "assigned"),
            ("x = 1, 2", "set"),
            ("A:B = 1", "num"),
            ("A: 1", "choice"),
            ("5 or 7", "set"),
            ("about 12", "text"),
            ("", "unreadable"),
            ("1 + * 2", "unreadable"),
            ("[1, 2, 3)", "unreadable"),
            ("(1, 2", "unreadable"),
            ("x \\approx 3", "num"),
            ("x < 1 \\approx 3", "unreadable"),
        ];
        for (s, want) in cases {
            assert_eq!(kind(s), want, "{s:?}");
        }
    }

    #[test]
    fn named_lists_are_solutions() {
        match read("x = 1, y = 2") {
            Ok(Value::Set(items)) => assert!(matches!(&items[1], Value::Named(n, _) if &**n == "y")),
            other => panic!("{other:?}"),
        }
        match read("p=5,q=2;p=7,q=2") {
            Ok(Value::Set(items)) => {
                assert_eq!(items.len(), 2);
                assert!(items.iter().all(|v| matches!(v, Value::Seq { .. })));
            }
            other => panic!("{other:?}"),
        }
        match read("x = 1, 2") {
            Ok(Value::Set(items)) => assert!(matches!(&items[0], Value::Named(n, _) if &**n == "x")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn text_is_normalised() {
        assert_eq!(
            read("The  Blue Whale.").ok(),
            Some(Value::Text("blue whale".into()))
        );
        assert_eq!(
            read("\\text{well-known}").ok(),
            Some(Value::Text("well-known".into()))
        );
    }
}

//! Formulas: a recursive-descent parser from tokens to a small arena of nodes, and its
//! evaluator. Closed forms (`3\sqrt{3}`, `\frac{\pi}{4}`, `e^2`, `2^{10}`, `\binom{5}{2}`) are
//! evaluated once to a [`Real`]; formulas with variables (`2x+1`, `\pi r^2`) are kept and
//! evaluated at fixed points when compared.
//!
//! Reading conventions: implicit multiplication binds like `\cdot` and runs left to right
//! (`3\pi/4` is (3π)/4, `1/2x` is x/2); `-2^2` is −4; `a^b^c` is a^(b^c); `2^10` is 1024 (a
//! plain-text exponent takes the whole number); `\frac12` and `\sqrt2` take one digit per
//! argument as in LaTeX; a whole number followed by a fraction of whole numbers is a mixed
//! number (`2\frac{1}{2}` is 2.5); `\log` is base 10, `\ln` is natural; `e` is Euler's number;
//! `30^\circ` inside a trigonometric argument is in degrees. Two bare numbers in a row
//! (`2 3`) are an error, never a product. `⊕` and `⊗` join sums (left to right), and
//! `\min`/`\max` of formulas with variables are kept as operations compared structurally
//! (see [`Node::Opaque`]); a subscript after a power (`a^3_1`) belongs to the variable.
//! Recursion is bounded by [`MAX_DEPTH`].

use super::lexer::{Func, NumLit, Tk, Token};
use super::number::{Q, Real};

mod complex;

pub(super) use complex::Complex;

/// The deepest nesting a formula may have.
pub(super) const MAX_DEPTH: u32 = 96;
/// The most distinct variables a formula may name.
const MAX_VARS: usize = 16;

/// How a term joins a sum or a factor a product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Pm,
    Mp,
    Mul,
    Div,
}

/// One node of a formula.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Lit(Real),
    Var(u16),
    Neg(u32),
    /// Terms `kids[start..start+len]`, each with `Add`, `Sub`, `Pm` or `Mp`.
    Sum(u32, u32),
    /// Factors `kids[start..start+len]`, each with `Mul` or `Div`.
    Prod(u32, u32),
    Pow(u32, u32),
    /// `Root(index, radicand)`.
    Root(u32, u32),
    Fact(u32),
    Binom(u32, u32),
    Abs(u32),
    Func(Func, u32),
    /// `LogBase(base, argument)`.
    LogBase(u32, u32),
    /// A value in degrees, read as radians.
    Degrees(u32),
    /// `\min` (false) or `\max` (true) of the numbers `kids[start..start+len]`.
    MinMax(bool, u32, u32),
    /// An operation the reader does not evaluate, applied to `kids[start..start+len]`: `⊕`,
    /// `⊗`, or `\min`/`\max` of formulas with variables. Its value at a point stands for
    /// "this operation of these values" (see [`opaque`]), so two of them agree where the
    /// operations and their arguments' values do.
    Opaque(Opaque, u32, u32),
}

/// An operation compared structurally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opaque {
    Oplus,
    Otimes,
    /// `\min` of formulas: its arguments in any order.
    Min,
    /// `\max` of formulas: its arguments in any order.
    Max,
}

impl Opaque {
    fn symmetric(self) -> bool {
        matches!(self, Opaque::Min | Opaque::Max)
    }
}

/// A parsed formula.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Ast {
    nodes: Vec<Node>,
    kids: Vec<(Op, u32)>,
    vars: Vec<Box<str>>,
    root: u32,
    /// Whether the formula has a `±` term (once, anywhere).
    has_pm: bool,
}

/// Where evaluation reads variables and the sign of `±`.
struct Env<'a> {
    vars: &'a [Real],
    pm: i8,
}

impl Ast {
    /// The variables the formula names, in order of first appearance.
    pub(super) fn vars(&self) -> &[Box<str>] {
        &self.vars
    }

    /// Whether it takes a factorial (`n!`): defined at whole numbers only.
    pub(super) fn has_factorial(&self) -> bool {
        self.nodes.iter().any(|n| matches!(n, Node::Fact(_)))
    }

    /// Whether the formula is a closed value: no variables and no operation compared
    /// structurally (`3 \oplus 5` is kept as a formula, never a number).
    pub(super) fn closed(&self) -> bool {
        self.vars.is_empty() && !self.nodes.iter().any(|n| matches!(n, Node::Opaque(..)))
    }

    /// The number of nodes (a measure of evaluation cost).
    pub(super) fn size(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the formula has a `±` (so two values).
    pub(super) fn has_pm(&self) -> bool {
        self.has_pm
    }

    /// The exact value of a closed formula (no variables); `pm` picks the sign of `±`.
    pub(super) fn value(&self, pm: i8) -> Result<Real, String> {
        let r = self.eval(self.root, &Env { vars: &[], pm })?;
        r.check()?;
        Ok(r)
    }

    /// The value at a point (`vars` in the order of [`Ast::vars`]; `pm` the sign of `±`),
    /// exact where the arithmetic stays rational; `None` where the formula is undefined there.
    pub(super) fn at(&self, vars: &[Real], pm: i8) -> Option<Real> {
        let r = self.eval(self.root, &Env { vars, pm }).ok()?;
        r.f.is_finite().then_some(r)
    }

    /// The values of the arguments `kids[start..start+len]`, each by `eval`.
    fn args<T>(
        &self,
        start: u32,
        len: u32,
        eval: impl Fn(u32) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        self.kids[start as usize..(start + len) as usize]
            .iter()
            .map(|&(_, k)| eval(k))
            .collect()
    }

    fn eval(&self, id: u32, env: &Env<'_>) -> Result<Real, String> {
        let r = match &self.nodes[id as usize] {
            Node::Lit(r) => r.clone(),
            Node::Var(v) => env
                .vars
                .get(*v as usize)
                .cloned()
                .unwrap_or_else(|| Real::float(f64::NAN)),
            Node::Neg(a) => self.eval(*a, env)?.neg(),
            Node::Sum(start, len) => {
                let mut acc: Option<Real> = None;
                for &(op, k) in &self.kids[*start as usize..(*start + *len) as usize] {
                    let v = self.eval(k, env)?;
                    let minus = match op {
                        Op::Sub => true,
                        Op::Pm => env.pm < 0,
                        Op::Mp => env.pm > 0,
                        _ => false,
                    };
                    let v = if minus { v.neg() } else { v };
                    acc = Some(match acc {
                        None => v,
                        Some(a) => a.add(&v)?,
                    });
                }
                acc.unwrap_or_else(|| Real::int(0))
            }
            Node::Prod(start, len) => {
                let mut acc: Option<Real> = None;
                for &(op, k) in &self.kids[*start as usize..(*start + *len) as usize] {
                    let v = self.eval(k, env)?;
                    acc = Some(match (acc, op) {
                        (None, Op::Div) => Real::int(1).div(&v)?,
                        (None, _) => v,
                        (Some(a), Op::Div) => a.div(&v)?,
                        (Some(a), _) => a.mul(&v)?,
                    });
                }
                acc.unwrap_or_else(|| Real::int(1))
            }
            Node::Pow(b, e) => self.eval(*b, env)?.pow(&self.eval(*e, env)?)?,
            Node::Root(k, x) => self.eval(*x, env)?.root(&self.eval(*k, env)?)?,
            Node::Fact(a) => factorial(&self.eval(*a, env)?)?,
            Node::Binom(n, k) => binomial(&self.eval(*n, env)?, &self.eval(*k, env)?)?,
            Node::Abs(a) => {
                let v = self.eval(*a, env)?;
                if v.f < 0.0 { v.neg() } else { v }
            }
            Node::Func(f, a) => apply(*f, &self.eval(*a, env)?)?,
            Node::LogBase(b, a) => log_base(&self.eval(*b, env)?, &self.eval(*a, env)?)?,
            Node::Degrees(a) => Real::float(self.eval(*a, env)?.f.to_radians()),
            Node::MinMax(max, start, len) => extreme(*max, self.args(*start, *len, |k| self.eval(k, env))?)?,
            Node::Opaque(op, start, len) => opaque(*op, &mut self.args(*start, *len, |k| self.eval(k, env))?),
        };
        if r.f.is_nan() {
            return Err("not a real number".into());
        }
        Ok(r)
    }
}

/// The least (or, `max`, the greatest) of `vals`; the first of equal ones.
fn extreme(max: bool, vals: Vec<Real>) -> Result<Real, String> {
    let mut best: Option<Real> = None;
    for v in vals {
        best = Some(match best {
            Some(b) if (v.f > b.f) != max || v.f == b.f => b,
            _ => v,
        });
    }
    best.ok_or_else(|| "`\\min` or `\\max` of nothing".into())
}

/// The value standing for `op` applied to `args` at one point: a float in [10⁶, 2·10⁶) drawn
/// from a hash of the operation and its arguments' values (exact rationals as such, others to
/// nine significant digits; sorted first for a symmetric operation). Equal operations of equal
/// arguments agree; anything else agrees with it only by a coincidence of one in about 10⁹ per
/// point, and no plain number a candidate writes is near it.
fn opaque(op: Opaque, args: &mut [Real]) -> Real {
    if op.symmetric() {
        args.sort_by(|a, b| a.f.total_cmp(&b.f));
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ op as u64;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for a in args.iter() {
        match a.exact() {
            Some(q) => eat(format!("q{q:?}").as_bytes()),
            None => eat(format!("f{:.8e}", a.f).as_bytes()),
        }
        eat(b";");
    }
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 32;
    Real::float(1e6 * (1.0 + (h >> 11) as f64 / (1u64 << 53) as f64))
}

/// `\log_b a`.
fn log_base(b: &Real, a: &Real) -> Result<Real, String> {
    if b.f <= 0.0 || b.f == 1.0 || a.f <= 0.0 {
        return Err("logarithm outside its domain".into());
    }
    Ok(Real::float(a.f.ln() / b.f.ln()))
}

fn factorial(x: &Real) -> Result<Real, String> {
    let n = x
        .as_int()
        .filter(|n| (0..=170).contains(n))
        .ok_or("factorial of something other than a whole number from 0 to 170")?;
    let mut exact = Some(Q::int(1));
    let mut f = 1f64;
    for i in 2..=n {
        f *= i as f64;
        exact = exact.and_then(|q| q.as_int()?.checked_mul(i)).map(Q::int);
    }
    Ok(match exact {
        Some(q) => Real::rational(q),
        None => Real::float(f),
    })
}

fn binomial(n: &Real, k: &Real) -> Result<Real, String> {
    let Some(k) = k.as_int() else {
        return Err("a binomial coefficient whose lower index is not a whole number".into());
    };
    let Some(n) = n.as_int() else {
        // `\binom{x}{k}` = x(x-1)…(x-k+1)/k! for any x (formulas at points).
        if !(0..=64).contains(&k) {
            return Err("a binomial coefficient too large to evaluate".into());
        }
        let mut acc = Real::int(1);
        for i in 0..k {
            acc = acc.mul(&n.add(&Real::int(-i))?)?.div(&Real::int(i + 1))?;
        }
        return Ok(acc);
    };
    if n < 0 || k < 0 || k > n {
        return Ok(Real::int(0));
    }
    let k = k.min(n - k);
    if k > 10_000 {
        return Err("binomial coefficient too large to evaluate".into());
    }
    let mut exact: Option<i128> = Some(1);
    let mut f = 1f64;
    for i in 0..k {
        f = f * (n - i) as f64 / (i + 1) as f64;
        exact = exact.and_then(|e| e.checked_mul(n - i)).map(|e| e / (i + 1));
    }
    Ok(match exact {
        Some(e) => Real::int(e),
        None => Real::float(f.round()),
    })
}

fn apply(f: Func, x: &Real) -> Result<Real, String> {
    let v = x.f;
    let out = match f {
        Func::Sin => v.sin(),
        Func::Cos => v.cos(),
        Func::Tan => v.tan(),
        Func::Sec => 1.0 / v.cos(),
        Func::Csc => 1.0 / v.sin(),
        Func::Cot => 1.0 / v.tan(),
        Func::Asin => v.asin(),
        Func::Acos => v.acos(),
        Func::Atan => v.atan(),
        Func::Sinh => v.sinh(),
        Func::Cosh => v.cosh(),
        Func::Tanh => v.tanh(),
        Func::Ln if v > 0.0 => v.ln(),
        Func::Log if v > 0.0 => v.log10(),
        Func::Ln | Func::Log => return Err("logarithm outside its domain".into()),
        Func::Exp => v.exp(),
        Func::Min | Func::Max => return Err("`\\min` or `\\max` without its arguments".into()),
    };
    if !out.is_finite() {
        return Err("not a real number".into());
    }
    Ok(Real::float(out))
}

/// English words that are never read as products of variables.
const RESERVED: &[&str] = &[
    "and", "or", "of", "not", "no", "nor", "is", "are", "the", "an", "to", "for", "if", "as", "at", "by",
    "on", "so", "with", "then", "than", "but", "from", "all", "any", "only", "none", "both", "each", "when",
    "yes", "true", "false", "per", "none", "also", "else", "its", "it", "be",
];

/// Whether `w` is an English word the reader never takes for variables.
pub(super) fn is_reserved(w: &str) -> bool {
    RESERVED.iter().any(|r| r.eq_ignore_ascii_case(w))
}

/// A word that names something in a formula (`pi`, `sqrt`, `sin`, `infinity`).
pub(super) fn is_math_name(w: &str) -> bool {
    let w = w.to_ascii_lowercase();
    matches!(w.as_str(), "pi" | "inf" | "infinity" | "sqrt") || Func::from_name(&w).is_some()
}

/// `src` lexed and parsed as one formula, if it reads as one (`i`, `xy`).
pub(super) fn formula(src: &str) -> Option<Ast> {
    parse(&super::lexer::lex(src).ok()?).ok()
}

/// Parses `toks` as one formula.
pub(super) fn parse(toks: &[Token]) -> Result<Ast, String> {
    let mut p = Parser {
        t: toks,
        pos: 0,
        skip: 0,
        depth: 0,
        abs: 0,
        angle: 0,
        late: None,
        ast: Ast {
            nodes: Vec::with_capacity(toks.len() + 1),
            kids: Vec::new(),
            vars: Vec::new(),
            root: 0,
            has_pm: false,
        },
        scratch: Vec::new(),
    };
    let root = p.sum()?;
    if p.pos < toks.len() {
        return Err(format!("unexpected {} in a formula", describe(&toks[p.pos].tk)));
    }
    p.ast.root = root;
    Ok(p.ast)
}

/// A short description of a token for messages.
pub(super) fn describe(tk: &Tk) -> String {
    match tk {
        Tk::Num(n) => {
            let mut s = String::from("number `");
            n.render(&mut s);
            s.push('`');
            s
        }
        Tk::Letter(c) => format!("`{c}`"),
        Tk::Rational(n, d) => format!("number `{n}/{d}`"),
        Tk::Word(w) => format!("word `{w}`"),
        Tk::Sym(c) => format!("`{c}`"),
        other => format!("`{}`", symbol(other)),
    }
}

/// How a token is written, for messages and text comparison.
pub(super) fn symbol(tk: &Tk) -> &'static str {
    match tk {
        Tk::Plus => "+",
        Tk::Minus => "-",
        Tk::Pm => "±",
        Tk::Mp => "∓",
        Tk::Times => "×",
        Tk::Div => "/",
        Tk::Caret => "^",
        Tk::Under => "_",
        Tk::LParen => "(",
        Tk::RParen => ")",
        Tk::LBrack => "[",
        Tk::RBrack => "]",
        Tk::LBrace => "{",
        Tk::RBrace => "}",
        Tk::LSet => "\\{",
        Tk::RSet => "\\}",
        Tk::LAngle => "⟨",
        Tk::RAngle => "⟩",
        Tk::Comma => ",",
        Tk::Semi => ";",
        Tk::Colon => ":",
        Tk::Dot => ".",
        Tk::Bang => "!",
        Tk::Bar => "|",
        Tk::Eq => "=",
        Tk::Ne => "≠",
        Tk::Lt => "<",
        Tk::Gt => ">",
        Tk::Le => "≤",
        Tk::Ge => "≥",
        Tk::Approx => "≈",
        Tk::In => "∈",
        Tk::Cup => "∪",
        Tk::Percent => "%",
        Tk::Dollar => "$",
        Tk::Degree => "°",
        Tk::Prime => "'",
        Tk::Amp => "&",
        Tk::RowSep => "\\\\",
        Tk::Ellipsis => "…",
        Tk::Quad => "\\quad",
        Tk::Infty => "∞",
        Tk::Pi => "π",
        Tk::Frac => "\\frac",
        Tk::Binom => "\\binom",
        Tk::Sqrt => "\\sqrt",
        Tk::Fn(_) => "function",
        Tk::MatBegin => "\\begin",
        Tk::MatEnd => "\\end",
        Tk::Num(_)
        | Tk::Rational(..)
        | Tk::Letter(_)
        | Tk::Word(_)
        | Tk::Sym(_)
        | Tk::Greek(_)
        | Tk::Currency(_) => "",
    }
}

struct Parser<'t> {
    t: &'t [Token],
    pos: usize,
    /// Digits of the number at `pos` already taken as one-digit arguments (`\frac12`).
    skip: usize,
    depth: u32,
    /// Open `|…|` groups (a `|` then closes rather than opens).
    abs: u32,
    /// Open trigonometric arguments (where `^\circ` means degrees).
    angle: u32,
    /// A subscript written after its variable's power (`a^3_1`), already read into the
    /// variable's name: where it starts and ends, for the power to step over.
    late: Option<(usize, usize)>,
    ast: Ast,
    scratch: Vec<(Op, u32)>,
}

impl<'t> Parser<'t> {
    fn peek(&self) -> Option<&'t Tk> {
        self.t.get(self.pos).map(|t| &t.tk)
    }

    fn peek_at(&self, k: usize) -> Option<&'t Tk> {
        self.t.get(self.pos + k).map(|t| &t.tk)
    }

    fn bump(&mut self) {
        self.pos += 1;
        self.skip = 0;
    }

    fn node(&mut self, n: Node) -> u32 {
        self.ast.nodes.push(n);
        (self.ast.nodes.len() - 1) as u32
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} deep"));
        }
        Ok(())
    }

    fn expect(&mut self, tk: &Tk) -> Result<(), String> {
        match self.peek() {
            Some(t) if t == tk => {
                self.bump();
                Ok(())
            }
            Some(t) => Err(format!("expected `{}` but found {}", symbol(tk), describe(t))),
            None => Err(format!("expected `{}` at the end", symbol(tk))),
        }
    }

    fn collect(&mut self, mark: usize, make: fn(u32, u32) -> Node) -> u32 {
        let start = self.ast.kids.len() as u32;
        let len = (self.scratch.len() - mark) as u32;
        self.ast.kids.extend(self.scratch.drain(mark..));
        self.node(make(start, len))
    }

    /// Sums joined by `⊕` or `⊗` (left to right, looser than `+`): operations compared
    /// structurally.
    fn sum(&mut self) -> Result<u32, String> {
        let mut left = self.plain_sum()?;
        while let Some(Tk::Sym(c @ ('⊕' | '⊗'))) = self.peek() {
            let op = if *c == '⊕' {
                Opaque::Oplus
            } else {
                Opaque::Otimes
            };
            self.bump();
            let right = self.plain_sum()?;
            let start = self.ast.kids.len() as u32;
            self.ast.kids.push((Op::Mul, left));
            self.ast.kids.push((Op::Mul, right));
            left = self.node(Node::Opaque(op, start, 2));
        }
        Ok(left)
    }

    /// A sum of terms; `±` (or `∓`) may join one term of one sum in the whole formula
    /// (`\frac{-1 \pm \sqrt5}{2}`), which then has two values.
    fn plain_sum(&mut self) -> Result<u32, String> {
        self.enter()?;
        let sign = |tk: Option<&Tk>| match tk {
            Some(Tk::Plus) => Some(Op::Add),
            Some(Tk::Minus) => Some(Op::Sub),
            Some(Tk::Pm) => Some(Op::Pm),
            Some(Tk::Mp) => Some(Op::Mp),
            _ => None,
        };
        let mut op = match sign(self.peek()) {
            Some(o) => {
                self.bump();
                o
            }
            None => Op::Add,
        };
        // The scratch mark, once a second term shows this is a real sum.
        let mut mark = None;
        loop {
            if matches!(op, Op::Pm | Op::Mp) {
                if self.ast.has_pm {
                    return Err("`±` is read only once in an answer".into());
                }
                self.ast.has_pm = true;
            }
            let t = self.term()?;
            let next = sign(self.peek());
            if mark.is_none() && next.is_none() && matches!(op, Op::Add | Op::Sub) {
                self.depth -= 1;
                return Ok(if op == Op::Sub { self.node(Node::Neg(t)) } else { t });
            }
            mark.get_or_insert(self.scratch.len());
            self.scratch.push((op, t));
            match next {
                Some(o) => {
                    op = o;
                    self.bump();
                }
                None => break,
            }
        }
        self.depth -= 1;
        Ok(self.collect(mark.unwrap_or(self.scratch.len()), Node::Sum))
    }

    /// A product of factors, explicit (`\cdot`, `/`) or implicit.
    fn term(&mut self) -> Result<u32, String> {
        let first_int = self.skip == 0 && matches!(self.peek(), Some(Tk::Num(n)) if n.is_plain_int());
        let first = self.unary()?;
        if !self
            .peek()
            .is_some_and(|tk| matches!(tk, Tk::Times | Tk::Div) || self.starts_factor(tk))
        {
            return Ok(first);
        }
        let mark = self.scratch.len();
        self.scratch.push((Op::Mul, first));
        let mut last_bare_number = self.is_bare_number(first);
        loop {
            let (op, f) = match self.peek() {
                Some(Tk::Times) => {
                    self.bump();
                    (Op::Mul, self.unary()?)
                }
                Some(Tk::Div) => {
                    self.bump();
                    (Op::Div, self.unary()?)
                }
                Some(tk) if self.starts_factor(tk) => {
                    if first_int && self.scratch.len() - mark == 1 && self.proper_fraction_ends_term() {
                        // A mixed number: `2 3/4` is 2 + 3/4 (`-2 3/4` is -(2 + 3/4)).
                        self.scratch.truncate(mark);
                        return Ok(self.mixed(first));
                    }
                    if last_bare_number && matches!(tk, Tk::Num(_)) {
                        return Err("two numbers in a row".into());
                    }
                    (Op::Mul, self.power()?)
                }
                _ => break,
            };
            last_bare_number = self.is_bare_number(f);
            self.scratch.push((op, f));
        }
        if self.scratch.len() - mark == 1 {
            let (_, only) = self.scratch.pop().unwrap_or((Op::Mul, 0));
            return Ok(only);
        }
        Ok(self.collect(mark, Node::Prod))
    }

    /// Whether the next tokens are `a / b`, whole numbers with `a < b`, and end the term: the
    /// fraction of a mixed number (`2 3/4`).
    fn proper_fraction_ends_term(&self) -> bool {
        // A whole number's digits without leading zeros: compared by length, then by digit.
        let int = |k: usize| match self.peek_at(k) {
            Some(Tk::Num(n)) if n.is_plain_int() => {
                let d = n.digits.trim_start_matches('0');
                Some((d.len(), d))
            }
            _ => None,
        };
        let ends = match self.peek_at(3) {
            None => true,
            Some(tk) => !(matches!(tk, Tk::Times | Tk::Div | Tk::Caret) || self.starts_factor(tk)),
        };
        self.skip == 0
            && matches!(self.peek_at(1), Some(Tk::Div))
            && matches!((int(0), int(2)), (Some(a), Some(b)) if a < b)
            && ends
    }

    /// `whole + a/b` from the tokens `a / b` that [`Parser::proper_fraction_ends_term`] saw.
    fn mixed(&mut self, whole: u32) -> u32 {
        let a = self.number_rest();
        self.bump();
        let b = self.number_rest();
        let mark = self.scratch.len();
        self.scratch.push((Op::Mul, a));
        self.scratch.push((Op::Div, b));
        let frac = self.collect(mark, Node::Prod);
        let mark = self.scratch.len();
        self.scratch.push((Op::Add, whole));
        self.scratch.push((Op::Add, frac));
        self.collect(mark, Node::Sum)
    }

    fn is_bare_number(&self, id: u32) -> bool {
        matches!(self.ast.nodes[id as usize], Node::Lit(_))
    }

    /// Whether `tk` can begin an implicit factor.
    fn starts_factor(&self, tk: &Tk) -> bool {
        match tk {
            Tk::Num(_)
            | Tk::Rational(..)
            | Tk::Letter(_)
            | Tk::Greek(_)
            | Tk::Word(_)
            | Tk::Pi
            | Tk::Frac
            | Tk::Sqrt
            | Tk::Binom
            | Tk::Fn(_)
            | Tk::LParen
            | Tk::LBrace => true,
            Tk::Bar => self.abs == 0,
            _ => false,
        }
    }

    fn unary(&mut self) -> Result<u32, String> {
        self.enter()?;
        let r = match self.peek() {
            Some(Tk::Minus) => {
                self.bump();
                let a = self.unary()?;
                Ok(self.node(Node::Neg(a)))
            }
            Some(Tk::Plus) => {
                self.bump();
                self.unary()
            }
            _ => self.power(),
        };
        self.depth -= 1;
        r
    }

    fn power(&mut self) -> Result<u32, String> {
        let base = self.postfix()?;
        if self.peek() != Some(&Tk::Caret) {
            return Ok(base);
        }
        self.bump();
        if self.degree_mark() {
            return self.degrees(base);
        }
        let e = self.exponent()?;
        if let Some((from, to)) = self.late
            && from == self.pos
        {
            self.pos = to;
            self.skip = 0;
            self.late = None;
        }
        Ok(self.node(Node::Pow(base, e)))
    }

    /// Consumes `\circ` or `{\circ}` after a `^`, if there.
    fn degree_mark(&mut self) -> bool {
        match (self.peek(), self.peek_at(1), self.peek_at(2)) {
            (Some(Tk::Degree), _, _) => {
                self.bump();
                true
            }
            (Some(Tk::LBrace), Some(Tk::Degree), Some(Tk::RBrace)) => {
                self.pos += 3;
                self.skip = 0;
                true
            }
            _ => false,
        }
    }

    fn degrees(&mut self, x: u32) -> Result<u32, String> {
        if self.angle == 0 {
            return Err("degrees inside a formula are read only in a trigonometric argument".into());
        }
        Ok(self.node(Node::Degrees(x)))
    }

    /// An exponent: a sign, then a group, a whole number or one atom; right-associative.
    fn exponent(&mut self) -> Result<u32, String> {
        self.enter()?;
        let r = match self.peek() {
            Some(Tk::Minus) => {
                self.bump();
                let e = self.exponent()?;
                Ok(self.node(Node::Neg(e)))
            }
            Some(Tk::Plus) => {
                self.bump();
                self.exponent()
            }
            Some(Tk::Num(_)) => Ok(self.number_rest()),
            _ => self.atom(),
        };
        self.depth -= 1;
        let base = r?;
        if self.peek() == Some(&Tk::Caret) {
            self.bump();
            let e = self.exponent()?;
            return Ok(self.node(Node::Pow(base, e)));
        }
        Ok(base)
    }

    fn postfix(&mut self) -> Result<u32, String> {
        let mut a = self.atom()?;
        loop {
            match self.peek() {
                Some(Tk::Bang) => {
                    self.bump();
                    a = self.node(Node::Fact(a));
                }
                Some(Tk::Degree) => {
                    self.bump();
                    a = self.degrees(a)?;
                }
                _ => return Ok(a),
            }
        }
    }

    /// The rest of the number at `pos` (after any digits taken as one-digit arguments).
    fn number_rest(&mut self) -> u32 {
        let Some(Tk::Num(n)) = self.peek() else {
            return self.node(Node::Lit(Real::int(0)));
        };
        let r = if self.skip == 0 {
            Real::literal(n)
        } else {
            Real::literal(&NumLit {
                digits: n.digits[self.skip..].to_string(),
                frac: 0,
                exp: 0,
                point: false,
            })
        };
        self.bump();
        self.node(Node::Lit(r))
    }

    /// One argument of `\frac`, `\sqrt`, `\binom`: a group, one digit, or one atom.
    fn arg(&mut self) -> Result<u32, String> {
        match self.peek() {
            Some(Tk::LBrace) => self.group(Tk::LBrace, Tk::RBrace),
            Some(Tk::Num(n)) if n.is_plain_int() && n.digits.len() - self.skip > 1 => {
                let d = i128::from(n.digits.as_bytes()[self.skip] - b'0');
                self.skip += 1;
                Ok(self.node(Node::Lit(Real::int(d))))
            }
            Some(Tk::Num(_)) => Ok(self.number_rest()),
            _ => self.atom(),
        }
    }

    fn group(&mut self, open: Tk, close: Tk) -> Result<u32, String> {
        self.expect(&open)?;
        let saved_abs = self.abs;
        self.abs = 0;
        // Restored before a failure returns: the `|` that opened an absolute value around this
        // group decrements the count when the group comes back, failed or not.
        let inner = self.sum();
        self.abs = saved_abs;
        let inner = inner?;
        self.expect(&close)?;
        Ok(inner)
    }

    fn atom(&mut self) -> Result<u32, String> {
        self.enter()?;
        let r = self.atom_inner();
        self.depth -= 1;
        r
    }

    fn atom_inner(&mut self) -> Result<u32, String> {
        let Some(tk) = self.peek() else {
            return Err("a formula ends too early".into());
        };
        match tk {
            Tk::Num(_) => {
                if self.skip == 0
                    && let Some(mixed) = self.mixed_number()
                {
                    return Ok(mixed);
                }
                Ok(self.number_rest())
            }
            Tk::Rational(n, d) => {
                let q = Q::new(*n, *d).ok_or("a repeating decimal too long to read")?;
                self.bump();
                Ok(self.node(Node::Lit(Real::rational(q))))
            }
            Tk::Letter('e') if self.peek_at(1) != Some(&Tk::Under) => {
                self.bump();
                Ok(self.node(Node::Lit(Real::float(std::f64::consts::E))))
            }
            Tk::Letter(c) => {
                let mut name = String::from(*c);
                self.bump();
                self.subscript(&mut name)?;
                self.late_subscript(&mut name)?;
                self.var(name)
            }
            Tk::Greek(g) => {
                let mut name = String::from(*g);
                self.bump();
                self.subscript(&mut name)?;
                self.late_subscript(&mut name)?;
                self.var(name)
            }
            Tk::Pi => {
                self.bump();
                Ok(self.node(Node::Lit(Real::float(std::f64::consts::PI))))
            }
            Tk::Infty => {
                self.bump();
                Ok(self.node(Node::Lit(Real::infinity(false))))
            }
            Tk::Word(w) => self.word(w),
            Tk::LParen => self.group(Tk::LParen, Tk::RParen),
            Tk::LBrack => self.group(Tk::LBrack, Tk::RBrack),
            Tk::LBrace => self.group(Tk::LBrace, Tk::RBrace),
            Tk::Bar => {
                self.bump();
                self.abs += 1;
                let inner = self.sum();
                self.abs -= 1;
                let inner = inner?;
                self.expect(&Tk::Bar)?;
                Ok(self.node(Node::Abs(inner)))
            }
            Tk::Frac => {
                self.bump();
                let n = self.arg()?;
                let d = self.arg()?;
                let start = self.ast.kids.len() as u32;
                self.ast.kids.push((Op::Mul, n));
                self.ast.kids.push((Op::Div, d));
                Ok(self.node(Node::Prod(start, 2)))
            }
            Tk::Binom => {
                self.bump();
                let n = self.arg()?;
                let k = self.arg()?;
                Ok(self.node(Node::Binom(n, k)))
            }
            Tk::Sqrt => {
                self.bump();
                let index = if self.peek() == Some(&Tk::LBrack) {
                    self.group(Tk::LBrack, Tk::RBrack)?
                } else {
                    self.node(Node::Lit(Real::int(2)))
                };
                let x = self.arg()?;
                Ok(self.node(Node::Root(index, x)))
            }
            Tk::Fn(f) => {
                let f = *f;
                self.bump();
                self.function(f)
            }
            other => Err(format!("unexpected {} in a formula", describe(other))),
        }
    }

    /// A whole number followed by `\frac{a}{b}` of whole numbers: a mixed number.
    fn mixed_number(&mut self) -> Option<u32> {
        let Some(Tk::Num(whole)) = self.peek() else {
            return None;
        };
        if !whole.is_plain_int() || self.peek_at(1) != Some(&Tk::Frac) {
            return None;
        }
        let int = |tk: Option<&Tk>| match tk {
            Some(Tk::Num(n)) if n.is_plain_int() && n.digits.len() <= 18 => n.digits.parse::<i128>().ok(),
            _ => None,
        };
        let (a, b, used) = match (self.peek_at(2), self.peek_at(5)) {
            (Some(Tk::LBrace), Some(Tk::LBrace))
                if self.peek_at(4) == Some(&Tk::RBrace) && self.peek_at(7) == Some(&Tk::RBrace) =>
            {
                (int(self.peek_at(3))?, int(self.peek_at(6))?, 8)
            }
            _ => match self.peek_at(2) {
                // `2\frac12`: two one-digit arguments in one literal.
                Some(Tk::Num(n)) if n.is_plain_int() && n.digits.len() == 2 => {
                    let d = n.digits.as_bytes();
                    (i128::from(d[0] - b'0'), i128::from(d[1] - b'0'), 3)
                }
                _ => return None,
            },
        };
        let w: i128 = whole.digits.parse().ok().filter(|_| whole.digits.len() <= 18)?;
        let frac = Q::new(a, b)?;
        let value = Real::int(w).add(&Real::rational(frac)).ok()?;
        self.pos += used;
        self.skip = 0;
        Some(self.node(Node::Lit(value)))
    }

    /// A subscript after the power of a variable with none (`a^3_1`, `x^{2}_{n}`): LaTeX sets
    /// both on the variable, so it is read into the name (`a^3_1` is `a_1^3`) and stepped over
    /// when the power has been read.
    fn late_subscript(&mut self, name: &mut String) -> Result<(), String> {
        if name.contains('_') || self.peek() != Some(&Tk::Caret) {
            return Ok(());
        }
        let tk = |k: usize| self.t.get(k).map(|t| &t.tk);
        let mut end = self.pos + 1;
        match tk(end) {
            Some(Tk::LBrace) => {
                let mut depth = 0u32;
                loop {
                    match tk(end) {
                        Some(Tk::LBrace) => depth += 1,
                        Some(Tk::RBrace) => depth -= 1,
                        Some(_) => {}
                        None => return Ok(()),
                    }
                    end += 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            Some(Tk::Num(_) | Tk::Letter(_) | Tk::Greek(_)) => end += 1,
            _ => return Ok(()),
        }
        if tk(end) != Some(&Tk::Under) {
            return Ok(());
        }
        let (pos, skip) = (self.pos, self.skip);
        self.pos = end;
        self.skip = 0;
        self.subscript(name)?;
        self.late = Some((end, self.pos));
        self.pos = pos;
        self.skip = skip;
        Ok(())
    }

    /// `_1`, `_{12}`, `_n` after a variable: part of its name.
    fn subscript(&mut self, name: &mut String) -> Result<(), String> {
        // A subscript already read into the name of the variable whose power this is.
        if self.peek() != Some(&Tk::Under) || self.late.is_some_and(|(at, _)| at == self.pos) {
            return Ok(());
        }
        self.bump();
        name.push('_');
        match self.peek() {
            Some(Tk::LBrace) => {
                self.bump();
                let mut depth = 1u32;
                while let Some(tk) = self.peek() {
                    match tk {
                        Tk::LBrace => depth += 1,
                        Tk::RBrace => {
                            depth -= 1;
                            if depth == 0 {
                                self.bump();
                                return Ok(());
                            }
                        }
                        _ => {}
                    }
                    push_name(name, tk);
                    self.bump();
                }
                Err("a subscript is never closed".into())
            }
            Some(tk @ (Tk::Num(_) | Tk::Letter(_) | Tk::Greek(_) | Tk::Word(_))) => {
                push_name(name, tk);
                self.bump();
                Ok(())
            }
            _ => Err("a subscript without a value".into()),
        }
    }

    fn var(&mut self, name: String) -> Result<u32, String> {
        let idx = match self.ast.vars.iter().position(|v| **v == *name) {
            Some(i) => i,
            None => {
                if self.ast.vars.len() >= MAX_VARS {
                    return Err(format!("more than {MAX_VARS} variables"));
                }
                self.ast.vars.push(name.into());
                self.ast.vars.len() - 1
            }
        };
        Ok(self.node(Node::Var(idx as u16)))
    }

    /// A multi-letter word inside a formula: a known name, or a short product of variables.
    fn word(&mut self, w: &str) -> Result<u32, String> {
        let lower = w.to_ascii_lowercase();
        match lower.as_str() {
            "pi" => {
                self.bump();
                return Ok(self.node(Node::Lit(Real::float(std::f64::consts::PI))));
            }
            "inf" | "infinity" => {
                self.bump();
                return Ok(self.node(Node::Lit(Real::infinity(false))));
            }
            "sqrt" => {
                self.bump();
                let x = self.group(Tk::LParen, Tk::RParen)?;
                let two = self.node(Node::Lit(Real::int(2)));
                return Ok(self.node(Node::Root(two, x)));
            }
            _ => {}
        }
        if let Some(f) = Func::from_name(&lower) {
            self.bump();
            return self.function(f);
        }
        if matches!(lower.as_str(), "min" | "max") && self.peek_at(1) == Some(&Tk::LParen) {
            // `min(3, 5)`, `\operatorname{max}(a, b)`: a plain `min` is otherwise minutes.
            self.bump();
            return self.min_max(lower == "max");
        }
        if w.len() <= 4 && w.bytes().all(|b| b.is_ascii_alphabetic()) && !is_reserved(w) {
            self.bump();
            let start = self.ast.kids.len();
            let mut factors = Vec::with_capacity(w.len());
            for c in w.chars() {
                let n = if c == 'e' {
                    self.node(Node::Lit(Real::float(std::f64::consts::E)))
                } else {
                    self.var(c.to_string())?
                };
                factors.push((Op::Mul, n));
            }
            // `ab^2` is a·b², not (ab)²: a power after the word binds its last letter.
            if self.peek() == Some(&Tk::Caret)
                && !matches!(self.peek_at(1), Some(Tk::Degree))
                && let Some(last) = factors.pop()
            {
                self.bump();
                let e = self.exponent()?;
                factors.push((Op::Mul, self.node(Node::Pow(last.1, e))));
            }
            self.ast.kids.extend(factors);
            return Ok(self.node(Node::Prod(start as u32, w.len() as u32)));
        }
        Err(format!("cannot read the word `{w}` in a formula"))
    }

    /// A function application after its name: `\sin x`, `\sin(x)`, `\sin^2 x`, `\sin^{-1} x`,
    /// `\log_2 8`.
    fn function(&mut self, mut f: Func) -> Result<u32, String> {
        if matches!(f, Func::Min | Func::Max) {
            return self.min_max(f == Func::Max);
        }
        let mut power = None;
        if self.peek() == Some(&Tk::Caret) {
            self.bump();
            let inverse = match (self.peek(), self.peek_at(1), self.peek_at(2), self.peek_at(3)) {
                (Some(Tk::LBrace), Some(Tk::Minus), Some(Tk::Num(n)), Some(Tk::RBrace)) if is_one(n) => 4,
                (Some(Tk::Minus), Some(Tk::Num(n)), _, _) if is_one(n) => 2,
                _ => 0,
            };
            let inv = match f {
                Func::Sin => Some(Func::Asin),
                Func::Cos => Some(Func::Acos),
                Func::Tan => Some(Func::Atan),
                _ => None,
            };
            match (inverse, inv) {
                (k, Some(g)) if k > 0 => {
                    self.pos += k;
                    self.skip = 0;
                    f = g;
                }
                _ => power = Some(self.exponent()?),
            }
        }
        let base = if f == Func::Log && self.peek() == Some(&Tk::Under) {
            self.bump();
            Some(self.arg()?)
        } else {
            None
        };
        if f.takes_angle() {
            self.angle += 1;
        }
        let arg = self.function_arg();
        if f.takes_angle() {
            self.angle -= 1;
        }
        let arg = arg?;
        let applied = match base {
            Some(b) => self.node(Node::LogBase(b, arg)),
            None => self.node(Node::Func(f, arg)),
        };
        Ok(match power {
            Some(p) => self.node(Node::Pow(applied, p)),
            None => applied,
        })
    }

    /// `\min` or `\max` after its name: arguments separated by commas in `(…)` or `\{…\}`.
    /// Of numbers it is evaluated (`\min(3, 5)` is 3); of formulas with variables it is
    /// compared structurally, its arguments in any order (`\max(a, b)` = `\max(b, a)` ≠ `a`).
    fn min_max(&mut self, max: bool) -> Result<u32, String> {
        let close = match self.peek() {
            Some(Tk::LParen) => Tk::RParen,
            Some(Tk::LSet) => Tk::RSet,
            _ => return Err("`\\min` or `\\max` without arguments in brackets".into()),
        };
        self.bump();
        let saved_abs = self.abs;
        self.abs = 0;
        let first_node = self.ast.nodes.len();
        let mut args = Vec::new();
        let parsed = loop {
            match self.sum() {
                Ok(a) => args.push((Op::Mul, a)),
                Err(e) => break Err(e),
            }
            match self.peek() {
                Some(Tk::Comma) => self.bump(),
                _ => break Ok(()),
            }
        };
        self.abs = saved_abs;
        parsed?;
        self.expect(&close)?;
        if args.len() < 2 {
            return Err("`\\min` or `\\max` of fewer than two values".into());
        }
        let symbolic = self.ast.nodes[first_node..]
            .iter()
            .any(|n| matches!(n, Node::Var(_) | Node::Opaque(..)));
        let start = self.ast.kids.len() as u32;
        let len = args.len() as u32;
        self.ast.kids.extend(args);
        Ok(self.node(if symbolic {
            Node::Opaque(if max { Opaque::Max } else { Opaque::Min }, start, len)
        } else {
            Node::MinMax(max, start, len)
        }))
    }

    /// A function's argument: a parenthesised group, or an implicit product (`\sin 2x`).
    fn function_arg(&mut self) -> Result<u32, String> {
        if self.peek() == Some(&Tk::LParen) {
            let g = self.group(Tk::LParen, Tk::RParen)?;
            // `\sin(x)^2` squares the function, handled by the caller's power; keep simple.
            return Ok(g);
        }
        let mark = self.scratch.len();
        let first = self.power()?;
        self.scratch.push((Op::Mul, first));
        while let Some(tk) = self.peek() {
            if matches!(tk, Tk::Fn(_) | Tk::Num(_)) || !self.starts_factor(tk) {
                break;
            }
            let f = self.power()?;
            self.scratch.push((Op::Mul, f));
        }
        if self.scratch.len() - mark == 1 {
            let (_, only) = self.scratch.pop().unwrap_or((Op::Mul, 0));
            return Ok(only);
        }
        Ok(self.collect(mark, Node::Prod))
    }
}

fn is_one(n: &NumLit) -> bool {
    n.is_plain_int() && n.digits == "1"
}

fn push_name(name: &mut String, tk: &Tk) {
    match tk {
        Tk::Num(n) => n.render(name),
        Tk::Letter(c) => name.push(*c),
        Tk::Greek(g) => name.push_str(g),
        Tk::Word(w) => name.push_str(w),
        Tk::Sym(c) => name.push(*c),
        other => name.push_str(symbol(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn value(s: &str) -> f64 {
        let t = lex(s).unwrap();
        parse(&t).unwrap().value(1).unwrap().f
    }

    fn err(s: &str) -> String {
        let t = lex(s).unwrap();
        match parse(&t) {
            Err(e) => e,
            Ok(a) => a.value(1).err().unwrap_or_else(|| panic!("{s:?} was read")),
        }
    }

    #[test]
    fn precedence() {
        assert_eq!(value("-2^2"), -4.0);
        assert_eq!(value("2^3^2"), 512.0);
        assert_eq!(value("2^10"), 1024.0);
        assert_eq!(value("1/2*4"), 2.0);
        assert!((value("3\\pi/4") - 3.0 * std::f64::consts::PI / 4.0).abs() < 1e-12);
        assert_eq!(value("2(3+4)"), 14.0);
        assert_eq!(value("|-3|"), 3.0);
    }

    #[test]
    fn latex_arguments() {
        assert_eq!(value("\\frac12"), 0.5);
        assert_eq!(value("\\frac{1}{2}3"), 1.5);
        assert_eq!(value("\\sqrt{16}"), 4.0);
        assert_eq!(value("\\sqrt[3]{27}"), 3.0);
        assert_eq!(value("2\\frac{1}{2}"), 2.5);
        assert_eq!(value("-2\\frac12"), -2.5);
        assert_eq!(value("\\binom{5}{2}"), 10.0);
        assert_eq!(value("5!"), 120.0);
        assert!((value("\\log_2 8") - 3.0).abs() < 1e-12);
        assert!((value("\\sin 30^\\circ") - 0.5).abs() < 1e-12);
        assert!((value("\\sin^{-1} 1") - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
    }

    #[test]
    fn errors() {
        assert!(err("1/0").contains("zero"));
        assert!(err("\\sqrt{-1}").contains("real"));
        assert!(err("2 3").contains("two numbers"));
        assert!(err("1 + ").contains("early"));
        assert!(err(&"(".repeat(100)).contains("deep") || err(&"(".repeat(100)).contains("early"));
        assert!(err(&format!("{}1{}", "(".repeat(100), ")".repeat(100))).contains("deep"));
        assert!(err("30^\\circ + 1").contains("degrees"));
    }

    #[test]
    fn variables_are_named() {
        let t = lex("x_1 + 2xy - \\alpha").unwrap();
        let ast = parse(&t).unwrap();
        let names: Vec<&str> = ast.vars().iter().map(|v| &**v).collect();
        assert_eq!(names, ["x_1", "x", "y", "alpha"]);
        let at = [1, 2, 3, 4].map(Real::int);
        assert_eq!(ast.at(&at, 1).and_then(|r| r.as_int()), Some(1 + 12 - 4));
        let t = lex("ab^2").unwrap();
        let ast = parse(&t).unwrap();
        let at = [2, 3].map(Real::int);
        assert_eq!(
            ast.at(&at, 1).and_then(|r| r.as_int()),
            Some(18),
            "a·b², not (ab)²"
        );
    }
}

//! Whether two read answers mean the same, class by class. Work is bounded by a budget so that
//! large unordered collections (compared element against element) cannot take long.
//!
//! Formulas with variables are compared at eight points drawn from a fixed seed: each variable
//! takes a rational value (a fraction with a prime denominator from 7 to 31, so that
//! coincidences such as `x^2 = 2x` at `x = 2` do not happen) that depends only on the seed, its
//! name and the point; positive at the first four points, either sign at the last four.
//! Evaluation is exact rational arithmetic where it stays rational and small, floating point
//! otherwise. They are equal when every point where either side is defined agrees (exactly when
//! both values are exact, to a relative 1e-6 otherwise) and at least three points were defined
//! on both sides (four when some point is in one side's domain only, as `\ln(x^2)` and
//! `2\ln x` at a negative `x`: such a point is passed over). The work is bounded
//! by the comparison's budget (formula nodes × points), so it never hangs.

use super::expr::{Ast, Complex, formula, is_reserved};
use super::number::{Q, REL_TOL, Real, close};
use super::value::{Bracket, Rel, Value};

/// Comparison work allowed for one pair (element comparisons plus formula nodes evaluated).
pub(super) const BUDGET: u64 = 200_000;
/// Points at which formulas are compared.
const POINTS: u32 = 8;

/// The comparison ran out of its budget.
#[derive(Debug)]
pub(super) struct Exhausted;

/// One comparison's state: its remaining work budget and how strict it is.
pub(super) struct Budget {
    left: u64,
    /// Strict comparison: a unit, percentage, degree sign or base on one side only is a
    /// difference, and a rounded decimal never equals a closed form.
    pub strict: bool,
}

impl Budget {
    /// A fresh budget of `n` units.
    pub(super) fn new(n: u64, strict: bool) -> Budget {
        Budget { left: n, strict }
    }

    fn spend(&mut self, n: u64) -> Result<(), Exhausted> {
        self.left = self.left.checked_sub(n).ok_or(Exhausted)?;
        Ok(())
    }
}

/// Whether `a` and `b` mean the same.
pub(super) fn same(a: &Value, b: &Value, budget: &mut Budget) -> Result<bool, Exhausted> {
    budget.spend(1)?;
    Ok(match (a, b) {
        (Value::Named(n, x), Value::Named(m, y)) => n == m && same(x, y, budget)?,
        (Value::Named(_, x), y) | (y, Value::Named(_, x)) => same(x, y, budget)?,
        // `y = -\frac12 x + \frac34` against an equation is that equation (`2x + 4y - 3 = 0`),
        // against anything else its value.
        (Value::Assigned { equation, .. }, r @ Value::Relation { .. })
        | (r @ Value::Relation { .. }, Value::Assigned { equation, .. }) => same(equation, r, budget)?,
        (Value::Assigned { value, .. }, y) | (y, Value::Assigned { value, .. }) => same(value, y, budget)?,
        // `1,22` is the decimal 1.22 against one number, the list `1, 22` against anything else.
        (Value::CommaDecimal { decimal, .. }, n @ Value::Num { .. })
        | (n @ Value::Num { .. }, Value::CommaDecimal { decimal, .. }) => {
            let x = Value::Num {
                x: decimal.clone(),
                unit: None,
            };
            same(&x, n, budget)?
        }
        (Value::CommaDecimal { list, .. }, y) | (y, Value::CommaDecimal { list, .. }) => {
            same(list, y, budget)?
        }
        // `5m` is 5 metres against a number with a unit, else 5 times m.
        (Value::GluedUnit { with_unit, .. }, n @ Value::Num { unit: Some(_), .. })
        | (n @ Value::Num { unit: Some(_), .. }, Value::GluedUnit { with_unit, .. }) => {
            same(with_unit, n, budget)?
        }
        (Value::GluedUnit { with_unit: x, .. }, Value::GluedUnit { with_unit: y, .. }) => same(x, y, budget)?,
        (Value::GluedUnit { product, .. }, y) | (y, Value::GluedUnit { product, .. }) => {
            same(product, y, budget)?
        }
        (Value::Num { x, unit: u }, Value::Num { x: y, unit: v }) => {
            numbers(x, u.as_deref(), y, v.as_deref(), budget.strict)
        }
        (Value::Num { .. } | Value::Formula(..), Value::Num { .. } | Value::Formula(..)) => {
            pointwise(a, b, budget)?
        }
        (Value::Ratio(x), Value::Ratio(y)) => x.len() == y.len() && proportional(x, y, budget)?,
        // A ratio of two is also the quotient it stands for (`11:21` = `\frac{11}{21}`).
        (Value::Ratio(x), n @ Value::Num { .. }) | (n @ Value::Num { .. }, Value::Ratio(x))
            if x.len() == 2 && !budget.strict =>
        {
            match (&x[0], &x[1]) {
                (Value::Num { x: p, .. }, Value::Num { x: q, .. }) => match p.div(q) {
                    Ok(r) => same(&Value::Num { x: r, unit: None }, n, budget)?,
                    Err(_) => false,
                },
                _ => false,
            }
        }
        // Named values `y = 2, x = 1` are the tuple of their values in the names' order.
        (Value::Set(x), t @ Value::Seq { items, .. }) | (t @ Value::Seq { items, .. }, Value::Set(x))
            if x.len() == items.len() && x.iter().all(|v| matches!(v, Value::Named(..))) =>
        {
            let Value::Seq { open, close, .. } = t else {
                return Ok(false);
            };
            *open == Bracket::Paren && *close == Bracket::Paren && in_order(&named_values(x), items, budget)?
        }
        // Against a bare list too (`x = 1, y = 2` = `1, 2` ≠ `2, 1`): a list of answers does not
        // say which is which, so the names' order is the only one it can mean. Roots of one
        // variable (`x_1 = 1, x_2 = 2`) stay a set of answers.
        (Value::Set(x), Value::Set(y)) | (Value::Set(y), Value::Set(x))
            if x.len() == y.len()
                && !y.iter().any(|v| matches!(v, Value::Named(..)))
                && distinct_unknowns(x) =>
        {
            in_order(&named_values(x), y, budget)?
        }
        // A union of finite sets is their union (`\{1, 2\} \cup \{3\}` = `\{1, 2, 3\}`).
        (Value::Union(parts), Value::Set(y)) | (Value::Set(y), Value::Union(parts))
            if parts.iter().all(|p| matches!(p, Value::Set(_))) =>
        {
            let flat: Vec<Value> = parts
                .iter()
                .flat_map(|p| match p {
                    Value::Set(items) => items.clone(),
                    _ => Vec::new(),
                })
                .collect();
            unordered(&flat, y, budget)?
        }
        // Solutions listed with "or" are the union of intervals they describe.
        (Value::Set(x), Value::Union(y)) | (Value::Union(y), Value::Set(x)) => unordered(x, y, budget)?,
        (Value::Choice(x), Value::Choice(y)) => x == y,
        // `i` alone reads as a choice letter; against a formula in `i` alone it is the
        // imaginary unit (`i` = `i^5` = `\frac{1+i}{1-i}`).
        (Value::Choice('I'), f @ Value::Formula(ast, _))
        | (f @ Value::Formula(ast, _), Value::Choice('I'))
            if ast.names_i() && ast.vars().len() == 1 =>
        {
            match formula("i") {
                Some(unit) => pointwise(&Value::Formula(unit, 1), f, budget)?,
                None => false,
            }
        }
        // `xy` alone reads as a word; against a formula it is the product of its letters
        // (`x \cdot y`, `y \times x`).
        (Value::Text(t), f @ Value::Formula(..)) | (f @ Value::Formula(..), Value::Text(t))
            if (2..=4).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_lowercase()) && !is_reserved(t) =>
        {
            match formula(t) {
                Some(product) => pointwise(&Value::Formula(product, 1), f, budget)?,
                None => false,
            }
        }
        (Value::Text(x), Value::Text(y)) => x == y,
        (
            Value::Seq {
                open: o1,
                close: c1,
                items: x,
            },
            Value::Seq {
                open: o2,
                close: c2,
                items: y,
            },
        ) => x.len() == y.len() && (x.len() != 2 || (o1 == o2 && c1 == c2)) && in_order(x, y, budget)?,
        (Value::Set(x), Value::Set(y)) | (Value::Union(x), Value::Union(y)) => unordered(x, y, budget)?,
        (Value::Matrix(x), Value::Matrix(y)) => {
            if x.len() != y.len() || x.iter().zip(y).any(|(r, s)| r.len() != s.len()) {
                false
            } else {
                let mut all = true;
                for (r, s) in x.iter().zip(y) {
                    if !in_order(r, s, budget)? {
                        all = false;
                        break;
                    }
                }
                all
            }
        }
        (Value::Relation { items: x, ops: p }, Value::Relation { items: y, ops: q }) => {
            if p.len() != q.len() {
                false
            } else if p == q && in_order(x, y, budget)? {
                true
            } else {
                let flipped = p.iter().rev().map(|r| r.flipped()).eq(q.iter().copied());
                let reversed: Vec<&Value> = x.iter().rev().collect();
                let mut all = flipped;
                if all {
                    for (u, v) in reversed.into_iter().zip(y) {
                        if !same(u, v, budget)? {
                            all = false;
                            break;
                        }
                    }
                }
                all || (p.len() == 1 && q.len() == 1 && one_relation(x, p[0], y, q[0], budget)?)
            }
        }
        _ => false,
    })
}

/// Whether `x` is two or more named values of different variables (`x = 1, y = 2`), not roots
/// of one (`x_1 = 1, x_2 = 2`, subscripts of one letter).
fn distinct_unknowns(x: &[Value]) -> bool {
    let mut bases = x.iter().map(|v| match v {
        Value::Named(n, _) => Some(n.split('_').next().unwrap_or_default()),
        _ => None,
    });
    let Some(Some(first)) = bases.next() else {
        return false;
    };
    let mut differ = false;
    for b in bases {
        match b {
            Some(b) => differ |= b != first,
            None => return false,
        }
    }
    differ
}

/// The values of named values in their names' alphabetical order (`y = 2, x = 1` is `1, 2`).
fn named_values(x: &[Value]) -> Vec<Value> {
    let mut named: Vec<&Value> = x.iter().collect();
    named.sort_by(|a, b| match (a, b) {
        (Value::Named(m, _), Value::Named(n, _)) => m.cmp(n),
        _ => std::cmp::Ordering::Equal,
    });
    named
        .into_iter()
        .map(|v| match v {
            Value::Named(_, v) => (**v).clone(),
            other => other.clone(),
        })
        .collect()
}

/// Two numbers with their units: a unit on one side only is ignored; a percentage on one side
/// only may also be read as a fraction (`50%` equals both `50` and `0.5`); different units
/// differ. Strict: units must be the same on both sides, and rounding is not equality.
fn numbers(x: &Real, u: Option<&str>, y: &Real, v: Option<&str>, strict: bool) -> bool {
    if strict {
        return u == v && x.same_as(y, false);
    }
    match (u, v) {
        (Some(a), Some(b)) if a != b => false,
        (Some("%"), None) => x.same(y) || x.scale10(-2).same(y),
        (None, Some("%")) => x.same(y) || x.same(&y.scale10(-2)),
        _ => x.same(y),
    }
}

fn in_order(x: &[Value], y: &[Value], budget: &mut Budget) -> Result<bool, Exhausted> {
    for (a, b) in x.iter().zip(y) {
        if !same(a, b, budget)? {
            return Ok(false);
        }
    }
    Ok(x.len() == y.len())
}

/// Every element of each side has an equal on the other (so duplicates do not matter). Large
/// collections of numbers, letters and words are matched through sorted keys, so only
/// elements that could be equal are compared; others compare every pair within the budget.
fn unordered(x: &[Value], y: &[Value], budget: &mut Budget) -> Result<bool, Exhausted> {
    if x.len() * y.len() > 64
        && let (Some(kx), Some(ky)) = (keys(x), keys(y))
    {
        return Ok(covers(x, &kx, y, &ky, budget)? && covers(y, &ky, x, &kx, budget)?);
    }
    for (xs, ys) in [(x, y), (y, x)] {
        for a in xs {
            let mut found = false;
            for b in ys {
                if same(a, b, budget)? {
                    found = true;
                    break;
                }
            }
            if !found {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Whether two ratios are proportional: `x[i] · y[0] = y[i] · x[0]` for every term (so
/// `2:4` = `1:2`); terms that are not numbers must be equal one by one, and so must the terms of
/// a ratio with a zero term (`12:00` is a time or a score, not the proportion `1:0`).
fn proportional(x: &[Value], y: &[Value], budget: &mut Budget) -> Result<bool, Exhausted> {
    let nums = |v: &[Value]| -> Option<Vec<Real>> {
        v.iter()
            .map(|t| match t {
                Value::Num { x, .. } => Some(x.clone()),
                _ => None,
            })
            .collect()
    };
    let (Some(p), Some(q)) = (nums(x), nums(y)) else {
        return in_order(x, y, budget);
    };
    budget.spend(p.len() as u64)?;
    if p.iter().chain(&q).any(|t| t.f == 0.0) {
        return in_order(x, y, budget);
    }
    for i in 0..p.len() {
        let (Ok(l), Ok(r)) = (p[i].mul(&q[0]), q[i].mul(&p[0])) else {
            return Ok(false);
        };
        if !l.same_as(&r, false) {
            return Ok(false);
        }
    }
    Ok(p.iter().any(|t| t.f != 0.0))
}

/// Two relations `l op r` and `l' op' r'` of one operator each are the same when `l - r` and
/// `l' - r'` are proportional at every point (`factor_sign`): equations with any nonzero
/// factor, inequalities with a positive factor and the same operator or a negative one and the
/// operator turned round (`-x > -1` is `x < 1`; `x > 1` is not `x < 1`).
fn one_relation(x: &[Value], p: Rel, y: &[Value], q: Rel, budget: &mut Budget) -> Result<bool, Exhausted> {
    if matches!(p, Rel::In) || matches!(q, Rel::In) || (p == Rel::Eq) != (q == Rel::Eq) {
        return Ok(false);
    }
    Ok(match factor_sign(x, y, budget)? {
        None => false,
        Some(_) if matches!(p, Rel::Eq | Rel::Ne) => p == q,
        Some(positive) => q == if positive { p } else { p.flipped() },
    })
}

/// Whether `l - r` and `l' - r'` are proportional with a nonzero factor at every point
/// (`x^2 + y^2 = 25` and `y^2 + x^2 - 25 = 0`; `2x + 4 = 0` and `x = -2`), checked at the
/// formula points, exactly where the values are: `Some(true)` for a positive factor,
/// `Some(false)` for a negative one, `None` when they are not proportional.
fn factor_sign(x: &[Value], y: &[Value], budget: &mut Budget) -> Result<Option<bool>, Exhausted> {
    let (Some(a), Some(b), Some(c), Some(d)) = (side(&x[0]), side(&x[1]), side(&y[0]), side(&y[1])) else {
        return Ok(None);
    };
    if [&a, &b, &c, &d].iter().all(|s| matches!(s, Side::Const(_))) {
        return Ok(None);
    }
    let size = |s: &Side<'_>| match s {
        Side::Const(_) => 1,
        Side::Formula(f, _) => f.size() as u64,
    };
    budget.spend(u64::from(POINTS) * (size(&a) + size(&b) + size(&c) + size(&d)))?;
    let whole = [&a, &b, &c, &d]
        .iter()
        .any(|s| matches!(s, Side::Formula(f, _) if f.has_factorial()));
    let diff = |l: &Side<'_>, r: &Side<'_>, k: u32| -> Option<Real> {
        let (l, r) = (eval(l, k, whole)?, eval(r, k, whole)?);
        l.add(&r.neg()).ok()
    };
    let mut ratio: Option<(Real, Real)> = None;
    let mut agree = 0;
    for k in 0..POINTS {
        let (Some(f), Some(g)) = (diff(&a, &b, k), diff(&c, &d, k)) else {
            continue;
        };
        let zero = |v: &Real| v.exact().map_or(v.f.abs() < 1e-12, |q| q == Q::int(0));
        match (zero(&f), zero(&g)) {
            (true, true) => agree += 1,
            (false, false) => match &ratio {
                None => {
                    ratio = Some((f, g));
                    agree += 1;
                }
                // f / g = f0 / g0, written as f · g0 = g · f0.
                Some((f0, g0)) => match (f.mul(g0), g.mul(f0)) {
                    (Ok(l), Ok(r)) if agrees(&l, &r) => agree += 1,
                    _ => return Ok(None),
                },
            },
            _ => return Ok(None),
        }
    }
    Ok(match ratio {
        Some((f0, g0)) if agree >= 3 => Some((f0.f > 0.0) == (g0.f > 0.0)),
        _ => None,
    })
}

/// A number or a formula (with the sign its `±` takes), for evaluation at points.
enum Side<'a> {
    Const(&'a Real),
    Formula(&'a Ast, i8),
}

fn side(v: &Value) -> Option<Side<'_>> {
    match v {
        Value::Num { x, .. } => Some(Side::Const(x)),
        Value::Formula(a, pm) => Some(Side::Formula(a, *pm)),
        _ => None,
    }
}

fn pointwise(a: &Value, b: &Value, budget: &mut Budget) -> Result<bool, Exhausted> {
    let (Some(sa), Some(sb)) = (side(a), side(b)) else {
        return Ok(false);
    };
    spend_points(&sa, &sb, budget)?;
    // A factorial is defined at whole numbers only: both sides are then compared there.
    let whole = [&sa, &sb]
        .iter()
        .any(|s| matches!(s, Side::Formula(f, _) if f.has_factorial()));
    if tally(|k| (eval(&sa, k, whole), eval(&sb, k, whole)), agrees) {
        return Ok(true);
    }
    let names_i = |s: &Side<'_>| matches!(s, Side::Formula(f, _) if f.names_i());
    if names_i(&sa) || names_i(&sb) {
        return complex_pointwise(&sa, &sb, whole, budget);
    }
    Ok(false)
}

/// Charges the budget for evaluating both sides at every point.
fn spend_points(sa: &Side<'_>, sb: &Side<'_>, budget: &mut Budget) -> Result<(), Exhausted> {
    let size = |s: &Side<'_>| match s {
        Side::Const(_) => 1,
        Side::Formula(f, _) => f.size() as u64,
    };
    budget.spend(u64::from(POINTS) * (size(sa) + size(sb)))
}

/// Whether the two sides, valued at each point by `at`, agree: no point where both are
/// defined and differ, and enough where they agree. A point where only one side is defined is
/// outside the other's domain (`\ln(x^2)` and `2\ln x` at a negative x): it proves nothing, but
/// the sides must then agree at more points.
fn tally<T>(at: impl Fn(u32) -> (Option<T>, Option<T>), same: impl Fn(&T, &T) -> bool) -> bool {
    let mut agree = 0;
    let mut one_sided = 0;
    for k in 0..POINTS {
        match at(k) {
            (None, None) => {}
            (Some(x), Some(y)) if same(&x, &y) => agree += 1,
            (Some(_), Some(_)) => return false,
            _ => one_sided += 1,
        }
    }
    agree >= 3 + one_sided.min(1)
}

/// [`pointwise`] with `i` the imaginary unit (`(3+i)(1-2i)` = `5-5i`, `i^2` = `-1`), tried when
/// the sides differ with `i` a variable: where either side is not read over the complex numbers
/// at a point (`\sqrt{i}`), that point proves nothing.
fn complex_pointwise(
    sa: &Side<'_>,
    sb: &Side<'_>,
    whole: bool,
    budget: &mut Budget,
) -> Result<bool, Exhausted> {
    spend_points(sa, sb, budget)?;
    Ok(tally(
        |k| (eval_complex(sa, k, whole), eval_complex(sb, k, whole)),
        |x, y| agrees(&x.re, &y.re) && agrees(&x.im, &y.im),
    ))
}

fn agrees(x: &Real, y: &Real) -> bool {
    match (x.exact(), y.exact()) {
        (Some(p), Some(q)) => p == q,
        _ => close(x.f, y.f, REL_TOL, 1e-9),
    }
}

fn eval(s: &Side<'_>, k: u32, whole: bool) -> Option<Real> {
    match s {
        Side::Const(x) => x.f.is_finite().then(|| (*x).clone()),
        Side::Formula(ast, pm) => ast.at(&values_at(ast, k, whole), *pm),
    }
}

/// The values of a formula's variables at point `k` (whole numbers when a factorial is
/// compared).
fn values_at(ast: &Ast, k: u32, whole: bool) -> Vec<Real> {
    let at = |name: &str| {
        if whole {
            whole_point(name, k)
        } else {
            point(name, k)
        }
    };
    ast.vars().iter().map(|name| at(name)).collect()
}

fn eval_complex(s: &Side<'_>, k: u32, whole: bool) -> Option<Complex> {
    match s {
        Side::Const(x) => x.f.is_finite().then(|| Complex::real((*x).clone())),
        Side::Formula(ast, pm) => ast.at_complex(&values_at(ast, k, whole), *pm),
    }
}

/// The seed of the evaluation points.
const SEED: u64 = 0x5eed_0012_2026_0001;
/// Prime denominators of the points' values, one per point.
const DENOMINATORS: [i128; POINTS as usize] = [7, 11, 13, 17, 19, 23, 29, 31];

/// FNV-1a over the variable's name and the point's index, from [`SEED`] mixed with `basis`.
fn name_hash(basis: u64, name: &str, k: u32) -> u64 {
    let mut h: u64 = SEED ^ basis;
    for b in name.bytes().chain(k.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The value of variable `name` at point `k`: `n / d` with `d` the point's prime denominator
/// and `n` drawn from the seed and the name, so that the value lies in about [0.25, 2.75) and is
/// never a whole number; negated at about half of the last four points.
fn point(name: &str, k: u32) -> Real {
    let mut h = name_hash(0xcbf2_9ce4_8422_2325, name, k);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 32;
    let d = DENOMINATORS[k as usize % DENOMINATORS.len()];
    let span = (5 * d / 2) as u64;
    let mut n = d / 4 + 1 + ((h >> 8) % span) as i128;
    if n % d == 0 {
        n += 1;
    }
    if k >= POINTS / 2 && h & 1 == 1 {
        n = -n;
    }
    Q::new(n, d).map_or_else(|| Real::float(n as f64 / d as f64), Real::rational)
}

/// The value of variable `name` at point `k` when a factorial is compared: a whole number from
/// 3 to 12, drawn from the seed, the name and the point (different variables mostly differ).
fn whole_point(name: &str, k: u32) -> Real {
    let mut h = name_hash(0x9e37_79b9_7f4a_7c15, name, k);
    h ^= h >> 31;
    Real::int(3 + (h % 10) as i128)
}

/// What any value equal to an element must share: for a number, an interval that overlaps the
/// other's (each side's interval holds every value its rules accept); for a letter or words,
/// the exact text.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Key<'a> {
    Num { lo: f64, hi: f64 },
    Choice(char),
    Text(&'a str),
}

fn key(v: &Value) -> Option<Key<'_>> {
    match v {
        Value::Named(_, x) => key(x),
        Value::Num { x, unit } if unit.as_deref() != Some("%") => {
            let s = x.slack();
            Some(Key::Num {
                lo: x.f - s,
                hi: x.f + s,
            })
        }
        Value::Choice(c) => Some(Key::Choice(*c)),
        Value::Text(t) => Some(Key::Text(t)),
        _ => None,
    }
}

fn keys(v: &[Value]) -> Option<Vec<Key<'_>>> {
    v.iter().map(key).collect()
}

/// The sort order of letter and word keys.
fn order<'a>(k: &Key<'a>) -> (u8, char, &'a str) {
    match *k {
        Key::Choice(c) => (0, c, ""),
        Key::Text(t) => (1, '\0', t),
        Key::Num { .. } => (2, '\0', ""),
    }
}

/// Whether every element of `a` has an equal in `b`, looking only at elements of `b` whose key
/// matches.
fn covers(
    a: &[Value],
    ka: &[Key<'_>],
    b: &[Value],
    kb: &[Key<'_>],
    budget: &mut Budget,
) -> Result<bool, Exhausted> {
    let mut nums: Vec<(f64, f64, usize)> = Vec::new();
    let mut words: Vec<(Key<'_>, usize)> = Vec::new();
    for (i, k) in kb.iter().enumerate() {
        match *k {
            Key::Num { lo, hi } => nums.push((lo, hi, i)),
            other => words.push((other, i)),
        }
    }
    nums.sort_by(|p, q| p.0.total_cmp(&q.0));
    let width = nums
        .iter()
        .map(|&(lo, hi, _)| if (hi - lo).is_finite() { hi - lo } else { 0.0 })
        .fold(0.0, f64::max);
    words.sort_by(|p, q| order(&p.0).cmp(&order(&q.0)));
    for (v, k) in a.iter().zip(ka) {
        let mut found = false;
        match *k {
            Key::Num { lo, hi } => {
                let from = nums.partition_point(|p| p.0 < lo - width);
                for &(blo, bhi, j) in &nums[from..] {
                    if blo > hi {
                        break;
                    }
                    if bhi >= lo && same(v, &b[j], budget)? {
                        found = true;
                        break;
                    }
                }
            }
            other => {
                let from = words.partition_point(|p| order(&p.0) < order(&other));
                for &(w, j) in &words[from..] {
                    if order(&w) != order(&other) {
                        break;
                    }
                    if same(v, &b[j], budget)? {
                        found = true;
                        break;
                    }
                }
            }
        }
        if !found {
            return Ok(false);
        }
    }
    Ok(true)
}

//! Relations in an answer: assignments whose left side only names the quantity (`x = 5`,
//! `\frac{NO}{BO} = …`, `V_1:V_2 = …`, `f^{-1}(x) = …`, `P(X=2) = …`), approximations
//! (`x = \sqrt2 \approx 1.414`), inequalities in one variable read as the interval or union they
//! describe (`-793 < a < 10`, `1 \le |z| \le 2`), and other relations kept side by side.

use super::{Bracket, Reader, Rel, Value};
use crate::normalise::expr::is_reserved;
use crate::normalise::lexer::Tk;
use crate::normalise::number::Real;

impl Reader<'_> {
    /// `x = …` (an assignment), `x \approx …`, an inequality in one variable (an interval), or
    /// another relation.
    pub(super) fn relation(&mut self, lo: usize, hi: usize, in_list: bool) -> Result<Option<Value>, String> {
        let rel = |tk: &Tk| {
            matches!(
                tk,
                Tk::Eq | Tk::Ne | Tk::Lt | Tk::Gt | Tk::Le | Tk::Ge | Tk::In | Tk::Approx
            )
        };
        let parts = self.split(lo, hi, rel)?;
        if parts.len() == 1 {
            return Ok(None);
        }
        let ops: Vec<&Tk> = parts[1..].iter().map(|&(a, _)| self.tk(a - 1)).collect();
        let (first_lo, first_hi) = parts[0];
        let equalities =
            ops.iter().all(|t| matches!(t, Tk::Eq | Tk::Approx)) || (ops.len() == 1 && *ops[0] == Tk::In);
        if equalities {
            // Braces in a name only group (`x_{1}` is `x_1`).
            let name = self.names(first_lo, first_hi).map(|n| n.replace(['{', '}'], ""));
            let start = usize::from(name.is_some() || first_lo == first_hi);
            let approx = ops.iter().position(|t| **t == Tk::Approx);
            let pick = match approx {
                // `v ≈ w`, `x = v ≈ w`: the value before the first `≈`.
                Some(k) if k >= start => Some(k),
                // `x ≈ w`, `≈ w`: the approximation is all there is.
                Some(k) => Some(k + 1),
                None if start == 1 => Some(parts.len() - 1),
                // `\frac12 = 0.5`: a chain of closed values is its last value.
                None if parts.iter().all(|&(a, b)| self.closed(a, b)) => Some(parts.len() - 1),
                None => None,
            };
            if let Some(k) = pick {
                let (a, b) = parts[k];
                if a == b {
                    return Err("a relation with an empty side".into());
                }
                let v = self.element(a, b, false)?;
                // `(n, k) = (5, 2)`: each value keeps its name, as in `n = 5, k = 2`.
                if start == 1
                    && let Some(names) = self.tuple_names(first_lo, first_hi)
                    && let Value::Seq { items, .. } = &v
                    && items.len() == names.len()
                {
                    let named = names
                        .into_iter()
                        .zip(items.iter().cloned())
                        .map(|(n, v)| Value::Named(n.into(), Box::new(v)))
                        .collect();
                    return Ok(Some(Value::Set(named)));
                }
                return Ok(Some(match name {
                    Some(name) if in_list => Value::Named(name.into(), Box::new(v)),
                    // `y = 2x + 3`: also the equation, for an answer written as one.
                    Some(_)
                        if parts.len() == 2
                            && ops == [&Tk::Eq]
                            && matches!(v, Value::Num { unit: None, .. } | Value::Formula(..)) =>
                    {
                        // As a formula: a lone `y` is a variable here, not a choice letter.
                        match self.scalar(first_lo, first_hi) {
                            Ok(lhs @ Value::Formula(..)) => Value::Assigned {
                                equation: Box::new(Value::Relation {
                                    items: vec![lhs, v.clone()],
                                    ops: vec![Rel::Eq],
                                }),
                                value: Box::new(v),
                            },
                            _ => v,
                        }
                    }
                    _ => v,
                }));
            }
        }
        if ops.contains(&&Tk::Approx) {
            return Err("`≈` mixed with other relations".into());
        }
        if ops.iter().all(|t| matches!(t, Tk::Lt | Tk::Le | Tk::Gt | Tk::Ge))
            && let Some(v) = self.interval(&parts, &ops)?
        {
            return Ok(Some(v));
        }
        let items = parts
            .iter()
            .map(|&(a, b)| self.element(a, b, false))
            .collect::<Result<_, _>>()?;
        let ops = ops
            .into_iter()
            .map(|tk| match tk {
                Tk::Ne => Rel::Ne,
                Tk::Lt => Rel::Lt,
                Tk::Gt => Rel::Gt,
                Tk::Le => Rel::Le,
                Tk::Ge => Rel::Ge,
                Tk::In => Rel::In,
                _ => Rel::Eq,
            })
            .collect();
        Ok(Some(Value::Relation { items, ops }))
    }

    /// Whether `lo..hi` is a formula without variables (a closed value), judged by its tokens:
    /// numbers, operators and known constants only.
    fn closed(&self, lo: usize, hi: usize) -> bool {
        lo < hi
            && self.t[lo..hi].iter().all(|t| {
                !matches!(
                    t.tk,
                    Tk::Letter(_) | Tk::Word(_) | Tk::Greek(_) | Tk::Comma | Tk::Semi | Tk::Colon
                )
            })
    }

    /// An inequality in one variable as the interval (or union of two) it describes:
    /// `a < x \le b` is `(a, b]`, `x \ge a` is `[a, ∞)`, `a \le |x| < b` is `(-b, -a] ∪ [a, b)`.
    /// The variable may be negated (`-x > -1` is `x < 1`: `(-∞, 1)`).
    /// `None` when it is not of that shape (then it stays a relation).
    fn interval(&mut self, parts: &[(usize, usize)], ops: &[&Tk]) -> Result<Option<Value>, String> {
        let up = |t: &Tk| matches!(t, Tk::Lt | Tk::Le);
        let strict = |t: &Tk| matches!(t, Tk::Lt | Tk::Gt);
        // A part that is one variable with a minus before it.
        let negated = |(lo, hi): (usize, usize)| {
            hi > lo + 1 && *self.tk(lo) == Tk::Minus && self.variable(lo + 1, hi) == Some(hi)
        };
        let is_var =
            |p: (usize, usize)| self.unknown(p).is_some() || negated(p) || self.function_of_variable(p);
        // (variable part index, lower bound (part, closed), upper bound (part, closed))
        type Bound = Option<(usize, bool)>;
        let (var, lower, upper): (usize, Bound, Bound) = match (parts.len(), ops) {
            (2, [op]) => {
                if is_var(parts[0]) {
                    if up(op) {
                        (0, None, Some((1, !strict(op))))
                    } else {
                        (0, Some((1, !strict(op))), None)
                    }
                } else if is_var(parts[1]) {
                    if up(op) {
                        (1, Some((0, !strict(op))), None)
                    } else {
                        (1, None, Some((0, !strict(op))))
                    }
                } else {
                    return Ok(None);
                }
            }
            (3, [o1, o2]) if up(o1) == up(o2) && is_var(parts[1]) => {
                if up(o1) {
                    (1, Some((0, !strict(o1))), Some((2, !strict(o2))))
                } else {
                    (1, Some((2, !strict(o2))), Some((0, !strict(o1))))
                }
            }
            _ => return Ok(None),
        };
        let neg = negated(parts[var]);
        let abs = self.unknown(parts[var]) == Some(true);
        let mut bound = |b: Bound| -> Result<Option<(Real, bool)>, String> {
            let Some((k, closed)) = b else { return Ok(None) };
            let (a, z) = parts[k];
            match self.element(a, z, false)? {
                Value::Num { x, unit: None } => Ok(Some((x, closed))),
                _ => Err("an inequality bound that is not a number".into()),
            }
        };
        let (mut lo, mut hi) = (bound(lower)?, bound(upper)?);
        if neg {
            // `-x` lies in (lo, hi), so `x` lies in (-hi, -lo).
            (lo, hi) = (hi.map(|(b, c)| (b.neg(), c)), lo.map(|(a, c)| (a.neg(), c)));
        }
        if !abs {
            return Ok(Some(interval(lo, hi)));
        }
        // |x| between lo and hi.
        let lo = lo.filter(|(a, _)| a.f >= 0.0);
        Ok(Some(match (lo, hi) {
            (None, Some((b, c))) => interval(Some((b.neg(), c)), Some((b, c))),
            (Some((a, c)), None) => Value::Union(vec![
                interval(None, Some((a.neg(), c))),
                interval(Some((a, c)), None),
            ]),
            (Some((a, ca)), Some((b, cb))) => {
                if a.f == 0.0 && ca {
                    interval(Some((b.neg(), cb)), Some((b, cb)))
                } else {
                    Value::Union(vec![
                        interval(Some((b.neg(), cb)), Some((a.neg(), ca))),
                        interval(Some((a, ca)), Some((b, cb))),
                    ])
                }
            }
            (None, None) => return Ok(None),
        }))
    }

    /// `Some(false)` when `part` is one variable (`x`, `a_1`), `Some(true)` when it is one
    /// variable in bars (`|z|`), `None` otherwise.
    fn unknown(&self, (lo, hi): (usize, usize)) -> Option<bool> {
        if self.variable(lo, hi) == Some(hi) {
            return Some(false);
        }
        (hi >= lo + 3
            && *self.tk(lo) == Tk::Bar
            && *self.tk(hi - 1) == Tk::Bar
            && self.variable(lo + 1, hi - 1) == Some(hi - 1))
        .then_some(true)
    }

    /// Whether `part` is a function applied to one variable (`f(x)`, `g'(t)`): in a chain of
    /// inequalities it is the quantity whose range the chain gives (`0 < f(x) < 1`).
    fn function_of_variable(&self, (lo, hi): (usize, usize)) -> bool {
        if hi < lo + 4 || !matches!(self.tk(lo), Tk::Letter(_)) || *self.tk(hi - 1) != Tk::RParen {
            return false;
        }
        let mut i = lo + 1;
        while i < hi && *self.tk(i) == Tk::Prime {
            i += 1;
        }
        *self.tk(i) == Tk::LParen
            && self.mate[i] as usize == hi - 1
            && self.variable(i + 1, hi - 1) == Some(hi - 1)
    }

    /// The name when `lo..hi` is a variable (`x`, `x_1`, `\theta`), a short name of letters
    /// (`AB`), a function of one variable (`f(x)`) or a tuple of variables (`(x, y)`).
    pub(super) fn names(&self, lo: usize, hi: usize) -> Option<String> {
        if let Some(end) = self.variable(lo, hi)
            && end == hi
        {
            return Some(self.render(lo, hi));
        }
        if self.label(lo, hi) {
            return Some(self.render(lo, hi));
        }
        match (self.t.get(lo).map(|t| &t.tk), hi.checked_sub(lo)?) {
            // A short name of letters: a segment or an angle (`AB = 5`, `\angle ABC = 30^\circ`).
            (Some(Tk::Word(w)), 1)
                if w.len() <= 4 && w.bytes().all(|c| c.is_ascii_alphabetic()) && !is_reserved(w) =>
            {
                Some(w.clone())
            }
            // A function applied to its arguments (`f(x)`, `\Psi(t)`, `g^{-1}(y)`).
            (Some(Tk::Letter(_) | Tk::Greek(_)), _) if self.applied(lo, hi) => Some(self.render(lo, hi)),
            // The length of a segment: `|AB| = 1`.
            (Some(Tk::Bar), 3)
                if *self.tk(hi - 1) == Tk::Bar
                    && matches!(self.tk(lo + 1), Tk::Word(w)
                        if w.len() <= 4 && w.bytes().all(|c| c.is_ascii_uppercase())) =>
            {
                Some(self.render(lo, hi))
            }
            (Some(Tk::LParen), n) if n >= 3 && self.mate[lo] as usize == hi - 1 => {
                let parts = self.split(lo + 1, hi - 1, |tk| *tk == Tk::Comma).ok()?;
                for (a, b) in parts {
                    if self.variable(a, b) != Some(b) {
                        return None;
                    }
                }
                Some(self.render(lo, hi))
            }
            _ => None,
        }
    }

    /// Whether `lo..hi` is a function or measure applied to plain arguments: `f(x)`, `f(2)`,
    /// `f'(x)`, `f^{-1}(x)`, `P(X=2)`, `P(A|B)`, `E[X]`. The arguments hold no arithmetic
    /// (`x(x+1)` is a product that constrains, not a name).
    fn applied(&self, lo: usize, hi: usize) -> bool {
        let mut i = lo + 1;
        while i < hi && *self.tk(i) == Tk::Prime {
            i += 1;
        }
        // `^{-1}`: an inverse.
        if i + 4 < hi
            && *self.tk(i) == Tk::Caret
            && *self.tk(i + 1) == Tk::LBrace
            && *self.tk(i + 2) == Tk::Minus
            && matches!(self.tk(i + 3), Tk::Num(n) if n.is_plain_int() && n.digits == "1")
            && *self.tk(i + 4) == Tk::RBrace
        {
            i += 5;
        }
        if i + 2 >= hi || !matches!(self.tk(i), Tk::LParen | Tk::LBrack) || self.mate[i] as usize != hi - 1 {
            return false;
        }
        self.t[i + 1..hi - 1].iter().all(|t| {
            !matches!(
                t.tk,
                Tk::Plus
                    | Tk::Minus
                    | Tk::Times
                    | Tk::Div
                    | Tk::Caret
                    | Tk::Frac
                    | Tk::Sqrt
                    | Tk::Pm
                    | Tk::Mp
            )
        })
    }

    /// The names of a tuple of variables `(x, y)`, `(n, k)`.
    fn tuple_names(&self, lo: usize, hi: usize) -> Option<Vec<String>> {
        if hi < lo + 3 || *self.tk(lo) != Tk::LParen || self.mate[lo] as usize != hi - 1 {
            return None;
        }
        let parts = self.split(lo + 1, hi - 1, |tk| *tk == Tk::Comma).ok()?;
        if parts.len() < 2 {
            return None;
        }
        parts
            .into_iter()
            .map(|(a, b)| (self.variable(a, b) == Some(b)).then(|| self.render(a, b).replace(['{', '}'], "")))
            .collect()
    }

    /// Whether `lo..hi` only names a quantity: names of points, segments and variables
    /// (`NO`, `V_1`, `\angle ABC`, `P(A)`) joined by `\frac`, `/` or `:` (`\frac{NO}{BO}`,
    /// `V_1:V_2`), with no number outside a subscript and no other operator. Such a left side
    /// is dropped (`V_1:V_2 = 11:21` is `11:21`); a left side that constrains (`x^2 + y^2`,
    /// `2x`) is not a name, and the relation is kept.
    fn label(&self, lo: usize, hi: usize) -> bool {
        let mut names = 0;
        let mut joins = 0;
        for i in lo..hi {
            match self.tk(i) {
                Tk::Letter(_) | Tk::Greek(_) | Tk::Prime => names += 1,
                Tk::Word(w)
                    if w.len() <= 4
                        && w.bytes().all(|c| c.is_ascii_alphabetic())
                        && (w.bytes().all(|c| c.is_ascii_uppercase()) || !is_reserved(w)) =>
                {
                    names += 1
                }
                Tk::Num(_) if i > lo && matches!(self.tk(i - 1), Tk::Under) => {}
                Tk::Num(_) if i > lo + 1 && *self.tk(i - 1) == Tk::LBrace && *self.tk(i - 2) == Tk::Under => {
                }
                Tk::Under | Tk::LBrace | Tk::RBrace => {}
                Tk::LParen | Tk::RParen => {}
                Tk::Frac | Tk::Div | Tk::Colon => joins += 1,
                _ => return false,
            }
        }
        names >= 2 && joins >= 1
    }
}

/// An interval between two bounds (`None`: unbounded), each with whether it is closed.
fn interval(lo: Option<(Real, bool)>, hi: Option<(Real, bool)>) -> Value {
    let end = |b: &Option<(Real, bool)>, neg: bool| match b {
        Some((x, closed)) => (
            Value::Num {
                x: x.clone(),
                unit: None,
            },
            if *closed { Bracket::Square } else { Bracket::Paren },
        ),
        None => (
            Value::Num {
                x: Real::infinity(neg),
                unit: None,
            },
            Bracket::Paren,
        ),
    };
    let (a, open) = end(&lo, true);
    let (b, close) = end(&hi, false);
    Value::Seq {
        open,
        close,
        items: vec![a, b],
    }
}

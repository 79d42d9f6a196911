//! Real numbers as the comparison needs them: a float for closed forms, an exact rational where
//! the arithmetic stayed rational and small (`\frac{1}{3}` is exactly 1/3), and the written
//! decimal where the value is a plain literal (`0.50`, `1.2e-3`, `1.2\times10^{-3}`, `50\%`),
//! with the precision that literal states.
//!
//! Equality ([`Real::same`]) follows these rules, in order:
//! 1. `∞` equals only an infinity of the same sign.
//! 2. Two plain decimal literals are equal only when they are the same number exactly (`0.5` =
//!    `0.50` = `5e-1`); no tolerance, so `1000000` ≠ `1000001`.
//! 3. Two exact rationals are equal only when they are the same fraction, unless one side is an
//!    approximation (rule 5).
//! 4. Otherwise (a closed form on either side): equal at relative tolerance 1e-6 (absolute
//!    1e-12 near zero).
//! 5. A decimal approximation: when exactly one side is a decimal literal with a decimal point
//!    and at least three significant digits, and the other side is not a decimal literal, the
//!    two are equal when the exact side rounds to the literal: |a − b| ≤ half a unit in the last
//!    written digit. `6.2832` (4 decimals) accepts `2\pi` within 5e-5; `0.333` accepts
//!    `\frac13`; `3.14` accepts `\pi`. `0.3` (one significant digit) does not accept `\frac13`,
//!    and whole numbers are never approximations (`7` is not `\sqrt{50}`).

use super::lexer::NumLit;
use std::sync::Arc;

/// The relative tolerance for closed forms.
pub(super) const REL_TOL: f64 = 1e-6;
/// The absolute tolerance near zero.
const ABS_TOL: f64 = 1e-12;
/// Exponents beyond this are not tracked exactly.
const MAX_EXP: i64 = 10_000_000;

/// An exact rational `n / d`, reduced, with `d > 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Q {
    n: i128,
    d: i128,
}

fn gcd(a: u128, b: u128) -> u128 {
    if let (Ok(x), Ok(y)) = (u64::try_from(a), u64::try_from(b)) {
        return u128::from(gcd64(x, y));
    }
    let (mut a, mut b) = (a, b);
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// Binary GCD: no division, so fast for the small values most answers hold.
fn gcd64(mut a: u64, mut b: u64) -> u64 {
    if a == 0 || b == 0 {
        return a | b;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

impl Q {
    /// `n / d` reduced; `None` when `d` is zero or a value does not fit.
    pub(super) fn new(n: i128, d: i128) -> Option<Q> {
        if d == 0 {
            return None;
        }
        if d == 1 {
            return Some(Q { n, d });
        }
        let g = gcd(n.unsigned_abs(), d.unsigned_abs());
        let g = i128::try_from(g).ok()?.max(1);
        let (mut n, mut d) = (n / g, d / g);
        if d < 0 {
            n = n.checked_neg()?;
            d = d.checked_neg()?;
        }
        Some(Q { n, d })
    }

    /// A whole number.
    pub(super) fn int(n: i128) -> Q {
        Q { n, d: 1 }
    }

    /// The numerator when the value is whole.
    pub(super) fn as_int(self) -> Option<i128> {
        (self.d == 1).then_some(self.n)
    }

    fn is_zero(self) -> bool {
        self.n == 0
    }

    fn to_f64(self) -> f64 {
        self.n as f64 / self.d as f64
    }

    fn add(self, o: Q) -> Option<Q> {
        if self.d == 1 && o.d == 1 {
            return Some(Q::int(self.n.checked_add(o.n)?));
        }
        let g = i128::try_from(gcd(self.d.unsigned_abs(), o.d.unsigned_abs())).ok()?;
        let n = self
            .n
            .checked_mul(o.d / g)?
            .checked_add(o.n.checked_mul(self.d / g)?)?;
        Q::new(n, (self.d / g).checked_mul(o.d)?)
    }

    fn neg(self) -> Option<Q> {
        Some(Q {
            n: self.n.checked_neg()?,
            d: self.d,
        })
    }

    fn mul(self, o: Q) -> Option<Q> {
        if self.d == 1 && o.d == 1 {
            return Some(Q::int(self.n.checked_mul(o.n)?));
        }
        let a = Q::new(self.n, o.d)?;
        let b = Q::new(o.n, self.d)?;
        Q::new(a.n.checked_mul(b.n)?, a.d.checked_mul(b.d)?)
    }

    fn recip(self) -> Option<Q> {
        Q::new(self.d, self.n)
    }

    fn pow(self, k: i128) -> Option<Q> {
        if k.unsigned_abs() > 512 {
            return None;
        }
        let base = if k < 0 { self.recip()? } else { self };
        let mut acc = Q::int(1);
        let mut sq = base;
        let mut e = k.unsigned_abs();
        while e > 0 {
            if e & 1 == 1 {
                acc = acc.mul(sq)?;
            }
            e >>= 1;
            if e > 0 {
                sq = sq.mul(sq)?;
            }
        }
        Some(acc)
    }

    /// The exact `k`-th root, when numerator and denominator are perfect powers.
    fn root(self, k: u32) -> Option<Q> {
        if k == 0 || (self.n < 0 && k.is_multiple_of(2)) {
            return None;
        }
        let n = int_root(self.n.unsigned_abs(), k)?;
        let d = int_root(self.d.unsigned_abs(), k)?;
        let n = i128::try_from(n).ok()?;
        let d = i128::try_from(d).ok()?;
        Q::new(if self.n < 0 { -n } else { n }, d)
    }
}

/// The exact integer `k`-th root of `x`, if there is one.
fn int_root(x: u128, k: u32) -> Option<u128> {
    let guess = (x as f64).powf(1.0 / f64::from(k)).round();
    if !guess.is_finite() || guess < 0.0 {
        return None;
    }
    let g = guess as u128;
    [g.saturating_sub(1), g, g.saturating_add(1)]
        .into_iter()
        .find(|&c| c.checked_pow(k) == Some(x))
}

/// The precision a decimal literal states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Approx {
    /// The place of the last written digit: the literal is exact to 0.5 × 10^`last`.
    pub last: i64,
    /// Significant digits written (leading zeros not counted, trailing zeros counted).
    pub sig: u32,
}

/// The significant digits of a decimal: a number when they fit in 38 digits (most literals,
/// cheap to copy), else the text. Canonical, so each value has one representation.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Digits {
    Small(u128),
    Big(Arc<str>),
}

/// A decimal literal in canonical form: value = ±`digits` × 10^`exp`, no leading or trailing
/// zeros in `digits` (zero is `Small(0)` with exponent 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Dec {
    neg: bool,
    digits: Digits,
    exp: i64,
    /// Present when the literal had a decimal point (it may be a rounded value).
    approx: Option<Approx>,
}

impl Dec {
    fn from_lit(lit: &NumLit) -> Dec {
        let all = lit.digits.trim_start_matches('0');
        let sig = all.len() as u32;
        let trimmed = all.trim_end_matches('0');
        let tz = (all.len() - trimmed.len()) as i64;
        let last = i64::from(lit.exp) - i64::from(lit.frac);
        let digits = if trimmed.is_empty() {
            Digits::Small(0)
        } else if trimmed.len() <= 38 {
            trimmed
                .parse()
                .map_or_else(|_| Digits::Big(trimmed.into()), Digits::Small)
        } else {
            Digits::Big(trimmed.into())
        };
        Dec {
            neg: false,
            exp: if trimmed.is_empty() { 0 } else { last + tz },
            digits,
            approx: lit.point.then_some(Approx { last, sig }),
        }
    }

    fn is_zero(&self) -> bool {
        self.digits == Digits::Small(0)
    }

    fn same(&self, o: &Dec) -> bool {
        if self.is_zero() || o.is_zero() {
            return self.is_zero() && o.is_zero();
        }
        self.neg == o.neg && self.digits == o.digits && self.exp == o.exp
    }

    /// `Some(k)` when this is exactly 10^k.
    fn pow10(&self) -> Option<i64> {
        (!self.neg && self.digits == Digits::Small(1) && self.approx.is_none()).then_some(self.exp)
    }

    fn shift(&self, k: i64) -> Option<Dec> {
        let exp = self.exp.checked_add(k)?;
        if exp.abs() > MAX_EXP {
            return None;
        }
        Some(Dec {
            neg: self.neg,
            digits: self.digits.clone(),
            exp: if self.is_zero() { 0 } else { exp },
            approx: self.approx.map(|a| Approx {
                last: a.last.saturating_add(k),
                sig: a.sig,
            }),
        })
    }

    fn to_f64(&self) -> f64 {
        let sign = if self.neg { -1.0 } else { 1.0 };
        let s = match &self.digits {
            // Exact powers of ten up to 1e22 and mantissas below 2^53: one rounding only.
            Digits::Small(m) if *m < 1 << 53 && self.exp.abs() <= 22 => {
                let p = 10f64.powi(self.exp.unsigned_abs() as i32);
                let m = *m as f64;
                return sign * if self.exp >= 0 { m * p } else { m / p };
            }
            Digits::Small(m) => format!("{m}e{}", self.exp),
            Digits::Big(d) => format!("{d}e{}", self.exp),
        };
        sign * s.parse::<f64>().unwrap_or(f64::NAN)
    }

    fn to_q(&self) -> Option<Q> {
        let Digits::Small(m) = self.digits else {
            return None;
        };
        if self.exp.abs() > 38 {
            return None;
        }
        let mut n = i128::try_from(m).ok()?;
        if self.neg {
            n = -n;
        }
        let p = 10i128.checked_pow(self.exp.unsigned_abs() as u32)?;
        if self.exp >= 0 {
            Some(Q::int(n.checked_mul(p)?))
        } else {
            Q::new(n, p)
        }
    }
}

/// A real value with whatever exactness survived its arithmetic.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Real {
    /// The value as a float (±∞ for infinities and overflow).
    pub f: f64,
    /// The exact rational, when the arithmetic stayed rational and fits.
    q: Option<Q>,
    /// The written decimal, when the value is a plain literal (possibly signed or scaled by a
    /// power of ten); boxed, as most values are not literals and a value is moved often.
    dec: Option<Box<Dec>>,
    /// Whether this is `∞` written as such (not an overflow).
    inf: bool,
}

impl Real {
    /// The value of a number literal.
    pub(super) fn literal(lit: &NumLit) -> Real {
        let dec = Dec::from_lit(lit);
        Real {
            f: dec.to_f64(),
            q: dec.to_q(),
            dec: Some(Box::new(dec)),
            inf: false,
        }
    }

    /// An exact whole number (not a written literal).
    pub(super) fn int(n: i128) -> Real {
        Real {
            f: n as f64,
            q: Some(Q::int(n)),
            dec: None,
            inf: false,
        }
    }

    /// An exact rational.
    pub(super) fn rational(q: Q) -> Real {
        Real {
            f: q.to_f64(),
            q: Some(q),
            dec: None,
            inf: false,
        }
    }

    /// A value known only as a float (a closed form such as `\pi`).
    pub(super) fn float(f: f64) -> Real {
        Real {
            f,
            q: None,
            dec: None,
            inf: false,
        }
    }

    /// `∞` (or `-∞`).
    pub(super) fn infinity(neg: bool) -> Real {
        Real {
            f: if neg { f64::NEG_INFINITY } else { f64::INFINITY },
            q: None,
            dec: None,
            inf: true,
        }
    }

    /// The exact rational value, when the arithmetic kept one.
    pub(super) fn exact(&self) -> Option<Q> {
        if self.inf { None } else { self.q }
    }

    /// The value as a whole number, when it is exactly one.
    pub(super) fn as_int(&self) -> Option<i128> {
        self.q.and_then(Q::as_int)
    }

    /// Why this value cannot stand as an answer, if it cannot (not a real number, or too large
    /// to evaluate and not a written decimal).
    pub(super) fn check(&self) -> Result<(), String> {
        if self.f.is_nan() {
            return Err("not a real number".into());
        }
        if self.f.is_infinite() && !self.inf && self.dec.is_none() {
            return Err("too large to evaluate".into());
        }
        Ok(())
    }

    /// `-self`.
    pub(super) fn neg(&self) -> Real {
        Real {
            f: -self.f,
            q: self.q.and_then(Q::neg),
            dec: self.dec.as_ref().map(|d| {
                Box::new(Dec {
                    neg: !d.neg,
                    ..(**d).clone()
                })
            }),
            inf: self.inf,
        }
    }

    fn no_infinity(&self, o: &Real) -> Result<(), String> {
        if self.inf || o.inf {
            Err("arithmetic with ∞".into())
        } else {
            Ok(())
        }
    }

    /// `Σ aᵢ × bᵢ` (an entry of a matrix product): what adding the products one by one to `0`
    /// gives, without building each product.
    pub(super) fn dot<'a>(pairs: impl Iterator<Item = (&'a Real, &'a Real)>) -> Result<Real, String> {
        let (mut f, mut q) = (0.0, Some(Q::int(0)));
        for (a, b) in pairs {
            a.no_infinity(b)?;
            f += a.f * b.f;
            q = q
                .zip(a.q.zip(b.q).and_then(|(x, y)| x.mul(y)))
                .and_then(|(s, p)| s.add(p));
        }
        Ok(Real {
            f,
            q,
            dec: None,
            inf: false,
        })
    }

    /// `self + o`.
    pub(super) fn add(&self, o: &Real) -> Result<Real, String> {
        self.no_infinity(o)?;
        Ok(Real {
            f: self.f + o.f,
            q: self.q.zip(o.q).and_then(|(a, b)| a.add(b)),
            dec: None,
            inf: false,
        })
    }

    /// `self × o`.
    pub(super) fn mul(&self, o: &Real) -> Result<Real, String> {
        self.no_infinity(o)?;
        let dec = match (&self.dec, &o.dec) {
            (Some(a), Some(b)) => match (a.pow10(), b.pow10()) {
                (_, Some(k)) => a.shift(k).map(|d| Dec {
                    neg: a.neg != b.neg,
                    ..d
                }),
                (Some(k), None) => b.shift(k).map(|d| Dec {
                    neg: a.neg != b.neg,
                    ..d
                }),
                _ => None,
            },
            _ => None,
        };
        Ok(Real {
            f: self.f * o.f,
            q: self.q.zip(o.q).and_then(|(a, b)| a.mul(b)),
            dec: dec.map(Box::new),
            inf: false,
        })
    }

    /// `self / o`; dividing by zero is an error.
    pub(super) fn div(&self, o: &Real) -> Result<Real, String> {
        self.no_infinity(o)?;
        let zero = match o.q {
            Some(q) => q.is_zero(),
            None => o.f == 0.0,
        };
        if zero {
            return Err("division by zero".into());
        }
        Ok(Real {
            f: self.f / o.f,
            q: self.q.zip(o.q.and_then(Q::recip)).and_then(|(a, b)| a.mul(b)),
            dec: None,
            inf: false,
        })
    }

    /// `self ^ e`.
    pub(super) fn pow(&self, e: &Real) -> Result<Real, String> {
        self.no_infinity(e)?;
        let eq = e.q;
        let base_zero = self.q.map_or(self.f == 0.0, Q::is_zero);
        if base_zero && e.f < 0.0 {
            return Err("division by zero".into());
        }
        let dec = match (self.dec.as_deref().and_then(Dec::pow10), eq.and_then(Q::as_int)) {
            (Some(p), Some(k)) => i64::try_from(k)
                .ok()
                .and_then(|k| p.checked_mul(k))
                .filter(|x| x.abs() <= MAX_EXP)
                .map(|x| Dec {
                    neg: false,
                    digits: Digits::Small(1),
                    exp: x,
                    approx: None,
                }),
            _ => None,
        };
        let q = match (self.q, eq) {
            (Some(b), Some(x)) if x.d == 1 => b.pow(x.n),
            (Some(b), Some(x)) if x.d <= 64 => b.root(x.d as u32).and_then(|r| r.pow(x.n)),
            _ => None,
        };
        let f = if self.f < 0.0 && e.f.fract() != 0.0 {
            // A negative base takes only rational exponents with an odd denominator.
            match eq {
                Some(x) if x.d % 2 == 1 => {
                    let m = (-self.f).powf(e.f);
                    if x.n % 2 == 0 { m } else { -m }
                }
                _ => return Err("not a real number".into()),
            }
        } else {
            self.f.powf(e.f)
        };
        let f = match q {
            Some(q) => q.to_f64(),
            None => f,
        };
        Ok(Real {
            f,
            q,
            dec: dec.map(Box::new),
            inf: false,
        })
    }

    /// The `k`-th root (`\sqrt[k]{x}`); an even root of a negative number is an error.
    pub(super) fn root(&self, k: &Real) -> Result<Real, String> {
        let Some(k) = k.as_int().filter(|k| (1..=1_000_000).contains(k)) else {
            return Err("a root's index must be a whole number".into());
        };
        if self.inf {
            return if self.f > 0.0 {
                Ok(self.clone())
            } else {
                Err("not a real number".into())
            };
        }
        if self.f < 0.0 && k % 2 == 0 {
            return Err("not a real number".into());
        }
        let q = self.q.and_then(|q| u32::try_from(k).ok().and_then(|k| q.root(k)));
        let f = match q {
            Some(q) => q.to_f64(),
            None if self.f < 0.0 => -(-self.f).powf(1.0 / k as f64),
            None => self.f.powf(1.0 / k as f64),
        };
        Ok(Real {
            f,
            q,
            dec: None,
            inf: false,
        })
    }

    /// `self × 10^k` keeping the written decimal (for percentages).
    pub(super) fn scale10(&self, k: i64) -> Real {
        let q = Q::int(10).pow(i128::from(k));
        Real {
            f: self.f * 10f64.powi(k as i32),
            q: self.q.zip(q).and_then(|(a, b)| a.mul(b)),
            dec: self.dec.as_ref().and_then(|d| d.shift(k)).map(Box::new),
            inf: self.inf,
        }
    }

    /// The stated precision, when this is a decimal approximation (a literal with a decimal
    /// point and at least three significant digits).
    fn approximation(&self) -> Option<Approx> {
        self.dec.as_ref()?.approx.filter(|a| a.sig >= 3)
    }

    /// How far from `f` a value may be and still be [`Real::same`] as this one: the widest
    /// tolerance any rule allows this side (zero for infinities).
    pub(super) fn slack(&self) -> f64 {
        if !self.f.is_finite() {
            return 0.0;
        }
        let approx = self.approximation().map_or(0.0, |a| {
            0.5 * 10f64.powi(a.last.clamp(-400, 400) as i32) * (1.0 + 1e-9)
        });
        (REL_TOL * self.f.abs()).max(ABS_TOL).max(approx)
    }

    /// Whether the two values are the same number, by the rules in the module doc.
    pub(super) fn same(&self, o: &Real) -> bool {
        self.same_as(o, true)
    }

    /// [`Real::same`], with rule 5 (a rounded decimal equals what it rounds) only when
    /// `rounding`.
    pub(super) fn same_as(&self, o: &Real, rounding: bool) -> bool {
        if self.inf || o.inf {
            return self.inf && o.inf && (self.f > 0.0) == (o.f > 0.0);
        }
        if let (Some(a), Some(b)) = (&self.dec, &o.dec) {
            return a.same(b);
        }
        let approx = rounding && (self.approximation().is_some() || o.approximation().is_some());
        if let (Some(a), Some(b)) = (self.q, o.q) {
            if a == b {
                return true;
            }
            if !approx {
                return false;
            }
        }
        if !self.f.is_finite() || !o.f.is_finite() {
            return false;
        }
        if close(self.f, o.f, REL_TOL, ABS_TOL) {
            return true;
        }
        if !rounding {
            return false;
        }
        // Rule 5: one side is a decimal approximation of the other (which is not a literal).
        let stated = match (self.approximation(), o.approximation()) {
            (Some(a), None) if o.dec.is_none() => a,
            (None, Some(b)) if self.dec.is_none() => b,
            _ => return false,
        };
        let half = 0.5 * 10f64.powi(stated.last.clamp(-400, 400) as i32);
        (self.f - o.f).abs() <= half * (1.0 + 1e-9)
    }
}

/// Whether `a` and `b` agree within relative tolerance `rel` (or absolute `abs` near zero).
pub(super) fn close(a: f64, b: f64, rel: f64, abs: f64) -> bool {
    let d = (a - b).abs();
    d <= abs || d <= rel * a.abs().max(b.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(digits: &str, frac: u32, exp: i32) -> Real {
        Real::literal(&NumLit {
            digits: digits.into(),
            frac,
            exp,
            point: frac > 0,
        })
    }

    #[test]
    fn literals_compare_exactly() {
        assert!(lit("050", 2, 0).same(&lit("5", 1, 0)));
        assert!(lit("12", 0, -1).same(&lit("12", 1, 0)));
        assert!(!lit("1000000", 0, 0).same(&lit("1000001", 0, 0)));
        assert!(lit("000", 0, 0).same(&lit("0", 0, 0).neg()));
    }

    #[test]
    fn rationals_are_exact() {
        let third = Real::int(1).div(&Real::int(3)).unwrap();
        let two_sixths = Real::int(2).div(&Real::int(6)).unwrap();
        assert!(third.same(&two_sixths));
        assert!(
            !third.same(
                &Real::int(1)
                    .div(&Real::int(3))
                    .unwrap()
                    .add(&Real::float(1e-9))
                    .unwrap()
                    .neg()
            )
        );
        assert!(third.same(&lit("333", 3, 0)));
        assert!(!third.same(&lit("33", 2, 0)));
        assert!(!third.same(&lit("3", 1, 0)));
    }

    #[test]
    fn powers_of_ten_keep_the_decimal() {
        let sci = lit("12", 1, 0)
            .mul(&lit("10", 0, 0).pow(&Real::int(-3)).unwrap())
            .unwrap();
        assert!(sci.same(&lit("0012", 4, 0)));
        assert!(!sci.same(&lit("0013", 4, 0)));
    }

    #[test]
    fn roots_and_errors() {
        assert_eq!(Real::int(8).root(&Real::int(3)).unwrap().as_int(), Some(2));
        assert_eq!(Real::int(-8).root(&Real::int(3)).unwrap().as_int(), Some(-2));
        assert!(Real::int(-4).root(&Real::int(2)).is_err());
        assert!(Real::int(1).div(&Real::int(0)).is_err());
        assert!(Real::int(-8).pow(&Real::float(0.5)).is_err());
        let q = Q::new(1, 3).unwrap();
        assert_eq!(Real::int(-8).pow(&Real::rational(q)).unwrap().as_int(), Some(-2));
    }
}

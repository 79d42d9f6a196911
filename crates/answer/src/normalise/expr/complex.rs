//! Formulas over the complex numbers: the letter `i` read as the imaginary unit, so that
//! `(3+i)(1-2i)` is `5-5i`, `i^2` is `-1` and `e^{i\pi}` is `-1`. Sums, products, quotients
//! and whole powers of complex values are exact where their parts stay rational; a positive
//! real raised to a complex power (`e^{i\theta}`), `\exp` of a complex value and the modulus
//! `|3+4i|` are computed in floating point. Everything else (a root, logarithm, factorial or
//! trigonometric function of a non-real value) is not read over the complex numbers: the
//! evaluation then gives no value, and the comparison keeps its reading of `i` as a variable.
//! `j` stays a variable: it is an index or an unknown far more often than an engineer's
//! imaginary unit in the answers graded here.

use super::{Ast, Env, Func, Node, Op, apply, binomial, extreme, factorial, log_base, opaque};
use crate::normalise::number::{Q, Real};

/// The largest whole exponent taken by repeated multiplication (as for exact real powers).
const MAX_POWER: i128 = 512;

/// A complex value, its real and imaginary parts each with the exactness it kept.
#[derive(Debug, Clone)]
pub(in crate::normalise) struct Complex {
    pub re: Real,
    pub im: Real,
}

impl Complex {
    /// A real value.
    pub(in crate::normalise) fn real(re: Real) -> Complex {
        Complex { re, im: Real::int(0) }
    }

    /// The real value, when the imaginary part is exactly zero.
    fn as_real(&self) -> Option<&Real> {
        let zero = self.im.exact().map_or(self.im.f == 0.0, |q| q == Q::int(0));
        zero.then_some(&self.re)
    }

    fn neg(&self) -> Complex {
        Complex {
            re: self.re.neg(),
            im: self.im.neg(),
        }
    }

    fn add(&self, o: &Complex) -> Result<Complex, String> {
        Ok(Complex {
            re: self.re.add(&o.re)?,
            im: self.im.add(&o.im)?,
        })
    }

    fn mul(&self, o: &Complex) -> Result<Complex, String> {
        Ok(Complex {
            re: self.re.mul(&o.re)?.add(&self.im.mul(&o.im)?.neg())?,
            im: self.re.mul(&o.im)?.add(&self.im.mul(&o.re)?)?,
        })
    }

    fn div(&self, o: &Complex) -> Result<Complex, String> {
        let norm = o.re.mul(&o.re)?.add(&o.im.mul(&o.im)?)?;
        let re = self.re.mul(&o.re)?.add(&self.im.mul(&o.im)?)?;
        let im = self.im.mul(&o.re)?.add(&self.re.mul(&o.im)?.neg())?;
        Ok(Complex {
            re: re.div(&norm)?,
            im: im.div(&norm)?,
        })
    }

    /// `|z|`.
    fn modulus(&self) -> Result<Real, String> {
        self.re
            .mul(&self.re)?
            .add(&self.im.mul(&self.im)?)?
            .root(&Real::int(2))
    }

    /// `e^z`.
    fn exp(&self) -> Complex {
        let m = self.re.f.exp();
        Complex {
            re: Real::float(m * self.im.f.cos()),
            im: Real::float(m * self.im.f.sin()),
        }
    }

    fn pow(&self, e: &Complex) -> Result<Complex, String> {
        if let (Some(b), Some(x)) = (self.as_real(), e.as_real()) {
            return Ok(Complex::real(b.pow(x)?));
        }
        if let Some(n) = e.as_real().and_then(Real::as_int) {
            if n.abs() > MAX_POWER {
                return Err("a complex power too large to evaluate".into());
            }
            let mut acc = Complex::real(Real::int(1));
            let mut base = self.clone();
            let mut k = n.unsigned_abs();
            while k > 0 {
                if k & 1 == 1 {
                    acc = acc.mul(&base)?;
                }
                k >>= 1;
                if k > 0 {
                    base = base.mul(&base)?;
                }
            }
            return if n < 0 {
                Complex::real(Real::int(1)).div(&acc)
            } else {
                Ok(acc)
            };
        }
        // A positive real base to a complex power: `b^z = e^{z ln b}`.
        match self.as_real() {
            Some(b) if b.f > 0.0 => {
                let ln = Real::float(b.f.ln());
                Ok(Complex {
                    re: e.re.mul(&ln)?,
                    im: e.im.mul(&ln)?,
                }
                .exp())
            }
            _ => Err("a power not read over the complex numbers".into()),
        }
    }
}

impl Ast {
    /// Whether the formula names the variable `i` (read as the imaginary unit by
    /// [`Ast::at_complex`]).
    pub(in crate::normalise) fn names_i(&self) -> bool {
        self.vars.iter().any(|v| &**v == "i")
    }

    /// The value at a point with `i` the imaginary unit (`vars` in the order of
    /// [`Ast::vars`], the entry for `i` ignored; `pm` the sign of `±`); `None` where the
    /// formula is undefined there or not read over the complex numbers.
    pub(in crate::normalise) fn at_complex(&self, vars: &[Real], pm: i8) -> Option<Complex> {
        let unit = self.vars.iter().position(|v| &**v == "i");
        let z = self.eval_complex(self.root, &Env { vars, pm }, unit).ok()?;
        (z.re.f.is_finite() && z.im.f.is_finite()).then_some(z)
    }

    fn eval_complex(&self, id: u32, env: &Env<'_>, unit: Option<usize>) -> Result<Complex, String> {
        let real_arg = |k: u32| -> Result<Real, String> {
            let z = self.eval_complex(k, env, unit)?;
            z.as_real()
                .cloned()
                .ok_or_else(|| "a function not read over the complex numbers".to_string())
        };
        let z = match &self.nodes[id as usize] {
            Node::Lit(r) => Complex::real(r.clone()),
            Node::Var(v) if Some(*v as usize) == unit => Complex {
                re: Real::int(0),
                im: Real::int(1),
            },
            Node::Var(v) => Complex::real(
                env.vars
                    .get(*v as usize)
                    .cloned()
                    .unwrap_or_else(|| Real::float(f64::NAN)),
            ),
            Node::Neg(a) => self.eval_complex(*a, env, unit)?.neg(),
            Node::Sum(start, len) => {
                let mut acc = Complex::real(Real::int(0));
                for &(op, k) in &self.kids[*start as usize..(*start + *len) as usize] {
                    let v = self.eval_complex(k, env, unit)?;
                    let minus = match op {
                        Op::Sub => true,
                        Op::Pm => env.pm < 0,
                        Op::Mp => env.pm > 0,
                        _ => false,
                    };
                    acc = acc.add(&if minus { v.neg() } else { v })?;
                }
                acc
            }
            Node::Prod(start, len) => {
                let mut acc = Complex::real(Real::int(1));
                for &(op, k) in &self.kids[*start as usize..(*start + *len) as usize] {
                    let v = self.eval_complex(k, env, unit)?;
                    acc = if op == Op::Div { acc.div(&v)? } else { acc.mul(&v)? };
                }
                acc
            }
            Node::Pow(b, e) => self
                .eval_complex(*b, env, unit)?
                .pow(&self.eval_complex(*e, env, unit)?)?,
            Node::Abs(a) => Complex::real(self.eval_complex(*a, env, unit)?.modulus()?),
            Node::Func(Func::Exp, a) => self.eval_complex(*a, env, unit)?.exp(),
            Node::Func(f, a) => Complex::real(apply(*f, &real_arg(*a)?)?),
            Node::Root(k, x) => Complex::real(real_arg(*x)?.root(&real_arg(*k)?)?),
            Node::Fact(a) => Complex::real(factorial(&real_arg(*a)?)?),
            Node::Binom(n, k) => Complex::real(binomial(&real_arg(*n)?, &real_arg(*k)?)?),
            Node::LogBase(b, a) => Complex::real(log_base(&real_arg(*b)?, &real_arg(*a)?)?),
            Node::MinMax(max, start, len) => {
                Complex::real(extreme(*max, self.args(*start, *len, real_arg)?)?)
            }
            Node::Opaque(op, start, len) => {
                Complex::real(opaque(*op, &mut self.args(*start, *len, real_arg)?))
            }
            Node::Degrees(a) => Complex::real(Real::float(real_arg(*a)?.f.to_radians())),
        };
        if z.re.f.is_nan() || z.im.f.is_nan() {
            return Err("not a number".into());
        }
        Ok(z)
    }
}

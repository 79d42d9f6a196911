//! The integer expressions of a kernel task (buffer lengths, scalar values, launch geometry),
//! evaluated over one problem size's variables.
//!
//! Grammar: integers, variable names, `+ - * / %` with the usual precedence, unary minus,
//! parentheses, and the functions `ceil_div(a, b)`, `min(a, b)`, `max(a, b)`. `/` and `%` are
//! integer division and remainder truncating toward zero (as in C). Every operation is checked:
//! an overflow, a division by zero or an unknown name is an error naming the expression and the
//! place, never a wrapped value.
//!
//! An expression may come from a candidate (a Triton kernel's launch grid), so its size is
//! bounded before it is read: at most [`MAX_LEN`] bytes and [`MAX_DEPTH`] nested parentheses,
//! calls or unary minuses, so no text can exhaust the parser's stack.

use std::collections::BTreeMap;

/// Why an expression could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expression `{expr}` at byte {at}: {message}")]
pub struct ExprError {
    /// The expression as written.
    pub expr: String,
    /// Byte offset of the problem.
    pub at: usize,
    /// What is wrong.
    pub message: String,
}

/// Longest expression read, bytes.
pub(crate) const MAX_LEN: usize = 4096;

/// Deepest nesting read (parentheses, function calls and unary minuses together).
pub(crate) const MAX_DEPTH: u32 = 64;

/// Evaluates `expr` with the variables of one problem size.
pub fn eval_expr(expr: &str, vars: &BTreeMap<String, i64>) -> Result<i64, ExprError> {
    if expr.len() > MAX_LEN {
        return Err(ExprError {
            expr: format!("{}…", expr.chars().take(64).collect::<String>()),
            at: MAX_LEN,
            message: format!(
                "the expression is {} bytes long; at most {MAX_LEN} are read",
                expr.len()
            ),
        });
    }
    let mut p = Parser {
        src: expr,
        bytes: expr.as_bytes(),
        pos: 0,
        vars,
        depth: 0,
    };
    let v = p.expr()?;
    p.skip_ws();
    if p.pos != p.bytes.len() {
        return Err(p.err("unexpected text after the expression"));
    }
    Ok(v)
}

/// Evaluates an expression that must be a non-negative count (a length or a geometry value).
pub fn eval_count(expr: &str, vars: &BTreeMap<String, i64>) -> Result<u64, ExprError> {
    let v = eval_expr(expr, vars)?;
    u64::try_from(v).map_err(|_| ExprError {
        expr: expr.to_string(),
        at: 0,
        message: format!("is {v}; a count must not be negative"),
    })
}

/// The last factor of an expression that is a product at its top level (`rows * cols` gives
/// `cols`; `(a + b) * 4` gives `4`), as written; `None` for anything else (`n`, `a * b + 1`).
pub fn last_factor(expr: &str) -> Option<String> {
    let mut depth = 0i32;
    let mut last_star = None;
    for (i, c) in expr.bytes().enumerate() {
        match c {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'*' if depth == 0 => last_star = Some(i),
            b'+' | b'-' | b'/' | b'%' if depth == 0 => return None,
            _ => {}
        }
    }
    let f = expr[last_star? + 1..].trim();
    (!f.is_empty()).then(|| f.to_string())
}

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    vars: &'a BTreeMap<String, i64>,
    /// Nesting of the production being read.
    depth: u32,
}

impl Parser<'_> {
    fn err(&self, message: impl Into<String>) -> ExprError {
        ExprError {
            expr: self.src.to_string(),
            at: self.pos,
            message: message.into(),
        }
    }

    fn skip_ws(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.bytes.get(self.pos).copied()
    }

    /// One level deeper, refused past [`MAX_DEPTH`].
    fn deeper(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(format!("nested more than {MAX_DEPTH} deep")));
        }
        Ok(())
    }

    fn overflow(&self) -> ExprError {
        self.err("arithmetic overflow")
    }

    fn expr(&mut self) -> Result<i64, ExprError> {
        let mut v = self.term()?;
        loop {
            match self.peek() {
                Some(b'+') => {
                    self.pos += 1;
                    let r = self.term()?;
                    v = v.checked_add(r).ok_or_else(|| self.overflow())?;
                }
                Some(b'-') => {
                    self.pos += 1;
                    let r = self.term()?;
                    v = v.checked_sub(r).ok_or_else(|| self.overflow())?;
                }
                _ => return Ok(v),
            }
        }
    }

    fn term(&mut self) -> Result<i64, ExprError> {
        let mut v = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(c @ (b'*' | b'/' | b'%')) => c,
                _ => return Ok(v),
            };
            self.pos += 1;
            let at = self.pos;
            let r = self.unary()?;
            v = match op {
                b'*' => v.checked_mul(r).ok_or_else(|| self.overflow())?,
                _ if r == 0 => {
                    self.pos = at;
                    return Err(self.err("division by zero"));
                }
                b'/' => v.checked_div(r).ok_or_else(|| self.overflow())?,
                _ => v.checked_rem(r).ok_or_else(|| self.overflow())?,
            };
        }
    }

    fn unary(&mut self) -> Result<i64, ExprError> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
            self.deeper()?;
            let v = self.unary()?;
            self.depth -= 1;
            return v.checked_neg().ok_or_else(|| self.overflow());
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<i64, ExprError> {
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                self.deeper()?;
                let v = self.expr()?;
                self.expect(b')')?;
                self.depth -= 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.pos;
                while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_digit() {
                    self.pos += 1;
                }
                self.src[start..self.pos].parse::<i64>().map_err(|_| {
                    self.pos = start;
                    self.err("integer too large")
                })
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let start = self.pos;
                while self.pos < self.bytes.len()
                    && (self.bytes[self.pos].is_ascii_alphanumeric() || self.bytes[self.pos] == b'_')
                {
                    self.pos += 1;
                }
                let name = &self.src[start..self.pos];
                if self.peek() == Some(b'(') {
                    self.pos += 1;
                    self.deeper()?;
                    let a = self.expr()?;
                    self.expect(b',')?;
                    let b = self.expr()?;
                    self.expect(b')')?;
                    self.depth -= 1;
                    return match name {
                        "min" => Ok(a.min(b)),
                        "max" => Ok(a.max(b)),
                        "ceil_div" => {
                            if b <= 0 {
                                return Err(self.err("ceil_div needs a positive divisor"));
                            }
                            let q = a.checked_add(b - 1).ok_or_else(|| self.overflow())?;
                            Ok(q.div_euclid(b))
                        }
                        _ => {
                            self.pos = start;
                            Err(self.err(format!("unknown function `{name}` (known: ceil_div, min, max)")))
                        }
                    };
                }
                self.vars.get(name).copied().ok_or_else(|| {
                    self.pos = start;
                    let known: Vec<&str> = self.vars.keys().map(String::as_str).collect();
                    self.err(format!("unknown variable `{name}` (known: {})", known.join(", ")))
                })
            }
            Some(_) => Err(self.err("expected a number, a name or `(`")),
            None => Err(self.err("unexpected end of expression")),
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), ExprError> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(format!("expected `{}`", c as char)))
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_last_factor_of_a_product_names_a_row() {
        assert_eq!(last_factor("rows * cols").as_deref(), Some("cols"));
        assert_eq!(last_factor("(a + b) * 4").as_deref(), Some("4"));
        assert_eq!(last_factor("b * m * k").as_deref(), Some("k"));
        assert_eq!(last_factor("n"), None);
        assert_eq!(last_factor("a * b + 1"), None);
        assert_eq!(last_factor("n * 2 - 1"), None);
    }

    use super::*;

    fn vars() -> BTreeMap<String, i64> {
        [
            ("n".to_string(), 1000),
            ("rows".to_string(), 33),
            ("cols".to_string(), 65),
        ]
        .into_iter()
        .collect()
    }

    #[test]
    fn precedence_functions_and_variables() {
        let v = vars();
        assert_eq!(eval_expr("n", &v), Ok(1000));
        assert_eq!(eval_expr("1 + 2 * 3", &v), Ok(7));
        assert_eq!(eval_expr("(1 + 2) * 3", &v), Ok(9));
        assert_eq!(eval_expr("rows * cols", &v), Ok(2145));
        assert_eq!(eval_expr("ceil_div(n, 256)", &v), Ok(4));
        assert_eq!(eval_expr("ceil_div(1024, 256)", &v), Ok(4));
        assert_eq!(eval_expr("min(rows, cols) + max(rows, cols)", &v), Ok(98));
        assert_eq!(eval_expr("-n % 7", &v), Ok(-1000 % 7));
        assert_eq!(eval_expr(" 7 / 2 - 10 / -3 ", &v), Ok(3 + 3));
    }

    #[test]
    fn deep_or_long_text_is_refused_with_a_reason_not_a_stack_overflow() {
        let v = vars();
        for deep in [
            format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000)),
            format!("{}1", "-".repeat(100_000)),
            format!("{}1{}", "min(1, ".repeat(5_000), ")".repeat(5_000)),
        ] {
            let e = eval_expr(&deep, &v).unwrap_err();
            assert!(
                e.message.contains("nested more than") || e.message.contains("at most"),
                "{}",
                e.message
            );
        }
        let nested = format!(
            "{}1{}",
            "(".repeat(MAX_DEPTH as usize),
            ")".repeat(MAX_DEPTH as usize)
        );
        assert_eq!(eval_expr(&nested, &v), Ok(1));
        let e = eval_expr(&format!("(({}1)))", "(".repeat(MAX_DEPTH as usize)), &v).unwrap_err();
        assert!(e.message.contains("nested more than 64 deep"), "{}", e.message);
        let e = eval_expr(&"1+".repeat(3000), &v).unwrap_err();
        assert!(e.message.contains("at most 4096"), "{}", e.message);
    }

    #[test]
    fn errors_name_the_place_and_the_problem() {
        let v = vars();
        let e = eval_expr("n / (rows - 33)", &v).unwrap_err();
        assert!(e.message.contains("division by zero"), "{e}");
        let e = eval_expr("n + m", &v).unwrap_err();
        assert_eq!(e.at, 4);
        assert!(e.message.contains("unknown variable `m`"), "{e}");
        let e = eval_expr("pow(n, 2)", &v).unwrap_err();
        assert!(e.message.contains("unknown function `pow`"), "{e}");
        assert!(
            eval_expr("9223372036854775807 + 1", &v)
                .unwrap_err()
                .message
                .contains("overflow")
        );
        assert!(eval_expr("n n", &v).is_err());
        assert!(eval_expr("(n", &v).is_err());
        assert!(eval_expr("", &v).is_err());
        assert!(eval_expr("ceil_div(n, 0)", &v).is_err());
        assert!(eval_count("0 - n", &v).is_err());
        assert_eq!(eval_count("n * 4", &v), Ok(4000));
    }
}

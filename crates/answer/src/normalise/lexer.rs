//! The single-pass tokenizer behind answer comparison. It turns an answer (plain text, LaTeX or a
//! mix) into a small vector of tokens in one left-to-right pass: numbers with their digit groups
//! joined (`12,345`, `12 345`, `12\,345`, `12{,}345`, `12 {, }345`), words, variables, operators
//! and the LaTeX commands the reader knows. Wrappers that only change how text looks (`\text{}`,
//! `\mathrm{}`, `\boxed{}`, `\left`, spacing commands, math delimiters) vanish here, so the reader
//! never sees them. Braces must balance; an unknown command is an error, never skipped (but a
//! wide space run into the next word, `\quadx`, is the space and the word).

use crate::extract::connectors_only;

/// A number as written: its digits without separators, where the decimal point was, and the
/// exponent of scientific notation (`1.2e-3`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NumLit {
    /// Integer and fraction digits, without separators (ASCII digits only).
    pub digits: String,
    /// How many of `digits` follow the decimal point.
    pub frac: u32,
    /// The written exponent (`e-3` gives -3), bounded to ±1,000,000.
    pub exp: i32,
    /// Whether a decimal point was written.
    pub point: bool,
}

impl NumLit {
    /// A whole number written without point or exponent (`12`, `1,000`).
    pub(super) fn is_plain_int(&self) -> bool {
        !self.point && self.exp == 0
    }

    /// The literal with separators removed (`12,345.5` gives `12345.5`), for text comparison.
    pub(super) fn render(&self, out: &mut String) {
        let int_len = self.digits.len() - self.frac as usize;
        out.push_str(&self.digits[..int_len]);
        if self.point {
            out.push('.');
            out.push_str(&self.digits[int_len..]);
        }
        if self.exp != 0 {
            out.push('e');
            out.push_str(&self.exp.to_string());
        }
    }
}

/// An elementary function the evaluator knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Func {
    Sin,
    Cos,
    Tan,
    Sec,
    Csc,
    Cot,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Ln,
    Log,
    Exp,
    /// `\min(a, b, …)`: read from the command only (a plain `min` is also minutes).
    Min,
    /// `\max(a, b, …)`.
    Max,
}

impl Func {
    /// The function a plain or LaTeX name stands for (`sin`, `\arctan`, `ln`).
    pub(super) fn from_name(name: &str) -> Option<Func> {
        Some(match name {
            "sin" => Func::Sin,
            "cos" => Func::Cos,
            "tan" => Func::Tan,
            "sec" => Func::Sec,
            "csc" => Func::Csc,
            "cot" => Func::Cot,
            "arcsin" => Func::Asin,
            "arccos" => Func::Acos,
            "arctan" => Func::Atan,
            "sinh" => Func::Sinh,
            "cosh" => Func::Cosh,
            "tanh" => Func::Tanh,
            "ln" => Func::Ln,
            "log" => Func::Log,
            "exp" => Func::Exp,
            _ => return None,
        })
    }

    /// Whether the argument is an angle (so `30^\circ` inside it means degrees).
    pub(super) fn takes_angle(self) -> bool {
        matches!(
            self,
            Func::Sin | Func::Cos | Func::Tan | Func::Sec | Func::Csc | Func::Cot
        )
    }
}

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tk {
    /// A number literal.
    Num(NumLit),
    /// A repeating decimal (`0.\overline{3}`, `1.2\overline{45}`): its exact value `n / d`.
    Rational(i128, i128),
    /// A single ASCII letter (a variable, or a multiple-choice letter).
    Letter(char),
    /// A Greek letter, by its LaTeX name (`alpha`); a variable.
    Greek(&'static str),
    /// A run of two or more letters (or a letter followed by digits), as written.
    Word(String),
    /// Any other symbol, kept for text comparison.
    Sym(char),
    Plus,
    Minus,
    /// `\pm`, `±`.
    Pm,
    /// `\mp`, `∓`.
    Mp,
    /// `*`, `\cdot`, `\times`, `×`, `·`.
    Times,
    /// `/`, `\div`, `÷`.
    Div,
    Caret,
    Under,
    LParen,
    RParen,
    LBrack,
    RBrack,
    /// A LaTeX group `{`.
    LBrace,
    /// A LaTeX group `}`.
    RBrace,
    /// A set brace `\{`.
    LSet,
    /// A set brace `\}`.
    RSet,
    LAngle,
    RAngle,
    Comma,
    Semi,
    Colon,
    Dot,
    Bang,
    Bar,
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
    Approx,
    /// `\in`, `∈`.
    In,
    /// `\cup`, `∪`.
    Cup,
    Percent,
    /// `$` used as a currency sign (or `\$`).
    Dollar,
    /// Another currency sign (`€`, `£`, `¥`, `¢`).
    Currency(char),
    /// `\circ`, `°`, `\degree`.
    Degree,
    Prime,
    /// `&` (a matrix column separator).
    Amp,
    /// `\\` (a matrix row separator).
    RowSep,
    /// `\ldots`, `\cdots`, `…`.
    Ellipsis,
    /// `\quad`, `\qquad`: wide space between answers, read as a list separator.
    Quad,
    Infty,
    Pi,
    Frac,
    Binom,
    Sqrt,
    Fn(Func),
    /// `\begin{pmatrix}` and the other matrix environments.
    MatBegin,
    /// `\end{pmatrix}`.
    MatEnd,
}

/// One token with the layout facts the reader needs.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    /// What it is.
    pub tk: Tk,
    /// Whether whitespace (or a LaTeX space) came right before it.
    pub space: bool,
    /// Whether it came from inside a text wrapper (`\text{}`, `\mathrm{}`).
    pub text: bool,
}

/// What a brace group does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    /// A plain LaTeX group; its braces become tokens.
    Plain,
    /// The argument of a wrapper (`\mathbf{}`); its braces vanish.
    Wrapper,
    /// The argument of a box (`\boxed{}`, `\fbox{}`); its braces vanish.
    Box,
    /// The argument of a text wrapper (`\text{}`); its braces vanish and its tokens are marked.
    Text,
}

/// What a LaTeX command does in the lexer.
enum Cmd {
    Tok(Tk),
    Wrapper { text: bool },
    Box,
    Space,
    Discard,
    Delimiter,
    Begin,
    End,
    EmptySet,
    Reals,
    Unknown,
}

/// The tokens of `src`, or why it cannot be read (unbalanced braces, an unknown command, an
/// unsupported environment).
pub(super) fn lex(src: &str) -> Result<Vec<Token>, String> {
    Lexer {
        src,
        b: src.as_bytes(),
        i: 0,
        out: Vec::with_capacity(src.len() / 3 + 4),
        groups: Vec::new(),
        text_depth: 0,
        brackets: 0,
        space: false,
        dollars_delimit: dollars_are_delimiters(src.as_bytes()),
        envs: Vec::new(),
        last_box: None,
    }
    .run()
}

/// True when the unescaped `$` signs pair up as math delimiters (an even number, at least two);
/// otherwise a `$` is a currency sign.
fn dollars_are_delimiters(b: &[u8]) -> bool {
    let mut n = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'$' => n += 1,
            _ => {}
        }
        i += 1;
    }
    n >= 2 && n.is_multiple_of(2)
}

struct Lexer<'s> {
    src: &'s str,
    b: &'s [u8],
    i: usize,
    out: Vec<Token>,
    groups: Vec<Group>,
    text_depth: u32,
    /// Open `(`, `[`, `\{` minus closed ones: a comma is a thousands separator only at zero.
    brackets: i32,
    space: bool,
    dollars_delimit: bool,
    /// Open environments, innermost last: `true` for a display environment (`align*`,
    /// `cases`…) whose `&` vanish and whose `\\` separate answers, `false` for a matrix.
    envs: Vec<bool>,
    /// The byte after the last box's closing brace and the tokens there were then.
    last_box: Option<(usize, usize)>,
}

/// Display environments whose lines are answers (`&` alignment marks vanish, `\\` separates).
const DISPLAY_ENVS: &[&str] = &[
    "align",
    "aligned",
    "alignat",
    "alignedat",
    "equation",
    "gather",
    "gathered",
    "split",
    "eqnarray",
    "multline",
    "cases",
    "dcases",
    "displaymath",
    "math",
];

impl Lexer<'_> {
    /// Whether the innermost open environment is a display environment.
    fn in_display(&self) -> bool {
        self.envs.last() == Some(&true)
    }

    fn push(&mut self, tk: Tk) {
        match tk {
            Tk::LParen | Tk::LBrack | Tk::LSet | Tk::LAngle => self.brackets += 1,
            Tk::RParen | Tk::RBrack | Tk::RSet | Tk::RAngle => self.brackets -= 1,
            _ => {}
        }
        self.out.push(Token {
            tk,
            space: self.space,
            text: self.text_depth > 0,
        });
        self.space = false;
    }

    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    fn run(mut self) -> Result<Vec<Token>, String> {
        while self.i < self.b.len() {
            let c = self.b[self.i];
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | b'~' => {
                    self.space = true;
                    self.i += 1;
                }
                b'0'..=b'9' => self.number(),
                b'.' if self.at(self.i + 1).is_ascii_digit()
                    && !(self.i > 0 && self.b[self.i - 1].is_ascii_digit()) =>
                {
                    self.number()
                }
                b'a'..=b'z' | b'A'..=b'Z' => self.word(),
                b'\\' => self.command()?,
                b'{' => {
                    self.groups.push(Group::Plain);
                    self.push(Tk::LBrace);
                    self.i += 1;
                }
                b'&' if self.in_display() => {
                    self.space = true;
                    self.i += 1;
                }
                b'}' => {
                    match self.groups.pop() {
                        None => return Err("unbalanced braces: a `}` closes nothing".into()),
                        Some(Group::Plain) => self.push(Tk::RBrace),
                        Some(Group::Text) => self.text_depth -= 1,
                        Some(Group::Wrapper) => {}
                        Some(Group::Box) => self.last_box = Some((self.i + 1, self.out.len())),
                    }
                    self.i += 1;
                }
                b'$' => {
                    if self.dollars_delimit {
                        self.space = true;
                    } else {
                        self.push(Tk::Dollar);
                    }
                    self.i += 1;
                }
                b'*' if self.at(self.i + 1) == b'*' => {
                    self.push(Tk::Caret);
                    self.i += 2;
                }
                b'=' if self.at(self.i + 1) == b'=' => {
                    self.push(Tk::Eq);
                    self.i += 2;
                }
                b'<' if self.at(self.i + 1) == b'=' => {
                    self.push(Tk::Le);
                    self.i += 2;
                }
                b'>' if self.at(self.i + 1) == b'=' => {
                    self.push(Tk::Ge);
                    self.i += 2;
                }
                b'!' if self.at(self.i + 1) == b'=' => {
                    self.push(Tk::Ne);
                    self.i += 2;
                }
                0x80.. => self.unicode(),
                _ => {
                    let tk = match c {
                        b'+' => Tk::Plus,
                        b'-' => Tk::Minus,
                        b'*' => Tk::Times,
                        b'/' => Tk::Div,
                        b'^' => Tk::Caret,
                        b'_' => Tk::Under,
                        b'(' => Tk::LParen,
                        b')' => Tk::RParen,
                        b'[' => Tk::LBrack,
                        b']' => Tk::RBrack,
                        b',' => Tk::Comma,
                        b';' => Tk::Semi,
                        b':' => Tk::Colon,
                        b'.' => Tk::Dot,
                        b'!' => Tk::Bang,
                        b'|' => Tk::Bar,
                        b'=' => Tk::Eq,
                        b'<' => Tk::Lt,
                        b'>' => Tk::Gt,
                        b'%' => Tk::Percent,
                        b'\'' => Tk::Prime,
                        b'&' => Tk::Amp,
                        other => Tk::Sym(other as char),
                    };
                    self.push(tk);
                    self.i += 1;
                }
            }
        }
        if !self.groups.is_empty() {
            return Err("unbalanced braces: a `{` is never closed".into());
        }
        if self.envs.contains(&true) {
            return Err("an environment is never closed".into());
        }
        Ok(self.out)
    }

    /// A number starting at `self.i` (a digit, or a `.` before a digit).
    fn number(&mut self) {
        let b = self.b;
        let mut i = self.i;
        let mut digits = String::new();
        while i < b.len() && b[i].is_ascii_digit() {
            digits.push(b[i] as char);
            i += 1;
        }
        let int_len = digits.len();
        // A leading group of `0` is never a thousands group: `0,111` is not 111.
        if (1..=3).contains(&int_len) && digits != "0" {
            let mut kind = None;
            while let Some((k, len)) = group_separator(b, i, self.brackets <= 0) {
                if kind.is_some_and(|first| first != k) {
                    break;
                }
                kind = Some(k);
                i += len;
                for _ in 0..3 {
                    digits.push(b[i] as char);
                    i += 1;
                }
            }
        }
        let mut frac = 0u32;
        let mut point = false;
        if i < b.len() && b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            point = true;
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                digits.push(b[i] as char);
                frac += 1;
                i += 1;
            }
        }
        // A repeating decimal: `0.\overline{3}` or `0.1\overline{6}`.
        let over = "\\overline{";
        let rep_at = if point && self.src[i..].starts_with(over) {
            Some(i + over.len())
        } else if !point && self.src[i..].starts_with('.') && self.src[i + 1..].starts_with(over) {
            Some(i + 1 + over.len())
        } else {
            None
        };
        if let Some(j) = rep_at
            && let Some((value, end)) = repeating(b, j, &digits, frac)
        {
            self.i = end;
            self.push(Tk::Rational(value.0, value.1));
            return;
        }
        let mut exp = 0i32;
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            let mut j = i + 1;
            let neg = match b.get(j) {
                Some(b'-') => {
                    j += 1;
                    true
                }
                Some(b'+') => {
                    j += 1;
                    false
                }
                _ => false,
            };
            if b.get(j).is_some_and(u8::is_ascii_digit) {
                let mut e: i32 = 0;
                while j < b.len() && b[j].is_ascii_digit() {
                    e = (e * 10 + i32::from(b[j] - b'0')).min(1_000_000);
                    j += 1;
                }
                exp = if neg { -e } else { e };
                i = j;
            }
        }
        self.i = i;
        self.push(Tk::Num(NumLit {
            digits,
            frac,
            exp,
            point,
        }));
    }

    /// A run of letters (and digits after the first letter).
    fn word(&mut self) {
        let start = self.i;
        let mut end = start;
        for c in self.src[start..].chars() {
            if is_word_char(c) {
                end += c.len_utf8();
            } else {
                break;
            }
        }
        self.i = end;
        let text = &self.src[start..end];
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => self.push(Tk::Letter(c)),
            _ => self.push(Tk::Word(text.to_string())),
        }
    }

    /// A non-ASCII character at `self.i`.
    fn unicode(&mut self) {
        let Some(c) = self.src[self.i..].chars().next() else {
            self.i += 1;
            return;
        };
        let len = c.len_utf8();
        let tk = match c {
            '\u{200B}' | '\u{FEFF}' | '\u{2060}' => {
                self.i += len;
                return;
            }
            c if c.is_whitespace() => {
                self.space = true;
                self.i += len;
                return;
            }
            '\u{2212}' => Tk::Minus,
            '×' | '·' | '⋅' | '∗' => Tk::Times,
            '÷' => Tk::Div,
            'π' => Tk::Pi,
            '∞' => Tk::Infty,
            '√' => Tk::Sqrt,
            '°' => Tk::Degree,
            '≤' | '⩽' => Tk::Le,
            '≥' | '⩾' => Tk::Ge,
            '≠' => Tk::Ne,
            '≈' => Tk::Approx,
            '±' => Tk::Pm,
            '∓' => Tk::Mp,
            '∈' => Tk::In,
            '∪' => Tk::Cup,
            '€' | '£' | '¥' | '¢' => Tk::Currency(c),
            '′' => Tk::Prime,
            '…' => Tk::Ellipsis,
            '∅' => {
                self.i += len;
                self.push(Tk::LSet);
                self.push(Tk::RSet);
                return;
            }
            '½' | '⅓' | '⅔' | '¼' | '¾' | '⅕' | '⅙' | '⅛' | '⅜' | '⅝' | '⅞' => {
                let (n, d) = match c {
                    '½' => (1, 2),
                    '⅓' => (1, 3),
                    '⅔' => (2, 3),
                    '¼' => (1, 4),
                    '¾' => (3, 4),
                    '⅕' => (1, 5),
                    '⅙' => (1, 6),
                    '⅛' => (1, 8),
                    '⅜' => (3, 8),
                    '⅝' => (5, 8),
                    _ => (7, 8),
                };
                Tk::Rational(n, d)
            }
            '⟨' => Tk::LAngle,
            '⟩' => Tk::RAngle,
            '¹' | '²' | '³' => {
                self.i += len;
                self.push(Tk::Caret);
                let d = match c {
                    '¹' => "1",
                    '²' => "2",
                    _ => "3",
                };
                self.push(Tk::Num(NumLit {
                    digits: d.to_string(),
                    frac: 0,
                    exp: 0,
                    point: false,
                }));
                return;
            }
            c => match greek_char(c) {
                Some(name) => Tk::Greek(name),
                None if is_word_char(c) => return self.word(),
                None => Tk::Sym(c),
            },
        };
        self.i += len;
        self.push(tk);
    }

    /// A LaTeX command at `self.i` (which holds the backslash).
    fn command(&mut self) -> Result<(), String> {
        let b = self.b;
        let start = self.i + 1;
        let Some(&first) = b.get(start) else {
            self.i = start;
            return Ok(());
        };
        if !first.is_ascii_alphabetic() {
            // One-character commands: escapes, spaces and delimiters.
            self.i = start + 1;
            let tk = match first {
                b',' | b';' | b':' | b'!' | b' ' | b'>' | b'\n' | b'\t' | b'(' | b')' | b'[' | b']' => {
                    self.space = true;
                    return Ok(());
                }
                b'{' => Tk::LSet,
                b'}' => Tk::RSet,
                b'$' => Tk::Dollar,
                b'%' => Tk::Percent,
                b'\\' if self.in_display() => Tk::Semi,
                b'\\' => Tk::RowSep,
                b'|' => Tk::Bar,
                b'&' | b'#' | b'_' => Tk::Sym(first as char),
                _ => {
                    let c = self.src[start..].chars().next().unwrap_or('?');
                    return Err(format!("unknown command `\\{c}`"));
                }
            };
            self.push(tk);
            return Ok(());
        }
        let mut end = start;
        while end < b.len() && b[end].is_ascii_alphabetic() {
            end += 1;
        }
        let name = &self.src[start..end];
        self.i = end;
        match command(name) {
            Cmd::Tok(tk) => {
                let takes_digit = matches!(tk, Tk::Frac | Tk::Sqrt | Tk::Binom);
                self.push(tk);
                if takes_digit {
                    // `\sqrt 2` and `\frac 12`: a space after the name is not a word break.
                    self.skip_spaces();
                }
            }
            Cmd::Wrapper { text } => {
                let j = self.skip_spaces_from(end);
                if self.at(j) == b'{' {
                    self.i = j + 1;
                    if text {
                        self.groups.push(Group::Text);
                        self.text_depth += 1;
                    } else {
                        self.groups.push(Group::Wrapper);
                    }
                }
            }
            Cmd::Box => {
                // Boxes joined only by what joins answers (`\boxed{1}\boxed{2}`, `\boxed{1}
                // papers and \boxed{2}`, `… \text{ for part (a) and } \boxed{…}`) are the items
                // of a list: what stands between them is one separator.
                if let Some((after, len)) = self.last_box.take()
                    && connectors_only(&self.src[after..start - 1])
                {
                    self.out.truncate(len);
                    self.space = true;
                    self.push(Tk::Comma);
                }
                let j = self.skip_spaces_from(end);
                if self.at(j) == b'{' {
                    self.i = j + 1;
                    self.groups.push(Group::Box);
                }
            }
            Cmd::Space => self.space = true,
            Cmd::Discard => {
                let j = self.skip_spaces_from(end);
                if self.at(j) == b'{' {
                    self.i = skip_group(b, j).ok_or("unbalanced braces: a `{` is never closed")?;
                }
                self.space = true;
            }
            Cmd::Delimiter => {
                let j = self.skip_spaces_from(end);
                if self.at(j) == b'.' {
                    self.i = j + 1;
                }
            }
            Cmd::Begin | Cmd::End => {
                let j = self.skip_spaces_from(end);
                if self.at(j) != b'{' {
                    return Err(format!("`\\{name}` without an environment name"));
                }
                let close = skip_group(b, j).ok_or("unbalanced braces: a `{` is never closed")?;
                let env = &self.src[j + 1..close - 1];
                let env = env.trim_end_matches('*');
                self.i = close;
                if DISPLAY_ENVS.contains(&env) {
                    if name == "begin" {
                        self.envs.push(true);
                    } else if self.envs.pop() != Some(true) {
                        return Err(format!("`\\end{{{env}}}` closes nothing"));
                    }
                    self.space = true;
                    return Ok(());
                }
                if !(env.ends_with("matrix") || env == "array") {
                    return Err(format!("unsupported environment `{env}`"));
                }
                if name == "begin" {
                    self.envs.push(false);
                } else {
                    self.envs.pop();
                }
                if name == "begin" {
                    if env == "array" {
                        // The column specification `{cc}` says nothing about the values.
                        let k = self.skip_spaces_from(close);
                        if self.at(k) == b'{' {
                            self.i = skip_group(b, k).ok_or("unbalanced braces: a `{` is never closed")?;
                        }
                    }
                    self.push(Tk::MatBegin);
                } else {
                    self.push(Tk::MatEnd);
                }
            }
            Cmd::EmptySet => {
                self.push(Tk::LSet);
                self.push(Tk::RSet);
            }
            Cmd::Reals => {
                // `\mathbb{R}` is the interval `(-\infty, \infty)`; other sets are not read.
                let j = self.skip_spaces_from(end);
                if !self.src[j..].starts_with("{R}") {
                    return Err(format!("unknown command `\\{name}`"));
                }
                self.i = j + 3;
                for tk in [Tk::LParen, Tk::Minus, Tk::Infty, Tk::Comma, Tk::Infty, Tk::RParen] {
                    self.push(tk);
                }
            }
            Cmd::Unknown => {
                // `\quadx`: a wide space run into the next word is the space and the word (a
                // space has no meaning to lose); any other unknown name is an error.
                if let Some(sp) = ["qquad", "quad"]
                    .into_iter()
                    .find(|sp| name.len() > sp.len() && name.starts_with(sp))
                {
                    self.i = start + sp.len();
                    self.push(Tk::Quad);
                    return Ok(());
                }
                return Err(format!("unknown command `\\{name}`"));
            }
        }
        Ok(())
    }

    fn skip_spaces(&mut self) {
        self.i = self.skip_spaces_from(self.i);
    }

    fn skip_spaces_from(&self, mut j: usize) -> usize {
        while j < self.b.len() && matches!(self.b[j], b' ' | b'\t' | b'\n' | b'\r') {
            j += 1;
        }
        j
    }
}

/// The exact value of a repeating decimal whose written digits are `digits` (`frac` of them
/// after the point) and whose repeating digits start at `j` (inside `\overline{…}`), and the
/// index past the closing brace; `None` when the group is not digits then `}` or the value
/// does not fit. `x = A / 10^k + R / (10^k (10^m - 1))` for written digits `A` (`k` after the
/// point) and `m` repeating digits `R`.
fn repeating(b: &[u8], j: usize, digits: &str, frac: u32) -> Option<((i128, i128), usize)> {
    let mut end = j;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    let m = end - j;
    if m == 0 || b.get(end) != Some(&b'}') || digits.len() + m > 30 {
        return None;
    }
    let a: i128 = digits.parse().ok()?;
    let r: i128 = std::str::from_utf8(&b[j..end]).ok()?.parse().ok()?;
    let nines = 10i128.checked_pow(m as u32)? - 1;
    let n = a.checked_mul(nines)?.checked_add(r)?;
    let d = 10i128.checked_pow(frac)?.checked_mul(nines)?;
    Some(((n, d), end + 1))
}

/// The index just past the group that opens at `open` (a `{`), skipping escapes; `None` when it
/// never closes.
fn skip_group(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A digit-group separator at `i` followed by exactly three digits (then a non-digit): its kind
/// (1 comma, 2 space, 3 `{,}` with or without spaces) and length. A bare comma counts only outside brackets, where
/// `(1,234)` would otherwise be ambiguous.
fn group_separator(b: &[u8], i: usize, comma_ok: bool) -> Option<(u8, usize)> {
    let rest = &b[i.min(b.len())..];
    // `32,\!349`: the negative thin space cancels the space TeX puts after a comma in math, the
    // usual way to group digits there (whitespace after it is ignored, as TeX ignores it).
    let (kind, len) = if rest.starts_with(b",\\! ") {
        (1, 4)
    } else if rest.starts_with(b",\\!") {
        (1, 3)
    } else if comma_ok && rest.starts_with(b",") {
        (1, 1)
    } else if let Some(len) = braced_comma(rest) {
        (3, len)
    } else if rest.starts_with(b" ") || rest.starts_with(b"~") {
        (2, 1)
    } else if rest.starts_with(b"\\,") || rest.starts_with(b"\\ ") || rest.starts_with(b"\\;") {
        (2, 2)
    } else if rest.starts_with("\u{2009}".as_bytes()) || rest.starts_with("\u{202F}".as_bytes()) {
        (2, 3)
    } else if rest.starts_with("\u{00A0}".as_bytes()) {
        (2, 2)
    } else {
        return None;
    };
    let group = rest.get(len..len + 3)?;
    let after = rest.get(len + 3).copied().unwrap_or(b' ');
    (group.iter().all(u8::is_ascii_digit) && !after.is_ascii_digit()).then_some((kind, len))
}

/// The length of a comma in braces at the start of `b`, `{,}` as TeX users group digits in
/// math, with the spaces math mode ignores around and inside it (`14 {, }916`).
fn braced_comma(b: &[u8]) -> Option<usize> {
    let spaces = |mut i: usize| {
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        i
    };
    let mut i = spaces(0);
    for want in [b'{', b',', b'}'] {
        if b.get(i) != Some(&want) {
            return None;
        }
        i = spaces(i + 1);
    }
    Some(i)
}

/// Whether `c` continues a word: ASCII letters and digits, and letters of other scripts (but
/// not the Greek letters and symbols the lexer reads on their own).
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || (!c.is_ascii() && c.is_alphabetic() && c != 'π' && greek_char(c).is_none())
}

/// The LaTeX name of a Greek letter written as a character.
fn greek_char(c: char) -> Option<&'static str> {
    Some(match c {
        'α' => "alpha",
        'β' => "beta",
        'γ' => "gamma",
        'δ' => "delta",
        'ε' => "epsilon",
        'θ' => "theta",
        'λ' => "lambda",
        'μ' => "mu",
        'σ' => "sigma",
        'φ' => "phi",
        'ω' => "omega",
        _ => return None,
    })
}

/// What the lexer does with the command `\name`.
fn command(name: &str) -> Cmd {
    use Cmd::{Begin, Box, Delimiter, Discard, EmptySet, End, Reals, Space, Tok, Unknown, Wrapper};
    if let Some(f) = Func::from_name(name) {
        return Tok(Tk::Fn(f));
    }
    if let Some(g) = greek_name(name) {
        return Tok(Tk::Greek(g));
    }
    match name {
        "frac" | "dfrac" | "tfrac" | "cfrac" => Tok(Tk::Frac),
        "sqrt" => Tok(Tk::Sqrt),
        "binom" | "dbinom" | "tbinom" => Tok(Tk::Binom),
        "cdot" | "times" | "ast" => Tok(Tk::Times),
        "min" => Tok(Tk::Fn(Func::Min)),
        "max" => Tok(Tk::Fn(Func::Max)),
        // Operators read structurally (compared as written, never evaluated).
        "oplus" => Tok(Tk::Sym('⊕')),
        "otimes" => Tok(Tk::Sym('⊗')),
        "div" => Tok(Tk::Div),
        "pm" => Tok(Tk::Pm),
        "mp" => Tok(Tk::Mp),
        "le" | "leq" | "leqslant" => Tok(Tk::Le),
        "ge" | "geq" | "geqslant" => Tok(Tk::Ge),
        "ne" | "neq" => Tok(Tk::Ne),
        "lt" => Tok(Tk::Lt),
        "gt" => Tok(Tk::Gt),
        "approx" | "simeq" | "sim" | "cong" | "doteq" => Tok(Tk::Approx),
        "in" => Tok(Tk::In),
        "cup" => Tok(Tk::Cup),
        "infty" | "infinity" => Tok(Tk::Infty),
        "pi" => Tok(Tk::Pi),
        "circ" | "degree" => Tok(Tk::Degree),
        "ldots" | "dots" | "cdots" | "dotsc" | "dotsb" => Tok(Tk::Ellipsis),
        "langle" => Tok(Tk::LAngle),
        "rangle" => Tok(Tk::RAngle),
        "lbrace" => Tok(Tk::LSet),
        "rbrace" => Tok(Tk::RSet),
        "vert" | "lvert" | "rvert" | "mid" => Tok(Tk::Bar),
        "prime" => Tok(Tk::Prime),
        "textdollar" => Tok(Tk::Dollar),
        "euro" => Tok(Tk::Currency('€')),
        "pounds" => Tok(Tk::Currency('£')),
        "text" | "textrm" | "textnormal" | "textup" | "textbf" | "textit" | "textsf" | "texttt"
        | "textmd" | "emph" | "mathrm" | "mbox" | "hbox" | "operatorname" => Wrapper { text: true },
        "boxed" | "fbox" => Box,
        // Script, calligraphic and Fraktur letters read as the letter (`\mathscr{L}` is `L`).
        "mathbf" | "mathit" | "mathsf" | "mathtt" | "mathnormal" | "bm" | "boldsymbol" | "overline"
        | "mathcal" | "mathscr" | "mathfrak" => Wrapper { text: false },
        "quad" | "qquad" => Tok(Tk::Quad),
        "displaystyle" | "textstyle" | "scriptstyle" | "limits" | "nolimits" | "enspace" | "thinspace"
        | "medspace" | "thickspace" | "negthinspace" | "negmedspace" | "negthickspace" | "space"
        | "nobreak" | "allowbreak" | "angle" | "measuredangle" | "triangle" => Space,
        "hspace" | "vspace" | "phantom" | "hphantom" | "vphantom" | "label" => Discard,
        "left" | "right" | "middle" | "big" | "Big" | "bigg" | "Bigg" | "bigl" | "bigr" | "Bigl" | "Bigr"
        | "biggl" | "biggr" | "Biggl" | "Biggr" => Delimiter,
        "emptyset" | "varnothing" => EmptySet,
        "mathbb" => Reals,
        "begin" => Begin,
        "end" => End,
        _ => Unknown,
    }
}

/// The canonical name of a Greek-letter command (`\varepsilon` reads as `epsilon`).
fn greek_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "alpha" => "alpha",
        "beta" => "beta",
        "gamma" => "gamma",
        "delta" => "delta",
        "epsilon" | "varepsilon" => "epsilon",
        "zeta" => "zeta",
        "eta" => "eta",
        "theta" | "vartheta" => "theta",
        "iota" => "iota",
        "kappa" => "kappa",
        "lambda" => "lambda",
        "mu" => "mu",
        "nu" => "nu",
        "xi" => "xi",
        "rho" | "varrho" => "rho",
        "sigma" | "varsigma" => "sigma",
        "tau" => "tau",
        "upsilon" => "upsilon",
        "phi" | "varphi" => "phi",
        "chi" => "chi",
        "psi" => "psi",
        "omega" => "omega",
        "Gamma" => "Gamma",
        "Delta" => "Delta",
        "Theta" => "Theta",
        "Lambda" => "Lambda",
        "Xi" => "Xi",
        "Sigma" => "Sigma",
        "Phi" => "Phi",
        "Psi" => "Psi",
        "Omega" => "Omega",
        // Not Greek, but a letter-like variable all the same.
        "ell" => "ell",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tk> {
        lex(s).unwrap().into_iter().map(|t| t.tk).collect()
    }

    fn num(s: &str) -> NumLit {
        match kinds(s).as_slice() {
            [Tk::Num(n)] => n.clone(),
            other => panic!("{s:?} lexed as {other:?}"),
        }
    }

    #[test]
    fn digit_groups_join() {
        for s in [
            "12,345,678",
            "12 345 678",
            "12\\,345\\,678",
            "12{,}345{,}678",
            "12 {, }345 {, }678",
            "12\u{2009}345\u{2009}678",
        ] {
            assert_eq!(num(s).digits, "12345678", "{s}");
        }
    }

    #[test]
    fn commas_inside_brackets_separate() {
        assert_eq!(kinds("(1,234)").len(), 5);
        assert_eq!(kinds("1,2").len(), 3);
        assert_eq!(kinds("1,2345").len(), 3);
    }

    #[test]
    fn decimals_and_exponents() {
        let n = num("1.25e-3");
        assert_eq!((n.digits.as_str(), n.frac, n.exp, n.point), ("125", 2, -3, true));
        let n = num(".5");
        assert_eq!((n.digits.as_str(), n.frac, n.point), ("5", 1, true));
        assert_eq!(kinds("5.").len(), 2);
    }

    #[test]
    fn wrappers_vanish_and_mark_text() {
        let t = lex("\\boxed{\\text{ cm}}").unwrap();
        assert_eq!(t.len(), 1);
        assert!(t[0].text && t[0].space);
        assert_eq!(
            kinds("\\left( x \\right)"),
            vec![Tk::LParen, Tk::Letter('x'), Tk::RParen]
        );
        assert_eq!(kinds("\\left. x \\right|"), vec![Tk::Letter('x'), Tk::Bar]);
        assert_eq!(kinds("$5$"), vec![Tk::Num(num("5"))]);
        assert_eq!(kinds("$5"), vec![Tk::Dollar, Tk::Num(num("5"))]);
    }

    #[test]
    fn errors_are_reported() {
        assert!(lex("\\frac{1}{2").unwrap_err().contains("unbalanced"));
        assert!(lex("}").unwrap_err().contains("unbalanced"));
        assert!(lex("\\foo").unwrap_err().contains("\\foo"));
        assert!(
            lex("\\begin{tabular} x \\end{tabular}")
                .unwrap_err()
                .contains("tabular")
        );
        assert!(lex("\\begin{align*} x").unwrap_err().contains("never closed"));
    }

    #[test]
    fn boxes_joined_by_connectors_are_list_items() {
        let one_two = vec![Tk::Num(num("1")), Tk::Comma, Tk::Num(num("2"))];
        assert_eq!(kinds("\\boxed{1}\\boxed{2}"), one_two);
        assert_eq!(kinds("\\boxed{1} papers and \\boxed{2}"), one_two);
        assert_eq!(kinds("\\boxed{1} \\text{ for part (a) and } \\boxed{2}"), one_two);
        assert_eq!(
            kinds("\\boxed{1} + \\boxed{2}"),
            vec![Tk::Num(num("1")), Tk::Plus, Tk::Num(num("2"))]
        );
    }

    #[test]
    fn a_wide_space_run_into_a_word_is_the_space_and_the_word() {
        assert_eq!(
            kinds("1,\\quadx"),
            vec![Tk::Num(num("1")), Tk::Comma, Tk::Quad, Tk::Letter('x')]
        );
        assert_eq!(kinds("\\qquadab"), vec![Tk::Quad, Tk::Word("ab".into())]);
        assert!(lex("\\quadx").is_ok() && lex("\\quax").is_err());
    }

    #[test]
    fn repeating_decimals_and_reals() {
        assert_eq!(kinds("0.\\overline{3}"), vec![Tk::Rational(3, 9)]);
        assert_eq!(kinds("1.2\\overline{45}"), vec![Tk::Rational(12 * 99 + 45, 990)]);
        assert_eq!(kinds("\\overline{AB}"), vec![Tk::Word("AB".into())]);
        assert_eq!(kinds("\\mathbb{R}").len(), 6);
        assert!(lex("\\mathbb{Z}").is_err());
    }

    #[test]
    fn unicode_symbols() {
        assert_eq!(kinds("π×2"), vec![Tk::Pi, Tk::Times, Tk::Num(num("2"))]);
        assert_eq!(kinds("x²"), vec![Tk::Letter('x'), Tk::Caret, Tk::Num(num("2"))]);
        assert_eq!(kinds("Zürich"), vec![Tk::Word("Zürich".into())]);
    }
}

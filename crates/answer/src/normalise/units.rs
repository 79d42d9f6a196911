//! Units around a number: currency signs before it (`$5`, `\$5`, `USD 5`, `€5`), and units,
//! percentages and degrees after it (`5 cm`, `12 inches`, `3\text{ kg}`, `5 m/s`, `50\%`,
//! `30^\circ`). Each is reduced to a canonical name (`cm`, `m/s`, `cm^2`, `usd`, `%`, `deg`) so
//! spellings compare equal; there is no conversion between units.
//!
//! A single-letter unit (`m`, `g`, `s`, `h`, `L`) counts alone when set apart by a space or
//! written in `\text{}`/`\mathrm{}`; run into the number (`5m`) it is read both ways (see
//! `value::Value::GluedUnit`): 5 metres against a number written with a unit, 5 times m
//! against anything else, so `5m` = `5 m` but `5m` ≠ `5`. One trailing word that is not a
//! known unit (`5 apples`) counts as a unit of its own (singular form) when it has at least
//! three letters and is set apart by a space; so does the count noun that starts a short phrase
//! of plain words in `\text{}` (`9\text{ apples in all}` is 9 apples). The word "pound" means the same unit for money
//! and weight (`£5` = `5 pounds` = `5 lb`).

use super::expr::{is_math_name, is_reserved};
use super::lexer::{Tk, Token};

/// A currency sign or code at the start of `t`: the unit and how many tokens it took.
pub(super) fn prefix(t: &[Token]) -> Option<(&'static str, usize)> {
    let first = t.first()?;
    match &first.tk {
        Tk::Dollar => Some(("usd", 1)),
        Tk::Currency(c) => currency_sign(*c).map(|u| (u, 1)),
        Tk::Word(w) if w.eq_ignore_ascii_case("us") && t.get(1).map(|t| &t.tk) == Some(&Tk::Dollar) => {
            Some(("usd", 2))
        }
        Tk::Word(w) => {
            let u = match w.to_ascii_lowercase().as_str() {
                "usd" => "usd",
                "eur" => "eur",
                "gbp" => "pound",
                "jpy" => "jpy",
                "inr" | "rs" => "inr",
                _ => return None,
            };
            Some((u, 1))
        }
        _ => None,
    }
}

fn currency_sign(c: char) -> Option<&'static str> {
    Some(match c {
        '€' => "eur",
        '£' => "pound",
        '¥' => "jpy",
        '¢' => "cent",
        _ => return None,
    })
}

/// The canonical unit when all of `t` (the tokens after a number) is one unit phrase.
pub(super) fn suffix(t: &[Token]) -> Option<String> {
    let first = t.first()?;
    if let Some(u) = percent_or_degrees(t) {
        return Some(u.to_string());
    }
    if let Some(b) = base(t) {
        return Some(format!("base{b}"));
    }
    if let [
        Token {
            tk: Tk::Currency(c), ..
        },
    ] = t
    {
        return currency_sign(*c).map(str::to_string);
    }
    if let Some(u) = compound(t) {
        return Some(u);
    }
    // One unknown word set apart by a space: a count noun (`5 apples`).
    match (t, &first.tk) {
        ([_], Tk::Word(w)) if (first.space || first.text) && is_count_noun(w) => Some(singular(w)),
        // A short phrase in `\text{}` that starts with a count noun (`9\text{ apples in all}`): the
        // noun is the unit, the rest of the phrase says nothing about the number.
        (_, Tk::Word(w))
            if t.len() <= 6 && is_count_noun(w) && t.iter().all(|x| x.text && is_plain_word(&x.tk)) =>
        {
            Some(singular(w))
        }
        _ => None,
    }
}

/// A lowercase word of letters that is no math name (`in`, `all`, `total`); inside `\text{}`
/// a word such as `in` or `and` is prose, not a relation or a separator.
fn is_plain_word(tk: &Tk) -> bool {
    match tk {
        Tk::Word(w) => w.chars().all(char::is_lowercase) && !is_math_name(w),
        Tk::Letter(c) => c.is_lowercase() && *c != 'i' && *c != 'e',
        _ => false,
    }
}

fn is_count_noun(w: &str) -> bool {
    w.chars().count() >= 3
        && w.chars().all(char::is_alphabetic)
        && !is_reserved(w)
        && !is_math_name(w)
        && w.chars().next().is_some_and(char::is_lowercase)
}

fn singular(w: &str) -> String {
    let w = w.to_lowercase();
    if let Some(stem) = w.strip_suffix("ies") {
        return format!("{stem}y");
    }
    match w.strip_suffix('s') {
        Some(stem) if stem.chars().count() >= 3 && !stem.ends_with('s') => stem.to_string(),
        _ => w,
    }
}

/// `%`, `percent`, `°`, `^\circ`, `^{\circ}`, `degrees`, with an optional `C`/`F` scale.
fn percent_or_degrees(t: &[Token]) -> Option<&'static str> {
    let tks: Vec<&Tk> = t.iter().take(6).map(|x| &x.tk).collect();
    if t.len() > 5 {
        return None;
    }
    let word = |tk: &Tk, names: &[&str]| match tk {
        Tk::Word(w) => names.iter().any(|n| w.eq_ignore_ascii_case(n)),
        _ => false,
    };
    match tks.as_slice() {
        [Tk::Percent] => return Some("%"),
        [w] if word(w, &["percent", "pct", "percentage", "percentages"]) => return Some("%"),
        [w, p] if word(w, &["percentage"]) && word(p, &["points"]) => return Some("%"),
        _ => {}
    }
    let rest: &[&Tk] = match tks.as_slice() {
        [Tk::Degree, rest @ ..] => rest,
        [Tk::Caret, Tk::Degree, rest @ ..] => rest,
        [Tk::Caret, Tk::LBrace, Tk::Degree, Tk::RBrace, rest @ ..] => rest,
        [w, rest @ ..] if word(w, &["degree", "degrees", "deg"]) => rest,
        _ => return None,
    };
    match rest {
        [] => Some("deg"),
        [Tk::Letter('C')] => Some("degC"),
        [Tk::Letter('F')] => Some("degF"),
        [w] if word(w, &["celsius", "centigrade"]) => Some("degC"),
        [w] if word(w, &["fahrenheit"]) => Some("degF"),
        _ => None,
    }
}

/// The base of a numeral written with a base subscript (`204_5`, `1011_{2}`, `7A_{16}`): a
/// whole number from 2 to 36 after `_`.
fn base(t: &[Token]) -> Option<u32> {
    let tks: Vec<&Tk> = t.iter().map(|x| &x.tk).collect();
    let n = match tks.as_slice() {
        [Tk::Under, Tk::Num(n)] | [Tk::Under, Tk::LBrace, Tk::Num(n), Tk::RBrace] => n,
        _ => return None,
    };
    let b: u32 = n.digits.parse().ok().filter(|_| n.is_plain_int())?;
    (2..=36).contains(&b).then_some(b)
}

/// A product or quotient of known units: `cm`, `m/s`, `km per hour`, `square feet`, `cm^2`.
fn compound(t: &[Token]) -> Option<String> {
    let mut out = String::new();
    let mut i = 0;
    let mut after_slash = false;
    loop {
        let mut power = 1u32;
        if let Some(Tk::Word(w)) = t.get(i).map(|x| &x.tk) {
            let w = w.to_ascii_lowercase();
            match w.as_str() {
                "square" | "sq" => power = 2,
                "cubic" | "cu" => power = 3,
                _ => {}
            }
            if power > 1 {
                i += 1;
            }
        }
        let tok = t.get(i)?;
        let base = match &tok.tk {
            Tk::Word(w) => known(&w.to_lowercase())?,
            Tk::Letter(c) if tok.space || tok.text || after_slash || i > 0 || t.len() == 1 => {
                single_letter(*c)?
            }
            _ => return None,
        };
        i += 1;
        if t.get(i).map(|x| &x.tk) == Some(&Tk::Caret) {
            let (p, used) = match (t.get(i + 1).map(|x| &x.tk), t.get(i + 2).map(|x| &x.tk)) {
                (Some(Tk::Num(n)), _) if n.is_plain_int() => (n.digits.parse::<u32>().ok()?, 2),
                (Some(Tk::LBrace), Some(Tk::Num(n))) if n.is_plain_int() => {
                    if t.get(i + 3).map(|x| &x.tk) != Some(&Tk::RBrace) {
                        return None;
                    }
                    (n.digits.parse::<u32>().ok()?, 4)
                }
                _ => return None,
            };
            power = power.checked_mul(p)?;
            i += used;
        }
        out.push_str(base);
        if power != 1 {
            out.push('^');
            out.push_str(&power.to_string());
        }
        match t.get(i).map(|x| &x.tk) {
            None => return Some(out),
            Some(Tk::Div) => {}
            Some(Tk::Word(w)) if w.eq_ignore_ascii_case("per") => {}
            _ => return None,
        }
        out.push('/');
        after_slash = true;
        i += 1;
    }
}

fn single_letter(c: char) -> Option<&'static str> {
    Some(match c {
        'm' => "m",
        'g' => "g",
        's' => "s",
        'h' => "h",
        'l' | 'L' => "l",
        _ => return None,
    })
}

/// Whether `w` names a known unit (used to tell prose from a number with its unit).
pub(super) fn is_unit_word(w: &str) -> bool {
    known(&w.to_lowercase()).is_some()
        || matches!(w.to_ascii_lowercase().as_str(), "per" | "square" | "sq" | "cubic")
}

/// The canonical name of a unit word (lowercase).
fn known(w: &str) -> Option<&'static str> {
    Some(match w {
        "mm" | "millimeter" | "millimeters" | "millimetre" | "millimetres" => "mm",
        "cm" | "centimeter" | "centimeters" | "centimetre" | "centimetres" => "cm",
        "meter" | "meters" | "metre" | "metres" => "m",
        "km" | "kilometer" | "kilometers" | "kilometre" | "kilometres" => "km",
        "in" | "inch" | "inches" => "in",
        "ft" | "foot" | "feet" => "ft",
        "yd" | "yard" | "yards" => "yd",
        "mi" | "mile" | "miles" => "mi",
        "mg" | "milligram" | "milligrams" => "mg",
        "gram" | "grams" | "gm" => "g",
        "kg" | "kgs" | "kilogram" | "kilograms" | "kilo" | "kilos" => "kg",
        "lb" | "lbs" | "pound" | "pounds" | "gbp" => "pound",
        "oz" | "ounce" | "ounces" => "oz",
        "ton" | "tons" => "ton",
        "tonne" | "tonnes" => "tonne",
        "ms" | "millisecond" | "milliseconds" => "ms",
        "sec" | "secs" | "second" | "seconds" => "s",
        "min" | "mins" | "minute" | "minutes" => "min",
        "hr" | "hrs" | "hour" | "hours" => "h",
        "day" | "days" => "day",
        "wk" | "wks" | "week" | "weeks" => "week",
        "month" | "months" => "month",
        "yr" | "yrs" | "year" | "years" => "year",
        "ml" | "milliliter" | "milliliters" | "millilitre" | "millilitres" => "ml",
        "liter" | "liters" | "litre" | "litres" => "l",
        "gal" | "gallon" | "gallons" => "gal",
        "cc" => "cm^3",
        "dollar" | "dollars" | "usd" | "buck" | "bucks" => "usd",
        "cent" | "cents" => "cent",
        "euro" | "euros" | "eur" => "eur",
        "yen" | "jpy" => "jpy",
        "rupee" | "rupees" | "inr" => "inr",
        "rad" | "rads" | "radian" | "radians" => "rad",
        "unit" | "units" => "unit",
        "mph" => "mi/h",
        "kph" | "kmh" => "km/h",
        "hz" | "hertz" => "hz",
        "khz" => "khz",
        "mhz" => "mhz",
        "ghz" => "ghz",
        "watt" | "watts" => "w",
        "kw" | "kilowatt" | "kilowatts" => "kw",
        "kwh" => "kwh",
        "joule" | "joules" => "j",
        "kj" => "kj",
        "newton" | "newtons" => "n",
        "volt" | "volts" => "v",
        "amp" | "amps" | "ampere" | "amperes" => "a",
        "ohm" | "ohms" => "ohm",
        "pa" | "pascal" | "pascals" => "pa",
        "kpa" => "kpa",
        "atm" => "atm",
        "cal" | "calorie" | "calories" => "cal",
        "kcal" => "kcal",
        "acre" | "acres" => "acre",
        "hectare" | "hectares" | "ha" => "ha",
        "knot" | "knots" => "knot",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn unit(s: &str) -> Option<String> {
        suffix(&lex(s).unwrap())
    }

    #[test]
    fn spellings_share_a_name() {
        assert_eq!(
            unit("g").as_deref(),
            Some("g"),
            "a unit letter glued to the number and alone: `3500g`"
        );
        assert_eq!(unit(" cm").as_deref(), Some("cm"));
        assert_eq!(unit(" centimetres").as_deref(), Some("cm"));
        assert_eq!(unit(" square meters").as_deref(), Some("m^2"));
        assert_eq!(unit("\\text{ cm}^2").as_deref(), Some("cm^2"));
        assert_eq!(unit(" km per hour").as_deref(), Some("km/h"));
        assert_eq!(unit(" m/s").as_deref(), Some("m/s"));
        assert_eq!(unit("\\%").as_deref(), Some("%"));
        assert_eq!(unit("^\\circ").as_deref(), Some("deg"));
        assert_eq!(unit("^{\\circ}").as_deref(), Some("deg"));
        assert_eq!(unit("°C").as_deref(), Some("degC"));
        assert_eq!(unit(" degrees").as_deref(), Some("deg"));
        assert_eq!(unit(" apples").as_deref(), Some("apple"));
        assert_eq!(unit(" percentage").as_deref(), Some("%"));
        assert_eq!(unit("_5").as_deref(), Some("base5"));
        assert_eq!(unit("_{16}").as_deref(), Some("base16"));
        assert_eq!(unit("_{1}"), None);
    }

    #[test]
    fn what_is_not_a_unit() {
        assert_eq!(unit("m x"), None, "a glued letter followed by more is a variable");
        assert_eq!(unit(" x"), None);
        assert_eq!(unit(" or"), None);
        assert_eq!(unit(" pi"), None);
        assert_eq!(unit(" red apples"), None);
    }

    #[test]
    fn prefixes() {
        assert_eq!(prefix(&lex("\\$5").unwrap()), Some(("usd", 1)));
        assert_eq!(prefix(&lex("US$5").unwrap()), Some(("usd", 2)));
        assert_eq!(prefix(&lex("€5").unwrap()), Some(("eur", 1)));
        assert_eq!(prefix(&lex("5").unwrap()), None);
    }
}

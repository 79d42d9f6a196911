//! Finding the final answer's span in a completion, one scanner per answer form. Each is a
//! forward pass that jumps between the few bytes it cares about ([`super::scan`]); the number
//! scanner works back from the end. A completion of any size and shape takes time linear in its
//! length. Scanners return trimmed slices of the completion, cut only at ASCII bytes.

use super::blocks::BLOCK;
use super::boxes::{self, last_closed, next_box, prev_box};
use super::dollars::skip_plain_spans;
use super::scan::{Around, closing_brace, escaped, next, next_where, prev, prev_folded, prev_where};

/// The content of the last `\boxed{…}` or `\fbox{…}` whose braces balance (the one that
/// starts last; an empty one is skipped). When boxes before it are joined to it only by
/// connectors (`\boxed{1} \quad \text{and} \quad \boxed{2}`, see [`connectors_only`]), the
/// answer is the whole run from the first such box to the last box's closing brace, boxes and
/// connectors included: several answers, which the comparison reads as a list. The walk back
/// stops once the run is over 8 KiB, longer than any answer the comparison reads.
///
/// The box is found in one pass over the brace depth ([`super::boxes::last_closed`]), its
/// closing brace in one scan from its content, and the boxes joined to it back from it.
pub(super) fn last_boxed(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let (start, content) = last_closed(s)?;
    let close = boxes::closing_brace(b, content)?;
    let first = siblings(s, (start, content));
    if first == start {
        return Some(s[content..close].trim());
    }
    Some(&s[first..=close])
}

/// Where the first of the boxes that end the answer together with the box `last` (its start
/// and content start) starts: a box before it counts when it closes before the next one starts,
/// is not empty, and only connectors ([`connectors_only`]) stand between them. Each earlier box
/// is scanned only up to the next box, so each byte is still scanned about once.
fn siblings(s: &str, last: (usize, usize)) -> usize {
    // A run this long is longer than any answer the comparison reads (4 KiB): it is too long
    // however far back it goes, so the walk stops there.
    const MAX_RUN: usize = 8192;
    let b = s.as_bytes();
    let mut first = last.0;
    while last.1 - first <= MAX_RUN {
        let Some((start, content)) = prev_box(b, first) else {
            break;
        };
        let Some(c) = closing_brace(b, content, first, &mut 1) else {
            break;
        };
        if s[content..c].trim().is_empty() || !connectors_only(&s[c + 1..first]) {
            break;
        }
        first = start;
    }
    first
}

/// Whether `gap` (between two boxes) holds only what joins answers: spaces, `,`, `;`, `$`, `~`,
/// markdown `*`, LaTeX spacing (`\quad`, `\,`), math delimiters (`\(`, `\]`), the words "and",
/// "or", "for" and "part", part labels (`(a)`, `(2)`, `(ii)`), a name set before the next box
/// (`y_2 =`), and right after the box one plain word before a separator (its unit or what it
/// counts: `\boxed{1} papers and \boxed{2}`); plain or in `\text{}`, `\textrm{}`, `\mathrm{}`
/// or `\mbox{}`. At most 64 bytes are looked at.
pub(crate) fn connectors_only(gap: &str) -> bool {
    const SPACING: [&str; 10] = [
        "\\qquad", "\\quad", "\\,", "\\;", "\\:", "\\ ", "\\(", "\\)", "\\[", "\\]",
    ];
    const WRAPPERS: [&str; 4] = ["\\text{", "\\textrm{", "\\mathrm{", "\\mbox{"];
    if gap.len() > 64 {
        return false;
    }
    let mut rest = gap;
    let mut first = true;
    loop {
        rest =
            rest.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '$' | '~' | '*'));
        if rest.is_empty() {
            return true;
        }
        let n = if let Some(n) = joining_word(rest)
            .or_else(|| part_label(rest))
            .or_else(|| name_label(rest))
        {
            n
        } else if let Some(n) = unit_word(rest).filter(|_| first) {
            n
        } else if let Some(sp) = SPACING.iter().find(|sp| rest.starts_with(*sp)) {
            sp.len()
        } else if let Some(w) = WRAPPERS.iter().find(|w| rest.starts_with(*w)) {
            let Some(close) = rest.find('}') else {
                return false;
            };
            if !connectors_only(&rest[w.len()..close]) {
                return false;
            }
            close + 1
        } else {
            return false;
        };
        rest = &rest[n..];
        first = false;
    }
}

/// The length of "and", "or", "for" or "part" (any case) at the start of `r`, as a whole word.
fn joining_word(r: &str) -> Option<usize> {
    ["and", "or", "for", "part"]
        .into_iter()
        .find(|w| starts_with_ci(r.as_bytes(), 0, w.as_bytes()))
        .filter(|w| !r.as_bytes().get(w.len()).is_some_and(u8::is_ascii_alphanumeric))
        .map(str::len)
}

/// The length of a part label at the start of `r`: one to three letters or digits in
/// parentheses (`(a)`, `(2)`, `(ii)`).
fn part_label(r: &str) -> Option<usize> {
    let b = r.as_bytes();
    let inner = b
        .get(1..)?
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    (b[0] == b'(' && (1..=3).contains(&inner) && b.get(1 + inner) == Some(&b')')).then_some(inner + 2)
}

/// The length of a name and `=` at the start of `r`, naming the box after it: a letter with an
/// optional subscript (`y =`, `x_2 =`, `x_{2} =`).
fn name_label(r: &str) -> Option<usize> {
    let b = r.as_bytes();
    if !b.first()?.is_ascii_alphabetic() || b.get(1).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    let mut i = 1;
    if b.get(i) == Some(&b'_') {
        i += 1;
        if b.get(i) == Some(&b'{') {
            let inner = b[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric())
                .count();
            if inner == 0 || b.get(i + 1 + inner) != Some(&b'}') {
                return None;
            }
            i += inner + 2;
        } else if b.get(i).is_some_and(u8::is_ascii_alphanumeric) {
            i += 1;
        } else {
            return None;
        }
    }
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    (b.get(i) == Some(&b'=')).then_some(i + 1)
}

/// The length of one plain word (two to twenty letters) at the start of `r` when a separator
/// (`,`, `;`, "and", "or") follows it: the unit or the thing counted after a boxed number.
fn unit_word(r: &str) -> Option<usize> {
    let n = r.bytes().take_while(u8::is_ascii_alphabetic).count();
    if !(2..=20).contains(&n) || joining_word(r).is_some() {
        return None;
    }
    let after = r[n..].trim_start_matches(' ');
    let separates = after.starts_with([',', ';'])
        || ["and", "or"].iter().any(|w| {
            starts_with_ci(after.as_bytes(), 0, w.as_bytes())
                && !after
                    .as_bytes()
                    .get(w.len())
                    .is_some_and(u8::is_ascii_alphanumeric)
        });
    separates.then_some(n)
}

/// The content of the last "answer is …" / "answer: …" statement that is not empty, found
/// from the end ("answer" by its `swe`, rare in text). An empty statement ends before the next
/// "answer" begins, so the texts read on the way cover each byte about once.
pub(super) fn last_statement(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let mut i = b.len();
    loop {
        i = prev_folded(b, i, *b"swe")?;
        let Some(a) = i.checked_sub(2) else { continue };
        if b.get(a..a + 6).is_some_and(|w| w.eq_ignore_ascii_case(b"answer"))
            && (a == 0 || !b[a - 1].is_ascii_alphanumeric())
            && let Some(start) = statement_start(b, a + 6).or_else(|| heading_start(b, a))
        {
            let text = unquote(after_last_is(statement_text(s, start)));
            if !text.is_empty() {
                // `Jane started growing Sphere 3 hours ago`: the sentence's one number.
                return Some(sentence_number(text).unwrap_or(text));
            }
        }
    }
}

/// The answer of a closing sentence that comes after all the math (`… $d = \frac{90}{n}$ …
/// Therefore, there are 12 such sequences. I hope it is correct.`): the last sentence that holds
/// a digit, when it closes the completion (at most a short sign-off such as `I hope it is
/// correct.` after it), no `$` or `\` comes after its start, and it begins with "therefore",
/// "thus", "hence" or "so" or is the whole completion. Its answer is what follows its last
/// ` is ` when that is one number (`so the number is 10 which is 1,000.99m²` answers
/// `1,000.99m²`, as does `the number is not 10 which is 1,000.99m²` alone); else, for a
/// sentence that concludes and holds no negation, its only number ([`sentence_number`]). One
/// pass back from the end, and one over the sentence.
pub(super) fn closing_sentence(s: &str) -> Option<&str> {
    // A sentence longer than this is not a closing sentence.
    const MAX_SENTENCE: usize = 1024;
    // What may follow it: a sign-off, not more reasoning.
    const MAX_AFTER: usize = 80;
    let b = s.as_bytes();
    let after_math = prev(b, b.len(), |c| (c == b'$') | (c == b'\\')).map_or(0, |k| k + 1);
    let digit = prev(b, b.len(), |c| c.is_ascii_digit())?;
    if digit < after_math {
        return None;
    }
    let ends = |i: usize| {
        b[i] == b'\n'
            || (matches!(b[i], b'.' | b'!' | b'?') && b.get(i + 1).is_none_or(u8::is_ascii_whitespace))
    };
    let mut start = digit;
    while start > after_math && !ends(start - 1) {
        start -= 1;
        if digit - start > MAX_SENTENCE {
            return None;
        }
    }
    let mut end = digit;
    while end < b.len() && !ends(end) {
        end += 1;
        if end - digit > MAX_SENTENCE {
            return None;
        }
    }
    if s[end..].trim().len() > MAX_AFTER {
        return None;
    }
    // A last line that is one bold number (`**40800**`): the answer set apart.
    let line_start = s[..digit].rfind('\n').map_or(0, |k| k + 1);
    let line_end = s[digit..].find('\n').map_or(s.len(), |k| digit + k);
    if line_start >= after_math
        && s[line_end..].trim().len() <= MAX_AFTER
        && let Some(inner) = s[line_start..line_end]
            .trim()
            .trim_end_matches('.')
            .strip_prefix("**")
            .and_then(|t| t.strip_suffix("**"))
        && let Some(n) = lone_number(inner)
    {
        return Some(n);
    }
    let sentence = s[start..end].trim().trim_start_matches(['*', '_']).trim_start();
    let lead = sentence.split(|c: char| !c.is_ascii_alphabetic()).next()?;
    let concludes = ["therefore", "thus", "hence", "so"]
        .iter()
        .any(|w| lead.eq_ignore_ascii_case(w));
    let whole = s[..start].trim().is_empty();
    if !(concludes || whole) {
        return None;
    }
    // What the sentence finally says a thing is: `… is not 10 which is 1,000.99€`.
    let after_is = after_last_is(sentence);
    if after_is.len() < sentence.len()
        && let Some(n) = lone_number(after_is)
    {
        return Some(n);
    }
    if !concludes || negated(sentence) {
        return None;
    }
    sentence_number(sentence)
}

/// The one number of a sentence in prose (`Jane started growing Sphere 3 hours ago` gives `3`,
/// `increases by 100%` gives `100%`): `None` when the sentence holds math (`$`, `\`), a
/// negation, a number before any plain word, or more or fewer than one number.
fn sentence_number(t: &str) -> Option<&str> {
    if t.len() > 1024 || t.contains(['$', '\\']) || negated(t) {
        return None;
    }
    let mut found = None;
    let mut words_before = false;
    for w in t.split_ascii_whitespace() {
        if w.bytes().any(|c| c.is_ascii_digit()) {
            if found.is_some() || !words_before {
                return None;
            }
            found = Some(lone_number(w)?);
        } else if w.len() >= 2
            && w.trim_end_matches([',', ';', ':'])
                .bytes()
                .all(|c| c.is_ascii_alphabetic())
        {
            words_before = true;
        }
    }
    found
}

/// `t` when it is one number, with what is written against it (a sign, a currency sign, `%`,
/// a unit: `-3`, `2/3`, `100%`, `1,000.99€`, `1,000.99m²`), without the punctuation after it.
fn lone_number(t: &str) -> Option<&str> {
    let t = t
        .trim()
        .trim_end_matches(['.', ',', ';', ':', '!', '?', ')'])
        .trim_start_matches('(');
    // Markdown emphasis around it (`**40800**`) is not part of it.
    let t = match t.strip_prefix("**").and_then(|x| x.strip_suffix("**")) {
        Some(inner) => inner.trim_end_matches(['.', ',', ';', ':', '!', '?']),
        None => t,
    };
    let mut chars = t.chars();
    let first = chars.next()?;
    let starts = first.is_ascii_digit()
        || (matches!(first, '-' | '+' | '.' | '$' | '€' | '£')
            && chars.next().is_some_and(|c| c.is_ascii_digit()));
    (starts && !t.contains(char::is_whitespace)).then_some(t)
}

/// Whether a sentence says "not", "no", "never", "cannot", "neither", "nor" or "none", has a
/// word ending in "n't", or says "below zero" (its number's sign is in words).
fn negated(t: &str) -> bool {
    // "5 degrees below zero" is -5: read as no number rather than as 5.
    let below_zero = t.to_ascii_lowercase().contains("below zero");
    below_zero
        || t.split(|c: char| !(c.is_ascii_alphabetic() || c == '\'' || c == '’'))
            .any(|w| {
                let w = w.to_ascii_lowercase();
                ["not", "no", "never", "cannot", "neither", "nor", "none"].contains(&w.as_str())
                    || w.ends_with("n't")
                    || w.ends_with("n’t")
            })
}

/// The "final answer" statement that closes a completion after its boxes (`… \boxed{255} …
/// Final Answer: The final answer is $10,455$.`): the boxes before it were steps, the statement
/// is what the completion answers. Only when the last `final answer` phrase comes after every
/// box, at least one box comes before it, and the statement holds a digit or math; `None`
/// otherwise, so the last box is the answer as usual.
pub(super) fn final_statement_after_boxes(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let phrase = b"final answer";
    // Found from the end by its `fin`, 32 bytes at a time ([`prev_folded`]).
    let mut until = b.len();
    let at = loop {
        let i = prev_folded(b, until, *b"fin")?;
        if b.get(i..i + phrase.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(phrase))
        {
            break i;
        }
        until = i;
    };
    let first_box = next_box(b, 0)?;
    if first_box.0 > at || next_box(b, at).is_some() {
        return None;
    }
    let text = last_statement(&s[at..])?;
    text.bytes()
        .any(|c| c.is_ascii_digit() || c == b'$' || c == b'\\')
        .then_some(text)
}

/// A statement's answer without quotes around it (`"Paris"`, `\"$12$ and $13$\"` as a JSON
/// string written out twice leaves it, `“x”`).
fn unquote(text: &str) -> &str {
    for (open, close) in [("\\\"", "\\\""), ("\"", "\""), ("\u{201c}", "\u{201d}")] {
        if let Some(inner) = text.strip_prefix(open).and_then(|t| t.strip_suffix(close))
            && !inner.trim().is_empty()
        {
            return inner.trim();
        }
    }
    text
}

/// A statement that is a sentence naming its quantity (`The largest $n$ is 34`): what follows
/// its last ` is ` outside math, when what comes before it holds a plain word of two letters or
/// more; otherwise the statement whole (`Paris`, `5 cm`, `$x = 2$`).
fn after_last_is(text: &str) -> &str {
    let b = text.as_bytes();
    let finder = memchr::memmem::Finder::new(b" is ");
    // Whether `b[..seen]` leaves math open (unescaped `$` toggle it).
    let (mut in_math, mut seen) = (false, 0);
    let mut at = None;
    let mut from = 0;
    while let Some(k) = finder.find(&b[from..]).map(|k| from + k) {
        for d in memchr::memchr_iter(b'$', &b[seen..k]) {
            in_math ^= !escaped(b, seen + d);
        }
        seen = k;
        if !in_math {
            at = Some(k);
        }
        from = k + 1;
    }
    match at {
        Some(i) if has_prose_word(&text[..i]) && !text[i + 4..].trim().is_empty() => text[i + 4..].trim(),
        _ => text,
    }
}

/// Whether `t` holds a plain word of two letters or more between spaces: prose, not math
/// (`The largest`, `5 and`; not `\frac13`, `x`, `\begin{pmatrix}1`).
fn has_prose_word(t: &str) -> bool {
    t.split_ascii_whitespace()
        .any(|w| w.len() >= 2 && w.bytes().all(|c| c.is_ascii_alphabetic()))
}

/// Whether `b[i..]` starts with `pat`, ignoring ASCII case.
fn starts_with_ci(b: &[u8], i: usize, pat: &[u8]) -> bool {
    b.get(i..i + pat.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(pat))
}

/// Where the statement's text begins after "answer" (at `i`): `:`, `is`, `is:`, or `=`, with
/// optional markdown emphasis and spaces around; `None` when "answer" is not a statement.
fn statement_start(b: &[u8], mut i: usize) -> Option<usize> {
    let skip_marks = |mut i: usize| {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'*' | b'_') {
            i += 1;
        }
        i
    };
    i = skip_marks(i);
    if b.get(i) == Some(&b':') || b.get(i) == Some(&b'=') {
        i += 1;
    } else if starts_with_ci(b, i, b"is") && !b.get(i + 2).is_some_and(u8::is_ascii_alphanumeric) {
        i = skip_marks(i + 2);
        if b.get(i) == Some(&b':') {
            i += 1;
        }
    } else {
        return None;
    }
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'*' | b'_' | b'\n' | b'\r') {
        i += 1;
    }
    Some(i)
}

/// Where the answer begins after an "Answer" heading (at `a`): a line that is a markdown
/// heading or a bold label and says only "Answer" or "Final Answer" (`### Answer`,
/// `## **Final Answer**`, `**Answer**`), its answer on the next line that is not blank.
/// `None` for any other line (a sentence that mentions an answer).
fn heading_start(b: &[u8], a: usize) -> Option<usize> {
    let line = b[..a].iter().rposition(|&c| c == b'\n').map_or(0, |k| k + 1);
    let before = &b[line..a];
    let marked = before.contains(&b'#') || b[a + 6..].starts_with(b"**");
    let label: Vec<u8> = before
        .iter()
        .filter(|c| !matches!(c, b'#' | b' ' | b'\t' | b'*' | b'_'))
        .map(u8::to_ascii_lowercase)
        .collect();
    if !marked || !(label.is_empty() || label == b"final") {
        return None;
    }
    let mut i = a + 6;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'*' | b'_' | b':' | b'\r') {
        i += 1;
    }
    if b.get(i) != Some(&b'\n') {
        return None;
    }
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    (i < b.len()).then_some(i)
}

/// The statement from `start` to the end of its line or sentence, trimmed of spaces, a final
/// period and markdown emphasis.
fn statement_text(s: &str, start: usize) -> &str {
    let b = s.as_bytes();
    // A display span right at the start is the answer, across lines.
    for (open, close) in [("$$", "$$"), ("\\[", "\\]")] {
        if s[start..].starts_with(open)
            && let Some(end) = s[start + 2..].find(close)
        {
            return s[start..start + 2 + end + 2].trim();
        }
    }
    let mut i = start;
    let mut in_math = false;
    loop {
        i = next(b, i, |c| {
            (c == b'\n') | (c == b'\\') | (c == b'$') | (c == b'.') | (c == b'!') | (c == b'?')
        });
        if i >= b.len() {
            break;
        }
        match b[i] {
            b'\n' => break,
            b'\\' => {
                i += 2;
                continue;
            }
            b'$' => in_math = !in_math,
            _ => {
                if !in_math && b.get(i + 1).is_none_or(u8::is_ascii_whitespace) {
                    break;
                }
            }
        }
        i += 1;
    }
    let end = i.min(b.len());
    let mut text = s[start..end].trim();
    loop {
        let before = text.len();
        text = text
            .trim_end_matches('.')
            .trim_matches(|c| c == '*' || c == '_')
            .trim();
        if text.len() == before {
            return text;
        }
    }
}

/// Display environments whose body is mathematics (a final answer may stand in one).
const MATH_ENVS: &[&str] = &[
    "align",
    "align*",
    "aligned",
    "equation",
    "equation*",
    "gather",
    "gather*",
    "gathered",
    "split",
    "eqnarray",
    "eqnarray*",
    "multline",
    "multline*",
    "displaymath",
    "math",
];

/// The last non-empty LaTeX math span, or display environment (`\begin{align*}…\end{align*}`,
/// returned whole), whichever ends last.
/// With none of those, the last inline `$ … $` with a space just inside a delimiter (`$ 9 $`,
/// `$\frac13 $`), which the strict rule leaves alone so that prices stay prices, when what it
/// holds reads as math rather than prose ([`super::dollars::loose_dollar_span`]).
pub(super) fn last_math(s: &str) -> Option<&str> {
    let span = last_math_span(s);
    let env = last_math_env(s);
    match (span, env) {
        (Some(a), Some(b)) => {
            let end = |x: &str| x.as_ptr() as usize + x.len();
            Some(if end(b) > end(a) { b } else { a })
        }
        (None, None) => super::dollars::loose_dollar_span(s, loose_math),
        (a, b) => a.or(b),
    }
}

/// Whether the pair of `$` at `a` and `z` holds math: not empty, no prose word, not on lines of
/// its own.
pub(super) fn loose_math(s: &str, a: usize, z: usize) -> bool {
    let inner = s[a + 1..z].trim();
    !inner.is_empty() && !has_prose_word(inner) && !on_own_lines(&s[a + 1..z])
}

/// The last index in `floor..until` that `hit` accepts and that is not an escaped `$` (an escaped
/// `$` neither pairs nor ends a pairing). `byte` as for [`prev_where`].
#[inline(always)]
fn last_unescaped(
    b: &[u8],
    floor: usize,
    mut until: usize,
    byte: impl Fn(u8) -> bool + Copy,
    hit: impl Fn(Around) -> bool + Copy,
) -> Option<usize> {
    loop {
        let k = prev_where(b, floor, until, byte, |a| {
            hit(a) & ((a.byte != b'$') | a.maybe_unescaped())
        })?;
        if b[k] != b'$' || !escaped(b, k) {
            return Some(k);
        }
        until = k;
    }
}

/// Whether the content of an inline span begins or ends with a line break (spaces aside): its
/// delimiters stand on lines of their own (`\( ⏎ 9 ⏎ \)`), which inline math never does, so it
/// is not read as a span.
#[inline]
fn on_own_lines(inner: &str) -> bool {
    let b = inner.as_bytes();
    let blank = |c: &u8| *c == b' ' || *c == b'\t';
    let line_break = |k: Option<usize>| k.is_some_and(|k| matches!(b[k], b'\n' | b'\r'));
    line_break(b.iter().position(|c| !blank(c))) || line_break(b.iter().rposition(|c| !blank(c)))
}

/// The last `\begin{env}…\end{env}` of a math environment with something inside, whole.
/// Only the last few (`MAX_ENV_ENDS`) math-environment ends are tried, each with one search back
/// of at most 8 KiB for its `\begin`, so the work stays linear in the completion.
fn last_math_env(s: &str) -> Option<&str> {
    const MAX_ENV_ENDS: usize = 4;
    let b = s.as_bytes();
    let mut until = b.len();
    let mut tries = 0;
    // `end` found from the end, 32 bytes at a time ([`prev_folded`]), then `\end{` checked.
    while let Some(i) = prev_folded(b, until, *b"end") {
        until = i;
        let Some(e) = i.checked_sub(1) else { break };
        if !b[e..].starts_with(b"\\end{") {
            continue;
        }
        if tries == MAX_ENV_ENDS {
            return None;
        }
        let rest = &s[e + 5..];
        let Some(close) = rest.find('}') else { continue };
        let env = &rest[..close];
        if !MATH_ENVS.contains(&env) {
            continue;
        }
        tries += 1;
        // An environment longer than this is too long to be an answer (the comparison reads
        // at most 4 KiB), so its `\begin` is looked for only this far back.
        const MAX_ENV_BYTES: usize = 8192;
        let mut from = e.saturating_sub(MAX_ENV_BYTES);
        while !s.is_char_boundary(from) {
            from -= 1;
        }
        let begin = format!("\\begin{{{env}}}");
        let Some(b) = s[from..e].rfind(&begin).map(|k| from + k) else {
            continue;
        };
        if s[b + begin.len()..e].trim().is_empty() {
            continue;
        }
        return Some(&s[b..e + 5 + close + 1]);
    }
    None
}

/// The content of the last non-empty LaTeX math span.
fn last_math_span(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let n = b.len();
    let mut last: Option<(usize, usize)> = None;
    let mut record = |a: usize, z: usize| {
        // Most spans start with a plain byte: no need to trim them to see they are not empty.
        let plain = |c: &u8| c.is_ascii() && !c.is_ascii_whitespace();
        if a < z && (s.as_bytes()[a..z].first().is_some_and(plain) || !s[a..z].trim().is_empty()) {
            last = Some((a, z));
        }
    };
    // Once a closer is known to be missing from some point on, later openers cannot close.
    let mut no_close_paren = false;
    let mut no_close_brack = false;
    let mut no_close_display = false;
    // Set when an inline `$` finds neither closer nor later opener: no `$` after it matters.
    let mut no_more_dollars = false;
    // Whether the last byte found was not a delimiter after all.
    let mut missed = false;
    // Delimiters to take one at a time before runs of plain spans are looked for again, after
    // a look that found too short a run to pay.
    let mut one_at_a_time = 0u32;
    let mut i = 0;
    loop {
        let (dollar, paren, brack) = (!no_more_dollars, !no_close_paren, !no_close_brack);
        if dollar {
            if one_at_a_time == 0 {
                let run = skip_plain_spans(b, i, paren, brack);
                if let Some((a, z)) = run.last {
                    record(a, z);
                }
                if run.resume < i + BLOCK {
                    one_at_a_time = 8;
                }
                i = run.resume;
            } else {
                one_at_a_time -= 1;
            }
        }
        let candidate = |c: u8| (dollar & (c == b'$')) | (paren & (c == b'(')) | (brack & (c == b'['));
        // Byte by byte while hits are real; after one that was not (a bracket without its
        // backslash, an escaped `$`), their neighbours are tested too, 32 bytes at a time.
        i = if missed {
            next_where(b, i, candidate, |a| {
                (dollar & (a.byte == b'$') & a.maybe_unescaped())
                    | ((a.before == b'\\') & ((paren & (a.byte == b'(')) | (brack & (a.byte == b'['))))
            })
        } else {
            next_delimiter(b, i, dollar, paren, brack)
        };
        if i >= n {
            break;
        }
        let c = b[i];
        // A `$` is real when not escaped, a bracket when escaped (`\(`).
        missed = if c == b'$' { escaped(b, i) } else { !escaped(b, i) };
        if c != b'$' {
            // `\(` or `\[`: an unescaped backslash before the bracket.
            if missed {
                i += 1;
                continue;
            }
            let (close, missing) = if c == b'(' {
                (b')', &mut no_close_paren)
            } else {
                (b']', &mut no_close_brack)
            };
            if *missing {
                i += 1;
                continue;
            }
            let mut j = i + 1;
            loop {
                j = next_where(b, j, |x| x == close, |a| (a.before == b'\\') & (a.byte == close));
                if j >= n || escaped(b, j) {
                    break;
                }
                j += 1;
            }
            if j >= n {
                *missing = true;
                i += 1;
            } else {
                // Inline math never stands on lines of its own; display math may.
                if c == b'[' || !on_own_lines(&s[i + 1..j - 1]) {
                    record(i + 1, j - 1);
                }
                i = j + 1;
            }
            continue;
        }
        if missed {
            i += 1;
            continue;
        }
        // `$$$$` is an empty display: skip runs of them at once.
        i += (next(b, i, |c| c != b'$') - i) / 4 * 4;
        if b.get(i) != Some(&b'$') {
            continue;
        }
        if b.get(i + 1) == Some(&b'$') {
            if no_close_display {
                i += 2;
                continue;
            }
            let mut j = i + 2;
            loop {
                j = next_where(
                    b,
                    j,
                    |x| x == b'$',
                    |a| (a.byte == b'$') & (a.after == b'$') & a.maybe_unescaped(),
                );
                if j + 1 >= n || !escaped(b, j) {
                    break;
                }
                j += 1;
            }
            if j + 1 >= n {
                no_close_display = true;
                i += 2;
            } else {
                record(i + 2, j);
                i = j + 2;
            }
            continue;
        }
        // An inline `$` opens before a non-space. It closes at the first `$` after a non-space
        // and before a non-digit (or ends at a blank line); a `$` before that which cannot close
        // but can open means the first was a price, and the span restarts there, so the span
        // opens at the last such `$`. With no closer, there is no later `$` that could open a
        // span, so no later `$` is looked at.
        if b.get(i + 1).is_none_or(u8::is_ascii_whitespace) {
            i += 1;
            continue;
        }
        i = match inline_span(b, i) {
            Inline::Closed { open, close } => {
                record(open + 1, close);
                close + 1
            }
            Inline::Paragraph(at) => at,
            Inline::Unclosed { open } => {
                no_more_dollars = true;
                open + 1
            }
        };
    }
    last.map(|(a, z)| s[a..z].trim())
}

/// The first `$` (with `dollar`), `(` (with `paren`) or `[` (with `brack`) at or after `i`, or
/// `b.len()`.
#[inline]
fn next_delimiter(b: &[u8], i: usize, dollar: bool, paren: bool, brack: bool) -> usize {
    use memchr::{memchr, memchr2, memchr3};
    let h = &b[i.min(b.len())..];
    let found = match (dollar, paren, brack) {
        (true, true, true) => memchr3(b'$', b'(', b'[', h),
        (true, true, false) => memchr2(b'$', b'(', h),
        (true, false, true) => memchr2(b'$', b'[', h),
        (false, true, true) => memchr2(b'(', b'[', h),
        (true, false, false) => memchr(b'$', h),
        (false, true, false) => memchr(b'(', h),
        (false, false, true) => memchr(b'[', h),
        (false, false, false) => None,
    };
    found.map_or(b.len(), |k| i + k)
}

/// How an inline `$` span that opens at a `$` ends ([`inline_span`]).
enum Inline {
    /// At the `$` at `close`, the span having restarted at the `$` at `open`.
    Closed { open: usize, close: usize },
    /// At the blank line at this index.
    Paragraph(usize),
    /// Not at all; `open` is the last `$` it restarted at.
    Unclosed { open: usize },
}

/// Where the inline span opening at the `$` at `i` ends. It closes at the first unescaped `$`
/// after a non-space and before a non-digit, or ends at a blank line; an unescaped `$` before
/// that which cannot close but can open (before a non-space) means the `$` it restarted at was a
/// price, and the span restarts there.
///
/// The first few `$` and line breaks are taken one at a time (spans are short); past those, the
/// closer is found 32 bytes at a time and the last `$` that restarts the span is found back
/// from it, so that a run of `$` that never closes (`$1 $1 $1 …`) costs a vector pass.
fn inline_span(b: &[u8], i: usize) -> Inline {
    const ONE_AT_A_TIME: usize = 8;
    let n = b.len();
    let closes = |j: usize| !b[j - 1].is_ascii_whitespace() && !b.get(j + 1).is_some_and(u8::is_ascii_digit);
    let mut open = i;
    let mut j = i + 1;
    for _ in 0..ONE_AT_A_TIME {
        j = next(b, j, |x| (x == b'$') | (x == b'\n'));
        if j >= n {
            return Inline::Unclosed { open };
        }
        if b[j] == b'\n' {
            if b.get(j + 1) == Some(&b'\n') {
                return Inline::Paragraph(j);
            }
        } else if !escaped(b, j) {
            if closes(j) {
                return Inline::Closed { open, close: j };
            }
            if b.get(j + 1).is_some_and(|c| !c.is_ascii_whitespace()) {
                open = j;
            }
        }
        j += 1;
    }
    let floor = open + 1;
    let stop = loop {
        let k = next_where(
            b,
            j,
            |x| (x == b'$') | (x == b'\n'),
            |a| {
                ((a.byte == b'$')
                    & !a.before.is_ascii_whitespace()
                    & !a.after.is_ascii_digit()
                    & a.maybe_unescaped())
                    | ((a.byte == b'\n') & (a.after == b'\n'))
            },
        );
        if k < n && b[k] == b'$' && escaped(b, k) {
            j = k + 1;
            continue;
        }
        break k;
    };
    if let Some(k) = last_unescaped(
        b,
        floor,
        stop,
        |x| x == b'$',
        |a| (a.byte == b'$') & !a.after.is_ascii_whitespace(),
    ) {
        open = k;
    }
    if stop >= n {
        Inline::Unclosed { open }
    } else if b[stop] == b'\n' {
        Inline::Paragraph(stop)
    } else {
        Inline::Closed { open, close: stop }
    }
}

/// Bytes a number may contain.
fn numeric(c: u8) -> bool {
    c.is_ascii_digit()
        | (c == b'.')
        | (c == b',')
        | ((c | 0x20) == b'e')
        | (c == b'+')
        | (c == b'-')
        | (c == b'/')
}

/// The last number: optional sign, digits with thousands commas, decimals, exponent, or a
/// fraction `a/b`. Found from the end: the last digit, the run of number bytes around it, and
/// the numbers of that run read from its start (a number never spans other bytes).
pub(super) fn last_number(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let end = prev(b, b.len(), |c| c.is_ascii_digit())? + 1;
    let run_start = prev(b, end, |c| !numeric(c)).map_or(0, |k| k + 1);
    let digits = |j: usize| next(b, j, |c| !c.is_ascii_digit());
    let mut last = None;
    let mut i = run_start;
    while i < end {
        let starts = b[i].is_ascii_digit()
            || (b[i] == b'.'
                && b.get(i + 1).is_some_and(u8::is_ascii_digit)
                && (i == 0 || !b[i - 1].is_ascii_digit()));
        if !starts {
            i += 1;
            continue;
        }
        let start = if i > 0 && b[i - 1] == b'-' && (i < 2 || !b[i - 2].is_ascii_alphanumeric()) {
            i - 1
        } else {
            i
        };
        let mut j = digits(i);
        while b.get(j) == Some(&b',')
            && b.get(j + 1..j + 4)
                .is_some_and(|g| g.iter().all(u8::is_ascii_digit))
            && !b.get(j + 4).is_some_and(u8::is_ascii_digit)
        {
            j += 4;
        }
        if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
            j = digits(j + 1);
        }
        if matches!(b.get(j), Some(b'e' | b'E')) {
            let k = if matches!(b.get(j + 1), Some(b'-' | b'+')) {
                j + 2
            } else {
                j + 1
            };
            if b.get(k).is_some_and(u8::is_ascii_digit) {
                j = digits(k);
            }
        }
        if b.get(j) == Some(&b'/') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
            j = digits(j + 1);
        }
        last = Some((start, j));
        i = j;
    }
    // The last number only when it stands alone: a term of an expression (`(a+3)^4`, `x - 4`,
    // `3t^2 - t + 7`, `4x`) is not an answer, and no earlier number is taken instead.
    last.filter(|&(a, z)| stands_alone(s, a, z))
        .map(|(a, z)| &s[a..z])
}

/// Binary operators that make a number a term of an expression.
fn operator(c: char) -> bool {
    matches!(c, '+' | '-' | '*' | '/' | '^' | '_' | '×' | '÷' | '·' | '\\')
}

/// Whether `s[a..z]`, a number, is not joined to an expression around it: nothing it is a power,
/// index, factor or term of (a letter or operator right before it, an operator before it across
/// spaces, a letter, power, index, bracket or `!` right after it, an operator after it with more
/// after that).
fn stands_alone(s: &str, a: usize, z: usize) -> bool {
    let before = &s[..a];
    let after = &s[z..];
    // A LaTeX group's argument (`2^{10}`, `\frac{1}{4}`), or a bracket opened right after a
    // name or operator (`f(4)`, `x^(2)`), is part of what is around it.
    let joined = |b: &str| {
        b.chars()
            .next_back()
            .is_some_and(|c| c.is_alphabetic() || operator(c))
    };
    let unbracketed = before.strip_suffix('(').or_else(|| before.strip_suffix('['));
    if before.ends_with('{') || after.starts_with('}') || unbracketed.is_some_and(joined) {
        return false;
    }
    // A letter right before it, or an operator before it across spaces (right before included).
    if before.chars().next_back().is_some_and(char::is_alphabetic)
        || before.trim_end().chars().next_back().is_some_and(operator)
    {
        return false;
    }
    if after
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || matches!(c, '^' | '_' | '(' | '!'))
    {
        return false;
    }
    let rest = after.trim_start();
    match rest.chars().next() {
        Some(c) if operator(c) => rest[c.len_utf8()..].trim().is_empty(),
        _ => true,
    }
}

/// The whole completion, trimmed (and a final period), when it is one non-empty line.
pub(super) fn whole_line(s: &str) -> Option<&str> {
    let t = s.trim();
    let t = t.strip_suffix('.').unwrap_or(t).trim_end();
    (!t.is_empty() && !t.contains('\n')).then_some(t)
}

/// The content of the last `<answer>…</answer>` (tags in any ASCII case), trimmed; the last box
/// inside it when it holds one; `None` when there is no closed pair or it is empty.
pub(super) fn last_tag(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    // The last `pat` (any ASCII case) that starts before `until`.
    let last = |pat: &[u8], until: usize| {
        let mut i = until;
        loop {
            i = prev(b, i, |c| c == b'<')?;
            if starts_with_ci(b, i, pat) {
                return Some(i);
            }
        }
    };
    let close = last(b"</answer>", b.len())?;
    let open = last(b"<answer>", close)? + b"<answer>".len();
    let inner = s[open..close].trim();
    let inner = last_boxed(inner).unwrap_or(inner);
    (!inner.is_empty()).then_some(inner)
}

/// The last Chinese answer statement, `答案：B`, `答案是 B`, `答案为 12。`: what follows the marker
/// (after a full-width or ASCII colon, or 是 / 为), up to the end of its line or a full stop,
/// trimmed; `None` when there is none or it is empty. A later English statement is found by
/// [`last_statement`] only when no Chinese one is present.
pub(super) fn last_chinese_statement(s: &str) -> Option<&str> {
    let at = s.rfind("答案")? + "答案".len();
    let rest = s[at..].trim_start();
    let rest = ["：", ":", "是", "为"]
        .iter()
        .find_map(|m| rest.strip_prefix(m))?
        .trim_start_matches(['：', ':', ' '])
        .trim_start();
    let end = rest.find(['\n', '。']).unwrap_or(rest.len());
    let text = rest[..end].trim().trim_end_matches(['.', '．']).trim_end();
    (!text.is_empty()).then_some(text)
}

/// The rest of the last line that starts (after white space) with `####`, trimmed, without a
/// final period: GSM8K's form of a final answer.
pub(super) fn last_hashes(s: &str) -> Option<&str> {
    s.lines()
        .rev()
        .find_map(|l| l.trim_start().strip_prefix("####"))
        .map(|rest| rest.trim().trim_end_matches('.').trim_end())
        .filter(|t| !t.is_empty())
}

/// The whole text when it is only an answer: trimmed, without a final period, at most 64 bytes,
/// and one of
/// - a number ([`only_number`]): `1 000`, `647\,937`, `-3.0`, `12.5%`;
/// - a number with one currency sign before or after it, which is left out: `$1,000.99`;
/// - a number and a percent word: `28 percent`, `28 pct`;
/// - a formula with no `$`, starting with a command (after an optional sign), on one line, with
///   no plain word of two letters or more: `\frac{10}{9}`, `-\sqrt{2}`.
pub(super) fn bare_number(s: &str) -> Option<&str> {
    const MAX: usize = 64;
    let t = s.trim();
    if t.len() > MAX + 1 {
        return None;
    }
    let t = t.strip_suffix('.').unwrap_or(t).trim_end();
    if t.len() > MAX {
        return None;
    }
    if only_number(t) {
        return Some(t);
    }
    // A price written whole: `$1,000.99`, `1,000.99€`.
    for sign in ["$", "€", "£"] {
        let inner = t
            .strip_prefix(sign)
            .or_else(|| t.strip_suffix(sign))
            .map(str::trim);
        if let Some(x) = inner.filter(|x| only_number(x)) {
            return Some(x);
        }
    }
    // A number and a percent word: `28 percent`, `28 pct`.
    if let Some((num, word)) = t.rsplit_once(' ')
        && only_number(num.trim_end())
        && ["percent", "pct", "percentage"].contains(&word.to_ascii_lowercase().as_str())
    {
        return Some(t);
    }
    // A formula written whole, with no `$`: `\frac{10}{9}`, `-\frac{10}{9}`.
    let formula = t.strip_prefix(['-', '+']).unwrap_or(t);
    (formula.starts_with('\\') && !t.contains(['\n', '$']) && !has_prose_word(t)).then_some(t)
}

/// Whether `t` is only a number: digits, sign, `.`, `,`, `/`, `%`, exponent, spaces, thin
/// spaces, `\,` or `{,}` between digit groups, starting with a digit, a sign or a point.
fn only_number(t: &str) -> bool {
    let ok_char = |c: char| {
        c.is_ascii_digit()
            || matches!(
                c,
                '+' | '-'
                    | '\u{2212}'
                    | '.'
                    | ','
                    | '/'
                    | '%'
                    | 'e'
                    | 'E'
                    | ' '
                    | '\u{2009}'
                    | '\u{202F}'
                    | '\u{00A0}'
            )
    };
    let Some(first) = t.chars().next() else {
        return false;
    };
    let starts = first.is_ascii_digit() || matches!(first, '+' | '-' | '\u{2212}' | '.');
    // LaTeX digit-group separators (`\,`, `{,}`) count as spaces and commas.
    let plain = t.replace("\\,", " ").replace("{,}", ",");
    starts && t.bytes().any(|c| c.is_ascii_digit()) && plain.chars().all(ok_char)
}

#[cfg(test)]
#[path = "spans_reference.rs"]
mod reference;

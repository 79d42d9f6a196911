//! Extraction behaviour: each answer form, the order and selection of forms, the reasons, and
//! properties over arbitrary text (no panic, the answer is a slice of the input).

use super::{AnswerForm, extract_answer};
use proptest::prelude::*;

const ALL: &[AnswerForm] = &[
    AnswerForm::Boxed,
    AnswerForm::Statement,
    AnswerForm::Latex,
    AnswerForm::Bare,
    AnswerForm::Number,
];

fn answer(s: &str) -> Option<(String, AnswerForm)> {
    extract_answer(s, ALL, 10_000).ok().map(|a| (a.text, a.form))
}

fn text(s: &str, forms: &[AnswerForm]) -> Option<String> {
    extract_answer(s, forms, 10_000).ok().map(|a| a.text)
}

/// A closing "final answer" statement after the boxes wins over a box used for a step; a box in
/// or after the statement, or a statement without a number or math, leaves the last box.
#[test]
fn a_final_answer_statement_after_the_boxes_is_the_answer() {
    let steps = r"The interest is $\boxed{200}$, then $\boxed{255}$, so $10,455 in all. Final Answer: The final answer is $10,455$. I hope it is correct.";
    assert_eq!(answer(steps), Some(("$10,455$".into(), AnswerForm::Statement)));
    // Without the statement form, the last box.
    assert_eq!(
        text(steps, &[AnswerForm::Boxed, AnswerForm::Latex]).as_deref(),
        Some("255")
    );
    let boxed_in_it = r"First $\boxed{2}$. The final answer is $\boxed{5}$.";
    assert_eq!(answer(boxed_in_it), Some(("5".into(), AnswerForm::Boxed)));
    let after = r"We want the final answer. It is \boxed{7}.";
    assert_eq!(answer(after), Some(("7".into(), AnswerForm::Boxed)));
    let quoted = r#"So \boxed{12 $ and $13 }. Final Answer: The final answer is \"$12 $ and $13 $\". I hope it is correct."#;
    assert_eq!(
        answer(quoted),
        Some(("$12 $ and $13 $".into(), AnswerForm::Statement))
    );
    assert_eq!(text(r#"The answer is "Paris"."#, ALL).as_deref(), Some("Paris"));
    let words = r"So \boxed{5}. The final answer is five.";
    assert_eq!(answer(words), Some(("5".into(), AnswerForm::Boxed)));
}

#[test]
fn boxed_answers() {
    let b = &[AnswerForm::Boxed];
    assert_eq!(text("so \\boxed{42}.", b).as_deref(), Some("42"));
    assert_eq!(text("\\boxed{\\frac{1}{2}}", b).as_deref(), Some("\\frac{1}{2}"));
    assert_eq!(text("\\boxed{1} then \\boxed{ 2 }", b).as_deref(), Some("2"));
    assert_eq!(text("\\fbox{7}", b).as_deref(), Some("7"));
    assert_eq!(text("\\boxed {7}", b).as_deref(), Some("7"));
    assert_eq!(
        text("\\boxed{3} and later \\boxed{4", b).as_deref(),
        Some("3"),
        "unbalanced is skipped"
    );
    assert_eq!(
        text("\\boxed{\\{1, 2\\}}", b).as_deref(),
        Some("\\{1, 2\\}"),
        "escaped braces"
    );
    assert_eq!(
        text("\\boxed{x = \\boxed{5}}", b).as_deref(),
        Some("5"),
        "innermost starts last"
    );
    assert_eq!(
        text("\\boxed{5} \\boxed{}", b).as_deref(),
        Some("5"),
        "empty is skipped"
    );
    assert_eq!(text("\\boxedx{5}", b), None);
    assert_eq!(text("} } \\boxed{é}", b).as_deref(), Some("é"));
}

#[test]
fn boxes_joined_by_connectors_are_one_answer() {
    let b = &[AnswerForm::Boxed];
    assert_eq!(
        text("so \\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 2)}.", b).as_deref(),
        Some("\\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 2)}")
    );
    assert_eq!(
        text("$\\boxed{1}$, $\\boxed{2}$ or \\boxed{3}", b).as_deref(),
        Some("\\boxed{1}$, $\\boxed{2}$ or \\boxed{3}")
    );
    assert_eq!(
        text("\\boxed{1}. Wait, that is wrong: \\boxed{2}", b).as_deref(),
        Some("2"),
        "prose between boxes: the last counts"
    );
    assert_eq!(
        text("\\boxed{} and \\boxed{2}", b).as_deref(),
        Some("2"),
        "an empty box is not an answer"
    );
    assert_eq!(
        text("\\boxed{x = \\boxed{5}}", b).as_deref(),
        Some("5"),
        "a box around the last is not beside it"
    );
    assert_eq!(text("\\boxed{1} and orange \\boxed{2}", b).as_deref(), Some("2"));
    // A unit word right after a box, before a separator; part labels; names before a box.
    assert_eq!(
        text("\\boxed{1} papers and \\boxed{2} bins", b).as_deref(),
        Some("\\boxed{1} papers and \\boxed{2}")
    );
    assert_eq!(text("\\boxed{3} apples \\boxed{4}", b).as_deref(), Some("4"));
    assert_eq!(
        text("\\boxed{(3, 3)} \\text{ for part (a) and } \\boxed{(1, 1)}", b).as_deref(),
        Some("\\boxed{(3, 3)} \\text{ for part (a) and } \\boxed{(1, 1)}")
    );
    assert_eq!(
        text("**(a)** \\boxed{3}\n**(b)** \\boxed{5}", b).as_deref(),
        Some("\\boxed{3}\n**(b)** \\boxed{5}")
    );
    assert_eq!(
        text("\\(y_1 = \\boxed{1} \\) and \\( y_{2} = \\boxed{2} \\)", b).as_deref(),
        Some("\\boxed{1} \\) and \\( y_{2} = \\boxed{2}")
    );
    assert_eq!(text("\\boxed{1} so x = \\boxed{2}", b).as_deref(), Some("2"));
    let many = "\\boxed{1} \\quad ".repeat(2000);
    let run = text(&many, b).unwrap();
    assert!(
        run.len() > 8000 && run.len() < many.len(),
        "a long run is cut past 8 KiB: {}",
        run.len()
    );
}

#[test]
fn bare_numbers() {
    let f = &[AnswerForm::Bare];
    for (s, want) in [
        ("42", "42"),
        ("  1 000 \n", "1 000"),
        ("-3.0.", "-3.0"),
        ("12.5%", "12.5%"),
        ("\u{2212}7", "\u{2212}7"),
        ("1\u{2009}234", "1\u{2009}234"),
        ("3/4", "3/4"),
        ("647\\,937", "647\\,937"),
        ("3{,}995{,}094", "3{,}995{,}094"),
        ("$1,000.99", "1,000.99"),
        ("1,000.99€", "1,000.99"),
        ("28 percent", "28 percent"),
        ("28 pct.", "28 pct"),
        ("\\frac12", "\\frac12"),
        ("-\\frac{10}{9}", "-\\frac{10}{9}"),
    ] {
        assert_eq!(text(s, f).as_deref(), Some(want), "{s:?}");
    }
    for s in [
        "x = 4",
        "42 apples",
        "about 5",
        "",
        "...",
        "\\frac12 is the answer",
        "\\text{the answer} 5 and 6",
        "$5 and $6",
        "28 apples",
        "\\frac12\n\\frac13",
        &"1".repeat(65),
    ] {
        assert_eq!(text(s, f), None, "{s:?}");
    }
    assert_eq!(answer("17"), Some(("17".into(), AnswerForm::Bare)));
}

#[test]
fn statements() {
    let s = &[AnswerForm::Statement];
    assert_eq!(text("The answer is 42.", s).as_deref(), Some("42"));
    assert_eq!(text("Answer: 3.5\nbecause", s).as_deref(), Some("3.5"));
    assert_eq!(text("**Final Answer:** $x = 2$.", s).as_deref(), Some("$x = 2$"));
    assert_eq!(text("final answer is: **Paris**", s).as_deref(), Some("Paris"));
    assert_eq!(text("ANSWER = 12", s).as_deref(), Some("12"));
    assert_eq!(text("Answer:\n\n  7", s).as_deref(), Some("7"));
    assert_eq!(
        text("answer: 1. Later, the answer is 2! Done", s).as_deref(),
        Some("2")
    );
    assert_eq!(text("The answer is 5 cm. It follows", s).as_deref(), Some("5 cm"));
    assert_eq!(text("The answer is $3.14$. ok", s).as_deref(), Some("$3.14$"));
    assert_eq!(
        text("Answer: $$\n\\frac{1}{2}\n$$ done", s).as_deref(),
        Some("$$\n\\frac{1}{2}\n$$")
    );
    assert_eq!(
        text("answer: 4. answer: .", s).as_deref(),
        Some("4"),
        "an empty last one falls back"
    );
    assert_eq!(
        text("Final Answer: The largest $n$ is 34.", s).as_deref(),
        Some("34"),
        "a sentence naming its quantity gives what follows its last `is`"
    );
    assert_eq!(
        text("The final answer is: The volume of $ABCDEFGH$ is 120", s).as_deref(),
        Some("120")
    );
    assert_eq!(
        text("Answer: $x is 5$", s).as_deref(),
        Some("$x is 5$"),
        "not inside math"
    );
    assert_eq!(text("Answer: 5 is", s).as_deref(), Some("5 is"));
    // A sentence in prose gives its one number; a number first, two, or a negation leave it.
    assert_eq!(
        text("Final Answer: Jane started growing Sphere 3 hours ago.", s).as_deref(),
        Some("3")
    );
    assert_eq!(text("Final Answer: 5 apples", s).as_deref(), Some("5 apples"));
    assert_eq!(
        text("Answer: between 3 and 4", s).as_deref(),
        Some("between 3 and 4")
    );
    assert_eq!(text("Answer: surely not 3", s).as_deref(), Some("surely not 3"));
    assert_eq!(text("the answers: 4", s), None);
    assert_eq!(text("reanswer: 4", s), None);
    assert_eq!(text("I answered it", s), None);
}

/// A closing sentence after all the math gives its number; reasoning or math after it, a
/// negation, two numbers, or a sentence that neither concludes nor is the whole completion
/// leave it.
#[test]
fn a_closing_sentence_after_the_math_is_the_answer() {
    let s = &[AnswerForm::Statement];
    let sl = &[AnswerForm::Statement, AnswerForm::Latex];
    assert_eq!(
        text(
            "so P(A) = 2/3. Therefore, the probability that Alice wins is 2/3. <|im_start|>user",
            s
        )
        .as_deref(),
        Some("2/3")
    );
    assert_eq!(
        text(
            "We get $d = \\frac{90}{n}$. Therefore, there are 12 such sequences. I hope it is correct.",
            sl
        )
        .as_deref(),
        Some("12")
    );
    assert_eq!(
        text("$$\\frac{x'}{x} \\geq 2.$$ Thus the error increases by 100%.", sl).as_deref(),
        Some("100%")
    );
    assert_eq!(
        text("so the number is 10 which is 1,000.99m²", s).as_deref(),
        Some("1,000.99m²")
    );
    assert_eq!(
        text("the number is not 10 which is 1,000.99€", s).as_deref(),
        Some("1,000.99€"),
        "a whole one-sentence completion: what follows its last `is`"
    );
    let more = format!(
        "So the probability is 3/8. {}",
        "Let me check that again. ".repeat(5)
    );
    assert_eq!(text(&more, s), None, "more reasoning after it");
    assert_eq!(
        text("Therefore, it has 2 parts: $x = 5$.", sl).as_deref(),
        Some("x = 5")
    );
    assert_eq!(text("Therefore, the total is not 12.", s), None);
    assert_eq!(text("Therefore, it cannot be 12.", s), None);
    assert_eq!(text("First we try it. We get 12 cases.", s), None);
    assert_eq!(text("We get 12 cases", s), None, "a whole sentence with no `is`");
    assert_eq!(text("Thus we compare 3 and 4.", s), None);
    assert_eq!(text("Hence there are 5 apples", s).as_deref(), Some("5"));
    assert_eq!(text("Therefore, the answer is 7.", s).as_deref(), Some("7"));
}

#[test]
fn math_spans() {
    let l = &[AnswerForm::Latex];
    assert_eq!(text("so $x^2$ and $y$", l).as_deref(), Some("y"));
    assert_eq!(text("$$\\frac12$$", l).as_deref(), Some("\\frac12"));
    assert_eq!(text("\\(a\\) then \\[b\\]", l).as_deref(), Some("b"));
    assert_eq!(text("it costs $5 and the result is $7$", l).as_deref(), Some("7"));
    assert_eq!(text("$x$ costs $5", l).as_deref(), Some("x"));
    assert_eq!(
        text("$a$ then $ b", l).as_deref(),
        Some("a"),
        "unbalanced `$` is ignored"
    );
    assert_eq!(
        text("$a$ then $b\n\nc$", l).as_deref(),
        Some("a"),
        "no span across a blank line"
    );
    assert_eq!(text("\\$5 and \\$6", l), None);
    assert_eq!(text("$5 and \\(z\\)", l).as_deref(), Some("z"));
    assert_eq!(text("$$ $$", l), None);
    assert_eq!(text("\\( \\( x \\)", l).as_deref(), Some("\\( x"));
    assert_eq!(
        text("$y$ so \\begin{align*} x &= 5 \\end{align*} done", l).as_deref(),
        Some("\\begin{align*} x &= 5 \\end{align*}")
    );
    assert_eq!(
        text("\\begin{align*} x &= 5 \\end{align*} then $y$", l).as_deref(),
        Some("y")
    );
    assert_eq!(text("\\begin{align*}  \\end{align*}", l), None);
    assert_eq!(text("\\begin{tabular} 5 \\end{tabular}", l), None);
}

#[test]
fn math_spans_with_a_space_inside_a_dollar_when_nothing_strict_is_there() {
    let l = &[AnswerForm::Latex];
    assert_eq!(text("Answer $ 9 $", l).as_deref(), Some("9"));
    assert_eq!(text("so $\\frac13 $.", l).as_deref(), Some("\\frac13"));
    assert_eq!(text("$ 5 $ then $ x $", l).as_deref(), Some("x"));
    assert_eq!(
        text(
            "The identity is $ \\begin{pmatrix}1 & 0 \\\\ 0 & 1\\end{pmatrix} $.",
            l
        )
        .as_deref(),
        Some("\\begin{pmatrix}1 & 0 \\\\ 0 & 1\\end{pmatrix}")
    );
    // Prices and prose stay out: a word between spaces means it is not math.
    assert_eq!(text("it costs $5 and $ 6", l), None);
    assert_eq!(text("between $ 5 and 6 $", l), None);
    assert_eq!(text("$ 9\n\n$", l), None, "no span across a blank line");
    // Inline math set on lines of its own is not inline math; display math may be.
    assert_eq!(text("Answer $ \n 9 \n $", l), None);
    assert_eq!(text("Answer \\( \n 9 \n \\)", l), None);
    assert_eq!(text("Answer \\(9 \n\\)", l), None);
    assert_eq!(text("Answer \\[ \n 9 \n \\]", l).as_deref(), Some("9"));
    assert_eq!(text("Answer $$ \n 9 \n $$", l).as_deref(), Some("9"));
    assert_eq!(text("Answer \\(x +\n 1\\)", l).as_deref(), Some("x +\n 1"));
    assert_eq!(text("$5$ then \\( \n 9 \n \\)", l).as_deref(), Some("5"));
    // A strict span anywhere wins.
    assert_eq!(text("$ 9 $ but $x$", l).as_deref(), Some("x"));
}

#[test]
fn numbers() {
    let n = &[AnswerForm::Number];
    assert_eq!(
        text("we get 3 then 12,345.5 apples", n).as_deref(),
        Some("12,345.5")
    );
    assert_eq!(text("it is -4.", n).as_deref(), Some("-4"));
    // A term of an expression is not an answer, and no earlier number stands in for it.
    for expr in [
        "x-4",
        "(a+3)^4",
        "3t^2 - t + 7",
        "so 4x",
        "10 - 4",
        "2^{10}",
        "4 + y",
        "a_4",
        "3!",
        "\\frac{1}{4}",
        "f(4)",
    ] {
        assert_eq!(text(expr, n), None, "{expr}");
    }
    assert_eq!(text("x = 4", n).as_deref(), Some("4"));
    assert_eq!(text("so 3 + 4 = 7 apples.", n).as_deref(), Some("7"));
    assert_eq!(text("costs $4.", n).as_deref(), Some("4"));
    assert_eq!(text("(4)", n).as_deref(), Some("4"));
    assert_eq!(text("ratio 3/4", n).as_deref(), Some("3/4"));
    assert_eq!(text("about 1.5e-3 m", n).as_deref(), Some("1.5e-3"));
    assert_eq!(text("about .5", n).as_deref(), Some(".5"));
    assert_eq!(text("1,23", n).as_deref(), Some("23"));
    assert_eq!(text("no digits", n), None);
}

#[test]
fn forms_are_tried_in_order_and_only_when_listed() {
    let s = "The answer is 3. So $4$ and \\boxed{5} and 6";
    assert_eq!(answer(s), Some(("5".into(), AnswerForm::Boxed)));
    let no_box = &[AnswerForm::Statement, AnswerForm::Latex, AnswerForm::Number];
    assert_eq!(text(s, no_box).as_deref(), Some("3"));
    assert_eq!(
        text(s, &[AnswerForm::Latex, AnswerForm::Number]).as_deref(),
        Some("4")
    );
    assert_eq!(text(s, &[AnswerForm::Number]).as_deref(), Some("6"));
    assert_eq!(
        text(
            "just 6",
            &[AnswerForm::Boxed, AnswerForm::Statement, AnswerForm::Latex]
        ),
        None
    );
    assert_eq!(answer("just 6"), Some(("6".into(), AnswerForm::Number)));
}

#[test]
fn reasons() {
    let r = extract_answer("nothing here", ALL, 200).unwrap_err();
    assert_eq!(r.code, "no-answer");
    assert!(
        r.detail.contains("boxed, statement, latex, bare, number"),
        "{}",
        r.detail
    );
    let r = extract_answer("\\boxed{123456}", ALL, 5).unwrap_err();
    assert_eq!(r.code, "answer-too-long");
    assert!(extract_answer("\\boxed{12345}", ALL, 5).is_ok());
    let r = extract_answer("\\boxed{1}", &[], 5).unwrap_err();
    assert_eq!(r.code, "no-answer");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn extraction_never_panics_and_slices_the_input(s in any::<String>()) {
        for forms in [ALL, &[AnswerForm::Number][..], &[AnswerForm::Latex][..]] {
            if let Ok(a) = extract_answer(&s, forms, usize::MAX) {
                prop_assert!(s.contains(&a.text));
                prop_assert!(!a.text.is_empty());
            }
        }
    }

    #[test]
    fn extraction_never_panics_on_markup(
        v in prop::collection::vec(
            prop::sample::select(vec![
                "\\boxed{", "\\fbox{", "{", "}", "\\", "$", "$$", "\\(", "\\)", "\\[", "\\]", "answer", "Answer:",
                " is ", "**", ".", "\n", "\n\n", "5", "-", ",", "123", "e-3", "/", "é", "π", "```",
            ]),
            0..80,
        )
    ) {
        let s = v.concat();
        for forms in [ALL, &[AnswerForm::Statement][..], &[AnswerForm::Latex][..], &[AnswerForm::Boxed][..]] {
            if let Ok(a) = extract_answer(&s, forms, usize::MAX) {
                prop_assert!(s.contains(&a.text));
            }
        }
    }
}

#[test]
fn gsm8k_hashes_give_the_last_hash_line() {
    let h = &[AnswerForm::Hashes];
    assert_eq!(text("3 * 4 = 12\n#### 12", h).as_deref(), Some("12"));
    assert_eq!(
        text("#### 5\nno, wait\n  ####  1,200.  ", h).as_deref(),
        Some("1,200")
    );
    assert_eq!(text("#### \n", h), None, "an empty hash line is no answer");
    assert_eq!(text("the #### is not at a line's start", h), None);
    // A box or a statement comes first when the profile takes them.
    assert_eq!(
        answer("So \\boxed{7}.\n#### 8").map(|(t, f)| (t, f.name())),
        Some(("7".into(), "boxed"))
    );
}

#[test]
fn answer_tags_and_chinese_statements() {
    let t = &[AnswerForm::Tag];
    assert_eq!(text("So <answer>x+1</answer>", t).as_deref(), Some("x+1"));
    assert_eq!(
        text("<ANSWER> \\boxed{7} </Answer>", t).as_deref(),
        Some("7"),
        "the box inside"
    );
    assert_eq!(
        text("<answer>1</answer> then <answer>2</answer>", t).as_deref(),
        Some("2")
    );
    assert_eq!(text("<answer></answer>", t), None);
    assert_eq!(text("<answer>unclosed", t), None);
    let st = &[AnswerForm::Statement];
    assert_eq!(text("所以答案：B", st).as_deref(), Some("B"));
    assert_eq!(text("答案是 12。然后", st).as_deref(), Some("12"));
    assert_eq!(text("答案为：$x=2$\n", st).as_deref(), Some("$x=2$"));
    assert_eq!(text("答案", st), None);
    // The tag comes before a box when both are accepted.
    assert_eq!(
        text(
            "\\boxed{3} <answer>4</answer>",
            &[AnswerForm::Tag, AnswerForm::Boxed]
        )
        .as_deref(),
        Some("4")
    );
}

#[test]
fn a_whole_one_line_completion_is_the_answer_when_asked() {
    let w = &[AnswerForm::Whole];
    assert_eq!(text(" 3t^2 - t + 7 ", w).as_deref(), Some("3t^2 - t + 7"));
    assert_eq!(text("(-\\infty, 4]", w).as_deref(), Some("(-\\infty, 4]"));
    assert_eq!(text("g(t) = 5t - 1.", w).as_deref(), Some("g(t) = 5t - 1"));
    assert_eq!(text("first line\nsecond", w), None, "reasoning is not an answer");
    assert_eq!(text("  ", w), None);
    // Marked answers still come first when those forms are listed.
    assert_eq!(
        text("so \\boxed{4}", &[AnswerForm::Boxed, AnswerForm::Whole]).as_deref(),
        Some("4")
    );
}

/// The forms of the example Q&A profile (`examples/qa/profile.yaml`).
const PROFILE_FORMS: &[AnswerForm] = &[
    AnswerForm::Tag,
    AnswerForm::Boxed,
    AnswerForm::Statement,
    AnswerForm::Latex,
    AnswerForm::Bare,
];

/// Answers people write: each read (or deliberately not read) as the table says, and judged
/// against a right and a wrong reference so that no wrong answer passes.
#[test]
fn answers_people_write_are_read_or_refused_both_ways() {
    use crate::normalise::{Comparison, compare};
    // (completion, what is read, a reference it must equal, one it must not).
    let read: &[(&str, &str, &str, &str)] = &[
        // A bold final number, alone on the last line or closing a sentence.
        (
            "Each costs 13600, so 3 cost 3 * 13600 = 40800.\n\n**40800**",
            "40800",
            "40800",
            "13600",
        ),
        ("3 * 13600 = 40800\n**40800.**\n", "40800", "40800", "3"),
        (
            "Three of them cost 40800 in all.\nSo the total is **40800**.",
            "40800",
            "40800",
            "40801",
        ),
        // An "Answer" heading (markdown heading or bold label) with the answer on the next line.
        (
            "Work: 7 * 1500 = 10500.\n\n### Answer\n10500",
            "10500",
            "10500",
            "1500",
        ),
        (
            "7 * 1500 = 10500\n\n## Final Answer\n\nThe total is $10500$.",
            "$10500$",
            "10500",
            "7",
        ),
        (
            "7 * 1500 = 10500\n\n**Answer**\n10500 dollars",
            "10500 dollars",
            "10500",
            "1500",
        ),
    ];
    for (completion, expected, right, wrong) in read {
        let got = text(completion, PROFILE_FORMS);
        assert_eq!(got.as_deref(), Some(*expected), "{completion:?}");
        let got = got.unwrap();
        assert_eq!(
            compare(right, &got),
            Comparison::Equal,
            "{completion:?} against {right}"
        );
        assert_ne!(
            compare(wrong, &got),
            Comparison::Equal,
            "{completion:?} against {wrong}"
        );
    }
    // Not read, so never a wrong answer: the answer first (`10500. Here is why…` cannot be told
    // from a numbered step `1. First…`), a sign in words (`5 degrees below zero` is -5, never
    // 5), dollars and cents in words (two numbers), a bold number that is not alone on its
    // line, a heading that says more than "Answer", and a line that only mentions one.
    let unread: &[&str] = &[
        "10500. Here is why: 7 workers earn 1500 each, 7 * 1500 = 10500.",
        "1. First, 7 * 1500 = 10500.\n2. Then we are done.",
        "It was 7 degrees and dropped by 12.\nSo the temperature is 5 degrees below zero.",
        "He paid 12 dollars and 50 cents.",
        "Step **3** gives 40800 and step **4** gives 3",
        "### Answer checking\n12",
        "We check the answer\n12",
    ];
    for completion in unread {
        let got = text(completion, PROFILE_FORMS);
        assert_eq!(got, None, "{completion:?}");
    }
}

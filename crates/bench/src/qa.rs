//! The Q&A answer benchmark: throughput of [`compare`] over (reference, candidate answer)
//! pairs, and the time of one [`extract_answer`] + [`compare`] over each pathological
//! completion of up to about 1 MiB (deep braces, megabyte digit strings, 100k fractions,
//! unbalanced `$`, nested roots) and over answers just under the comparison's size limit,
//! where the reader does the most work. Goals: at least [`GOAL_PER_SECOND`] comparisons per
//! second on one thread, and no case above [`GOAL_WORST`], in a release build. A case's time
//! is the median of [`RUNS`] runs; the slowest run is printed beside it, since on a shared
//! machine it also measures whatever else was scheduled.

pub(crate) mod corpus;

use aorlta_answer::QaTaskDef;
use aorlta_answer::{AnswerForm, extract_answer};
use aorlta_answer::{Comparison, compare};
use aorlta_check::CoreError;
use aorlta_check::TaskSet;
use aorlta_core::read_pool;
use std::collections::HashMap;
use std::fmt;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

/// The throughput goal, in comparisons per second on one thread.
pub(crate) const GOAL_PER_SECOND: f64 = 200_000.0;
/// The goal for the slowest single extraction and comparison.
pub(crate) const GOAL_WORST: Duration = Duration::from_millis(1);
/// How long the throughput loop runs at least.
pub const MIN_MEASURE: Duration = Duration::from_secs(1);
/// Runs of each pathological case.
pub(crate) const RUNS: usize = 11;
const MIB: usize = 1 << 20;

/// Every answer form, in the order they are tried.
const ALL_FORMS: &[AnswerForm] = &[
    AnswerForm::Boxed,
    AnswerForm::Statement,
    AnswerForm::Latex,
    AnswerForm::Number,
];

/// How the pairs compared, over one pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcomes {
    /// Pairs found equal.
    pub equal: usize,
    /// Pairs found different.
    pub not_equal: usize,
    /// Pairs whose reference could not be read.
    pub reference_unreadable: usize,
    /// Pairs whose candidate could not be read.
    pub candidate_unreadable: usize,
}

/// The timing of several runs of one pathological case.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseTiming {
    /// What the case is.
    pub name: String,
    /// The completion's size in bytes.
    pub bytes: usize,
    /// What extraction and comparison concluded (an outcome or a reason code).
    pub outcome: String,
    /// The median run: the case's time, judged against the goal for the slowest case (1 ms).
    pub median: Duration,
    /// The slowest run (includes any scheduling noise of the machine).
    pub max: Duration,
}

/// The figures of one benchmark run.
#[derive(Debug, Clone, PartialEq)]
pub struct QaBenchReport {
    /// Pairs in the workload.
    pub pairs: usize,
    /// Comparisons made in the throughput loop.
    pub comparisons: u64,
    /// Time the throughput loop took.
    pub elapsed: Duration,
    /// Outcomes over one pass of the pairs.
    pub outcomes: Outcomes,
    /// The pathological cases.
    pub cases: Vec<CaseTiming>,
}

impl QaBenchReport {
    /// Comparisons per second in the throughput loop.
    pub fn per_second(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 { self.comparisons as f64 / s } else { 0.0 }
    }

    /// The slowest pathological case (by its median run).
    pub fn worst_case(&self) -> Option<&CaseTiming> {
        self.cases.iter().max_by_key(|c| c.median)
    }

    /// Whether both goals are met.
    pub fn meets_goals(&self) -> bool {
        self.per_second() >= GOAL_PER_SECOND && self.worst_case().is_none_or(|c| c.median <= GOAL_WORST)
    }
}

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "NOT met" }
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

impl fmt::Display for QaBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rate = self.per_second();
        let o = &self.outcomes;
        writeln!(f, "Q&A answer comparison, one thread")?;
        writeln!(f, "  {:<22} {}", "pairs", self.pairs)?;
        writeln!(
            f,
            "  {:<22} {} in {:.2} s",
            "comparisons",
            self.comparisons,
            self.elapsed.as_secs_f64()
        )?;
        writeln!(
            f,
            "  {:<22} {:.0} /s (goal >= {:.0} /s: {})",
            "throughput",
            rate,
            GOAL_PER_SECOND,
            met(rate >= GOAL_PER_SECOND)
        )?;
        writeln!(
            f,
            "  {:<22} equal {}, not equal {}, reference unreadable {}, candidate unreadable {}",
            "outcomes (one pass)", o.equal, o.not_equal, o.reference_unreadable, o.candidate_unreadable
        )?;
        writeln!(f)?;
        writeln!(
            f,
            "Pathological input: extract_answer + compare, median and max of {RUNS} runs"
        )?;
        writeln!(
            f,
            "  {:<38} {:>9}  {:<21} {:>10} {:>10}",
            "case", "bytes", "outcome", "median", "max"
        )?;
        for c in &self.cases {
            writeln!(
                f,
                "  {:<38} {:>9}  {:<21} {:>10} {:>10}",
                c.name,
                c.bytes,
                c.outcome,
                ms(c.median),
                ms(c.max)
            )?;
        }
        if let Some(w) = self.worst_case() {
            writeln!(
                f,
                "  worst case: {} at {} median (goal < {}: {})",
                w.name,
                ms(w.median),
                ms(GOAL_WORST),
                met(w.median <= GOAL_WORST)
            )?;
        }
        Ok(())
    }
}

/// Runs the benchmark over `pairs` of (reference, candidate answer): the throughput loop for at
/// least [`MIN_MEASURE`], then every pathological case.
pub fn run_qa(pairs: &[(String, String)]) -> QaBenchReport {
    run_qa_for(pairs, MIN_MEASURE)
}

/// [`run_qa`] with the throughput loop running at least `min_time`.
pub(crate) fn run_qa_for(pairs: &[(String, String)], min_time: Duration) -> QaBenchReport {
    let mut outcomes = Outcomes::default();
    for (r, c) in pairs {
        match compare(r, c) {
            Comparison::Equal => outcomes.equal += 1,
            Comparison::NotEqual => outcomes.not_equal += 1,
            Comparison::ReferenceUnreadable(_) => outcomes.reference_unreadable += 1,
            Comparison::CandidateUnreadable(_) => outcomes.candidate_unreadable += 1,
        }
    }
    let mut comparisons = 0u64;
    let start = Instant::now();
    let mut elapsed = Duration::ZERO;
    if !pairs.is_empty() {
        while elapsed < min_time {
            for (r, c) in pairs {
                black_box(compare(black_box(r), black_box(c)));
            }
            comparisons += pairs.len() as u64;
            elapsed = start.elapsed();
        }
    }
    let cases = pathological_cases()
        .into_iter()
        .map(|case| {
            let mut times = Vec::with_capacity(RUNS);
            let mut outcome = String::new();
            for _ in 0..RUNS {
                let t = Instant::now();
                outcome = extract_and_compare(&case.reference, &case.completion);
                times.push(t.elapsed());
            }
            times.sort();
            CaseTiming {
                name: case.name,
                bytes: case.completion.len(),
                outcome,
                median: times[RUNS / 2],
                max: times[RUNS - 1],
            }
        })
        .collect();
    QaBenchReport {
        pairs: pairs.len(),
        comparisons,
        elapsed,
        outcomes,
        cases,
    }
}

/// What a trainer's `parse` and `normalised-match` legs do with one completion: extract with
/// every form and no length limit (so the comparison meets the whole answer), then compare.
fn extract_and_compare(reference: &str, completion: &str) -> String {
    match extract_answer(black_box(completion), ALL_FORMS, usize::MAX) {
        Ok(a) => match compare(black_box(reference), &a.text) {
            Comparison::Equal => "equal".into(),
            Comparison::NotEqual => "not-equal".into(),
            Comparison::ReferenceUnreadable(_) => "reference-unreadable".into(),
            Comparison::CandidateUnreadable(_) => "answer-unreadable".into(),
        },
        Err(r) => r.code,
    }
}

/// One pathological completion and the reference it is compared with.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    /// What it is.
    pub(crate) name: String,
    /// The reference answer.
    pub(crate) reference: String,
    /// The completion.
    pub(crate) completion: String,
}

fn case(name: &str, reference: &str, completion: String) -> Case {
    Case {
        name: name.into(),
        reference: reference.into(),
        completion,
    }
}

/// `unit` repeated until the result is about `bytes` long.
fn fill(unit: &str, bytes: usize) -> String {
    unit.repeat(bytes / unit.len().max(1))
}

/// The built-in pathological completions: about 1 MiB each, and answers just under the
/// comparison's 4 KiB limit.
pub(crate) fn pathological_cases() -> Vec<Case> {
    let k = MIB / 8;
    let set: Vec<String> = (0..900).map(|i| i.to_string()).collect();
    let rev: Vec<String> = set.iter().rev().cloned().collect();
    let vars: Vec<String> = (1..=16)
        .map(|i| format!("{}x_{{{i}}}^{{2}}", i % 7 + 1))
        .collect();
    let vars_rev: Vec<String> = vars.iter().rev().cloned().collect();
    vec![
        case(
            "unclosed deep braces \\boxed{{{{…",
            "1",
            format!("\\boxed{{{}", fill("{", MIB - 7)),
        ),
        case(
            "balanced deep braces \\boxed{{{…1}}}",
            "1",
            format!(
                "\\boxed{{{}1{}}}",
                "{".repeat(MIB / 2 - 8),
                "}".repeat(MIB / 2 - 8)
            ),
        ),
        case(
            "1 MiB digit string",
            "7",
            format!("The answer is {}", fill("7", MIB - 14)),
        ),
        case(
            "1 MiB digits in \\boxed{}",
            "7",
            format!("\\boxed{{{}}}", fill("7", MIB - 8)),
        ),
        case(
            "100k \\frac{1}{2} in $…$",
            "0.5",
            format!("${}$", "\\frac{1}{2}".repeat(100_000)),
        ),
        case("unbalanced $ (\"$1 \" × 350k)", "1", fill("$1 ", MIB)),
        case("lone $ × 1 MiB", "1", fill("$", MIB)),
        case("escaped \\$ × 512k", "1", fill("\\$", MIB)),
        case("inline spans \"$a b$ \" × 175k", "1", fill("$a b$ ", MIB)),
        case("paragraphs \"⏎⏎$1\" × 262k", "1", fill("\n\n$1", MIB)),
        case("\"(\" × 1 MiB", "1", fill("(", MIB)),
        case(
            "nested \\sqrt{\\sqrt{…}}",
            "2",
            format!("\\boxed{{{}2{}}}", "\\sqrt{".repeat(k), "}".repeat(k)),
        ),
        case("unclosed \\boxed{\\boxed{…", "1", fill("\\boxed{", MIB)),
        case("unclosed \\boxed{{}\\boxed{{}…", "1", fill("\\boxed{{}", MIB)),
        case("\"answer: \" × 130k", "1", fill("answer: ", MIB)),
        case("unclosed \\( × 512k", "1", fill("\\(", MIB)),
        case(
            "one 1 MiB line after \"answer is\"",
            "1",
            format!("The answer is {}", fill("word ", MIB - 14)),
        ),
        case(
            "multibyte text then \\boxed{π}",
            "\\pi",
            format!("{}\\boxed{{π}}", fill("é", MIB - 12)),
        ),
        case(
            "4 KiB digits (read in full)",
            &"7".repeat(4000),
            format!("\\boxed{{{}}}", "7".repeat(4000)),
        ),
        case(
            "4 KiB nested braces",
            "1",
            format!("\\boxed{{{}1{}}}", "{".repeat(2000), "}".repeat(2000)),
        ),
        case(
            "4 KiB sum 1+1+…+1",
            "2000",
            format!("\\boxed{{{}1}}", "1+".repeat(1999)),
        ),
        case(
            "4 KiB unary minus chain",
            "1",
            format!("\\boxed{{{}1}}", "-".repeat(4000)),
        ),
        case(
            "4 KiB nested parentheses",
            "1",
            format!("\\boxed{{{}1{}}}", "(".repeat(2000), ")".repeat(2000)),
        ),
        case(
            "900-element set, reversed",
            &format!("\\{{{}\\}}", set.join(",")),
            format!("\\boxed{{\\{{{}\\}}}}", rev.join(",")),
        ),
        case(
            "1 MiB of \\end{align*} without \\begin",
            "1",
            fill("\\end{align*} ", MIB),
        ),
        case(
            "boxes joined by \\quad × 60k",
            "1",
            fill("\\boxed{1} \\quad ", MIB),
        ),
        case(
            "4 KiB chain of inequalities",
            "1",
            format!("\\boxed{{{}1}}", "0 < x \\le ".repeat(330)),
        ),
        case(
            "4 KiB named solutions p=…,q=…;",
            &(0..150)
                .map(|i| format!("({i},{})", i + 1))
                .collect::<Vec<_>>()
                .join(","),
            format!(
                "\\boxed{{{}}}",
                (0..150)
                    .map(|i| format!("p={i},q={};", i + 1))
                    .collect::<String>()
            ),
        ),
        case(
            "4 KiB ratio 1:2:3:…",
            &(1..700).map(|i| i.to_string()).collect::<Vec<_>>().join(":"),
            format!(
                "\\boxed{{{}}}",
                (1..700)
                    .map(|i| (2 * i).to_string())
                    .collect::<Vec<_>>()
                    .join(":")
            ),
        ),
        case(
            "matrix product 100×1 by 1×100",
            "1",
            format!(
                "\\boxed{{\\begin{{pmatrix}}{}\\end{{pmatrix}}\\begin{{pmatrix}}{}\\end{{pmatrix}}}}",
                ["3"; 100].join("\\\\"),
                ["7"; 100].join("&")
            ),
        ),
        case(
            "4 KiB sum of 2×2 matrices",
            "\\begin{pmatrix}110 & 110 \\\\ 110 & 110\\end{pmatrix}",
            format!(
                "\\boxed{{{}}}",
                ["\\begin{pmatrix}1&1\\\\1&1\\end{pmatrix}"; 110].join("+")
            ),
        ),
        case(
            "16-variable formula, reordered",
            &vars.join("+"),
            format!("\\boxed{{{}}}", vars_rev.join("+")),
        ),
    ]
}

/// A built-in workload of varied (reference, candidate) pairs, for when no task files are at
/// hand: numbers, fractions, closed forms, units, sets, intervals, choices, words, formulas and
/// unreadable answers, equal and not.
pub fn builtin_pairs() -> Vec<(String, String)> {
    const PAIRS: &[(&str, &str)] = &[
        ("42", "42"),
        ("42", "43"),
        ("-7", "−7"),
        ("0.5", ".5"),
        ("12345678", "12,345,678"),
        ("0.0012", "1.2\\times10^{-3}"),
        ("\\frac{1}{2}", "0.5"),
        ("\\frac{1}{2}", "\\dfrac{1}{2}"),
        ("\\frac{3}{4}", "3/4"),
        ("\\frac{1}{3}", "0.333"),
        ("50%", "0.5"),
        ("50\\%", "50"),
        ("5", "\\$5"),
        ("5", "5 dollars"),
        ("5 cm", "5\\text{ cm}"),
        ("12 inches", "12"),
        ("4 hours", "4 minutes"),
        ("30^\\circ", "30°"),
        ("\\boxed{17}", "17"),
        ("5", "x = 5"),
        ("(1, 2)", "(1,2)"),
        ("(1, 2)", "(2, 1)"),
        ("\\{1, 2, 3\\}", "\\{3, 2, 1\\}"),
        ("[0, 1)", "[0, 1)"),
        ("[0, 1)", "(0, 1]"),
        ("B", "(B)"),
        ("B", "\\text{(C)}"),
        ("Blue whale", "blue  whale"),
        ("Paris", "London"),
        ("\\sqrt{2}/2", "\\frac{\\sqrt2}{2}"),
        ("2\\pi", "6.2832"),
        ("\\pi/4", "0.785"),
        ("e^2", "7.389"),
        ("3\\sqrt{3}", "\\sqrt{27}"),
        ("2^{10}", "1024"),
        ("2x+1", "1+2x"),
        ("x^2-1", "(x-1)(x+1)"),
        ("x > 5", "5 < x"),
        ("2 \\pm \\sqrt{3}", "2+\\sqrt{3}, 2-\\sqrt{3}"),
        ("\\frac{7}{2}", "\\frac{7}{2"),
        ("10", "ten"),
        ("\\binom{6}{3}", "20"),
        ("-\\infty", "-∞"),
        ("[-1, \\infty)", "[-1, ∞)"),
        ("100", "\\frac{1}{0}"),
        ("1000000", "10^6"),
        ("\\frac{5}{2}", "2\\frac{1}{2}"),
        ("x = 1, y = 2", "y = 2, x = 1"),
        ("18", "The answer is 18"),
        ("0.25", "\\frac{1}{4}"),
    ];
    PAIRS
        .iter()
        .map(|&(r, c)| (r.to_string(), c.to_string()))
        .collect()
}

/// The workload of a Q&A example folder: `tasks.jsonl` gives each reference paired with itself,
/// and every other `*.jsonl` there that holds pool lines (`task`, `completion`) gives the
/// reference paired with the answer extracted from each completion (every form tried; a
/// completion without an answer is paired as a whole). Files with no pool line (such as
/// `expected.jsonl`) are passed over. `Ok(None)` when there is no `tasks.jsonl`.
pub fn load_pairs(dir: &Path) -> Result<Option<Vec<(String, String)>>, CoreError> {
    let tasks_path = dir.join("tasks.jsonl");
    if !tasks_path.is_file() {
        return Ok(None);
    }
    let (tasks, _) = TaskSet::load(&tasks_path, &aorlta_core::lanes())?;
    let answers: HashMap<&str, &str> = tasks
        .iter()
        .filter_map(|t| QaTaskDef::of(t).map(|q| (q.task.id.as_str(), q.task.answer.as_str())))
        .collect();
    let mut pairs: Vec<(String, String)> = tasks
        .iter()
        .filter_map(|t| answers.get(t.id.as_str()))
        .map(|a| (a.to_string(), a.to_string()))
        .collect();
    let entries = std::fs::read_dir(dir).map_err(|e| CoreError::io(dir, e))?;
    let mut pools: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && p != &tasks_path)
        .collect();
    pools.sort();
    for pool in pools {
        let (cands, _) = read_pool(&pool)?;
        for c in cands {
            let Some(reference) = answers.get(c.task.as_str()) else {
                continue;
            };
            let candidate = match extract_answer(&c.completion, ALL_FORMS, usize::MAX) {
                Ok(a) => a.text,
                Err(_) => c.completion,
            };
            pairs.push((reference.to_string(), candidate));
        }
    }
    Ok(Some(pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_counts_and_prints() {
        let pairs = builtin_pairs();
        let report = run_qa_for(&pairs[..4], Duration::from_millis(5));
        assert_eq!(report.pairs, 4);
        assert!(report.comparisons >= 4 && report.comparisons.is_multiple_of(4));
        assert_eq!(report.outcomes.equal + report.outcomes.not_equal, 4);
        assert_eq!(report.cases.len(), pathological_cases().len());
        let text = report.to_string();
        assert!(
            text.contains("throughput") && text.contains("nested \\sqrt"),
            "{text}"
        );
    }

    #[test]
    fn builtin_pairs_cover_every_outcome() {
        let mut seen = Outcomes::default();
        for (r, c) in builtin_pairs() {
            match compare(&r, &c) {
                Comparison::Equal => seen.equal += 1,
                Comparison::NotEqual => seen.not_equal += 1,
                Comparison::ReferenceUnreadable(_) => seen.reference_unreadable += 1,
                Comparison::CandidateUnreadable(_) => seen.candidate_unreadable += 1,
            }
        }
        assert!(
            seen.equal > 25 && seen.not_equal >= 8 && seen.candidate_unreadable >= 2,
            "{seen:?}"
        );
    }

    #[test]
    fn pathological_cases_conclude_sensibly() {
        for c in pathological_cases() {
            assert!(c.completion.len() <= MIB + MIB / 8, "{}", c.name);
            let out = extract_and_compare(&c.reference, &c.completion);
            assert!(!out.is_empty(), "{}", c.name);
        }
    }

    #[test]
    fn loads_tasks_and_pools() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("tasks.jsonl"),
            "{\"id\": \"t1\", \"prompt\": \"?\", \"answer\": \"42\"}\n\n{\"id\": \"t2\", \"prompt\": \"?\", \"answer\": \"x\"}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("before.jsonl"),
            "{\"task\": \"t1\", \"completion\": \"so \\\\boxed{42}\"}\n{\"task\": \"zz\", \"completion\": \"1\"}\n",
        )
        .unwrap();
        let pairs = load_pairs(dir.path()).unwrap().unwrap();
        assert_eq!(
            pairs,
            vec![
                ("42".to_string(), "42".to_string()),
                ("x".to_string(), "x".to_string()),
                ("42".to_string(), "42".to_string()),
            ]
        );
        std::fs::write(dir.path().join("after.jsonl"), "{\"task\": 3}\n").unwrap();
        assert_eq!(
            load_pairs(dir.path()).unwrap().unwrap().len(),
            3,
            "a malformed pool line is skipped"
        );
        assert!(load_pairs(&dir.path().join("nowhere")).unwrap().is_none());
    }
}

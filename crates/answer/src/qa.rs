//! The Q&A comparison adapters `reference-match` (leg `ref.exact`) and `normalised-match` (leg
//! `ref.normalised`); the lane's `parse` is in `lane`.
//!
//! The comparison adapters share one shape, written once: [`CompareAdapter`] reads the leg's
//! parameters, pairs the task's reference (read with the profile's answer forms when it asks)
//! with the parsed answer, asks its [`Comparer`] for a [`Comparison`] and turns that into the
//! leg's output. A comparer only says how two answers compare.

use crate::extract::AnswerForm;
use crate::normalise::{self, Comparison, Strictness};
use crate::reason::AnswerReason;
use crate::reference::{QaTaskDef, ReadReference};
use aorlta_check::{Adapter, LegInput, LegOutput, Registry, params};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use std::sync::Arc;

/// Registers the Q&A comparison adapters (`parse` is every lane's, [`crate::QaLane`] reads it).
pub(crate) fn register(r: &mut Registry) {
    r.add(Arc::new(CompareAdapter {
        name: "reference-match",
        version: "1",
        comparer: ReferenceMatch,
    }));
    r.add(Arc::new(CompareAdapter {
        name: "normalised-match",
        version: "3",
        comparer: NormalisedMatch,
    }));
}

/// How one comparison adapter compares a reference answer with a parsed answer.
pub(crate) trait Comparer: Send + Sync + 'static {
    /// The adapter's parameters.
    type Params: DeserializeOwned;
    /// The answer forms to read the reference with first (empty: the reference is the answer).
    fn reference_forms(params: &Self::Params) -> &[AnswerForm];
    /// Compares the two answers.
    fn compare(&self, params: &Self::Params, reference: &ReadReference, answer: &str) -> Comparison;
    /// How a difference reads in a reason: "is not exactly", "does not match".
    fn differs(&self) -> &'static str;
}

/// A Q&A comparison adapter: one name, one version, one [`Comparer`].
pub(crate) struct CompareAdapter<C> {
    /// The name a profile uses.
    pub name: &'static str,
    /// The adapter's version (bumped whenever its results can change).
    pub version: &'static str,
    /// How it compares.
    pub comparer: C,
}

impl<C: Comparer> Adapter for CompareAdapter<C> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn version(&self) -> &'static str {
        self.version
    }
    fn check_params(&self, p: &serde_json::Value) -> Result<(), String> {
        params::<C::Params>(p).map(|_| ())
    }
    fn sources(&self) -> Option<String> {
        Some(crate::identity::SOURCES.to_string())
    }
    fn run(&self, input: &LegInput<'_>) -> LegOutput {
        let p: C::Params = match params(input.params) {
            Ok(p) => p,
            Err(e) => return LegOutput::unsettled(AnswerReason::BadParams, e),
        };
        let (reference, answer) = match answer_pair(input, C::reference_forms(&p)) {
            Ok(pair) => pair,
            Err(o) => return o,
        };
        let out = match self.comparer.compare(&p, &reference, answer) {
            Comparison::Equal => LegOutput::clean(),
            Comparison::NotEqual => LegOutput::broke(
                AnswerReason::WrongAnswer,
                format!(
                    "{:?} {} {:?}",
                    short(answer),
                    self.comparer.differs(),
                    short(&reference.text)
                ),
            ),
            Comparison::ReferenceUnreadable(why) => LegOutput::unsettled(
                AnswerReason::ReferenceUnreadable,
                format!(
                    "task {}: reference answer {:?}: {why}",
                    input.task.id,
                    short(&reference.text)
                ),
            ),
            Comparison::CandidateUnreadable(why) => LegOutput::broke(
                AnswerReason::AnswerUnreadable,
                format!("{:?}: {why}", short(answer)),
            ),
        };
        if reference.found {
            out.with_detail(json!({ "reference": reference.text }))
        } else {
            out
        }
    }
}

/// The task's reference answer (read once per task, [`QaTaskDef::reference`]) and the parsed
/// answer, or the unsettled output saying which is missing.
fn answer_pair<'a>(
    input: &'a LegInput<'_>,
    forms: &[AnswerForm],
) -> Result<(Arc<ReadReference>, &'a str), LegOutput> {
    let Some(task) = QaTaskDef::of(input.task) else {
        return Err(LegOutput::unsettled(
            AnswerReason::WrongTaskKind,
            format!(
                "task {} is a {} task; this adapter judges Q&A answers",
                input.task.id,
                input.task.lane()
            ),
        ));
    };
    let answer = input.extracted.ok_or_else(|| {
        LegOutput::unsettled(
            AnswerReason::NoParsedAnswer,
            "this leg needs a clean `parse` leg before it",
        )
    })?;
    Ok((task.reference(forms), answer))
}

/// Parameters of `reference-match`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct ExactParams {
    /// Read the reference with these answer forms first (for references that are worked
    /// solutions ending in `\boxed{}`); empty: the reference is the answer.
    #[serde(default)]
    pub reference_forms: Vec<AnswerForm>,
}

/// `reference-match`: exact equality after trimming.
pub(crate) struct ReferenceMatch;

impl Comparer for ReferenceMatch {
    type Params = ExactParams;
    fn reference_forms(p: &ExactParams) -> &[AnswerForm] {
        &p.reference_forms
    }
    fn compare(&self, _: &ExactParams, reference: &ReadReference, answer: &str) -> Comparison {
        if reference.text.trim() == answer.trim() {
            Comparison::Equal
        } else {
            Comparison::NotEqual
        }
    }
    fn differs(&self) -> &'static str {
        "is not exactly"
    }
}

/// Parameters of `normalised-match`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct NormalisedParams {
    /// Read the reference with these answer forms first (for references that are worked
    /// solutions ending in `\boxed{}`); empty: the reference is the answer.
    #[serde(default)]
    pub reference_forms: Vec<AnswerForm>,
    /// `lenient` (the default) or `strict`: see [`Strictness`].
    #[serde(default)]
    pub strictness: Strictness,
}

/// `normalised-match`: equality after normalisation (numbers, fractions, LaTeX, units, sets,
/// relations, formulas…).
pub(crate) struct NormalisedMatch;

impl Comparer for NormalisedMatch {
    type Params = NormalisedParams;
    fn reference_forms(p: &NormalisedParams) -> &[AnswerForm] {
        &p.reference_forms
    }
    fn compare(&self, p: &NormalisedParams, reference: &ReadReference, answer: &str) -> Comparison {
        normalise::compare_reference(&reference.read, answer, p.strictness)
    }
    fn differs(&self) -> &'static str {
        "does not match"
    }
}

fn short(s: &str) -> String {
    const MAX: usize = 80;
    if s.len() <= MAX {
        return s.to_string();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    #[test]
    fn max_answer_len_is_checked_against_what_the_comparison_reads() {
        let adapters = aorlta_check::Lanes::default()
            .with(std::sync::Arc::new(crate::lane::QaLane))
            .adapters();
        let parse = adapters.get("parse").unwrap();
        assert!(
            parse
                .check_params(&serde_json::json!({"max-answer-len": 4096}))
                .is_ok()
        );
        for bad in [0, 4097] {
            let e = parse
                .check_params(&serde_json::json!({"max-answer-len": bad}))
                .unwrap_err();
            assert!(e.contains("1 to 4096"), "{e}");
        }
    }

    use super::*;
    use aorlta_check::Env;
    use aorlta_check::Task;
    use aorlta_record::LegState;

    fn qa_task(answer: &str) -> Task {
        crate::lane::qa_task(aorlta_record::QaTask {
            id: "t".into(),
            prompt: "?".into(),
            answer: answer.into(),
        })
    }

    fn run(adapter: &str, params: serde_json::Value, reference: &str, answer: &str) -> LegOutput {
        let r = aorlta_check::Lanes::default()
            .with(Arc::new(crate::lane::QaLane))
            .adapters();
        let task = qa_task(reference);
        let env = Env::default();
        r.get(adapter).unwrap().run(&LegInput {
            leg: "l",
            params: &params,
            task: &task,
            completion: answer,
            extracted: Some(answer),
            env: &env,
        })
    }

    #[test]
    fn worked_solution_references_are_read_when_asked() {
        let solution = "We have $x + 1 = 3$, so $x = 2$. Thus \\boxed{2}.";
        let o = run(
            "normalised-match",
            json!({"reference-forms": ["boxed"]}),
            solution,
            "2",
        );
        assert_eq!(o.state, aorlta_record::LegState::Clean, "{o:?}");
        let o = run("normalised-match", json!({}), solution, "2");
        assert_eq!(o.state, aorlta_record::LegState::Unsettled, "{o:?}");
        assert_eq!(o.reasons[0].code, "reference-unreadable");
        let o = run(
            "reference-match",
            json!({"reference-forms": ["boxed"]}),
            solution,
            "2",
        );
        assert_eq!(o.state, aorlta_record::LegState::Clean, "{o:?}");
        let o = run(
            "normalised-match",
            json!({"reference-forms": ["boxed"]}),
            "Since $x + 1 = 3$, we get $x = 2$ (no box).",
            "2",
        );
        assert_eq!(o.state, aorlta_record::LegState::Unsettled, "{o:?}");
        let forms = json!({"reference-forms": ["boxed", "statement", "latex", "bare"]});
        let o = run(
            "normalised-match",
            forms.clone(),
            "Since $x + 1 = 3$, we get $x = 2$.",
            "2",
        );
        assert_eq!(o.state, aorlta_record::LegState::Clean, "{o:?}");
        let o = run("normalised-match", forms, "$3$ or $4$", "4");
        assert_eq!(
            o.state,
            aorlta_record::LegState::Broke,
            "a bare reference that reads whole is not cut: {o:?}"
        );
    }

    #[test]
    fn an_identity_over_the_default_cap_is_read_when_the_cap_is_raised() {
        let expansion = "a^{3} + b^{3} + c^{3} + 3 \\cdot a^{2} \\cdot b^{1} + 3 \\cdot a^{2} \\cdot c^{1} \
            + 3 \\cdot a^{1} \\cdot b^{2} + 3 \\cdot b^{2} \\cdot c^{1} + 3 \\cdot a^{1} \\cdot c^{2} + 3 \\cdot b^{1} \\cdot c^{2} + 6 \\cdot a^{1} \\cdot b^{1} \\cdot c^{1}";
        let completion = format!("\\boxed{{{expansion}}}");
        assert!(expansion.len() > 200, "{}", expansion.len());
        let parse = |cap: usize| {
            run(
                "parse",
                json!({"forms": ["boxed"], "max-answer-len": cap}),
                "",
                &completion,
            )
        };
        let capped = parse(200);
        assert_eq!(
            capped.reasons.first().map(|r| r.code.as_str()),
            Some("answer-too-long"),
            "{capped:?}"
        );
        assert_eq!(parse(4096).state, aorlta_record::LegState::Clean);
        let o = run("normalised-match", json!({}), "(a+b+c)^3", expansion);
        assert_eq!(o.state, aorlta_record::LegState::Clean, "{o:?}");
    }

    #[test]
    fn a_reference_is_read_once_per_task_and_forms_not_once_per_candidate() {
        use crate::normalise::REFERENCE_READS;
        let reads = || REFERENCE_READS.with(|n| n.get());
        let r = aorlta_check::Lanes::default()
            .with(Arc::new(crate::lane::QaLane))
            .adapters();
        let score = |task: &Task, params: serde_json::Value, answer: &str| {
            let env = Env::default();
            r.get("normalised-match").unwrap().run(&LegInput {
                leg: "l",
                params: &params,
                task,
                completion: answer,
                extracted: Some(answer),
                env: &env,
            })
        };
        let half = qa_task("\\frac{1}{2}");
        let before = reads();
        let states: Vec<LegState> = ["0.5", "1/2", "3"]
            .iter()
            .map(|a| score(&half, json!({}), a).state)
            .collect();
        assert_eq!(states, [LegState::Clean, LegState::Clean, LegState::Broke]);
        assert_eq!(
            reads() - before,
            1,
            "the reference of one task, read once for three candidates"
        );
        // A worked solution read with the leg's forms: its answer is read once too, and reported.
        let worked = qa_task("So $x = 2$, hence \\boxed{2}.");
        let before = reads();
        for a in ["2", "2.0", "3"] {
            let o = score(&worked, json!({"reference-forms": ["boxed"]}), a);
            assert_eq!(o.detail, Some(json!({"reference": "2"})), "{o:?}");
        }
        assert_eq!(reads() - before, 1);
    }

    #[test]
    fn strictness_is_a_parameter() {
        let lenient = run("normalised-match", json!({}), "5 cm", "5");
        assert_eq!(lenient.state, aorlta_record::LegState::Clean);
        let strict = run("normalised-match", json!({"strictness": "strict"}), "5 cm", "5");
        assert_eq!(strict.state, aorlta_record::LegState::Broke);
        assert_eq!(strict.reasons[0].code, "wrong-answer");
        let bad = run("normalised-match", json!({"strictness": "loose"}), "5", "5");
        assert_eq!(bad.reasons[0].code, "bad-params");
    }

    #[test]
    fn verdicts_map_to_states() {
        let wrong = run("reference-match", json!({}), "5", "6");
        assert!(wrong.reasons[0].detail.contains("is not exactly"), "{wrong:?}");
        let unreadable = run("normalised-match", json!({}), "5", "???");
        assert_eq!(unreadable.reasons[0].code, "answer-unreadable");
    }
}

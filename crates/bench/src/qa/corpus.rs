//! Scoring a corpus of (reference, completion) pairs end to end through a profile (`parse`
//! then the comparison legs), one thread: each pair's verdict, for the differential test
//! against another verifier (`scripts/math-verify-diff.sh`), and the candidates per second the
//! whole pipeline reaches.

use aorlta_check::CoreError;
use aorlta_check::{Task, TaskSet};
use aorlta_core::LoadedProfile;
use aorlta_core::RewardRegistry;
use aorlta_core::{Engine, EngineParts};
use aorlta_record::{Candidate, LegState, QaTask, RewardEntry};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One line of a corpus file (other fields, such as a class or a note, are passed over).
#[derive(Debug, Clone, Deserialize)]
pub struct CorpusLine {
    /// The pair's id.
    pub id: String,
    /// The reference answer (a bare answer or a worked solution).
    pub reference: String,
    /// The completion.
    pub completion: String,
}

/// Our verdict on one pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The pair's id.
    pub id: String,
    /// `accept` (every rewarded leg clean), `reject` (a rewarded leg broke or was skipped) or
    /// `unsettled` (a rewarded leg could not decide).
    pub verdict: String,
    /// The first reason code of the leg that decided, when not accepted.
    pub reason: Option<String>,
    /// The answer `parse` found, if any.
    pub answer: Option<String>,
}

/// Every pair's verdict and the time the scoring took.
#[derive(Debug, Clone)]
pub struct CorpusRun {
    /// Verdicts in corpus order.
    pub verdicts: Vec<Verdict>,
    /// Candidates scored in the timed passes (whole passes over the corpus).
    pub scored: u64,
    /// Time the timed passes took (one thread, no cache).
    pub elapsed: Duration,
}

impl CorpusRun {
    /// The pairs whose verdict is `verdict` (`accept`, `reject`, `unsettled`).
    pub fn count(&self, verdict: &str) -> usize {
        self.verdicts.iter().filter(|v| v.verdict == verdict).count()
    }

    /// Candidates scored per second.
    pub fn per_second(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 { self.scored as f64 / s } else { 0.0 }
    }
}

/// Reads a corpus file (JSONL).
pub fn read_corpus(path: &Path) -> Result<Vec<CorpusLine>, CoreError> {
    let text = std::fs::read_to_string(path).map_err(|e| CoreError::io(path, e))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: CorpusLine = serde_json::from_str(line)
            .map_err(|e| CoreError::invalid(path, format!("line {}: {e}", i + 1)))?;
        out.push(parsed);
    }
    Ok(out)
}

/// Scores every pair of `corpus` with the profile at `profile`, each pair a task of its own:
/// one pass for the verdicts, then whole passes until `min_time` has passed, for the rate.
pub fn score_corpus(
    profile: &Path,
    corpus: &[CorpusLine],
    min_time: Duration,
) -> Result<CorpusRun, CoreError> {
    let parts = EngineParts::default();
    let loaded = LoadedProfile::load(profile, &parts.adapters, &RewardRegistry::builtin())?;
    let tasks: Vec<Task> = corpus
        .iter()
        .map(|l| {
            aorlta_answer::qa_task(QaTask {
                id: l.id.clone(),
                prompt: String::new(),
                answer: l.reference.clone(),
            })
        })
        .collect();
    let engine = Engine::new(loaded, Arc::new(TaskSet::default()), parts);
    let cands: Vec<Candidate> = corpus
        .iter()
        .map(|l| Candidate {
            id: l.id.clone(),
            task: l.id.clone(),
            completion: l.completion.clone(),
        })
        .collect();
    let pass = || -> Vec<RewardEntry> {
        tasks
            .iter()
            .zip(&cands)
            .map(|(t, c)| engine.score_task(t, c))
            .collect()
    };
    let verdicts = pass().iter().map(verdict).collect();
    let (mut scored, start) = (0u64, Instant::now());
    let mut elapsed = Duration::ZERO;
    while !corpus.is_empty() && (scored == 0 || elapsed < min_time) {
        std::hint::black_box(pass());
        scored += corpus.len() as u64;
        elapsed = start.elapsed();
    }
    Ok(CorpusRun {
        verdicts,
        scored,
        elapsed,
    })
}

fn verdict(e: &RewardEntry) -> Verdict {
    let rewarded = || e.legs.iter().filter(|l| !l.informational);
    let deciding = rewarded().find(|l| l.state != LegState::Clean);
    let answer = e
        .legs
        .iter()
        .find(|l| l.adapter == "parse")
        .and_then(|l| l.detail.as_ref())
        .and_then(|d| d.get("answer"))
        .and_then(|a| a.as_str())
        .map(str::to_string);
    let (verdict, reason) = match deciding {
        None => ("accept", None),
        Some(l) => (
            if rewarded().any(|l| l.state == LegState::Unsettled) {
                "unsettled"
            } else {
                "reject"
            },
            l.reasons.first().map(|r| r.code.clone()),
        ),
    };
    Verdict {
        id: e.id.clone(),
        verdict: verdict.into(),
        reason,
        answer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str, reference: &str, completion: &str) -> CorpusLine {
        CorpusLine {
            id: id.into(),
            reference: reference.into(),
            completion: completion.into(),
        }
    }

    #[test]
    fn verdicts_through_the_example_profile() {
        let profile = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/qa/profile.yaml");
        let corpus = [
            line("a", "\\frac{1}{2}", "So \\boxed{0.5}."),
            line("b", "\\frac{1}{2}", "So \\boxed{0.6}."),
            line("c", "Thus the answer is \\boxed{7}.", "7"),
            line("d", "\\frac{1}{2", "\\boxed{1}"),
            line("e", "3", "no answer here"),
        ];
        let run = score_corpus(&profile, &corpus, Duration::ZERO).unwrap();
        let got: Vec<(&str, Option<&str>)> = run
            .verdicts
            .iter()
            .map(|v| (v.verdict.as_str(), v.reason.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("accept", None),
                ("reject", Some("wrong-answer")),
                ("accept", None),
                ("unsettled", Some("reference-unreadable")),
                ("reject", Some("no-answer")),
            ]
        );
        assert_eq!(run.verdicts[0].answer.as_deref(), Some("0.5"));
        assert_eq!(
            (run.count("accept"), run.count("reject"), run.count("unsettled")),
            (2, 2, 1)
        );
    }

    /// The differential corpus's gates that need no Math-Verify: every pair the baseline lists
    /// as ours-right is still decided as its truth says, agreement with the careful grader
    /// stays at or over the baseline's minimum, and at most one wrong answer in 250 is accepted.
    #[test]
    fn the_differential_corpus_holds_its_baseline() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/qa");
        let corpus_path = dir.join("corpus/pairs.jsonl");
        let corpus = read_corpus(&corpus_path).unwrap();
        let truth: std::collections::HashMap<String, String> = std::fs::read_to_string(&corpus_path)
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["id"].as_str().unwrap().to_string(),
                    v["truth"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let baseline: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("corpus/baseline.json")).unwrap())
                .unwrap();
        let run = score_corpus(&dir.join("profile.yaml"), &corpus, Duration::ZERO).unwrap();
        assert!(corpus.len() >= 2000, "{} pairs", corpus.len());
        let accepted: std::collections::HashMap<&str, bool> = run
            .verdicts
            .iter()
            .map(|v| (v.id.as_str(), v.verdict == "accept"))
            .collect();
        let regressed: Vec<&str> = baseline["ours_right"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| id.as_str().unwrap())
            .filter(|id| accepted[id] != (truth[*id] == "right"))
            .collect();
        assert!(regressed.is_empty(), "ours-right cases regressed: {regressed:?}");
        let decided: Vec<&CorpusLine> = corpus.iter().filter(|l| truth[&l.id] != "ambiguous").collect();
        let agree = decided
            .iter()
            .filter(|l| accepted[l.id.as_str()] == (truth[&l.id] == "right"))
            .count();
        let pct = 100.0 * agree as f64 / decided.len() as f64;
        let min = baseline["min_agreement_pct"].as_f64().unwrap();
        assert!(pct >= min, "agreement with the careful grader {pct:.2}% < {min}%");
        let wrong_accepted: Vec<&str> = decided
            .iter()
            .filter(|l| truth[&l.id] == "wrong" && accepted[l.id.as_str()])
            .map(|l| l.id.as_str())
            .collect();
        assert!(
            wrong_accepted.len() * 250 <= corpus.len(),
            "wrong answers accepted: {wrong_accepted:?}"
        );
    }

    /// The MATH grader's own test cases (`scripts/hendrycks-math-diff.sh`, no Python needed):
    /// every directed pair the baseline lists as agreeing still agrees, every disagreement has
    /// a class, and none classed aorlta-wrong is accepted.
    #[test]
    fn the_math_grader_cases_hold_their_baseline() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/qa/hendrycks-math");
        let read = |f: &str| -> serde_json::Value {
            serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap()
        };
        let (cases, classes, baseline) = (read("cases.json"), read("classes.json"), read("baseline.json"));
        let mut lines = Vec::new();
        let mut equal = std::collections::HashMap::new();
        for c in cases["cases"].as_array().unwrap() {
            let (a, b) = (c["test_in"].as_str().unwrap(), c["test_out"].as_str().unwrap());
            for (suffix, reference, completion) in [("ab", a, b), ("ba", b, a)] {
                let id = format!("{}:{suffix}", c["id"].as_str().unwrap());
                equal.insert(id.clone(), c["equal"].as_bool().unwrap());
                lines.push(CorpusLine {
                    id,
                    reference: reference.into(),
                    completion: completion.into(),
                });
            }
        }
        let run = score_corpus(&dir.join("profile.yaml"), &lines, Duration::ZERO).unwrap();
        let mut problems = Vec::new();
        for v in &run.verdicts {
            let accepted = v.verdict == "accept";
            if accepted == equal[&v.id] {
                continue;
            }
            let test = v.id.rsplit_once(':').map_or(v.id.as_str(), |(t, _)| t);
            let class = classes
                .get(&v.id)
                .or_else(|| classes.get(test))
                .and_then(|c| c["class"].as_str());
            match class {
                None => problems.push(format!("{}: a disagreement without a class", v.id)),
                Some("aorlta-wrong") if accepted => {
                    problems.push(format!("{}: a wrong answer accepted", v.id))
                }
                Some(_) => {}
            }
            if baseline["agree"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a == v.id.as_str())
            {
                problems.push(format!("{}: agreed in the baseline", v.id));
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }
}

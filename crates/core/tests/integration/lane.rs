//! A lane added from outside: the `words` lane below is written against `aorlta-check` alone
//! (its task files, its `parse`, its adapter and its tools), as a new lane's crate would be; the
//! engine loads its task file beside the shipped lanes' and scores completions of it. The walk
//! through in CONTRIBUTING.md, "Adding a lane", follows this file.

/// The lane, as its own crate would hold it: nothing here but `aorlta-check`.
mod words {
    use aorlta_check::{Adapter, Lane, LegInput, LegOutput, Registry, Result, SkippedLine, Task};
    use aorlta_check::{CoreError, hash_parts};
    use std::path::Path;
    use std::sync::Arc;

    aorlta_check::reason_codes! {
        /// Why a `words` leg broke or is unsettled.
        pub enum WordsReason {
            /// The completion has no word.
            NoWord => "no-word",
            /// The word is not the task's.
            WrongWord => "wrong-word",
            /// The task is not a `words` task.
            WrongTaskKind => "wrong-task-kind",
            /// The run set up no `words` tools.
            NoTools => "no-words-tools",
        }
    }

    /// A `words` task: the word a completion must end with.
    pub(super) struct WordTask {
        pub(super) word: String,
    }

    /// What the lane sets up once per run, found in the `Env` by its type.
    pub(super) struct WordTools {
        /// Compare ignoring case.
        pub(super) fold_case: bool,
    }

    pub(super) struct WordsLane;

    impl Lane for WordsLane {
        fn name(&self) -> &'static str {
            "words"
        }
        fn task_files(&self) -> &'static [&'static str] {
            &["words"]
        }
        /// One task per line: `id: word`.
        fn load(&self, path: &Path, text: &str, _: &mut Vec<SkippedLine>) -> Result<Vec<(Task, usize)>> {
            let mut tasks = Vec::new();
            for (i, line) in text.lines().enumerate() {
                let Some((id, word)) = line.split_once(':') else {
                    return Err(CoreError::Parse {
                        path: path.to_path_buf(),
                        line: i + 1,
                        message: "expected `id: word`".into(),
                    });
                };
                let (id, word) = (id.trim().to_string(), word.trim().to_string());
                let hash = hash_parts([b"words".as_slice(), id.as_bytes(), word.as_bytes()]);
                tasks.push((Task::new("words", id, hash, WordTask { word }), i + 1));
            }
            Ok(tasks)
        }
        fn parse(&self, input: &LegInput<'_>) -> LegOutput {
            match input.completion.split_whitespace().last() {
                Some(w) => LegOutput::clean().with_extracted(w.trim_end_matches('.').to_string()),
                None => LegOutput::broke(WordsReason::NoWord, "the completion is empty"),
            }
        }
        /// Its crate's identity: a lane of its own crate hashes its sources at build time, as
        /// the shipped lanes do (`build/lane.rs`); this one, inside a test, names a version.
        fn sources(&self) -> String {
            "words-1".into()
        }
        fn register(&self, adapters: &mut Registry) {
            adapters.add(Arc::new(WordMatch));
        }
    }

    /// `word-match`: the parsed word against the task's.
    struct WordMatch;

    impl Adapter for WordMatch {
        fn name(&self) -> &'static str {
            "word-match"
        }
        fn version(&self) -> &'static str {
            "1"
        }
        fn check_params(&self, _: &serde_json::Value) -> std::result::Result<(), String> {
            Ok(())
        }
        fn sources(&self) -> Option<String> {
            Some(WordsLane.sources())
        }
        fn run(&self, input: &LegInput<'_>) -> LegOutput {
            let Some(task) = input.task.body::<WordTask>() else {
                return LegOutput::unsettled(WordsReason::WrongTaskKind, "not a words task");
            };
            let Some(tools) = input.env.tools::<WordTools>() else {
                return LegOutput::unsettled(WordsReason::NoTools, "no words tools");
            };
            let got = input.extracted.unwrap_or_default();
            let same = if tools.fold_case {
                got.eq_ignore_ascii_case(&task.word)
            } else {
                got == task.word
            };
            if same {
                LegOutput::clean()
            } else {
                LegOutput::broke(WordsReason::WrongWord, format!("{got:?} is not {:?}", task.word))
            }
        }
    }
}

use aorlta_check::{Env, TaskSet};
use aorlta_core::LoadedProfile;
use aorlta_core::RewardRegistry;
use aorlta_core::{Engine, EngineParts};
use aorlta_record::{Candidate, LegState};
use std::path::Path;
use std::sync::Arc;
use words::{WordTools, WordsLane};

const PROFILE: &str = "name: words
reward-fn: rewardfn.base
legs:
  - {name: parse, adapter: parse, on-broke: -1.0}
  - {name: match, adapter: word-match, needs: [parse], on-broke: -0.5}
";

/// Tools of another lane, set up in the same run.
struct OtherLaneTools;

#[test]
fn a_lane_on_aorlta_check_alone_loads_its_tasks_and_is_scored_through_the_engine() {
    let lanes = aorlta_core::lanes().with(Arc::new(WordsLane));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("animals.words");
    std::fs::write(&file, "cat: meow\ndog: woof\n").unwrap();
    // Its task file beside a shipped lane's: each file is loaded by the lane that owns its kind.
    let qa = dir.path().join("qa.jsonl");
    std::fs::write(&qa, "{\"id\":\"q\",\"prompt\":\"1+1?\",\"answer\":\"2\"}\n").unwrap();
    let (tasks, skipped) = TaskSet::load(dir.path(), &lanes).unwrap();
    assert!(skipped.is_empty());
    assert_eq!(tasks.len(), 3);
    assert_eq!(tasks.get("cat").unwrap().lane(), "words");
    assert_eq!(tasks.get("q").unwrap().lane(), "qa");
    // A bad line is refused with its file and line, by the lane's own rule.
    std::fs::write(&file, "cat: meow\nno colon\n").unwrap();
    let err = TaskSet::load(&file, &lanes).unwrap_err().to_string();
    assert!(
        err.contains("animals.words:2") && err.contains("expected `id: word`"),
        "{err}"
    );
    std::fs::write(&file, "cat: meow\ndog: woof\n").unwrap();
    let (tasks, _) = TaskSet::load(&file, &lanes).unwrap();

    let adapters = lanes.adapters();
    let profile = LoadedProfile::from_yaml(
        PROFILE,
        Path::new("words.yaml"),
        &adapters,
        &RewardRegistry::builtin(),
    )
    .unwrap();
    // The lane's tools beside another lane's: neither replaces the other.
    let env = Env::new(dir.path())
        .with_tools(WordTools { fold_case: true })
        .with_tools(OtherLaneTools);
    assert!(env.tools::<OtherLaneTools>().is_some());
    let parts = EngineParts {
        adapters,
        env: Arc::new(env),
        ..EngineParts::default()
    };
    let engine = Engine::new(profile, Arc::new(tasks), parts);
    let score = |task: &str, completion: &str| {
        engine.score(&Candidate {
            id: "c".into(),
            task: task.into(),
            completion: completion.into(),
        })
    };
    let right = score("cat", "A cat says MEOW.");
    assert_eq!(right.reward, Some(1.0), "{right:?}");
    assert_eq!(right.legs[0].adapter, "parse");
    assert!(right.legs.iter().all(|l| l.state == LegState::Clean));
    let wrong = score("dog", "A dog says meow");
    assert_eq!(wrong.reward, Some(-0.5));
    assert_eq!(wrong.legs[1].first_code(), Some("wrong-word"));
    let empty = score("dog", "   ");
    assert_eq!(empty.reward, Some(-1.0));
    assert_eq!(empty.legs[0].first_code(), Some("no-word"));
    assert_eq!(empty.legs[1].state, LegState::Skipped);
}

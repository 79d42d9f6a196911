//! Replaying a file of episodes offline (`aorlta score CONFIG --episodes FILE`): each line one
//! turn (`{"episode", "task", "completion"}`), an episode's turns in file order, scored with the
//! run's engine and made into turn rewards as the service makes them
//! ([`aorlta_record::Episode::next_turn`]), written one line per turn.

use aorlta_check::{CoreError, Result};
use aorlta_core::Engine;
use aorlta_record::Candidate;
use aorlta_record::{Episode, EpisodeHead, EpisodeLine, TurnReward};
use serde::Serialize;
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::Path;

/// One turn as the replay writes it.
#[derive(Debug, Serialize)]
pub struct ReplayedTurn<'a> {
    /// The episode's id, as the file gave it.
    pub episode: &'a str,
    /// 0-based place of the turn in its episode.
    pub turn: usize,
    /// The task.
    pub task: &'a str,
    /// The turn's reward under the mode; `null` when it cannot be made.
    pub reward: Option<f64>,
    /// The discounted sum of the episode's turn rewards so far.
    pub discounted_sum: f64,
    /// The entry's feedback.
    pub feedback: Option<&'a str>,
    /// The entry.
    pub entry: &'a aorlta_record::RewardEntry,
}

/// What a replay did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayReport {
    /// Episodes met.
    pub episodes: usize,
    /// Turns scored.
    pub turns: usize,
}

/// Replays `file` with `engine`, writing a line per turn to `out` (through `out.partial`,
/// renamed when whole). A line that is not a turn is an error naming the file and line.
pub fn replay(
    engine: &Engine,
    file: &Path,
    mode: TurnReward,
    discount: f64,
    out: &Path,
) -> Result<ReplayReport> {
    if !(0.0..=1.0).contains(&discount) {
        return Err(CoreError::invalid(
            file,
            format!("--discount {discount} is not 0 to 1"),
        ));
    }
    let io = |p: &Path, e: std::io::Error| CoreError::Io {
        path: p.to_path_buf(),
        error: e,
    };
    let reader = std::io::BufReader::new(std::fs::File::open(file).map_err(|e| io(file, e))?);
    let partial = out.with_extension("jsonl.partial");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&partial).map_err(|e| io(&partial, e))?);
    let mut episodes: HashMap<String, Episode> = HashMap::new();
    let mut turns = 0;
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| io(file, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let t: EpisodeLine = serde_json::from_str(&line).map_err(|e| CoreError::Parse {
            path: file.to_path_buf(),
            line: i + 1,
            message: format!("not a turn `{{\"episode\", \"task\", \"completion\"}}`: {e}"),
        })?;
        let ep = episodes.entry(t.episode.clone()).or_insert_with(|| Episode {
            head: EpisodeHead {
                id: t.episode.clone(),
                task: t.task.clone(),
                profile: engine.profile().profile.name.clone(),
                max_turns: usize::MAX,
                turn_reward: mode,
                discount,
                created_s: 0,
                expires_s: 0,
            },
            turns: Vec::new(),
        });
        if ep.head.task != t.task {
            return Err(CoreError::Parse {
                path: file.to_path_buf(),
                line: i + 1,
                message: format!(
                    "episode `{}` is at task `{}`, this turn names `{}`",
                    t.episode, ep.head.task, t.task
                ),
            });
        }
        let entry = engine.score(&Candidate {
            id: format!("{}#{}", t.episode, ep.turns.len()),
            task: t.task.clone(),
            completion: t.completion.clone(),
        });
        let turn = ep.next_turn(None, t.completion, entry);
        let row = ReplayedTurn {
            episode: &t.episode,
            turn: turn.turn,
            task: &t.task,
            reward: turn.reward,
            discounted_sum: turn.discounted_sum,
            feedback: turn.entry.feedback.as_deref(),
            entry: &turn.entry,
        };
        let text = serde_json::to_string(&row).map_err(|e| CoreError::invalid(out, e.to_string()))?;
        writeln!(w, "{text}").map_err(|e| io(&partial, e))?;
        // The transcript keeps what the next turn's reward reads; the completion is written.
        ep.turns.push(turn);
        turns += 1;
    }
    w.flush().map_err(|e| io(&partial, e))?;
    drop(w);
    std::fs::rename(&partial, out).map_err(|e| io(out, e))?;
    if let Some(c) = engine.cache() {
        c.flush()?;
    }
    Ok(ReplayReport {
        episodes: episodes.len(),
        turns,
    })
}

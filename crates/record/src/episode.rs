//! Episodes: several turns at one task, each a completion scored into an entry whose feedback is
//! the next turn's prompt. What the service stores and answers (docs/API.md, "Episodes") and
//! what `aorlta score --episodes` replays, with the turn rewards a trainer may choose.

use crate::entry::RewardEntry;
use serde::{Deserialize, Serialize};

/// Which reward a turn gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum TurnReward {
    /// The turn's own entry's reward.
    #[default]
    Own,
    /// The best reward of the turns so far, this one included.
    BestSoFar,
    /// This turn's reward less the previous turn's (the first turn's own reward).
    Gain,
}

/// An episode's settings, as opened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EpisodeHead {
    /// The episode's id.
    pub id: String,
    /// The task's id.
    pub task: String,
    /// The profile's name.
    pub profile: String,
    /// Most turns the episode takes.
    pub max_turns: usize,
    /// How each turn's reward is made from the entries.
    pub turn_reward: TurnReward,
    /// The discount of the discounted sum reported beside the turn rewards (1.0: none).
    pub discount: f64,
    /// When it was opened, seconds since the Unix epoch.
    pub created_s: u64,
    /// When it expires, seconds since the Unix epoch.
    pub expires_s: u64,
}

/// One scored turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Turn {
    /// 0-based.
    pub turn: usize,
    /// The client's id for the turn, when it gave one: a request retried with it answers this
    /// turn again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The completion scored.
    pub completion: String,
    /// Its entry (with its feedback).
    pub entry: RewardEntry,
    /// The turn's reward under the episode's `turn_reward`; `null` when it cannot be made
    /// (this turn, or the one it is compared with, unscored).
    pub reward: Option<f64>,
    /// `sum_k discount^k · reward_k` over the turns so far (unscored turns add nothing).
    pub discounted_sum: f64,
}

/// An episode: its settings and its turns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Episode {
    /// The settings.
    #[serde(flatten)]
    pub head: EpisodeHead,
    /// The turns, in order.
    pub turns: Vec<Turn>,
}

impl Episode {
    /// True when no more turns are taken.
    pub fn done(&self) -> bool {
        self.turns.len() >= self.head.max_turns
    }

    /// The turn a client's turn id names, if any.
    pub fn turn_by_id(&self, turn_id: &str) -> Option<&Turn> {
        self.turns.iter().find(|t| t.turn_id.as_deref() == Some(turn_id))
    }

    /// The next turn made of an entry: its reward under the episode's mode and the discounted
    /// sum so far.
    pub fn next_turn(&self, turn_id: Option<String>, completion: String, entry: RewardEntry) -> Turn {
        let k = self.turns.len();
        let own = entry.reward;
        let reward = match self.head.turn_reward {
            TurnReward::Own => own,
            TurnReward::BestSoFar => self
                .turns
                .iter()
                .map(|t| t.entry.reward)
                .chain([own])
                .flatten()
                .reduce(f64::max),
            TurnReward::Gain => match self.turns.last() {
                None => own,
                Some(prev) => own.zip(prev.entry.reward).map(|(a, b)| a - b),
            },
        };
        let before = self.turns.last().map_or(0.0, |t| t.discounted_sum);
        let discounted_sum = before + reward.map_or(0.0, |r| self.head.discount.powi(k as i32) * r);
        Turn {
            turn: k,
            turn_id,
            completion,
            entry,
            reward,
            discounted_sum,
        }
    }
}

/// One line of an episodes file for `aorlta score --episodes`: a turn of an episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpisodeLine {
    /// The episode the turn belongs to (its turns in file order).
    pub episode: String,
    /// The task's id.
    pub task: String,
    /// The completion of this turn.
    pub completion: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leg::Reason;

    fn episode(mode: TurnReward, discount: f64) -> Episode {
        Episode {
            head: EpisodeHead {
                id: "e".into(),
                task: "t".into(),
                profile: "p".into(),
                max_turns: 4,
                turn_reward: mode,
                discount,
                created_s: 0,
                expires_s: 10,
            },
            turns: Vec::new(),
        }
    }

    fn entry(r: Option<f64>) -> RewardEntry {
        let mut e = RewardEntry::error("c", "t", "p", Reason::new("x", "y"));
        e.reward = r;
        e.scored = r.is_some();
        e
    }

    fn play(mode: TurnReward, discount: f64, rewards: &[Option<f64>]) -> Vec<(Option<f64>, f64)> {
        let mut ep = episode(mode, discount);
        for r in rewards {
            let t = ep.next_turn(None, "c".into(), entry(*r));
            ep.turns.push(t);
        }
        ep.turns.iter().map(|t| (t.reward, t.discounted_sum)).collect()
    }

    #[test]
    fn each_turn_reward_mode_and_the_discounted_sum() {
        let rs = [Some(-1.0), Some(0.75), Some(0.5), None];
        assert_eq!(
            play(TurnReward::Own, 1.0, &rs),
            vec![
                (Some(-1.0), -1.0),
                (Some(0.75), -0.25),
                (Some(0.5), 0.25),
                (None, 0.25)
            ]
        );
        assert_eq!(
            play(TurnReward::BestSoFar, 1.0, &rs),
            vec![
                (Some(-1.0), -1.0),
                (Some(0.75), -0.25),
                (Some(0.75), 0.5),
                (Some(0.75), 1.25)
            ]
        );
        assert_eq!(
            play(TurnReward::Gain, 0.5, &rs),
            vec![
                (Some(-1.0), -1.0),
                (Some(1.75), -0.125),
                (Some(-0.25), -0.1875),
                (None, -0.1875)
            ]
        );
    }
}

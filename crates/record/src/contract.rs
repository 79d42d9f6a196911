//! The reward contract read off one finished entry, with nothing else at hand: its ranges, and
//! what an entry found in a store must keep before it is served (the engine checks the rest
//! against its profile, task and candidate). Every entry `aorlta-core`'s reward functions make
//! keeps it (a property test there, `reward/contract_tests.rs`); the store checks every entry
//! it reads against it.

use crate::entry::{Parts, RewardEntry};
use crate::leg::LegState;
use crate::version::FORMAT_VERSION;

/// Smallest scored reward.
pub const REWARD_MIN: f64 = -1.55;
/// Largest scored reward.
pub const REWARD_MAX: f64 = 1.0;

/// True when every part and the sum are in range and finite: `base` in [-1, 1],
/// `broke_healthy` in [-0.5, 0], `length` in [-0.05, 0], the sum in
/// [[`REWARD_MIN`], [`REWARD_MAX`]].
pub fn parts_in_range(p: &Parts) -> bool {
    let s = p.sum();
    (-1.0..=1.0).contains(&p.base)
        && (-0.5..=0.0).contains(&p.broke_healthy)
        && (-0.05..=0.0).contains(&p.length)
        && (REWARD_MIN..=REWARD_MAX).contains(&s)
}

/// `Err` with the first rule `e` breaks:
/// - it follows this build's record format (its major);
/// - a scored entry has a finite reward in [-1.55, 1.0] that is exactly the sum of its parts,
///   each in its range, and no reason, and no rewarded leg unsettled;
/// - an unscored entry has `reward: null`, no parts, and at least one reason;
/// - every leg that is not clean has a reason; every time spent is finite and not negative.
pub fn check_entry(e: &RewardEntry) -> Result<(), String> {
    if e.format.major != FORMAT_VERSION.major {
        return Err(format!(
            "record format {}.{}, not this build's {}.x",
            e.format.major, e.format.minor, FORMAT_VERSION.major
        ));
    }
    match (e.scored, e.reward, e.parts) {
        (true, Some(r), Some(p)) => {
            if !r.is_finite() || !(REWARD_MIN..=REWARD_MAX).contains(&r) {
                return Err(format!("reward {r} is outside [{REWARD_MIN}, {REWARD_MAX}]"));
            }
            if !parts_in_range(&p) {
                return Err(format!(
                    "parts out of range: base {}, broke_healthy {}, length {}",
                    p.base, p.broke_healthy, p.length
                ));
            }
            if r.to_bits() != p.sum().to_bits() {
                return Err(format!("reward {r} is not the sum of its parts ({})", p.sum()));
            }
            if !e.reasons.is_empty() {
                return Err("a scored entry with reasons".into());
            }
            if let Some(l) = e
                .legs
                .iter()
                .find(|l| !l.informational && l.state == LegState::Unsettled)
            {
                return Err(format!("scored over the unsettled leg `{}`", l.name));
            }
        }
        (true, _, _) => return Err("a scored entry without a reward and its parts".into()),
        (false, None, None) if e.reasons.is_empty() => {
            return Err("an unscored entry without a reason".into());
        }
        (false, None, None) => {}
        (false, _, _) => return Err("an unscored entry with a reward or parts".into()),
    }
    if let Some(l) = e
        .legs
        .iter()
        .find(|l| l.state != LegState::Clean && l.reasons.is_empty())
    {
        return Err(format!("leg `{}` is {} without a reason", l.name, l.state));
    }
    let times = std::iter::once(e.elapsed_s).chain(e.legs.iter().map(|l| l.elapsed_s));
    if let Some(t) = times.into_iter().find(|t| !t.is_finite() || *t < 0.0) {
        return Err(format!("a time spent of {t} s"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::VersionIdentity;
    use crate::leg::{LegResult, Reason};

    fn scored(base: f64, length: f64) -> RewardEntry {
        let parts = Parts {
            base,
            broke_healthy: 0.0,
            length,
        };
        RewardEntry {
            format: FORMAT_VERSION,
            id: "c".into(),
            task: "t".into(),
            reward: Some(parts.sum()),
            scored: true,
            parts: Some(parts),
            reasons: vec![],
            legs: vec![LegResult::clean("parse", "parse")],
            profile: "p".into(),
            reward_fn: "rewardfn.base".into(),
            version: VersionIdentity::default(),
            elapsed_s: 0.0,
            feedback: None,
        }
    }

    #[test]
    fn entries_that_break_the_contract_are_named() {
        assert_eq!(check_entry(&scored(1.0, -0.01)), Ok(()));
        let bad = |f: &dyn Fn(&mut RewardEntry), says: &str| {
            let mut e = scored(0.5, 0.0);
            f(&mut e);
            let err = check_entry(&e).unwrap_err();
            assert!(err.contains(says), "{says}: {err}");
        };
        bad(&|e| e.reward = Some(7.0), "outside");
        bad(&|e| e.reward = Some(f64::NAN), "outside");
        bad(&|e| e.reward = Some(0.6), "not the sum");
        bad(&|e| e.parts.as_mut().unwrap().base = 1.5, "parts out of range");
        bad(&|e| e.parts = None, "without a reward");
        bad(&|e| e.reasons.push(Reason::new("x", "y")), "with reasons");
        bad(&|e| e.legs[0].state = LegState::Broke, "without a reason");
        bad(
            &|e| {
                e.legs[0].state = LegState::Unsettled;
                e.legs[0].reasons.push(Reason::new("x", "y"));
            },
            "unsettled",
        );
        bad(&|e| e.scored = false, "with a reward");
        bad(
            &|e| {
                e.scored = false;
                e.reward = None;
                e.parts = None;
            },
            "without a reason",
        );
        bad(&|e| e.legs[0].elapsed_s = -1.0, "time spent");
        bad(&|e| e.format.major = 2, "record format");
        let mut unscored = scored(0.0, 0.0);
        unscored.scored = false;
        unscored.reward = None;
        unscored.parts = None;
        unscored.reasons.push(Reason::new("within-noise", "x"));
        assert_eq!(check_entry(&unscored), Ok(()));
    }
}

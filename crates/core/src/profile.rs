//! Profiles: which legs run, in what order, gated on what, with which parameters, and how the
//! reward is made from them. Loaded from YAML with unknown keys rejected; errors name the file,
//! the line and the key.

use aorlta_check::Registry;
use aorlta_check::hash_str;
use aorlta_check::{CoreError, Result};
use aorlta_record::{REWARD_MAX, REWARD_MIN};
use serde::{Deserialize, Serialize};
use std::path::Path;

pub(crate) mod feedback;
use feedback::FeedbackSpec;

/// Rung of a broke correctness leg that names none (`on-broke` unset).
pub const DEFAULT_ON_BROKE: f64 = -1.0;

/// Rung of a broke timing leg that names none (a timed-launch mismatch).
pub const DEFAULT_TIMING_ON_BROKE: f64 = -0.5;

/// What checking a profile asks of the reward functions; the reward registry
/// ([`crate::reward::RewardRegistry`]) answers it. Profiles name no reward type, so the
/// reward functions build on profiles and not the other way round.
pub trait RewardCheck {
    /// The known functions' names, sorted (for messages).
    fn names(&self) -> Vec<&'static str>;
    /// `None` when no function is called `name`; else whether `profile` suits it (`Err` says
    /// why not) and, when it does, the lowest `base` it gives a candidate that broke nothing,
    /// with what that floor is.
    fn check(
        &self,
        name: &str,
        profile: &Profile,
    ) -> Option<std::result::Result<(f64, &'static str), String>>;
}

/// Length limits on a completion, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LengthLimits {
    /// Past this, the `length` part grows linearly from 0 …
    pub soft: usize,
    /// … to -0.05 here and beyond.
    pub hard: usize,
}

/// One leg of a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LegSpec {
    /// The leg's name (`parse`, `ref.normalised`).
    pub name: String,
    /// The adapter that runs it.
    pub adapter: String,
    /// Legs that must be clean for this one to run; otherwise it is skipped and says so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<String>,
    /// The adapter's parameters.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub params: serde_json::Value,
    /// The `base` when this leg is the first rewarded leg that broke (its rung on the ladder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_broke: Option<f64>,
    /// Reported, never rewarded: its state does not change the reward or whether it is scored.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub informational: bool,
    /// The timing leg graded by `rewardfn.speedup`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timing: bool,
}

/// A profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Profile {
    /// The profile's name.
    pub name: String,
    /// A line for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The reward function (`rewardfn.base`, `rewardfn.speedup`).
    #[serde(default = "default_reward_fn")]
    pub reward_fn: String,
    /// `base` when every rewarded correctness leg is clean.
    #[serde(default = "one")]
    pub clean_base: f64,
    /// The reward the OpenRLHF endpoint reports for an unscored entry (its `extra_logs` say so).
    #[serde(default)]
    pub unscored_value: f64,
    /// Soft and hard length limits; no length penalty when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<LengthLimits>,
    /// The legs, in order.
    pub legs: Vec<LegSpec>,
    /// The feedback for the model: its template and budget ([`FeedbackSpec`]); the defaults when
    /// absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<FeedbackSpec>,
}

fn default_reward_fn() -> String {
    "rewardfn.base".to_string()
}

fn one() -> f64 {
    1.0
}

/// A profile checked against the adapters and reward functions, with its hash.
#[derive(Debug, Clone)]
pub struct LoadedProfile {
    /// The profile.
    pub profile: Profile,
    /// blake3 of its canonical JSON form.
    pub hash: String,
}

impl LoadedProfile {
    /// Reads, parses and checks a profile file.
    pub fn load(path: &Path, adapters: &Registry, rewards: &dyn RewardCheck) -> Result<Self> {
        let text = aorlta_check::read_input_text(path, aorlta_check::TEXT_LIMIT)?;
        Self::from_yaml(&text, path, adapters, rewards)
    }

    /// Parses and checks a profile given as text; `origin` names it in errors.
    pub fn from_yaml(
        text: &str,
        origin: &Path,
        adapters: &Registry,
        rewards: &dyn RewardCheck,
    ) -> Result<Self> {
        let profile: Profile = aorlta_check::parse_yaml(text, origin)?;
        Self::check(profile, origin, adapters, rewards).map_err(|e| with_line(e, text))
    }

    /// Checks a parsed profile.
    pub fn check(
        profile: Profile,
        origin: &Path,
        adapters: &Registry,
        rewards: &dyn RewardCheck,
    ) -> Result<Self> {
        let bad = |m: String| CoreError::invalid(origin, m);
        let Some(suits) = rewards.check(&profile.reward_fn, &profile) else {
            return Err(bad(format!(
                "field `reward-fn`: unknown reward function `{}` (known: {})",
                profile.reward_fn,
                rewards.names().join(", ")
            )));
        };
        let (floor, what) = suits.map_err(|e| bad(format!("field `reward-fn`: {e}")))?;
        if !(-1.0..=1.0).contains(&profile.clean_base) {
            return Err(bad("field `clean-base`: must be in [-1.0, 1.0]".into()));
        }
        let u = profile.unscored_value;
        if !u.is_finite() || !(REWARD_MIN..=REWARD_MAX).contains(&u) {
            return Err(bad(format!(
                "field `unscored-value`: {u} is not a reward: it must be a finite number in [{}, {}]",
                REWARD_MIN, REWARD_MAX
            )));
        }
        if u >= profile.clean_base {
            return Err(bad(format!(
                "field `unscored-value`: {u} would rank an unscored entry with or above a correct one \
                 (`clean-base` {}); it must be below it",
                profile.clean_base
            )));
        }
        if let Some(l) = profile.length
            && (l.soft == 0 || l.soft > l.hard)
        {
            return Err(bad("field `length`: need 0 < soft <= hard".into()));
        }
        if profile.legs.is_empty() {
            return Err(bad("field `legs`: a profile needs at least one leg".into()));
        }
        let mut seen: Vec<&str> = Vec::new();
        for (i, leg) in profile.legs.iter().enumerate() {
            let at = format!("legs[{i}] (`{}`)", leg.name);
            if leg.name.is_empty() {
                return Err(bad(format!("legs[{i}]: field `name` is empty")));
            }
            if seen.contains(&leg.name.as_str()) {
                return Err(bad(format!("{at}: duplicate leg name")));
            }
            let Some(adapter) = adapters.get(&leg.adapter) else {
                return Err(bad(format!(
                    "{at}: field `adapter`: unknown adapter `{}` (known: {})",
                    leg.adapter,
                    adapters.names().join(", ")
                )));
            };
            adapter
                .check_params(&leg.params)
                .map_err(|e| bad(format!("{at}: field `params`: {e}")))?;
            for need in &leg.needs {
                if !seen.contains(&need.as_str()) {
                    return Err(bad(format!(
                        "{at}: field `needs`: `{need}` is not an earlier leg"
                    )));
                }
            }
            if let Some(b) = leg.on_broke
                && !(-1.0..=1.0).contains(&b)
            {
                return Err(bad(format!("{at}: field `on-broke`: must be in [-1.0, 1.0]")));
            }
            if adapter.informational_only() && !leg.informational {
                return Err(bad(format!(
                    "{at}: field `informational`: adapter `{}` only reports (its figures never \
                     enter a reward); mark the leg `informational: true`",
                    leg.adapter
                )));
            }
            if leg.informational && (leg.on_broke.is_some() || leg.timing) {
                return Err(bad(format!(
                    "{at}: an informational leg has no `on-broke` and is not `timing`"
                )));
            }
            let default = if leg.timing {
                DEFAULT_TIMING_ON_BROKE
            } else {
                DEFAULT_ON_BROKE
            };
            let rung = leg.on_broke.unwrap_or(default);
            if !leg.informational && rung >= floor {
                let which = match leg.on_broke {
                    Some(b) => format!("{b}"),
                    None => format!("the default rung, {default},"),
                };
                return Err(bad(format!(
                    "{at}: field `on-broke`: {which} would rank a candidate that broke this leg with \
                     or above a correct one, which gets {floor} at least ({what}); it must be below \
                     {floor}"
                )));
            }
            seen.push(&leg.name);
        }
        if let Some(f) = &profile.feedback {
            let names: Vec<&str> = profile.legs.iter().map(|l| l.name.as_str()).collect();
            feedback::check(f, &names).map_err(bad)?;
        }
        if profile.legs.iter().filter(|l| l.timing).count() > 1 {
            return Err(bad("field `legs`: at most one leg may be `timing`".into()));
        }
        let graded = profile.legs.iter().any(|l| {
            !l.informational && (l.timing || l.on_broke.unwrap_or(DEFAULT_ON_BROKE) < profile.clean_base)
        });
        if !graded {
            return Err(bad(format!(
                "field `legs`: every candidate would get the same base ({}): no rewarded leg has an \
                 `on-broke` below `clean-base` (informational legs are not rewarded)",
                profile.clean_base
            )));
        }
        let canonical = serde_json::to_string(&profile).expect("a profile serialises");
        Ok(LoadedProfile {
            hash: hash_str(&canonical),
            profile,
        })
    }
}

/// A check's error with the line it concerns: the line of the leg it names (`legs[2]
/// (`name`)`), or of the field inside that leg, or of a top-level field (`field `x``).
fn with_line(e: CoreError, text: &str) -> CoreError {
    let CoreError::Invalid { path, message } = e else {
        return e;
    };
    let quoted = |after: &str| -> Option<String> {
        let rest = &message[message.find(after)? + after.len()..];
        Some(rest[..rest.find('`')?].to_string())
    };
    let leg = message.starts_with("legs[").then(|| quoted("] (`")).flatten();
    let field = quoted("field `").map(|f| f.split('.').next().unwrap_or_default().to_string());
    let lines: Vec<&str> = text.lines().collect();
    let key_at = |l: &str, key: &str| {
        let t = l
            .trim_start()
            .trim_start_matches("- ")
            .trim_start_matches('{')
            .trim_start();
        t.starts_with(&format!("{key}:"))
            || l.contains(&format!(" {key}:"))
            || l.contains(&format!("{{{key}:"))
    };
    let line = match (&leg, &field) {
        (Some(name), f) => {
            let start = lines.iter().position(|l| {
                key_at(l, "name")
                    && (l.contains(&format!("name: {name}")) || l.contains(&format!("name: \"{name}\"")))
            });
            start.map(|i| {
                let end = lines[i + 1..]
                    .iter()
                    .position(|l| l.trim_start().starts_with("- "))
                    .map_or(lines.len(), |n| i + 1 + n);
                f.as_ref()
                    .and_then(|f| (i..end).find(|&j| key_at(lines[j], f)))
                    .unwrap_or(i)
            })
        }
        (None, Some(f)) => lines
            .iter()
            .position(|l| !l.starts_with(' ') && l.starts_with(&format!("{f}:"))),
        (None, None) => None,
    };
    match line {
        Some(i) => CoreError::Parse {
            path,
            line: i + 1,
            message,
        },
        None => CoreError::Invalid { path, message },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reward::RewardRegistry;

    fn load(text: &str) -> Result<LoadedProfile> {
        LoadedProfile::from_yaml(
            text,
            Path::new("p.yaml"),
            &crate::lanes::adapters(),
            &RewardRegistry::builtin(),
        )
    }

    const GOOD: &str = "name: qa\nlegs:\n  - name: parse\n    adapter: parse\n    on-broke: -1.0\n  - name: ref.normalised\n    adapter: normalised-match\n    needs: [parse]\n    on-broke: -0.5\n";

    #[test]
    fn a_good_profile_loads_with_a_stable_hash() {
        let a = load(GOOD).unwrap();
        let b = load(GOOD).unwrap();
        assert_eq!(a.hash, b.hash);
        assert_eq!(a.profile.legs.len(), 2);
        let c = load(&GOOD.replace("-0.5", "-0.4")).unwrap();
        assert_ne!(a.hash, c.hash);
    }

    #[test]
    fn unknown_key_names_file_line_and_key() {
        let err = load(&GOOD.replace("    on-broke: -0.5\n", "    on-brok: -0.5\n"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("p.yaml:"), "{err}");
        assert!(err.contains("on-brok"), "{err}");
        assert!(!err.starts_with("p.yaml:0"), "{err}");
    }

    #[test]
    fn every_number_keeps_the_reward_contract() {
        for (value, why) in [
            (".nan", "finite"),
            (".inf", "finite"),
            ("-.inf", "finite"),
            ("5.0", "finite number in"),
            ("1.0", "below"),
        ] {
            let err = load(&format!("unscored-value: {value}\n{GOOD}"))
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("p.yaml:1: field `unscored-value`"),
                "{value}: {err}"
            );
            assert!(err.contains(why), "{value}: {err}");
        }
        assert!(load(&format!("unscored-value: -0.25\n{GOOD}")).is_ok());
        for value in [".nan", ".inf", "1.5"] {
            let err = load(&GOOD.replace("on-broke: -0.5", &format!("on-broke: {value}")))
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("p.yaml:9: legs[1] (`ref.normalised`): field `on-broke`"),
                "{value}: {err}"
            );
        }
        let err = load(&format!("clean-base: .nan\n{GOOD}"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("p.yaml:1: field `clean-base`"), "{err}");
    }

    #[test]
    fn an_on_broke_rung_at_or_above_the_base_of_a_correct_candidate_is_refused() {
        for (text, line, leg, floor) in [
            (
                GOOD.replace("on-broke: -0.5", "on-broke: 1"),
                9,
                "legs[1] (`ref.normalised`)",
                "1",
            ),
            (
                format!(
                    "clean-base: 0.25\n{}",
                    GOOD.replace("on-broke: -1.0", "on-broke: 0.5")
                ),
                6,
                "legs[0] (`parse`)",
                "0.25",
            ),
            (
                format!(
                    "clean-base: -1.0\nunscored-value: -1.2\n{}",
                    GOOD.replace("    on-broke: -1.0\n", "")
                ),
                5,
                "legs[0] (`parse`)",
                "-1",
            ),
        ] {
            let err = load(&text).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("p.yaml:{line}: {leg}: field `on-broke`")),
                "{err}"
            );
            assert!(err.contains("with or above a correct one"), "{err}");
            assert!(err.contains(&format!("it must be below {floor}")), "{err}");
        }
        assert!(
            load(&format!(
                "clean-base: 0.25\n{}",
                GOOD.replace("on-broke: -1.0", "on-broke: 0.2")
            ))
            .is_ok()
        );
        // rewardfn.speedup gives a correct kernel 0.0 at least: every rung, the timing leg's
        // included, is below it.
        let speed = "name: k\nreward-fn: rewardfn.speedup\nlegs:\n  - {name: parse, adapter: parse, on-broke: -1.0}\n  \
                     - {name: t, adapter: kernel-time, needs: [parse], timing: true, params: {ratio: 1.1}}\n";
        assert!(load(speed).is_ok(), "{:?}", load(speed).err());
        for (text, leg) in [
            (
                speed.replace("on-broke: -1.0", "on-broke: 0.0"),
                "legs[0] (`parse`)",
            ),
            (
                speed.replace("timing: true", "timing: true, on-broke: 0.3"),
                "legs[1] (`t`)",
            ),
        ] {
            let err = load(&text).unwrap_err().to_string();
            assert!(err.contains(&format!("{leg}: field `on-broke`")), "{err}");
            assert!(err.contains("too slow to measure"), "{err}");
        }
    }

    #[test]
    fn a_ladder_that_gives_every_candidate_the_same_base_is_refused() {
        let informational_only = "name: qa\nlegs:\n  - {name: parse, adapter: parse, informational: true}\n";
        let err = load(informational_only).unwrap_err().to_string();
        assert!(err.contains("every candidate would get the same base"), "{err}");
        assert!(err.starts_with("p.yaml:2: field `legs`"), "{err}");
    }

    #[test]
    fn needs_must_name_an_earlier_leg() {
        let err = load(&GOOD.replace("needs: [parse]", "needs: [compile]"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("`compile` is not an earlier leg"), "{err}");
    }

    #[test]
    fn a_profiler_leg_must_be_informational() {
        let head = "name: k\nlegs:\n  - {name: parse, adapter: parse, on-broke: -1.0}\n";
        let err = load(&format!(
            "{head}  - {{name: prof, adapter: kernel-profile, needs: [parse]}}\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(err.contains("legs[1] `prof`") || err.contains("prof"), "{err}");
        assert!(err.contains("mark the leg `informational: true`"), "{err}");
        assert!(err.contains("p.yaml:4:"), "the line of the leg: {err}");
        load(&format!(
            "{head}  - {{name: prof, adapter: kernel-profile, needs: [parse], informational: true, params: {{size: 1}}}}\n"
        ))
        .unwrap();
    }

    #[test]
    fn unknown_adapter_and_reward_fn_are_named() {
        let err = load(&GOOD.replace("normalised-match", "fuzzy"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown adapter `fuzzy`"), "{err}");
        let err = load(&format!("reward-fn: rewardfn.nope\n{GOOD}"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("rewardfn.nope"), "{err}");
    }

    #[test]
    fn bad_params_name_the_leg() {
        let err = load(&GOOD.replace(
            "    on-broke: -1.0\n",
            "    on-broke: -1.0\n    params: {colour: red}\n",
        ))
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("legs[0] (`parse`)") && err.contains("colour"),
            "{err}"
        );
    }
}

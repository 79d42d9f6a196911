//! The judge's parameters (docs/JUDGE.md), as a timing leg's profile sets them: kebab-case keys, every key
//! optional with the documented default, unknown keys an error.

use serde::{Deserialize, Serialize};

/// The fewest bootstrap resamples the judge accepts (docs/JUDGE.md).
pub const MIN_RESAMPLES: usize = 2000;

/// The bootstrap seed used when a profile sets none.
pub const DEFAULT_SEED: u64 = 0x6A75_6467_6531;

/// Parameters of the timing judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct JudgeParams {
    /// The speedup the candidate must show to be `faster` (default 1.1).
    pub ratio: f64,
    /// The smallest noise floor, as a fraction (default 0.01).
    pub min_floor: f64,
    /// The largest relative MAD of either side that still counts as a quiet measurement (default
    /// 0.10).
    pub max_noise: f64,
    /// The fewest valid pairs the judge decides on (default 10).
    pub min_samples: usize,
    /// The two-sided confidence of the bootstrap interval of `s` (default 0.999).
    pub confidence: f64,
    /// Bootstrap resamples (default and minimum 2000).
    pub resamples: usize,
    /// The bootstrap's seed (default [`DEFAULT_SEED`]).
    pub seed: u64,
    /// Keep the raw pairs in the measurement record (default false).
    pub keep_samples: bool,
}

impl Default for JudgeParams {
    fn default() -> Self {
        JudgeParams {
            ratio: 1.1,
            min_floor: 0.01,
            max_noise: 0.10,
            min_samples: 10,
            confidence: 0.999,
            resamples: MIN_RESAMPLES,
            seed: DEFAULT_SEED,
            keep_samples: false,
        }
    }
}

/// A parameter outside its allowed range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("judge parameter `{key}` is {value}; it must be {rule}")]
pub struct ParamsError {
    /// The parameter's kebab-case key.
    pub key: &'static str,
    /// The value given, as text.
    pub value: String,
    /// What it must be.
    pub rule: &'static str,
}

impl JudgeParams {
    /// Checks every parameter's range; the judge refuses to decide (an `invalid` verdict) on
    /// parameters that fail this, and a profile loader should call it to report them early.
    pub fn validate(&self) -> Result<(), ParamsError> {
        let err = |key, value: String, rule| Err(ParamsError { key, value, rule });
        if !(self.ratio.is_finite() && self.ratio > 0.0) {
            return err("ratio", self.ratio.to_string(), "finite and positive");
        }
        if !(self.min_floor.is_finite() && self.min_floor >= 0.0) {
            return err("min-floor", self.min_floor.to_string(), "finite and not negative");
        }
        if !(self.max_noise.is_finite() && self.max_noise > 0.0) {
            return err("max-noise", self.max_noise.to_string(), "finite and positive");
        }
        if self.min_samples < 2 {
            return err("min-samples", self.min_samples.to_string(), "at least 2");
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return err(
                "confidence",
                self.confidence.to_string(),
                "strictly between 0 and 1",
            );
        }
        if self.resamples < MIN_RESAMPLES {
            return err("resamples", self.resamples.to_string(), "at least 2000");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_spec_values_and_valid() {
        let p = JudgeParams::default();
        assert_eq!((p.ratio, p.min_floor, p.max_noise), (1.1, 0.01, 0.10));
        assert_eq!((p.min_samples, p.confidence, p.resamples), (10, 0.999, 2000));
        assert!(!p.keep_samples);
        assert_eq!(p.validate(), Ok(()));
    }

    #[test]
    fn deserializes_kebab_case_with_defaults_and_rejects_unknown_keys() {
        let p: JudgeParams = serde_json::from_str(r#"{"ratio": 1.0, "min-samples": 30}"#).expect("parses");
        assert_eq!(p.ratio, 1.0);
        assert_eq!(p.min_samples, 30);
        assert_eq!(p.max_noise, 0.10);
        let empty: JudgeParams = serde_json::from_str("{}").expect("parses");
        assert_eq!(empty, JudgeParams::default());
        let e = serde_json::from_str::<JudgeParams>(r#"{"min_samples": 30}"#).expect_err("snake_case key");
        assert!(e.to_string().contains("min_samples"), "{e}");
        assert!(serde_json::from_str::<JudgeParams>(r#"{"ratoi": 1.2}"#).is_err());
    }

    #[test]
    fn validate_names_the_bad_key() {
        let cases = [
            (
                JudgeParams {
                    ratio: 0.0,
                    ..Default::default()
                },
                "ratio",
            ),
            (
                JudgeParams {
                    ratio: f64::NAN,
                    ..Default::default()
                },
                "ratio",
            ),
            (
                JudgeParams {
                    min_floor: -0.1,
                    ..Default::default()
                },
                "min-floor",
            ),
            (
                JudgeParams {
                    max_noise: 0.0,
                    ..Default::default()
                },
                "max-noise",
            ),
            (
                JudgeParams {
                    min_samples: 1,
                    ..Default::default()
                },
                "min-samples",
            ),
            (
                JudgeParams {
                    confidence: 1.0,
                    ..Default::default()
                },
                "confidence",
            ),
            (
                JudgeParams {
                    resamples: 1999,
                    ..Default::default()
                },
                "resamples",
            ),
        ];
        for (p, key) in cases {
            let e = p.validate().expect_err("out of range");
            assert_eq!(e.key, key);
            assert!(e.to_string().contains(key), "{e}");
        }
    }
}

//! The generator's configuration (`examples/generated/generator.yaml`): which operator families
//! a module is composed of and how often, the shapes and element types it is drawn over, the
//! bounds on the reference's size, the difficulty thresholds and the families held out of the
//! training split. Every number is checked as the file is read, so a bad one is an error naming
//! the file and its line (a value read later would have lost its place).

use aorlta_check::{CoreError, Result};
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::path::Path;

/// An operator family: what a module's operators are drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Element-wise arithmetic and activations (`relu`, `gelu`, `x * a + b`, ...).
    Elementwise,
    /// Sums, means, maxima, minima and variances over one axis.
    Reduction,
    /// Layer, RMS, L2 and group normalisation.
    Norm,
    /// `softmax`, `log_softmax` and `logsumexp`.
    Softmax,
    /// Linear layers and products with a weight (the operators after them are the epilogue).
    Matmul,
    /// 2-D convolutions and pooling, over images.
    Conv,
    /// `gather`, `index_select` and `scatter_add` with drawn indices.
    Gather,
    /// Scans: `cumsum`, `logcumsumexp`, `cummax`.
    Scan,
    /// Losses against drawn targets (the module's last operator).
    Loss,
}

impl Family {
    /// Every family, in the order reports list them.
    pub const ALL: [Family; 9] = [
        Family::Elementwise,
        Family::Reduction,
        Family::Norm,
        Family::Softmax,
        Family::Matmul,
        Family::Conv,
        Family::Gather,
        Family::Scan,
        Family::Loss,
    ];

    /// The name the configuration and the reports use.
    pub fn name(self) -> &'static str {
        match self {
            Family::Elementwise => "elementwise",
            Family::Reduction => "reduction",
            Family::Norm => "norm",
            Family::Softmax => "softmax",
            Family::Matmul => "matmul",
            Family::Conv => "conv",
            Family::Gather => "gather",
            Family::Scan => "scan",
            Family::Loss => "loss",
        }
    }
}

/// A module's element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dt {
    /// `torch.float32`.
    F32,
    /// `torch.float16`.
    F16,
    /// `torch.bfloat16`.
    Bf16,
}

impl Dt {
    /// The torch name (`torch.float16`).
    pub fn torch(self) -> &'static str {
        match self {
            Dt::F32 => "torch.float32",
            Dt::F16 => "torch.float16",
            Dt::Bf16 => "torch.bfloat16",
        }
    }

    /// The task's name (`f16`).
    pub fn name(self) -> &'static str {
        match self {
            Dt::F32 => "f32",
            Dt::F16 => "f16",
            Dt::Bf16 => "bf16",
        }
    }
}

/// A relative weight: finite and at least zero (zero leaves the entry out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weight(pub f64);

impl<'de> Deserialize<'de> for Weight {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let w = f64::deserialize(d)?;
        if !w.is_finite() || w < 0.0 {
            return Err(serde::de::Error::custom(format!(
                "a weight is a finite number of at least 0, not {w}"
            )));
        }
        Ok(Weight(w))
    }
}

/// A count or a size: a whole number of at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Positive(pub u64);

impl<'de> Deserialize<'de> for Positive {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = i64::deserialize(d)?;
        if v < 1 {
            return Err(serde::de::Error::custom(format!(
                "a size or a count is a whole number of at least 1, not {v}"
            )));
        }
        Ok(Positive(v as u64))
    }
}

/// How often a family is drawn, how hard its operators are, and the element types it takes.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FamilyConf {
    /// Relative weight of the family when an operator is drawn.
    pub weight: Weight,
    /// What one operator of the family adds to a module's difficulty score.
    pub difficulty: Weight,
    /// The element types a module with this family may have (all of them when absent).
    #[serde(default)]
    pub dtypes: Option<Vec<Dt>>,
}

/// A class of matrix shapes: `rows x cols` drawn from the lists.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RowsShape {
    /// The class's name in the reports (`square`, `tall`, `skinny`, `odd`).
    pub name: String,
    /// Relative weight of the class.
    pub weight: Weight,
    /// The batch (first) dimension, one drawn.
    pub rows: Vec<Positive>,
    /// The feature (second) dimension, one drawn.
    pub cols: Vec<Positive>,
}

/// A class of image shapes for convolutions: `batch x channels x side x side`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ImageShape {
    /// The class's name in the reports.
    pub name: String,
    /// Relative weight of the class.
    pub weight: Weight,
    /// Batch sizes, one drawn.
    pub batch: Vec<Positive>,
    /// Channel counts, one drawn.
    pub channels: Vec<Positive>,
    /// Heights, one drawn; the width is drawn from the same list.
    pub side: Vec<Positive>,
}

/// Bounds on the reference at its timed size (from the shapes, measured on PyTorch's `meta`
/// device): bytes read and written, floating-point operations.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Bounds {
    /// Fewer bytes than this is launch-bound on a GPU: dropped as too small.
    pub min_bytes: Positive,
    /// More bytes than this is dropped as too large.
    pub max_bytes: Positive,
    /// More floating-point operations than this is dropped as too large.
    pub max_flops: Positive,
}

/// Difficulty labels from a module's score (the sum of its operators' `difficulty`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Difficulty {
    /// A score up to this is `easy`.
    pub easy: Weight,
    /// A score up to this (above `easy`) is `medium`; above, `hard`.
    pub medium: Weight,
}

/// The generator's configuration.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct GeneratorConfig {
    /// The fewest operators in a module.
    pub min_ops: Positive,
    /// The most operators in a module.
    pub max_ops: Positive,
    /// Each family's weight, difficulty and element types; a family not listed is never drawn.
    pub families: BTreeMap<Family, FamilyConf>,
    /// Relative weights of the element types.
    pub dtypes: BTreeMap<Dt, Weight>,
    /// Matrix shapes for every family but `conv`.
    pub shapes: Vec<RowsShape>,
    /// Image shapes for `conv`.
    pub images: Vec<ImageShape>,
    /// Bounds on the reference's size.
    pub bounds: Bounds,
    /// Difficulty thresholds.
    pub difficulty: Difficulty,
    /// Families whose tasks form the held-out split: a task with any of them is held out.
    pub held_out: Vec<Family>,
}

impl GeneratorConfig {
    /// Reads and checks a configuration file; every error names the file and the line.
    pub fn load(path: &Path) -> Result<GeneratorConfig> {
        let text = std::fs::read_to_string(path).map_err(|e| CoreError::Parse {
            path: path.to_path_buf(),
            line: 0,
            message: e.to_string(),
        })?;
        Self::parse(&text, path)
    }

    /// Parses and checks `text`; `origin` names it in errors.
    pub fn parse(text: &str, origin: &Path) -> Result<GeneratorConfig> {
        let c: GeneratorConfig = aorlta_check::parse_yaml(text, origin)?;
        let line_of = |key: &str| {
            text.lines()
                .position(|l| l.trim_start().starts_with(&format!("{key}:")))
                .map_or(0, |i| i + 1)
        };
        let bad = |key: &str, message: String| CoreError::Parse {
            path: origin.to_path_buf(),
            line: line_of(key),
            message: format!("{key}: {message}"),
        };
        if c.max_ops < c.min_ops || c.max_ops.0 > 5 {
            return Err(bad(
                "max-ops",
                format!(
                    "must be at least min-ops ({}) and at most 5, not {}",
                    c.min_ops.0, c.max_ops.0
                ),
            ));
        }
        if !c.families.values().any(|f| f.weight.0 > 0.0) {
            return Err(bad("families", "no family has a weight above 0".into()));
        }
        if !c.dtypes.values().any(|w| w.0 > 0.0) {
            return Err(bad("dtypes", "no element type has a weight above 0".into()));
        }
        for s in &c.shapes {
            if s.rows.is_empty() || s.cols.is_empty() {
                return Err(bad(
                    "shapes",
                    format!("class `{}` has no rows or no cols", s.name),
                ));
            }
        }
        for s in &c.images {
            if s.batch.is_empty() || s.channels.is_empty() || s.side.is_empty() {
                return Err(bad("images", format!("class `{}` has an empty list", s.name)));
            }
        }
        if c.shapes.is_empty() {
            return Err(bad("shapes", "at least one class of shapes is needed".into()));
        }
        if c.bounds.max_bytes < c.bounds.min_bytes {
            return Err(bad("max-bytes", "is below min-bytes".into()));
        }
        if c.difficulty.medium.0 < c.difficulty.easy.0 {
            return Err(bad("medium", "is below easy".into()));
        }
        Ok(c)
    }

    /// The difficulty label of a module whose operators are of `families`.
    pub fn difficulty_of(&self, families: &[Family]) -> &'static str {
        let score: f64 = families
            .iter()
            .map(|f| self.families.get(f).map_or(1.0, |c| c.difficulty.0))
            .sum();
        if score <= self.difficulty.easy.0 {
            "easy"
        } else if score <= self.difficulty.medium.0 {
            "medium"
        } else {
            "hard"
        }
    }
}

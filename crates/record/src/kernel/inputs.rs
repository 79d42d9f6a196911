//! What a task's inputs may hold, and which of it a checked launch draws: the domain a
//! buffer's `init` declares, the special values a task declares legal, the input families drawn
//! from that domain, the rows the per-row families follow, and the precision a task asks for.
//!
//! A kernel verified on one input law is verified on that law only. Every checked launch of a
//! correctness job draws each input from one *family* the domain allows, chosen from the case's
//! place in the job and the job's secret seeds ([`family_for_case`]), so that a job of at least
//! as many cases as families draws every family at least once for every input, in an order a
//! candidate cannot know in advance. The families' formulas live in the harness
//! (`aorlta_gpu::draw` and its device twin); this module names them and says which apply.

use super::{BufferSpec, Dtype, Init};
use serde::{Deserialize, Serialize};

/// One way of drawing a buffer's inputs from its domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// The declared law itself (uniform or normal).
    Typical,
    /// Every element in a narrow window at the top of the domain.
    Top,
    /// Every element in a narrow window at the bottom of the domain.
    Bottom,
    /// Each row in its own narrow window, placed anywhere in the domain.
    RowWindow,
    /// Runs of one value: whole rows, runs of 2 to 256 elements, or the whole buffer.
    ConstantRuns,
    /// Structured signs (alternating, per row, per block of 32, all negative, all positive);
    /// only where the domain holds both signs.
    Signs,
    /// Magnitudes spread over many binary orders, from the edge of the domain down towards
    /// zero (or towards the domain's end nearest zero).
    Magnitudes,
    /// The typical law with one element in eight replaced by a special value the task declares
    /// legal (zeros, subnormals, infinities, NaN); only where it declares some.
    Specials,
}

impl Family {
    /// Every family, in code order.
    pub const ALL: [Family; 8] = [
        Family::Typical,
        Family::Top,
        Family::Bottom,
        Family::RowWindow,
        Family::ConstantRuns,
        Family::Signs,
        Family::Magnitudes,
        Family::Specials,
    ];

    /// The code the harness's fill takes (`FAMILY_*` in `device/helpers.cu`).
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The name a report uses.
    pub fn name(self) -> &'static str {
        match self {
            Family::Typical => "typical",
            Family::Top => "top",
            Family::Bottom => "bottom",
            Family::RowWindow => "row-window",
            Family::ConstantRuns => "constant-runs",
            Family::Signs => "signs",
            Family::Magnitudes => "magnitudes",
            Family::Specials => "specials",
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A special value a task may declare legal in an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Special {
    /// +0 and -0.
    Zero,
    /// Subnormal numbers of the buffer's type, either sign.
    Subnormal,
    /// +inf and -inf.
    Inf,
    /// A quiet NaN.
    Nan,
}

impl Special {
    /// The bit of this value in the harness's mask.
    pub fn bit(self) -> i32 {
        match self {
            Special::Zero => 1,
            Special::Subnormal => 2,
            Special::Inf => 4,
            Special::Nan => 8,
        }
    }

    /// The harness's mask of a list.
    pub fn mask(list: &[Special]) -> i32 {
        list.iter().fold(0, |m, s| m | s.bit())
    }
}

/// The closed interval of values a buffer's `init` allows: `[lo, hi]` of a uniform law, and
/// `mean ± 6 std` of a normal one (the generator's own bound).
pub fn init_domain(init: &Init) -> (f64, f64) {
    match *init {
        Init::Uniform { lo, hi } => (lo, hi),
        Init::Normal { mean, std } => (mean - 6.0 * std, mean + 6.0 * std),
    }
}

/// True for the floating-point types.
pub fn is_float(d: Dtype) -> bool {
    matches!(d, Dtype::F32 | Dtype::F16 | Dtype::Bf16)
}

/// The families a buffer's declaration allows, in code order.
pub fn allowed_families(b: &BufferSpec) -> Vec<Family> {
    let (lo, hi) = init_domain(&b.init);
    Family::ALL
        .into_iter()
        .filter(|f| match f {
            Family::Signs => lo < 0.0 && hi > 0.0,
            Family::Specials => is_float(b.dtype) && !b.special.is_empty(),
            _ => true,
        })
        .collect()
}

/// SplitMix64's finaliser of `z + 0x9E3779B97F4A7C15` (Steele, Lea and Flood 2014): the mixing
/// step of the harness's counter-based generator (`aorlta_gpu::draw`, and its device twin).
pub fn mix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The family buffer `buffer` (its index in the task) draws in case `case` of a correctness
/// job whose first seed is `first_seed`: the allowed families taken in a rotation that starts
/// at a place the seed picks, one step per case, so `allowed.len()` consecutive cases draw each
/// once. Buffers start at different places, so a case mixes families across its inputs.
pub fn family_for_case(allowed: &[Family], case: usize, first_seed: u64, buffer: usize) -> Family {
    if allowed.is_empty() {
        return Family::Typical;
    }
    let start = mix64(first_seed ^ mix64(0xFA11 + buffer as u64)) % allowed.len() as u64;
    allowed[(start as usize + case) % allowed.len()]
}

/// The arithmetic precision a task asks for; its tolerance is checked against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// IEEE single precision throughout.
    Fp32,
    /// Products on TF32 tensor cores (10 fraction bits) with fp32 accumulation.
    Tf32,
    /// IEEE half precision.
    Fp16,
    /// bfloat16 (7 fraction bits).
    Bf16,
}

impl Precision {
    /// The precision of a buffer type (integers ask for none).
    pub fn of(d: Dtype) -> Option<Precision> {
        match d {
            Dtype::F32 => Some(Precision::Fp32),
            Dtype::F16 => Some(Precision::Fp16),
            Dtype::Bf16 => Some(Precision::Bf16),
            Dtype::I32 | Dtype::U32 | Dtype::I64 => None,
        }
    }

    /// The name a task file writes.
    pub fn name(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Tf32 => "tf32",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
        }
    }

    /// The unit roundoff: half the distance from 1 to the next number.
    pub fn unit_roundoff(self) -> f64 {
        match self {
            Precision::Fp32 => 2f64.powi(-24),
            Precision::Tf32 | Precision::Fp16 => 2f64.powi(-11),
            Precision::Bf16 => 2f64.powi(-8),
        }
    }

    /// The next coarser precision, whose results a tolerance for this one must refuse.
    pub fn coarser(self) -> Option<Precision> {
        match self {
            Precision::Fp32 => Some(Precision::Tf32),
            Precision::Tf32 | Precision::Fp16 => Some(Precision::Bf16),
            Precision::Bf16 => None,
        }
    }

    /// The relative tolerances that mean this precision: at least its unit roundoff (a result
    /// rounded once to it must pass) and below the coarser precision's unit roundoff (a result
    /// computed in that one must not pass on relative error alone). Below bf16, fp8's 2^-4.
    pub fn rtol_range(self) -> (f64, f64) {
        let hi = self.coarser().map_or(2f64.powi(-4), Precision::unit_roundoff);
        (self.unit_roundoff(), hi)
    }
}

/// Checks a relative tolerance against a precision: `None` when it fits, else why not.
pub fn rtol_fits(p: Precision, rtol: f64) -> Option<String> {
    let (lo, hi) = p.rtol_range();
    if rtol < lo {
        Some(format!(
            "rtol {rtol:e} is below the unit roundoff of {} ({lo:e}): an honest kernel rounding once fails it",
            p.name()
        ))
    } else if rtol >= hi {
        let coarser = p.coarser().map_or("fp8", Precision::name);
        Some(format!(
            "rtol {rtol:e} is at or above the unit roundoff of {coarser} ({hi:e}): a kernel computing in {coarser} passes it; declare `precision: {coarser}` if that is allowed"
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(dtype: Dtype, init: Init, special: Vec<Special>) -> BufferSpec {
        BufferSpec {
            name: "x".into(),
            dtype,
            len: "n".into(),
            role: super::super::Role::In,
            init,
            special,
            row: None,
        }
    }

    #[test]
    fn signs_need_both_signs_and_specials_a_declaration_on_a_float() {
        let both = buf(Dtype::F32, Init::Uniform { lo: -1.0, hi: 2.0 }, vec![]);
        assert!(allowed_families(&both).contains(&Family::Signs));
        assert!(!allowed_families(&both).contains(&Family::Specials));
        let pos = buf(Dtype::F32, Init::Uniform { lo: 0.0, hi: 2.0 }, vec![Special::Nan]);
        assert!(!allowed_families(&pos).contains(&Family::Signs));
        assert!(allowed_families(&pos).contains(&Family::Specials));
        let int = buf(
            Dtype::I32,
            Init::Uniform { lo: -5.0, hi: 5.0 },
            vec![Special::Zero],
        );
        assert!(!allowed_families(&int).contains(&Family::Specials));
        assert_eq!(init_domain(&Init::Normal { mean: 1.0, std: 2.0 }), (-11.0, 13.0));
    }

    #[test]
    fn consecutive_cases_draw_every_allowed_family_once() {
        let fams = allowed_families(&buf(
            Dtype::F32,
            Init::Uniform { lo: -1.0, hi: 1.0 },
            vec![Special::Inf],
        ));
        assert_eq!(fams.len(), 8);
        for seed in [0u64, 1, 77, u64::MAX] {
            for buffer in 0..3 {
                let mut seen: Vec<Family> = (3..3 + fams.len())
                    .map(|c| family_for_case(&fams, c, seed, buffer))
                    .collect();
                seen.sort();
                assert_eq!(seen, fams, "seed {seed} buffer {buffer}");
            }
        }
        // The starting place moves with the seed.
        let starts: std::collections::BTreeSet<Family> =
            (0..64u64).map(|s| family_for_case(&fams, 0, s, 0)).collect();
        assert!(starts.len() > 4, "{starts:?}");
    }

    #[test]
    fn a_tolerance_must_pass_one_rounding_and_refuse_the_coarser_precision() {
        assert_eq!(rtol_fits(Precision::Fp32, 1e-4), None);
        let e = rtol_fits(Precision::Fp32, 1e-3).unwrap();
        assert!(e.contains("tf32") && e.contains("precision: tf32"), "{e}");
        assert!(rtol_fits(Precision::Fp32, 1e-8).unwrap().contains("below"));
        assert_eq!(rtol_fits(Precision::Tf32, 1e-3), None);
        assert_eq!(rtol_fits(Precision::Fp16, 2e-3), None);
        assert!(rtol_fits(Precision::Fp16, 1e-2).is_some());
        assert_eq!(rtol_fits(Precision::Bf16, 1e-2), None);
        assert!(rtol_fits(Precision::Bf16, 0.1).unwrap().contains("fp8"));
    }
}

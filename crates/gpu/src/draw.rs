//! What the harness writes into a job's buffers, as pure functions of a key and an element
//! index: the canary of the guard bands, the sentinel of unwritten outputs, and the inputs drawn
//! from a secret seed. The device computes the same functions in the harness's own device code
//! (`device/helpers.cu`), which fills the buffers before a launch and regenerates them to check
//! them after it, so no copy of an input or an expected output is kept anywhere a kernel can
//! reach. This module is the host twin of that code: the fake device computes through it, and a
//! harness on a real GPU compares the two at start ([`crate::verify`]).
//!
//! The generator is counter based: element `i`'s `k`-th word is SplitMix64's finaliser over
//! `key ^ ((16 i + k) * C)`, so any element can be drawn alone, in any order, on any number of
//! threads. Uniform draws use 53 bits; normal draws are Irwin-Hall sums of twelve 32-bit
//! uniforms (exact in a double, so host and device round alike; bounded at six sigma).

use aorlta_record::{Dtype, Init, Tolerance};
use aorlta_record::{Family, init_domain, is_float};
use half::{bf16, f16};

pub(crate) use aorlta_record::mix64;

/// The key of one buffer's inputs for one seed: buffers of a job draw from distinct streams.
pub(crate) fn buffer_key(seed: u64, buffer: usize) -> u64 {
    mix64(seed ^ mix64(buffer as u64 + 1))
}

fn word(key: u64, i: u64, k: u64) -> u64 {
    mix64(key ^ (i.wrapping_mul(16).wrapping_add(k)).wrapping_mul(0xD1B5_4A32_D192_ED03))
}

fn uniform01(w: u64) -> f64 {
    (w >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

fn normal01(key: u64, i: u64) -> f64 {
    let s: u64 = (0..12).map(|k| word(key, i, k) >> 32).sum();
    s as f64 * (1.0 / 4_294_967_296.0) - 6.0
}

/// How a data region is filled: the sentinel, or inputs drawn from a key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fill {
    /// Every element holds the dtype's sentinel.
    Sentinel,
    /// Inputs drawn by `init`'s domain and `family` from `key`.
    Input {
        /// The declared law (its domain bounds every family).
        init: Init,
        /// The buffer's key (`buffer_key`).
        key: u64,
        /// The family drawn ([`Family`]).
        family: Family,
        /// The special values the task declares legal ([`aorlta_record::Special::mask`]).
        special: i32,
        /// Elements per row, for the per-row families (at least 1).
        row: u64,
    },
}

impl Fill {
    /// Inputs of the typical law, with no special values and rows of 256.
    pub fn typical(init: Init, key: u64) -> Self {
        Fill::Input {
            init,
            key,
            family: Family::Typical,
            special: 0,
            row: 256,
        }
    }
}

/// The arguments the device's fill and check take for a fill: kind (0 sentinel, 1 uniform,
/// 2 normal), the two reals (lo, hi or mean, std), the integer bounds of the domain, the key,
/// the family, the mask of legal specials and the row length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FillArgs {
    /// 0 sentinel, 1 uniform, 2 normal.
    pub kind: i32,
    /// `lo` or `mean`.
    pub a: f64,
    /// `hi` or `std`.
    pub b: f64,
    /// The smallest integer of the domain.
    pub ilo: i64,
    /// The largest integer of the domain.
    pub ihi: i64,
    /// The key.
    pub key: u64,
    /// [`Family::code`].
    pub family: i32,
    /// [`aorlta_record::Special::mask`].
    pub special: i32,
    /// Elements per row.
    pub row: u64,
}

impl Fill {
    /// The kernel arguments of this fill.
    pub fn args(&self) -> FillArgs {
        match *self {
            Fill::Sentinel => FillArgs {
                kind: 0,
                a: 0.0,
                b: 0.0,
                ilo: 0,
                ihi: 0,
                key: 0,
                family: 0,
                special: 0,
                row: 1,
            },
            Fill::Input {
                init,
                key,
                family,
                special,
                row,
            } => {
                let (kind, a, b) = match init {
                    Init::Uniform { lo, hi } => (1, lo, hi),
                    Init::Normal { mean, std } => (2, mean, std),
                };
                let (lo, hi) = init_domain(&init);
                FillArgs {
                    kind,
                    a,
                    b,
                    ilo: lo.ceil() as i64,
                    ihi: hi.floor() as i64,
                    key,
                    family: family.code(),
                    special,
                    row: row.max(1),
                }
            }
        }
    }
}

/// The device's code for a dtype (the `DT_*` constants of the device code).
pub(crate) fn dtype_code(d: Dtype) -> i32 {
    match d {
        Dtype::F32 => 0,
        Dtype::F16 => 1,
        Dtype::Bf16 => 2,
        Dtype::I32 => 3,
        Dtype::U32 => 4,
        Dtype::I64 => 5,
    }
}

/// Bytes per element.
pub(crate) fn elem_size(d: Dtype) -> usize {
    match d {
        Dtype::F32 | Dtype::I32 | Dtype::U32 => 4,
        Dtype::F16 | Dtype::Bf16 => 2,
        Dtype::I64 => 8,
    }
}

/// The sentinel's bits: a quiet NaN for floats, `0xDEADBEEF` for integers, so an element the
/// kernel never wrote never matches a finite reference.
pub(crate) fn sentinel_bits(d: Dtype) -> u64 {
    match d {
        Dtype::F32 => 0x7FC0_DEAD,
        Dtype::F16 => 0x7E5A,
        Dtype::Bf16 => 0x7FDA,
        Dtype::I32 | Dtype::U32 => 0xDEAD_BEEF,
        Dtype::I64 => 0xDEAD_BEEF_DEAD_BEEF,
    }
}

/// The canary byte at `offset` bytes into a buffer's allocation (head guard from 0, tail guard
/// continuing after the head's length).
pub(crate) fn canary(offset: u64) -> u8 {
    (offset.wrapping_mul(151) as u8) ^ 0xA5
}

fn draw(a: &FillArgs, i: u64) -> f64 {
    if a.kind == 1 {
        a.a + (a.b - a.a) * uniform01(word(a.key, i, 0))
    } else {
        a.a + a.b * normal01(a.key, i)
    }
}

fn draw_int(a: &FillArgs, i: u64) -> i64 {
    if a.kind == 1 {
        if a.ihi <= a.ilo {
            return a.ilo;
        }
        let span = (a.ihi - a.ilo) as u64 + 1;
        a.ilo.wrapping_add((word(a.key, i, 0) % span) as i64)
    } else {
        (a.a + a.b * normal01(a.key, i)).round() as i64
    }
}

/// Salts of the per-row, per-run and per-buffer streams of the families.
const ROW_SALT: u64 = 0xA076_1D64_78BD_642F;
const RUN_SALT: u64 = 0xE703_7ED1_A0B4_28DB;
const BUF_SALT: u64 = 0x8EBC_6AF0_9C88_C6E3;

/// The closed domain of a fill's law ([`init_domain`], from the law's kind and reals as the
/// device code has them).
fn domain_of(kind: i32, a: f64, b: f64) -> (f64, f64) {
    if kind == 2 {
        (a - 6.0 * b, a + 6.0 * b)
    } else {
        (a, b)
    }
}

/// 2^-e, exactly (0 <= e <= 1000).
fn pow2_neg(e: u64) -> f64 {
    f64::from_bits((1023 - e) << 52)
}

/// Binary orders the `magnitudes` family spans for a type.
fn magnitude_orders(dtype: Dtype) -> u64 {
    match dtype {
        Dtype::F16 => 14,
        Dtype::F32 | Dtype::Bf16 => 24,
        Dtype::I32 | Dtype::U32 | Dtype::I64 => 30,
    }
}

/// Element `i` of a family other than `typical` and `specials`, as a real inside the domain.
fn family_value(dtype: Dtype, a: &FillArgs, i: u64) -> f64 {
    let (lo, hi) = domain_of(a.kind, a.a, a.b);
    let range = hi - lo;
    let u = uniform01(word(a.key, i, 0));
    let wb = word(a.key ^ BUF_SALT, 0, 0);
    let r = i / a.row;
    match a.family {
        // Top and bottom: a window of 2^-6 to 2^-12 of the domain.
        1 | 2 => {
            let w = range * pow2_neg(6 + wb % 7);
            if a.family == 1 {
                (hi - w) + w * u
            } else {
                lo + w * u
            }
        }
        // A window of 2^-6 to 2^-14 of the domain per row, anywhere in it.
        3 => {
            let w = range * pow2_neg(6 + word(a.key ^ ROW_SALT, r, 0) % 9);
            let start = lo + (range - w) * uniform01(word(a.key ^ ROW_SALT, r, 1));
            start + w * u
        }
        // Runs of one value: whole rows, the whole buffer, or 2 to 256 elements.
        4 => {
            let q = match wb % 4 {
                0 => r,
                1 => 0,
                _ => i / (2u64 << (word(a.key ^ BUF_SALT, 0, 1) % 8)),
            };
            lo + range * uniform01(word(a.key ^ RUN_SALT, q, 0))
        }
        // Signs: alternating, per row, per block of 32, all negative, all positive.
        5 => {
            let negative = match wb % 5 {
                0 => i & 1 == 1,
                1 => word(a.key ^ ROW_SALT, r, 2) & 1 == 1,
                2 => word(a.key ^ RUN_SALT, i / 32, 1) & 1 == 1,
                3 => true,
                _ => false,
            };
            if negative { lo * u } else { hi * u }
        }
        // Magnitudes: from an end of the domain towards the point of it nearest zero.
        _ => {
            let anchor = if lo > 0.0 {
                lo
            } else if hi < 0.0 {
                hi
            } else {
                0.0
            };
            let end = if lo < anchor && anchor < hi {
                if word(a.key, i, 1) & 1 == 1 { lo } else { hi }
            } else if anchor == lo {
                hi
            } else {
                lo
            };
            let e = word(a.key, i, 2) % (magnitude_orders(dtype) + 1);
            anchor + (end - anchor) * ((0.5 + 0.5 * u) * pow2_neg(e))
        }
    }
}

/// The bits of a special value for element `i`, or `None` when the element keeps its typical
/// draw (seven in eight, and every element when no special is legal).
fn special_bits(dtype: Dtype, a: &FillArgs, i: u64) -> Option<u64> {
    let count = a.special.count_ones() as u64;
    if count == 0 || word(a.key, i, 1) & 7 != 0 {
        return None;
    }
    let mut pick = word(a.key, i, 2) % count;
    let mut bit = 1;
    loop {
        if a.special & bit != 0 {
            if pick == 0 {
                break;
            }
            pick -= 1;
        }
        bit <<= 1;
    }
    let negative = word(a.key, i, 3) & 1;
    let w = word(a.key, i, 4);
    let (sign, fraction_mask, inf, nan) = match dtype {
        Dtype::F32 => (negative << 31, 0x7F_FFFF, 0x7F80_0000, 0x7FC0_0000),
        Dtype::F16 => (negative << 15, 0x3FF, 0x7C00, 0x7E00),
        _ => (negative << 15, 0x7F, 0x7F80, 0x7FC0),
    };
    Some(match bit {
        1 => sign,
        2 => sign | (1 + w % fraction_mask),
        4 => sign | inf,
        _ => nan,
    })
}

/// A real as an integer of the domain: rounded, then held inside `[ilo, ihi]`.
fn int_of(a: &FillArgs, v: f64) -> i64 {
    let x = v.round();
    if a.ihi <= a.ilo || x <= a.ilo as f64 {
        a.ilo
    } else if x >= a.ihi as f64 {
        a.ihi
    } else {
        x as i64
    }
}

/// Element `i` of a fill, as the bits the buffer holds (the low bytes for narrow types).
pub(crate) fn fill_bits(dtype: Dtype, a: &FillArgs, i: u64) -> u64 {
    if a.kind == 0 {
        return sentinel_bits(dtype);
    }
    if a.family == Family::Specials.code()
        && is_float(dtype)
        && let Some(bits) = special_bits(dtype, a, i)
    {
        return bits;
    }
    let family = a.family != Family::Typical.code() && a.family != Family::Specials.code();
    let real = || {
        if family {
            family_value(dtype, a, i)
        } else {
            draw(a, i)
        }
    };
    let int = || {
        if family {
            int_of(a, family_value(dtype, a, i))
        } else {
            draw_int(a, i)
        }
    };
    match dtype {
        Dtype::F32 => u64::from((real() as f32).to_bits()),
        Dtype::F16 => u64::from(f16::from_f32(real() as f32).to_bits()),
        Dtype::Bf16 => u64::from(bf16::from_f32(real() as f32).to_bits()),
        Dtype::I32 => u64::from(int() as i32 as u32),
        Dtype::U32 => u64::from(int().max(0) as u32),
        Dtype::I64 => int() as u64,
    }
}

/// Writes element `i`'s bits into a data region.
pub(crate) fn store(data: &mut [u8], dtype: Dtype, i: usize, bits: u64) {
    let n = elem_size(dtype);
    data[i * n..(i + 1) * n].copy_from_slice(&bits.to_le_bytes()[..n]);
}

/// Reads element `i`'s bits from a data region.
pub(crate) fn load(data: &[u8], dtype: Dtype, i: usize) -> u64 {
    let n = elem_size(dtype);
    let mut w = [0u8; 8];
    w[..n].copy_from_slice(&data[i * n..(i + 1) * n]);
    u64::from_le_bytes(w)
}

/// Element bits as a number (integers exactly up to 2^53).
pub(crate) fn as_f64(dtype: Dtype, bits: u64) -> f64 {
    match dtype {
        Dtype::F32 => f64::from(f32::from_bits(bits as u32)),
        Dtype::F16 => f64::from(f16::from_bits(bits as u16).to_f32()),
        Dtype::Bf16 => f64::from(bf16::from_bits(bits as u16).to_f32()),
        Dtype::I32 => f64::from(bits as u32 as i32),
        Dtype::U32 => f64::from(bits as u32),
        Dtype::I64 => bits as i64 as f64,
    }
}

/// A number as element bits (what a fake kernel stores).
pub(crate) fn from_f64(dtype: Dtype, v: f64) -> u64 {
    match dtype {
        Dtype::F32 => u64::from((v as f32).to_bits()),
        Dtype::F16 => u64::from(f16::from_f32(v as f32).to_bits()),
        Dtype::Bf16 => u64::from(bf16::from_f32(v as f32).to_bits()),
        Dtype::I32 => u64::from(v as i32 as u32),
        Dtype::U32 => u64::from(v as u32),
        Dtype::I64 => v as i64 as u64,
    }
}

/// Fills a data region.
pub(crate) fn fill_region(data: &mut [u8], dtype: Dtype, fill: &Fill) {
    let a = fill.args();
    for i in 0..data.len() / elem_size(dtype) {
        store(data, dtype, i, fill_bits(dtype, &a, i as u64));
    }
}

/// Elements of a data region that differ from a fill.
pub(crate) fn count_unlike(data: &[u8], dtype: Dtype, fill: &Fill) -> u64 {
    let a = fill.args();
    (0..data.len() / elem_size(dtype))
        .filter(|&i| load(data, dtype, i) != fill_bits(dtype, &a, i as u64))
        .count() as u64
}

/// What the device's comparison of two output regions finds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct RegionCompare {
    /// Elements outside tolerance.
    pub mismatches: u64,
    /// The first such element.
    pub first: Option<u64>,
    /// The largest absolute difference over finite pairs.
    pub worst: f64,
}

/// The host twin of the device's comparison: `|c - r| <= atol + rtol |r|` for floats, NaN only
/// where the reference has NaN, infinities equal; `|c - r| <= atol` for integers.
pub(crate) fn compare_region(expected: &[u8], got: &[u8], dtype: Dtype, tol: Tolerance) -> RegionCompare {
    let mut out = RegionCompare::default();
    for i in 0..expected.len().min(got.len()) / elem_size(dtype) {
        if !element_ok(expected, got, dtype, i, tol, &mut out.worst) {
            out.mismatches += 1;
            out.first.get_or_insert(i as u64);
        }
    }
    out
}

/// One element of [`compare_region`]: whether it matches, with its difference folded into
/// `worst`.
fn element_ok(expected: &[u8], got: &[u8], dtype: Dtype, i: usize, tol: Tolerance, worst: &mut f64) -> bool {
    bits_ok(load(expected, dtype, i), load(got, dtype, i), dtype, tol, worst)
}

/// [`element_ok`] on two elements' bits: whether `gb` is within the tolerance of `eb`.
pub(crate) fn bits_ok(eb: u64, gb: u64, dtype: Dtype, tol: Tolerance, worst: &mut f64) -> bool {
    if eb == gb {
        return true;
    }
    let (r, c) = (as_f64(dtype, eb), as_f64(dtype, gb));
    if !matches!(dtype, Dtype::F32 | Dtype::F16 | Dtype::Bf16) {
        let d = (c - r).abs();
        *worst = worst.max(d);
        return d <= tol.atol;
    }
    match (r.is_nan(), c.is_nan()) {
        (true, true) => true,
        (false, false) if r.is_infinite() || c.is_infinite() => r == c,
        (false, false) => {
            let d = (c - r).abs();
            *worst = worst.max(d);
            d <= tol.atol + tol.rtol * r.abs()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_record::Special;

    fn input(init: Init, seed: u64) -> Fill {
        Fill::typical(init, buffer_key(seed, 0))
    }

    #[test]
    fn fills_are_functions_of_key_and_index_and_check_against_themselves() {
        let f = input(Init::Uniform { lo: -1.0, hi: 1.0 }, 9);
        let mut a = vec![0u8; 4 * 1000];
        fill_region(&mut a, Dtype::F32, &f);
        let mut b = vec![0u8; 4 * 1000];
        fill_region(&mut b, Dtype::F32, &f);
        assert_eq!(a, b);
        assert_eq!(count_unlike(&a, Dtype::F32, &f), 0);
        let other = input(Init::Uniform { lo: -1.0, hi: 1.0 }, 10);
        assert!(count_unlike(&a, Dtype::F32, &other) > 990);
        a[4 * 17] ^= 1;
        assert_eq!(count_unlike(&a, Dtype::F32, &f), 1);
        let xs: Vec<f64> = (0..1000)
            .map(|i| as_f64(Dtype::F32, load(&b, Dtype::F32, i)))
            .collect();
        assert!(xs.iter().all(|x| (-1.0..1.0).contains(x)));
        let mean = xs.iter().sum::<f64>() / 1000.0;
        assert!(mean.abs() < 0.1, "{mean}");
    }

    #[test]
    fn normal_draws_have_their_moments_and_integers_their_range() {
        let a = input(Init::Normal { mean: 3.0, std: 2.0 }, 1).args();
        let xs: Vec<f64> = (0..20_000).map(|i| draw(&a, i)).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        assert!((mean - 3.0).abs() < 0.05, "{mean}");
        assert!((var.sqrt() - 2.0).abs() < 0.05, "{var}");
        assert!(xs.iter().all(|x| (x - 3.0).abs() <= 12.0));
        let u = input(Init::Uniform { lo: -2.5, hi: 3.5 }, 4).args();
        let ints: Vec<i64> = (0..5000).map(|i| draw_int(&u, i)).collect();
        assert!(ints.iter().all(|v| (-2..=3).contains(v)));
        for v in -2..=3 {
            assert!(ints.contains(&v), "{v} never drawn");
        }
    }

    #[test]
    fn narrow_types_round_to_nearest_even_and_sentinels_never_match_numbers() {
        // 1 + 2^-11 lies halfway between two halves: ties go to the even one.
        assert_eq!(f16::from_f32(1.0 + 2f32.powi(-11)).to_bits(), 0x3C00);
        assert_eq!(bf16::from_f32(1.0 + 2f32.powi(-8)).to_bits(), 0x3F80);
        for d in [Dtype::F32, Dtype::F16, Dtype::Bf16] {
            assert!(as_f64(d, sentinel_bits(d)).is_nan(), "{d:?}");
        }
        assert_eq!(
            as_f64(Dtype::I32, sentinel_bits(Dtype::I32)),
            f64::from(0xDEAD_BEEFu32 as i32)
        );
        assert_eq!(canary(0), 0xA5);
        assert_eq!(canary(1), 151 ^ 0xA5);
    }

    #[test]
    fn outputs_compare_with_tolerance_and_nan_rules() {
        let put = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let tol = Tolerance::default_for(Dtype::F32);
        let want = put(&[0.0, 1.0, 2.0, f32::NAN, f32::INFINITY, 5.0]);
        assert_eq!(compare_region(&want, &want, Dtype::F32, tol).mismatches, 0);
        let near = put(&[0.0, 1.0 + 5e-5, 2.0, f32::NAN, f32::INFINITY, 5.0]);
        let c = compare_region(&want, &near, Dtype::F32, tol);
        assert_eq!(c.mismatches, 0);
        assert!(c.worst > 0.0);
        let bad = put(&[0.0, 1.0, 2.01, 7.0, f32::NEG_INFINITY, 5.0]);
        let c = compare_region(&want, &bad, Dtype::F32, tol);
        assert_eq!(c.mismatches, 3);
        assert_eq!(c.first, Some(2));
        let loose = Tolerance { atol: 0.1, rtol: 0.0 };
        assert_eq!(
            compare_region(
                &want,
                &put(&[0.05, 1.0, 2.0, f32::NAN, f32::INFINITY, 5.0]),
                Dtype::F32,
                loose
            )
            .mismatches,
            0
        );
        // An unwritten output (still the sentinel) never matches a number.
        let mut fresh = vec![0u8; want.len()];
        fill_region(&mut fresh, Dtype::F32, &Fill::Sentinel);
        assert_eq!(compare_region(&want, &fresh, Dtype::F32, tol).mismatches, 5);
        // The form on bits (the tolerance sanity's) agrees with the count.
        for got in [&want, &near, &bad, &fresh] {
            let mut worst = 0.0;
            let all_ok = (0..want.len() / 4).all(|i| {
                bits_ok(
                    load(&want, Dtype::F32, i),
                    load(got, Dtype::F32, i),
                    Dtype::F32,
                    tol,
                    &mut worst,
                )
            });
            assert_eq!(
                all_ok,
                compare_region(&want, got, Dtype::F32, tol).mismatches == 0
            );
        }
    }

    use proptest::prelude::*;

    fn any_family() -> impl Strategy<Value = Family> {
        proptest::sample::select(Family::ALL.to_vec())
    }

    fn any_dtype() -> impl Strategy<Value = Dtype> {
        proptest::sample::select(vec![
            Dtype::F32,
            Dtype::F16,
            Dtype::Bf16,
            Dtype::I32,
            Dtype::U32,
            Dtype::I64,
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Every family draws inside the declared domain: each element, read back as a number,
        /// lies between the domain's ends as the buffer's type rounds them (integers: between
        /// the domain's integers), except the special values the task declares legal.
        #[test]
        fn every_family_draws_inside_the_declared_domain(
            dtype in any_dtype(),
            family in any_family(),
            lo in -1.0e4f64..1.0e4,
            width in prop_oneof![Just(0.0f64), 1.0e-3f64..2.0e4],
            normal in any::<bool>(),
            key in any::<u64>(),
            row in 1u64..300,
            special in 0i32..16,
        ) {
            let init = if normal {
                Init::Normal { mean: lo, std: width / 12.0 }
            } else {
                Init::Uniform { lo, hi: lo + width }
            };
            let fill = Fill::Input { init, key, family, special, row };
            let a = fill.args();
            let (dlo, dhi) = domain_of(a.kind, a.a, a.b);
            let float = is_float(dtype);
            let (min, max) = if float {
                let round = |v: f64| as_f64(dtype, from_f64(dtype, v));
                (round(dlo), round(dhi))
            } else {
                (dlo.floor(), dhi.ceil())
            };
            prop_assume!(family != Family::Signs || (dlo < 0.0 && dhi > 0.0));
            let (min, max) = if dtype == Dtype::U32 { (min.max(0.0), max.max(0.0)) } else { (min, max) };
            for i in 0..2000u64 {
                let bits = fill_bits(dtype, &a, i);
                let is_special = float
                    && family == Family::Specials
                    && special != 0
                    && special_bits(dtype, &a, i) == Some(bits);
                if is_special {
                    continue;
                }
                let v = as_f64(dtype, bits);
                prop_assert!(v >= min && v <= max,
                    "{family} {dtype:?} element {i}: {v} outside [{min}, {max}] (domain [{dlo}, {dhi}])");
            }
        }
    }

    #[test]
    fn families_differ_from_the_typical_law_as_they_say() {
        let args = |family, row| {
            Fill::Input {
                init: Init::Uniform {
                    lo: -100.0,
                    hi: 100.0,
                },
                key: 7,
                family,
                special: Special::mask(&[Special::Nan, Special::Inf]),
                row,
            }
            .args()
        };
        let values = |family, row| -> Vec<f64> {
            (0..1024)
                .map(|i| as_f64(Dtype::F32, fill_bits(Dtype::F32, &args(family, row), i)))
                .collect()
        };
        let spread = |v: &[f64]| {
            let (lo, hi) = v
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(*x), b.max(*x)));
            hi - lo
        };
        // Top and bottom: a window of at most 2^-6 of the domain at its end.
        let top = values(Family::Top, 64);
        assert!(top.iter().all(|v| *v >= 100.0 - 200.0 / 64.0), "{:?}", &top[..4]);
        let bottom = values(Family::Bottom, 64);
        assert!(bottom.iter().all(|v| *v <= -100.0 + 200.0 / 64.0));
        // A window per row: each row of 64 is narrow, the rows lie apart.
        let w = values(Family::RowWindow, 64);
        assert!(w.chunks(64).all(|r| spread(r) <= 200.0 / 64.0));
        assert!(spread(&w) > 20.0, "{}", spread(&w));
        // Specials: about one element in eight is NaN or infinite.
        let s = values(Family::Specials, 64);
        let odd = s.iter().filter(|v| !v.is_finite()).count();
        assert!((64..=200).contains(&odd), "{odd}");
        // Magnitudes: many binary orders below the domain's edge.
        let m = values(Family::Magnitudes, 64);
        assert!(m.iter().any(|v| v.abs() < 1e-3) && m.iter().any(|v| v.abs() > 50.0));
        // Constant runs: far fewer distinct values than elements.
        let mut c = values(Family::ConstantRuns, 64);
        c.sort_by(f64::total_cmp);
        c.dedup();
        assert!(c.len() < 600, "{}", c.len());
    }
}

//! Host-side data of a job: the buffers' layout for one problem size, their host images (guard
//! band, data, guard band) generated from a seed, and the checks made on what comes back from
//! the device: guard bands intact, inputs unchanged, outputs within tolerance of the reference.
//!
//! Every buffer lives in its own allocation of `GUARD_BYTES + data + GUARD_BYTES`. Guard bands
//! hold a canary pattern; outputs start as a sentinel (a quiet NaN for floats, `0xDEADBEEF` for
//! integers), so an element the kernel never wrote never matches a finite reference. Images are
//! pageable host memory; nothing a kernel can reach is pinned or mapped.

use crate::half::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};
use crate::rng::SplitMix64;
use aorlta_record::kernel::expr::{eval, eval_count};
use aorlta_record::kernel::harness::Mismatch;
use aorlta_record::kernel::{BufferSpec, Dtype, Init, KernelTask, Role, Tolerance};
use std::collections::BTreeMap;

/// Bytes of canary on each side of every buffer.
pub const GUARD_BYTES: usize = 64 * 1024;

/// Bytes per element.
pub fn elem_size(d: Dtype) -> usize {
    match d {
        Dtype::F32 | Dtype::I32 | Dtype::U32 => 4,
        Dtype::F16 | Dtype::Bf16 => 2,
        Dtype::I64 => 8,
    }
}

/// The sentinel an output element holds before the kernel writes it.
pub fn sentinel(d: Dtype) -> Vec<u8> {
    match d {
        Dtype::F32 => 0x7FC0_DEADu32.to_le_bytes().to_vec(),
        Dtype::F16 => 0x7E5Au16.to_le_bytes().to_vec(),
        Dtype::Bf16 => 0x7FDAu16.to_le_bytes().to_vec(),
        Dtype::I32 | Dtype::U32 => 0xDEAD_BEEFu32.to_le_bytes().to_vec(),
        Dtype::I64 => 0xDEAD_BEEF_DEAD_BEEFu64.to_le_bytes().to_vec(),
    }
}

/// The canary byte at offset `i` of a guard band.
pub fn canary(i: usize) -> u8 {
    (i.wrapping_mul(151) as u8) ^ 0xA5
}

/// One buffer's place in a job.
#[derive(Debug, Clone, PartialEq)]
pub struct BufLayout {
    /// The buffer's name (its parameter name).
    pub name: String,
    /// Element type.
    pub dtype: Dtype,
    /// Role.
    pub role: Role,
    /// Elements.
    pub len: u64,
    /// Data bytes.
    pub data_bytes: usize,
    /// How inputs are generated.
    pub init: Init,
}

impl BufLayout {
    /// Bytes of the whole allocation, guards included.
    pub fn total_bytes(&self) -> usize {
        self.data_bytes + 2 * GUARD_BYTES
    }

    /// True when the buffer is compared as an output.
    pub fn is_output(&self) -> bool {
        matches!(self.role, Role::Out | Role::Inout)
    }
}

/// Every buffer of a task at one problem size.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The size's variables.
    pub vars: BTreeMap<String, i64>,
    /// The buffers, in task order.
    pub bufs: Vec<BufLayout>,
}

impl Layout {
    /// The layout of `task` at size `size`; the error names the task and what is wrong.
    pub fn new(task: &KernelTask, size: usize) -> Result<Self, String> {
        let vars = task
            .sizes
            .get(size)
            .ok_or_else(|| format!("task {}: no size {size} (it has {})", task.id, task.sizes.len()))?
            .clone();
        let mut bufs = Vec::with_capacity(task.buffers.len());
        for b in &task.buffers {
            bufs.push(buf_layout(task, b, &vars)?);
        }
        Ok(Layout { vars, bufs })
    }

    /// Total bytes of every allocation.
    pub fn total_bytes(&self) -> usize {
        self.bufs.iter().map(BufLayout::total_bytes).sum()
    }

    /// Evaluates an expression of this size.
    pub fn eval(&self, expr: &str) -> Result<i64, String> {
        eval(expr, &self.vars).map_err(|e| e.to_string())
    }
}

fn buf_layout(task: &KernelTask, b: &BufferSpec, vars: &BTreeMap<String, i64>) -> Result<BufLayout, String> {
    let len = eval_count(&b.len, vars).map_err(|e| format!("task {}: buffer `{}`: {e}", task.id, b.name))?;
    let data_bytes = usize::try_from(len)
        .ok()
        .and_then(|l| l.checked_mul(elem_size(b.dtype)))
        .filter(|n| *n <= (1usize << 40))
        .ok_or_else(|| {
            format!(
                "task {}: buffer `{}` of {len} elements is too large",
                task.id, b.name
            )
        })?;
    Ok(BufLayout {
        name: b.name.clone(),
        dtype: b.dtype,
        role: b.role,
        len,
        data_bytes,
        init: b.init.clone(),
    })
}

/// Host images of every buffer for one input seed: `[guard | data | guard]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Images(pub Vec<Vec<u8>>);

/// The images for `seed`: inputs generated, outputs filled with the sentinel, guards with the
/// canary.
pub fn make_images(layout: &Layout, seed: u64) -> Images {
    let imgs = layout
        .bufs
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let mut img = vec![0u8; b.total_bytes()];
            for (k, byte) in img[..GUARD_BYTES].iter_mut().enumerate() {
                *byte = canary(k);
            }
            let tail = GUARD_BYTES + b.data_bytes;
            for (k, byte) in img[tail..].iter_mut().enumerate() {
                *byte = canary(k + GUARD_BYTES);
            }
            let data = &mut img[GUARD_BYTES..tail];
            match b.role {
                Role::Out => fill_sentinel(data, b.dtype),
                Role::In | Role::Inout => {
                    generate_parallel(data, b, seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9))
                }
            }
            img
        })
        .collect();
    Images(imgs)
}

/// Draws fresh inputs for `seed` into existing images (made by [`make_images`] for the same
/// layout), leaving guards and output sentinels as they are: the same bytes as
/// `make_images(layout, seed)`, without allocating.
pub fn refill_inputs(layout: &Layout, seed: u64, imgs: &mut Images) {
    for (i, (b, img)) in layout.bufs.iter().zip(imgs.0.iter_mut()).enumerate() {
        if matches!(b.role, Role::In | Role::Inout) {
            let data = &mut img[GUARD_BYTES..GUARD_BYTES + b.data_bytes];
            generate_parallel(data, b, seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9));
        }
    }
}

/// True when two byte slices are equal, compared in parallel for large ones.
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    const PART: usize = 8 << 20;
    if a.len() <= PART {
        return a == b;
    }
    let threads = host_threads();
    let per = a.len().div_ceil(threads);
    std::thread::scope(|s| {
        let hs: Vec<_> = a
            .chunks(per)
            .zip(b.chunks(per))
            .map(|(x, y)| s.spawn(move || x == y))
            .collect();
        hs.into_iter().all(|h| h.join().unwrap_or(false))
    })
}

/// Fills a data region with the sentinel.
pub fn fill_sentinel(data: &mut [u8], dtype: Dtype) {
    let s = sentinel(dtype);
    for chunk in data.chunks_exact_mut(s.len()) {
        chunk.copy_from_slice(&s);
    }
}

/// Elements per generation chunk; each chunk has its own stream, so the result does not depend
/// on how many threads generate it.
const CHUNK: usize = 1 << 16;

/// Threads for host-side work on large buffers.
pub fn host_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(16)
}

fn generate_parallel(data: &mut [u8], b: &BufLayout, seed: u64) {
    let n = elem_size(b.dtype);
    let chunks: Vec<(usize, &mut [u8])> = data.chunks_mut(CHUNK * n).enumerate().collect();
    let threads = host_threads().min(chunks.len()).max(1);
    if threads == 1 {
        for (k, c) in chunks {
            generate(c, b, SplitMix64::stream(seed, k as u64));
        }
        return;
    }
    let mut groups: Vec<Vec<(usize, &mut [u8])>> = (0..threads).map(|_| Vec::new()).collect();
    for (j, c) in chunks.into_iter().enumerate() {
        groups[j % threads].push(c);
    }
    std::thread::scope(|s| {
        for g in groups {
            s.spawn(move || {
                for (k, c) in g {
                    generate(c, b, SplitMix64::stream(seed, k as u64));
                }
            });
        }
    });
}

fn generate(data: &mut [u8], b: &BufLayout, mut g: SplitMix64) {
    let n = elem_size(b.dtype);
    let draw = |g: &mut SplitMix64| -> f64 {
        match b.init {
            Init::Uniform { lo, hi } => lo + (hi - lo) * g.next_f64(),
            Init::Normal { mean, std } => mean + std * g.next_normal(),
        }
    };
    let int_draw = |g: &mut SplitMix64| -> i64 {
        match b.init {
            Init::Uniform { lo, hi } => {
                let (lo, hi) = (lo.ceil() as i64, hi.floor() as i64);
                if hi <= lo {
                    return lo;
                }
                let span = (hi - lo) as u64 + 1;
                lo + (g.next_u64() % span) as i64
            }
            Init::Normal { mean, std } => (mean + std * g.next_normal()).round() as i64,
        }
    };
    for chunk in data.chunks_exact_mut(n) {
        match b.dtype {
            Dtype::F32 => chunk.copy_from_slice(&(draw(&mut g) as f32).to_le_bytes()),
            Dtype::F16 => chunk.copy_from_slice(&f32_to_f16(draw(&mut g) as f32).to_le_bytes()),
            Dtype::Bf16 => chunk.copy_from_slice(&f32_to_bf16(draw(&mut g) as f32).to_le_bytes()),
            Dtype::I32 => chunk.copy_from_slice(&(int_draw(&mut g) as i32).to_le_bytes()),
            Dtype::U32 => chunk.copy_from_slice(&(int_draw(&mut g).max(0) as u32).to_le_bytes()),
            Dtype::I64 => chunk.copy_from_slice(&int_draw(&mut g).to_le_bytes()),
        }
    }
}

/// The data region of an image.
pub fn data_of<'a>(img: &'a [u8], b: &BufLayout) -> &'a [u8] {
    &img[GUARD_BYTES..GUARD_BYTES + b.data_bytes]
}

/// True when both guard bands of an image read back intact.
pub fn guards_intact(img: &[u8], b: &BufLayout) -> bool {
    let tail = GUARD_BYTES + b.data_bytes;
    img[..GUARD_BYTES]
        .iter()
        .enumerate()
        .all(|(k, v)| *v == canary(k))
        && img[tail..]
            .iter()
            .enumerate()
            .all(|(k, v)| *v == canary(k + GUARD_BYTES))
}

/// One element as a number (integers exactly up to 2^53).
pub fn element(data: &[u8], dtype: Dtype, i: usize) -> f64 {
    let n = elem_size(dtype);
    let c = &data[i * n..(i + 1) * n];
    match dtype {
        Dtype::F32 => f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
        Dtype::F16 => f16_to_f32(u16::from_le_bytes([c[0], c[1]])) as f64,
        Dtype::Bf16 => bf16_to_f32(u16::from_le_bytes([c[0], c[1]])) as f64,
        Dtype::I32 => i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
        Dtype::U32 => u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
        Dtype::I64 => i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) as f64,
    }
}

/// How a candidate's outputs compare with the reference's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Compare {
    /// Elements outside tolerance.
    pub mismatches: u64,
    /// Largest absolute difference over finite pairs.
    pub max_abs_err: f64,
    /// The first mismatch.
    pub first: Option<Mismatch>,
}

/// Compares every output buffer's data region: `|c - r| <= atol + rtol * |r|`, NaN only where
/// the reference has NaN, infinities equal.
pub fn compare_outputs(
    layout: &Layout,
    tolerance: Option<Tolerance>,
    expected: &Images,
    got: &Images,
) -> Compare {
    let mut out = Compare::default();
    for (k, b) in layout.bufs.iter().enumerate() {
        if !b.is_output() {
            continue;
        }
        let tol = tolerance.unwrap_or_else(|| Tolerance::default_for(b.dtype));
        let (e, g) = (data_of(&expected.0[k], b), data_of(&got.0[k], b));
        if e == g {
            continue;
        }
        let float = matches!(b.dtype, Dtype::F32 | Dtype::F16 | Dtype::Bf16);
        let len = b.len as usize;
        let threads = host_threads().min(len.div_ceil(CHUNK)).max(1);
        let per = len.div_ceil(threads);
        let parts: Vec<Compare> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let (lo, hi) = (t * per, ((t + 1) * per).min(len));
                    s.spawn(move || compare_range(b, tol, float, e, g, lo, hi))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        for p in parts {
            out.mismatches += p.mismatches;
            out.max_abs_err = out.max_abs_err.max(p.max_abs_err);
            if out.first.is_none() {
                out.first = p.first;
            }
        }
    }
    out
}

fn compare_range(
    b: &BufLayout,
    tol: Tolerance,
    float: bool,
    e: &[u8],
    g: &[u8],
    lo: usize,
    hi: usize,
) -> Compare {
    let mut out = Compare::default();
    for i in lo..hi {
        let (r, c) = (element(e, b.dtype, i), element(g, b.dtype, i));
        let ok = if float {
            match (r.is_nan(), c.is_nan()) {
                (true, true) => true,
                (false, false) if r.is_infinite() || c.is_infinite() => r == c,
                (false, false) => {
                    let d = (c - r).abs();
                    out.max_abs_err = out.max_abs_err.max(d);
                    d <= tol.atol + tol.rtol * r.abs()
                }
                _ => false,
            }
        } else {
            let d = (c - r).abs();
            out.max_abs_err = out.max_abs_err.max(d);
            d <= tol.atol
        };
        if !ok {
            out.mismatches += 1;
            if out.first.is_none() {
                out.first = Some(Mismatch {
                    buffer: b.name.clone(),
                    index: i as u64,
                    expected: r.to_string(),
                    got: c.to_string(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task() -> KernelTask {
        serde_json::from_value(serde_json::json!({
            "id": "vector_add",
            "prompt": "p",
            "signature": "void vector_add(const float* a, const float* b, float* c, int n)",
            "reference": "r.cu",
            "buffers": [
                {"name": "a", "dtype": "f32", "len": "n", "role": "in"},
                {"name": "b", "dtype": "f32", "len": "n", "role": "in", "init": {"kind": "normal", "mean": 0.0, "std": 2.0}},
                {"name": "c", "dtype": "f32", "len": "n", "role": "out"}
            ],
            "scalars": {"n": "n"},
            "sizes": [{"n": 1000}, {"n": 7}],
            "grid": ["ceil_div(n, 256)", "1", "1"],
            "block": ["256", "1", "1"]
        }))
        .unwrap()
    }

    #[test]
    fn images_have_guards_inputs_and_sentinels() {
        let l = Layout::new(&task(), 1).unwrap();
        assert_eq!(l.bufs[0].data_bytes, 28);
        let imgs = make_images(&l, 9);
        assert_eq!(imgs, make_images(&l, 9));
        assert_ne!(imgs.0[0], make_images(&l, 10).0[0]);
        assert_ne!(data_of(&imgs.0[0], &l.bufs[0]), data_of(&imgs.0[1], &l.bufs[1]));
        for (img, b) in imgs.0.iter().zip(&l.bufs) {
            assert!(guards_intact(img, b));
        }
        let c = data_of(&imgs.0[2], &l.bufs[2]);
        assert!((0..7).all(|i| element(c, Dtype::F32, i).is_nan()));
        let a = data_of(&imgs.0[0], &l.bufs[0]);
        assert!((0..7).all(|i| (-1.0..1.0).contains(&element(a, Dtype::F32, i))));
    }

    #[test]
    fn refilling_inputs_matches_fresh_images() {
        let l = Layout::new(&task(), 0).unwrap();
        let mut imgs = make_images(&l, 1);
        refill_inputs(&l, 2, &mut imgs);
        assert_eq!(imgs, make_images(&l, 2));
        let big = vec![7u8; 20 << 20];
        let mut other = big.clone();
        assert!(same_bytes(&big, &other));
        other[(20 << 20) - 1] = 0;
        assert!(!same_bytes(&big, &other));
    }

    #[test]
    fn a_byte_past_the_end_breaks_the_guard() {
        let l = Layout::new(&task(), 1).unwrap();
        let mut imgs = make_images(&l, 1);
        imgs.0[2][GUARD_BYTES + 28] ^= 1;
        assert!(!guards_intact(&imgs.0[2], &l.bufs[2]));
        assert!(guards_intact(&imgs.0[1], &l.bufs[1]));
    }

    #[test]
    fn outputs_compare_with_tolerance_and_nan_rules() {
        let l = Layout::new(&task(), 1).unwrap();
        let mut want = make_images(&l, 1);
        let put = |imgs: &mut Images, i: usize, v: f32| {
            let o = GUARD_BYTES + 4 * i;
            imgs.0[2][o..o + 4].copy_from_slice(&v.to_le_bytes());
        };
        for i in 0..7 {
            put(&mut want, i, i as f32);
        }
        let mut got = want.clone();
        assert_eq!(compare_outputs(&l, None, &want, &got).mismatches, 0);
        put(&mut got, 3, 3.0 + 5e-5);
        assert_eq!(compare_outputs(&l, None, &want, &got).mismatches, 0);
        put(&mut got, 4, 4.01);
        let c = compare_outputs(&l, None, &want, &got);
        assert_eq!(c.mismatches, 1);
        assert_eq!(c.first.unwrap().index, 4);
        put(&mut got, 4, f32::NAN);
        assert_eq!(compare_outputs(&l, None, &want, &got).mismatches, 1);
        put(&mut want, 4, f32::NAN);
        assert_eq!(compare_outputs(&l, None, &want, &got).mismatches, 0);
        let loose = Tolerance { atol: 0.1, rtol: 0.0 };
        put(&mut got, 5, 5.05);
        assert_eq!(compare_outputs(&l, Some(loose), &want, &got).mismatches, 0);
        // An unwritten output (still the sentinel) never matches.
        let fresh = make_images(&l, 1);
        assert_eq!(compare_outputs(&l, None, &want, &fresh).mismatches, 6);
    }
}

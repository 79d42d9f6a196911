//! Composing a module: one to five operators drawn from the configured families, over a matrix
//! (`batch_size x dim`) or an image (`batch_size x channels x height x width`), written as a
//! problem file in KernelBench's format. Every dimension but the batch is fixed by
//! `get_init_inputs` (a size the module is built with), so the importer's smaller correctness
//! sizes shrink only the batch and a drawn index stays within the dimension it indexes.
//!
//! What each operator needs is tracked as the module grows: a reduction leaves a dimension of
//! one (no layer norm, softmax or index over it after that), a linear layer changes the feature
//! count, a convolution or a pooling the image's sides; an operator that does not fit is
//! replaced by an element-wise one. A loss ends the module.

use super::config::{Dt, Family, GeneratorConfig};
use rand::Rng;
use rand_pcg::Pcg64;

/// One generated module.
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    /// The operators' short names, in order (`gelu`, `sum1`, `softmax`).
    pub ops: Vec<String>,
    /// Each operator's family, in order.
    pub families: Vec<Family>,
    /// The element type.
    pub dtype: Dt,
    /// The shape class's name.
    pub shape: String,
    /// The problem file's text.
    pub text: String,
    /// When every operator is element-wise: each operator's steps as CUDA expressions of the
    /// float `v`, in order (PyTorch rounds to the element type after each step), for the
    /// candidates of a generated pool ([`super::pool`]).
    pub elementwise: Option<Vec<Vec<String>>>,
}

/// Draws an index by weight; `None` when every weight is zero.
fn pick<R: Rng>(rng: &mut R, weights: &[f64]) -> Option<usize> {
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        return None;
    }
    let mut x = rng.random::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return Some(i);
        }
        x -= w;
    }
    weights.iter().rposition(|w| *w > 0.0)
}

fn one<'a, T, R: Rng>(rng: &mut R, items: &'a [T]) -> &'a T {
    &items[rng.random_range(0..items.len())]
}

/// A dimension's text in the module: a name bound in `__init__`/`get_inputs`, or a number.
#[derive(Debug, Clone, PartialEq)]
enum Dim {
    Named(&'static str, u64),
    Lit(u64),
}

impl Dim {
    fn text(&self) -> String {
        match self {
            Dim::Named(n, _) => n.to_string(),
            Dim::Lit(v) => v.to_string(),
        }
    }
    fn value(&self) -> u64 {
        match self {
            Dim::Named(_, v) | Dim::Lit(v) => *v,
        }
    }
}

/// The module as it grows.
struct Builder {
    image: bool,
    dtype: Dt,
    /// The batch dimension is still there (no reduction over it).
    batched: bool,
    /// Matrices: the feature count. Images: the channel count.
    cols: Dim,
    /// Images: the current height and width.
    hw: (u64, u64),
    init: Vec<String>,
    forward: Vec<String>,
    /// Extra forward inputs: (name, the draw in `get_inputs`).
    inputs: Vec<(String, String)>,
    ops: Vec<String>,
    families: Vec<Family>,
    /// Each element-wise operator's CUDA steps; `None` for an operator of another family.
    cuda: Vec<Option<Vec<String>>>,
    done: bool,
}

impl Builder {
    fn rows(&self) -> &'static str {
        if self.batched { "batch_size" } else { "1" }
    }

    fn dt_arg(&self) -> String {
        match self.dtype {
            Dt::F32 => String::new(),
            d => format!(", dtype={}", d.torch()),
        }
    }

    fn push(&mut self, family: Family, name: impl Into<String>, line: String) {
        self.push_with_cuda(family, name, line, None);
    }

    /// [`Builder::push`] of an operator with its CUDA steps (an element-wise one).
    fn push_with_cuda(
        &mut self,
        family: Family,
        name: impl Into<String>,
        line: String,
        cuda: Option<Vec<String>>,
    ) {
        self.ops.push(name.into());
        self.families.push(family);
        self.forward.push(line);
        self.cuda.push(cuda);
    }

    fn n(&self) -> usize {
        self.ops.len()
    }

    /// An element-wise operator (always fits).
    fn elementwise<R: Rng>(&mut self, rng: &mut R) {
        let k = rng.random_range(0..15);
        // The module's expression, and the same as CUDA steps over the float `v`.
        let one_step = |c: &str| vec![c.to_string()];
        let (name, expr, cuda): (String, String, Vec<String>) = match k {
            0 => (
                "relu".into(),
                "torch.relu(x)".into(),
                one_step("v < 0.f ? 0.f : v"),
            ),
            1 => (
                "sigmoid".into(),
                "torch.sigmoid(x)".into(),
                one_step("1.f / (1.f + expf(-v))"),
            ),
            2 => ("tanh".into(), "torch.tanh(x)".into(), one_step("tanhf(v)")),
            3 => (
                "gelu".into(),
                "F.gelu(x)".into(),
                one_step("0.5f * v * (1.f + erff(v * 0.70710678118654752f))"),
            ),
            4 => (
                "silu".into(),
                "F.silu(x)".into(),
                one_step("v / (1.f + expf(-v))"),
            ),
            5 => (
                "softplus".into(),
                "F.softplus(x)".into(),
                one_step("v > 20.f ? v : log1pf(expf(v))"),
            ),
            6 => (
                "elu".into(),
                "F.elu(x)".into(),
                one_step("v > 0.f ? v : expm1f(v)"),
            ),
            7 => {
                let s = one(rng, &["0.01", "0.1", "0.2"]);
                (
                    "leakyrelu".into(),
                    format!("F.leaky_relu(x, {s})"),
                    one_step(&format!("v > 0.f ? v : v * {s}f")),
                )
            }
            8 => (
                "hardtanh".into(),
                "F.hardtanh(x, -1.0, 1.0)".into(),
                one_step("fminf(fmaxf(v, -1.f), 1.f)"),
            ),
            9 => {
                let a = one(rng, &["0.5", "2.0", "-1.5", "3.0"]);
                let b = one(rng, &["0.25", "-1.0", "0.5"]);
                (
                    "scale".into(),
                    format!("x * {a} + {b}"),
                    vec![format!("__fmul_rn(v, {a}f)"), format!("__fadd_rn(v, {b}f)")],
                )
            }
            10 => ("abs".into(), "torch.abs(x)".into(), one_step("fabsf(v)")),
            11 => ("square".into(), "x * x".into(), one_step("v * v")),
            12 => (
                "clamp".into(),
                "torch.clamp(x, min=-0.5, max=0.5)".into(),
                one_step("fminf(fmaxf(v, -0.5f), 0.5f)"),
            ),
            13 => (
                "mish".into(),
                "F.mish(x)".into(),
                one_step("v * tanhf(v > 20.f ? v : log1pf(expf(v)))"),
            ),
            _ => (
                "hardswish".into(),
                "F.hardswish(x)".into(),
                one_step("v * fminf(fmaxf(v + 3.f, 0.f), 6.f) / 6.f"),
            ),
        };
        self.push_with_cuda(Family::Elementwise, name, format!("x = {expr}"), Some(cuda));
    }

    fn reduction<R: Rng>(&mut self, rng: &mut R) {
        let f = *one(rng, &["sum", "mean", "amax", "amin", "var"]);
        let (dim, tag) = if self.image {
            *one(rng, &[("1", "c"), ("(2, 3)", "hw"), ("3", "w")])
        } else if self.batched && rng.random_bool(0.3) {
            ("0", "0")
        } else {
            ("1", "1")
        };
        let call = if f == "var" {
            format!("torch.var(x, dim={dim}, keepdim=True, unbiased=False)")
        } else {
            format!("torch.{f}(x, dim={dim}, keepdim=True)")
        };
        match (self.image, tag) {
            (false, "0") => self.batched = false,
            (false, _) => self.cols = Dim::Lit(1),
            (true, "c") => self.cols = Dim::Lit(1),
            (true, "hw") => self.hw = (1, 1),
            _ => self.hw.1 = 1,
        }
        self.push(Family::Reduction, format!("{f}{tag}"), format!("x = {call}"));
    }

    fn norm<R: Rng>(&mut self, rng: &mut R) {
        let c = self.cols.value();
        if c < 2 {
            return self.elementwise(rng);
        }
        let k = self.n();
        if self.image {
            let groups: Vec<u64> = [1u64, 2, 4, 8]
                .into_iter()
                .filter(|g| c.is_multiple_of(*g))
                .collect();
            if rng.random_bool(0.5) {
                let g = *one(rng, &groups);
                self.init
                    .push(format!("self.norm{k} = nn.GroupNorm({g}, {})", self.cols.text()));
                self.push(
                    Family::Norm,
                    format!("groupnorm{g}"),
                    format!("x = self.norm{k}(x)"),
                );
            } else {
                self.push(Family::Norm, "l2norm", "x = F.normalize(x, dim=1)".into());
            }
            return;
        }
        match rng.random_range(0..3) {
            0 => {
                self.init
                    .push(format!("self.norm{k} = nn.LayerNorm({})", self.cols.text()));
                self.push(Family::Norm, "layernorm", format!("x = self.norm{k}(x)"));
            }
            1 => self.push(
                Family::Norm,
                "rmsnorm",
                "x = x * torch.rsqrt(torch.mean(x * x, dim=1, keepdim=True) + 1e-5)".into(),
            ),
            _ => self.push(Family::Norm, "l2norm", "x = F.normalize(x, dim=1)".into()),
        }
    }

    fn softmax<R: Rng>(&mut self, rng: &mut R) {
        if self.cols.value() < 2 {
            return self.elementwise(rng);
        }
        match rng.random_range(0..4) {
            0 if !self.image && self.batched => {
                self.push(Family::Softmax, "softmax0", "x = torch.softmax(x, dim=0)".into())
            }
            0 | 1 => self.push(Family::Softmax, "softmax", "x = torch.softmax(x, dim=1)".into()),
            2 => self.push(
                Family::Softmax,
                "logsoftmax",
                "x = torch.log_softmax(x, dim=1)".into(),
            ),
            _ => {
                self.cols = Dim::Lit(1);
                self.push(
                    Family::Softmax,
                    "logsumexp",
                    "x = torch.logsumexp(x, dim=1, keepdim=True)".into(),
                )
            }
        }
    }

    fn matmul<R: Rng>(&mut self, rng: &mut R) {
        if self.image || self.cols.value() < 2 {
            return self.elementwise(rng);
        }
        let k = self.n();
        let m = *one(rng, &[64u64, 256, 512, 1000, 1024, 2048]);
        if rng.random_bool(0.7) {
            let bias = if rng.random_bool(0.7) { "" } else { ", bias=False" };
            self.init
                .push(format!("self.fc{k} = nn.Linear({}, {m}{bias})", self.cols.text()));
            self.push(Family::Matmul, format!("linear{m}"), format!("x = self.fc{k}(x)"));
        } else {
            self.init.push(format!(
                "self.w{k} = nn.Parameter(torch.randn({}, {m}) * 0.05)",
                self.cols.text()
            ));
            self.push(Family::Matmul, format!("matmul{m}"), format!("x = x @ self.w{k}"));
        }
        self.cols = Dim::Lit(m);
    }

    fn conv<R: Rng>(&mut self, rng: &mut R) {
        if !self.image {
            return self.elementwise(rng);
        }
        let k = self.n();
        let (h, w) = self.hw;
        if rng.random_bool(0.6) {
            let ks = *one(rng, &[1u64, 3, 5]);
            let stride = *one(rng, &[1u64, 1, 2]);
            let pad = if rng.random_bool(0.7) { ks / 2 } else { 0 };
            if h + 2 * pad < ks || w + 2 * pad < ks {
                return self.elementwise(rng);
            }
            let c2 = *one(rng, &[8u64, 16, 32, 64]);
            self.init.push(format!(
                "self.conv{k} = nn.Conv2d({}, {c2}, {ks}, stride={stride}, padding={pad})",
                self.cols.text()
            ));
            self.hw = ((h + 2 * pad - ks) / stride + 1, (w + 2 * pad - ks) / stride + 1);
            self.cols = Dim::Lit(c2);
            self.push(
                Family::Conv,
                format!("conv{ks}s{stride}"),
                format!("x = self.conv{k}(x)"),
            );
        } else {
            if h < 2 || w < 2 {
                return self.elementwise(rng);
            }
            match rng.random_range(0..3) {
                0 => {
                    self.hw = (h / 2, w / 2);
                    self.push(Family::Conv, "maxpool2", "x = F.max_pool2d(x, 2)".into())
                }
                1 => {
                    self.hw = (h / 2, w / 2);
                    self.push(Family::Conv, "avgpool2", "x = F.avg_pool2d(x, 2)".into())
                }
                _ => self.push(
                    Family::Conv,
                    "avgpool3",
                    "x = F.avg_pool2d(x, 3, stride=1, padding=1)".into(),
                ),
            }
        }
    }

    fn gather<R: Rng>(&mut self, rng: &mut R) {
        let c = self.cols.value();
        if self.image || !self.batched || c < 2 {
            return self.elementwise(rng);
        }
        let k = self.n();
        let idx = format!("idx{k}");
        let cols = self.cols.text();
        match rng.random_range(0..3) {
            0 => {
                let m = *one(rng, &[c, 128, 512]);
                self.inputs.push((
                    idx.clone(),
                    format!("torch.randint(0, {cols}, (batch_size, {m}))"),
                ));
                self.cols = Dim::Lit(m);
                self.push(Family::Gather, "gather", format!("x = torch.gather(x, 1, {idx})"));
            }
            1 => {
                let m = *one(rng, &[c, 256, 1024]);
                self.inputs
                    .push((idx.clone(), format!("torch.randint(0, {cols}, ({m},))")));
                self.cols = Dim::Lit(m);
                self.push(
                    Family::Gather,
                    "indexselect",
                    format!("x = torch.index_select(x, 1, {idx})"),
                );
            }
            _ => {
                self.inputs.push((
                    idx.clone(),
                    format!("torch.randint(0, {cols}, (batch_size, {cols}))"),
                ));
                self.push(
                    Family::Gather,
                    "scatteradd",
                    format!("x = torch.zeros_like(x).scatter_add(1, {idx}, x)"),
                );
            }
        }
    }

    fn scan<R: Rng>(&mut self, rng: &mut R) {
        if self.image || self.cols.value() < 2 {
            return self.elementwise(rng);
        }
        match rng.random_range(0..4) {
            0 if self.batched => self.push(Family::Scan, "cumsum0", "x = torch.cumsum(x, dim=0)".into()),
            0 | 1 => self.push(Family::Scan, "cumsum", "x = torch.cumsum(x, dim=1)".into()),
            2 => self.push(
                Family::Scan,
                "logcumsumexp",
                "x = torch.logcumsumexp(x, dim=1)".into(),
            ),
            _ => self.push(Family::Scan, "cummax", "x = torch.cummax(x, dim=1).values".into()),
        }
    }

    fn loss<R: Rng>(&mut self, rng: &mut R) {
        if self.image || self.cols.value() < 2 {
            return self.elementwise(rng);
        }
        let (rows, cols, dt) = (self.rows(), self.cols.text(), self.dt_arg());
        let target = format!("torch.randn({rows}, {cols}{dt})");
        let k = rng.random_range(0..5);
        let (name, line) = match k {
            0 => ("mse", "x = F.mse_loss(x, target)"),
            1 => ("mse_none", "x = F.mse_loss(x, target, reduction=\"none\")"),
            2 => ("smoothl1", "x = F.smooth_l1_loss(x, target)"),
            3 => (
                "kldiv",
                "x = F.kl_div(torch.log_softmax(x, dim=1), torch.softmax(target, dim=1), reduction=\"batchmean\")",
            ),
            _ => ("crossentropy", "x = F.cross_entropy(x, labels)"),
        };
        if k == 4 {
            self.inputs
                .push(("labels".into(), format!("torch.randint(0, {cols}, ({rows},))")));
        } else {
            self.inputs.push(("target".into(), target));
        }
        self.push(Family::Loss, name, line.into());
        self.done = true;
    }

    fn add<R: Rng>(&mut self, rng: &mut R, f: Family) {
        match f {
            Family::Elementwise => self.elementwise(rng),
            Family::Reduction => self.reduction(rng),
            Family::Norm => self.norm(rng),
            Family::Softmax => self.softmax(rng),
            Family::Matmul => self.matmul(rng),
            Family::Conv => self.conv(rng),
            Family::Gather => self.gather(rng),
            Family::Scan => self.scan(rng),
            Family::Loss => self.loss(rng),
        }
    }
}

/// Module `index` of the set made with `seed`: the same pair gives the same module whatever
/// the count, so a larger set holds a smaller one.
pub fn generate_one(config: &GeneratorConfig, seed: u64, index: u64) -> Generated {
    use rand::SeedableRng;
    let mut rng = Pcg64::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index);
    let rng = &mut rng;
    let dts: Vec<(Dt, f64)> = config.dtypes.iter().map(|(d, w)| (*d, w.0)).collect();
    let dtype = dts[pick(rng, &dts.iter().map(|d| d.1).collect::<Vec<_>>()).unwrap_or(0)].0;
    let families: Vec<(Family, f64)> = config
        .families
        .iter()
        .filter(|(_, c)| c.dtypes.as_ref().is_none_or(|d| d.contains(&dtype)))
        .map(|(f, c)| (*f, c.weight.0))
        .collect();
    let weights = |image: bool| -> Vec<f64> {
        families
            .iter()
            .map(|(f, w)| {
                let fits = match f {
                    Family::Conv => image,
                    Family::Matmul | Family::Gather | Family::Scan | Family::Loss => !image,
                    _ => true,
                };
                if fits { *w } else { 0.0 }
            })
            .collect()
    };
    let n_ops = rng.random_range(config.min_ops.0..=config.max_ops.0) as usize;
    // The first operator decides matrix or image.
    let first = pick(
        rng,
        &weights(false)
            .iter()
            .zip(weights(true))
            .map(|(a, b)| a.max(b))
            .collect::<Vec<_>>(),
    )
    .map_or(Family::Elementwise, |i| families[i].0);
    let image = first == Family::Conv && !config.images.is_empty();
    let (shape_name, consts, x_shape, cols, hw, init_args) = if image {
        let ws: Vec<f64> = config.images.iter().map(|s| s.weight.0).collect();
        let s = &config.images[pick(rng, &ws).unwrap_or(0)];
        let b = one(rng, &s.batch).0;
        let c = one(rng, &s.channels).0;
        let h = one(rng, &s.side).0;
        let w = one(rng, &s.side).0;
        (
            s.name.clone(),
            vec![("batch_size", b), ("channels", c), ("height", h), ("width", w)],
            "batch_size, channels, height, width",
            Dim::Named("channels", c),
            (h, w),
            vec!["channels", "height", "width"],
        )
    } else {
        let ws: Vec<f64> = config.shapes.iter().map(|s| s.weight.0).collect();
        let s = &config.shapes[pick(rng, &ws).unwrap_or(0)];
        let b = one(rng, &s.rows).0;
        let d = one(rng, &s.cols).0;
        (
            s.name.clone(),
            vec![("batch_size", b), ("dim", d)],
            "batch_size, dim",
            Dim::Named("dim", d),
            (1, 1),
            vec!["dim"],
        )
    };
    let mut b = Builder {
        image,
        dtype,
        batched: true,
        cols,
        hw,
        init: Vec::new(),
        forward: Vec::new(),
        inputs: Vec::new(),
        ops: Vec::new(),
        families: Vec::new(),
        cuda: Vec::new(),
        done: false,
    };
    b.add(
        rng,
        if image || first != Family::Conv {
            first
        } else {
            Family::Elementwise
        },
    );
    let ws = weights(image);
    while b.n() < n_ops && !b.done {
        let f = pick(rng, &ws).map_or(Family::Elementwise, |i| families[i].0);
        b.add(rng, f);
    }
    let text = module_text(&b, seed, index, &consts, x_shape, &init_args);
    Generated {
        ops: b.ops,
        families: b.families,
        dtype,
        shape: shape_name,
        text,
        elementwise: b.cuda.into_iter().collect(),
    }
}

fn module_text(
    b: &Builder,
    seed: u64,
    index: u64,
    consts: &[(&str, u64)],
    x_shape: &str,
    init_args: &[&str],
) -> String {
    let mut s = format!(
        "\"\"\"Generated by `aorlta task generate` (seed {seed}, module {index}): {}.\"\"\"\n\n\
         import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n\
         class Model(nn.Module):\n",
        b.ops.join(", ")
    );
    let params: Vec<String> = init_args.iter().map(|a| format!("{a}: int")).collect();
    s.push_str(&format!(
        "    def __init__(self, {}):\n        super().__init__()\n",
        params.join(", ")
    ));
    for l in &b.init {
        s.push_str(&format!("        {l}\n"));
    }
    if b.dtype != Dt::F32 && !b.init.is_empty() {
        s.push_str(&format!("        self.to({})\n", b.dtype.torch()));
    }
    let mut args = vec!["x".to_string()];
    args.extend(b.inputs.iter().map(|(n, _)| n.clone()));
    s.push_str(&format!("\n    def forward(self, {}):\n", args.join(", ")));
    for l in &b.forward {
        s.push_str(&format!("        {l}\n"));
    }
    s.push_str("        return x\n\n\n");
    for (n, v) in consts {
        s.push_str(&format!("{n} = {v}\n"));
    }
    s.push_str(&format!(
        "\n\ndef get_inputs():\n    x = torch.randn({x_shape}{})\n",
        b.dt_arg()
    ));
    for (n, draw) in &b.inputs {
        s.push_str(&format!("    {n} = {draw}\n"));
    }
    s.push_str(&format!("    return [{}]\n", args.join(", ")));
    s.push_str(&format!(
        "\n\ndef get_init_inputs():\n    return [{}]\n",
        init_args.join(", ")
    ));
    s
}

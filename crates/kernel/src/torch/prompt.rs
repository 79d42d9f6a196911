//! The prompt of an imported PyTorch task: the problem's module as its author wrote it, then the
//! kernel's contract in this project's words (the signature, the shapes, the input laws, the
//! tolerance, the launch geometry, the sizes checked and timed).

use aorlta_record::{BufferSpec, Init, Role, Tolerance};
use std::collections::BTreeMap;

/// What a prompt is made from.
pub(super) struct Prompt<'a> {
    /// The problem file's text.
    pub source: &'a str,
    /// The module's class.
    pub class: &'a str,
    /// The values it is built with.
    pub init: &'a [serde_json::Value],
    /// The kernel's declaration.
    pub signature: &'a str,
    /// The buffers, in the signature's order.
    pub buffers: &'a [BufferSpec],
    /// Each buffer's dimensions as expressions, by buffer.
    pub shapes: &'a [(String, Vec<String>)],
    /// Parameter buffers: the buffer's name to the module's name for it.
    pub state: &'a BTreeMap<String, String>,
    /// The sizes, the timed one first.
    pub sizes: &'a [BTreeMap<String, i64>],
    /// The default grid.
    pub grid: &'a [String; 3],
    /// The KernelBench level the problem is from.
    pub level: u32,
}

fn law(init: &Init) -> String {
    match *init {
        Init::Uniform { lo, hi } => format!("uniform in [{lo}, {hi}]"),
        Init::Normal { mean, std } => format!("normal with mean {mean} and standard deviation {std}"),
    }
}

fn size_text(s: &BTreeMap<String, i64>) -> String {
    s.iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Prompt<'_> {
    /// The prompt.
    pub(super) fn text(&self) -> String {
        let init = serde_json::to_string(self.init).unwrap_or_default();
        let mut parts = vec![format!(
            "Write a CUDA kernel that computes the forward pass of this PyTorch module \
             (KernelBench level {}), built as `{}(*{init})`:",
            self.level, self.class
        )];
        parts.push(format!("```python\n{}\n```", self.source.trim_end()));
        if !self.state.is_empty() {
            let names: Vec<String> = self.state.iter().map(|(b, m)| format!("`{b}` (`{m}`)")).collect();
            parts.push(format!(
                "The module's parameters are inputs of your kernel: {}. They are drawn anew for every \
                 check, like the other inputs; do not assume the values the module is built with.",
                names.join(", ")
            ));
        }
        parts.push(
            "Define exactly this kernel, with C++ linkage (not extern \"C\") and these parameter types:"
                .to_string(),
        );
        parts.push(format!("      __global__ {}", self.signature));
        let shapes: Vec<String> = self
            .shapes
            .iter()
            .map(|(n, d)| {
                if d.is_empty() {
                    format!("`{n}` one element")
                } else {
                    format!("`{n}` [{}]", d.join(", "))
                }
            })
            .collect();
        let outs: Vec<String> = self
            .buffers
            .iter()
            .filter(|b| b.role != Role::In)
            .map(|b| format!("{}[0..{})", b.name, b.len))
            .collect();
        parts.push(format!(
            "Every tensor is contiguous in row-major order, with these shapes: {}. Inputs must not be \
             modified; write nothing outside {}.",
            shapes.join("; "),
            outs.join(", ")
        ));
        let drawn: Vec<String> = self
            .buffers
            .iter()
            .filter(|b| b.role == Role::In)
            .map(|b| format!("`{}` {}", b.name, law(&b.init)))
            .collect();
        parts.push(format!(
            "Inputs: {}. Checked launches also draw every input from the corners of that domain: values \
             all near its top or its bottom, rows confined to narrow windows, runs of one value, sign \
             patterns, magnitudes spread over many binary orders. The kernel must be right on all of \
             them, not only on the typical draw.",
            drawn.join("; ")
        ));
        if let Some(out) = self.buffers.iter().find(|b| b.role != Role::In) {
            let t = Tolerance::default_for(out.dtype);
            parts.push(format!(
                "Outputs are compared with the module's: |got - expected| <= atol + rtol * |expected| with \
                 atol = {}, rtol = {}.",
                t.atol, t.rtol
            ));
        }
        parts.push(
            "Your source is compiled alone with `nvcc --cubin` for the GPU; no host code you write is ever \
             compiled into anything that runs, so do not write a main() or launch code. Use only device \
             code and the CUDA headers."
                .to_string(),
        );
        parts.push(format!(
            "Launch geometry: by default the kernel is launched with grid ({}) and block (256, 1, 1), no \
             dynamic shared memory: one thread per output element. To choose your own, define in the \
             same source",
            self.grid.join(", ")
        ));
        parts.push(
            "      __device__ unsigned int aorlta_launch[7] = {grid_x, grid_y, grid_z, block_x, block_y, block_z, dynamic_shared_bytes};"
                .to_string(),
        );
        parts.push(
            "It is read as data and used for every problem size, so a kernel that sets it must handle any \
             size (for example with a grid-stride loop). At most 1024 threads per block and 48 KiB of \
             dynamic shared memory. Do not assume the pointers are aligned to more than 4 bytes."
                .to_string(),
        );
        let checked: Vec<String> = self.sizes.iter().skip(1).map(size_text).collect();
        let timed = self.sizes.first().map(size_text).unwrap_or_default();
        parts.push(format!(
            "The kernel is checked against the module on several sizes ({}; and the timed one) and timed \
             against it at {timed}. Answer with one ```cuda code block holding the complete source.",
            checked.join("; ")
        ));
        parts.join("\n\n") + "\n"
    }
}

//! A job's buffers at one problem size: each buffer lives in its own allocation of
//! `GUARD_BYTES + data + GUARD_BYTES`, its data between two guard bands of canary bytes; outputs
//! start as the sentinel, inputs are drawn from the pair's seed ([`crate::draw`]).

use crate::draw::{Fill, buffer_key, elem_size};
use aorlta_record::kernel::expr::{eval, eval_count};
use aorlta_record::kernel::{BufferSpec, Dtype, Init, KernelTask, Role};
use std::collections::BTreeMap;

/// Bytes of canary on each side of every buffer.
pub const GUARD_BYTES: usize = 64 * 1024;

/// One allocation per buffer of a layout: guard band, data, guard band.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferSet {
    /// Allocation bases, in the layout's order.
    pub ptrs: Vec<crate::backend::DevPtr>,
}

impl BufferSet {
    /// The first data element of buffer `k`.
    pub fn data(&self, k: usize) -> crate::backend::DevPtr {
        self.ptrs[k] + GUARD_BYTES as u64
    }
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

    /// True when the harness draws its data before a launch.
    pub fn is_input(&self) -> bool {
        matches!(self.role, Role::In | Role::Inout)
    }

    /// What buffer number `index` of a job holds before a launch under `seed`: inputs drawn
    /// from the seed, outputs the sentinel.
    pub fn fill(&self, index: usize, seed: u64) -> Fill {
        if self.is_input() {
            Fill::Input {
                init: self.init,
                key: buffer_key(seed, index),
            }
        } else {
            Fill::Sentinel
        }
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

    /// Bytes a kernel reads and writes once over (every buffer's data).
    pub fn data_bytes(&self) -> usize {
        self.bufs.iter().map(|b| b.data_bytes).sum()
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
        init: b.init,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn task() -> KernelTask {
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
    fn a_layout_sizes_every_buffer_and_names_its_fill() {
        let l = Layout::new(&task(), 1).unwrap();
        assert_eq!(l.bufs[0].data_bytes, 28);
        assert_eq!(l.total_bytes(), 3 * (28 + 2 * GUARD_BYTES));
        assert_eq!(l.bufs[2].fill(2, 5), Fill::Sentinel);
        assert_ne!(l.bufs[0].fill(0, 5), l.bufs[1].fill(1, 5));
        assert_ne!(l.bufs[0].fill(0, 5), l.bufs[0].fill(0, 6));
        let e = Layout::new(&task(), 2).unwrap_err();
        assert!(e.contains("no size 2"), "{e}");
    }
}

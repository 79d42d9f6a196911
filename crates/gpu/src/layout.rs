//! A job's buffers at one problem size: each buffer lives in its own allocation of
//! `GUARD_BYTES + data + GUARD_BYTES`, its data between two guard bands of canary bytes; outputs
//! start as the sentinel, inputs are drawn from the pair's seed ([`crate::draw`]).

use crate::draw::{Fill, buffer_key, elem_size};
use aorlta_record::{BufferSpec, Dtype, Init, KernelTask, Role};
use aorlta_record::{Family, Special, allowed_families, family_for_case};
use aorlta_record::{eval_count, eval_expr};
use std::collections::BTreeMap;

/// Bytes of canary on each side of every buffer.
pub(crate) const GUARD_BYTES: usize = 64 * 1024;

/// One allocation per buffer of a layout: guard band, data, guard band.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BufferSet {
    /// Allocation bases, in the layout's order.
    pub ptrs: Vec<crate::backend::DevPtr>,
}

impl BufferSet {
    /// The first data element of buffer `k`.
    pub(crate) fn data(&self, k: usize) -> crate::backend::DevPtr {
        self.ptrs[k] + GUARD_BYTES as u64
    }
}

/// One buffer's place in a job.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BufLayout {
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
    /// The families its declaration allows ([`allowed_families`]).
    pub families: Vec<Family>,
    /// The mask of legal special values.
    pub special: i32,
    /// Elements per row for the per-row families.
    pub row: u64,
}

/// What one launch's inputs are drawn from: a seed, and either the typical law for every input
/// or the families of one case of a job (each input's turn in its rotation,
/// [`family_for_case`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Draw {
    /// The typical law for every input.
    Typical(u64),
    /// Case `case` of a job whose first seed is `first_seed`.
    Case {
        /// This launch's seed.
        seed: u64,
        /// The case's place in the job.
        case: usize,
        /// The job's first seed (picks where each rotation starts).
        first_seed: u64,
    },
}

impl Draw {
    /// The seed the inputs are drawn from.
    pub(crate) fn seed(self) -> u64 {
        match self {
            Draw::Typical(s) | Draw::Case { seed: s, .. } => s,
        }
    }
}

impl BufLayout {
    /// Bytes of the whole allocation, guards included.
    pub(crate) fn total_bytes(&self) -> usize {
        self.data_bytes + 2 * GUARD_BYTES
    }

    /// True when the buffer is compared as an output.
    pub(crate) fn is_output(&self) -> bool {
        matches!(self.role, Role::Out | Role::Inout)
    }

    /// True when the harness draws its data before a launch.
    pub(crate) fn is_input(&self) -> bool {
        matches!(self.role, Role::In | Role::Inout)
    }

    /// The family buffer number `index` draws under `draw`.
    pub(crate) fn family(&self, index: usize, draw: Draw) -> Family {
        match draw {
            Draw::Typical(_) => Family::Typical,
            Draw::Case { case, first_seed, .. } => family_for_case(&self.families, case, first_seed, index),
        }
    }

    /// What buffer number `index` of a job holds before a launch under `draw`: inputs drawn
    /// from its seed and family, outputs the sentinel.
    pub(crate) fn fill(&self, index: usize, draw: Draw) -> Fill {
        if self.is_input() {
            Fill::Input {
                init: self.init,
                key: buffer_key(draw.seed(), index),
                family: self.family(index, draw),
                special: self.special,
                row: self.row,
            }
        } else {
            Fill::Sentinel
        }
    }
}

/// Every buffer of a task at one problem size.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Layout {
    /// The size's variables.
    pub vars: BTreeMap<String, i64>,
    /// The buffers, in task order.
    pub bufs: Vec<BufLayout>,
}

impl Layout {
    /// The layout of `task` at size `size`; the error names the task and what is wrong.
    pub(crate) fn new(task: &KernelTask, size: usize) -> Result<Self, String> {
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

    /// The family of each input under `draw`, by buffer name.
    pub(crate) fn families(&self, draw: Draw) -> std::collections::BTreeMap<String, Family> {
        self.bufs
            .iter()
            .enumerate()
            .filter(|(_, b)| b.is_input())
            .map(|(k, b)| (b.name.clone(), b.family(k, draw)))
            .collect()
    }

    /// Evaluates an expression of this size.
    pub(crate) fn eval(&self, expr: &str) -> Result<i64, String> {
        eval_expr(expr, &self.vars).map_err(|e| e.to_string())
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
    let row = eval_expr(&b.row_expr(), vars)
        .map_err(|e| format!("task {}: buffer `{}`: row: {e}", task.id, b.name))?;
    Ok(BufLayout {
        name: b.name.clone(),
        dtype: b.dtype,
        role: b.role,
        len,
        data_bytes,
        init: b.init,
        families: allowed_families(b),
        special: Special::mask(&b.special),
        row: u64::try_from(row).unwrap_or(1).max(1),
    })
}

/// Input families as a message names them: `x top, w typical`.
pub(crate) fn families_text(families: &std::collections::BTreeMap<String, Family>) -> String {
    families
        .iter()
        .map(|(b, f)| format!("{b} {f}"))
        .collect::<Vec<_>>()
        .join(", ")
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
        let total: usize = l.bufs.iter().map(BufLayout::total_bytes).sum();
        assert_eq!(total, 3 * (28 + 2 * GUARD_BYTES));
        let t = Draw::Typical;
        assert_eq!(l.bufs[2].fill(2, t(5)), Fill::Sentinel);
        assert_ne!(l.bufs[0].fill(0, t(5)), l.bufs[1].fill(1, t(5)));
        assert_ne!(l.bufs[0].fill(0, t(5)), l.bufs[0].fill(0, t(6)));
        // Rows default to blocks of 256 for a length that is no product.
        assert_eq!(l.bufs[0].row, 256);
        // Seven consecutive cases draw every family `a` allows (its domain holds both signs,
        // no special value is declared).
        let fams: std::collections::BTreeSet<Family> = (0..7)
            .map(|case| {
                l.bufs[0].family(
                    0,
                    Draw::Case {
                        seed: 5,
                        case,
                        first_seed: 9,
                    },
                )
            })
            .collect();
        assert_eq!(fams.len(), 7, "{fams:?}");
        assert!(!fams.contains(&Family::Specials));
        let e = Layout::new(&task(), 2).unwrap_err();
        assert!(e.contains("no size 2"), "{e}");
    }
}

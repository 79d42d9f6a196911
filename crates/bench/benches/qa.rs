//! The Q&A answer benchmark: prints the throughput of `compare` over the pairs of the shipped
//! Q&A example (`examples/qa/tasks.jsonl` and its pools; a built-in list when they are absent)
//! and the worst extraction and comparison time over pathological completions.
//!
//! Run with `cargo bench -p aorlta-bench --bench qa` (a `harness = false` target).
#![cfg_attr(test, allow(dead_code, unused_imports))]

use aorlta_bench::{builtin_pairs, load_pairs, run_qa};
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/qa");
    let pairs = match load_pairs(&dir) {
        Ok(Some(pairs)) if !pairs.is_empty() => {
            println!("workload: {} pairs from {}", pairs.len(), dir.display());
            pairs
        }
        Ok(_) => {
            let pairs = builtin_pairs();
            println!(
                "workload: {} built-in pairs ({} has no tasks)",
                pairs.len(),
                dir.display()
            );
            pairs
        }
        Err(e) => {
            let pairs = builtin_pairs();
            println!(
                "workload: {} built-in pairs (could not load the example: {e})",
                pairs.len()
            );
            pairs
        }
    };
    println!();
    let report = run_qa(&pairs);
    println!("{report}");
}

//! How a source behaves on the fake device (`kernel.fake-gpu`): what the fake compiler does with
//! it and what the fake code object it writes plays. A source with no registered behaviour
//! compiles to a correct kernel at the reference's speed. `aorlta validate --fake-gpu` registers
//! one behaviour per validation case, from `examples/kernels/validation.yaml`.

use aorlta_record::FakeBehaviour;
use serde::{Deserialize, Serialize};

/// A compile failure the fake compiler plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FakeCompile {
    /// A compile error.
    Error,
    /// The compiler runs past its time limit.
    Timeout,
    /// The compiler runs out of memory.
    Memory,
    /// The code object calls device `printf`.
    Printf,
}

/// A source's behaviour on the fake device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct FakeSpec {
    /// A compile failure, if it has one.
    pub compile: Option<FakeCompile>,
    /// What the kernel does when it runs.
    pub behaviour: FakeBehaviour,
    /// Launch time multiplier against the reference (below 1 is faster).
    pub speed: f64,
    /// A fixed launch time in seconds instead.
    pub fixed_s: Option<f64>,
    /// Spread of the launch time (log-normal sigma); the fake device's default when absent.
    pub noise: Option<f64>,
    /// The `aorlta_launch` symbol's values (seven when well formed).
    pub launch: Option<Vec<u32>>,
    /// The symbols the code object defines, when not the task's.
    pub symbols: Option<Vec<String>>,
    /// A plan's kernels that compute or behave otherwise than the image, by kernel name
    /// (`kernels: {epilogue: {compute: copy, behaviour: oob-write}}`).
    pub kernels: std::collections::BTreeMap<String, aorlta_record::FakeKernel>,
}

impl Default for FakeSpec {
    fn default() -> Self {
        FakeSpec {
            compile: None,
            behaviour: FakeBehaviour::Correct,
            speed: 1.0,
            fixed_s: None,
            noise: None,
            launch: None,
            symbols: None,
            kernels: std::collections::BTreeMap::new(),
        }
    }
}

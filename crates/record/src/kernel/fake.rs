//! The code object a fake compiler writes and the fake backend loads: a description of how a
//! kernel behaves (what it computes, which threat it plays, how fast it is), so that the whole
//! pipeline (compile leg, harness protocol, launch plan, verification, judge) runs in CI without
//! a GPU. A real cubin never parses as one of these, and a fake one never loads on a real device.

use serde::{Deserialize, Serialize};

/// The first field's value in every fake code object.
pub const FAKE_MAGIC: &str = "aorlta-fake-cubin-1";

/// What a fake kernel does besides (or instead of) computing its task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FakeBehaviour {
    /// Computes the task.
    #[default]
    Correct,
    /// Counts its launches in a module global and computes only on the first launch after the
    /// module is loaded; later launches skip the work (and take a twentieth of the time).
    StatefulSkip,
    /// Writes only output elements that still hold the harness's sentinel (time scales with the
    /// elements written).
    SentinelSkip,
    /// Computes the task and also writes one element past the end of its first output.
    OobWrite,
    /// Computes the task and also overwrites the first element of its first input.
    InputMutation,
    /// Correct only on the first size it is launched on; on any other it writes zeros.
    HardcodedSize,
    /// Never reads its inputs: writes a fixed table.
    IgnoresInputs,
    /// Never returns.
    Hang,
    /// Faults (an illegal address).
    Fault,
    /// Runs `speed` times the base time with a warm L2, and the base time with a cold one.
    WarmCache,
    /// Computes the task, then writes garbage into every allocation of the device that is not
    /// one of its own buffers (the harness's other buffers, counters, scratch).
    Scribble,
    /// Computes nothing: searches every other allocation for its expected output and copies it
    /// when found, else writes zeros.
    SearchExpected,
    /// Computes the task while it knows no counter of the harness's; once it has seen the
    /// comparison's counters (from an earlier launch), writes zeros as its output and sets those
    /// counters so that the comparison's additions wrap to "no mismatch".
    CorruptCounters,
    /// Right on inputs that look like the typical law, wrong elsewhere: where its first input
    /// holds a zero or a non-finite value, or a run of 64 elements narrower than a sixteenth of
    /// its largest magnitude (a window, a constant run, the top or bottom of the domain), it
    /// adds 1 to every output (as a kernel leaning on the typical draw goes wrong).
    TypicalOnly,
}

/// A fake code object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FakeImage {
    /// Always [`FAKE_MAGIC`].
    pub magic: String,
    /// The computation (a task's kernel name: `vector_add`, `transpose`, `block_sum`, `softmax`,
    /// `matmul`); any other name computes a generic elementwise function of the inputs.
    pub compute: String,
    /// The symbols the code object defines.
    pub symbols: Vec<String>,
    /// The behaviour.
    #[serde(default)]
    pub behaviour: FakeBehaviour,
    /// Time multiplier against the fake device's model of the task (1.0 = the reference).
    #[serde(default = "one")]
    pub speed: f64,
    /// A fixed launch time in seconds instead of the model's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed_s: Option<f64>,
    /// Relative spread of the launch time (log-normal sigma).
    #[serde(default = "default_noise")]
    pub noise: f64,
    /// The `aorlta_launch` symbol's values, when the code object defines it (seven when well
    /// formed; any other count plays a symbol of the wrong size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<Vec<u32>>,
    /// Kernels of a plan's code object that compute or behave otherwise than the image, by
    /// symbol.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub kernels: std::collections::BTreeMap<String, FakeKernel>,
}

/// How one kernel of a fake code object computes and behaves (a plan's kernels each do their
/// own part: `compute` names a computation as [`FakeImage::compute`] does, `copy` its first
/// input, for instance).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FakeKernel {
    /// The computation (the kernel's name when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute: Option<String>,
    /// The behaviour.
    #[serde(default)]
    pub behaviour: FakeBehaviour,
}

fn one() -> f64 {
    1.0
}

fn default_noise() -> f64 {
    0.02
}

impl FakeImage {
    /// A correct kernel at the reference's speed.
    pub fn correct(compute: &str, symbols: Vec<String>) -> Self {
        FakeImage {
            magic: FAKE_MAGIC.to_string(),
            compute: compute.to_string(),
            symbols,
            behaviour: FakeBehaviour::Correct,
            speed: 1.0,
            fixed_s: None,
            noise: default_noise(),
            launch: None,
            kernels: std::collections::BTreeMap::new(),
        }
    }

    /// Parses a code object's bytes as a fake one; `None` when it is not.
    pub fn parse(bytes: &[u8]) -> Option<Self> {
        let img: FakeImage = serde_json::from_slice(bytes).ok()?;
        (img.magic == FAKE_MAGIC).then_some(img)
    }
}

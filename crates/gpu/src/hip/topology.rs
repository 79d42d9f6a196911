//! Which devices there are and what they are: the listing, each device's identity, its
//! architecture from the kernel driver's KFD topology, and the cache a cold flush must cover.

use super::sys::*;
use aorlta_record::{DeviceInfo, HarnessError};
use std::path::{Path, PathBuf};

/// Every visible HIP device, each with its architecture where the KFD topology tells it. `Err`
/// with code `no-gpu` when the runtime library cannot be opened, `hipInit` fails or no device is
/// visible.
pub fn list_devices() -> Result<Vec<DeviceInfo>, HarnessError> {
    let api = api()?;
    let n = api.devices()?;
    (0..n as u32)
        .map(|i| {
            let mut d = api
                .describe_device(i)
                .map_err(|f| api.harness_error("driver-error", f))?;
            d.arch = offload_arch(i, None).ok();
            Ok(d)
        })
        .collect()
}

/// The bytes of cache the cold-cache flush must overwrite: the L2 the runtime reports, or the
/// last-level cache behind it where the architecture has one the L2 attribute does not count
/// (CDNA 3 and 4, gfx94x and gfx95x: a 256 MiB Infinity Cache). Without it a flush of twice the
/// L2 would leave an input that fits in the Infinity Cache warm for the launch after.
pub(crate) fn flushed_cache_bytes(arch: &str, l2_bytes: u64) -> u64 {
    let model = arch.split(':').next().unwrap_or(arch);
    let infinity_cache: u64 = if model.starts_with("gfx94") || model.starts_with("gfx95") {
        256 << 20
    } else {
        0
    };
    l2_bytes.max(infinity_cache)
}

/// Where the kernel driver publishes its topology: one folder per node, GPUs and CPUs.
pub(crate) const KFD_TOPOLOGY: &str = "/sys/class/kfd/kfd/topology";

/// The `gfx…` name of a KFD `gfx_target_version` (`90010` → `gfx90a`, `90402` → `gfx942`): major
/// `v / 10000` in decimal, then minor `(v / 100) % 100` and stepping `v % 100` as one hex digit
/// each. `None` for 0 (a CPU node) or a minor or stepping over 15.
pub(crate) fn gfx_name(version: u32) -> Option<String> {
    let (major, minor, stepping) = (version / 10000, (version / 100) % 100, version % 100);
    (major > 0 && minor < 16 && stepping < 16).then(|| format!("gfx{major}{minor:x}{stepping:x}"))
}

/// The architectures of the GPU nodes under a KFD topology folder, in node order (which is the
/// order of HIP's device ordinals when no visibility variable reorders them). CPU nodes
/// (`gfx_target_version 0`) are left out.
pub(crate) fn kfd_gpu_arches(topology: &Path) -> Result<Vec<String>, String> {
    let nodes = topology.join("nodes");
    let entries = std::fs::read_dir(&nodes).map_err(|e| format!("{}: {e}", nodes.display()))?;
    let mut numbered: Vec<(u64, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_str()?.parse().ok()?;
            Some((n, e.path().join("properties")))
        })
        .collect();
    numbered.sort();
    let mut out = Vec::new();
    for (_, props) in numbered {
        let text = std::fs::read_to_string(&props).map_err(|e| format!("{}: {e}", props.display()))?;
        let version = text
            .lines()
            .find_map(|l| l.strip_prefix("gfx_target_version "))
            .and_then(|v| v.trim().parse::<u32>().ok())
            .ok_or_else(|| format!("{}: no gfx_target_version", props.display()))?;
        if version == 0 {
            continue;
        }
        out.push(gfx_name(version).ok_or_else(|| {
            format!(
                "{}: gfx_target_version {version} names no architecture",
                props.display()
            )
        })?);
    }
    Ok(out)
}

/// The variables with which the runtime hides or reorders devices.
pub(super) const VISIBILITY_VARS: [&str; 4] = [
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
];

/// Device `index`'s architecture among the topology's GPU nodes. When every GPU is of one
/// architecture, that one; otherwise the node at `index`, unless a visibility variable is set
/// (`remapped`), for then node order is not device order and only `--offload-arch` can say.
pub(super) fn pick_arch(arches: &[String], index: u32, remapped: bool) -> Result<String, String> {
    match arches {
        [] => Err("the KFD topology lists no GPU".into()),
        [first, rest @ ..] if rest.iter().all(|a| a == first) => Ok(first.clone()),
        _ if remapped => Err(format!(
            "the GPUs are of several architectures ({}) and a visibility variable reorders them",
            arches.join(", ")
        )),
        _ => arches.get(index as usize).cloned().ok_or_else(|| {
            format!(
                "device {index} asked for; the KFD topology lists {} GPUs",
                arches.len()
            )
        }),
    }
}

/// The `gfx…` architecture to build the harness's device code for: `given` (`--offload-arch`)
/// when there is one, else device `index`'s from the KFD topology ([`KFD_TOPOLOGY`]).
pub(crate) fn offload_arch(index: u32, given: Option<&str>) -> Result<String, HarnessError> {
    if let Some(a) = given {
        return Ok(a.to_string());
    }
    let remapped = VISIBILITY_VARS.iter().any(|v| std::env::var_os(v).is_some());
    kfd_gpu_arches(Path::new(KFD_TOPOLOGY))
        .and_then(|arches| pick_arch(&arches, index, remapped))
        .map_err(|why| HarnessError {
            code: "harness-failed".into(),
            detail: format!("cannot tell device {index}'s architecture: {why} (pass --offload-arch)"),
        })
}

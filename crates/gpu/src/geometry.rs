//! Launch geometry: the task's default (its grid and block expressions at one size), the
//! kernel's own `aorlta_launch` data symbol (seven `u32`: grid x, y, z, block x, y, z, dynamic
//! shared bytes), and the bounds every geometry must keep: the device's limits and the task's
//! caps. A symbol out of bounds, or of the wrong size, is the kernel's fault
//! (`launch-out-of-bounds`); it is read as data and never runs anything on the host.

use aorlta_record::eval_count;
use aorlta_record::{DeviceInfo, Geometry};
use aorlta_record::{KernelTask, LaunchCaps};
use std::collections::BTreeMap;

/// The launch symbol's name.
pub(crate) const LAUNCH_SYMBOL: &str = "aorlta_launch";
/// Its size in bytes.
pub(crate) const LAUNCH_SYMBOL_BYTES: usize = 28;

/// The task's default geometry at one size.
pub(crate) fn task_geometry(task: &KernelTask, vars: &BTreeMap<String, i64>) -> Result<Geometry, String> {
    let dim = |e: &str, what: &str| -> Result<u32, String> {
        let v = eval_count(e, vars).map_err(|err| format!("task {}: {what}: {err}", task.id))?;
        u32::try_from(v).map_err(|_| format!("task {}: {what} is {v}, over 2^32", task.id))
    };
    Ok(Geometry {
        grid: [
            dim(&task.grid[0], "grid x")?,
            dim(&task.grid[1], "grid y")?,
            dim(&task.grid[2], "grid z")?,
        ],
        block: [
            dim(&task.block[0], "block x")?,
            dim(&task.block[1], "block y")?,
            dim(&task.block[2], "block z")?,
        ],
        shared_bytes: dim(&task.shared_bytes, "shared bytes")?,
        from_symbol: false,
    })
}

/// Reads the launch symbol's bytes.
pub(crate) fn parse_launch_symbol(bytes: &[u8]) -> Result<Geometry, String> {
    if bytes.len() != LAUNCH_SYMBOL_BYTES {
        return Err(format!(
            "`{LAUNCH_SYMBOL}` is {} bytes; it must be seven unsigned ints ({LAUNCH_SYMBOL_BYTES} bytes)",
            bytes.len()
        ));
    }
    let v: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok(Geometry {
        grid: [v[0], v[1], v[2]],
        block: [v[3], v[4], v[5]],
        shared_bytes: v[6],
        from_symbol: true,
    })
}

/// Checks a geometry against the device's limits and the task's caps; the error says which
/// bound it breaks.
pub(crate) fn check_bounds(g: &Geometry, dev: &DeviceInfo, caps: &LaunchCaps) -> Result<(), String> {
    let axes = ["x", "y", "z"];
    for (i, axis) in axes.iter().enumerate() {
        if g.grid[i] == 0 || g.grid[i] > dev.max_grid[i] {
            return Err(format!(
                "grid {} is {}; the device allows 1 to {}",
                axes[i], g.grid[i], dev.max_grid[i]
            ));
        }
        if g.block[i] == 0 || g.block[i] > dev.max_block[i] {
            return Err(format!(
                "block {axis} is {}; the device allows 1 to {}",
                g.block[i], dev.max_block[i]
            ));
        }
    }
    let threads: u64 = g.block.iter().map(|&b| u64::from(b)).product();
    let max_threads = u64::from(dev.max_threads_per_block.min(caps.max_threads_per_block));
    if threads > max_threads {
        return Err(format!("{threads} threads per block; at most {max_threads}"));
    }
    let blocks: u64 = g.grid.iter().map(|&b| u64::from(b)).product();
    if blocks > caps.max_blocks {
        return Err(format!(
            "{blocks} blocks; the task allows at most {}",
            caps.max_blocks
        ));
    }
    let max_shared = dev.max_shared_optin.min(caps.max_shared_bytes);
    if g.shared_bytes > max_shared {
        return Err(format!(
            "{} bytes of dynamic shared memory; at most {max_shared}",
            g.shared_bytes
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h200() -> DeviceInfo {
        DeviceInfo {
            max_threads_per_block: 1024,
            max_block: [1024, 1024, 64],
            max_grid: [2_147_483_647, 65535, 65535],
            max_shared_optin: 232_448,
            ..DeviceInfo::default()
        }
    }

    fn geom(grid: [u32; 3], block: [u32; 3], shared: u32) -> Geometry {
        Geometry {
            grid,
            block,
            shared_bytes: shared,
            from_symbol: true,
        }
    }

    #[test]
    fn bounds_of_device_and_caps() {
        let caps = LaunchCaps::default();
        let d = h200();
        assert!(check_bounds(&geom([4, 1, 1], [256, 1, 1], 0), &d, &caps).is_ok());
        assert!(
            check_bounds(&geom([0, 1, 1], [256, 1, 1], 0), &d, &caps)
                .unwrap_err()
                .contains("grid x")
        );
        assert!(
            check_bounds(&geom([1, 65536, 1], [1, 1, 1], 0), &d, &caps)
                .unwrap_err()
                .contains("grid y")
        );
        assert!(
            check_bounds(&geom([1, 1, 1], [1, 1, 65], 0), &d, &caps)
                .unwrap_err()
                .contains("block z")
        );
        assert!(
            check_bounds(&geom([1, 1, 1], [1024, 2, 1], 0), &d, &caps)
                .unwrap_err()
                .contains("threads")
        );
        let huge = geom([2_000_000_000, 1, 1], [256, 1, 1], 0);
        assert!(check_bounds(&huge, &d, &caps).unwrap_err().contains("blocks"));
        let tight = LaunchCaps {
            max_threads_per_block: 128,
            ..caps
        };
        assert!(check_bounds(&geom([1, 1, 1], [256, 1, 1], 0), &d, &tight).is_err());
        assert!(
            check_bounds(&geom([1, 1, 1], [32, 1, 1], 49_153), &d, &caps)
                .unwrap_err()
                .contains("shared")
        );
        let roomy = LaunchCaps {
            max_shared_bytes: 1 << 20,
            ..caps
        };
        assert!(check_bounds(&geom([1, 1, 1], [32, 1, 1], 200_000), &d, &roomy).is_ok());
        assert!(check_bounds(&geom([1, 1, 1], [32, 1, 1], 300_000), &d, &roomy).is_err());
    }

    #[test]
    fn launch_symbol_is_exactly_seven_words() {
        let words: Vec<u8> = [8u32, 2, 1, 128, 1, 1, 1024]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let g = parse_launch_symbol(&words).unwrap();
        assert_eq!(
            (g.grid, g.block, g.shared_bytes, g.from_symbol),
            ([8, 2, 1], [128, 1, 1], 1024, true)
        );
        assert!(parse_launch_symbol(&words[..24]).is_err());
        assert!(parse_launch_symbol(&[0u8; 32]).is_err());
    }
}

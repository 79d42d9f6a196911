//! The HIP backend without an AMD GPU: the listing's errors, the topology, the codes.

use super::backend::*;
use super::result::*;
use super::sys::*;
use super::topology::*;
use crate::backend::*;
use libloading::Library;
use std::path::Path;

/// Where the runtime is installed but sees no AMD GPU (Debian's `libamdhip64.so.5` here and
/// in CI: `hipInit` answers 101, `hipGetDeviceCount` 100), the listing is a `no-gpu` error
/// naming the call; where no runtime is installed, naming the libraries tried.
#[test]
fn with_no_amd_gpu_the_listing_is_a_no_gpu_error() {
    match list_devices() {
        Ok(devices) => {
            // A host with an AMD GPU: the listing is of HIP devices.
            assert!(!devices.is_empty());
            assert!(devices.iter().all(|d| d.backend == "hip" && d.sm_count > 0));
        }
        Err(e) => {
            assert_eq!(e.code, "no-gpu", "{e:?}");
            let runtime_loaded = e.detail.contains("hipInit")
                || e.detail.contains("hipGetDeviceCount")
                || e.detail.contains("no HIP device visible");
            let no_runtime = e.detail.contains("tried: ") && e.detail.contains("libamdhip64.so.5");
            assert!(runtime_loaded || no_runtime, "{}", e.detail);
            if runtime_loaded {
                // The runtime's own name for the error is in the detail.
                assert!(e.detail.contains("hipError"), "{}", e.detail);
            }
        }
    }
    // Opening the backend meets the same error, and asking for the architecture too.
    if let Err(e) = list_devices() {
        assert_eq!(
            HipBackend::new(0, "gfx90a", b"").err().map(|e| e.code),
            Some(e.code.clone())
        );
        assert_eq!(HipBackend::arch_of(0, Some("gfx90a")).unwrap_err().code, "no-gpu");
    }
}

#[test]
fn no_library_among_the_candidates_is_an_error_naming_each() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("lib/libamdhip64.so");
    let b = dir.path().join("nowhere/libamdhip64.so.6");
    let not_a_library = dir.path().join("libamdhip64.so.5");
    std::fs::write(&not_a_library, b"not an ELF").unwrap();
    let detail = Api::open(&[a.clone(), b.clone(), not_a_library.clone()])
        .err()
        .expect("nothing can be opened");
    for p in [&a, &b, &not_a_library] {
        assert!(detail.contains(&p.display().to_string()), "{detail}");
    }
    assert!(detail.starts_with("no HIP runtime library"), "{detail}");
    assert_eq!(no_gpu(detail).code, "no-gpu");
    assert!(Api::open(&[]).is_err());
}

/// A library that opens but lacks the entry points is an error naming the first one missing.
#[test]
fn a_library_without_the_entry_points_is_an_error_naming_the_symbol() {
    let Some(libc) = ["libc.so.6", "libm.so.6"]
        .into_iter()
        // SAFETY: the C library is already loaded in this process.
        .find_map(|l| unsafe { Library::new(l) }.ok().map(|lib| (lib, l)))
    else {
        panic!("no C library to open");
    };
    let detail = Api::take(libc.0, libc.1.into()).err().expect("libc is not HIP");
    assert!(detail.contains("hipInit") && detail.contains(libc.1), "{detail}");
}

#[test]
fn the_library_is_looked_for_under_rocm_first_then_by_soname() {
    let c = library_candidates();
    let names: Vec<String> = c.iter().map(|p| p.display().to_string()).collect();
    let opt = names
        .iter()
        .position(|n| n == "/opt/rocm/lib/libamdhip64.so")
        .unwrap();
    let so5 = names.iter().position(|n| n == "libamdhip64.so.5").unwrap();
    let so6 = names.iter().position(|n| n == "libamdhip64.so.6").unwrap();
    let bare = names.iter().position(|n| n == "libamdhip64.so").unwrap();
    assert!(opt < bare && bare < so6 && so6 < so5, "{names:?}");
    assert_eq!(so5, names.len() - 1);
    if let Some(root) = std::env::var_os("ROCM_PATH").filter(|r| !r.is_empty()) {
        assert_eq!(c[0], Path::new(&root).join("lib/libamdhip64.so"));
    }
}

#[test]
fn kfd_target_versions_name_their_architectures() {
    assert_eq!(gfx_name(90010).as_deref(), Some("gfx90a"));
    assert_eq!(gfx_name(90402).as_deref(), Some("gfx942"));
    assert_eq!(gfx_name(90400).as_deref(), Some("gfx940"));
    assert_eq!(gfx_name(90500).as_deref(), Some("gfx950"));
    assert_eq!(gfx_name(90008).as_deref(), Some("gfx908"));
    assert_eq!(gfx_name(100300).as_deref(), Some("gfx1030"));
    assert_eq!(gfx_name(110001).as_deref(), Some("gfx1101"));
    assert_eq!(gfx_name(90012).as_deref(), Some("gfx90c"));
    assert_eq!(gfx_name(0), None);
    assert_eq!(gfx_name(90016), None);
}

fn node(root: &Path, n: u32, version: u32) {
    let d = root.join(format!("nodes/{n}"));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("properties"),
        format!("cpu_cores_count 0\nsimd_count 440\ngfx_target_version {version}\nvendor_id 4098\n"),
    )
    .unwrap();
}

#[test]
fn the_kfd_topology_gives_the_gpus_in_node_order() {
    let t = tempfile::tempdir().unwrap();
    node(t.path(), 0, 0);
    node(t.path(), 1, 90402);
    node(t.path(), 2, 90010);
    node(t.path(), 10, 90500);
    node(t.path(), 9, 90400);
    let arches = kfd_gpu_arches(t.path()).unwrap();
    assert_eq!(arches, ["gfx942", "gfx90a", "gfx940", "gfx950"]);
    assert_eq!(pick_arch(&arches, 1, false).unwrap(), "gfx90a");
    assert_eq!(pick_arch(&arches, 3, false).unwrap(), "gfx950");
    assert!(pick_arch(&arches, 4, false).unwrap_err().contains("4 GPUs"));
    assert!(pick_arch(&arches, 0, true).unwrap_err().contains("visibility"));
    let same = vec!["gfx942".to_string(); 8];
    assert_eq!(pick_arch(&same, 5, true).unwrap(), "gfx942");
    assert!(pick_arch(&[], 0, false).is_err());
    assert!(kfd_gpu_arches(&t.path().join("missing")).is_err());
    std::fs::write(t.path().join("nodes/2/properties"), "simd_count 4\n").unwrap();
    assert!(
        kfd_gpu_arches(t.path())
            .unwrap_err()
            .contains("no gfx_target_version")
    );
}

#[test]
fn a_given_architecture_is_used_as_is() {
    assert_eq!(offload_arch(3, Some("gfx942")).unwrap(), "gfx942");
    // MI300X's Infinity Cache is flushed too; MI200 has none behind its 8 MiB L2.
    assert_eq!(flushed_cache_bytes("gfx942:sramecc+:xnack-", 4 << 20), 256 << 20);
    assert_eq!(flushed_cache_bytes("gfx950", 4 << 20), 256 << 20);
    assert_eq!(flushed_cache_bytes("gfx90a", 8 << 20), 8 << 20);
}

#[test]
fn the_device_identity_is_its_uuid_else_its_pci_slot() {
    assert_eq!(
        device_uuid(Some(b"4A5e3c2bd3f1a8c6"), "0000:c1:00.0"),
        "GPU-4a5e3c2bd3f1a8c6"
    );
    let mut binary = [0u8; 16];
    binary[0] = 0xde;
    binary[15] = 0x07;
    assert_eq!(
        device_uuid(Some(&binary), "0000:c1:00.0"),
        "GPU-de000000-0000-0000-0000-000000000007"
    );
    assert_eq!(device_uuid(Some(&[0; 16]), "0000:c1:00.0"), "PCI-0000:c1:00.0");
    let mut xx = [0u8; 16];
    xx[..2].copy_from_slice(b"XX");
    assert_eq!(device_uuid(Some(&xx), "0000:03:00.0"), "PCI-0000:03:00.0");
    assert_eq!(device_uuid(None, "0000:03:00.0"), "PCI-0000:03:00.0");
}

#[test]
fn errors_are_classified_as_the_cuda_backend_classifies_them() {
    for c in [700, 719, 709, 999] {
        assert_eq!(kind_of(c), ErrorKind::Fault, "{c}");
    }
    assert_eq!(kind_of(2), ErrorKind::OutOfMemory);
    for c in [200, 209, 218] {
        assert_eq!(kind_of(c), ErrorKind::BadImage, "{c}");
    }
    for c in [1, 98, 500, 600, 701] {
        assert_eq!(kind_of(c), ErrorKind::Driver, "{c}");
    }
    assert_eq!(c_text(b"AMD Instinct MI300X\0junk"), "AMD Instinct MI300X");
}

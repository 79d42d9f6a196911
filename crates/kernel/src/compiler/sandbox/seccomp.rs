//! The system-call filter of every jailed compile: the calls a compiler never needs and an
//! escape or a probe of the host would ([`DENIED`]) fail with `EPERM`, `clone3` fails with
//! `ENOSYS` (its flags are behind a pointer no filter can read; the C library falls back to
//! `clone`), and on x86-64 every x32 call (numbers from `0x4000_0000`, a second table a filter
//! of x86-64 numbers would not see) fails with `EPERM`. Any other architecture's calls kill the
//! process. The programs are compiled once by `seccompiler` (rust-vmm's, as Firecracker uses)
//! and handed to bubblewrap, which installs them after it has built the jail and before the
//! compiler starts.

use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, sock_filter};
use std::collections::BTreeMap;

/// The calls refused with `EPERM`, each for what it would give a candidate: a way out of the
/// jail's root or namespaces, the host's kernel (modules, BPF, perf, the log, keys, reboot), or
/// another process's memory. [`ARCH_DENIED`] adds those only some architectures have.
pub(crate) const DENIED: &[(&str, i64)] = &[
    ("chroot", libc::SYS_chroot),
    ("pivot_root", libc::SYS_pivot_root),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("open_tree", libc::SYS_open_tree),
    ("move_mount", libc::SYS_move_mount),
    ("fsopen", libc::SYS_fsopen),
    ("fsconfig", libc::SYS_fsconfig),
    ("fsmount", libc::SYS_fsmount),
    ("fspick", libc::SYS_fspick),
    ("mount_setattr", libc::SYS_mount_setattr),
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("mknodat", libc::SYS_mknodat),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("syslog", libc::SYS_syslog),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("kexec_load", libc::SYS_kexec_load),
    ("kexec_file_load", libc::SYS_kexec_file_load),
    ("reboot", libc::SYS_reboot),
    ("swapon", libc::SYS_swapon),
    ("swapoff", libc::SYS_swapoff),
    ("acct", libc::SYS_acct),
    ("quotactl", libc::SYS_quotactl),
    ("ptrace", libc::SYS_ptrace),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    ("pidfd_getfd", libc::SYS_pidfd_getfd),
    ("kcmp", libc::SYS_kcmp),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("open_by_handle_at", libc::SYS_open_by_handle_at),
    ("name_to_handle_at", libc::SYS_name_to_handle_at),
    ("fanotify_init", libc::SYS_fanotify_init),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("io_uring_enter", libc::SYS_io_uring_enter),
    ("io_uring_register", libc::SYS_io_uring_register),
    ("sethostname", libc::SYS_sethostname),
    ("setdomainname", libc::SYS_setdomainname),
    ("vhangup", libc::SYS_vhangup),
    ("lookup_dcookie", libc::SYS_lookup_dcookie),
];

/// The calls of [`DENIED`]'s kind that only x86-64 has.
#[cfg(target_arch = "x86_64")]
pub(crate) const ARCH_DENIED: &[(&str, i64)] = &[
    ("mknod", libc::SYS_mknod),
    ("iopl", libc::SYS_iopl),
    ("ioperm", libc::SYS_ioperm),
];

/// The calls of [`DENIED`]'s kind that only some architectures have: none here.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) const ARCH_DENIED: &[(&str, i64)] = &[];

/// The first number of x86-64's x32 table.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// The filters' programs as raw `sock_filter` bytes, each to be handed to bubblewrap on a file
/// descriptor (`--add-seccomp-fd`): made once per process.
pub(crate) fn programs() -> Result<&'static [Vec<u8>], String> {
    static PROGRAMS: std::sync::OnceLock<Result<Vec<Vec<u8>>, String>> = std::sync::OnceLock::new();
    PROGRAMS.get_or_init(build).as_deref().map_err(Clone::clone)
}

fn build() -> Result<Vec<Vec<u8>>, String> {
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e| format!("seccomp: no filter for {}: {e}", std::env::consts::ARCH))?;
    let filter = |calls: Vec<i64>, errno: i32| -> Result<BpfProgram, String> {
        let rules: BTreeMap<i64, Vec<seccompiler::SeccompRule>> =
            calls.into_iter().map(|n| (n, vec![])).collect();
        let f = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(errno as u32),
            arch,
        )
        .map_err(|e| format!("seccomp: {e}"))?;
        BpfProgram::try_from(f).map_err(|e| format!("seccomp: {e}"))
    };
    let numbers = DENIED.iter().chain(ARCH_DENIED).map(|(_, n)| *n).collect();
    let denied = with_x32_guard(filter(numbers, libc::EPERM)?);
    let clone3 = filter(vec![libc::SYS_clone3], libc::ENOSYS)?;
    Ok(vec![to_bytes(&denied), to_bytes(&clone3)])
}

/// `program` with, right after its architecture check (its first three instructions), a test
/// that refuses every x32 call: the instructions after it keep their relative jumps.
#[cfg(target_arch = "x86_64")]
fn with_x32_guard(program: BpfProgram) -> BpfProgram {
    use seccompiler::sock_filter as ins;
    // BPF_LD | BPF_W | BPF_ABS of the call's number (offset 0 of `seccomp_data`).
    let load_nr = ins {
        code: 0x20,
        jt: 0,
        jf: 0,
        k: 0,
    };
    // BPF_JMP | BPF_JGE | BPF_K: an x32 number falls through to the refusal, others skip it.
    let is_x32 = ins {
        code: 0x35,
        jt: 0,
        jf: 1,
        k: X32_SYSCALL_BIT,
    };
    // BPF_RET | BPF_K: SECCOMP_RET_ERRNO | EPERM.
    let refuse = ins {
        code: 0x06,
        jt: 0,
        jf: 0,
        k: 0x0005_0000 | libc::EPERM as u32,
    };
    let mut out = program[..3].to_vec();
    out.extend([load_nr, is_x32, refuse]);
    out.extend_from_slice(&program[3..]);
    out
}

#[cfg(not(target_arch = "x86_64"))]
fn with_x32_guard(program: BpfProgram) -> BpfProgram {
    program
}

fn to_bytes(program: &[sock_filter]) -> Vec<u8> {
    let mut out = Vec::with_capacity(program.len() * 8);
    for i in program {
        out.extend_from_slice(&i.code.to_ne_bytes());
        out.push(i.jt);
        out.push(i.jf);
        out.extend_from_slice(&i.k.to_ne_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filters_compile_and_start_with_the_architecture_check() {
        let p = programs().expect("the filters compile");
        assert_eq!(p.len(), 2);
        for prog in p {
            assert_eq!(prog.len() % 8, 0);
            // BPF_LD | BPF_W | BPF_ABS of `arch` (offset 4 of `seccomp_data`).
            assert_eq!(&prog[..2], &0x20u16.to_ne_bytes());
            assert_eq!(&prog[4..8], &4u32.to_ne_bytes());
        }
        // Every call the issue names is in the list.
        for name in [
            "chroot",
            "mknod",
            "mknodat",
            "bpf",
            "perf_event_open",
            "syslog",
            "keyctl",
            "init_module",
            "finit_module",
            "ptrace",
        ] {
            assert!(
                DENIED.iter().chain(ARCH_DENIED).any(|(n, _)| *n == name)
                    || (name == "mknod" && cfg!(not(target_arch = "x86_64"))),
                "{name}"
            );
        }
    }
}

//! Reading AMD GPU code objects (what `hipcc --genco` writes) to check what the compiler made
//! before any of it is loaded: a clang offload bundle ([`bundle`]) of AMDGPU ELF files, or one
//! such ELF (`--no-gpu-bundle-output`). Each ELF carries its kernels' metadata in a note (owner
//! `AMDGPU`, type `NT_AMDGPU_METADATA`) encoded as MessagePack, decoded with `rmpv`: per kernel
//! its name, descriptor symbol, explicit and hidden arguments and register and memory use.
//!
//! [`check_kernel`] is the AMD counterpart of the cubin check: every wanted target's object
//! defines the kernel, nothing calls device `printf` (or another host call), and the kernel's
//! explicit arguments are what the task's signature declares.
//!
//! Device printf shows as `amdhsa.printf` (buffered printf, code object v5) or as a hidden
//! `hidden_printf_buffer` or `hidden_hostcall_buffer` argument (hostcall printf). Unoptimised
//! builds (`-O0`) keep `hidden_hostcall_buffer` on every kernel, printf or not: this check
//! expects optimised compiles.
//!
//! The note is compiler output from a candidate's source, so nothing in it is trusted: `rmpv`
//! reserves nothing for a declared length it has not read, nesting stops at [`MAX_NESTING`], a
//! truncated or malformed note is an error that says where it went wrong, and every field read
//! is checked for its type.

pub(crate) mod bundle;

use super::elf;
use crate::reason::KernelReason;
use aorlta_record::{ParamKind, Signature};
use object::LittleEndian;
use object::elf::FileHeader64;
use object::read::elf::{FileHeader, SectionHeader};
use rmpv::Value;

/// `n_type` of the AMDGPU metadata note (code object v3 and later).
pub(crate) const NT_AMDGPU_METADATA: u32 = 32;

/// The deepest nesting of arrays and maps read in a metadata note (the real ones nest five deep).
pub(crate) const MAX_NESTING: usize = 32;

/// Why bytes are not readable AMD GPU code objects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a readable AMD GPU code object: {0}")]
pub(crate) struct AmdgpuError(pub String);

/// One kernel argument, as the metadata describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArgMeta {
    /// Its offset in the kernarg segment.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
    /// `global_buffer`, `by_value`, `dynamic_shared_pointer`, `hidden_*` ….
    pub value_kind: String,
    /// `global`, `constant`, `generic` … for pointers, when given.
    pub address_space: Option<String>,
    /// The parameter's name, when the compiler kept it.
    pub name: Option<String>,
}

impl ArgMeta {
    /// An argument the runtime fills in (`hidden_*`), not one the kernel's signature declares.
    pub(crate) fn is_hidden(&self) -> bool {
        self.value_kind.starts_with("hidden_")
    }
}

/// One kernel's metadata (numbers the note leaves out are 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KernelMeta {
    /// Its name (`.name`): the mangled name, or the plain one of an `extern "C"` kernel.
    pub name: String,
    /// Its kernel descriptor's symbol (`.symbol`, `<name>.kd`).
    pub symbol: String,
    /// Its arguments in order, hidden ones included.
    pub args: Vec<ArgMeta>,
    /// The kernarg segment's size.
    pub kernarg_segment_size: u64,
    /// Static LDS (`__shared__`) bytes.
    pub group_segment_fixed_size: u64,
    /// Static scratch bytes per work-item.
    pub private_segment_fixed_size: u64,
    /// Scalar registers.
    pub sgpr_count: u64,
    /// Vector registers.
    pub vgpr_count: u64,
    /// 32 or 64.
    pub wavefront_size: u64,
    /// The largest work-group the kernel allows (`.max_flat_workgroup_size`).
    pub max_flat_workgroup_size: u64,
}

/// One AMDGPU ELF code object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CodeObject {
    /// The processor, without target features: `gfx90a` (from `amdhsa.target`, else from the
    /// bundle entry's id).
    pub target: String,
    /// The kernels of its metadata.
    pub kernels: Vec<KernelMeta>,
    /// Its symbol table.
    pub symbols: Vec<elf::Symbol>,
    /// Whether anything in it calls device printf or another host call: `amdhsa.printf` is
    /// present, or a kernel has a `hidden_printf_buffer` or `hidden_hostcall_buffer` argument.
    pub printf: bool,
}

/// The processor of a target id, without features or triple: `gfx90a` for
/// `amdgcn-amd-amdhsa--gfx90a:xnack-` or `gfx90a:sramecc+`.
pub(crate) fn processor(target_id: &str) -> &str {
    let t = target_id.rsplit_once("--").map_or(target_id, |(_, t)| t);
    t.split(':').next().unwrap_or(t)
}

/// The code objects of a bundle (every entry but the host's) or of one AMDGPU ELF.
pub(crate) fn code_objects(bytes: &[u8]) -> Result<Vec<CodeObject>, AmdgpuError> {
    if !bundle::is_bundle(bytes) {
        return Ok(vec![read_elf(bytes, None)?]);
    }
    let entries = bundle::entries(bytes).map_err(AmdgpuError)?;
    let mut out = Vec::new();
    for e in entries.iter().filter(|e| !e.is_host()) {
        let o = read_elf(e.bytes, e.target_id())
            .map_err(|err| AmdgpuError(format!("bundle entry `{}`: {}", e.id, err.0)))?;
        out.push(o);
    }
    Ok(out)
}

fn read_elf(d: &[u8], bundle_target: Option<&str>) -> Result<CodeObject, AmdgpuError> {
    // The ELF reader wants its headers aligned; a bundle entry need not be (a fresh allocation
    // of this size is, with the system allocator).
    let copy;
    let d = if d.as_ptr().align_offset(8) == 0 {
        d
    } else {
        copy = d.to_vec();
        &copy[..]
    };
    let e = |e: object::read::Error| AmdgpuError(e.to_string());
    let header = FileHeader64::<LittleEndian>::parse(d).map_err(e)?;
    let endian = header.endian().map_err(e)?;
    let machine = header.e_machine(endian);
    if machine != object::elf::EM_AMDGPU {
        return Err(AmdgpuError(format!(
            "an ELF for machine {}, not AMDGPU ({})",
            machine.0,
            object::elf::EM_AMDGPU.0
        )));
    }
    let desc = metadata_note(header, endian, d)?;
    let meta = decode_metadata(desc)?;
    let symbols = elf::symbols(d).map_err(|e| AmdgpuError(e.0))?;
    object_of(&meta, bundle_target, symbols)
}

/// The descriptor of the ELF's AMDGPU metadata note.
fn metadata_note<'d>(
    header: &FileHeader64<LittleEndian>,
    endian: LittleEndian,
    d: &'d [u8],
) -> Result<&'d [u8], AmdgpuError> {
    let e = |e: object::read::Error| AmdgpuError(e.to_string());
    for section in header.sections(endian, d).map_err(e)?.iter() {
        let Some(mut notes) = section.notes(endian, d).map_err(e)? else {
            continue;
        };
        while let Some(note) = notes.next().map_err(e)? {
            if note.name() == b"AMDGPU" && note.n_type(endian).0 == NT_AMDGPU_METADATA {
                return Ok(note.desc());
            }
        }
    }
    Err(AmdgpuError(
        "no AMDGPU metadata note (code object v3 or later)".into(),
    ))
}

/// Decodes the note's one MessagePack value. Trailing zero bytes, as the note's padding may
/// leave, are allowed; anything else after the value is an error.
fn decode_metadata(desc: &[u8]) -> Result<Value, AmdgpuError> {
    let bad = |at: usize, what: String| {
        AmdgpuError(format!(
            "the metadata note: malformed MessagePack at byte {at}: {what}"
        ))
    };
    let mut rest = desc;
    // `rmpv` counts a level of depth for each value and again for each array, map, string,
    // binary or extension body: `2 * n + 3` lets `n` nested containers end in a string key.
    let read = rmpv::decode::read_value_with_max_depth(&mut rest, 2 * MAX_NESTING + 3);
    let at = desc.len() - rest.len();
    let value = read.map_err(|e| {
        let what = match &e {
            rmpv::decode::Error::DepthLimitExceeded => format!("nested deeper than {MAX_NESTING}"),
            rmpv::decode::Error::InvalidMarkerRead(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
                "it ends where a value should start".to_string()
            }
            rmpv::decode::Error::InvalidDataRead(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
                "it ends inside a value".to_string()
            }
            e => e.to_string(),
        };
        bad(at, what)
    })?;
    if rest.iter().any(|b| *b != 0) {
        return Err(bad(at, "bytes after the value".into()));
    }
    Ok(value)
}

/// The value under the string key `key`, if `map` is a map that has it (the first such).
fn get<'v>(map: &'v Value, key: &str) -> Option<&'v Value> {
    map.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn object_of(
    meta: &Value,
    bundle_target: Option<&str>,
    symbols: Vec<elf::Symbol>,
) -> Result<CodeObject, AmdgpuError> {
    let bad = |m: String| AmdgpuError(format!("the metadata: {m}"));
    if !meta.is_map() {
        return Err(bad("not a map".into()));
    }
    let target = match (get(meta, "amdhsa.target"), bundle_target) {
        (Some(t), _) => t
            .as_str()
            .ok_or_else(|| bad("amdhsa.target is not a string".into()))?,
        (None, Some(t)) => t,
        (None, None) => return Err(bad("no amdhsa.target".into())),
    };
    let target = processor(target).to_string();
    if target.is_empty() {
        return Err(bad("an empty target".into()));
    }
    let kernels = match get(meta, "amdhsa.kernels") {
        None => Vec::new(),
        Some(k) => {
            let k = k
                .as_array()
                .ok_or_else(|| bad("amdhsa.kernels is not an array".into()))?;
            k.iter()
                .enumerate()
                .map(|(i, k)| kernel_of(k).map_err(|m| bad(format!("kernel {i}: {m}"))))
                .collect::<Result<_, _>>()?
        }
    };
    let printf = get(meta, "amdhsa.printf").is_some_and(|p| p.as_array().is_none_or(|a| !a.is_empty()))
        || kernels.iter().flat_map(|k: &KernelMeta| &k.args).any(|a| {
            matches!(
                a.value_kind.as_str(),
                "hidden_printf_buffer" | "hidden_hostcall_buffer"
            )
        });
    Ok(CodeObject {
        target,
        kernels,
        symbols,
        printf,
    })
}

fn text(map: &Value, key: &str) -> Result<Option<String>, String> {
    match get(map, key) {
        None => Ok(None),
        Some(v) => v
            .as_str()
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| format!("{key} is not a string")),
    }
}

fn number(map: &Value, key: &str) -> Result<u64, String> {
    match get(map, key) {
        None => Ok(0),
        Some(v) => v
            .as_u64()
            .ok_or_else(|| format!("{key} is not a non-negative integer")),
    }
}

fn kernel_of(k: &Value) -> Result<KernelMeta, String> {
    if !k.is_map() {
        return Err("not a map".into());
    }
    let name = text(k, ".name")?.ok_or("no .name")?;
    let symbol = text(k, ".symbol")?.unwrap_or_else(|| format!("{name}.kd"));
    let args = match get(k, ".args") {
        None => Vec::new(),
        Some(a) => {
            let a = a.as_array().ok_or(".args is not an array")?;
            a.iter()
                .enumerate()
                .map(|(i, a)| arg_of(a).map_err(|m| format!("`{name}` argument {i}: {m}")))
                .collect::<Result<_, _>>()?
        }
    };
    Ok(KernelMeta {
        kernarg_segment_size: number(k, ".kernarg_segment_size")?,
        group_segment_fixed_size: number(k, ".group_segment_fixed_size")?,
        private_segment_fixed_size: number(k, ".private_segment_fixed_size")?,
        sgpr_count: number(k, ".sgpr_count")?,
        vgpr_count: number(k, ".vgpr_count")?,
        wavefront_size: number(k, ".wavefront_size")?,
        max_flat_workgroup_size: number(k, ".max_flat_workgroup_size")?,
        name,
        symbol,
        args,
    })
}

fn arg_of(a: &Value) -> Result<ArgMeta, String> {
    if !a.is_map() {
        return Err("not a map".into());
    }
    let required = |key: &str| get(a, key).ok_or_else(|| format!("no {key}"));
    Ok(ArgMeta {
        offset: required(".offset")?
            .as_u64()
            .ok_or(".offset is not a non-negative integer")?,
        size: required(".size")?
            .as_u64()
            .ok_or(".size is not a non-negative integer")?,
        value_kind: text(a, ".value_kind")?.ok_or("no .value_kind")?,
        address_space: text(a, ".address_space")?,
        name: text(a, ".name")?,
    })
}

/// One target's copy of the checked kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TargetKernel {
    /// The processor (`gfx90a`).
    pub target: String,
    /// The kernel's metadata there.
    pub kernel: KernelMeta,
}

/// What [`check_kernel`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CheckedKernel {
    /// The kernel's symbol (its `.name`; the descriptor is `<symbol>.kd`): the mangled name of
    /// the signature, else the plain name of an `extern "C"` kernel.
    pub symbol: String,
    /// The kernel in each checked code object, in the objects' order.
    pub targets: Vec<TargetKernel>,
}

/// The size in bytes of a builtin scalar by its Itanium code, as AMDGPU passes it.
fn scalar_size(code: &str) -> Option<u64> {
    match code {
        "c" | "a" | "h" | "b" => Some(1),
        "s" | "t" => Some(2),
        "i" | "j" | "f" => Some(4),
        "l" | "m" | "x" | "y" | "d" => Some(8),
        _ => None,
    }
}

/// Checks that each code object for a wanted processor (`gfx90a`; features after `:` are
/// ignored; every object when `wanted_archs` is empty) defines the kernel of `signature`, with
/// its metadata and its descriptor's symbol, makes no host call (device `printf`), and passes
/// the explicit arguments the signature declares. A failure is a result code and a detail:
/// `compile-error` (no code object, or none for a wanted processor), `device-printf`,
/// `kernel-not-found` or `signature-mismatch`.
pub(crate) fn check_kernel(
    objects: &[CodeObject],
    signature: &Signature,
    wanted_archs: &[String],
) -> Result<CheckedKernel, (KernelReason, String)> {
    let wanted = signature.symbols();
    let params = signature.params();
    if objects.is_empty() {
        return Err((
            KernelReason::CompileError,
            "the compiler's output holds no AMD GPU code object".into(),
        ));
    }
    let held = || {
        objects
            .iter()
            .map(|o| o.target.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    for arch in wanted_archs {
        if !objects.iter().any(|o| o.target == processor(arch)) {
            return Err((
                KernelReason::CompileError,
                format!(
                    "the compiler's output holds no code object for {arch} (it holds {})",
                    held()
                ),
            ));
        }
    }
    let checked: Vec<&CodeObject> = objects
        .iter()
        .filter(|o| wanted_archs.is_empty() || wanted_archs.iter().any(|a| processor(a) == o.target))
        .collect();
    if let Some(o) = checked.iter().find(|o| o.printf) {
        return Err((
            KernelReason::DevicePrintf,
            format!(
                "the kernel calls device printf (or another host call) in the {} code object; output from a kernel is not allowed",
                o.target
            ),
        ));
    }
    let defines = |o: &CodeObject, w: &str| -> Option<KernelMeta> {
        let k = o.kernels.iter().find(|k| k.name == w)?;
        o.symbols
            .iter()
            .any(|s| s.defined && s.name == k.symbol)
            .then(|| k.clone())
    };
    let mut symbol: Option<&String> = None;
    let mut targets = Vec::new();
    for o in &checked {
        let found = match symbol {
            Some(s) => defines(o, s).map(|k| (s, k)),
            None => wanted.iter().find_map(|w| defines(o, w).map(|k| (w, k))),
        };
        let Some((s, kernel)) = found else {
            let names = o
                .kernels
                .iter()
                .map(|k| format!("`{}`", k.name))
                .collect::<Vec<_>>();
            return Err((
                KernelReason::KernelNotFound,
                format!(
                    "the {} code object defines no kernel `{}` with the task's signature `{}` (looked for {}; it defines {})",
                    o.target,
                    signature.name(),
                    signature.text(),
                    symbol.map_or_else(|| wanted.join(", "), |s| s.clone()),
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    },
                ),
            ));
        };
        symbol = Some(s);
        check_args(&o.target, &kernel, params).map_err(|m| (KernelReason::SignatureMismatch, m))?;
        targets.push(TargetKernel {
            target: o.target.clone(),
            kernel,
        });
    }
    Ok(CheckedKernel {
        symbol: symbol.cloned().unwrap_or_default(),
        targets,
    })
}

fn check_args(target: &str, k: &KernelMeta, params: &[aorlta_record::Param]) -> Result<(), String> {
    let explicit: Vec<&ArgMeta> = k.args.iter().filter(|a| !a.is_hidden()).collect();
    if explicit.len() != params.len() {
        return Err(format!(
            "the {target} kernel `{}` takes {} explicit arguments, the signature declares {}",
            k.name,
            explicit.len(),
            params.len()
        ));
    }
    let mut end = 0u64;
    for (i, (p, a)) in params.iter().zip(&explicit).enumerate() {
        let who = if p.name.is_empty() {
            format!("parameter {}", i + 1)
        } else {
            format!("parameter {} `{}`", i + 1, p.name)
        };
        let got = format!("{} of {} bytes at offset {}", a.value_kind, a.size, a.offset);
        let fits = match p.kind {
            ParamKind::Pointer => {
                a.size == 8
                    && (a.value_kind == "global_buffer"
                        || (a.value_kind == "by_value" && a.address_space.as_deref() == Some("global")))
            }
            ParamKind::Scalar(code) => {
                a.value_kind == "by_value" && scalar_size(code).is_none_or(|s| s == a.size)
            }
            ParamKind::Other => a.value_kind == "by_value",
        };
        if !fits {
            let want = match p.kind {
                ParamKind::Pointer => "a global_buffer of 8 bytes".to_string(),
                ParamKind::Scalar(code) => match scalar_size(code) {
                    Some(s) => format!("by_value of {s} bytes (Itanium `{code}`)"),
                    None => format!("by_value (Itanium `{code}`)"),
                },
                ParamKind::Other => "by_value".to_string(),
            };
            return Err(format!(
                "{who} of `{}`: the signature wants {want}; the {target} code object has {got}",
                k.name
            ));
        }
        if a.offset < end {
            return Err(format!(
                "{who} of `{}`: at offset {} in the {target} code object, before the end of the one before ({end})",
                k.name, a.offset
            ));
        }
        end = a.offset.saturating_add(a.size.max(1));
    }
    Ok(())
}

#[cfg(test)]
mod tests;

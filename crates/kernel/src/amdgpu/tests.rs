//! The AMD code-object reader on code objects hipcc and clang made (committed under
//! `tests/fixtures/amdgpu/`, see its README), on hand-built metadata and bundles, and on
//! random bytes.

use super::*;
use proptest::prelude::*;

/// [`super::check_kernel`] on a signature read here, as a task's is when it loads.
fn check_kernel(
    objects: &[CodeObject],
    signature: &str,
    wanted_archs: &[String],
) -> Result<CheckedKernel, (KernelReason, String)> {
    super::check_kernel(objects, &Signature::parse(signature).unwrap(), wanted_archs)
}

const VECTOR_ADD: &str = "void vector_add(const float* a, const float* b, float* c, int n)";
const MANGLED: &str = "_Z10vector_addPKfS0_Pfi";

fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/amdgpu")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn archs(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn layout(k: &KernelMeta) -> Vec<(u64, u64, &str)> {
    k.args
        .iter()
        .filter(|a| !a.is_hidden())
        .map(|a| (a.offset, a.size, a.value_kind.as_str()))
        .collect()
}

const VECTOR_ADD_ARGS: [(u64, u64, &str); 4] = [
    (0, 8, "global_buffer"),
    (8, 8, "global_buffer"),
    (16, 8, "global_buffer"),
    (24, 4, "by_value"),
];

#[test]
fn a_two_target_bundle_is_read() {
    let objects = code_objects(&fixture("vector_add.gfx90a-gfx940.co")).unwrap();
    let targets: Vec<&str> = objects.iter().map(|o| o.target.as_str()).collect();
    assert_eq!(targets, ["gfx90a", "gfx940"]);
    for o in &objects {
        assert!(!o.printf, "{}", o.target);
        assert_eq!(o.kernels.len(), 1);
        let k = &o.kernels[0];
        assert_eq!(
            (k.name.as_str(), k.symbol.as_str()),
            (MANGLED, "_Z10vector_addPKfS0_Pfi.kd")
        );
        assert_eq!(layout(k), VECTOR_ADD_ARGS);
        assert_eq!(k.kernarg_segment_size, 28);
        assert_eq!(k.wavefront_size, 64);
        assert_eq!(k.max_flat_workgroup_size, 1024);
        assert!(k.sgpr_count > 0 && k.vgpr_count > 0);
        assert_eq!((k.group_segment_fixed_size, k.private_segment_fixed_size), (0, 0));
        assert!(
            o.symbols
                .iter()
                .any(|s| s.defined && s.function && s.name == MANGLED)
        );
        assert!(o.symbols.iter().any(|s| s.defined && s.name == k.symbol));
    }
    let checked = check_kernel(&objects, VECTOR_ADD, &archs(&["gfx90a", "gfx940"])).unwrap();
    assert_eq!(checked.symbol, MANGLED);
    let t: Vec<&str> = checked.targets.iter().map(|t| t.target.as_str()).collect();
    assert_eq!(t, ["gfx90a", "gfx940"]);
    // One wanted target checks only its object; none wanted checks all.
    assert_eq!(
        check_kernel(&objects, VECTOR_ADD, &archs(&["gfx940"]))
            .unwrap()
            .targets
            .len(),
        1
    );
    assert_eq!(check_kernel(&objects, VECTOR_ADD, &[]).unwrap().targets.len(), 2);
    // Target features in the wanted name are ignored.
    assert!(check_kernel(&objects, VECTOR_ADD, &archs(&["gfx90a:xnack-"])).is_ok());
}

#[test]
fn a_plain_elf_is_read() {
    let objects = code_objects(&fixture("vector_add.gfx90a.elf")).unwrap();
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0].target, "gfx90a");
    assert_eq!(layout(&objects[0].kernels[0]), VECTOR_ADD_ARGS);
    assert_eq!(
        check_kernel(&objects, VECTOR_ADD, &archs(&["gfx90a"]))
            .unwrap()
            .symbol,
        MANGLED
    );
}

#[test]
fn a_wanted_target_missing_from_the_bundle_is_a_compile_error() {
    let objects = code_objects(&fixture("vector_add.gfx90a-gfx940.co")).unwrap();
    let (code, detail) = check_kernel(&objects, VECTOR_ADD, &archs(&["gfx90a", "gfx942"])).unwrap_err();
    assert_eq!(code, "compile-error");
    assert!(
        detail.contains("gfx942") && detail.contains("gfx90a, gfx940"),
        "{detail}"
    );
    let (code, _) = check_kernel(&[], VECTOR_ADD, &[]).unwrap_err();
    assert_eq!(code, "compile-error");
}

#[test]
fn another_signature_of_a_cxx_kernel_is_not_found() {
    // `long n` mangles to another name, and the plain name is not defined.
    let objects = code_objects(&fixture("vector_add.gfx90a-gfx940.co")).unwrap();
    let long = "void vector_add(const float* a, const float* b, float* c, long n)";
    let (code, detail) = check_kernel(&objects, long, &archs(&["gfx90a"])).unwrap_err();
    assert_eq!(code, "kernel-not-found");
    assert!(
        detail.contains("gfx90a") && detail.contains("_Z10vector_addPKfS0_Pfl, vector_add"),
        "{detail}"
    );
    assert!(detail.contains(MANGLED), "says what it defines: {detail}");
}

#[test]
fn a_long_where_the_kernel_takes_an_int_is_a_signature_mismatch() {
    // An `extern "C"` kernel is found by its plain name whatever the signature's types, so only
    // the metadata can tell `int n` from `long n`: here the kernel takes `long n`.
    let objects = code_objects(&fixture("extern_c.gfx90a.co")).unwrap();
    let (code, detail) = check_kernel(
        &objects,
        "void scale(float* x, float s, int n)",
        &archs(&["gfx90a"]),
    )
    .unwrap_err();
    assert_eq!(code, "signature-mismatch");
    assert!(
        detail.contains("parameter 3 `n`")
            && detail.contains("4 bytes")
            && detail.contains("by_value of 8 bytes"),
        "{detail}"
    );
    let (code, detail) = check_kernel(&objects, "void scale(float* x, long n)", &[]).unwrap_err();
    assert_eq!(code, "signature-mismatch");
    assert!(
        detail.contains("3 explicit arguments") && detail.contains("declares 2"),
        "{detail}"
    );
    let (code, detail) = check_kernel(&objects, "void scale(float x, float s, long n)", &[]).unwrap_err();
    assert_eq!(code, "signature-mismatch");
    assert!(
        detail.contains("parameter 1 `x`") && detail.contains("global_buffer"),
        "{detail}"
    );
}

#[test]
fn hostcall_printf_is_found() {
    let objects = code_objects(&fixture("printf.gfx90a.co")).unwrap();
    assert_eq!(objects.len(), 1);
    assert!(objects[0].printf);
    assert!(
        objects[0].kernels[0]
            .args
            .iter()
            .any(|a| a.value_kind == "hidden_hostcall_buffer")
    );
    assert_eq!(
        layout(&objects[0].kernels[0]),
        VECTOR_ADD_ARGS,
        "hidden arguments are not explicit"
    );
    let (code, detail) = check_kernel(&objects, VECTOR_ADD, &archs(&["gfx90a"])).unwrap_err();
    assert_eq!(code, "device-printf");
    assert!(detail.contains("gfx90a"), "{detail}");
}

#[test]
fn buffered_printf_is_found_by_its_format_strings() {
    // clang 19, code object v5, the host's entry after the device's.
    let objects = code_objects(&fixture("printf_buffered.gfx942.co")).unwrap();
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0].target, "gfx942");
    assert!(objects[0].printf);
    assert!(
        !objects[0].kernels[0].args.iter().any(|a| a.is_hidden()),
        "only amdhsa.printf tells"
    );
    assert_eq!(
        check_kernel(&objects, VECTOR_ADD, &[]).unwrap_err().0,
        "device-printf"
    );
}

#[test]
fn an_extern_c_kernel_is_found_by_its_plain_name() {
    let objects = code_objects(&fixture("extern_c.gfx90a.co")).unwrap();
    let o = &objects[0];
    assert_eq!(
        layout(&o.kernels[0]),
        [(0, 8, "global_buffer"), (8, 4, "by_value"), (16, 8, "by_value")]
    );
    assert!(
        o.symbols
            .iter()
            .any(|s| s.defined && !s.function && s.name == "aorlta_launch")
    );
    let checked = check_kernel(
        &objects,
        "void scale(float* x, float s, long n)",
        &archs(&["gfx90a"]),
    )
    .unwrap();
    assert_eq!(checked.symbol, "scale");
    assert_eq!(checked.targets[0].kernel.kernarg_segment_size, 24);
    let (code, detail) = check_kernel(&objects, "void scale(float* x, double s, long n)", &[]).unwrap_err();
    assert_eq!(code, "signature-mismatch");
    assert!(detail.contains("parameter 2 `s`"), "{detail}");
}

#[test]
fn a_bundle_entry_at_an_odd_offset_is_read() {
    let elf = fixture("vector_add.gfx90a.elf");
    let id = b"hipv4-amdgcn-amd-amdhsa--gfx90a";
    let mut b = bundle::MAGIC.to_vec();
    b.extend(1u64.to_le_bytes());
    let offset = b.len() + 24 + id.len() + 1;
    for v in [offset as u64, elf.len() as u64, id.len() as u64] {
        b.extend(v.to_le_bytes());
    }
    b.extend(id);
    b.push(0);
    b.extend(&elf);
    let objects = code_objects(&b).unwrap();
    assert_eq!(objects, code_objects(&elf).unwrap());
}

#[test]
fn a_hand_built_bundle_of_real_objects_is_read() {
    let a = fixture("vector_add.gfx90a.elf");
    let c = fixture("extern_c.gfx90a.co");
    let c = bundle::entries(&c)
        .unwrap()
        .into_iter()
        .find(|e| !e.is_host())
        .unwrap()
        .bytes
        .to_vec();
    let b = bundle::build(&[
        ("host-x86_64-unknown-linux-gnu-", b""),
        ("hip-amdgcn-amd-amdhsa--gfx90a", &a),
        ("hip-amdgcn-amd-amdhsa--gfx90a", &c),
    ]);
    let objects = code_objects(&b).unwrap();
    assert_eq!(objects.len(), 2);
    // Two objects of one target: each is checked, and one lacks the kernel.
    let (code, _) = check_kernel(&objects, VECTOR_ADD, &archs(&["gfx90a"])).unwrap_err();
    assert_eq!(code, "kernel-not-found");
    // A device entry that is not an ELF is an error, named by its id.
    let b = bundle::build(&[("hip-amdgcn-amd-amdhsa--gfx90a", b"not an elf")]);
    let err = code_objects(&b).unwrap_err();
    assert!(err.0.contains("hip-amdgcn-amd-amdhsa--gfx90a"), "{err}");
    // A host ELF is not a code object.
    let host = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    if host.get(4) == Some(&2) {
        assert!(code_objects(&host).unwrap_err().0.contains("not AMDGPU"));
    }
}

fn s(x: &str) -> Value {
    Value::from(x)
}

fn u(x: u64) -> Value {
    Value::from(x)
}

fn encode(v: &Value) -> Vec<u8> {
    let mut b = Vec::new();
    rmpv::encode::write_value(&mut b, v).unwrap();
    b
}

fn arg(offset: u64, size: u64, kind: &str) -> Value {
    Value::Map(vec![
        (s(".offset"), u(offset)),
        (s(".size"), u(size)),
        (s(".value_kind"), s(kind)),
    ])
}

fn meta(kernels: Vec<Value>, extra: Vec<(Value, Value)>) -> Value {
    let mut m = vec![
        (s("amdhsa.version"), Value::Array(vec![u(1), u(1)])),
        (s("amdhsa.kernels"), Value::Array(kernels)),
    ];
    m.extend(extra);
    Value::Map(m)
}

fn kernel(name: &str, args: Vec<Value>) -> Value {
    Value::Map(vec![
        (s(".name"), s(name)),
        (s(".symbol"), s(&format!("{name}.kd"))),
        (s(".args"), Value::Array(args)),
        (s(".wavefront_size"), u(32)),
    ])
}

fn syms(names: &[&str]) -> Vec<elf::Symbol> {
    names
        .iter()
        .map(|n| elf::Symbol {
            name: n.to_string(),
            defined: true,
            function: !n.ends_with(".kd"),
        })
        .collect()
}

#[test]
fn hand_built_metadata_is_read() {
    let m = meta(
        vec![kernel(
            "k",
            vec![
                arg(0, 8, "global_buffer"),
                arg(8, 4, "by_value"),
                arg(16, 8, "hidden_printf_buffer"),
            ],
        )],
        vec![(s("amdhsa.target"), s("amdgcn-amd-amdhsa--gfx1100:xnack-"))],
    );
    // Through the wire format, as the note holds it.
    let m = decode_metadata(&encode(&m)).unwrap();
    let o = object_of(&m, Some("gfx90a"), syms(&["k", "k.kd"])).unwrap();
    assert_eq!(o.target, "gfx1100", "amdhsa.target wins over the bundle's id");
    assert!(o.printf);
    assert_eq!(o.kernels[0].wavefront_size, 32);
    assert_eq!(o.kernels[0].kernarg_segment_size, 0, "left out: 0");
    // No amdhsa.target: the bundle's id.
    let m = meta(vec![kernel("k", vec![])], vec![]);
    assert_eq!(
        object_of(&m, Some("gfx90a:sramecc+"), vec![]).unwrap().target,
        "gfx90a"
    );
    assert!(object_of(&m, None, vec![]).is_err());
    // An empty amdhsa.printf says nothing.
    let m = meta(
        vec![],
        vec![
            (s("amdhsa.target"), s("amdgcn-amd-amdhsa--gfx90a")),
            (s("amdhsa.printf"), Value::Array(vec![])),
        ],
    );
    assert!(!object_of(&m, None, vec![]).unwrap().printf);
    let m = meta(
        vec![],
        vec![
            (s("amdhsa.target"), s("amdgcn-amd-amdhsa--gfx90a")),
            (s("amdhsa.printf"), Value::Array(vec![s("1:4:%d")])),
        ],
    );
    assert!(object_of(&m, None, vec![]).unwrap().printf);
    // Malformed: wrong types, missing required fields.
    let t = (s("amdhsa.target"), s("amdgcn-amd-amdhsa--gfx90a"));
    for bad in [
        u(1),
        meta(vec![u(1)], vec![t.clone()]),
        meta(vec![Value::Map(vec![])], vec![t.clone()]),
        meta(
            vec![kernel("k", vec![Value::Map(vec![(s(".offset"), u(0))])])],
            vec![t.clone()],
        ),
        meta(
            vec![kernel("k", vec![arg(0, 8, "by_value"), Value::Nil])],
            vec![t.clone()],
        ),
        Value::Map(vec![t.clone(), (s("amdhsa.kernels"), u(3))]),
        Value::Map(vec![(s("amdhsa.target"), u(3))]),
        meta(
            vec![Value::Map(vec![
                (s(".name"), s("k")),
                (s(".sgpr_count"), Value::from(-1i64)),
            ])],
            vec![t.clone()],
        ),
    ] {
        assert!(object_of(&bad, None, vec![]).is_err(), "{bad:?}");
    }
}

/// The plain fixture ELF and where its metadata note's descriptor lies in it.
fn elf_and_note() -> (Vec<u8>, std::ops::Range<usize>) {
    let d = fixture("vector_add.gfx90a.elf");
    let header = FileHeader64::<LittleEndian>::parse(&d[..]).unwrap();
    let desc = metadata_note(header, header.endian().unwrap(), &d).unwrap();
    let start = desc.as_ptr() as usize - d.as_ptr() as usize;
    let range = start..start + desc.len();
    (d, range)
}

/// The fixture ELF with its note's descriptor replaced by `note`, padded with zeros.
fn with_note(note: &[u8]) -> Vec<u8> {
    let (mut d, range) = elf_and_note();
    assert!(note.len() <= range.len(), "the note must fit");
    d[range.clone()].fill(0);
    d[range.start..range.start + note.len()].copy_from_slice(note);
    d
}

fn note_error(note: &[u8]) -> String {
    code_objects(&with_note(note)).unwrap_err().0
}

#[test]
fn the_metadata_note_round_trips_through_rmpv() {
    let (d, range) = elf_and_note();
    let meta = decode_metadata(&d[range.clone()]).unwrap();
    let again = encode(&meta);
    // Re-encoded in the smallest forms (padding after it is allowed), the note reads the same.
    let objects = code_objects(&with_note(&again)).unwrap();
    assert_eq!(objects, code_objects(&d).unwrap());
    assert_eq!(
        get(&meta, "amdhsa.version")
            .and_then(Value::as_array)
            .map(Vec::len),
        Some(2)
    );
    assert_eq!(get(&meta, "absent"), None);
}

#[test]
fn a_truncated_or_malformed_note_is_an_error_that_says_what_is_wrong() {
    let (d, range) = elf_and_note();
    let good = encode(&decode_metadata(&d[range]).unwrap());
    // Cut anywhere, the value ends early.
    for cut in 0..good.len() {
        let err = decode_metadata(&good[..cut]).unwrap_err().0;
        assert!(
            err.contains("the metadata note: malformed MessagePack at byte"),
            "cut at {cut}: {err}"
        );
    }
    // Cut in the note itself (inside the first kernel), the zeros of its padding read as small
    // integers where maps and strings should be.
    let err = note_error(&good[..40]);
    assert!(err.contains("the metadata"), "{err}");
    assert!(note_error(&[]).contains("not a map"));
    let mut extra = good.clone();
    extra.extend([0, 0, 0]);
    assert!(decode_metadata(&extra).is_ok(), "padding");
    extra.push(0x01);
    assert!(decode_metadata(&extra).is_err());
    let err = note_error(&[0x80, 0x00, 0x01]);
    assert!(
        err.contains("the metadata note: malformed MessagePack at byte 1: bytes after the value"),
        "{err}"
    );
    // A string that is not UTF-8 where the target should be is not a string.
    let err = note_error(&[
        0x81, 0xad, b'a', b'm', b'd', b'h', b's', b'a', b'.', b't', b'a', b'r', b'g', b'e', b't', 0xa2, 0xff,
        0xfe,
    ]);
    assert!(err.contains("amdhsa.target is not a string"), "{err}");
}

#[test]
fn huge_declared_lengths_and_deep_nesting_are_refused() {
    // A 4-GiB string, binary, extension, array and map, each in a handful of bytes: the note
    // ends long before, and nothing that large is reserved.
    for b in [
        &[0xdb, 0xff, 0xff, 0xff, 0xff, b'a'][..],
        &[0xc6, 0xff, 0xff, 0xff, 0xff, 0],
        &[0xc9, 0xff, 0xff, 0xff, 0xff, 1, 0],
        &[0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0],
        &[0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0, 0xc0],
    ] {
        let err = note_error(b);
        assert!(
            err.contains("it ends inside a value") || err.contains("where a value should start"),
            "{b:02x?}: {err}"
        );
    }
    let nest = |n: usize| {
        let mut b = vec![0x81, 0xa1, b'k'];
        b.extend(std::iter::repeat_n(0x91, n - 1));
        b.extend([0xa1, b'x']);
        b
    };
    // Nested as deep as allowed, ending in a string: read (and then refused as metadata).
    assert!(note_error(&nest(MAX_NESTING)).contains("no amdhsa.target"));
    let err = note_error(&nest(MAX_NESTING + 1));
    assert!(err.contains("nested deeper than"), "{err}");
    assert!(decode_metadata(&vec![0x91; 100_000]).is_err());
}

fn one(kernels: Vec<Value>, symbols: &[&str]) -> Vec<CodeObject> {
    let m = meta(
        kernels,
        vec![(s("amdhsa.target"), s("amdgcn-amd-amdhsa--gfx90a"))],
    );
    vec![object_of(&m, None, syms(symbols)).unwrap()]
}

#[test]
fn the_signature_check_on_hand_built_kernels() {
    let sig = "void k(const float* x, unsigned char c, short s, double d, bool b, __half h)";
    let good = vec![
        arg(0, 8, "global_buffer"),
        arg(8, 1, "by_value"),
        arg(10, 2, "by_value"),
        arg(16, 8, "by_value"),
        arg(24, 1, "by_value"),
        arg(26, 2, "by_value"),
        arg(32, 8, "hidden_block_count_x"),
    ];
    assert_eq!(
        check_kernel(&one(vec![kernel("k", good.clone())], &["k", "k.kd"]), sig, &[])
            .unwrap()
            .symbol,
        "k"
    );
    // A pointer passed by value in the global address space.
    let mut by_value_pointer = good.clone();
    by_value_pointer[0] = Value::Map(vec![
        (s(".offset"), u(0)),
        (s(".size"), u(8)),
        (s(".value_kind"), s("by_value")),
        (s(".address_space"), s("global")),
    ]);
    assert!(
        check_kernel(
            &one(vec![kernel("k", by_value_pointer)], &["k", "k.kd"]),
            sig,
            &[]
        )
        .is_ok()
    );
    // Offsets that go back.
    let mut back = good.clone();
    back[2] = arg(4, 2, "by_value");
    let (code, detail) = check_kernel(&one(vec![kernel("k", back)], &["k", "k.kd"]), sig, &[]).unwrap_err();
    assert_eq!(code, "signature-mismatch");
    assert!(
        detail.contains("parameter 3 `s`") && detail.contains("offset 4"),
        "{detail}"
    );
    // A scalar the code object passes as a buffer.
    let mut buffer = good.clone();
    buffer[3] = arg(16, 8, "global_buffer");
    let (_, detail) = check_kernel(&one(vec![kernel("k", buffer)], &["k", "k.kd"]), sig, &[]).unwrap_err();
    assert!(
        detail.contains("parameter 4 `d`") && detail.contains("Itanium `d`"),
        "{detail}"
    );
    // The kernel's metadata without its descriptor symbol is not a kernel.
    let (code, _) = check_kernel(&one(vec![kernel("k", good.clone())], &["k"]), sig, &[]).unwrap_err();
    assert_eq!(code, "kernel-not-found");
    // The mangled name is preferred to the plain one.
    let mangled = aorlta_record::mangle(sig).unwrap().1;
    let both = one(
        vec![kernel("k", good.clone()), kernel(&mangled, good)],
        &["k", "k.kd", &mangled, &format!("{mangled}.kd")],
    );
    assert_eq!(check_kernel(&both, sig, &[]).unwrap().symbol, mangled);
}

#[test]
fn damaged_fixtures_are_errors_not_panics() {
    for name in [
        "vector_add.gfx90a-gfx940.co",
        "vector_add.gfx90a.elf",
        "printf_buffered.gfx942.co",
    ] {
        let good = fixture(name);
        for cut in (0..good.len()).step_by(97) {
            let _ = code_objects(&good[..cut]);
        }
        assert!(
            code_objects(&good[..good.len() / 2]).is_err(),
            "{name} cut in half"
        );
        for at in (0..good.len()).step_by(13) {
            let mut b = good.clone();
            b[at] ^= 0xa5;
            let _ = code_objects(&b);
        }
    }
}

proptest! {
    #[test]
    fn random_notes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(meta) = decode_metadata(&b) {
            let _ = object_of(&meta, Some("gfx90a"), vec![]);
        }
    }

    #[test]
    fn random_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = code_objects(&b);
    }

    #[test]
    fn random_bytes_after_a_magic_never_panic(
        magic in prop_oneof![Just(bundle::MAGIC.to_vec()), Just(b"\x7fELF\x02\x01\x01".to_vec())],
        b in proptest::collection::vec(any::<u8>(), 0..2048),
    ) {
        let mut d = magic;
        d.extend(b);
        let _ = code_objects(&d);
    }

    #[test]
    fn a_damaged_real_object_never_panics(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        let mut b = fixture("vector_add.gfx90a.elf");
        let len = b.len();
        for (at, v) in edits {
            b[at % len] = v;
        }
        if let Ok(objects) = code_objects(&b) {
            let _ = check_kernel(&objects, VECTOR_ADD, &[]);
        }
    }
}

//! The symbol a kernel is looked up by: the Itanium C++ mangling of the task's declared
//! signature (what `nvcc` gives a `__global__` function of that signature), or the plain name of
//! an `extern "C"` kernel.
//!
//! Only what a kernel signature needs is covered: a `void` function at global scope whose
//! parameters are builtin arithmetic types, CUDA's named types (`__half`, `__nv_bfloat16`,
//! `float4` …), the fixed-width typedefs (`int32_t`, `size_t` … as on LP64 Linux), pointers,
//! references and arrays (which decay to pointers), with `const`, `volatile` and `__restrict__`
//! qualifiers. Top-level qualifiers of a parameter are dropped, as the ABI says, and repeated
//! compound types are written as substitutions (`S_`, `S0_` …).
//!
//! Written here because no crate mangles: the Itanium crates (`cpp_demangle` and the like) only
//! demangle, and compilers mangle from their own syntax trees, not from a declared signature.

/// Why a signature could not be mangled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("signature `{signature}`: {message}")]
pub struct MangleError {
    /// The signature as written.
    pub signature: String,
    /// What is not supported or malformed.
    pub message: String,
}

/// A parsed parameter type.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ty {
    /// A builtin type's one-letter code.
    Builtin(&'static str),
    /// A named (class) type.
    Named(String),
    /// CV-qualified: restrict, volatile, const.
    Qualified {
        restrict: bool,
        volatile: bool,
        konst: bool,
        inner: Box<Ty>,
    },
    /// Pointer to.
    Pointer(Box<Ty>),
    /// Lvalue reference to.
    Reference(Box<Ty>),
}

/// A kernel signature read once, when its task loads: the text as written, the kernel's name,
/// its Itanium-mangled symbol and its parameters. The checks take this form and never read the
/// text again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    text: String,
    name: String,
    mangled: String,
    params: Vec<Param>,
}

impl Signature {
    /// Reads a declared signature (`void vector_add(const float* a, …, int n)`).
    pub fn parse(signature: &str) -> Result<Self, MangleError> {
        let (name, mangled) = mangle(signature)?;
        let params = checked_parameters(signature)?;
        Ok(Signature {
            text: signature.to_string(),
            name,
            mangled,
            params,
        })
    }

    /// The signature as written in the task.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The kernel's name (`vector_add`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The Itanium-mangled symbol (`_Z10vector_addPKfS0_Pfi`).
    pub fn mangled(&self) -> &str {
        &self.mangled
    }

    /// Every symbol a kernel of this signature may have: the mangled one, then the plain name
    /// (an `extern "C"` kernel).
    pub fn symbols(&self) -> Vec<String> {
        vec![self.mangled.clone(), self.name.clone()]
    }

    /// The parameters, in order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }
}

/// The kernel's name and its Itanium-mangled symbol, e.g. for
/// `void vector_add(const float* a, const float* b, float* c, int n)`:
/// `("vector_add", "_Z10vector_addPKfS0_Pfi")`.
pub fn mangle(signature: &str) -> Result<(String, String), MangleError> {
    let err = |m: &str| MangleError {
        signature: signature.to_string(),
        message: m.to_string(),
    };
    let stripped = strip_attributes(signature);
    let open = stripped.find('(').ok_or_else(|| err("no `(`"))?;
    let close = stripped.rfind(')').ok_or_else(|| err("no `)`"))?;
    if close < open {
        return Err(err("`)` before `(`"));
    }
    let head = &stripped[..open];
    let words: Vec<&str> = head.split_whitespace().collect();
    let name = words
        .last()
        .copied()
        .filter(|w| *w != "void")
        .ok_or_else(|| err("no kernel name"))?;
    if !is_ident(name) {
        return Err(err("the kernel name is not an identifier"));
    }
    let ret: Vec<&str> = words[..words.len() - 1]
        .iter()
        .copied()
        .filter(|w| {
            !matches!(
                *w,
                "__global__" | "static" | "inline" | "__forceinline__" | "extern"
            )
        })
        .collect();
    if ret != ["void"] {
        return Err(err("a kernel returns `void`"));
    }
    let params_src = stripped[open + 1..close].trim();
    let mut params = Vec::new();
    if !params_src.is_empty() && params_src != "void" {
        for p in params_src.split(',') {
            params.push(parse_param(p).map_err(|m| err(&m))?.0);
        }
    }
    let mut out = format!("_Z{}{}", name.len(), name);
    if params.is_empty() {
        out.push('v');
    }
    let mut subs: Vec<String> = Vec::new();
    for p in &params {
        mangle_ty(p, &mut subs, &mut out);
    }
    Ok((name.to_string(), out))
}

/// What a kernel parameter is, as far as passing an argument goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A pointer (or array, or reference): passed as a device address.
    Pointer,
    /// A builtin scalar, by its Itanium code (`i` int, `j` unsigned, `l` long, `m` unsigned
    /// long, `x`/`y` long long, `f` float, `d` double, `b` bool, `c`/`a`/`h` chars, `s`/`t`
    /// shorts).
    Scalar(&'static str),
    /// A class type passed by value (`__half`): not supported as a task scalar.
    Other,
}

/// One parameter of a signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// The parameter's name (empty when the signature gives none).
    pub name: String,
    /// How it is passed.
    pub kind: ParamKind,
    /// For a pointer (or reference, or array), what it points to; `None` for anything else.
    pub pointee: Option<Pointee>,
}

/// What a pointer parameter points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointee {
    /// The element type without its qualifiers, in its Itanium form (`f` float, `i` int, `j`
    /// unsigned int, `l` long, `6__half`, `Pf` for a pointer to float).
    pub code: String,
    /// True when the element is `const` (`const float*`): the kernel cannot write through it.
    pub konst: bool,
}

impl Pointee {
    /// The element type as C++ writes it (`float`, `__half`), for messages.
    pub fn c_name(&self) -> String {
        if let Some(inner) = self.code.strip_prefix('P') {
            let inner = Pointee {
                code: inner.to_string(),
                konst: false,
            };
            return format!("{}*", inner.c_name());
        }
        let name = match self.code.as_str() {
            "f" => "float",
            "d" => "double",
            "i" => "int",
            "j" => "unsigned int",
            "l" => "long",
            "m" => "unsigned long",
            "x" => "long long",
            "y" => "unsigned long long",
            "s" => "short",
            "t" => "unsigned short",
            "c" => "char",
            "a" => "signed char",
            "h" => "unsigned char",
            "b" => "bool",
            "v" => "void",
            other => {
                let named = other.trim_start_matches(|c: char| c.is_ascii_digit());
                if !named.is_empty() && named.len() < other.len() {
                    return named.to_string();
                }
                return other.to_string();
            }
        };
        name.to_string()
    }
}

/// The parameters of a kernel signature, in order.
pub fn signature_parameters(signature: &str) -> Result<Vec<Param>, MangleError> {
    mangle(signature)?;
    checked_parameters(signature)
}

/// [`signature_parameters`] of a signature [`mangle`] has already read.
fn checked_parameters(signature: &str) -> Result<Vec<Param>, MangleError> {
    let stripped = strip_attributes(signature);
    let (open, close) = match (stripped.find('('), stripped.rfind(')')) {
        (Some(o), Some(c)) => (o, c),
        _ => unreachable!("mangle checked the parentheses"),
    };
    let src = stripped[open + 1..close].trim();
    if src.is_empty() || src == "void" {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for p in src.split(',') {
        let (ty, name) = parse_param(p).map_err(|m| MangleError {
            signature: signature.to_string(),
            message: m,
        })?;
        let kind = match ty {
            Ty::Pointer(_) | Ty::Reference(_) => ParamKind::Pointer,
            Ty::Builtin(c) => ParamKind::Scalar(c),
            _ => ParamKind::Other,
        };
        let pointee = match &ty {
            Ty::Pointer(inner) | Ty::Reference(inner) => Some(match inner.as_ref() {
                Ty::Qualified { konst, inner, .. } => Pointee {
                    code: plain(inner),
                    konst: *konst,
                },
                other => Pointee {
                    code: plain(other),
                    konst: false,
                },
            }),
            _ => None,
        };
        out.push(Param {
            name: name.unwrap_or_default(),
            kind,
            pointee,
        });
    }
    Ok(out)
}

fn strip_attributes(s: &str) -> String {
    // `__launch_bounds__(...)` and `extern "C"` carry nothing the mangling needs.
    let mut s = s.replace("extern \"C\"", " ");
    while let Some(i) = s.find("__launch_bounds__") {
        let rest = &s[i..];
        let end = rest.find(')').map(|e| i + e + 1).unwrap_or(s.len());
        s.replace_range(i..end, " ");
    }
    s
}

fn is_ident(w: &str) -> bool {
    let mut c = w.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Splits `const float* __restrict__ in` into tokens: words, `*`, `&`, `[`, `]`.
fn tokens(p: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in p.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            if matches!(c, '*' | '&' | '[' | ']') {
                out.push(c.to_string());
            }
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

const SPECIFIERS: &[&str] = &[
    "signed", "unsigned", "char", "short", "int", "long", "float", "double", "bool", "void",
];

fn builtin(words: &[&str]) -> Option<&'static str> {
    let count = |w: &str| words.iter().filter(|x| **x == w).count();
    let unsigned = count("unsigned") > 0;
    let signed = count("signed") > 0;
    let longs = count("long");
    if count("float") == 1 && words.len() == 1 {
        return Some("f");
    }
    if count("double") == 1 {
        return match (longs, words.len()) {
            (0, 1) => Some("d"),
            (1, 2) => Some("e"),
            _ => None,
        };
    }
    if count("bool") == 1 && words.len() == 1 {
        return Some("b");
    }
    if count("void") == 1 && words.len() == 1 {
        return Some("v");
    }
    if count("char") == 1 {
        return match (signed, unsigned) {
            (false, false) if words.len() == 1 => Some("c"),
            (true, false) => Some("a"),
            (false, true) => Some("h"),
            _ => None,
        };
    }
    if count("short") == 1 {
        return Some(if unsigned { "t" } else { "s" });
    }
    match longs {
        0 => Some(if unsigned { "j" } else { "i" }),
        1 => Some(if unsigned { "m" } else { "l" }),
        2 => Some(if unsigned { "y" } else { "x" }),
        _ => None,
    }
}

fn typedef(word: &str) -> Option<Ty> {
    let b = |c| Some(Ty::Builtin(c));
    let n = |s: &str| Some(Ty::Named(s.to_string()));
    match word {
        "int8_t" => b("a"),
        "uint8_t" => b("h"),
        "int16_t" => b("s"),
        "uint16_t" => b("t"),
        "int32_t" => b("i"),
        "uint32_t" => b("j"),
        "int64_t" | "ssize_t" | "ptrdiff_t" | "intptr_t" => b("l"),
        "uint64_t" | "size_t" | "uintptr_t" => b("m"),
        "half" | "__half" => n("__half"),
        "nv_bfloat16" | "__nv_bfloat16" => n("__nv_bfloat16"),
        "half2" | "__half2" => n("__half2"),
        "nv_bfloat162" | "__nv_bfloat162" => n("__nv_bfloat162"),
        _ => None,
    }
}

fn parse_param(p: &str) -> Result<(Ty, Option<String>), String> {
    let toks = tokens(p);
    if toks.is_empty() {
        return Err("an empty parameter".into());
    }
    // The base: qualifiers and type words up to the first `*`, `&` or `[`.
    let mut i = 0;
    let (mut konst, mut volatile) = (false, false);
    let mut spec: Vec<&str> = Vec::new();
    let mut named: Option<Ty> = None;
    let mut pname: Option<String> = None;
    while i < toks.len() && !matches!(toks[i].as_str(), "*" | "&" | "[") {
        match toks[i].as_str() {
            "const" => konst = true,
            "volatile" => volatile = true,
            "__restrict__" | "__restrict" | "restrict" => {}
            "struct" | "class" | "union" | "enum" => {}
            w if SPECIFIERS.contains(&w) => spec.push(w),
            w if spec.is_empty() && named.is_none() && is_ident(w) => {
                named = Some(typedef(w).unwrap_or_else(|| Ty::Named(w.to_string())));
            }
            w if is_ident(w) && pname.is_none() => pname = Some(w.to_string()),
            w => return Err(format!("unexpected `{w}` in parameter `{}`", p.trim())),
        }
        i += 1;
    }
    let mut ty = match (named, spec.is_empty()) {
        (Some(t), true) => t,
        (None, false) => Ty::Builtin(
            builtin(&spec)
                .ok_or_else(|| format!("unsupported type `{}` in `{}`", spec.join(" "), p.trim()))?,
        ),
        _ => return Err(format!("cannot read the type of parameter `{}`", p.trim())),
    };
    ty = qualify(ty, false, volatile, konst);
    // Declarator: `*` followed by its own qualifiers, `&`, `[]`.
    let mut top = (false, false, false);
    while i < toks.len() {
        match toks[i].as_str() {
            "*" => {
                ty = Ty::Pointer(Box::new(qualify_top(ty, top)));
                top = (false, false, false);
            }
            "&" => {
                ty = Ty::Reference(Box::new(qualify_top(ty, top)));
                top = (false, false, false);
            }
            "const" => top.2 = true,
            "volatile" => top.1 = true,
            "__restrict__" | "__restrict" | "restrict" => top.0 = true,
            "[" => {
                // An array parameter decays to a pointer; its bound is ignored.
                let close = toks[i..].iter().position(|t| t == "]").map(|p| p + i);
                let close = close.ok_or_else(|| format!("unclosed `[` in `{}`", p.trim()))?;
                ty = Ty::Pointer(Box::new(qualify_top(ty, top)));
                top = (false, false, false);
                i = close;
            }
            w if is_ident(w) && pname.is_none() => pname = Some(w.to_string()),
            w => return Err(format!("unexpected `{w}` in parameter `{}`", p.trim())),
        }
        i += 1;
    }
    // Top-level qualifiers of the parameter itself are not part of the function type.
    let ty = match ty {
        Ty::Qualified { inner, .. } => *inner,
        other => other,
    };
    Ok((ty, pname))
}

fn qualify_top(ty: Ty, (r, v, c): (bool, bool, bool)) -> Ty {
    qualify(ty, r, v, c)
}

fn qualify(ty: Ty, restrict: bool, volatile: bool, konst: bool) -> Ty {
    if !(restrict || volatile || konst) {
        return ty;
    }
    Ty::Qualified {
        restrict,
        volatile,
        konst,
        inner: Box::new(ty),
    }
}

/// The full mangling of a type, without substitutions (the substitution table's key).
fn plain(ty: &Ty) -> String {
    match ty {
        Ty::Builtin(c) => (*c).to_string(),
        Ty::Named(n) => format!("{}{}", n.len(), n),
        Ty::Qualified {
            restrict,
            volatile,
            konst,
            inner,
        } => {
            let mut s = String::new();
            if *restrict {
                s.push('r');
            }
            if *volatile {
                s.push('V');
            }
            if *konst {
                s.push('K');
            }
            s + &plain(inner)
        }
        Ty::Pointer(inner) => format!("P{}", plain(inner)),
        Ty::Reference(inner) => format!("R{}", plain(inner)),
    }
}

fn seq_id(i: usize) -> String {
    if i == 0 {
        return "S_".into();
    }
    let mut n = i - 1;
    let digits = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut s = Vec::new();
    loop {
        s.push(digits[n % 36]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    format!("S{}_", String::from_utf8_lossy(&s))
}

fn mangle_ty(ty: &Ty, subs: &mut Vec<String>, out: &mut String) {
    if let Ty::Builtin(c) = ty {
        out.push_str(c);
        return;
    }
    let key = plain(ty);
    if let Some(i) = subs.iter().position(|s| *s == key) {
        out.push_str(&seq_id(i));
        return;
    }
    match ty {
        Ty::Builtin(_) => unreachable!("handled above"),
        Ty::Named(_) => out.push_str(&key),
        Ty::Qualified {
            restrict,
            volatile,
            konst,
            inner,
        } => {
            if *restrict {
                out.push('r');
            }
            if *volatile {
                out.push('V');
            }
            if *konst {
                out.push('K');
            }
            mangle_ty(inner, subs, out);
        }
        Ty::Pointer(inner) => {
            out.push('P');
            mangle_ty(inner, subs, out);
        }
        Ty::Reference(inner) => {
            out.push('R');
            mangle_ty(inner, subs, out);
        }
    }
    subs.push(key);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(sig: &str) -> String {
        mangle(sig).unwrap().1
    }

    #[test]
    fn common_kernel_signatures() {
        assert_eq!(
            m("void vector_add(const float* a, const float* b, float* c, int n)"),
            "_Z10vector_addPKfS0_Pfi"
        );
        assert_eq!(
            m("void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)"),
            "_Z9transposePKfPfii"
        );
        assert_eq!(m("__global__ void k()"), "_Z1kv");
        assert_eq!(m("void k(void)"), "_Z1kv");
        assert_eq!(
            m("void k(unsigned int n, unsigned long long m, long x, size_t s)"),
            "_Z1kjylm"
        );
        assert_eq!(m("void k(const int n, float* const p)"), "_Z1kiPf");
        assert_eq!(m("void k(const __half* a, __half* b)"), "_Z1kPK6__halfPS_");
        assert_eq!(
            m("void k(const half* a, half* b, const half* c)"),
            "_Z1kPK6__halfPS_S1_"
        );
        assert_eq!(m("void k(float** p, float** q)"), "_Z1kPPfS0_");
        assert_eq!(m("void k(float a[], int& n)"), "_Z1kPfRi");
        assert_eq!(m("void k(const float4* a, float4* b)"), "_Z1kPK6float4PS_");
        assert_eq!(m("void k(volatile int* a, const volatile int* b)"), "_Z1kPViPVKi");
        assert_eq!(
            m("void k(signed char a, unsigned char b, char c, short d, unsigned short e)"),
            "_Z1kahcst"
        );
        assert_eq!(m("__global__ void __launch_bounds__(256) k(double d)"), "_Z1kd");
    }

    #[test]
    fn parameters_name_pointers_and_scalars() {
        let ps =
            signature_parameters("void t(const float* __restrict__ in, float* out, int rows, unsigned cols)")
                .unwrap();
        let got: Vec<(&str, ParamKind)> = ps.iter().map(|p| (p.name.as_str(), p.kind)).collect();
        assert_eq!(
            got,
            vec![
                ("in", ParamKind::Pointer),
                ("out", ParamKind::Pointer),
                ("rows", ParamKind::Scalar("i")),
                ("cols", ParamKind::Scalar("j")),
            ]
        );
        assert!(signature_parameters("void k()").unwrap().is_empty());
        let ps = signature_parameters(
            "void t(const __half* __restrict__ a, __nv_bfloat16* b, int* const c, float** d)",
        )
        .unwrap();
        let got: Vec<(String, bool, String)> = ps
            .iter()
            .map(|p| {
                let e = p.pointee.as_ref().unwrap();
                (e.code.clone(), e.konst, e.c_name())
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("6__half".into(), true, "__half".into()),
                ("13__nv_bfloat16".into(), false, "__nv_bfloat16".into()),
                ("i".into(), false, "int".into()),
                ("Pf".into(), false, "float*".into()),
            ]
        );
    }

    #[test]
    fn sequence_ids_count_in_base_36() {
        assert_eq!(seq_id(0), "S_");
        assert_eq!(seq_id(1), "S0_");
        assert_eq!(seq_id(10), "S9_");
        assert_eq!(seq_id(11), "SA_");
        assert_eq!(seq_id(37), "S10_");
    }

    #[test]
    fn symbols_list_mangled_then_plain() {
        assert_eq!(
            Signature::parse("void f(int n)").unwrap().symbols(),
            vec!["_Z1fi".to_string(), "f".to_string()]
        );
    }

    #[test]
    fn malformed_signatures_are_errors() {
        assert!(mangle("int f(int n)").is_err());
        assert!(mangle("void (int n)").is_err());
        assert!(mangle("void f int n").is_err());
        assert!(mangle("void f(long long long x)").is_err());
        assert!(mangle("void f(int n = 3)").is_err());
    }
}

//! Fenced code blocks in markdown and the kernels they define. One pass over the lines finds
//! the blocks; one pass over a block's `__global__` declarations finds a kernel, each
//! declaration scanned only up to its body, its `;` or the next `__global__`.

/// A fenced code block: its language label (lower case, first word) and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Block<'s> {
    /// The first word of the info string, lower case (empty when unlabelled).
    pub lang: String,
    /// The text between the fences.
    pub body: &'s str,
}

const CPP_LABELS: &[&str] = &[
    "cuda", "cu", "cuh", "cpp", "c++", "cxx", "cc", "c", "h", "hpp", "hip",
];

impl Block<'_> {
    /// Whether the block is C++, CUDA or HIP (by label, or by content when unlabelled).
    pub(super) fn is_cpp(&self) -> bool {
        if self.lang.is_empty() {
            return ["__global__", "__device__", "#include", "#define", "extern \"C\""]
                .iter()
                .any(|m| self.body.contains(m));
        }
        CPP_LABELS.contains(&self.lang.as_str())
    }
}

/// The fence at the start of `line` (up to three spaces of indent): its character and length.
fn fence(line: &str) -> Option<(u8, usize)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let b = trimmed.as_bytes();
    let c = *b.first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = b.iter().take_while(|&&x| x == c).count();
    (n >= 3).then_some((c, n))
}

/// The fenced blocks of `s`, in order. An unclosed fence runs to the end.
pub(super) fn blocks(s: &str) -> Vec<Block<'_>> {
    let mut out = Vec::new();
    // (fence char, fence length, label, body start)
    let mut open: Option<(u8, usize, String, usize)> = None;
    let mut pos = 0;
    for line in s.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        match &open {
            None => {
                if let Some((c, n)) = fence(content) {
                    let info = content.trim_start_matches(' ')[n..].trim();
                    if c == b'`' && info.contains('`') {
                        continue;
                    }
                    let lang = info
                        .split(|ch: char| ch.is_whitespace() || ch == '{' || ch == ',')
                        .next()
                        .unwrap_or("")
                        .trim_start_matches('.')
                        .to_ascii_lowercase();
                    open = Some((c, n, lang, pos));
                }
            }
            Some((c, n, _, body_start)) => {
                if let Some((c2, n2)) = fence(content)
                    && c2 == *c
                    && n2 >= *n
                    && content.trim_start_matches(' ')[n2..].trim().is_empty()
                {
                    let body = &s[*body_start..start];
                    if let Some((_, _, lang, _)) = open.take() {
                        out.push(Block { lang, body });
                    }
                }
            }
        }
    }
    if let Some((_, _, lang, body_start)) = open {
        out.push(Block {
            lang,
            body: &s[body_start.min(s.len())..],
        });
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Whether `src` has a `__global__` declaration of a function named `name`.
pub(super) fn defines_kernel(src: &str, name: &str) -> bool {
    const GLOBAL: &str = "__global__";
    if name.is_empty() {
        return false;
    }
    let b = src.as_bytes();
    let starts: Vec<usize> = src.match_indices(GLOBAL).map(|(i, _)| i).collect();
    for (k, &g) in starts.iter().enumerate() {
        let limit = starts.get(k + 1).copied().unwrap_or(b.len());
        let mut i = g + GLOBAL.len();
        while i < limit {
            let c = b[i];
            if c == b'{' || c == b';' {
                break;
            }
            if is_ident(c) && (i == 0 || !is_ident(b[i - 1])) {
                let mut j = i;
                while j < limit && is_ident(b[j]) {
                    j += 1;
                }
                if &src[i..j] == name {
                    let mut k2 = j;
                    while k2 < b.len() && b[k2].is_ascii_whitespace() {
                        k2 += 1;
                    }
                    if b.get(k2) == Some(&b'(') {
                        return true;
                    }
                }
                i = j;
                continue;
            }
            i += 1;
        }
    }
    false
}

/// The declaration of the `__global__` function `name` in `src`, reduced to `void name(params)`
/// (qualifiers, attributes and the body left out), as the signature reader takes it; `None` when
/// `src` declares no such kernel or its parameter list is not closed.
pub(crate) fn kernel_declaration(src: &str, name: &str) -> Option<String> {
    if !defines_kernel(src, name) {
        return None;
    }
    let b = src.as_bytes();
    for (g, _) in src.match_indices("__global__") {
        let mut i = g + "__global__".len();
        while i < b.len() && b[i] != b'{' && b[i] != b';' {
            if is_ident(b[i]) && !is_ident(b[i - 1]) {
                let mut j = i;
                while j < b.len() && is_ident(b[j]) {
                    j += 1;
                }
                let mut open = j;
                while open < b.len() && b[open].is_ascii_whitespace() {
                    open += 1;
                }
                if &src[i..j] == name && b.get(open) == Some(&b'(') {
                    let mut depth = 0usize;
                    for (k, &c) in b.iter().enumerate().skip(open) {
                        match c {
                            b'(' => depth += 1,
                            b')' => {
                                depth -= 1;
                                if depth == 0 {
                                    return Some(format!("void {name}{}", &src[open..=k]));
                                }
                            }
                            _ => {}
                        }
                    }
                    return None;
                }
                i = j;
                continue;
            }
            i += 1;
        }
    }
    None
}

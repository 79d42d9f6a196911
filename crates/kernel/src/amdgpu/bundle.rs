//! Reading a clang offload bundle (what `hipcc --genco` writes): the magic
//! `__CLANG_OFFLOAD_BUNDLE__`, a little-endian u64 entry count, then per entry a u64 offset, a
//! u64 size, a u64 id length and the id (`hipv4-amdgcn-amd-amdhsa--gfx90a`,
//! `host-x86_64-unknown-linux--`), each entry's bytes lying at its offset in the file.
//!
//! Every count, offset and length is checked against the file's size before it is used; a
//! compressed bundle (`CCOB`, `--offload-compress`) is refused, not inflated.
//!
//! Hand-written because no crate reads the container: `object` reads the ELF files inside it,
//! and clang's bundler exists only as LLVM's C++ tool.

/// The first bytes of an uncompressed offload bundle.
pub(crate) const MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";

/// The first bytes of a compressed one.
pub(crate) const COMPRESSED_MAGIC: &[u8] = b"CCOB";

/// One entry of a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry<'a> {
    /// Its id: offload kind, then triple, then `-` and the target id (`--gfx90a:xnack-` where the
    /// triple has no environment).
    pub id: String,
    /// Its bytes (empty for the host's placeholder).
    pub bytes: &'a [u8],
}

impl Entry<'_> {
    /// The offload kind: `host`, `hip`, `hipv4`, `openmp` ….
    pub(crate) fn kind(&self) -> &str {
        self.id.split('-').next().unwrap_or("")
    }

    /// An entry for the host (empty for a device-only compile), not a device code object.
    pub(crate) fn is_host(&self) -> bool {
        self.kind() == "host"
    }

    /// The target id after the triple (`gfx90a`, `gfx90a:xnack-`), if the id has one: what
    /// follows the triple's four parts (`amdgcn-amd-amdhsa-`, whose environment is empty).
    pub(crate) fn target_id(&self) -> Option<&str> {
        let mut parts = self.id.splitn(6, '-');
        let _kind = parts.next()?;
        let (_arch, _vendor, _os, _env) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        parts.next().filter(|t| !t.is_empty())
    }
}

/// Whether `bytes` start as a bundle (compressed or not).
pub(crate) fn is_bundle(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC) || bytes.starts_with(COMPRESSED_MAGIC)
}

fn u64_at(d: &[u8], at: usize) -> Result<u64, String> {
    let end = at.checked_add(8).ok_or("an offset past the address space")?;
    let b = d
        .get(at..end)
        .ok_or_else(|| format!("the bundle's header ends early, at byte {at} of {}", d.len()))?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Ok(u64::from_le_bytes(a))
}

fn usize_at(d: &[u8], at: usize) -> Result<usize, String> {
    let v = u64_at(d, at)?;
    usize::try_from(v).map_err(|_| format!("a value past the address space at byte {at}"))
}

/// The entries of a bundle, in the order written.
pub(crate) fn entries(d: &[u8]) -> Result<Vec<Entry<'_>>, String> {
    if d.starts_with(COMPRESSED_MAGIC) {
        return Err(
            "a compressed offload bundle (CCOB) is not read; compile without --offload-compress".into(),
        );
    }
    if !d.starts_with(MAGIC) {
        return Err("not a clang offload bundle".into());
    }
    let mut at = MAGIC.len();
    let count = usize_at(d, at)?;
    at += 8;
    // Each entry's header takes at least 24 bytes: a count the file cannot hold is refused
    // before anything is reserved for it.
    if count > (d.len() - at) / 24 {
        return Err(format!(
            "{count} entries declared in a bundle of {} bytes",
            d.len()
        ));
    }
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let offset = usize_at(d, at)?;
        let size = usize_at(d, at + 8)?;
        let id_len = usize_at(d, at + 16)?;
        at += 24;
        let id = at
            .checked_add(id_len)
            .and_then(|end| d.get(at..end))
            .ok_or_else(|| format!("entry {i}'s id ({id_len} bytes) runs past the file's end"))?;
        let id = std::str::from_utf8(id).map_err(|_| format!("entry {i}'s id is not UTF-8"))?;
        at += id_len;
        let bytes = offset
            .checked_add(size)
            .and_then(|end| d.get(offset..end))
            .ok_or_else(|| {
                format!(
                    "entry {i} (`{id}`: {size} bytes at {offset}) lies past the file's end ({} bytes)",
                    d.len()
                )
            })?;
        out.push(Entry {
            id: id.to_string(),
            bytes,
        });
    }
    Ok(out)
}

/// A bundle of `entries` (id, bytes), laid out as clang does (each entry 8-aligned here): for
/// the tests.
#[cfg(test)]
pub(crate) fn build(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend((entries.len() as u64).to_le_bytes());
    let header: usize = out.len() + entries.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
    let mut offset = header.next_multiple_of(8);
    let mut placed = Vec::new();
    for (id, bytes) in entries {
        out.extend((offset as u64).to_le_bytes());
        out.extend((bytes.len() as u64).to_le_bytes());
        out.extend((id.len() as u64).to_le_bytes());
        out.extend(id.as_bytes());
        placed.push(offset);
        offset = (offset + bytes.len()).next_multiple_of(8);
    }
    for ((_, bytes), at) in entries.iter().zip(placed) {
        out.resize(at, 0);
        out.extend(*bytes);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_and_their_ids_are_read() {
        let b = build(&[
            ("host-x86_64-unknown-linux--", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", b"first"),
            ("hip-amdgcn-amd-amdhsa--gfx942", b"second!"),
        ]);
        let e = entries(&b).unwrap();
        assert_eq!(e.len(), 3);
        assert!(e[0].is_host() && e[0].bytes.is_empty());
        assert_eq!(
            (e[1].kind(), e[1].target_id(), e[1].bytes),
            ("hipv4", Some("gfx90a:xnack-"), &b"first"[..])
        );
        assert_eq!(
            (e[2].kind(), e[2].target_id(), e[2].bytes),
            ("hip", Some("gfx942"), &b"second!"[..])
        );
        let host = Entry {
            id: "host-x86_64-unknown-linux-gnu-".into(),
            bytes: b"",
        };
        assert!(host.is_host());
        assert_eq!(host.target_id(), None);
    }

    #[test]
    fn lies_about_sizes_are_errors() {
        let good = build(&[("hip-amdgcn-amd-amdhsa--gfx90a", b"0123456789")]);
        for cut in 0..good.len() {
            assert!(entries(&good[..cut]).is_err(), "cut at {cut}");
        }
        let patch = |at: usize, v: u64| {
            let mut b = good.clone();
            b[at..at + 8].copy_from_slice(&v.to_le_bytes());
            b
        };
        let first = MAGIC.len() + 8;
        for b in [
            patch(MAGIC.len(), u64::MAX), // the entry count
            patch(MAGIC.len(), 1 << 40),  // a count the file cannot hold
            patch(first, u64::MAX),       // the offset
            patch(first, u64::MAX - 4),   // offset + size overflows
            patch(first + 8, u64::MAX),   // the size
            patch(first + 8, 11),         // one byte past the end
            patch(first + 16, u64::MAX),  // the id's length
            patch(first + 16, 1 << 20),
        ] {
            assert!(entries(&b).is_err());
        }
        assert!(entries(b"CCOB\x01\x00").unwrap_err().contains("compressed"));
        assert!(entries(b"\x7fELF").is_err());
    }
}

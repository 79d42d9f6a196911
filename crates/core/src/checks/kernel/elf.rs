//! Reading a cubin's symbol table (64-bit little-endian ELF), to check what the compiler made
//! before any of it is loaded: that the kernel's symbol is defined, and that nothing calls
//! device `printf` (an undefined `vprintf`).

/// One symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Its name.
    pub name: String,
    /// Defined in this object (not an import).
    pub defined: bool,
    /// A function (`STT_FUNC`).
    pub function: bool,
}

/// Why a file is not a readable ELF object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a readable 64-bit ELF object: {0}")]
pub struct ElfError(pub String);

fn u16_at(d: &[u8], o: usize) -> Result<u16, ElfError> {
    d.get(o..o + 2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .ok_or_else(|| ElfError(format!("truncated at {o}")))
}

fn u32_at(d: &[u8], o: usize) -> Result<u32, ElfError> {
    d.get(o..o + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| ElfError(format!("truncated at {o}")))
}

fn u64_at(d: &[u8], o: usize) -> Result<u64, ElfError> {
    d.get(o..o + 8)
        .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .ok_or_else(|| ElfError(format!("truncated at {o}")))
}

fn size(v: u64) -> Result<usize, ElfError> {
    usize::try_from(v).map_err(|_| ElfError("offset too large".into()))
}

/// Every symbol of every symbol table.
pub fn symbols(d: &[u8]) -> Result<Vec<Symbol>, ElfError> {
    if d.len() < 64 || &d[..4] != b"\x7fELF" || d[4] != 2 || d[5] != 1 {
        return Err(ElfError("bad header".into()));
    }
    let shoff = size(u64_at(d, 0x28)?)?;
    let shentsize = usize::from(u16_at(d, 0x3A)?);
    let shnum = usize::from(u16_at(d, 0x3C)?);
    if shentsize < 64 {
        return Err(ElfError("bad section header size".into()));
    }
    let section = |i: usize| -> Result<(u32, usize, usize, usize, usize), ElfError> {
        let h = shoff + i * shentsize;
        Ok((
            u32_at(d, h + 4)?,
            size(u64_at(d, h + 0x18)?)?,
            size(u64_at(d, h + 0x20)?)?,
            u32_at(d, h + 0x28)? as usize,
            size(u64_at(d, h + 0x38)?)?,
        ))
    };
    let mut out = Vec::new();
    for i in 0..shnum {
        let (kind, off, len, link, entsize) = section(i)?;
        if kind != 2 {
            continue;
        }
        let (_, str_off, str_len, _, _) = section(link)?;
        let strtab = d
            .get(str_off..str_off + str_len)
            .ok_or_else(|| ElfError("string table out of range".into()))?;
        let entsize = entsize.max(24);
        for k in 0..len / entsize {
            let e = off + k * entsize;
            let name_off = u32_at(d, e)? as usize;
            let info = *d.get(e + 4).ok_or_else(|| ElfError("truncated symbol".into()))?;
            let shndx = u16_at(d, e + 6)?;
            let name = strtab
                .get(name_off..)
                .and_then(|s| s.split(|b| *b == 0).next())
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .unwrap_or_default();
            out.push(Symbol {
                name,
                defined: shndx != 0,
                function: info & 0xF == 2,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(symbols(b"").is_err());
        assert!(symbols(&[0x7f, b'E', b'L', b'F', 2, 1, 0, 0]).is_err());
        let mut h = vec![0u8; 64];
        h[..6].copy_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1]);
        h[0x28..0x30].copy_from_slice(&1_000_000u64.to_le_bytes());
        h[0x3A..0x3C].copy_from_slice(&64u16.to_le_bytes());
        h[0x3C..0x3E].copy_from_slice(&3u16.to_le_bytes());
        assert!(symbols(&h).is_err());
    }
}

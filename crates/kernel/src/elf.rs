//! Reading a cubin's symbol table (64-bit little-endian ELF, through the `object` crate's
//! bounds-checked reader), to check what the compiler made before any of it is loaded: that the
//! kernel's symbol is defined, and that nothing calls device `printf` (an undefined `vprintf`).

use object::read::elf::ElfFile64;
use object::{LittleEndian, Object, ObjectSymbol, SymbolKind};

/// One symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Symbol {
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
pub(crate) struct ElfError(pub String);

/// Every symbol of the symbol table (`.symtab`).
pub(crate) fn symbols(d: &[u8]) -> Result<Vec<Symbol>, ElfError> {
    let file = ElfFile64::<LittleEndian>::parse(d).map_err(|e| ElfError(e.to_string()))?;
    file.symbols()
        .map(|s| {
            let name = s.name_bytes().map_err(|e| ElfError(e.to_string()))?;
            Ok(Symbol {
                name: String::from_utf8_lossy(name).into_owned(),
                defined: !s.is_undefined(),
                function: s.kind() == SymbolKind::Text,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(symbols(b"").is_err());
        assert!(symbols(&[0x7f, b'E', b'L', b'F', 2, 1, 0, 0]).is_err());
        let mut h = vec![0u8; 64];
        h[..7].copy_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1, 1]);
        // Section headers said to lie far past the end of the file.
        h[0x28..0x30].copy_from_slice(&1_000_000u64.to_le_bytes());
        h[0x3A..0x3C].copy_from_slice(&64u16.to_le_bytes());
        h[0x3C..0x3E].copy_from_slice(&3u16.to_le_bytes());
        assert!(symbols(&h).is_err());
        // An offset whose sum with the table's size overflows.
        h[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(symbols(&h).is_err());
    }

    /// A function of this binary that stays a function of its own whatever the optimiser
    /// inlines (the test looks for its symbol).
    #[inline(never)]
    fn elf_probe_function_kept_out_of_line(x: u64) -> u64 {
        x.rotate_left(17) ^ 0x5EED
    }

    #[test]
    fn a_symbol_table_is_read() {
        // Taken by address, so the function is emitted.
        let f: fn(u64) -> u64 = std::hint::black_box(elf_probe_function_kept_out_of_line);
        assert_eq!(f(0), 0x5EED);
        let bytes = std::fs::read(std::env::current_exe().expect("the test binary")).expect("readable");
        if bytes.get(4) != Some(&2) || bytes.get(5) != Some(&1) {
            return; // not a 64-bit little-endian ELF host
        }
        let syms = symbols(&bytes).expect("the test binary's own table");
        assert!(
            syms.iter().any(|s| {
                s.defined && s.function && s.name.contains("elf_probe_function_kept_out_of_line")
            })
        );
    }
}

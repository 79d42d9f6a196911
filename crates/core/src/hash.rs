//! Content hashes (blake3, hex) for cache keys and version identities.

/// Hash of a sequence of byte strings; each part is length-prefixed so that the boundaries
/// between parts are part of the hash.
pub fn hash_parts<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut h = blake3::Hasher::new();
    for p in parts {
        h.update(&(p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().to_hex().to_string()
}

/// Hash of one string.
pub fn hash_str(s: &str) -> String {
    hash_parts([s.as_bytes()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_matter() {
        assert_ne!(
            hash_parts([b"ab".as_slice(), b"c"]),
            hash_parts([b"a".as_slice(), b"bc"])
        );
        assert_eq!(hash_str("x"), hash_parts([b"x".as_slice()]));
    }
}

//! Content hashes (blake3, hex) for cache keys and version identities.

/// Hash of a sequence of byte strings; each part is length-prefixed so that the boundaries
/// between parts are part of the hash.
pub fn hash_parts<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut h = blake3::Hasher::new();
    for p in parts {
        feed(&mut h, p);
    }
    h.finalize().to_hex().to_string()
}

/// Feeds one part to a hasher as [`hash_parts`] does (length-prefixed), so a hasher fed with
/// the first parts can be kept and finished later with the rest.
pub fn feed(h: &mut blake3::Hasher, part: &[u8]) {
    h.update(&(part.len() as u64).to_le_bytes());
    h.update(part);
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
        let mut h = blake3::Hasher::new();
        feed(&mut h, b"a");
        feed(&mut h, b"bc");
        assert_eq!(
            h.finalize().to_hex().to_string(),
            hash_parts([b"a".as_slice(), b"bc"])
        );
    }
}

//! A small, bounded MessagePack decoder: what the AMDGPU metadata note needs (the whole format
//! but for timestamps, which are read as plain extension values).
//!
//! The input is compiler output from a candidate's source, so nothing in it is trusted: every
//! declared length is checked against the bytes that remain before anything is allocated for
//! it, nesting stops at [`MAX_DEPTH`], and one document holds at most [`MAX_VALUES`] values.
//! Written here rather than taken from `rmpv` to keep those limits in view and the dependency
//! list short; it is small enough to test exhaustively (see the tests and the fuzzing below).

/// The deepest nesting of arrays and maps read.
pub const MAX_DEPTH: usize = 32;

/// The most values (of every kind, nested ones included) one document may hold.
pub const MAX_VALUES: usize = 1 << 20;

/// One decoded value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `nil`.
    Nil,
    /// `true` or `false`.
    Bool(bool),
    /// A non-negative integer (of any width or signedness on the wire).
    Uint(u64),
    /// A negative integer.
    Int(i64),
    /// A 32- or 64-bit float.
    Float(f64),
    /// A UTF-8 string.
    Str(String),
    /// Binary data.
    Bin(Vec<u8>),
    /// An array.
    Array(Vec<Value>),
    /// A map, its pairs in the order written.
    Map(Vec<(Value, Value)>),
    /// An extension value: its type and data.
    Ext(i8, Vec<u8>),
}

impl Value {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer, if this is a non-negative one.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Uint(v) => Some(*v),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The value under the string key `key`, if this is a map that has it (the first such).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(pairs) => pairs
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Why bytes are not one MessagePack value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed MessagePack at byte {at}: {message}")]
pub struct MsgpackError {
    /// Where reading stopped.
    pub at: usize,
    /// What was wrong there.
    pub message: String,
}

/// Decodes exactly one value that fills `bytes` (trailing zero bytes, as a note's padding
/// might leave, are allowed; anything else after the value is an error).
pub fn decode(bytes: &[u8]) -> Result<Value, MsgpackError> {
    let mut r = Reader {
        d: bytes,
        at: 0,
        values: 0,
    };
    let v = r.value(0)?;
    if bytes[r.at..].iter().any(|b| *b != 0) {
        return Err(r.err("bytes after the value"));
    }
    Ok(v)
}

struct Reader<'a> {
    d: &'a [u8],
    at: usize,
    values: usize,
}

impl<'a> Reader<'a> {
    fn err(&self, m: &str) -> MsgpackError {
        MsgpackError {
            at: self.at,
            message: m.to_string(),
        }
    }

    fn remaining(&self) -> usize {
        self.d.len() - self.at
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], MsgpackError> {
        if n > self.remaining() {
            return Err(self.err(&format!("{n} bytes declared, {} left", self.remaining())));
        }
        let s = &self.d[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn uint(&mut self, width: usize) -> Result<u64, MsgpackError> {
        Ok(self
            .take(width)?
            .iter()
            .fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
    }

    fn len(&mut self, width: usize) -> Result<usize, MsgpackError> {
        let n = self.uint(width)?;
        usize::try_from(n).map_err(|_| self.err("a length past the address space"))
    }

    fn value(&mut self, depth: usize) -> Result<Value, MsgpackError> {
        self.values += 1;
        if self.values > MAX_VALUES {
            return Err(self.err(&format!("more than {MAX_VALUES} values")));
        }
        let tag = self.take(1)?[0];
        let v = match tag {
            0x00..=0x7f => Value::Uint(u64::from(tag)),
            0x80..=0x8f => return self.map(usize::from(tag & 0x0f), depth),
            0x90..=0x9f => return self.array(usize::from(tag & 0x0f), depth),
            0xa0..=0xbf => return self.str(usize::from(tag & 0x1f)),
            0xc0 => Value::Nil,
            0xc1 => return Err(self.err("the never-used tag 0xc1")),
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let n = self.len(1 << (tag - 0xc4))?;
                Value::Bin(self.take(n)?.to_vec())
            }
            0xc7..=0xc9 => {
                let n = self.len(1 << (tag - 0xc7))?;
                self.ext(n)?
            }
            0xca => Value::Float(f64::from(f32::from_bits(self.uint(4)? as u32))),
            0xcb => Value::Float(f64::from_bits(self.uint(8)?)),
            0xcc..=0xcf => Value::Uint(self.uint(1 << (tag - 0xcc))?),
            0xd0..=0xd3 => {
                let width = 1usize << (tag - 0xd0);
                let raw = self.uint(width)?;
                // Sign-extend from `width` bytes.
                let shift = 64 - 8 * width as u32;
                let v = ((raw << shift) as i64) >> shift;
                if v >= 0 {
                    Value::Uint(v as u64)
                } else {
                    Value::Int(v)
                }
            }
            0xd4..=0xd8 => self.ext(1 << (tag - 0xd4))?,
            0xd9..=0xdb => {
                let n = self.len(1 << (tag - 0xd9))?;
                return self.str(n);
            }
            0xdc | 0xdd => {
                let n = self.len(2 << (tag - 0xdc))?;
                return self.array(n, depth);
            }
            0xde | 0xdf => {
                let n = self.len(2 << (tag - 0xde))?;
                return self.map(n, depth);
            }
            0xe0..=0xff => Value::Int(i64::from(tag as i8)),
        };
        Ok(v)
    }

    fn str(&mut self, n: usize) -> Result<Value, MsgpackError> {
        let start = self.at;
        let s = self.take(n)?;
        match std::str::from_utf8(s) {
            Ok(s) => Ok(Value::Str(s.to_string())),
            Err(_) => {
                self.at = start;
                Err(self.err("a string that is not UTF-8"))
            }
        }
    }

    fn ext(&mut self, n: usize) -> Result<Value, MsgpackError> {
        let ty = self.take(1)?[0] as i8;
        Ok(Value::Ext(ty, self.take(n)?.to_vec()))
    }

    fn nest(&self, depth: usize, n: usize, each: usize) -> Result<(), MsgpackError> {
        if depth >= MAX_DEPTH {
            return Err(self.err(&format!("nested deeper than {MAX_DEPTH}")));
        }
        // Every value takes at least one byte: a count the bytes left cannot hold is a lie, and
        // is refused before anything is reserved for it.
        if n.checked_mul(each).is_none_or(|need| need > self.remaining()) {
            return Err(self.err(&format!("{n} elements declared, {} bytes left", self.remaining())));
        }
        Ok(())
    }

    fn array(&mut self, n: usize, depth: usize) -> Result<Value, MsgpackError> {
        self.nest(depth, n, 1)?;
        let mut out = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            out.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(out))
    }

    fn map(&mut self, n: usize, depth: usize) -> Result<Value, MsgpackError> {
        self.nest(depth, n, 2)?;
        let mut out = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            let k = self.value(depth + 1)?;
            let v = self.value(depth + 1)?;
            out.push((k, v));
        }
        Ok(Value::Map(out))
    }
}

/// An encoder for the tests: the inverse of [`decode`], in the smallest form each value has.
#[cfg(test)]
pub(crate) fn encode(v: &Value, out: &mut Vec<u8>) {
    fn head(out: &mut Vec<u8>, n: usize, fix: Option<(u8, usize)>, tags: [u8; 3]) {
        match fix {
            Some((base, max)) if n <= max => out.push(base | n as u8),
            _ if n <= 0xff && tags[0] != 0 => out.extend([tags[0], n as u8]),
            _ if n <= 0xffff => {
                out.push(tags[1]);
                out.extend((n as u16).to_be_bytes());
            }
            _ => {
                out.push(tags[2]);
                out.extend((n as u32).to_be_bytes());
            }
        }
    }
    match v {
        Value::Nil => out.push(0xc0),
        Value::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        Value::Uint(u) => match *u {
            0..=0x7f => out.push(*u as u8),
            0x80..=0xff => out.extend([0xcc, *u as u8]),
            0x100..=0xffff => {
                out.push(0xcd);
                out.extend((*u as u16).to_be_bytes());
            }
            0x1_0000..=0xffff_ffff => {
                out.push(0xce);
                out.extend((*u as u32).to_be_bytes());
            }
            _ => {
                out.push(0xcf);
                out.extend(u.to_be_bytes());
            }
        },
        Value::Int(i) => {
            if *i >= -32 {
                out.push(*i as i8 as u8);
            } else {
                out.push(0xd3);
                out.extend(i.to_be_bytes());
            }
        }
        Value::Float(f) => {
            out.push(0xcb);
            out.extend(f.to_bits().to_be_bytes());
        }
        Value::Str(s) => {
            head(out, s.len(), Some((0xa0, 31)), [0xd9, 0xda, 0xdb]);
            out.extend(s.as_bytes());
        }
        Value::Bin(b) => {
            head(out, b.len(), None, [0xc4, 0xc5, 0xc6]);
            out.extend(b);
        }
        Value::Array(a) => {
            head(out, a.len(), Some((0x90, 15)), [0, 0xdc, 0xdd]);
            a.iter().for_each(|e| encode(e, out));
        }
        Value::Map(m) => {
            head(out, m.len(), Some((0x80, 15)), [0, 0xde, 0xdf]);
            for (k, e) in m {
                encode(k, out);
                encode(e, out);
            }
        }
        Value::Ext(t, d) => {
            head(out, d.len(), None, [0xc7, 0xc8, 0xc9]);
            out.push(*t as u8);
            out.extend(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bytes_of(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        encode(v, &mut out);
        out
    }

    fn s(x: &str) -> Value {
        Value::Str(x.to_string())
    }

    #[test]
    fn every_kind_round_trips() {
        let long = "x".repeat(300);
        let v = Value::Map(vec![
            (
                s("amdhsa.version"),
                Value::Array(vec![Value::Uint(1), Value::Uint(2)]),
            ),
            (s("nil"), Value::Nil),
            (s("t"), Value::Bool(true)),
            (s("f"), Value::Bool(false)),
            (s("big"), Value::Uint(u64::MAX)),
            (s("mid"), Value::Uint(70_000)),
            (s("neg"), Value::Int(-5)),
            (s("very neg"), Value::Int(i64::MIN)),
            (s("pi"), Value::Float(3.25)),
            (s(&long), Value::Bin(vec![1, 2, 3])),
            (s("ext"), Value::Ext(-1, vec![0; 12])),
            (s("many"), Value::Array((0..20).map(Value::Uint).collect())),
        ]);
        assert_eq!(decode(&bytes_of(&v)), Ok(v.clone()));
        assert_eq!(v.get("mid").and_then(Value::as_u64), Some(70_000));
        assert_eq!(v.get(&long), Some(&Value::Bin(vec![1, 2, 3])));
        assert_eq!(v.get("absent"), None);
    }

    #[test]
    fn every_wire_form_of_an_integer_is_read() {
        let cases: &[(&[u8], Value)] = &[
            (&[0x05], Value::Uint(5)),
            (&[0xff], Value::Int(-1)),
            (&[0xe0], Value::Int(-32)),
            (&[0xcc, 0xfe], Value::Uint(254)),
            (&[0xcd, 0x01, 0x00], Value::Uint(256)),
            (&[0xce, 0, 1, 0, 0], Value::Uint(65_536)),
            (&[0xcf, 0, 0, 0, 1, 0, 0, 0, 0], Value::Uint(1 << 32)),
            (&[0xd0, 0x80], Value::Int(-128)),
            (&[0xd0, 0x7f], Value::Uint(127)),
            (&[0xd1, 0xff, 0x00], Value::Int(-256)),
            (&[0xd2, 0xff, 0xff, 0xff, 0xff], Value::Int(-1)),
            (&[0xd3, 0, 0, 0, 0, 0, 0, 0, 9], Value::Uint(9)),
            (&[0xca, 0x3f, 0x80, 0, 0], Value::Float(1.0)),
            (&[0xd4, 0x01, 0xaa], Value::Ext(1, vec![0xaa])),
            (&[0xd9, 0x01, b'a'], Value::Str("a".into())),
            (&[0xdc, 0x00, 0x01, 0xc0], Value::Array(vec![Value::Nil])),
            (
                &[0xde, 0x00, 0x01, 0x01, 0x02],
                Value::Map(vec![(Value::Uint(1), Value::Uint(2))]),
            ),
        ];
        for (b, want) in cases {
            assert_eq!(decode(b).as_ref(), Ok(want), "{b:02x?}");
        }
    }

    #[test]
    fn truncation_and_garbage_are_errors() {
        let good = bytes_of(&Value::Map(vec![(
            s("amdhsa.kernels"),
            Value::Array(vec![s("k")]),
        )]));
        for cut in 0..good.len() {
            assert!(decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = good.clone();
        extra.push(0x01);
        assert!(decode(&extra).is_err());
        let mut padded = good.clone();
        padded.extend([0, 0, 0]);
        assert!(decode(&padded).is_ok());
        assert!(decode(&[0xc1]).is_err());
        assert!(decode(&[0xa2, 0xff, 0xfe]).is_err(), "not UTF-8");
    }

    #[test]
    fn huge_declared_lengths_are_refused_before_allocating() {
        // A 4-GiB string, array, map, binary and extension, each in a handful of bytes.
        for b in [
            &[0xdb, 0xff, 0xff, 0xff, 0xff, b'a'][..],
            &[0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0],
            &[0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0, 0xc0],
            &[0xc6, 0xff, 0xff, 0xff, 0xff, 0],
            &[0xc9, 0xff, 0xff, 0xff, 0xff, 1, 0],
            &[0xde, 0x00, 0x02, 0x01, 0x02],
        ] {
            assert!(decode(b).is_err(), "{b:02x?}");
        }
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = |n: usize| {
            let mut b = vec![0x91; n];
            b.push(0xc0);
            b
        };
        assert!(decode(&deep(MAX_DEPTH)).is_ok());
        assert!(decode(&deep(MAX_DEPTH + 1)).is_err());
        assert!(decode(&deep(100_000)).is_err());
    }

    #[test]
    fn the_value_count_is_bounded() {
        let mut b = vec![0xdd];
        b.extend(((MAX_VALUES + 1) as u32).to_be_bytes());
        b.resize(b.len() + MAX_VALUES + 1, 0xc0);
        let err = decode(&b).unwrap_err();
        assert!(err.message.contains("values"), "{err}");
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Nil),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(Value::Uint),
            (i64::MIN..0).prop_map(Value::Int),
            any::<f64>()
                .prop_filter("NaN is not equal to itself", |f| !f.is_nan())
                .prop_map(Value::Float),
            ".{0,40}".prop_map(Value::Str),
            proptest::collection::vec(any::<u8>(), 0..40).prop_map(Value::Bin),
            (any::<i8>(), proptest::collection::vec(any::<u8>(), 0..20)).prop_map(|(t, d)| Value::Ext(t, d)),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..20).prop_map(Value::Array),
                proptest::collection::vec((inner.clone(), inner), 0..20).prop_map(Value::Map),
            ]
        })
    }

    proptest! {
        #[test]
        fn random_values_round_trip(v in value()) {
            prop_assert_eq!(decode(&bytes_of(&v)), Ok(v));
        }

        #[test]
        fn random_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = decode(&b);
        }

        #[test]
        fn mutated_documents_never_panic(v in value(), at in any::<usize>(), byte in any::<u8>()) {
            let mut b = bytes_of(&v);
            if !b.is_empty() {
                let i = at % b.len();
                b[i] = byte;
            }
            let _ = decode(&b);
        }
    }
}

//! Byte buffers in serde's byte form, for `#[serde(with = "acr_core::byte_buf")]` on a `Vec<u8>` field: one copy in
//! formats that have bytes (postcard, a `Uint8Array` through `serde-wasm-bindgen`) instead of a sequence of numbers.
//! A sequence of numbers (JSON) is still read.

use std::fmt;

use serde::{Deserializer, Serializer, de};

/// Writes `bytes` as serde bytes.
pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bytes(bytes)
}

/// Reads serde bytes, or a sequence of byte values.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    d.deserialize_byte_buf(Visitor)
}

struct Visitor;

impl<'de> de::Visitor<'de> for Visitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("bytes")
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
        // The hint comes from the input: never trusted for more than a modest allocation.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(b) = seq.next_element()? {
            out.push(b);
        }
        Ok(out)
    }
}

//! What a state is bound to: by default the caller, the method, the target
//! and a digest of the arguments.

use std::fmt;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::schema::JsonObject;

/// The context a state is valid in, as an unambiguous byte string.
///
/// Parts are length-prefixed, so `("ab", "c")` and `("a", "bc")` differ.
/// A binding is never stored in the token: the server recomputes it from
/// the retried request, and the signature only verifies if it matches.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Binding {
    bytes: Vec<u8>,
}

impl Binding {
    /// The empty binding: the state is valid for any request.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Appends one part (length-prefixed).
    pub fn with(mut self, part: impl AsRef<[u8]>) -> Self {
        let part = part.as_ref();
        self.bytes
            .extend_from_slice(&(part.len() as u64).to_be_bytes());
        self.bytes.extend_from_slice(part);
        self
    }

    /// The framed bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl fmt::Debug for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digest = Sha256::digest(&self.bytes);
        write!(
            f,
            "Binding({} bytes, sha256 {:02x}{:02x}{:02x}{:02x}..)",
            self.bytes.len(),
            digest[0],
            digest[1],
            digest[2],
            digest[3]
        )
    }
}

/// The parts of a request a binding may depend on.
#[derive(Debug, Clone, Copy)]
pub struct BindingRequest<'a> {
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub method: &'a str,
    /// The tool name, prompt name or resource URI.
    pub target: &'a str,
    /// The arguments (`{}` for a resource read).
    pub arguments: &'a JsonObject,
}

/// SHA-256 of the arguments in canonical JSON: object keys sorted by
/// their UTF-8 bytes at every depth, no whitespace, so key order does not
/// matter but every value does.
pub fn arguments_digest(arguments: &JsonObject) -> [u8; 32] {
    let mut hasher = CanonicalHasher(Sha256::new());
    hasher.object(arguments);
    hasher.0.finalize().into()
}

struct CanonicalHasher(Sha256);

impl CanonicalHasher {
    fn value(&mut self, value: &Value) {
        match value {
            Value::Object(map) => self.object(map),
            Value::Array(items) => {
                self.0.update(b"[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.0.update(b",");
                    }
                    self.value(item);
                }
                self.0.update(b"]");
            }
            // Scalars serialise canonically already (serde_json is compact).
            scalar => self.json(scalar),
        }
    }

    /// Hashes the compact JSON of `value`, written straight into the hash.
    fn json<T: serde::Serialize + ?Sized>(&mut self, value: &T) {
        // Writing into a hash cannot fail, and neither can serialising a
        // string or a scalar `Value`.
        let _ = serde_json::to_writer(&mut *self, value);
    }

    fn object(&mut self, map: &JsonObject) {
        let mut entries: Vec<(&String, &Value)> = map.iter().collect();
        entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        self.0.update(b"{");
        for (i, (key, value)) in entries.into_iter().enumerate() {
            if i > 0 {
                self.0.update(b",");
            }
            self.json(key.as_str());
            self.0.update(b":");
            self.value(value);
        }
        self.0.update(b"}");
    }
}

impl std::io::Write for CanonicalHasher {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> JsonObject {
        match v {
            Value::Object(o) => o,
            _ => unreachable!(),
        }
    }

    #[test]
    fn parts_are_framed_unambiguously() {
        let a = Binding::empty().with("ab").with("c");
        let b = Binding::empty().with("a").with("bc");
        assert_ne!(a, b);
    }

    #[test]
    fn digest_is_the_sha256_of_canonical_json() {
        // Pinned: instances of different versions in one fleet must agree.
        let arguments = object(json!({
            "z\u{e9}": {"c": 2.5, "b": [1, "x\"y", null, true]},
            "a": -3
        }));
        let canonical = "{\"a\":-3,\"z\u{e9}\":{\"b\":[1,\"x\\\"y\",null,true],\"c\":2.5}}";
        let expected: [u8; 32] = Sha256::digest(canonical.as_bytes()).into();
        assert_eq!(arguments_digest(&arguments), expected);
    }

    #[test]
    fn digest_ignores_key_order_but_not_values() {
        let a = object(json!({"b": 1, "a": {"y": [1, 2], "x": "s"}}));
        let b = object(json!({"a": {"x": "s", "y": [1, 2]}, "b": 1}));
        let c = object(json!({"a": {"x": "s", "y": [2, 1]}, "b": 1}));
        assert_eq!(arguments_digest(&a), arguments_digest(&b));
        assert_ne!(arguments_digest(&a), arguments_digest(&c));
    }
}

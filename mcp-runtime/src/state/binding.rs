//! What a state is bound to: by default the caller, the method, the target
//! and a digest of the arguments.

use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use crate::schema::{JsonKey, JsonObject};

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
    pub arguments: BoundArguments<'a>,
}

/// A request's arguments as a binding sees them: an object, or the JSON
/// text of one as the client sent it (a `tools/call`'s), whose digest is
/// computed from the text without building a tree.
#[derive(Debug, Clone, Copy)]
pub enum BoundArguments<'a> {
    /// A JSON object.
    Object(&'a JsonObject),
    /// The JSON text of an object.
    Text(&'a str),
}

impl BoundArguments<'_> {
    /// [`arguments_digest`] of the arguments: the same for an object and
    /// for any text of it.
    pub fn digest(&self) -> [u8; 32] {
        match self {
            Self::Object(object) => arguments_digest(object),
            Self::Text(text) => {
                let mut hasher = CanonicalHasher(Sha256::new());
                let mut json = serde_json::Deserializer::from_str(text);
                // Text that is not JSON (never the case for what the
                // server read) digests as what was read of it.
                let value = Canonical {
                    hasher: &mut hasher,
                    depth: 0,
                };
                let _ = DeserializeSeed::deserialize(value, &mut json);
                hasher.0.finalize().into()
            }
        }
    }

    /// The argument `name`, if there is one.
    pub fn get(&self, name: &str) -> Option<Value> {
        match self {
            Self::Object(object) => object.get(name).cloned(),
            Self::Text(text) => serde_json::from_str::<JsonObject>(text)
                .ok()
                .and_then(|mut object| object.remove(name)),
        }
    }
}

impl<'a> From<&'a JsonObject> for BoundArguments<'a> {
    fn from(object: &'a JsonObject) -> Self {
        Self::Object(object)
    }
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

/// Hashes one JSON value from a parser in canonical form, as
/// [`CanonicalHasher::value`] hashes its tree: arrays as they stream by,
/// an object's members sorted (the last of a repeated key counts, as in a
/// map), each member's value hashed from its text.
struct Canonical<'h> {
    hasher: &'h mut CanonicalHasher,
    /// How deep in the value this is: each object's members are read
    /// with a parser of their own, so the depth is bounded here.
    depth: usize,
}

/// The deepest a value's digest reads, as `serde_json`'s own limit.
const MAX_DEPTH: usize = 128;

impl<'de> DeserializeSeed<'de> for Canonical<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.depth > MAX_DEPTH {
            return Err(serde::de::Error::custom("nested too deep"));
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Canonical<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.hasher.json(&v);
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.hasher.json(&v);
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.hasher.json(&v);
        Ok(())
    }

    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        // As a tree holds it: a number (always finite, from JSON).
        self.hasher.json(&Value::from(v));
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.hasher.json(v);
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.hasher.0.update(b"null");
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.hasher.0.update(b"[");
        let mut comma = false;
        while seq
            .next_element_seed(Element {
                hasher: &mut *self.hasher,
                comma,
                depth: self.depth + 1,
            })?
            .is_some()
        {
            comma = true;
        }
        self.hasher.0.update(b"]");
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut members: Vec<(String, &'de RawValue)> = Vec::new();
        while let Some(JsonKey(key)) = map.next_key()? {
            members.push((key.into_owned(), map.next_value()?));
        }
        // Sorted by key bytes, stably: of a repeated key the last counts.
        members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        self.hasher.0.update(b"{");
        let mut first = true;
        for (i, (key, value)) in members.iter().enumerate() {
            if members.get(i + 1).is_some_and(|next| next.0 == *key) {
                continue;
            }
            if !first {
                self.hasher.0.update(b",");
            }
            first = false;
            self.hasher.json(key.as_str());
            self.hasher.0.update(b":");
            let mut json = serde_json::Deserializer::from_str(value.get());
            let member = Canonical {
                hasher: &mut *self.hasher,
                depth: self.depth + 1,
            };
            DeserializeSeed::deserialize(member, &mut json).map_err(serde::de::Error::custom)?;
        }
        self.hasher.0.update(b"}");
        Ok(())
    }
}

/// One array element, hashed after the comma that goes before it (only
/// once there is an element).
struct Element<'h> {
    hasher: &'h mut CanonicalHasher,
    comma: bool,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Element<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.comma {
            self.hasher.0.update(b",");
        }
        let element = Canonical {
            hasher: self.hasher,
            depth: self.depth,
        };
        DeserializeSeed::deserialize(element, d)
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
    fn the_digest_of_the_text_is_the_digest_of_its_tree() {
        for text in [
            r#"{}"#,
            r#"{"a":[]}"#,
            r#"{ "b" : [1, 2.0, -0, 1e2, -3.5e-7, 18446744073709551615, -9223372036854775808] }"#,
            r#"{"z\u00e9":{"c":2.5,"b":[1,"x\"y",null,true]},"a":-3}"#,
            r#"{"k":1,"k":{"n":[{"y":1,"x":2},[],[[]]]},"\ud83d\ude00":"\n\t\u0001"}"#,
            r#"{"a":{"a":{"a":{"a":[{"a":false}]}}}}"#,
        ] {
            let tree: JsonObject = serde_json::from_str(text).unwrap();
            assert_eq!(
                BoundArguments::Text(text).digest(),
                arguments_digest(&tree),
                "{text}"
            );
        }
    }

    #[test]
    fn a_deeply_nested_text_digests_without_overflowing_the_stack() {
        let depth = 100_000;
        let text = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        let shallow = format!("{}1{}", "{\"a\":".repeat(3), "}".repeat(3));
        let digest = BoundArguments::Text(&text).digest();
        assert_ne!(digest, BoundArguments::Text(&shallow).digest());
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

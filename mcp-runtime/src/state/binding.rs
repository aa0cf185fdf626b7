//! What a state is bound to: by default the caller, the method, the target
//! and a digest of the arguments.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
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
            Self::Text(text) => match CanonicalWriter::of(text) {
                Some(canonical) => Sha256::digest(&canonical).into(),
                // Not JSON (never the case for what the server read): the
                // digest of the text itself, after a byte no JSON text
                // starts with, so it is no JSON text's digest.
                None => Sha256::new()
                    .chain_update([0xff])
                    .chain_update(text)
                    .finalize()
                    .into(),
            },
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

/// The canonical JSON of a JSON text, written in one pass of a parser into
/// `out`, as [`CanonicalHasher::value`] hashes the text's tree: arrays as
/// they stream by, an object's members as they come when their keys come in
/// order (as a client that writes maps sorted, or one written from this
/// form, sends them), and sorted in place when they do not (the last of a
/// repeated key counts, as in a map).
struct CanonicalWriter<'de> {
    out: Vec<u8>,
    /// The members of the objects being read, innermost last: each key,
    /// and where its `"key":value` is in `out`.
    members: Vec<(Cow<'de, str>, Range<usize>)>,
}

impl<'de> CanonicalWriter<'de> {
    /// The canonical form of `text`; `None` when it is not JSON (or nests
    /// deeper than `serde_json`'s limit of 128).
    fn of(text: &'de str) -> Option<Vec<u8>> {
        let mut writer = CanonicalWriter {
            out: Vec::with_capacity(text.len()),
            members: Vec::new(),
        };
        let mut json = serde_json::Deserializer::from_str(text);
        DeserializeSeed::deserialize(Canonical(&mut writer), &mut json).ok()?;
        json.end().ok()?;
        Some(writer.out)
    }

    /// Writes the compact JSON of a scalar or a string.
    fn json<T: serde::Serialize + ?Sized>(&mut self, value: &T) {
        // Serialising a string or a scalar into a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut self.out, value);
    }

    /// Sorts the members from `first` on, of the object that starts at
    /// `start` in `out` (after its `{`), by key bytes; of a repeated key
    /// the last counts.
    fn sort_members(&mut self, first: usize, start: usize) {
        let members = &mut self.members[first..];
        members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut sorted = Vec::with_capacity(self.out.len() - start);
        for (i, (key, range)) in members.iter().enumerate() {
            if members.get(i + 1).is_some_and(|next| next.0 == *key) {
                continue;
            }
            if !sorted.is_empty() {
                sorted.push(b',');
            }
            sorted.extend_from_slice(&self.out[range.clone()]);
        }
        self.out.truncate(start);
        self.out.extend_from_slice(&sorted);
    }
}

/// Reads one JSON value into a [`CanonicalWriter`].
struct Canonical<'w, 'de>(&'w mut CanonicalWriter<'de>);

impl<'de> DeserializeSeed<'de> for Canonical<'_, 'de> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Canonical<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.0.json(&v);
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.0.json(&v);
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.0.json(&v);
        Ok(())
    }

    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        // As a tree holds it: a number (always finite, from JSON).
        self.0.json(&Value::from(v));
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.json(v);
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.0.out.extend_from_slice(b"null");
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let writer = self.0;
        writer.out.push(b'[');
        let mut first = true;
        while seq
            .next_element_seed(Element {
                writer: &mut *writer,
                first,
            })?
            .is_some()
        {
            first = false;
        }
        writer.out.push(b']');
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let writer = self.0;
        writer.out.push(b'{');
        let (start, first) = (writer.out.len(), writer.members.len());
        let mut in_order = true;
        while let Some(JsonKey(key)) = map.next_key()? {
            if let Some((last, _)) = writer.members.get(first..).and_then(<[_]>::last) {
                // Strictly after the last: a repeated key is out of order.
                in_order &= last.as_bytes() < key.as_bytes();
            }
            if writer.members.len() > first {
                writer.out.push(b',');
            }
            let at = writer.out.len();
            writer.json(key.as_ref());
            writer.out.push(b':');
            map.next_value_seed(Canonical(&mut *writer))?;
            let end = writer.out.len();
            writer.members.push((key, at..end));
        }
        if !in_order {
            writer.sort_members(first, start);
        }
        writer.members.truncate(first);
        writer.out.push(b'}');
        Ok(())
    }
}

/// One array element, written after the comma that goes before it (only
/// once there is an element).
struct Element<'w, 'de> {
    writer: &'w mut CanonicalWriter<'de>,
    first: bool,
}

impl<'de> DeserializeSeed<'de> for Element<'_, 'de> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if !self.first {
            self.writer.out.push(b',');
        }
        DeserializeSeed::deserialize(Canonical(self.writer), d)
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
            r#"{"b":{"d":1,"c":[{"z":0,"y":1}]},"a":{"\u00e9":1,"é":2,"e":3}}"#,
            r#"{"a\"b":1,"a#":2,"a":3,"":4,"a":{"y":[],"x":{}}}"#,
            r#"{ "z" : [ { "b" : 1 , "a" : 2 } ] , "y" : "\/" }"#,
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
        // Past the parser's depth, the digest is still the text's own.
        let other = text.replacen("1}", "2}", 1);
        assert_ne!(digest, BoundArguments::Text(&other).digest());
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

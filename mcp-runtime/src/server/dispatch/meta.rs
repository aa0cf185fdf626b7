//! A request's `_meta`, which the params' reader keeps apart in the same
//! pass: its entries as the JSON text sent, the typed `_meta` read from
//! them without a tree, and how it goes back into the params of a method
//! that takes it there.

use std::fmt;
use std::ops::Range;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::arguments::within_depth;
use crate::schema::{JsonKey, JsonObject, McpError, MetaEntry, RequestMeta, meta_keys};

/// The key of a request's `_meta` in its params.
pub(super) const META: &str = "_meta";

/// A request's `_meta`: its compact JSON text (each entry's value as sent),
/// and where the value of each entry the server reads is in it (of a
/// repeated key, the last).
#[derive(Clone, PartialEq)]
pub(crate) struct MetaText {
    text: String,
    object: bool,
    entries: [Option<Range<usize>>; KEYS.len()],
}

/// The entries of a `_meta` the server reads.
const KEYS: [&str; 5] = [
    meta_keys::PROTOCOL_VERSION,
    meta_keys::CLIENT_CAPABILITIES,
    meta_keys::CLIENT_INFO,
    meta_keys::LOG_LEVEL,
    meta_keys::PROGRESS_TOKEN,
];

/// Reads a `_meta` into a [`MetaText`], within the params' one pass. The
/// parser must lend the values it reads (as `serde_json` does from bytes or
/// a string), each copied once into the text.
pub(super) struct MetaSeed;

impl<'de> DeserializeSeed<'de> for MetaSeed {
    type Value = MetaText;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<MetaText, D::Error> {
        d.deserialize_any(MetaVisitor)
    }
}

struct MetaVisitor;

impl MetaVisitor {
    /// A `_meta` that is not an object: kept as its JSON, for the error
    /// (2026-07-28) or the params (2025 era).
    fn other<E>(value: Value) -> Result<MetaText, E> {
        Ok(MetaText {
            text: value.to_string(),
            object: false,
            entries: Default::default(),
        })
    }
}

impl<'de> Visitor<'de> for MetaVisitor {
    type Value = MetaText;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MetaText, A::Error> {
        // Room for a usual `_meta` (a version, capabilities, client info),
        // so it is written without growing.
        let mut text = String::with_capacity(512);
        text.push('{');
        let mut entries: [Option<Range<usize>>; KEYS.len()] = Default::default();
        while let Some(JsonKey(key)) = map.next_key()? {
            let value: &'de RawValue = map.next_value()?;
            // Read as text: held to a tree's depth here (the entry is one
            // level into `_meta`).
            within_depth(value.get(), 1)?;
            if text.len() > 1 {
                text.push(',');
            }
            let known = KEYS.iter().position(|known| *known == key);
            match known {
                // Plain ASCII: written as it is.
                Some(index) => {
                    text.push('"');
                    text.push_str(KEYS[index]);
                    text.push('"');
                }
                None => push_json_string(&mut text, &key),
            }
            text.push(':');
            let at = text.len();
            text.push_str(value.get());
            if let Some(index) = known {
                entries[index] = Some(at..text.len());
            }
        }
        text.push('}');
        Ok(MetaText {
            text,
            object: true,
            entries,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<MetaText, A::Error> {
        let value = serde::Deserialize::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
        Self::other(value)
    }

    fn visit_bool<E>(self, v: bool) -> Result<MetaText, E> {
        Self::other(Value::from(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<MetaText, E> {
        Self::other(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<MetaText, E> {
        Self::other(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<MetaText, E> {
        Self::other(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<MetaText, E> {
        Self::other(Value::from(v))
    }

    fn visit_unit<E>(self) -> Result<MetaText, E> {
        Self::other(Value::Null)
    }
}

/// Writes `key` as a JSON string.
fn push_json_string(text: &mut String, key: &str) {
    let plain = key
        .bytes()
        .all(|byte| byte >= 0x20 && byte != b'"' && byte != b'\\');
    if plain {
        text.push('"');
        text.push_str(key);
        text.push('"');
    } else {
        text.push_str(&Value::from(key).to_string());
    }
}

impl MetaText {
    /// Whether it is an object.
    pub(crate) fn is_object(&self) -> bool {
        self.object
    }

    /// Whether it names a protocol version or client capabilities: what
    /// makes a request one of 2026-07-28.
    pub(crate) fn declares_modern(&self) -> bool {
        self.object
            && [meta_keys::PROTOCOL_VERSION, meta_keys::CLIENT_CAPABILITIES]
                .iter()
                .any(|key| self.entry(key).is_some())
    }

    /// The typed `_meta`, with [`RequestMeta::from_json`]'s checks.
    pub(crate) fn request_meta(&self) -> Result<RequestMeta, String> {
        RequestMeta::from_entries(|key| self.entry(key).map(MetaEntry::Text))
    }

    /// The JSON text of the entry `key`, if it is one the server reads.
    fn entry(&self, key: &str) -> Option<&str> {
        let index = KEYS.iter().position(|known| *known == key)?;
        let range = self.entries[index].clone()?;
        self.text.get(range)
    }

    /// How many bytes of text it is.
    pub(crate) fn len(&self) -> usize {
        self.text.len()
    }

    /// Puts it back into `params`, read as JSON, for the methods that take
    /// it there.
    pub(crate) fn restore(&self, params: &mut JsonObject) {
        params.insert(META.to_owned(), self.value());
    }

    /// It, read into a tree.
    pub(crate) fn value(&self) -> Value {
        // Text read as JSON once reads again (the reader held it to the
        // depth limit).
        serde_json::from_str(&self.text).unwrap_or_default()
    }

    /// [`Self::restore`] of a `_meta` the request may not have.
    pub(crate) fn restore_into(meta: Option<Box<Self>>, params: &mut JsonObject) {
        if let Some(meta) = meta {
            meta.restore(params);
        }
    }
}

impl fmt::Debug for MetaText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("MetaText").field(&self.text).finish()
    }
}

/// The params object and its typed `_meta` (kept apart as read), which
/// every 2026-07-28 request carries.
pub(super) fn read_meta(
    params: Option<Value>,
    meta: Option<&MetaText>,
) -> Result<(JsonObject, RequestMeta), McpError> {
    let params = match params {
        Some(Value::Object(params)) => params,
        Some(_) => return Err(invalid_meta("params must be an object carrying _meta")),
        None => return Err(invalid_meta(NO_META)),
    };
    let meta = match meta {
        Some(meta) if meta.is_object() => meta.request_meta().map_err(invalid_meta)?,
        Some(_) => return Err(invalid_meta("params._meta must be an object")),
        None => return Err(invalid_meta(NO_META)),
    };
    Ok((params, meta))
}

/// `params` with `_meta` back in it, when both are there.
pub(super) fn with_meta(params: Option<Value>, meta: Option<Box<MetaText>>) -> Option<Value> {
    match params {
        Some(Value::Object(mut params)) => {
            MetaText::restore_into(meta, &mut params);
            Some(Value::Object(params))
        }
        other => other,
    }
}

/// Why a request without `_meta` is refused, with the way out for a
/// 2025-era client that lost (or never had) its session.
const NO_META: &str = "params._meta is required (a 2025-era client first opens a session with \
                       initialize, then sends its MCP-Session-Id)";

fn invalid_meta(detail: impl Into<String>) -> McpError {
    McpError::InvalidMeta {
        detail: detail.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(text: &str) -> MetaText {
        let mut json = serde_json::Deserializer::from_str(text);
        MetaSeed.deserialize(&mut json).unwrap()
    }

    #[test]
    fn the_typed_meta_is_the_one_read_from_a_tree() {
        for text in [
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"progressToken":7,"other":{"x":[1,2]}}"#,
            r#"{ "io.modelcontextprotocol/clientCapabilities" : {} , "io.modelcontextprotocol/protocolVersion" : "2025-11-25", "io.modelcontextprotocol/logLevel": "debug", "io.modelcontextprotocol/protocolVersion": "2026-07-28" }"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":{}}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":1.5}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":1}}"#,
        ] {
            let tree: JsonObject = serde_json::from_str(text).unwrap();
            let from_tree = RequestMeta::from_json(&tree);
            let from_text = meta(text).request_meta();
            match (&from_tree, &from_text) {
                (Ok(tree), Ok(text)) => assert_eq!(tree, text),
                (Err(_), Err(_)) => {}
                _ => panic!("{text}: {from_tree:?} against {from_text:?}"),
            }
        }
    }

    #[test]
    fn only_an_object_naming_a_version_or_capabilities_is_modern() {
        assert!(meta(r#"{"io.modelcontextprotocol/protocolVersion":null}"#).declares_modern());
        assert!(
            meta(r#"{"a":1,"io.modelcontextprotocol/clientCapabilities":{}}"#).declares_modern()
        );
        assert!(!meta(r#"{"progressToken":1}"#).declares_modern());
        for other in ["[1]", "\"x\"", "null", "3"] {
            let other = meta(other);
            assert!(!other.is_object() && !other.declares_modern());
        }
    }

    #[test]
    fn it_goes_back_into_params_as_sent() {
        let text = r#"{"progressToken":"p", "x" : {"y":[true]},"a\"b":1,"\u00e9\n":2}"#;
        let mut params = JsonObject::new();
        meta(text).restore(&mut params);
        assert_eq!(
            serde_json::Value::Object(params),
            json!({"_meta": {"progressToken": "p", "x": {"y": [true]}, "a\"b": 1, "\u{e9}\n": 2}})
        );
        let mut params = JsonObject::new();
        meta("[1, {}]").restore(&mut params);
        assert_eq!(serde_json::Value::Object(params), json!({"_meta": [1, {}]}));
    }
}

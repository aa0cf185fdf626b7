//! Reading JSON objects member by member: keys without copying them, and
//! an object read one way while any other value is kept as a tree.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// An object key, borrowed from the JSON text unless it has escapes (then
/// decoded into its own string).
pub(crate) struct JsonKey<'a>(pub(crate) Cow<'a, str>);

impl<'de> de::Deserialize<'de> for JsonKey<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = JsonKey<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<JsonKey<'de>, E> {
        Ok(JsonKey(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<JsonKey<'de>, E> {
        Ok(JsonKey(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<JsonKey<'de>, E> {
        Ok(JsonKey(Cow::Owned(v)))
    }
}

/// What to make of a JSON value that is an object; any other JSON value is
/// kept as a tree.
#[cfg_attr(not(feature = "server"), allow(dead_code))]
pub(crate) trait ReadObject<'de> {
    /// What is read.
    type Output;

    /// Reads an object.
    fn object<A: MapAccess<'de>>(self, map: A) -> Result<Self::Output, A::Error>;

    /// Takes any other value.
    fn other(value: Value) -> Self::Output;
}

/// Reads a JSON value: an object as `R` says, anything else as a tree.
#[cfg_attr(not(feature = "server"), allow(dead_code))]
pub(crate) struct ObjectOr<R>(pub(crate) R);

impl<'de, R: ReadObject<'de>> DeserializeSeed<'de> for ObjectOr<R> {
    type Value = R::Output;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<R::Output, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, R: ReadObject<'de>> Visitor<'de> for ObjectOr<R> {
    type Value = R::Output;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<R::Output, A::Error> {
        self.0.object(map)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<R::Output, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok(R::other(Value::Array(items)))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<R::Output, E> {
        Ok(R::other(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<R::Output, E> {
        Ok(R::other(Value::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<R::Output, E> {
        Ok(R::other(Value::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<R::Output, E> {
        Ok(R::other(
            serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
        ))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<R::Output, E> {
        Ok(R::other(Value::String(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<R::Output, E> {
        Ok(R::other(Value::String(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<R::Output, E> {
        Ok(R::other(Value::Null))
    }
}

//! Reading JSON object keys without copying them.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};

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

//! The arguments of a `tools/call`, kept as the JSON text the client sent.
//!
//! A handler's typed parameters are decoded straight from that text: no
//! tree of the whole object is built on the way, so a call holds its
//! arguments about once while it runs, not the many times a parsed
//! `serde_json::Value` of the same text can take.

use std::fmt;

use serde::de::{DeserializeOwned, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::schema::{JsonKey, JsonObject, McpError};

/// The arguments of a `tools/call`: a JSON object, as the client sent it.
///
/// [`ToolArguments::decode`] reads them as any `Deserialize` type (what the
/// `#[tool]` macro's parameters do); [`ToolArguments::to_object`] builds
/// the whole object, for a handler that wants it as a map.
#[derive(Clone, Default)]
pub struct ToolArguments {
    /// `None`: no arguments, the same as `{}`.
    json: Option<Box<RawValue>>,
}

impl ToolArguments {
    /// No arguments (`{}`).
    pub fn empty() -> Self {
        Self::default()
    }

    /// The arguments of a request: `arguments` as sent (absent or `null`
    /// for none), `-32602` when it is not an object.
    pub(crate) fn from_sent(sent: Option<Box<RawValue>>) -> Result<Self, McpError> {
        match sent {
            None => Ok(Self::empty()),
            Some(json) => match json.get().trim_start().as_bytes().first() {
                Some(b'{') => Ok(Self { json: Some(json) }),
                Some(b'n') => Ok(Self::empty()),
                _ => Err(McpError::invalid_params("arguments must be an object")),
            },
        }
    }

    /// Arguments the server kept as text (a task's): `-32603` when the text
    /// is not a JSON object, which only a corrupted store could hold.
    #[cfg(feature = "tasks")]
    pub(crate) fn from_kept(text: String) -> Result<Self, McpError> {
        let json = RawValue::from_string(text)
            .map_err(|e| McpError::internal(format!("kept arguments do not parse: {e}")))?;
        Self::from_sent(Some(json))
            .map_err(|_| McpError::internal("kept arguments are not a JSON object"))
    }

    /// The arguments as compact JSON text (`{}` for none).
    pub fn json(&self) -> &str {
        self.json.as_deref().map_or("{}", RawValue::get)
    }

    /// Reads the arguments as a `T`; `-32602` naming the argument that does
    /// not fit, as the macros' handlers answer.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, McpError> {
        let mut json = serde_json::Deserializer::from_str(self.json());
        serde_path_to_error::deserialize(&mut json).map_err(invalid_arguments)
    }

    /// The arguments as a JSON object (built on each call).
    pub fn to_object(&self) -> Result<JsonObject, McpError> {
        self.decode()
    }

    /// The value of the argument `name`, if it is there (of a repeated
    /// name, the last, as in a map). Only that value is built.
    pub fn get(&self, name: &str) -> Option<Value> {
        let mut json = serde_json::Deserializer::from_str(self.json());
        json.deserialize_map(Member(name)).ok().flatten()
    }
}

impl From<JsonObject> for ToolArguments {
    fn from(object: JsonObject) -> Self {
        // Serialising a map of `Value`s cannot fail.
        let json = serde_json::value::to_raw_value(&object).ok();
        Self { json }
    }
}

impl fmt::Debug for ToolArguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ToolArguments({} bytes)", self.json().len())
    }
}

impl PartialEq for ToolArguments {
    /// The same text: the same arguments, written the same way.
    fn eq(&self, other: &Self) -> bool {
        self.json() == other.json()
    }
}

/// `-32602` for arguments that do not decode, naming where.
pub(crate) fn invalid_arguments<E: fmt::Display>(error: serde_path_to_error::Error<E>) -> McpError {
    let path = error.path().to_string();
    let inner = error.into_inner();
    let message = if path == "." {
        format!("invalid arguments: {inner}")
    } else {
        format!("invalid argument `{path}`: {inner}")
    };
    McpError::invalid_params(message)
}

/// Finds one member of an object, skipping the others unbuilt.
struct Member<'a>(&'a str);

impl<'de> Visitor<'de> for Member<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Value>, A::Error> {
        let mut found = None;
        while let Some(JsonKey(key)) = map.next_key()? {
            if key == self.0 {
                found = Some(map.next_value()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sent(text: &str) -> Result<ToolArguments, McpError> {
        let raw = serde_json::from_str::<Box<RawValue>>(text).expect("JSON");
        ToolArguments::from_sent(Some(raw))
    }

    #[test]
    fn objects_and_nothing_are_arguments_and_nothing_else_is() {
        assert_eq!(sent("{\"a\":1}").unwrap().json(), "{\"a\":1}");
        assert_eq!(sent("null").unwrap().json(), "{}");
        assert_eq!(ToolArguments::from_sent(None).unwrap().json(), "{}");
        for other in ["[]", "1", "\"x\"", "true"] {
            let error = sent(other).unwrap_err();
            assert_eq!(error.code(), -32602, "{other}");
        }
    }

    #[test]
    fn members_are_read_one_at_a_time_and_the_last_of_a_repeated_name_counts() {
        let arguments = sent(r#"{"a":[0,0,0],"b":{"c":"d"},"a":2}"#).unwrap();
        assert_eq!(arguments.get("a"), Some(json!(2)));
        assert_eq!(arguments.get("b"), Some(json!({"c": "d"})));
        assert_eq!(arguments.get("z"), None);
    }

    #[test]
    fn typed_reads_name_the_argument_that_does_not_fit() {
        #[derive(serde::Deserialize, Debug)]
        struct Args {
            #[allow(dead_code)]
            count: u8,
        }
        let error = sent(r#"{"count": 300}"#)
            .unwrap()
            .decode::<Args>()
            .unwrap_err();
        assert!(error.to_string().contains("`count`"), "{error}");
        let object = ToolArguments::from(match json!({"x": 1}) {
            Value::Object(o) => o,
            _ => unreachable!(),
        });
        assert_eq!(object.to_object().unwrap().get("x"), Some(&json!(1)));
    }
}

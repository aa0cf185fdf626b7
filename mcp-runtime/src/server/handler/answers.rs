//! One round's `inputResponses`, read once from the request: each answer
//! is kept as the JSON the client sent and parsed only when a handler reads
//! it, straight into what the handler asks for. Its shape (an object of
//! objects) is checked by the methods that take answers.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::OnceLock;

use serde::de::MapAccess;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::schema::{InputResponses, JsonKey, JsonObject, McpError, ReadObject};

/// What a retry carries besides the call itself, kept apart as read.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RoundTrip {
    /// `params.inputResponses`, read into where each answer lies.
    pub(crate) input_responses: Option<SentAnswers>,
    /// `params.requestState`, of whatever JSON type it came as.
    pub(crate) request_state: Option<Value>,
}

impl RoundTrip {
    /// What the members occupy, estimated from above: the answers' text
    /// and the tree they may be read into, and the echoed state.
    #[cfg_attr(not(any(feature = "http", feature = "stdio")), allow(dead_code))]
    pub(crate) fn kept_bytes(&self) -> usize {
        let answers = match &self.input_responses {
            None => 0,
            Some(SentAnswers::Object(answers)) => {
                // The text, and the tree some readers build from it (at
                // most 16 times the text, as for any JSON).
                17 * answers.json.capacity() + 64 * answers.entries.len()
            }
            Some(SentAnswers::Other(value)) => crate::budget::json_cost(value),
        };
        answers
            + self
                .request_state
                .as_ref()
                .map_or(0, crate::budget::json_cost)
    }

    /// Puts the members back into `params`, for handlers that take the
    /// params whole.
    pub(crate) fn restore(self, params: &mut JsonObject) {
        if let Some(answers) = self.input_responses {
            params.insert(INPUT_RESPONSES.to_owned(), answers.into_value());
        }
        if let Some(state) = self.request_state {
            params.insert(REQUEST_STATE.to_owned(), state);
        }
    }
}

/// The params member a retry's answers travel in.
pub(crate) const INPUT_RESPONSES: &str = "inputResponses";
/// The params member a retry's echoed state travels in.
pub(crate) const REQUEST_STATE: &str = "requestState";

/// `params.inputResponses` as read from a request: an object's members,
/// or any other JSON value (refused by the methods that take answers).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SentAnswers {
    /// An object.
    Object(RoundAnswers),
    /// Anything else.
    Other(Value),
}

impl SentAnswers {
    /// The answers, checked to be an object of objects (`-32602`
    /// otherwise, naming the first offending key in key order).
    pub(crate) fn into_checked(self) -> Result<RoundAnswers, McpError> {
        let Self::Object(answers) = self else {
            return Err(McpError::invalid_params(
                "inputResponses must be an object of objects",
            ));
        };
        let is_object =
            |range: &Range<usize>| answers.text(range).is_some_and(|v| v.starts_with('{'));
        // The common case: every answer is an object, and a repeated key
        // cannot matter. One linear pass.
        if answers.entries.iter().all(|(_, value)| is_object(value)) {
            return Ok(answers);
        }
        // Otherwise only the last of a repeated key counts; name the first
        // offending key in key order (a map, not a scan per key: the number
        // of keys is the client's to choose).
        let last: BTreeMap<&str, &Range<usize>> = answers
            .entries
            .iter()
            .map(|(key, value)| (answers.key(key), value))
            .collect();
        let first_bad = last
            .into_iter()
            .find(|(_, value)| !is_object(value))
            .map(|(key, _)| key.to_owned());
        match first_bad {
            Some(key) => Err(McpError::invalid_params(format!(
                "inputResponses[{key:?}] must be an object"
            ))),
            None => Ok(answers),
        }
    }

    /// The value as a tree, as it was sent.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Self::Object(answers) => Value::Object(answers.tree().clone()),
            Self::Other(value) => value,
        }
    }
}

/// Reads `inputResponses` from the request in the same pass as the rest:
/// an object's members are copied out as written, in a compact object of
/// their own, with where each key and answer lies in it.
pub(crate) struct AnswersReader;

impl<'de> ReadObject<'de> for AnswersReader {
    type Output = SentAnswers;

    fn object<A: MapAccess<'de>>(self, mut map: A) -> Result<SentAnswers, A::Error> {
        let mut json = String::with_capacity(128);
        let mut entries = Vec::new();
        json.push('{');
        while let Some(JsonKey(key)) = map.next_key()? {
            let value: &RawValue = map.next_value()?;
            if entries.is_empty() {
                json.reserve(value.get().len() + 16);
            } else {
                json.push(',');
            }
            let key = match key {
                // Without escapes, the key is written as it was sent.
                Cow::Borrowed(key) => {
                    json.push('"');
                    let start = json.len();
                    json.push_str(key);
                    json.push('"');
                    KeyAt::Json(start..start + key.len())
                }
                Cow::Owned(key) => {
                    json.push_str(&Value::from(key.as_str()).to_string());
                    KeyAt::Decoded(key)
                }
            };
            json.push(':');
            let start = json.len();
            json.push_str(value.get());
            entries.push((key, start..json.len()));
        }
        json.push('}');
        Ok(SentAnswers::Object(RoundAnswers {
            json,
            entries,
            tree: OnceLock::new(),
        }))
    }

    fn other(value: Value) -> SentAnswers {
        SentAnswers::Other(value)
    }
}

/// The answers of one round, by key.
#[derive(Debug)]
pub(crate) struct RoundAnswers {
    /// The answers as a compact JSON object.
    json: String,
    /// Each key, and where its answer lies in `json`, in the order sent; of
    /// a repeated key the last counts, as in a JSON object read into a map.
    entries: Vec<(KeyAt, Range<usize>)>,
    /// The answers as a tree, for the accessors that hand out `Value`s.
    tree: OnceLock<InputResponses>,
}

/// Where a key is: in `json` as written, or decoded when it has escapes.
#[derive(Debug, Clone)]
enum KeyAt {
    Json(Range<usize>),
    Decoded(String),
}

impl Clone for RoundAnswers {
    fn clone(&self) -> Self {
        Self {
            json: self.json.clone(),
            entries: self.entries.clone(),
            tree: OnceLock::new(),
        }
    }
}

impl PartialEq for RoundAnswers {
    fn eq(&self, other: &Self) -> bool {
        self.json == other.json
    }
}

impl RoundAnswers {
    /// The answers of a map built in process (tests, embedding).
    pub(crate) fn from_map(map: &InputResponses) -> Self {
        let mut json = String::from("{");
        let mut entries = Vec::with_capacity(map.len());
        for (key, value) in map {
            if json.len() > 1 {
                json.push(',');
            }
            json.push_str(&Value::from(key.as_str()).to_string());
            json.push(':');
            let start = json.len();
            json.push_str(&value.to_string());
            entries.push((KeyAt::Decoded(key.clone()), start..json.len()));
        }
        json.push('}');
        Self {
            json,
            entries,
            tree: OnceLock::new(),
        }
    }

    /// The answers of a round the server asked itself (the bridge), each
    /// as the JSON the client sent: joined as they are, parsed only when a
    /// handler reads one.
    pub(crate) fn from_sent(answers: Vec<(String, Box<RawValue>)>) -> Self {
        let mut json = String::from("{");
        let mut entries = Vec::with_capacity(answers.len());
        for (key, value) in answers {
            if json.len() > 1 {
                json.push(',');
            }
            json.push_str(&Value::from(key.as_str()).to_string());
            json.push(':');
            let start = json.len();
            json.push_str(value.get());
            entries.push((KeyAt::Decoded(key), start..json.len()));
        }
        json.push('}');
        Self {
            json,
            entries,
            tree: OnceLock::new(),
        }
    }

    /// The answer under `key`, as the JSON the client sent.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        // The last of a repeated key counts.
        let (_, value) = self
            .entries
            .iter()
            .rev()
            .find(|(k, _)| self.key(k) == key)?;
        self.text(value)
    }

    /// The answers as one compact JSON object (a repeated key, if the
    /// client sent one, is there twice: the last counts).
    pub(crate) fn json(&self) -> &str {
        &self.json
    }

    /// The answers as a tree (parsed on first use).
    pub(crate) fn tree(&self) -> &InputResponses {
        self.tree
            .get_or_init(|| serde_json::from_str(&self.json).unwrap_or_default())
    }

    fn text(&self, range: &Range<usize>) -> Option<&str> {
        self.json.get(range.clone())
    }

    fn key<'a>(&'a self, key: &'a KeyAt) -> &'a str {
        match key {
            KeyAt::Json(range) => self.text(range).unwrap_or_default(),
            KeyAt::Decoded(key) => key,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ObjectOr;
    use serde::de::DeserializeSeed;

    fn read(json: &str) -> SentAnswers {
        let mut d = serde_json::Deserializer::from_str(json);
        ObjectOr(AnswersReader).deserialize(&mut d).unwrap()
    }

    fn answers(json: &str) -> Result<RoundAnswers, String> {
        read(json).into_checked().map_err(|e| e.to_string())
    }

    #[test]
    fn each_answer_is_found_as_sent() {
        let a = answers(r#"{ "b" : {"x": [1, 2]} , "a\u00e9":{}, "b": { "y" : null } }"#).unwrap();
        assert_eq!(
            a.get("b"),
            Some(r#"{ "y" : null }"#),
            "the last of a repeated key"
        );
        assert_eq!(a.get("a\u{e9}"), Some("{}"));
        assert_eq!(a.get("c"), None);
        assert_eq!(
            Value::Object(a.tree().clone()),
            serde_json::json!({"b": {"y": null}, "a\u{e9}": {}})
        );
    }

    #[test]
    fn the_shape_is_an_object_of_objects() {
        for bad in ["[]", "3", "\"x\"", "null"] {
            let error = answers(bad).unwrap_err();
            assert!(
                error.contains("must be an object of objects"),
                "{bad}: {error}"
            );
        }
        let error = answers(r#"{"z": 1, "b": [], "a": {}, "c": "x"}"#).unwrap_err();
        assert!(
            error.contains(r#"inputResponses["b"] must be an object"#),
            "{error}"
        );
        let error = answers(r#"{"b": {}, "b": 1, "a": 2, "a": {}}"#).unwrap_err();
        assert!(
            error.contains(r#"inputResponses["b"] must be an object"#),
            "{error}"
        );
        assert!(answers("{}").is_ok());
    }

    #[test]
    fn what_was_sent_is_kept_whatever_it_is() {
        for json in [r#"{"a":{"b":1},"c\"d":2}"#, "[1,{}]", "null", "\"s\""] {
            let expected: Value = serde_json::from_str(json).unwrap();
            assert_eq!(read(json).into_value(), expected, "{json}");
        }
    }

    #[test]
    fn a_map_built_in_process_reads_the_same() {
        let map: InputResponses = serde_json::from_value(
            serde_json::json!({"k\"ey": {"action": "accept", "content": {"n": 1}}}),
        )
        .unwrap();
        let a = RoundAnswers::from_map(&map);
        assert_eq!(
            a.get("k\"ey"),
            Some(r#"{"action":"accept","content":{"n":1}}"#)
        );
        assert_eq!(a.tree(), &map);
    }
}

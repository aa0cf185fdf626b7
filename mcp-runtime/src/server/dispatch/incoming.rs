//! Reading one JSON-RPC message from bytes.
//!
//! The message is read in one pass into the fields JSON-RPC defines, not
//! into a tree first. `params` becomes a JSON object, except `arguments`,
//! kept as the JSON text the client sent (a tool's handler decodes its
//! typed arguments from it), and what a retry carries: `inputResponses`,
//! also kept as sent (each answer is parsed only when a handler reads
//! it), and `requestState`; and `_meta`, kept as text too (each entry's
//! value as sent), with where its entries are (the typed `_meta` is read
//! from them, without a tree).

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::arguments::restore_arguments;
use super::meta::MetaText;
use super::params::{Params, ParamsReader};
use super::response::Response;
use crate::schema::{
    ErrorObject, JSONRPC_VERSION, JsonKey, JsonObject, McpError, ObjectOr, RequestId,
};
use crate::server::handler::RoundTrip;
use crate::server::legacy::ClientResponse;

/// A client request, structurally valid as JSON-RPC.
#[derive(Debug, Clone)]
pub struct Request {
    /// The id.
    pub id: RequestId,
    /// The method.
    pub method: String,
    /// The params, if any (not yet validated), without `_meta`,
    /// `arguments`, `inputResponses` and `requestState`, which are kept
    /// apart for the methods that take them.
    pub params: Option<Value>,
    /// `params._meta` kept as text (each entry's value as sent), when params
    /// is an object that has it: read into the typed `_meta` without a tree;
    /// any method that takes it in its params gets it back there.
    pub(crate) meta: Option<Box<MetaText>>,
    /// `params.arguments` as the JSON text sent, when params is an object
    /// that has it: a tool's arguments are decoded from it by the handler,
    /// without a tree in between; any other method gets it back in params.
    pub(crate) arguments: Option<Box<RawValue>>,
    /// `params.inputResponses` and `params.requestState`, when params is an
    /// object that has them.
    pub(crate) round_trip: RoundTrip,
}

impl Request {
    /// `params._meta` as the client sent it, read into a tree: the reader
    /// keeps it apart from [`Self::params`].
    pub fn meta(&self) -> Option<Value> {
        self.meta.as_deref().map(MetaText::value)
    }

    /// What the request holds while it runs, estimated from above: its
    /// params as parsed, its arguments, what a retry carries, and a little
    /// for the rest (what it is charged to the memory budget).
    #[cfg_attr(not(any(feature = "http", feature = "stdio")), allow(dead_code))]
    pub(crate) fn held_bytes(&self) -> usize {
        const ENVELOPE: usize = 512;
        // A tool's arguments stay the text sent; any other method's are
        // read into a tree (at most 16 times the text, as for any JSON).
        let arguments = self.arguments.as_ref().map_or(0, |a| a.get().len());
        let arguments = match self.method.as_str() {
            crate::schema::request_methods::TOOLS_CALL => arguments,
            _ => 17 * arguments,
        };
        // The text, and what is read from it: at most a tree of it.
        let meta = self.meta.as_ref().map_or(0, |meta| 18 * meta.len());
        ENVELOPE
            + self.method.len()
            + self.params.as_ref().map_or(0, crate::budget::json_cost)
            + arguments
            + meta
            + self.round_trip.kept_bytes()
    }
}

impl PartialEq for Request {
    fn eq(&self, other: &Self) -> bool {
        let text = |r: &Self| r.arguments.as_deref().map(RawValue::get).map(str::to_owned);
        self.id == other.id
            && self.method == other.method
            && self.params == other.params
            && self.meta == other.meta
            && text(self) == text(other)
            && self.round_trip == other.round_trip
    }
}

/// One message from a client.
#[derive(Debug)]
pub enum Incoming {
    /// A request: it gets exactly one response.
    Request(Request),
    /// A notification: it gets no response.
    Notification {
        /// The notification method.
        method: String,
        /// Its params, if any.
        params: Option<JsonObject>,
    },
    /// A response to a request the server sent (2025-era sessions only:
    /// `elicitation/create`, `sampling/createMessage`, `roots/list`).
    Response(ClientResponse),
}

/// Parses one message. A message that is not a valid JSON-RPC request or
/// notification yields the error response to send back (`-32700` for bad
/// JSON, `-32600` otherwise), carrying the id when one could be read.
pub fn parse_message(bytes: &[u8]) -> Result<Incoming, Box<Response>> {
    let parse_error =
        |detail: String| Box::new(Response::error(None, McpError::ParseError { detail }));
    // UTF-8 checked once for the whole message, rather than string by
    // string and again for each member kept as text.
    let text = std::str::from_utf8(bytes)
        .map_err(|e| parse_error(format!("the message is not UTF-8: {e}")))?;
    let message: Message = serde_json::from_str(text).map_err(|e| parse_error(e.to_string()))?;
    let Message::Object(fields) = message else {
        return Err(invalid(
            None,
            "a message must be a JSON object (batches are not supported)",
        ));
    };
    let id = match &fields.id {
        None => None,
        Some(raw) => match RequestId::from_json(raw) {
            Some(id) => Some(id),
            None => return Err(invalid(None, RequestId::RULE)),
        },
    };
    if fields.jsonrpc.as_ref().and_then(Value::as_str) != Some(JSONRPC_VERSION) {
        return Err(invalid(id, "\"jsonrpc\" must be \"2.0\""));
    }
    let method = match fields.method {
        Some(Value::String(method)) => method,
        Some(_) => return Err(invalid(id, "\"method\" must be a string")),
        None if fields.result.is_some() || fields.error.is_some() => {
            return response(id, fields.result, fields.error).map(Incoming::Response);
        }
        None => return Err(invalid(id, "\"method\" is required")),
    };
    let (params, meta, arguments, round_trip) = match fields.params {
        Some(Params {
            value,
            meta,
            arguments,
            round_trip,
        }) => (Some(value), meta, arguments, round_trip),
        None => (None, None, None, RoundTrip::default()),
    };
    match id {
        Some(id) => Ok(Incoming::Request(Request {
            id,
            method,
            params,
            meta,
            arguments,
            round_trip,
        })),
        None => {
            let params = match params {
                None => None,
                Some(Value::Object(mut params)) => {
                    MetaText::restore_into(meta, &mut params);
                    restore_arguments(arguments, &mut params);
                    round_trip.restore(&mut params);
                    Some(params)
                }
                Some(_) => return Err(invalid(None, "notification params must be an object")),
            };
            Ok(Incoming::Notification { method, params })
        }
    }
}

/// A response's members: an id, and exactly one of `result` and `error`.
fn response(
    id: Option<RequestId>,
    result: Option<Box<RawValue>>,
    error: Option<Value>,
) -> Result<ClientResponse, Box<Response>> {
    let Some(id) = id else {
        return Err(invalid(
            None,
            "a response needs the id of the request it answers",
        ));
    };
    let outcome = match (result, error) {
        (Some(result), None) => Ok(result),
        (None, Some(error)) => match serde_json::from_value::<ErrorObject>(error) {
            Ok(error) => Err(error),
            Err(_) => {
                return Err(invalid(
                    Some(id),
                    "\"error\" must be an object with an integer code and a message",
                ));
            }
        },
        _ => {
            return Err(invalid(
                Some(id),
                "a response carries exactly one of \"result\" and \"error\"",
            ));
        }
    };
    Ok(ClientResponse { id, outcome })
}

fn invalid(id: Option<RequestId>, detail: &str) -> Box<Response> {
    Box::new(Response::error(
        id,
        McpError::InvalidRequest {
            detail: detail.to_owned(),
        },
    ))
}

/// A message: an object's JSON-RPC fields, or anything else (refused).
#[allow(clippy::large_enum_variant)] // lives on the stack for one parse
enum Message {
    Object(Fields),
    Other,
}

/// The members of a message object that JSON-RPC defines. A repeated member
/// counts with its last value, as in a JSON object read into a map.
#[derive(Default)]
struct Fields {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Params>,
    /// `result`, present in a successful response, as sent.
    result: Option<Box<RawValue>>,
    /// `error`, present in an error response.
    error: Option<Value>,
}

impl<'de> de::Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let mut fields = Fields::default();
        while let Some(JsonKey(key)) = map.next_key()? {
            match &*key {
                "jsonrpc" => fields.jsonrpc = Some(map.next_value()?),
                "id" => fields.id = Some(map.next_value()?),
                "method" => fields.method = Some(map.next_value()?),
                "params" => fields.params = Some(map.next_value_seed(ObjectOr(ParamsReader))?),
                "result" => fields.result = Some(map.next_value()?),
                "error" => fields.error = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Message::Object(fields))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Message, A::Error> {
        // Read to its end, so bad JSON inside is still a parse error.
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Message::Other)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Message, E> {
        Ok(Message::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Message, E> {
        Ok(Message::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Message, E> {
        Ok(Message::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Message, E> {
        Ok(Message::Other)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Message, E> {
        Ok(Message::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Message, E> {
        Ok(Message::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(json: &str) -> Request {
        match parse_message(json.as_bytes()) {
            Ok(Incoming::Request(request)) => request,
            other => panic!("not a request: {other:?}"),
        }
    }

    fn refusal(json: &str) -> (i32, String) {
        match parse_message(json.as_bytes()) {
            Err(response) => {
                let error = response.error_value().expect("an error").clone();
                (error.code(), error.to_string())
            }
            Ok(other) => panic!("accepted: {other:?}"),
        }
    }

    /// A message that is not UTF-8, in a string or between members, is
    /// not JSON (`-32700`), and the error says so; UTF-8 beyond ASCII reads.
    #[test]
    fn a_message_that_is_not_utf8_is_a_parse_error() {
        let valid = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"caf\u{e9}\"}}";
        assert_eq!(request(valid).params.unwrap()["name"], "caf\u{e9}");
        // é is 0xc3 0xa9: its second byte made 0xff; then a lone 0xc3
        // between two members.
        let in_a_string: Vec<u8> = valid
            .bytes()
            .map(|b| if b == 0xa9 { 0xff } else { b })
            .collect();
        let between = [
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,"[..],
            &[0xc3],
            &b"\"method\":\"ping\"}"[..],
        ]
        .concat();
        for bytes in [in_a_string, between] {
            let Err(response) = parse_message(&bytes) else {
                panic!("accepted {bytes:?}");
            };
            let error = response.error_value().expect("an error");
            assert_eq!(error.code(), -32700, "{error}");
            assert!(error.to_string().contains("not UTF-8"), "{error}");
        }
    }

    #[test]
    fn input_responses_are_kept_as_sent_and_the_rest_is_a_tree() {
        let r = request(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t",
               "inputResponses": {"a" : {"action":"accept"}},"requestState":"s"}}"#,
        );
        assert_eq!(r.id, RequestId::Number(7));
        assert_eq!(r.params, Some(serde_json::json!({"name": "t"})));
        assert!(r.meta.is_none());
        let answers = r.round_trip.input_responses.expect("kept");
        assert_eq!(
            answers.into_value(),
            serde_json::json!({"a": {"action": "accept"}})
        );
        assert_eq!(r.round_trip.request_state, Some(Value::from("s")));
    }

    #[test]
    fn meta_is_kept_as_sent_and_a_notification_gets_it_back() {
        let meta = r#"{ "progressToken" : 3, "x": [ {} ] }"#;
        let r = request(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{meta},"cursor":"c"}}}}"#
        ));
        assert_eq!(r.params, Some(serde_json::json!({"cursor": "c"})));
        assert_eq!(
            r.meta(),
            Some(serde_json::json!({"progressToken": 3, "x": [{}]}))
        );
        let compact = r#"{"progressToken":3,"x":[ {} ]}"#;
        assert_eq!(
            format!("{:?}", r.meta),
            format!("Some(MetaText({compact:?}))")
        );
        let notification = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"_meta":{meta},"progress":1}}}}"#
        );
        match parse_message(notification.as_bytes()) {
            Ok(Incoming::Notification { params, .. }) => assert_eq!(
                params.map(Value::Object),
                Some(serde_json::json!({"_meta": {"progressToken": 3, "x": [{}]}, "progress": 1}))
            ),
            other => panic!("not a notification: {other:?}"),
        }
    }

    #[test]
    fn arguments_or_meta_nested_deeper_than_a_tree_may_are_a_parse_error() {
        use super::super::arguments::{MAX_DEPTH, nesting_depth};
        for member in ["arguments", "_meta"] {
            let nested = |n: usize| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","{member}":{}1{}}}}}"#,
                    r#"{"a":"#.repeat(n),
                    "}".repeat(n)
                )
            };
            assert!(parse_message(nested(MAX_DEPTH).as_bytes()).is_ok());
            assert_eq!(refusal(&nested(MAX_DEPTH + 1)).0, -32700);
            assert_eq!(refusal(&nested(100_000)).0, -32700);
        }
        // Brackets in strings do not count. (The brace is written escaped:
        // tests/architecture.rs counts braces to find where this module
        // ends.)
        let text = format!(r#"{{"s":"{}\"{}"}}"#, "[".repeat(500), "\u{7b}".repeat(500));
        assert_eq!(nesting_depth(&text), 1);
    }

    #[test]
    fn repeated_members_count_with_their_last_value() {
        let r = request(
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x","params":{"a":1},"params":[1,{"b":null}]}"#,
        );
        assert_eq!(r.id, RequestId::Number(2));
        assert_eq!(r.params, Some(serde_json::json!([1, {"b": null}])));
        assert_eq!(r.round_trip, RoundTrip::default());
    }

    #[test]
    fn params_of_any_type_are_read_as_sent() {
        for params in [
            "null",
            "true",
            "-3",
            "18446744073709551615",
            "2.5",
            "\"s\"",
            "[]",
        ] {
            let r = request(&format!(
                r#"{{"jsonrpc":"2.0","id":"x","method":"m","params":{params}}}"#
            ));
            let expected: Value = serde_json::from_str(params).unwrap();
            assert_eq!(r.params, Some(expected), "{params}");
        }
    }

    #[test]
    fn a_notification_keeps_its_input_responses_in_its_params() {
        let parsed = parse_message(
            br#"{"jsonrpc":"2.0","method":"n","params":{"inputResponses":{"a":{}},"requestState":1}}"#,
        );
        let Ok(Incoming::Notification { params, .. }) = parsed else {
            panic!("not a notification: {parsed:?}");
        };
        assert_eq!(
            params.map(Value::Object),
            Some(serde_json::json!({"inputResponses": {"a": {}}, "requestState": 1}))
        );
    }

    #[test]
    fn responses_are_read_with_their_outcome() {
        let parsed = parse_message(br#"{"jsonrpc":"2.0","id":7,"result":{"action":"accept"}}"#);
        let Ok(Incoming::Response(ClientResponse {
            id,
            outcome: Ok(result),
        })) = parsed
        else {
            panic!("{parsed:?}")
        };
        assert_eq!(id, RequestId::Number(7));
        assert_eq!(result.get(), r#"{"action":"accept"}"#, "kept as sent");
        let parsed =
            parse_message(br#"{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"no"}}"#);
        let Ok(Incoming::Response(ClientResponse {
            id,
            outcome: Err(error),
        })) = parsed
        else {
            panic!("{parsed:?}")
        };
        assert_eq!(
            (id, error.code, error.message.as_str()),
            ("a".into(), -1, "no")
        );
    }

    #[test]
    fn what_is_not_a_request_is_refused_as_before() {
        assert_eq!(refusal("[1, 2]").0, -32600);
        assert_eq!(refusal("\"x\"").0, -32600);
        assert_eq!(refusal("[1, 2").0, -32700, "bad JSON inside an array");
        assert_eq!(
            refusal(r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#).0,
            -32700
        );
        assert_eq!(
            refusal(r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#).0,
            -32600
        );
        assert_eq!(
            refusal(r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#).0,
            -32600
        );
        assert_eq!(refusal(r#"{"jsonrpc":"2.0","id":1,"method":5}"#).0, -32600);
        let (code, message) = refusal(r#"{"jsonrpc":"2.0","result":{}}"#);
        assert_eq!(code, -32600);
        assert!(message.contains("needs the id"), "{message}");
        let (code, message) = refusal(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#);
        assert_eq!(code, -32600);
        assert!(message.contains("exactly one"), "{message}");
        let (code, message) = refusal(r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#);
        assert_eq!(code, -32600);
        assert!(message.contains("integer code"), "{message}");
        let (code, message) = refusal(r#"{"jsonrpc":"2.0","method":"n","params":[]}"#);
        assert_eq!(code, -32600);
        assert!(message.contains("notification params"), "{message}");
    }
}

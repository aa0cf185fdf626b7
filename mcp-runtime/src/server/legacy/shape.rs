//! The 2025 shape of a result, written straight from the result's type:
//! without the members 2026-07-28 added at its top level (`resultType`,
//! and the caching hints `ttlMs` and `cacheScope`). `serverInfo` is never
//! put in a 2025-era result's `_meta` in the first place (a 2025-era
//! client had it from `initialize`).
//!
//! A [`serde::Serializer`] in front of serde_json's leaves those members
//! out as the result is written: one pass, no tree, no second scan.

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use crate::schema::McpError;

/// The members of a result that 2026-07-28 added, left out of the 2025 shape.
const ADDED_IN_2026: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

/// `result` as compact JSON in its 2025 shape.
pub(crate) fn serialise_2025<T: Serialize + ?Sized>(result: &T) -> Result<String, McpError> {
    let mut json = Vec::with_capacity(1024);
    result
        .serialize(Shape2025(&mut serde_json::Serializer::new(&mut json)))
        .map_err(|e| McpError::internal(format!("could not serialise the result: {e}")))?;
    String::from_utf8(json)
        .map_err(|e| McpError::internal(format!("the serialised result is not UTF-8: {e}")))
}

/// Writes a value as `S` does, leaving the 2026-07-28 members out of the
/// top-level struct (values inside are written by `S` itself).
struct Shape2025<S>(S);

/// The top-level struct of a result, without the 2026-07-28 members.
struct Without2026<S>(S);

impl<S: SerializeStruct> SerializeStruct for Without2026<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), S::Error> {
        if ADDED_IN_2026.contains(&key) {
            return Ok(());
        }
        self.0.serialize_field(key, value)
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.0.skip_field(key)
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

/// Forwards each method to `S` unchanged.
macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {$(
        fn $method(self, $($arg: $ty),*) -> Result<$out, S::Error> {
            self.0.$method($($arg),*)
        }
    )*};
}

impl<S: Serializer> Serializer for Shape2025<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = S::SerializeSeq;
    type SerializeTuple = S::SerializeTuple;
    type SerializeTupleStruct = S::SerializeTupleStruct;
    type SerializeTupleVariant = S::SerializeTupleVariant;
    type SerializeMap = S::SerializeMap;
    type SerializeStruct = Without2026<S::SerializeStruct>;
    type SerializeStructVariant = S::SerializeStructVariant;

    forward! {
        serialize_bool(v: bool) -> S::Ok;
        serialize_i8(v: i8) -> S::Ok;
        serialize_i16(v: i16) -> S::Ok;
        serialize_i32(v: i32) -> S::Ok;
        serialize_i64(v: i64) -> S::Ok;
        serialize_i128(v: i128) -> S::Ok;
        serialize_u8(v: u8) -> S::Ok;
        serialize_u16(v: u16) -> S::Ok;
        serialize_u32(v: u32) -> S::Ok;
        serialize_u64(v: u64) -> S::Ok;
        serialize_u128(v: u128) -> S::Ok;
        serialize_f32(v: f32) -> S::Ok;
        serialize_f64(v: f64) -> S::Ok;
        serialize_char(v: char) -> S::Ok;
        serialize_str(v: &str) -> S::Ok;
        serialize_bytes(v: &[u8]) -> S::Ok;
        serialize_none() -> S::Ok;
        serialize_unit() -> S::Ok;
        serialize_unit_struct(name: &'static str) -> S::Ok;
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str) -> S::Ok;
        serialize_seq(len: Option<usize>) -> S::SerializeSeq;
        serialize_tuple(len: usize) -> S::SerializeTuple;
        serialize_tuple_struct(name: &'static str, len: usize) -> S::SerializeTupleStruct;
        serialize_tuple_variant(
            name: &'static str,
            index: u32,
            variant: &'static str,
            len: usize
        ) -> S::SerializeTupleVariant;
        serialize_map(len: Option<usize>) -> S::SerializeMap;
        serialize_struct_variant(
            name: &'static str,
            index: u32,
            variant: &'static str,
            len: usize
        ) -> S::SerializeStructVariant;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(value)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, value)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0
            .serialize_newtype_variant(name, index, variant, value)
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Without2026<S::SerializeStruct>, S::Error> {
        self.0.serialize_struct(name, len).map(Without2026)
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{CacheScope, CallToolResult, ListToolsResult, ResultType, Tool};

    #[test]
    fn results_lose_what_2026_07_28_added() {
        let list = ListToolsResult {
            result_type: ResultType::Complete,
            tools: vec![Tool::new("t", "A tool.")],
            next_cursor: None,
            ttl_ms: 5,
            cache_scope: CacheScope::Public,
            meta: None,
        };
        let shaped: serde_json::Value =
            serde_json::from_str(&serialise_2025(&list).unwrap()).unwrap();
        let full = serde_json::to_value(&list).unwrap();
        assert!(full.get("resultType").is_some() && full.get("ttlMs").is_some());
        let mut expected = full;
        for key in ADDED_IN_2026 {
            expected.as_object_mut().unwrap().remove(key);
        }
        assert_eq!(shaped, expected);
    }

    #[test]
    fn only_the_top_level_is_shaped() {
        let mut result = CallToolResult::text("a\"b");
        result.structured_content = Some(serde_json::json!({"resultType": "kept", "n": 1}));
        let shaped = serialise_2025(&result).unwrap();
        assert!(!shaped.starts_with("\u{7b}\"resultType\""), "{shaped}");
        let value: serde_json::Value = serde_json::from_str(&shaped).unwrap();
        assert_eq!(value.get("resultType"), None);
        assert_eq!(value["structuredContent"]["resultType"], "kept");
        assert_eq!(value["content"][0]["text"], "a\"b");
    }
}

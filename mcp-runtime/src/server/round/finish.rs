//! Finishing a result: `serverInfo` in its `_meta` (2026-07-28 only), and
//! the result serialised once, in the shape of the request's era.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::schema::{
    CallToolResult, CompleteResult, DiscoverResult, GetPromptResult, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, McpError,
    ReadResourceResult, ResultType,
};
use crate::server::legacy::serialise_2025;

/// How a server finishes results: the `serverInfo` entry every 2026-07-28
/// result's `_meta` carries, unless the server leaves it out. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub(crate) struct Finisher {
    /// `{"io.modelcontextprotocol/serverInfo": ...}`, ready to put in a
    /// result's `_meta`.
    server_meta: Option<Arc<JsonObject>>,
    /// The same, written as JSON: the `_meta` of a result that has none of
    /// its own, copied rather than cloned and serialised.
    meta_json: Option<Arc<str>>,
}

/// The era a result is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// 2026-07-28: `resultType`, caching hints, `serverInfo`.
    Modern,
    /// The 2025 era: none of those.
    Legacy,
}

impl Shape {
    /// The shape of a request of the 2025 era (`true`) or not.
    pub(crate) fn of(legacy: bool) -> Self {
        if legacy { Self::Legacy } else { Self::Modern }
    }
}

/// Gives result types uniform access to their `_meta`.
pub(crate) trait ResultMeta: Serialize {
    fn meta_mut(&mut self) -> &mut Option<JsonObject>;
}

macro_rules! result_meta {
    ($($ty:ty),* $(,)?) => {$(
        impl ResultMeta for $ty {
            fn meta_mut(&mut self) -> &mut Option<JsonObject> {
                &mut self.meta
            }
        }
    )*};
}

result_meta!(
    DiscoverResult,
    ListToolsResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    CallToolResult,
    GetPromptResult,
    ReadResourceResult,
    CompleteResult,
);

impl Finisher {
    /// A finisher that adds `server_meta` (the `serverInfo` entry) to
    /// results, or nothing.
    pub(crate) fn new(server_meta: Option<JsonObject>) -> Self {
        let meta_json = server_meta
            .as_ref()
            .and_then(|meta| serde_json::to_string(meta).ok())
            .map(Arc::from);
        Self {
            server_meta: server_meta.map(Arc::new),
            meta_json,
        }
    }

    /// `result` serialised once in `shape`: for 2026-07-28 with
    /// `serverInfo` added to its `_meta`; for the 2025 era without what
    /// 2026-07-28 added.
    pub(crate) fn result<R: ResultMeta>(
        &self,
        shape: Shape,
        mut result: R,
    ) -> Result<String, McpError> {
        match shape {
            Shape::Modern => {
                let meta = result.meta_mut();
                if let (None, Some(server_meta)) = (&meta, &self.meta_json) {
                    // No `_meta` of its own: the result, then serverInfo's.
                    let mut json = serialise(&result)?;
                    if json.len() > 2 && json.ends_with('}') {
                        json.pop();
                        json.push_str(r#","_meta":"#);
                        json.push_str(server_meta);
                        json.push('}');
                        return Ok(json);
                    }
                    let meta = result.meta_mut();
                    *meta = self.with_server_info(None);
                    return serialise(&result);
                }
                *meta = self.with_server_info(meta.take());
                serialise(&result)
            }
            Shape::Legacy => serialise_2025(&result),
        }
    }

    /// A result's `_meta` with `serverInfo` added (unless the server leaves
    /// it out), keeping any key the handler set itself.
    pub(crate) fn with_server_info(&self, meta: Option<JsonObject>) -> Option<JsonObject> {
        let Some(server_meta) = &self.server_meta else {
            return meta;
        };
        let mut meta = meta.unwrap_or_default();
        add_server_info(server_meta, &mut meta);
        Some(meta)
    }

    /// A result's `_meta` written as JSON: `meta` with `serverInfo` added,
    /// or, when the handler set none, `serverInfo`'s own, written once
    /// when the server was built (not cloned and written per result).
    pub(crate) fn meta_json(
        &self,
        meta: Option<JsonObject>,
    ) -> Result<Option<Cow<'_, str>>, McpError> {
        match (meta, &self.meta_json) {
            (None, Some(server_meta)) => Ok(Some(Cow::Borrowed(server_meta))),
            (None, None) => Ok(None),
            (Some(meta), _) => {
                let meta = self.with_server_info(Some(meta));
                serialise(&meta).map(|json| Some(Cow::Owned(json)))
            }
        }
    }

    /// Adds `serverInfo` to a `_meta` object, keeping any key already there.
    pub(crate) fn add_server_info(&self, meta: &mut JsonObject) {
        if let Some(server_meta) = &self.server_meta {
            add_server_info(server_meta, meta);
        }
    }

    /// An extension method's result: an object, given `resultType` and
    /// `serverInfo` for 2026-07-28 (as it is for the 2025 era).
    pub(crate) fn extension(&self, shape: Shape, value: Value) -> Result<String, McpError> {
        let Value::Object(mut object) = value else {
            return Err(McpError::internal(
                "an extension method's result must be a JSON object",
            ));
        };
        if shape == Shape::Modern {
            object
                .entry("resultType")
                .or_insert_with(|| Value::from(ResultType::Complete.as_str()));
            if let Some(server_meta) = &self.server_meta
                && let Value::Object(meta) = object
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(JsonObject::new()))
            {
                add_server_info(server_meta, meta);
            }
        }
        serialise(&object)
    }
}

/// Adds the `serverInfo` entries to a result's `_meta`, keeping any key the
/// handler set itself.
fn add_server_info(server_meta: &JsonObject, meta: &mut JsonObject) {
    for (key, value) in server_meta {
        meta.entry(key.clone()).or_insert_with(|| value.clone());
    }
}

/// A result as compact JSON.
pub(crate) fn serialise<T: Serialize>(result: &T) -> Result<String, McpError> {
    // Most results fit here: written without growing the buffer on the way.
    let mut json = Vec::with_capacity(1024);
    serde_json::to_writer(&mut json, result)
        .map_err(|e| McpError::internal(format!("could not serialise the result: {e}")))?;
    String::from_utf8(json)
        .map_err(|e| McpError::internal(format!("the serialised result is not UTF-8: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn server_meta() -> JsonObject {
        let Value::Object(meta) =
            json!({"io.modelcontextprotocol/serverInfo": {"name": "s\"1", "version": "1"}})
        else {
            unreachable!()
        };
        meta
    }

    /// The result with serverInfo written after it reads as the result with
    /// serverInfo merged into its `_meta`; a `_meta` of its own is kept.
    #[test]
    fn server_info_ends_every_modern_result() {
        let finisher = Finisher::new(Some(server_meta()));
        let plain = finisher
            .result(Shape::Modern, CallToolResult::text("hi"))
            .unwrap();
        let plain: Value = serde_json::from_str(&plain).unwrap();
        assert_eq!(plain["content"][0]["text"], "hi");
        assert_eq!(
            plain["_meta"],
            Value::Object(server_meta()),
            "serverInfo in {plain}"
        );

        let mut own = CallToolResult::text("hi");
        let Value::Object(meta) = json!({"mine": 1}) else {
            unreachable!()
        };
        own.meta = Some(meta);
        let own: Value =
            serde_json::from_str(&finisher.result(Shape::Modern, own).unwrap()).unwrap();
        assert_eq!(own["_meta"]["mine"], 1);
        assert_eq!(
            own["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "s\"1"
        );

        let none = Finisher::new(None)
            .result(Shape::Modern, CallToolResult::text("hi"))
            .unwrap();
        assert!(!none.contains("_meta"), "{none}");
        let legacy = finisher
            .result(Shape::Legacy, CallToolResult::text("hi"))
            .unwrap();
        assert!(!legacy.contains("serverInfo"), "{legacy}");
    }

    /// The `_meta` written for a result is the one built as a map: the
    /// server's alone when the handler set none, the handler's keys with
    /// serverInfo added (the handler's own entry kept) otherwise, and
    /// nothing when the server leaves serverInfo out and the handler too.
    #[test]
    fn meta_json_writes_the_meta_built_as_a_map() {
        let finisher = Finisher::new(Some(server_meta()));
        let Value::Object(own) = json!({
            "mine": [1, "two"],
            "io.modelcontextprotocol/serverInfo": {"name": "handler's"}
        }) else {
            unreachable!()
        };
        for meta in [None, Some(own)] {
            let written = finisher.meta_json(meta.clone()).unwrap().unwrap();
            let built = finisher.with_server_info(meta);
            assert_eq!(
                serde_json::from_str::<Value>(&written).unwrap(),
                Value::Object(built.unwrap()),
                "{written}"
            );
        }
        assert_eq!(
            finisher.meta_json(None).unwrap().unwrap(),
            serde_json::to_string(&server_meta()).unwrap()
        );
        assert!(Finisher::new(None).meta_json(None).unwrap().is_none());
    }
}

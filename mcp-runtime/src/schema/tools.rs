//! Tools: descriptors, `tools/list`, `tools/call`.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::property_order::OrderedSchema;
use super::{CacheScope, ContentBlock, Icon, InputResponses, JsonObject, ResultType};

/// A tool as `tools/list` describes it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Unique name, e.g. `get_weather`.
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does; a hint to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons to display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// JSON Schema of the arguments; its root has `type: "object"`.
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent`, when the tool returns any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
    /// The order `input_schema`'s top-level `properties` are written in:
    /// the names listed here first, in this order, then any others by name.
    /// Empty (a tool built by hand, or read off the wire): by name. Not
    /// sent itself; `#[tool]` fills it with the fields of the arguments
    /// type in the order they are declared.
    #[serde(skip)]
    pub property_order: Vec<String>,
}

impl Tool {
    /// A tool taking no arguments (`{"type":"object"}`).
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        let mut input_schema = JsonObject::new();
        input_schema.insert("type".into(), Value::from("object"));
        Self {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            icons: None,
            input_schema,
            output_schema: None,
            annotations: None,
            meta: None,
            property_order: Vec::new(),
        }
    }

    /// Replaces the input schema.
    pub fn with_input_schema(mut self, schema: JsonObject) -> Self {
        self.input_schema = schema;
        self
    }

    /// Lists the input schema's `properties` in this order when the tool
    /// is written (see [`Tool::property_order`]).
    pub fn with_property_order<I>(mut self, names: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.property_order = names.into_iter().map(Into::into).collect();
        self
    }
}

impl Serialize for Tool {
    /// The members of [`Tool`] as its serde attributes say, with the input
    /// schema's `properties` in [`Tool::property_order`].
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Every field named, so a new one cannot be forgotten here.
        let Self {
            name,
            title,
            description,
            icons,
            input_schema,
            output_schema,
            annotations,
            meta,
            property_order,
        } = self;
        ToolOut {
            name,
            title: title.as_deref(),
            description: description.as_deref(),
            icons: icons.as_ref(),
            input_schema: OrderedSchema {
                schema: input_schema,
                order: property_order,
            },
            output_schema: output_schema.as_ref(),
            annotations: annotations.as_ref(),
            meta: meta.as_ref(),
        }
        .serialize(serializer)
    }
}

/// A [`Tool`] as it is written: its members borrowed, the input schema
/// with its properties in order.
#[derive(Serialize)]
#[serde(rename = "Tool", rename_all = "camelCase")]
struct ToolOut<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    icons: Option<&'a Vec<Icon>>,
    input_schema: OrderedSchema<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<&'a JsonObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<&'a ToolAnnotations>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a JsonObject>,
}

/// Hints about a tool's behaviour. Hints only: clients must not trust them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeated calls with the same arguments have no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// Parameters of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// The per-request `_meta`.
    #[serde(rename = "_meta")]
    pub meta: JsonObject,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Answers to the previous round's input requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The previous round's `requestState`, echoed byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

/// The complete result of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Always [`ResultType::Complete`] for this type.
    #[serde(default)]
    pub result_type: ResultType,
    /// Unstructured content.
    pub content: Vec<ContentBlock>,
    /// Structured content matching the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// True when the tool itself failed (the model may self-correct).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CallToolResult {
    /// A successful result with these content blocks.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![ContentBlock::text(text)])
    }

    /// A tool-level failure (`isError: true`) with one text block.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            is_error: Some(true),
            ..Self::text(text)
        }
    }
}

/// The result of `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// Always complete.
    #[serde(default)]
    pub result_type: ResultType,
    /// The tools.
    pub tools: Vec<Tool>,
    /// Cursor of the next page, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse the result.
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

//! Sampling, as a deprecated input request (`sampling/createMessage`).
//!
//! Sampling is deprecated as of 2026-07-28 (SEP-2577) but still part of the
//! revision; prefer elicitation, or call a model provider directly.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{AudioContent, ContentBlock, ImageContent, JsonObject, Role, TextContent, Tool};

/// Parameters of a `sampling/createMessage` input request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// The conversation to continue.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens the client may generate.
    pub max_tokens: u64,
    /// Model selection preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// System prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// `"none"`, `"thisServer"` or `"allServers"` (the last two deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may use (needs the client's `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model should use the tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
}

impl CreateMessageRequestParams {
    /// A request with one user text message.
    pub fn user_text(text: impl Into<String>, max_tokens: u64) -> Self {
        Self {
            messages: vec![SamplingMessage {
                role: Role::User,
                content: SamplingContent::One(SamplingContentBlock::Text(TextContent::new(text))),
                meta: None,
            }],
            max_tokens,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
        }
    }
}

/// How the model should use tools during sampling.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// `"auto"`, `"required"` or `"none"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

/// Model selection preferences.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model name hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// 0..1: how much cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// 0..1: how much speed matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// 0..1: how much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// A model name hint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A (partial) model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A message in a sampling conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// One block or several.
    pub content: SamplingContent,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// One content block or a list of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SamplingContent {
    /// A single block.
    One(SamplingContentBlock),
    /// Several blocks.
    Many(Vec<SamplingContentBlock>),
}

/// A block of sampling content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum SamplingContentBlock {
    /// Text.
    #[serde(rename = "text")]
    Text(TextContent),
    /// Image.
    #[serde(rename = "image")]
    Image(ImageContent),
    /// Audio.
    #[serde(rename = "audio")]
    Audio(AudioContent),
    /// The model calls a tool.
    #[serde(rename = "tool_use")]
    ToolUse(ToolUseContent),
    /// The result of a tool call.
    #[serde(rename = "tool_result")]
    ToolResult(ToolResultContent),
}

/// A tool call made by the model during sampling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Tool arguments.
    pub input: JsonObject,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of a tool call during sampling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The id of the call this answers.
    pub tool_use_id: String,
    /// Unstructured result.
    pub content: Vec<ContentBlock>,
    /// Structured result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// The call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The client's answer to a sampling input request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who speaks (normally the assistant).
    pub role: Role,
    /// What the model produced.
    pub content: SamplingContent,
    /// The model that produced it.
    pub model: String,
    /// Why generation stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CreateMessageResult {
    /// The text the model produced: its text blocks joined by spaces
    /// (images and audio are left out).
    ///
    /// ```
    /// use mcp_runtime::schema::CreateMessageResult;
    ///
    /// let answer: CreateMessageResult = serde_json::from_value(serde_json::json!({
    ///     "role": "assistant",
    ///     "content": [{"type": "text", "text": "Paris"}, {"type": "text", "text": "it is."}],
    ///     "model": "test-model"
    /// }))?;
    /// assert_eq!(answer.text(), "Paris it is.");
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn text(&self) -> String {
        let blocks = match &self.content {
            SamplingContent::One(block) => std::slice::from_ref(block),
            SamplingContent::Many(blocks) => blocks.as_slice(),
        };
        blocks
            .iter()
            .filter_map(|block| match block {
                SamplingContentBlock::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

//! The content and behaviour tools: one per conformance scenario (or
//! `server-stateless` probe) that calls a tool by name.

use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::schema::{
    ClientCapabilities, ContentBlock, LoggingLevel, ResourceContents, SamplingCapability,
};
use serde::Deserialize;
use serde_json::json;

use crate::fixtures::{PNG_1X1, WAV_SILENCE};

/// The pause between the notifications a tool streams.
const STEP: Duration = Duration::from_millis(20);

/// Returns a simple text result.
#[tool]
pub(crate) async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns a 1x1 PNG image.
#[tool]
pub(crate) async fn test_image_content() -> Vec<ContentBlock> {
    vec![ContentBlock::image(PNG_1X1, "image/png")]
}

/// Returns a short WAV clip of silence.
#[tool]
pub(crate) async fn test_audio_content() -> Vec<ContentBlock> {
    vec![ContentBlock::audio(WAV_SILENCE, "audio/wav")]
}

/// The text resource the content tools embed.
fn embedded_resource() -> ContentBlock {
    ContentBlock::resource(ResourceContents::text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    ))
}

/// Returns an embedded text resource.
#[tool]
pub(crate) async fn test_embedded_resource() -> Vec<ContentBlock> {
    vec![embedded_resource()]
}

/// Returns text, an image and an embedded resource in one result.
#[tool]
pub(crate) async fn test_multiple_content_types() -> Vec<ContentBlock> {
    vec![
        ContentBlock::text("Multiple content types test:"),
        ContentBlock::image(PNG_1X1, "image/png"),
        embedded_resource(),
    ]
}

/// Always fails, reporting the failure as a tool result with isError.
#[tool]
pub(crate) async fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing.",
    ))
}

/// Reports progress three times (0, 50 and 100 of 100), then finishes.
#[tool]
pub(crate) async fn test_tool_with_progress(ctx: Ctx) -> &'static str {
    for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        ctx.progress(progress, Some(100.0), Some(&format!("Step {} of 3", i + 1)))
            .await;
    }
    "Progress test completed."
}

/// Needs the client's sampling capability: refused with -32021 when the
/// request does not declare it.
#[tool]
pub(crate) async fn test_missing_capability(ctx: Ctx) -> Result<String, McpError> {
    if !ctx.client_capabilities().supports_sampling() {
        return Err(McpError::MissingClientCapability {
            required: Box::new(ClientCapabilities {
                sampling: Some(SamplingCapability::default()),
                ..ClientCapabilities::default()
            }),
        });
    }
    Ok("The client declared the sampling capability.".to_owned())
}

/// The question `test_streaming_elicitation` asks.
#[derive(ElicitForm)]
pub(crate) struct Confirmation {
    /// Continue?
    confirmed: bool,
}

/// Asks the user to confirm, as an input request in its response (never
/// as a request of its own on the stream), then reports the answer.
#[tool]
pub(crate) async fn test_streaming_elicitation(ctx: Ctx) -> Reply<()> {
    if !ctx.client_capabilities().supports_elicitation_form() {
        return Reply::text("The client cannot answer elicitations; nothing was asked.");
    }
    match ctx.answer::<Confirmation>("confirmation") {
        Answer::Accept(Confirmation { confirmed }) => {
            Reply::text(format!("Elicitation answered: confirmed = {confirmed}."))
        }
        Answer::Decline | Answer::Cancel => Reply::text("Elicitation declined."),
        Answer::Missing | Answer::Invalid(_) => Reply::ask(
            "confirmation",
            Confirmation::form("Please confirm to continue."),
        ),
    }
}

/// Logs three messages (sent only when the request asks for a log level),
/// then finishes.
#[tool]
pub(crate) async fn test_logging_tool(ctx: Ctx) -> &'static str {
    let messages = [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ];
    for (i, message) in messages.into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        ctx.log(
            LoggingLevel::Info,
            Some("test_logging_tool"),
            json!(message),
        )
        .await;
    }
    "Logging test completed."
}

/// How to make contact.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ContactMethod {
    /// By phone.
    Phone,
    /// By e-mail.
    Email,
}

// A `$defs` entry (named `address`) with an `$anchor`.
/// A postal address.
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "address")]
#[schemars(extend("$anchor" = "addressDef"))]
pub(crate) struct Address {
    /// Street and number.
    street: Option<String>,
    /// City.
    city: Option<String>,
}

// The schema uses the 2020-12 vocabulary the `json-schema-2020-12` scenario
// looks for: `$defs` with an `$anchor`, `$ref`, `allOf`/`anyOf`,
// `if`/`then`/`else`, and `additionalProperties: false` (from
// `deny_unknown_fields`).
/// Who to contact, and how: by phone or by e-mail.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(extend(
    "allOf" = [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if" = {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then" = {"required": ["phone"]},
    "else" = {"required": ["email"]},
))]
pub(crate) struct ContactArgs {
    /// Who to contact.
    name: Option<String>,
    /// Where they live.
    address: Option<Address>,
    /// How to contact them.
    contact_method: Option<ContactMethod>,
    /// Their phone number (required when contacting by phone).
    phone: Option<String>,
    /// Their e-mail address (required otherwise).
    email: Option<String>,
}

/// Tool with JSON Schema 2020-12 features.
#[tool]
pub(crate) async fn json_schema_2020_12_tool(args: ContactArgs) -> String {
    let reach = match args.contact_method {
        Some(ContactMethod::Phone) => args.phone,
        Some(ContactMethod::Email) => args.email,
        None => args.email.or(args.phone),
    };
    let address = args
        .address
        .map(|a| [a.street, a.city].into_iter().flatten().collect::<Vec<_>>())
        .filter(|parts| !parts.is_empty())
        .map(|parts| format!(" ({})", parts.join(", ")))
        .unwrap_or_default();
    format!(
        "Contact {} at {}{address}.",
        args.name.as_deref().unwrap_or("someone"),
        reach.as_deref().unwrap_or("no address given"),
    )
}

/// Where to look.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct HeaderArgs {
    /// The region; HTTP clients mirror it in the `Mcp-Param-Region` header.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
}

/// Echoes an argument that travels in an `Mcp-Param-Region` header too.
#[tool]
pub(crate) async fn test_custom_header(args: HeaderArgs) -> String {
    format!("Region: {}", args.region)
}

/// Announces that the tool list changed, to every `subscriptions/listen`
/// stream that asked for tool-list changes.
#[tool]
pub(crate) async fn test_trigger_tool_change(ctx: Ctx) -> String {
    let streams = ctx.changes().tools_list_changed();
    format!("Announced a tool-list change to {streams} stream(s).")
}

/// Announces that the prompt list changed, to every `subscriptions/listen`
/// stream that asked for prompt-list changes.
#[tool]
pub(crate) async fn test_trigger_prompt_change(ctx: Ctx) -> String {
    let streams = ctx.changes().prompts_list_changed();
    format!("Announced a prompt-list change to {streams} stream(s).")
}

//! The fixtures only the 2025-11-25 scenarios call (`conformance server
//! --requirements 2025-11-25`): tools that asked the client for something
//! through a server-to-client request in that revision, logging, SSE
//! polling, and a resource to subscribe to.
//!
//! The tools that ask are ordinary input-required handlers, the same as in
//! `input_required.rs`: a 2026-07-28 client answers them in
//! `inputResponses` rounds, and for a 2025-era session the runtime sends
//! each input request as `elicitation/create` or `sampling/createMessage`
//! and enters the handler again with the answers. Tool names, arguments,
//! form fields and messages follow the suite's scenarios and its reference
//! server (`examples/servers/typescript/everything-server.ts`).
#![allow(deprecated)] // sampling is deprecated in 2026-07-28, but tested

use std::time::Duration;

use mcp_runtime::form::{ElicitField, FieldOptions};
use mcp_runtime::prelude::*;
use mcp_runtime::schema::{
    CreateMessageRequestParams, ElicitValue, LegacyTitledEnumSchema, LoggingLevel,
    PrimitiveSchemaDefinition, StringType,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::input_required::sampled;

/// The URI of the resource `resources-subscribe` and
/// `resources-unsubscribe` subscribe to.
pub(crate) const WATCHED_URI: &str = "test://watched-resource";

/// How `action=..., content={...}` reads for an answer, as the reference
/// server reports it; `None` when there is no usable answer (ask again).
fn outcome<T: Serialize>(answer: Answer<T>) -> Option<String> {
    let (action, content) = match answer {
        Answer::Accept(form) => ("accept", serde_json::to_value(&form).unwrap_or_default()),
        Answer::Decline => ("decline", json!({})),
        Answer::Cancel => ("cancel", json!({})),
        Answer::Missing | Answer::Invalid(_) => return None,
    };
    Some(format!("action={action}, content={content}"))
}

// --- Logging and SSE polling ------------------------------------------------------------

/// Logs "Tool execution started", "Tool processing data" and "Tool
/// execution completed" at `info`, 50 ms apart (sent only when the client
/// asked for that level: `logging/setLevel` in a 2025-era session, the
/// request's `_meta` in 2026-07-28), then finishes.
#[tool]
pub(crate) async fn test_tool_with_logging(ctx: Ctx) -> &'static str {
    let messages = [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ];
    for (i, message) in messages.into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.log(
            LoggingLevel::Info,
            Some("test_tool_with_logging"),
            json!(message),
        )
        .await;
    }
    "Tool with logging executed successfully."
}

/// Closes its event stream (SSE polling, SEP-1699: the client is told to
/// reconnect after 500 ms), works 100 ms more, then finishes; the result
/// reaches the client on the stream it resumes with `Last-Event-ID`.
#[tool]
pub(crate) async fn test_reconnection(ctx: Ctx) -> &'static str {
    ctx.close_stream(Duration::from_millis(500));
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed."
}

// --- Sampling ----------------------------------------------------------------------------

/// The arguments of `test_sampling`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct SamplingArgs {
    /// The prompt to send to the LLM.
    prompt: String,
}

/// Asks the client's model (key `llm_response`, at most 100 tokens) for a
/// reply to the prompt, then returns it as `LLM response: ...`.
#[tool]
pub(crate) async fn test_sampling(args: SamplingArgs, ctx: Ctx) -> Reply<()> {
    match sampled(&ctx, "llm_response") {
        Some(answer) => Reply::text(format!("LLM response: {}", answer.text())),
        None => Reply::ask(
            "llm_response",
            InputRequest::sampling(CreateMessageRequestParams::user_text(args.prompt, 100)),
        ),
    }
}

// --- Elicitation -------------------------------------------------------------------------

/// The arguments of `test_elicitation`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct ElicitationArgs {
    /// The message to show the user.
    message: String,
}

/// Who the user is (`test_elicitation`).
#[derive(ElicitForm, Serialize)]
pub(crate) struct UserInfo {
    /// User's response.
    username: String,
    /// User's email address.
    email: String,
}

/// Asks the user (key `user_info`, with the given message) for a username
/// and an e-mail address, then reports the answer.
#[tool]
pub(crate) async fn test_elicitation(args: ElicitationArgs, ctx: Ctx) -> Reply<()> {
    match outcome(ctx.answer::<UserInfo>("user_info")) {
        Some(outcome) => Reply::text(format!("User response: {outcome}")),
        None => Reply::ask("user_info", UserInfo::form(args.message)),
    }
}

/// A status (`test_elicitation_sep1034_defaults`).
#[derive(ElicitChoice, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    /// Active.
    Active,
    /// Inactive.
    Inactive,
    /// Pending.
    Pending,
}

/// A form with a default for every primitive type (SEP-1034).
#[derive(ElicitForm, Serialize)]
pub(crate) struct Defaults {
    /// User name.
    #[elicit(default = "John Doe")]
    name: Option<String>,
    /// User age.
    #[elicit(minimum = 0, maximum = 150, default = 30)]
    age: Option<u8>,
    /// User score.
    #[elicit(default = 95.5)]
    score: Option<f64>,
    /// User status.
    #[elicit(default = "active")]
    status: Option<Status>,
    /// Verification status.
    #[elicit(default = true)]
    verified: Option<bool>,
}

/// Asks (key `defaults`) for a form whose string, integer, number, enum
/// and boolean fields all carry defaults (SEP-1034), then reports the
/// answer.
#[tool]
pub(crate) async fn test_elicitation_sep1034_defaults(ctx: Ctx) -> Reply<()> {
    match outcome(ctx.answer::<Defaults>("defaults")) {
        Some(outcome) => Reply::text(format!("Elicitation completed: {outcome}")),
        None => Reply::ask(
            "defaults",
            Defaults::form("Please review and update the form fields with defaults"),
        ),
    }
}

/// An untitled option (`enum`), single or multi select.
#[derive(ElicitChoice, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PlainOption {
    /// The first.
    Option1,
    /// The second.
    Option2,
    /// The third.
    Option3,
}

/// A titled single-select option (`oneOf` of `const`/`title`).
#[derive(ElicitChoice, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TitledOption {
    /// The first.
    #[elicit(title = "First Option")]
    Value1,
    /// The second.
    #[elicit(title = "Second Option")]
    Value2,
    /// The third.
    #[elicit(title = "Third Option")]
    Value3,
}

/// A titled multi-select option (`items.anyOf` of `const`/`title`).
#[derive(ElicitChoice, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TitledChoice {
    /// The first.
    #[elicit(title = "First Choice")]
    Value1,
    /// The second.
    #[elicit(title = "Second Choice")]
    Value2,
    /// The third.
    #[elicit(title = "Third Choice")]
    Value3,
}

/// A single-select option in the deprecated titled form, `enum` with a
/// parallel `enumNames`, which `ElicitChoice` does not produce: its field
/// schema is written by hand.
#[derive(Clone, Copy, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum LegacyOption {
    /// Option One.
    Opt1,
    /// Option Two.
    Opt2,
    /// Option Three.
    Opt3,
}

impl LegacyOption {
    /// Each option with its wire value and display name.
    const ALL: [(Self, &'static str, &'static str); 3] = [
        (Self::Opt1, "opt1", "Option One"),
        (Self::Opt2, "opt2", "Option Two"),
        (Self::Opt3, "opt3", "Option Three"),
    ];
}

impl ElicitField for LegacyOption {
    fn schema(options: &FieldOptions) -> PrimitiveSchemaDefinition {
        PrimitiveSchemaDefinition::LegacyTitled(LegacyTitledEnumSchema {
            kind: StringType::String,
            title: options.title.map(str::to_owned),
            description: options.description.map(str::to_owned),
            values: Self::ALL.iter().map(|(_, v, _)| (*v).to_owned()).collect(),
            enum_names: Some(Self::ALL.iter().map(|(_, _, n)| (*n).to_owned()).collect()),
            default: None,
        })
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        // The decoder has already checked the value against `enum`.
        match value {
            Some(ElicitValue::String(s)) => Self::ALL
                .iter()
                .find(|(_, v, _)| v == s)
                .map(|(option, _, _)| *option)
                .ok_or_else(|| format!("{s:?} is not one of the options")),
            Some(_) => Err("expected one of the options".to_owned()),
            None => Err("missing".to_owned()),
        }
    }
}

/// One field for each of the five enum forms of SEP-1330.
#[derive(ElicitForm, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EnumChoices {
    /// Select one option.
    untitled_single: Option<PlainOption>,
    /// Select one option with titles.
    titled_single: Option<TitledOption>,
    /// Select one option (legacy).
    legacy_enum: Option<LegacyOption>,
    /// Select multiple options.
    #[elicit(min_items = 1, max_items = 3)]
    untitled_multi: Option<Vec<PlainOption>>,
    /// Select multiple options with titles.
    #[elicit(min_items = 1, max_items = 3)]
    titled_multi: Option<Vec<TitledChoice>>,
}

/// Asks (key `choices`) for a form with the five enum forms of SEP-1330:
/// untitled and titled single select, the legacy `enumNames` form, and
/// untitled and titled multi select; then reports the answer.
#[tool]
pub(crate) async fn test_elicitation_sep1330_enums(ctx: Ctx) -> Reply<()> {
    match outcome(ctx.answer::<EnumChoices>("choices")) {
        Some(outcome) => Reply::text(format!("Elicitation completed: {outcome}")),
        None => Reply::ask(
            "choices",
            EnumChoices::form("Please select options from the enum fields"),
        ),
    }
}

// --- Resource subscriptions --------------------------------------------------------------

/// The resource `resources-subscribe` and `resources-unsubscribe`
/// subscribe to.
#[resource(
    uri = "test://watched-resource",
    name = "watched-resource",
    mime_type = "text/plain"
)]
pub(crate) async fn watched_resource() -> String {
    "Watched resource content".to_owned()
}

/// Announces that `test://watched-resource` changed, to every subscriber
/// (`notifications/resources/updated`).
#[tool]
pub(crate) async fn test_trigger_resource_update(ctx: Ctx) -> String {
    let streams = ctx.changes().resource_updated(WATCHED_URI);
    format!("Announced an update of {WATCHED_URI} to {streams} stream(s).")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn schema<T: ElicitForm>() -> Value {
        serde_json::to_value(T::requested_schema()).unwrap_or_default()
    }

    #[test]
    fn the_defaults_form_has_a_default_for_every_type() {
        let properties = &schema::<Defaults>()["properties"];
        assert_eq!(properties["name"]["default"], "John Doe");
        assert_eq!(properties["age"]["type"], "integer");
        assert_eq!(properties["age"]["default"], 30.0);
        assert_eq!(properties["score"]["type"], "number");
        assert_eq!(properties["score"]["default"], 95.5);
        assert_eq!(
            properties["status"]["enum"],
            json!(["active", "inactive", "pending"])
        );
        assert_eq!(properties["status"]["default"], "active");
        assert_eq!(properties["verified"]["default"], true);
    }

    #[test]
    fn the_enum_form_has_all_five_shapes() {
        let properties = &schema::<EnumChoices>()["properties"];
        let single = &properties["untitledSingle"];
        assert_eq!(single["enum"], json!(["option1", "option2", "option3"]));
        assert!(single.get("oneOf").is_none() && single.get("enumNames").is_none());
        let titled = &properties["titledSingle"];
        assert_eq!(titled["type"], "string");
        assert_eq!(
            titled["oneOf"][0],
            json!({"const": "value1", "title": "First Option"})
        );
        assert!(titled.get("enum").is_none());
        let legacy = &properties["legacyEnum"];
        assert_eq!(legacy["enum"], json!(["opt1", "opt2", "opt3"]));
        assert_eq!(
            legacy["enumNames"],
            json!(["Option One", "Option Two", "Option Three"])
        );
        let multi = &properties["untitledMulti"];
        assert_eq!(multi["type"], "array");
        assert_eq!(
            multi["items"],
            json!({"type": "string", "enum": ["option1", "option2", "option3"]})
        );
        let titled_multi = &properties["titledMulti"];
        assert_eq!(
            titled_multi["items"]["anyOf"][2],
            json!({"const": "value3", "title": "Third Choice"})
        );
        assert!(titled_multi["items"].get("enum").is_none());
    }

    #[test]
    fn the_suites_answer_to_the_enum_form_decodes() {
        let content = serde_json::from_value(json!({
            "untitledSingle": "option1",
            "titledSingle": "value1",
            "legacyEnum": "opt1",
            "untitledMulti": ["option1", "option2"],
            "titledMulti": ["value1", "value2"]
        }));
        let decoded = content
            .map_err(|e| e.to_string())
            .and_then(|content| EnumChoices::from_content(&content).map_err(|e| e.to_string()));
        let echoed = decoded.map(|form| serde_json::to_value(form).unwrap_or_default());
        assert_eq!(
            echoed,
            Ok(json!({
                "untitledSingle": "option1",
                "titledSingle": "value1",
                "legacyEnum": "opt1",
                "untitledMulti": ["option1", "option2"],
                "titledMulti": ["value1", "value2"]
            }))
        );
    }

    #[test]
    fn the_suites_answer_to_the_defaults_form_decodes() {
        // 88.0 arrives as 88 from JavaScript.
        let content = serde_json::from_value(json!({
            "name": "Jane Smith", "age": 25, "score": 88, "status": "inactive", "verified": false
        }));
        let decoded = content
            .map_err(|e| e.to_string())
            .and_then(|content| Defaults::from_content(&content).map_err(|e| e.to_string()));
        assert_eq!(
            decoded.map(|form| serde_json::to_value(form).unwrap_or_default()),
            Ok(json!({
                "name": "Jane Smith", "age": 25, "score": 88.0, "status": "inactive", "verified": false
            }))
        );
    }
}

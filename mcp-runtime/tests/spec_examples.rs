//! Every JSON example of the 2026-07-28 specification round-trips through
//! the Rust type that models it.
//!
//! The examples are read at run time from the shared copy of the
//! specification (`../../shared/spec/2026-07-28/examples/<Type>/*.json`,
//! relative to this crate); they are never copied into the repository.
//! Each file is deserialised into the type of its folder, serialised back,
//! and compared with the original as JSON values (key order and whitespace
//! do not matter; `50` and `50.0` are the same JSON number, since fields such
//! as `progress` are `f64`). A folder that is neither mapped here nor listed
//! in [`NOT_MODELLED`] fails the suite, so new examples get noticed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use mcp_runtime::schema::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Deserialises an example, checks it, and returns its re-serialisation.
type Check = fn(&Value) -> Result<Value, String>;

/// Example folders deliberately not modelled, with the reason.
const NOT_MODELLED: &[(&str, &str)] = &[];

/// How one example file departs from plain round-tripping, and why.
enum Quirk {
    /// The key is dropped by our type; the round trip is compared without it.
    IgnoreKey(&'static str),
    /// Our (strict) type must refuse this file.
    Rejected,
}

/// Example files that cannot round-trip exactly, with the reason.
const QUIRKS: &[(&str, Quirk, &str)] = &[
    (
        "ListRootsRequest/list-roots-request.json",
        Quirk::IgnoreKey("id"),
        "an input request is `{method, params}` with no JSON-RPC id; the example \
         keeps a stray `id` from the pre-2026 request shape, which the schema \
         tolerates only because it does not forbid extra keys",
    ),
    (
        "ReadResourceResultResponse/read-resource-result-response.json",
        Quirk::Rejected,
        "its result lacks `ttlMs` and `cacheScope`, which `ReadResourceResult` \
         requires; it is schema-valid only through the open `InputRequiredResult` \
         branch of the response's `anyOf` (the sibling file \
         read-resource-result-response-with-ttl.json carries them)",
    ),
];

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec/2026-07-28/examples")
}

/// Plain round trip through `T`.
fn rt<T: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, String> {
    checked::<T>(value, |_| true)
}

/// Round trip through `T`, with a check of the parsed value (e.g. which
/// enum variant the `type` tag selected).
fn checked<T: DeserializeOwned + Serialize>(
    value: &Value,
    check: fn(&T) -> bool,
) -> Result<Value, String> {
    let parsed: T = serde_json::from_value(value.clone()).map_err(|e| {
        format!(
            "does not deserialise as {}: {e}",
            std::any::type_name::<T>()
        )
    })?;
    if !check(&parsed) {
        return Err(format!(
            "deserialised as the wrong kind of {}",
            std::any::type_name::<T>()
        ));
    }
    serde_json::to_value(&parsed).map_err(|e| format!("does not serialise: {e}"))
}

/// A notification with typed params whose method is `method`.
fn notification<P: DeserializeOwned + Serialize>(
    value: &Value,
    method: &str,
) -> Result<Value, String> {
    let parsed: JsonRpcNotification<P> =
        serde_json::from_value(value.clone()).map_err(|e| format!("does not deserialise: {e}"))?;
    if parsed.method != method {
        return Err(format!("method {:?}, expected {method:?}", parsed.method));
    }
    serde_json::to_value(&parsed).map_err(|e| format!("does not serialise: {e}"))
}

/// A bare error object with code `code`.
fn error_object(value: &Value, code: i32) -> Result<Value, String> {
    let parsed: ErrorObject =
        serde_json::from_value(value.clone()).map_err(|e| format!("does not deserialise: {e}"))?;
    if parsed.code != code {
        return Err(format!("code {}, expected {code}", parsed.code));
    }
    serde_json::to_value(&parsed).map_err(|e| format!("does not serialise: {e}"))
}

/// A full error response whose error has code `code`.
fn error_response(value: &Value, code: i32) -> Result<Value, String> {
    let parsed: JsonRpcErrorResponse =
        serde_json::from_value(value.clone()).map_err(|e| format!("does not deserialise: {e}"))?;
    if parsed.error.code != code {
        return Err(format!("code {}, expected {code}", parsed.error.code));
    }
    serde_json::to_value(&parsed).map_err(|e| format!("does not serialise: {e}"))
}

/// `InputResponses` is raw JSON by design; each answer must also parse as
/// an [`InputResponse`] and round-trip through it.
fn input_responses(value: &Value) -> Result<Value, String> {
    let raw = rt::<InputResponses>(value)?;
    let typed = rt::<BTreeMap<String, InputResponse>>(value)?;
    if !json_eq(&raw, &typed) {
        return Err(format!("typed answers differ: {typed}"));
    }
    Ok(typed)
}

/// The table: example folder → how to round-trip its files.
#[allow(deprecated)]
fn mapping() -> Vec<(&'static str, Check)> {
    use ContentBlock as CB;
    use PrimitiveSchemaDefinition as PSD;
    use SamplingContentBlock as SCB;
    vec![
        // Content blocks: the `type` tag must select the right variant.
        ("TextContent", |v| {
            checked::<CB>(v, |b| matches!(b, CB::Text(_)))
        }),
        ("ImageContent", |v| {
            checked::<CB>(v, |b| matches!(b, CB::Image(_)))
        }),
        ("AudioContent", |v| {
            checked::<CB>(v, |b| matches!(b, CB::Audio(_)))
        }),
        ("ResourceLink", |v| {
            checked::<CB>(v, |b| matches!(b, CB::ResourceLink(_)))
        }),
        ("EmbeddedResource", |v| {
            checked::<CB>(v, |b| matches!(b, CB::Resource(_)))
        }),
        ("ToolUseContent", |v| {
            checked::<SCB>(v, |b| matches!(b, SCB::ToolUse(_)))
        }),
        ("ToolResultContent", |v| {
            checked::<SCB>(v, |b| matches!(b, SCB::ToolResult(_)))
        }),
        ("TextResourceContents", |v| {
            checked::<ResourceContents>(v, |c| matches!(c, ResourceContents::Text(_)))
        }),
        ("BlobResourceContents", |v| {
            checked::<ResourceContents>(v, |c| matches!(c, ResourceContents::Blob(_)))
        }),
        ("Resource", rt::<Resource>),
        ("Root", rt::<Root>),
        ("Tool", rt::<Tool>),
        // Capabilities.
        ("ClientCapabilities", rt::<ClientCapabilities>),
        ("ServerCapabilities", rt::<ServerCapabilities>),
        // Elicitation.
        ("ElicitRequest", |v| {
            checked::<InputRequest>(v, |r| matches!(r, InputRequest::Elicitation(_)))
        }),
        ("ElicitRequestFormParams", |v| {
            checked::<ElicitRequestParams>(v, |p| matches!(p, ElicitRequestParams::Form(_)))
        }),
        ("ElicitRequestURLParams", |v| {
            checked::<ElicitRequestParams>(v, |p| matches!(p, ElicitRequestParams::Url(_)))
        }),
        ("ElicitResult", rt::<ElicitResult>),
        ("StringSchema", |v| {
            checked::<PSD>(v, |s| matches!(s, PSD::String(_)))
        }),
        ("NumberSchema", |v| {
            checked::<PSD>(v, |s| matches!(s, PSD::Number(_)))
        }),
        ("BooleanSchema", |v| {
            checked::<PSD>(v, |s| matches!(s, PSD::Boolean(_)))
        }),
        ("UntitledSingleSelectEnumSchema", |v| {
            checked::<PSD>(v, |s| matches!(s, PSD::UntitledSingleSelect(_)))
        }),
        ("TitledSingleSelectEnumSchema", |v| {
            checked::<PSD>(v, |s| matches!(s, PSD::TitledSingleSelect(_)))
        }),
        ("UntitledMultiSelectEnumSchema", |v| {
            checked::<PSD>(v, |s| matches!(s, PSD::UntitledMultiSelect(_)))
        }),
        ("TitledMultiSelectEnumSchema", |v| {
            checked::<PSD>(v, |s| matches!(s, PSD::TitledMultiSelect(_)))
        }),
        // Multi round-trip requests.
        ("InputRequests", rt::<InputRequests>),
        ("InputResponses", input_responses),
        ("InputRequiredResult", rt::<InputRequiredResult>),
        // Sampling and roots (deprecated input requests).
        ("CreateMessageRequest", |v| {
            checked::<InputRequest>(v, |r| matches!(r, InputRequest::Sampling(_)))
        }),
        (
            "CreateMessageRequestParams",
            rt::<CreateMessageRequestParams>,
        ),
        ("CreateMessageResult", rt::<CreateMessageResult>),
        ("SamplingMessage", rt::<SamplingMessage>),
        ("ModelPreferences", rt::<ModelPreferences>),
        ("ListRootsRequest", |v| {
            checked::<InputRequest>(v, |r| matches!(r, InputRequest::ListRoots))
        }),
        ("ListRootsResult", rt::<ListRootsResult>),
        // Requests and their params.
        ("DiscoverRequest", rt::<JsonRpcRequest<RequestParams>>),
        (
            "CallToolRequest",
            rt::<JsonRpcRequest<CallToolRequestParams>>,
        ),
        ("CallToolRequestParams", rt::<CallToolRequestParams>),
        (
            "CompleteRequest",
            rt::<JsonRpcRequest<CompleteRequestParams>>,
        ),
        ("CompleteRequestParams", rt::<CompleteRequestParams>),
        (
            "GetPromptRequest",
            rt::<JsonRpcRequest<GetPromptRequestParams>>,
        ),
        ("GetPromptRequestParams", rt::<GetPromptRequestParams>),
        (
            "ReadResourceRequest",
            rt::<JsonRpcRequest<ReadResourceRequestParams>>,
        ),
        (
            "ListToolsRequest",
            rt::<JsonRpcRequest<PaginatedRequestParams>>,
        ),
        (
            "ListPromptsRequest",
            rt::<JsonRpcRequest<PaginatedRequestParams>>,
        ),
        (
            "ListResourcesRequest",
            rt::<JsonRpcRequest<PaginatedRequestParams>>,
        ),
        (
            "ListResourceTemplatesRequest",
            rt::<JsonRpcRequest<PaginatedRequestParams>>,
        ),
        ("PaginatedRequestParams", rt::<PaginatedRequestParams>),
        (
            "SubscriptionsListenRequest",
            rt::<JsonRpcRequest<SubscriptionsListenRequestParams>>,
        ),
        // Results and result responses.
        ("CallToolResult", rt::<CallToolResult>),
        (
            "CallToolResultResponse",
            rt::<JsonRpcResultResponse<CallToolResult>>,
        ),
        ("CompleteResult", rt::<CompleteResult>),
        (
            "CompleteResultResponse",
            rt::<JsonRpcResultResponse<CompleteResult>>,
        ),
        ("DiscoverResult", rt::<DiscoverResult>),
        (
            "DiscoverResultResponse",
            rt::<JsonRpcResultResponse<DiscoverResult>>,
        ),
        ("GetPromptResult", rt::<GetPromptResult>),
        (
            "GetPromptResultResponse",
            rt::<JsonRpcResultResponse<GetPromptResult>>,
        ),
        ("ListPromptsResult", rt::<ListPromptsResult>),
        (
            "ListPromptsResultResponse",
            rt::<JsonRpcResultResponse<ListPromptsResult>>,
        ),
        ("ListResourcesResult", rt::<ListResourcesResult>),
        (
            "ListResourcesResultResponse",
            rt::<JsonRpcResultResponse<ListResourcesResult>>,
        ),
        (
            "ListResourceTemplatesResult",
            rt::<ListResourceTemplatesResult>,
        ),
        (
            "ListResourceTemplatesResultResponse",
            rt::<JsonRpcResultResponse<ListResourceTemplatesResult>>,
        ),
        ("ListToolsResult", rt::<ListToolsResult>),
        (
            "ListToolsResultResponse",
            rt::<JsonRpcResultResponse<ListToolsResult>>,
        ),
        ("ReadResourceResult", rt::<ReadResourceResult>),
        (
            "ReadResourceResultResponse",
            rt::<JsonRpcResultResponse<ReadResourceResult>>,
        ),
        ("SubscriptionsListenResult", rt::<SubscriptionsListenResult>),
        (
            "SubscriptionsListenResultResponse",
            rt::<JsonRpcResultResponse<SubscriptionsListenResult>>,
        ),
        // Notifications and their params.
        ("CancelledNotification", |v| {
            notification::<CancelledNotificationParams>(v, notification_methods::CANCELLED)
        }),
        (
            "CancelledNotificationParams",
            rt::<CancelledNotificationParams>,
        ),
        ("ProgressNotification", |v| {
            notification::<ProgressNotificationParams>(v, notification_methods::PROGRESS)
        }),
        (
            "ProgressNotificationParams",
            rt::<ProgressNotificationParams>,
        ),
        ("LoggingMessageNotification", |v| {
            notification::<LoggingMessageNotificationParams>(v, notification_methods::MESSAGE)
        }),
        (
            "LoggingMessageNotificationParams",
            rt::<LoggingMessageNotificationParams>,
        ),
        ("ToolListChangedNotification", |v| {
            notification::<NotificationParams>(v, notification_methods::TOOLS_LIST_CHANGED)
        }),
        ("PromptListChangedNotification", |v| {
            notification::<NotificationParams>(v, notification_methods::PROMPTS_LIST_CHANGED)
        }),
        ("ResourceListChangedNotification", |v| {
            notification::<NotificationParams>(v, notification_methods::RESOURCES_LIST_CHANGED)
        }),
        ("ResourceUpdatedNotification", |v| {
            notification::<ResourceUpdatedNotificationParams>(
                v,
                notification_methods::RESOURCES_UPDATED,
            )
        }),
        (
            "ResourceUpdatedNotificationParams",
            rt::<ResourceUpdatedNotificationParams>,
        ),
        ("SubscriptionsAcknowledgedNotification", |v| {
            notification::<SubscriptionsAcknowledgedNotificationParams>(
                v,
                notification_methods::SUBSCRIPTIONS_ACKNOWLEDGED,
            )
        }),
        // Errors: bare error objects and full error responses.
        ("ParseError", |v| error_object(v, codes::PARSE_ERROR)),
        ("InvalidParamsError", |v| {
            error_object(v, codes::INVALID_PARAMS)
        }),
        ("MethodNotFoundError", |v| {
            error_object(v, codes::METHOD_NOT_FOUND)
        }),
        ("InternalError", |v| error_object(v, codes::INTERNAL_ERROR)),
        ("HeaderMismatchError", |v| {
            error_response(v, codes::HEADER_MISMATCH)
        }),
        ("MissingRequiredClientCapabilityError", |v| {
            error_response(v, codes::MISSING_REQUIRED_CLIENT_CAPABILITY)
        }),
        ("UnsupportedProtocolVersionError", |v| {
            error_response(v, codes::UNSUPPORTED_PROTOCOL_VERSION)
        }),
    ]
}

/// JSON equality where numbers compare by value (`50 == 50.0`).
fn json_eq(a: &Value, b: &Value) -> bool {
    first_difference(a, b, "").is_none()
}

/// The path of the first place where `a` and `b` differ, with both sides.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let here = format!("{path}/{k}");
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => first_difference(p, q, &here),
                    (p, q) => Some(format!("{here}: {p:?} vs {q:?}")),
                }
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{path}/{i}"))),
        (Value::Number(x), Value::Number(y)) => {
            let same = if x.is_f64() || y.is_f64() {
                x.as_f64() == y.as_f64()
            } else {
                x == y
            };
            (!same).then(|| format!("{path}: {x} vs {y}"))
        }
        _ => (a != b).then(|| format!("{path}: {a} vs {b}")),
    }
}

/// Every example file, as (folder, file name, parsed JSON).
fn example_files() -> Vec<(String, String, Value)> {
    let dir = examples_dir();
    let mut out = Vec::new();
    let mut folders: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let folder_name = folder.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let value: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{} is not JSON: {e}", file.display()));
            let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
            out.push((folder_name.clone(), file_name, value));
        }
    }
    out
}

fn folder_names() -> BTreeSet<String> {
    example_files().into_iter().map(|(f, _, _)| f).collect()
}

#[test]
fn every_example_folder_is_mapped_or_listed_as_not_modelled() {
    let folders = folder_names();
    assert!(
        folders.len() >= 88,
        "expected the 88 example folders of 2026-07-28, found {}",
        folders.len()
    );
    let mapping = mapping();
    let mut mapped = BTreeSet::new();
    for (name, _) in &mapping {
        assert!(mapped.insert(*name), "{name} is mapped twice");
    }
    let not_modelled: BTreeSet<&str> = NOT_MODELLED.iter().map(|(n, _)| *n).collect();

    let unknown: Vec<&String> = folders
        .iter()
        .filter(|f| !mapped.contains(f.as_str()) && !not_modelled.contains(f.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "example folders neither mapped to a Rust type nor listed in NOT_MODELLED: {unknown:?}"
    );
    let both: Vec<&&str> = mapped.intersection(&not_modelled).collect();
    assert!(both.is_empty(), "mapped and NOT_MODELLED at once: {both:?}");
    let stale: Vec<&str> = mapped
        .iter()
        .chain(&not_modelled)
        .copied()
        .filter(|name| !folders.contains(*name))
        .collect();
    assert!(
        stale.is_empty(),
        "entries for missing example folders: {stale:?}"
    );
}

#[test]
fn every_modelled_example_round_trips() {
    let mapping: BTreeMap<&str, Check> = mapping().into_iter().collect();
    let mut failures = Vec::new();
    let mut round_tripped = 0;
    let mut quirks_seen = BTreeSet::new();
    for (folder, file, original) in example_files() {
        let Some(check) = mapping.get(folder.as_str()) else {
            continue; // NOT_MODELLED (the other test checks the lists).
        };
        let id = format!("{folder}/{file}");
        let quirk = QUIRKS.iter().find(|(path, _, _)| *path == id);
        let result = check(&original);
        match (quirk, result) {
            (Some((_, Quirk::Rejected, reason)), result) => {
                quirks_seen.insert(id.clone());
                if let Ok(value) = result {
                    failures.push(format!(
                        "{id}: expected to be refused ({reason}), but parsed as {value}"
                    ));
                }
            }
            (_, Err(e)) => failures.push(format!("{id}: {e}")),
            (quirk, Ok(back)) => {
                let mut expected = original.clone();
                if let Some((_, Quirk::IgnoreKey(key), _)) = quirk {
                    quirks_seen.insert(id.clone());
                    let removed = expected.as_object_mut().and_then(|o| o.remove(*key));
                    if removed.is_none() {
                        failures.push(format!("{id}: quirk key {key:?} is no longer there"));
                    }
                }
                match first_difference(&expected, &back, "") {
                    None => round_tripped += 1,
                    Some(diff) => failures.push(format!(
                        "{id}: round trip differs at {diff}\n  original: {expected}\n  back:     {back}"
                    )),
                }
            }
        }
    }
    for (path, _, _) in QUIRKS {
        if !quirks_seen.contains(*path) {
            failures.push(format!("quirk for {path}: no such example any more"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} example(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{round_tripped} example files round-tripped");
    assert!(
        round_tripped >= 125,
        "only {round_tripped} example files round-tripped"
    );
}

#[test]
fn json_eq_treats_integral_floats_as_equal_and_nothing_else() {
    use serde_json::json;
    assert!(json_eq(&json!({"a": [1, 2.5]}), &json!({"a": [1.0, 2.5]})));
    assert!(!json_eq(&json!({"a": 1}), &json!({"a": 1.5})));
    assert!(!json_eq(&json!({"a": 1}), &json!({"a": 1, "b": null})));
    assert!(!json_eq(&json!([1, 2]), &json!([1])));
    assert!(!json_eq(&json!("1"), &json!(1)));
}

//! A client for the official MCP conformance suite's client mode: reads the
//! scenario from `MCP_CONFORMANCE_SCENARIO` and the server URL from the last
//! argument, lists the server's tools and calls each usable one. It speaks
//! whichever era the server does (2026-07-28, or a 2025-era session).

use std::collections::{BTreeMap, HashSet};
use std::process::ExitCode;

use mcp_runtime::client::auth::{AuthError, HeadlessSignIn, OAuth};
use mcp_runtime::client::{Client, ClientError};
use mcp_runtime::schema::{ElicitResult, ElicitValue, JsonObject, Tool};
use serde_json::Value;

#[tokio::main]
async fn main() -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client <server-url>");
        return ExitCode::from(2);
    };
    match run(&scenario, &url).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-client ({scenario}): {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(scenario: &str, url: &str) -> Result<(), ClientError> {
    let mut builder = Client::http(url);
    if scenario.starts_with("auth/") {
        builder = builder.oauth(oauth_for(scenario).map_err(ClientError::Authorization)?);
    }
    let client = builder
        .on_elicit_form(|params| async move {
            let schema = serde_json::to_value(&params.requested_schema).unwrap_or(Value::Null);
            ElicitResult::accept(form_content(&schema))
        })
        .on_elicit_url(|_| async { ElicitResult::accept(BTreeMap::new()) })
        .on_message(|direction, message| {
            // The suite keeps the client's stderr in its log.
            if std::env::var_os("MCP_CONFORMANCE_VERBOSE").is_some() {
                eprintln!("{direction:?}: {message}");
            }
        })
        .connect()
        .await?;

    // `connect` found the era: `server/discover` (retried once when the
    // server names the version it wants), else a 2025-era `initialize`.
    let tools = client.list_tools().await?;
    let context = context_arguments();
    for tool in tools.iter().filter(|t| valid_headers(t)) {
        let arguments = context
            .get(&tool.name)
            .cloned()
            .unwrap_or_else(|| arguments_for(&tool.input_schema));
        match client.call_tool(&tool.name, Some(arguments)).await {
            Ok(_) => {}
            Err(e) if scenario == "tools_call" => return Err(e),
            Err(e) => eprintln!("calling {}: {e}", tool.name),
        }
    }
    Ok(())
}

/// The client's URL-based client id (a Client ID Metadata Document), used
/// where the authorization server supports them (`auth/basic-cimd`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// How an `auth/*` scenario signs in: client credentials (with a secret or
/// a private key) when the harness gives them, else the authorization code
/// flow followed headlessly, with the pre-registered client of the context
/// when there is one.
fn oauth_for(scenario: &str) -> Result<OAuth, AuthError> {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|raw| serde_json::from_str(&raw).ok())
        .unwrap_or(Value::Null);
    let field = |name: &str| context.get(name).and_then(Value::as_str);
    if scenario.starts_with("auth/client-credentials") {
        let client_id = field("client_id").unwrap_or_default();
        return match (field("private_key_pem"), field("client_secret")) {
            (Some(pem), _) => OAuth::private_key_jwt(
                client_id,
                pem,
                field("signing_algorithm").unwrap_or("ES256"),
            ),
            (None, Some(secret)) => Ok(OAuth::client_credentials(client_id, secret)),
            (None, None) => Err(AuthError::Config("the context has no credentials".into())),
        };
    }
    let mut oauth = OAuth::authorization_code(HeadlessSignIn::new())
        .client_name("mcp-runtime conformance client")
        .client_metadata_url(CLIENT_METADATA_URL);
    if let Some(id) = field("client_id") {
        oauth = oauth.client_id(id);
    }
    if let Some(secret) = field("client_secret") {
        oauth = oauth.client_secret(secret);
    }
    Ok(oauth)
}

/// Tool arguments given by the harness in `MCP_CONFORMANCE_CONTEXT`
/// (`toolCalls: [{name, arguments}]`), keyed by tool name.
fn context_arguments() -> BTreeMap<String, JsonObject> {
    let mut found = BTreeMap::new();
    let Ok(raw) = std::env::var("MCP_CONFORMANCE_CONTEXT") else {
        return found;
    };
    let Ok(context) = serde_json::from_str::<Value>(&raw) else {
        return found;
    };
    let calls = context
        .get("toolCalls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for call in calls {
        if let (Some(name), Some(Value::Object(args))) = (
            call.get("name").and_then(Value::as_str),
            call.get("arguments"),
        ) {
            found.insert(name.to_owned(), args.clone());
        }
    }
    found
}

/// Whether every `x-mcp-header` annotation of the tool's input schema is
/// usable (SEP-2243): a non-empty visible-ASCII token without `:` on a
/// string, integer or boolean property, unique case-insensitively.
fn valid_headers(tool: &Tool) -> bool {
    let Some(Value::Object(properties)) = tool.input_schema.get("properties") else {
        return true;
    };
    let mut seen = HashSet::new();
    for property in properties.values() {
        let Some(header) = property.get("x-mcp-header") else {
            continue;
        };
        let Some(header) = header.as_str() else {
            return false;
        };
        let token_ok = !header.is_empty()
            && header
                .bytes()
                .all(|b| (0x21..=0x7e).contains(&b) && b != b':');
        let type_ok = matches!(
            property.get("type").and_then(Value::as_str),
            Some("string" | "integer" | "boolean")
        );
        if !token_ok || !type_ok || !seen.insert(header.to_ascii_lowercase()) {
            eprintln!(
                "skipping tool {}: invalid x-mcp-header {header:?}",
                tool.name
            );
            return false;
        }
    }
    true
}

/// Plausible arguments for the required properties of an input schema.
fn arguments_for(schema: &JsonObject) -> JsonObject {
    let mut args = JsonObject::new();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = schema.get("properties").and_then(Value::as_object);
    for name in required {
        let property = properties.and_then(|p| p.get(name));
        args.insert(name.to_owned(), sample_value(property));
    }
    args
}

fn sample_value(property: Option<&Value>) -> Value {
    let property = property.unwrap_or(&Value::Null);
    if let Some(first) = property
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(default) = property.get("default") {
        return default.clone();
    }
    match property.get("type").and_then(Value::as_str) {
        Some("integer") => 1.into(),
        Some("number") => 1.5.into(),
        Some("boolean") => true.into(),
        Some("array") => Value::Array(Vec::new()),
        Some("object") => Value::Object(JsonObject::new()),
        Some("null") => Value::Null,
        _ => "test".into(),
    }
}

/// An accepted form's content: a plausible value for every property.
fn form_content(schema: &Value) -> BTreeMap<String, ElicitValue> {
    let mut content = BTreeMap::new();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return content;
    };
    for (name, property) in properties {
        if property.get("default").is_some() {
            continue; // the client fills it in (SEP-1034)
        }
        let value = match property.get("type").and_then(Value::as_str) {
            Some("boolean") => ElicitValue::Bool(
                property
                    .get("default")
                    .and_then(Value::as_bool)
                    .unwrap_or(true),
            ),
            Some("integer") => ElicitValue::Number(1.into()),
            Some("number") => ElicitValue::Number(1.into()),
            Some("array") => {
                let first = property
                    .pointer("/items/enum/0")
                    .or_else(|| property.pointer("/items/anyOf/0/const"))
                    .and_then(Value::as_str)
                    .unwrap_or("test");
                ElicitValue::Strings(vec![first.to_owned()])
            }
            _ => {
                let choice = property
                    .pointer("/enum/0")
                    .or_else(|| property.pointer("/oneOf/0/const"))
                    .or_else(|| property.get("default"))
                    .and_then(Value::as_str);
                let text = match (choice, property.get("format").and_then(Value::as_str)) {
                    (Some(choice), _) => choice.to_owned(),
                    (None, Some("email")) => "test@example.com".to_owned(),
                    (None, Some("uri")) => "https://example.com".to_owned(),
                    (None, Some("date")) => "2024-01-01".to_owned(),
                    (None, Some("date-time")) => "2024-01-01T00:00:00Z".to_owned(),
                    (None, _) => "test".to_owned(),
                };
                ElicitValue::String(text)
            }
        };
        content.insert(name.clone(), value);
    }
    content
}

//! Every use of `mcp_runtime::client`, in one place: connecting from the
//! options (`--era`, `--header`, `--verbose` included), the lists and
//! results as raw JSON, and the form and URL handlers. The rest of the
//! command sees only [`Settings`], [`Connection`], JSON values and
//! [`Failure`]s.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::client::auth::{FileStore, LoopbackSignIn, OAuth};
use mcp_runtime::client::{self, Client, ClientBuilder, ClientError, Direction, ListKind};
use mcp_runtime::schema::{
    ElicitAction, ElicitRequestFormParams, ElicitRequestUrlParams, ElicitResult, ElicitValue,
    JsonObject,
};
use serde_json::Value;

use crate::failure::Failure;
use crate::forms::{Field, Form, FormAnswer, Policy};
use crate::target::Target;

/// The protocol era asked for with `--era`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// Whatever the server speaks (the default).
    Auto,
    /// MCP 2026-07-28.
    Modern,
    /// 2025-era sessions.
    Legacy,
}

/// Everything a connection is made from.
pub(crate) struct Settings {
    /// The server.
    pub(crate) target: Target,
    /// `--era`.
    pub(crate) era: Era,
    /// `--header`, checked to be for an HTTP target.
    pub(crate) headers: Vec<(String, String)>,
    /// `--verbose`.
    pub(crate) verbose: bool,
    /// `--timeout`: also the client's bound on one auto-fulfilled request.
    pub(crate) timeout: Duration,
    /// How to sign in when an HTTP server asks.
    pub(crate) sign_in: SignInSettings,
    /// How forms are answered.
    pub(crate) forms: Arc<Policy>,
}

/// `--client-id`, `--client-secret`, `--scope` and `--token-store`.
pub(crate) struct SignInSettings {
    /// A pre-registered client id.
    pub(crate) client_id: Option<String>,
    /// Its secret: with the id, the client credentials grant.
    pub(crate) client_secret: Option<String>,
    /// Scopes for when the server names none.
    pub(crate) scopes: Vec<String>,
    /// The file store's path (`None`: in memory).
    pub(crate) token_store: Option<PathBuf>,
}

/// What `mcp tools`, `mcp prompts` and `mcp resources` list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Listing {
    /// `tools/list`.
    Tools,
    /// `prompts/list`.
    Prompts,
    /// `resources/list`.
    Resources,
}

/// A connected client, and the name messages give its server.
pub(crate) struct Connection {
    client: Client,
    server: String,
    http: bool,
}

/// Connects to the server of `settings`: spawns it for a stdio target.
pub(crate) async fn connect(settings: &Settings) -> Result<Connection, Failure> {
    let server = settings.target.name().to_owned();
    let builder = match &settings.target {
        Target::Http { url } => Client::http(url.clone()).oauth(
            oauth(&settings.sign_in, settings.timeout)
                .map_err(|e| Failure::server(&server, format_args!("cannot sign in: {e}")))?,
        ),
        Target::Stdio { program, args, .. } => Client::stdio(program.clone(), args.clone()),
    };
    let builder = builder.max_duration(settings.timeout);
    let builder = apply_era(builder, settings.era);
    let builder = apply_headers(builder, &settings.headers);
    let builder = apply_verbose(builder, settings.verbose);
    let builder = with_handlers(builder, &server, &settings.forms);
    let client = builder
        .connect()
        .await
        .map_err(|e| Failure::server(&server, format_args!("cannot connect: {}", describe(&e))))?;
    Ok(Connection {
        client,
        server,
        http: settings.target.is_http(),
    })
}

/// How to sign in when the server answers 401: client credentials with
/// `--client-id` and `--client-secret`, else the authorization code in the
/// browser, waiting at most `timeout` for the user.
fn oauth(
    settings: &SignInSettings,
    timeout: Duration,
) -> Result<OAuth, mcp_runtime::client::auth::AuthError> {
    let oauth = match (&settings.client_id, &settings.client_secret) {
        (Some(id), Some(secret)) => OAuth::client_credentials(id.clone(), secret.clone()),
        (id, _) => {
            let oauth = OAuth::authorization_code(LoopbackSignIn::new()?.timeout(timeout));
            match id {
                Some(id) => oauth.client_id(id.clone()),
                None => oauth,
            }
        }
    };
    let oauth = oauth.client_name("mcp").scopes(settings.scopes.clone());
    Ok(match &settings.token_store {
        Some(path) => oauth.store(FileStore::new(path)),
        None => oauth,
    })
}

/// `--era`: auto leaves the client to probe; a year pins the era.
fn apply_era(builder: ClientBuilder, era: Era) -> ClientBuilder {
    match era {
        Era::Auto => builder,
        Era::Modern => builder.pin_era(client::Era::Modern),
        Era::Legacy => builder.pin_era(client::Era::Legacy),
    }
}

/// `--header`: each one on every HTTP request.
fn apply_headers(builder: ClientBuilder, headers: &[(String, String)]) -> ClientBuilder {
    headers.iter().fold(builder, |builder, (name, value)| {
        builder.header(name, value)
    })
}

/// `--verbose`: every message sent and received, on stderr.
fn apply_verbose(builder: ClientBuilder, verbose: bool) -> ClientBuilder {
    if verbose {
        builder.on_message(|direction, message| {
            print_message(direction == Direction::Sent, message);
        })
    } else {
        builder
    }
}

/// How `--verbose` prints one message on stderr: `>>` sent, `<<` received,
/// then the compact JSON.
fn print_message(sent: bool, message: &Value) {
    eprintln!("{} {message}", if sent { ">>" } else { "<<" });
}

/// The form and URL handlers: forms go to the form policy, URL requests are
/// shown on stderr and accepted.
fn with_handlers(builder: ClientBuilder, server: &str, forms: &Arc<Policy>) -> ClientBuilder {
    let (form_server, url_server) = (server.to_owned(), server.to_owned());
    let forms = Arc::clone(forms);
    builder
        .on_elicit_form(move |params| {
            let (forms, server) = (Arc::clone(&forms), form_server.clone());
            async move { answer_form(&forms, &server, params).await }
        })
        .on_elicit_url(move |params| {
            let server = url_server.clone();
            async move { answer_url(&server, &params) }
        })
}

async fn answer_form(
    forms: &Policy,
    server: &str,
    params: ElicitRequestFormParams,
) -> ElicitResult {
    let schema = &*params.requested_schema;
    let required = schema.required.clone().unwrap_or_default();
    let fields = schema
        .properties
        .iter()
        .map(|(name, definition)| Field {
            name: name.clone(),
            schema: serde_json::to_value(definition).unwrap_or(Value::Null),
            required: required.contains(name),
        })
        .collect();
    let form = Form {
        message: params.message.clone(),
        fields,
    };
    let declined = |why: &str| {
        eprintln!(
            "mcp: declined the form from {server} ({:?}): {why}",
            params.message
        );
        ElicitResult::decline()
    };
    match forms.answer(form).await {
        FormAnswer::Decline(why) => declined(&why),
        FormAnswer::Accept(values) => {
            let mut content = BTreeMap::new();
            for (name, value) in values {
                match serde_json::from_value::<ElicitValue>(value) {
                    Ok(value) => {
                        content.insert(name, value);
                    }
                    Err(e) => return declined(&format!("the value of {name:?}: {e}")),
                }
            }
            ElicitResult::accept(content)
        }
    }
}

fn answer_url(server: &str, params: &ElicitRequestUrlParams) -> ElicitResult {
    eprintln!(
        "mcp: {server} asks you to open {}\n     {}\n     (accepted; waiting for the server to see the step complete)",
        params.url, params.message
    );
    ElicitResult {
        action: ElicitAction::Accept,
        content: None,
        meta: None,
    }
}

impl Connection {
    /// Every item of a list, as the server sent them.
    pub(crate) async fn list(&self, listing: Listing) -> Result<Vec<Value>, Failure> {
        let kind = match listing {
            Listing::Tools => ListKind::Tools,
            Listing::Prompts => ListKind::Prompts,
            Listing::Resources => ListKind::Resources,
        };
        self.client
            .list_json(kind)
            .await
            .map_err(|e| self.failed(kind.method(), &e))
    }

    /// `tools/call` of `tool`: its complete result as the server sent it.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
    ) -> Result<Value, Failure> {
        let modern_http = self.http && self.client.era() == client::Era::Modern;
        if modern_http && arguments.as_ref().is_some_and(|a| !a.is_empty()) {
            // Learn the tools' `x-mcp-header` annotations so the call sends
            // its Mcp-Param-* headers; if the list fails, the call reports.
            let _ = self.client.list_json(ListKind::Tools).await;
        }
        self.client
            .call_tool_json(tool, arguments)
            .await
            .map_err(|e| self.failed(&format!("tools/call of {tool:?}"), &e))
    }

    /// `prompts/get` of `name`: its complete result as the server sent it.
    pub(crate) async fn prompt(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<Value, Failure> {
        self.client
            .get_prompt_json(name, arguments)
            .await
            .map_err(|e| self.failed(&format!("prompts/get of {name:?}"), &e))
    }

    /// `resources/read` of `uri`: its complete result as the server sent it.
    pub(crate) async fn read(&self, uri: &str) -> Result<Value, Failure> {
        self.client
            .read_resource_json(uri)
            .await
            .map_err(|e| self.failed(&format!("resources/read of {uri:?}"), &e))
    }

    fn failed(&self, what: &str, error: &ClientError) -> Failure {
        Failure::server(
            &self.server,
            format_args!("{what} failed: {}", describe(error)),
        )
    }
}

/// A client error for a person: the server's error with its `data` when it
/// has some.
fn describe(error: &ClientError) -> String {
    match error {
        ClientError::Protocol(object) => match &object.data {
            Some(data) => {
                let data = data.to_string();
                let data: String = data.chars().take(300).collect();
                format!("{error} ({data})")
            }
            None => error.to_string(),
        },
        other => other.to_string(),
    }
}

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! What prompt and resource handlers written with the macros return, over
//! HTTP on 127.0.0.1: one user message (`GetPromptResult::user`,
//! `Reply::user`), a resource's contents without its URI (`ResourceBody`,
//! `Reply::resource_text`: the URI is the one asked for, for a fixed
//! resource and for a template), refusals (`PromptError`, `ResourceError`:
//! the exact JSON-RPC error), the typed URL-mode answer (`UrlConsent`), and
//! a form asked again with the field error (`ElicitForm::form_again`).

use mcp_runtime::prelude::*;
use mcp_runtime::schema::GetPromptResult;
use mcp_runtime::state::RequestStateSigner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod support;

use support::http::{meta, request, serve};
use support::schema::result;

// --- The server under test ----------------------------------------------------

const SECRET: [u8; 32] = *b"dsl-replies-tests-secret-32-byte";

#[derive(Deserialize, JsonSchema)]
struct EssayArgs {
    /// What to write about.
    topic: String,
}

/// An essay prompt; one topic is refused.
#[prompt]
async fn essay(args: EssayArgs) -> Result<GetPromptResult, PromptError> {
    if args.topic == "politics" {
        return Err(PromptError::new("politics is off limits here"));
    }
    Ok(GetPromptResult::user(format!(
        "Write an essay on {}.",
        args.topic
    )))
}

#[derive(ElicitForm)]
struct Letter {
    /// Who the letter is for.
    #[elicit(title = "Recipient", min_length = 1, max_length = 20)]
    to: String,
    /// How many paragraphs (no title: named by its field name).
    #[elicit(minimum = 1, maximum = 3)]
    paragraphs: u8,
}

#[derive(Serialize, Deserialize)]
enum Asked {
    Letter,
}

const LETTER_QUESTION: &str = "Who is the letter for?";

/// A letter prompt: asks for the recipient, asks again naming the field
/// that was wrong, and refuses when the user declines.
#[prompt]
async fn letter(
    ctx: Ctx,
    step: Resume<Asked>,
) -> Result<Reply<Asked, GetPromptResult>, PromptError> {
    let ask = |request| Reply::ask("letter", request).resume(Asked::Letter);
    if step.is_first_call() {
        return Ok(ask(Letter::form(LETTER_QUESTION)));
    }
    match ctx.answer::<Letter>("letter") {
        Answer::Accept(Letter { to, paragraphs }) => Ok(Reply::user(format!(
            "Write a letter to {to} in {paragraphs} paragraphs."
        ))),
        Answer::Decline | Answer::Cancel => Err(PromptError::new("No recipient, no letter.")),
        Answer::Missing => Ok(ask(Letter::form(LETTER_QUESTION))),
        Answer::Invalid(error) => Ok(ask(Letter::form_again(&error, LETTER_QUESTION))),
    }
}

/// The message of the day, as text with the declared MIME type.
#[resource(uri = "test://motd", mime_type = "text/plain")]
async fn motd() -> Reply<(), ResourceBody> {
    Reply::resource_text("Welcome aboard.")
}

/// The logo: bytes, with a MIME type in place of the declared one.
#[resource(uri = "test://logo", mime_type = "application/octet-stream")]
async fn logo() -> ResourceBody {
    ResourceBody::blob([0x89, b'P', b'N', b'G']).with_mime_type("image/png")
}

#[derive(Deserialize, JsonSchema)]
struct Entry {
    name: String,
}

#[derive(Serialize, Deserialize)]
enum Login {
    SigningIn,
}

fn sign_in(name: &str) -> Reply<Login, ResourceBody> {
    Reply::ask(
        "login",
        UrlConsent::request(
            "Sign in to open the vault.",
            format!("https://example.com/login?entry={name}"),
        ),
    )
    .resume(Login::SigningIn)
}

/// An entry of the vault, after a sign-in on a web page (URL mode).
#[resource(uri_template = "test://vault/{name}", mime_type = "text/plain")]
async fn vault(
    entry: Entry,
    ctx: Ctx,
    step: Resume<Login>,
) -> Result<Reply<Login, ResourceBody>, ResourceError> {
    match entry.name.as_str() {
        "nothing" => return Err(ResourceError::not_found()),
        "sealed" => return Err(ResourceError::new("The sealed entry cannot be read.")),
        _ => {}
    }
    if step.is_first_call() {
        return Ok(sign_in(&entry.name));
    }
    match ctx.answer::<UrlConsent>("login") {
        Answer::Accept(UrlConsent) => {
            Ok(Reply::resource_text(format!("The {} entry.", entry.name)))
        }
        Answer::Decline => Err(ResourceError::new("Sign-in declined.")),
        Answer::Cancel => Ok(Reply::resource_text("Sign-in cancelled.")),
        Answer::Missing | Answer::Invalid(_) => Ok(sign_in(&entry.name)),
    }
}

fn server() -> Server {
    Server::builder("dsl-replies", "1.0.0")
        .prompt(essay {})
        .prompt(letter {})
        .resource(motd {})
        .resource(logo {})
        .resource_template(vault {})
        .request_state_signer(RequestStateSigner::new(SECRET).unwrap())
        .build()
        .unwrap()
}

// --- The client -----------------------------------------------------------------

/// A client that can answer forms and URL-mode elicitations.
fn url_client() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}})
}

/// A client that can answer forms only.
fn form_client() -> Value {
    json!({"elicitation": {"form": {}}})
}

/// Sends one request whose `_meta` declares `capabilities`.
async fn rpc(url: &str, method: &str, params: Value, capabilities: Value) -> Value {
    request(url, 7, method, params, meta(capabilities, json!({}))).await
}

async fn get_prompt(url: &str, params: Value) -> Value {
    rpc(url, "prompts/get", params, form_client()).await
}

async fn read(url: &str, params: Value) -> Value {
    rpc(url, "resources/read", params, url_client()).await
}

/// The result of a `prompts/get` with `params`, validated.
async fn prompt_result(url: &str, params: Value) -> Value {
    result(&get_prompt(url, params).await, "GetPromptResult")
}

/// The result of a `resources/read` with `params`, validated.
async fn read_result(url: &str, params: Value) -> Value {
    result(&read(url, params).await, "ReadResourceResult")
}

/// The `error` of an error response, validated against the schema; it
/// echoes the request id.
fn error(response: &Value) -> Value {
    let error = support::schema::error(response);
    assert_eq!(response["id"], 7, "the error echoes the request id");
    error
}

/// The JSON-RPC error with which a handler's refusal arrives.
fn invalid_params(message: &str) -> Value {
    json!({"code": -32602, "message": message})
}

/// The `requestState` of an input-required result.
fn request_state(result: &Value) -> String {
    assert_eq!(result["resultType"], "input_required", "{result:#}");
    result["requestState"].as_str().unwrap().to_owned()
}

// --- Prompts --------------------------------------------------------------------

/// Gets the essay prompt on `topic`.
async fn essay_on(url: &str, topic: &str) -> Value {
    get_prompt(url, json!({"name": "essay", "arguments": {"topic": topic}})).await
}

#[tokio::test]
async fn a_prompt_returning_get_prompt_result_user_is_one_user_message() {
    let running = serve(server()).await;
    let result = result(&essay_on(&running.url, "rivers").await, "GetPromptResult");
    assert_eq!(
        result["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Write an essay on rivers."}}])
    );
}

#[tokio::test]
async fn a_prompt_refusal_is_invalid_params_with_its_message() {
    let running = serve(server()).await;
    let response = essay_on(&running.url, "politics").await;
    assert_eq!(
        error(&response),
        invalid_params("politics is off limits here")
    );
}

#[tokio::test]
async fn an_invalid_form_answer_is_asked_again_naming_the_field() {
    let running = serve(server()).await;
    let first = prompt_result(&running.url, json!({"name": "letter"})).await;
    assert_eq!(
        first["inputRequests"]["letter"]["params"]["message"],
        LETTER_QUESTION
    );
    let state = request_state(&first);
    let answer = |content: Value| {
        json!({"name": "letter", "requestState": state,
               "inputResponses": {"letter": {"action": "accept", "content": content}}})
    };

    for (content, message) in [
        (
            json!({"to": "", "paragraphs": 2}),
            "Recipient: must be at least 1 characters long, got 0. Who is the letter for?",
        ),
        (
            json!({"to": "Ada", "paragraphs": 9}),
            "paragraphs: must be at most 3, got 9. Who is the letter for?",
        ),
        (
            json!({"to": "Ada"}),
            "paragraphs: missing. Who is the letter for?",
        ),
        (
            json!({"to": 5, "paragraphs": 2}),
            "Recipient: expected a string, got a number. Who is the letter for?",
        ),
    ] {
        let again = prompt_result(&running.url, answer(content.clone())).await;
        assert!(
            !request_state(&again).is_empty(),
            "asked again, with a state"
        );
        let ask = &again["inputRequests"]["letter"];
        assert_eq!(ask["params"]["message"], message, "{content}");
        // The same form, asked again.
        assert_eq!(
            ask["params"]["requestedSchema"],
            first["inputRequests"]["letter"]["params"]["requestedSchema"]
        );
    }

    // A valid answer completes with one user message (`Reply::user`).
    let done = prompt_result(&running.url, answer(json!({"to": "Ada", "paragraphs": 2}))).await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(
        done["messages"],
        json!([{"role": "user", "content": {"type": "text",
                "text": "Write a letter to Ada in 2 paragraphs."}}])
    );

    // Declining is refused from inside a multi-round prompt too.
    let declined = get_prompt(
        &running.url,
        json!({"name": "letter", "requestState": state,
               "inputResponses": {"letter": {"action": "decline"}}}),
    )
    .await;
    assert_eq!(error(&declined), invalid_params("No recipient, no letter."));
}

// --- Resources ------------------------------------------------------------------

#[tokio::test]
async fn a_fixed_resource_text_gets_the_uri_read_and_the_declared_mime_type() {
    let running = serve(server()).await;
    let motd = read_result(&running.url, json!({"uri": "test://motd"})).await;
    assert_eq!(
        motd["contents"],
        json!([{"uri": "test://motd", "mimeType": "text/plain", "text": "Welcome aboard."}])
    );

    let logo = read_result(&running.url, json!({"uri": "test://logo"})).await;
    assert_eq!(
        logo["contents"],
        json!([{"uri": "test://logo", "mimeType": "image/png", "blob": "iVBORw=="}])
    );
}

#[tokio::test]
async fn a_url_answer_accepted_reads_the_template_entry_at_the_uri_read() {
    let running = serve(server()).await;
    let uri = "test://vault/diary";
    let first = read_result(&running.url, json!({"uri": uri})).await;
    let login = &first["inputRequests"]["login"];
    assert_eq!(
        *login,
        json!({"method": "elicitation/create", "params": {
            "mode": "url",
            "message": "Sign in to open the vault.",
            "url": "https://example.com/login?entry=diary"
        }})
    );
    let state = request_state(&first);

    let done = read_result(
        &running.url,
        json!({"uri": uri, "requestState": state,
               "inputResponses": {"login": {"action": "accept"}}}),
    )
    .await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(
        done["contents"],
        json!([{"uri": uri, "mimeType": "text/plain", "text": "The diary entry."}]),
        "the URI is the one read, not the template"
    );
}

#[tokio::test]
async fn a_url_answer_declined_cancelled_or_missing() {
    let running = serve(server()).await;
    let uri = "test://vault/ledger";
    let first = read_result(&running.url, json!({"uri": uri})).await;
    let state = request_state(&first);
    let retry =
        |responses: Value| json!({"uri": uri, "requestState": state, "inputResponses": responses});

    let declined = read(&running.url, retry(json!({"login": {"action": "decline"}}))).await;
    assert_eq!(error(&declined), invalid_params("Sign-in declined."));

    let cancelled = read_result(&running.url, retry(json!({"login": {"action": "cancel"}}))).await;
    assert_eq!(cancelled["contents"][0]["text"], "Sign-in cancelled.");

    // No answer under "login" (another key only): ask again.
    for responses in [json!({}), json!({"other": {"action": "accept"}})] {
        let again = read_result(&running.url, retry(responses)).await;
        assert_eq!(
            again["inputRequests"]["login"]["params"]["url"],
            "https://example.com/login?entry=ledger"
        );
        assert!(
            !request_state(&again).is_empty(),
            "asked again, with a state"
        );
    }
    // Without the echoed state it is a first call: asked too.
    let fresh = read_result(&running.url, json!({"uri": uri})).await;
    assert!(fresh["inputRequests"].get("login").is_some());
}

#[tokio::test]
async fn a_url_request_needs_a_client_that_declared_url_mode() {
    let running = serve(server()).await;
    let response = rpc(
        &running.url,
        "resources/read",
        json!({"uri": "test://vault/diary"}),
        form_client(),
    )
    .await;
    let error = error(&response);
    assert_eq!(error["code"], -32021);
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({"elicitation": {"url": {}}})
    );
}

#[tokio::test]
async fn resource_refusals_are_invalid_params_and_not_found_names_the_uri() {
    let running = serve(server()).await;
    let missing = read(&running.url, json!({"uri": "test://vault/nothing"})).await;
    assert_eq!(
        error(&missing),
        json!({"code": -32602, "message": "Resource not found",
               "data": {"uri": "test://vault/nothing"}})
    );
    let sealed = read(&running.url, json!({"uri": "test://vault/sealed"})).await;
    assert_eq!(
        error(&sealed),
        invalid_params("The sealed entry cannot be read.")
    );
}

//! Multi round-trip requests (SEP-2322): handlers that answer
//! `input_required`, then complete when the client calls again with
//! `inputResponses` (and the `requestState` it was given, if any).
//!
//! Key names and message texts follow the suite's reference fixtures. The
//! single-question handlers are stateless: the answer alone completes the
//! call. The others carry a typed `Resume` state, signed by the server and
//! bound to the call, so a tampered or foreign state is refused (`-32602`)
//! before the handler runs.
#![allow(deprecated)] // sampling and roots are deprecated in 2026-07-28, but tested

use mcp_runtime::prelude::*;
use mcp_runtime::schema::{
    CreateMessageRequestParams, CreateMessageResult, GetPromptResult, ListRootsResult,
    PromptMessage,
};
use serde::{Deserialize, Serialize};

// --- Forms and raw answers ------------------------------------------------------

/// Asks for a name.
#[derive(ElicitForm)]
pub(crate) struct NameForm {
    /// Your name.
    name: String,
}

/// Asks for a confirmation.
#[derive(ElicitForm)]
pub(crate) struct ConfirmForm {
    /// Confirm?
    pub(crate) ok: bool,
}

/// Asks for a favourite colour.
#[derive(ElicitForm)]
pub(crate) struct ColorForm {
    /// Your favorite color.
    color: String,
}

/// Asks for the context a prompt should use.
#[derive(ElicitForm)]
pub(crate) struct ContextForm {
    /// The context.
    context: String,
}

fn ask_sampling(text: &str, max_tokens: u64) -> InputRequest {
    InputRequest::sampling(CreateMessageRequestParams::user_text(text, max_tokens))
}

/// The answer under `key` to a sampling request, decoded from the raw
/// response; `None` when there is none or it is not a `CreateMessageResult`.
pub(crate) fn sampled(ctx: &Ctx, key: &str) -> Option<CreateMessageResult> {
    serde_json::from_value(ctx.input_response(key)?.clone()).ok()
}

/// The answer under `key` to a `roots/list` request.
fn listed_roots(ctx: &Ctx, key: &str) -> Option<ListRootsResult> {
    serde_json::from_value(ctx.input_response(key)?.clone()).ok()
}

fn describe_roots(roots: &ListRootsResult) -> String {
    let names: Vec<String> = roots
        .roots
        .iter()
        .map(|root| match &root.name {
            Some(name) => format!("{name} ({})", root.uri),
            None => root.uri.clone(),
        })
        .collect();
    format!("{} root(s): {}", names.len(), names.join(", "))
}

// --- One question, no state -----------------------------------------------------------

/// Asks for the user's name (key `user_name`), then greets them. Stateless:
/// the answer alone completes the call.
#[tool]
pub(crate) async fn test_input_required_result_elicitation(ctx: Ctx) -> Reply<()> {
    match ctx.answer::<NameForm>("user_name") {
        Answer::Accept(NameForm { name }) => Reply::text(format!("Hello, {name}!")),
        Answer::Decline | Answer::Cancel => Reply::text("Hello, whoever you are!"),
        // No answer, an answer under another key, or one that breaks the form.
        Answer::Missing | Answer::Invalid(_) => {
            Reply::ask("user_name", NameForm::form("What is your name?"))
        }
    }
}

/// Asks the client's model a question (key `capital_question`), then
/// returns its answer.
#[tool]
pub(crate) async fn test_input_required_result_sampling(ctx: Ctx) -> Reply<()> {
    match sampled(&ctx, "capital_question") {
        Some(answer) => Reply::text(format!(
            "The model ({}) answered: {}",
            answer.model,
            answer.text()
        )),
        None => Reply::ask(
            "capital_question",
            ask_sampling("What is the capital of France?", 100),
        ),
    }
}

/// Asks for the client's roots (key `client_roots`), then lists them.
#[tool]
pub(crate) async fn test_input_required_result_list_roots(ctx: Ctx) -> Reply<()> {
    match listed_roots(&ctx, "client_roots") {
        Some(roots) => Reply::text(format!("The client shared {}.", describe_roots(&roots))),
        None => Reply::ask("client_roots", InputRequest::list_roots()),
    }
}

/// Asks only through what the request declares it can answer (sampling,
/// elicitation, roots), then reports what came back.
#[tool]
pub(crate) async fn test_input_required_result_capabilities(ctx: Ctx) -> Reply<()> {
    let answered: Vec<&str> = ["sampling", "elicitation", "roots"]
        .into_iter()
        .filter(|key| ctx.input_response(key).is_some())
        .collect();
    if !answered.is_empty() {
        return Reply::text(format!("Answered: {}.", answered.join(", ")));
    }
    let capabilities = ctx.client_capabilities();
    // A done reply becomes an ask with the first `and_ask`.
    let mut reply = Reply::text("The client declared no capability to ask through.");
    if capabilities.supports_sampling() {
        reply = reply.and_ask("sampling", ask_sampling("Say hello.", 50));
    }
    if capabilities.supports_elicitation_form() {
        reply = reply.and_ask("elicitation", NameForm::form("What is your name?"));
    }
    if capabilities.supports_roots() {
        reply = reply.and_ask("roots", InputRequest::list_roots());
    }
    reply
}

// --- Signed state ----------------------------------------------------------------------

/// Where a confirmation flow stands.
#[derive(Serialize, Deserialize)]
pub(crate) enum Confirming {
    /// The confirmation was asked for.
    Asked,
}

/// One confirmation flow for the request-state and tampered-state tools.
fn confirm(ctx: &Ctx, step: Resume<Confirming>) -> Reply<Confirming> {
    let ask =
        || Reply::ask("confirm", ConfirmForm::form("Please confirm")).resume(Confirming::Asked);
    match step.into_inner() {
        None => ask(),
        // Reaching here means the echoed state verified.
        Some(Confirming::Asked) => match ctx.answer::<ConfirmForm>("confirm") {
            Answer::Accept(ConfirmForm { ok }) => {
                Reply::text(format!("state-ok: the requestState verified; ok = {ok}."))
            }
            Answer::Decline | Answer::Cancel => {
                Reply::text("state-ok: the requestState verified; not confirmed.")
            }
            Answer::Missing | Answer::Invalid(_) => ask(),
        },
    }
}

/// Asks for a confirmation carrying a signed requestState, and completes
/// with `state-ok` once the echoed state verifies.
#[tool]
pub(crate) async fn test_input_required_result_request_state(
    ctx: Ctx,
    step: Resume<Confirming>,
) -> Reply<Confirming> {
    confirm(&ctx, step)
}

/// Asks for a confirmation carrying an integrity-protected requestState; a
/// tampered state is refused with -32602 before this handler runs.
#[tool]
pub(crate) async fn test_input_required_result_tampered_state(
    ctx: Ctx,
    step: Resume<Confirming>,
) -> Reply<Confirming> {
    confirm(&ctx, step)
}

/// Where the three-question flow stands.
#[derive(Serialize, Deserialize)]
pub(crate) enum Gathering {
    /// All three were asked for.
    Asked,
}

fn ask_all() -> Reply<Gathering> {
    Reply::ask("user_name", NameForm::form("What is your name?"))
        .and_ask("greeting", ask_sampling("Generate a greeting", 50))
        .and_ask("client_roots", InputRequest::list_roots())
        .resume(Gathering::Asked)
}

/// Asks three things at once (a form, the model, the roots), then answers
/// with all three.
#[tool]
pub(crate) async fn test_input_required_result_multiple_inputs(
    ctx: Ctx,
    step: Resume<Gathering>,
) -> Reply<Gathering> {
    if step.is_first_call() {
        return ask_all();
    }
    let name = match ctx.answer::<NameForm>("user_name") {
        Answer::Accept(NameForm { name }) => name,
        Answer::Decline | Answer::Cancel => "stranger".to_owned(),
        Answer::Missing | Answer::Invalid(_) => return ask_all(),
    };
    let (Some(greeting), Some(roots)) = (
        sampled(&ctx, "greeting"),
        listed_roots(&ctx, "client_roots"),
    ) else {
        return ask_all();
    };
    Reply::text(format!(
        "Name: {name}. Greeting: {}. The client shared {}.",
        greeting.text(),
        describe_roots(&roots)
    ))
}

/// Where the two-round flow stands; the name learnt in round one travels
/// in the state, because the client resends only the newest answers.
#[derive(Serialize, Deserialize)]
pub(crate) enum Rounds {
    /// Step 1 asked for the name.
    AskedName,
    /// Step 2 asked for the colour.
    AskedColor { name: String },
}

fn ask_name() -> Reply<Rounds> {
    Reply::ask("step1", NameForm::form("Step 1: What is your name?")).resume(Rounds::AskedName)
}

fn ask_color(name: String) -> Reply<Rounds> {
    Reply::ask(
        "step2",
        ColorForm::form("Step 2: What is your favorite color?"),
    )
    .resume(Rounds::AskedColor { name })
}

/// Asks for a name, then (in a second round, with a new state) for a
/// favourite colour, then answers with both.
#[tool]
pub(crate) async fn test_input_required_result_multi_round(
    ctx: Ctx,
    step: Resume<Rounds>,
) -> Reply<Rounds> {
    match step.into_inner() {
        None => ask_name(),
        Some(Rounds::AskedName) => match ctx.answer::<NameForm>("step1") {
            Answer::Accept(NameForm { name }) => ask_color(name),
            Answer::Decline | Answer::Cancel => Reply::text("No name, no colour."),
            Answer::Missing | Answer::Invalid(_) => ask_name(),
        },
        Some(Rounds::AskedColor { name }) => match ctx.answer::<ColorForm>("step2") {
            Answer::Accept(ColorForm { color }) => {
                Reply::text(format!("Hello {name}, whose favorite color is {color}!"))
            }
            Answer::Decline | Answer::Cancel => Reply::text(format!("Goodbye, {name}.")),
            Answer::Missing | Answer::Invalid(_) => ask_color(name),
        },
    }
}

// --- Not only tools --------------------------------------------------------------------

/// A prompt that first asks (key `user_context`) what context to use.
#[prompt]
pub(crate) async fn test_input_required_result_prompt(ctx: Ctx) -> Reply<(), GetPromptResult> {
    let text = match ctx.answer::<ContextForm>("user_context") {
        Answer::Accept(ContextForm { context }) => format!("Answer using this context: {context}"),
        Answer::Decline | Answer::Cancel => "Answer without any particular context.".to_owned(),
        Answer::Missing | Answer::Invalid(_) => {
            return Reply::ask(
                "user_context",
                ContextForm::form("What context should the prompt use?"),
            );
        }
    };
    Reply::done(GetPromptResult::new(vec![PromptMessage::user(text)]))
}

//! Completion declared for one named argument: `#[completion(prompt = ...,
//! argument = ...)]` and `#[completion(template = ..., argument = ...)]`,
//! in a `#[handlers]` block and as free functions, served over HTTP on
//! 127.0.0.1; the catch-all `#[completion]` beside them; and the
//! `ServerBuilder::build` problems of a completer whose prompt, template or
//! argument the server does not have.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use mcp_runtime::prelude::*;
use mcp_runtime::schema::{CompletionArgument, CompletionContext, CompletionReference};
use serde::Deserialize;
use serde_json::{Value, json};

mod support;

use support::http::{meta, request, serve};

const TEAMS: [&str; 3] = ["billing", "backend", "frontend"];

/// The help desk: its teams.
struct Desk {
    teams: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
struct TriageArgs {
    /// The team to hand the ticket to.
    team: String,
    /// How urgent it is.
    urgency: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct TeamVars {
    team: String,
}

#[handlers]
impl Desk {
    /// Triage a ticket.
    #[prompt]
    async fn triage(&self, args: TriageArgs) -> String {
        format!("Hand it to {} ({:?}).", args.team, args.urgency)
    }

    /// A team's page.
    #[resource(uri_template = "desk://teams/{team}")]
    async fn team_page(&self, vars: TeamVars) -> String {
        vars.team
    }

    /// The teams that start with what was typed.
    #[completion(prompt = "triage", argument = "team")]
    async fn triage_team(&self, typed: &str) -> Vec<String> {
        self.teams
            .iter()
            .filter(|team| team.starts_with(typed))
            .cloned()
            .collect()
    }

    /// The same for the template's variable, with the other values.
    #[completion(template = "desk://teams/{team}", argument = "team")]
    async fn page_team(
        &self,
        context: CompletionContext,
        typed: String,
    ) -> Result<Vec<String>, McpError> {
        let _ = context;
        Ok(self
            .teams
            .iter()
            .filter(|team| team.starts_with(&typed))
            .map(|team| format!("page:{team}"))
            .collect())
    }
}

fn desk() -> Desk {
    Desk {
        teams: TEAMS.iter().map(|t| (*t).to_owned()).collect(),
    }
}

/// `completion/complete` of `argument` (typed `value`) of `reference`.
async fn complete(url: &str, reference: Value, argument: &str, value: &str) -> Value {
    request(
        url,
        1,
        "completion/complete",
        json!({"ref": reference, "argument": {"name": argument, "value": value}}),
        meta(json!({}), json!({})),
    )
    .await
}

fn prompt(name: &str) -> Value {
    json!({"type": "ref/prompt", "name": name})
}

fn template(uri: &str) -> Value {
    json!({"type": "ref/resource", "uri": uri})
}

fn values(response: &Value) -> Vec<&str> {
    response["result"]["completion"]["values"]
        .as_array()
        .unwrap_or_else(|| panic!("no values: {response}"))
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

fn invalid_params(response: &Value) -> &str {
    assert_eq!(response["error"]["code"], -32602, "{response}");
    response["error"]["message"].as_str().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_argument_completers_answer_and_unknown_names_are_invalid_params() {
    let server = Server::builder("desk", "1.0.0")
        .handlers(desk())
        .build()
        .unwrap();
    let running = serve(server).await;
    let url = running.url.as_str();

    // The block's completers answer their own arguments.
    let answer = complete(url, prompt("triage"), "team", "b").await;
    assert_eq!(values(&answer), ["billing", "backend"], "{answer}");
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    let answer = complete(url, template("desk://teams/{team}"), "team", "f").await;
    assert_eq!(values(&answer), ["page:frontend"], "{answer}");

    // A declared argument without a completer, and no catch-all: no values.
    let answer = complete(url, prompt("triage"), "urgency", "h").await;
    assert_eq!(
        answer["result"]["completion"],
        json!({"values": [], "total": 0, "hasMore": false}),
        "{answer}"
    );

    // What the server does not know never reaches a handler.
    let message = invalid_params(&complete(url, prompt("triage"), "teem", "b").await).to_owned();
    assert!(message.contains("\"triage\""), "{message}");
    assert!(message.contains("\"teem\""), "{message}");
    assert!(message.contains("\"team\", \"urgency\""), "{message}");
    let message = invalid_params(&complete(url, prompt("triag"), "team", "b").await).to_owned();
    assert_eq!(message, "Unknown prompt: triag");
    let answer = complete(url, template("desk://team/{team}"), "team", "b").await;
    assert_eq!(
        invalid_params(&answer),
        "Unknown resource template: desk://team/{team}"
    );
    let answer = complete(url, template("desk://teams/{team}"), "id", "b").await;
    assert!(invalid_params(&answer).contains("\"id\""), "{answer}");
}

/// A free-function completer of the block's prompt (checked at build).
#[completion(prompt = "triage", argument = "urgency")]
async fn urgency(typed: String) -> Vec<String> {
    ["high", "low"]
        .iter()
        .filter(|u| u.starts_with(typed.as_str()))
        .map(|u| (*u).to_owned())
        .collect()
}

/// The catch-all: asked about known arguments without a completer.
#[completion]
async fn anything(reference: CompletionReference, argument: CompletionArgument) -> Vec<String> {
    let _ = reference;
    vec![format!("catch-all:{}", argument.name)]
}

/// A prompt that declares two arguments, neither with a completer.
#[derive(Deserialize, JsonSchema)]
struct NoteArgs {
    subject: String,
    body: String,
}

/// Write a note.
#[prompt]
async fn note(args: NoteArgs) -> String {
    format!("{}: {}", args.subject, args.body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catch_all_answers_known_arguments_that_have_no_completer() {
    let server = Server::builder("desk", "1.0.0")
        .handlers(desk())
        .handler::<urgency>()
        .handler::<anything>()
        .handler::<note>()
        .build()
        .unwrap();
    let running = serve(server).await;
    let url = running.url.as_str();

    let answer = complete(url, prompt("triage"), "urgency", "h").await;
    assert_eq!(values(&answer), ["high"], "{answer}");
    let answer = complete(url, prompt("triage"), "team", "fr").await;
    assert_eq!(values(&answer), ["frontend"], "{answer}");
    let answer = complete(url, prompt("note"), "subject", "").await;
    assert_eq!(values(&answer), ["catch-all:subject"], "{answer}");
    // Unknown names reach no handler, the catch-all included.
    let answer = complete(url, prompt("note"), "title", "").await;
    assert!(
        invalid_params(&answer).contains("\"subject\", \"body\""),
        "{answer}"
    );
    let answer = complete(url, prompt("nothing"), "x", "").await;
    assert_eq!(invalid_params(&answer), "Unknown prompt: nothing");
}

/// Misspelled, in a function the block cannot see: caught by `build()`.
#[completion(prompt = "triage", argument = "teem")]
async fn misspelled_argument(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

/// A prompt the server does not have.
#[completion(prompt = "triag", argument = "team")]
async fn misspelled_prompt(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

/// A variable the template does not have is a compile error; an unknown
/// template is caught by `build()`.
#[completion(template = "desk://people/{name}", argument = "name")]
async fn unknown_template(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

/// A second completer of the argument the block already completes.
#[completion(prompt = "triage", argument = "team")]
async fn second_team(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

#[test]
fn build_refuses_completers_of_what_the_server_does_not_have() {
    let Err(error) = Server::builder("desk", "1.0.0")
        .handlers(desk())
        .handler::<misspelled_argument>()
        .handler::<misspelled_prompt>()
        .handler::<unknown_template>()
        .handler::<second_team>()
        .build()
    else {
        panic!("the server must not build");
    };
    let problems = error.problems();
    assert_eq!(problems.len(), 4, "{error}");
    assert_eq!(
        problems[0],
        "the completer of argument \"teem\" of prompt \"triage\" names an argument the prompt \
         does not have (it declares \"team\", \"urgency\"); fix the name in \
         `#[completion(argument = \"...\")]`"
    );
    assert_eq!(
        problems[1],
        "the completer of argument \"team\" of prompt \"triag\" names a prompt this server does \
         not have (its prompts are \"triage\"); fix the name in \
         `#[completion(prompt = \"...\")]`, or register the prompt"
    );
    assert_eq!(
        problems[2],
        "the completer of variable \"name\" of resource template \"desk://people/{name}\" names \
         a resource template this server does not have (its resource templates are \
         \"desk://teams/{team}\"); fix the name in `#[completion(template = \"...\")]`, or \
         register the resource template"
    );
    assert!(
        problems[3].starts_with("two completers complete argument \"team\" of prompt \"triage\""),
        "{error}"
    );
    // Displayed as sentences.
    assert!(
        error
            .to_string()
            .contains("\n  - The completer of argument \"teem\""),
        "{error}"
    );
}

/// Another catch-all.
#[completion]
async fn another_catch_all(argument: CompletionArgument) -> Vec<String> {
    vec![argument.value]
}

#[test]
fn build_refuses_two_catch_alls() {
    let Err(error) = Server::builder("desk", "1.0.0")
        .handler::<note>()
        .handler::<anything>()
        .handler::<another_catch_all>()
        .build()
    else {
        panic!("the server must not build");
    };
    assert_eq!(error.problems().len(), 1, "{error}");
    assert!(
        error.problems()[0].starts_with("two catch-all completion handlers are registered"),
        "{error}"
    );
}

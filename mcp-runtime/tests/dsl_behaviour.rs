//! Handlers written with `#[tool]`, `#[prompt]` and `#[resource]`, called
//! through the real server over HTTP on 127.0.0.1: the descriptors they
//! produce (checked against the specification's JSON Schema), how their
//! arguments and return types reach the wire, and multi-round flows with a
//! typed, signed resume state.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::prelude::*;
use mcp_runtime::state::{BindingRequest, RequestStateSigner};
use mcp_runtime::transport::{ReceiveContext, TransportKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod support;

use support::handlers::{Step, ask_name, summarise};
use support::http::{form_client_meta, request, serve};
use support::schema::{error, result};

// --- The server under test ----------------------------------------------------

const SECRET: [u8; 32] = *b"dsl-behaviour-tests-secret-32-by";

#[derive(Deserialize, JsonSchema)]
struct DeployArgs {
    /// Where to deploy.
    target: String,
    /// How many replicas to run.
    replicas: Option<u32>,
}

/// Deploy the current build.
#[tool(destructive)]
async fn deploy(args: DeployArgs) -> String {
    format!(
        "Deployed to {} with {} replicas.",
        args.target,
        args.replicas.unwrap_or(1)
    )
}

#[derive(Serialize, JsonSchema)]
struct Stats {
    /// How many builds ran.
    builds: u32,
    /// The newest build's label.
    latest: String,
}

/// Build statistics.
#[tool(read_only)]
async fn stats() -> Json<Stats> {
    Json(Stats {
        builds: 3,
        latest: "v1.2.3".into(),
    })
}

/// Always fails, as a tool.
#[tool]
async fn fails_as_tool() -> Result<String, ToolError> {
    Err(ToolError::new("the disk is full"))
}

/// Always fails, as a protocol error.
#[tool]
async fn fails_as_protocol() -> Result<Json<Stats>, McpError> {
    Err(McpError::invalid_params("the quota is exhausted"))
}

struct Config {
    greeting: &'static str,
}

/// Greets with the configured greeting.
#[tool(name = "configured_greeting")]
async fn configured(config: Shared<Config>, runs: Shared<AtomicUsize>) -> String {
    let n = runs.fetch_add(1, Ordering::SeqCst) + 1;
    format!("{} (run {n})", config.greeting)
}

/// Needs a shared value nobody gave, written as `Shared<..>`: the server
/// is not built.
#[tool]
async fn needs_ledger(ledger: Shared<Vec<u64>>, _runs: Shared<AtomicUsize>) -> String {
    ledger.len().to_string()
}

/// The same need in a prompt.
#[prompt]
async fn ledger_prompt(ledger: Shared<Vec<u64>>) -> String {
    ledger.len().to_string()
}

// The multi-round flow: ask the name, then the colour, then answer with both.

support::handlers::greeting_handlers!(Red, Green, Blue);

/// A fixed text resource.
#[resource(uri = "test://static/text", mime_type = "text/plain")]
async fn static_text() -> String {
    "This is static text.".into()
}

#[derive(Deserialize, JsonSchema)]
struct DataVars {
    id: String,
}

/// The data of one item.
#[resource(
    uri_template = "test://template/{id}/data",
    mime_type = "application/json"
)]
async fn data(vars: DataVars) -> String {
    json!({"id": vars.id, "kind": "item"}).to_string()
}

/// How many times the counting handlers ran (the same shared counter).
#[tool]
async fn run_count(runs: Shared<AtomicUsize>) -> String {
    runs.load(Ordering::SeqCst).to_string()
}

/// Counts its runs; asks once, then says it resumed.
#[tool]
async fn counted(runs: Shared<AtomicUsize>, step: Resume<Step>) -> Reply<Step> {
    runs.fetch_add(1, Ordering::SeqCst);
    match step.into_inner() {
        None => ask_name(),
        Some(_) => Reply::text("resumed"),
    }
}

// A form whose declared constraints the runtime enforces on the answer.

#[derive(Debug, ElicitForm)]
struct Booking {
    /// Contact e-mail.
    #[elicit(format = "email")]
    email: String,
    /// Number of seats.
    #[elicit(minimum = 1, maximum = 4)]
    seats: u8,
    /// A short note.
    #[elicit(max_length = 10)]
    note: Option<String>,
}

#[derive(Serialize, Deserialize)]
enum Booked {
    Asked,
}

fn ask_booking(message: String) -> Reply<Booked> {
    Reply::ask("booking", Booking::form(message)).resume(Booked::Asked)
}

/// Books seats.
#[tool]
async fn book(ctx: Ctx, step: Resume<Booked>) -> Reply<Booked> {
    if step.is_first_call() {
        return ask_booking("Book seats.".into());
    }
    match ctx.answer::<Booking>("booking") {
        Answer::Accept(b) => Reply::text(format!(
            "Booked {} for {} ({}).",
            b.seats,
            b.email,
            b.note.as_deref().unwrap_or("-")
        )),
        Answer::Invalid(error) => ask_booking(format!("Please correct {error}.")),
        Answer::Missing => ask_booking("Book seats.".into()),
        Answer::Decline | Answer::Cancel => Reply::text("Not booked."),
    }
}

fn server() -> Server {
    Server::builder("dsl-behaviour", "1.0.0")
        .tool(deploy {})
        .tool(stats {})
        .tool(fails_as_tool {})
        .tool(fails_as_protocol {})
        .tool(configured {})
        .tool(greet {})
        .tool(counted {})
        .tool(book {})
        .tool(run_count {})
        .prompt(greeting {})
        .prompt(summarise {})
        .resource(greeting_card {})
        .resource(static_text {})
        .resource_template(data {})
        .share(Config { greeting: "Ahoy" })
        .share(AtomicUsize::new(0))
        .request_state_signer(RequestStateSigner::new(SECRET).unwrap())
        .build()
        .unwrap()
}

// --- The client -----------------------------------------------------------------

/// Sends one request with the MCP headers; returns the parsed response.
async fn rpc(url: &str, method: &str, params: Value) -> Value {
    request(url, 1, method, params, form_client_meta()).await
}

async fn call_tool(url: &str, params: Value) -> Value {
    rpc(url, "tools/call", params).await
}

/// The text of the first content block of a tool result.
fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap()
}

fn find<'a>(list: &'a Value, key: &str, field: &str, name: &str) -> &'a Value {
    list[key]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item[field] == name)
        .unwrap_or_else(|| panic!("no {name} in {list:#}"))
}

// --- Tests --------------------------------------------------------------------

#[tokio::test]
async fn lists_describe_the_handlers_and_validate() {
    let running = serve(server()).await;
    let tools = result(
        &rpc(&running.url, "tools/list", json!({})).await,
        "ListToolsResult",
    );

    let deploy = find(&tools, "tools", "name", "deploy");
    assert_eq!(deploy["description"], "Deploy the current build.");
    let input = &deploy["inputSchema"];
    assert_eq!(input["type"], "object");
    assert_eq!(
        input["properties"]["target"]["description"],
        "Where to deploy."
    );
    assert_eq!(
        input["properties"]["replicas"]["description"],
        "How many replicas to run."
    );
    assert_eq!(input["required"], json!(["target"]));
    assert_eq!(deploy["annotations"]["destructiveHint"], true);
    assert!(deploy.get("outputSchema").is_none());

    let stats = find(&tools, "tools", "name", "stats");
    assert_eq!(stats["annotations"]["readOnlyHint"], true);
    assert_eq!(stats["inputSchema"], json!({"type": "object"}));
    let output = &stats["outputSchema"];
    assert_eq!(output["type"], "object");
    assert_eq!(
        output["properties"]["builds"]["description"],
        "How many builds ran."
    );
    assert_eq!(output["properties"]["latest"]["type"], "string");
    // Through `Result<Json<T>, McpError>` too.
    let fails = find(&tools, "tools", "name", "fails_as_protocol");
    assert_eq!(fails["outputSchema"]["type"], "object");

    // `name = "..."` overrides the function's name.
    find(&tools, "tools", "name", "configured_greeting");
    let greet = find(&tools, "tools", "name", "greet");
    assert_eq!(
        greet["description"],
        "Greets the user by name and favourite colour, asking for both."
    );
    assert!(greet.get("annotations").is_none());
    // `Ctx` and `Resume<S>` add nothing to the input schema.
    assert_eq!(greet["inputSchema"], json!({"type": "object"}));

    let prompts = result(
        &rpc(&running.url, "prompts/list", json!({})).await,
        "ListPromptsResult",
    );
    let summarise = find(&prompts, "prompts", "name", "summarise");
    assert_eq!(summarise["description"], "Summarise a topic.");
    let arguments = summarise["arguments"].as_array().unwrap();
    let topic = arguments.iter().find(|a| a["name"] == "topic").unwrap();
    assert_eq!(topic["description"], "What to summarise.");
    assert_eq!(topic["required"], true);
    let length = arguments.iter().find(|a| a["name"] == "length").unwrap();
    assert_eq!(length["required"], false);
    let greeting = find(&prompts, "prompts", "name", "greeting");
    assert!(
        greeting
            .get("arguments")
            .is_none_or(|a| a.as_array().is_some_and(Vec::is_empty))
    );

    let resources = result(
        &rpc(&running.url, "resources/list", json!({})).await,
        "ListResourcesResult",
    );
    let card = find(&resources, "resources", "uri", "test://greeting-card");
    assert_eq!(card["name"], "greeting_card");
    assert_eq!(
        card["description"],
        "A greeting card, after asking for a name and a colour."
    );
    assert_eq!(card["mimeType"], "text/plain");
    find(&resources, "resources", "uri", "test://static/text");

    let templates = result(
        &rpc(&running.url, "resources/templates/list", json!({})).await,
        "ListResourceTemplatesResult",
    );
    let data = find(
        &templates,
        "resourceTemplates",
        "uriTemplate",
        "test://template/{id}/data",
    );
    assert_eq!(data["name"], "data");
    assert_eq!(data["description"], "The data of one item.");
    assert_eq!(data["mimeType"], "application/json");
}

#[tokio::test]
async fn typed_arguments_reach_the_handler() {
    let running = serve(server()).await;
    let response = call_tool(
        &running.url,
        json!({"name": "deploy", "arguments": {"target": "staging", "replicas": 3}}),
    )
    .await;
    let result = result(&response, "CallToolResult");
    assert_eq!(text(&result), "Deployed to staging with 3 replicas.");
    assert!(result.get("isError").is_none_or(|e| e == false));
}

#[tokio::test]
async fn arguments_that_do_not_deserialize_are_invalid_params_naming_the_field() {
    let running = serve(server()).await;
    for arguments in [
        json!({"target": 5}),
        json!({}),
        json!({"replicas": 2}),
        json!({"target": "x", "replicas": "many"}),
    ] {
        let field = if arguments["replicas"] == "many" {
            "replicas"
        } else {
            "target"
        };
        let response = call_tool(
            &running.url,
            json!({"name": "deploy", "arguments": arguments}),
        )
        .await;
        let error = error(&response);
        assert_eq!(error["code"], -32602, "{response}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(field), "{message:?} should name `{field}`");
    }
}

#[tokio::test]
async fn a_tool_error_is_a_result_with_is_error() {
    let running = serve(server()).await;
    let response = call_tool(&running.url, json!({"name": "fails_as_tool"})).await;
    let result = result(&response, "CallToolResult");
    assert_eq!(result["isError"], true);
    assert_eq!(text(&result), "the disk is full");
}

#[tokio::test]
async fn an_mcp_error_is_a_json_rpc_error() {
    let running = serve(server()).await;
    let response = call_tool(&running.url, json!({"name": "fails_as_protocol"})).await;
    let error = error(&response);
    assert_eq!(error["code"], -32602);
    assert_eq!(error["message"], "the quota is exhausted");
}

#[tokio::test]
async fn json_output_is_structured_content_and_a_text_block() {
    let running = serve(server()).await;
    let response = call_tool(&running.url, json!({"name": "stats"})).await;
    let result = result(&response, "CallToolResult");
    let expected = json!({"builds": 3, "latest": "v1.2.3"});
    assert_eq!(result["structuredContent"], expected);
    assert_eq!(result["content"][0]["type"], "text");
    let parsed: Value = serde_json::from_str(text(&result)).unwrap();
    assert_eq!(parsed, expected);
}

#[tokio::test]
async fn shared_values_reach_the_handler() {
    let running = serve(server()).await;
    for n in 1..=2 {
        let response = call_tool(&running.url, json!({"name": "configured_greeting"})).await;
        let result = result(&response, "CallToolResult");
        assert_eq!(text(&result), format!("Ahoy (run {n})"));
    }
    // A value nobody shared, even behind an alias, stops the build
    // (`dsl_build_checks.rs`).
}

#[test]
fn a_forgotten_share_stops_the_build() {
    let built = Server::builder("forgetful", "1")
        .handler::<needs_ledger>()
        .handler::<ledger_prompt>()
        .share(AtomicUsize::new(0))
        .build();
    let error = built.expect_err("the build is refused");
    let problems = error.problems();
    assert_eq!(problems.len(), 2, "{problems:?}");
    for (who, problem) in [
        ("tool \"needs_ledger\"", &problems[0]),
        ("prompt \"ledger_prompt\"", &problems[1]),
    ] {
        assert!(problem.starts_with(who), "{problem}");
        assert!(
            problem.contains("Shared<alloc::vec::Vec<u64>>"),
            "{problem}"
        );
        assert!(problem.contains("add `.share(value)`"), "{problem}");
    }
    // Shared, in either order with the registration, it builds.
    let built = Server::builder("remembering", "1")
        .share(vec![1_u64, 2])
        .handler::<needs_ledger>()
        .handler::<ledger_prompt>()
        .share(AtomicUsize::new(0))
        .build();
    assert!(built.is_ok());
}

/// Drives the name → colour → answer flow of one method; `params` are the
/// method's own (`name` or `uri`, and `arguments`); `final_text` reads the
/// text of the complete result.
async fn drive_flow(url: &str, method: &str, params: Value, def: &str) -> Vec<Value> {
    let with = |extra: Value| {
        let mut p = params.clone();
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        p
    };
    let mut results = Vec::new();

    // Round 1: no state, so the handler asks for the name.
    let first = result(&rpc(url, method, params.clone()).await, def);
    assert_eq!(first["resultType"], "input_required", "{first:#}");
    let ask = &first["inputRequests"]["name"];
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["message"], "What is your name?");
    assert_eq!(
        ask["params"]["requestedSchema"]["properties"]["name"]["description"],
        "Your name."
    );
    let state1 = first["requestState"].as_str().unwrap().to_owned();

    // A retry without the answer: Missing, so the handler asks again.
    let again = result(
        &rpc(url, method, with(json!({"requestState": state1}))).await,
        def,
    );
    assert_eq!(again["resultType"], "input_required");
    assert!(again["inputRequests"].get("name").is_some());

    // An answer that is not an elicitation result at all: Invalid, ask again.
    let invalid = result(
        &rpc(
            url,
            method,
            with(json!({"requestState": state1, "inputResponses": {"name": {"content": 7}}})),
        )
        .await,
        def,
    );
    assert_eq!(invalid["resultType"], "input_required");
    assert!(invalid["inputRequests"].get("name").is_some());

    // Round 2: the name; the handler asks for the colour, carrying the name.
    let second = result(
        &rpc(
            url,
            method,
            with(json!({"requestState": state1,
                        "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}}})),
        )
        .await,
        def,
    );
    assert_eq!(second["resultType"], "input_required");
    let ask = &second["inputRequests"]["colour"];
    assert_eq!(ask["params"]["message"], "Ada, pick a colour.");
    assert_eq!(
        ask["params"]["requestedSchema"]["properties"]["colour"]["enum"],
        json!(["red", "green", "blue"])
    );
    let state2 = second["requestState"].as_str().unwrap().to_owned();
    assert_ne!(state1, state2);

    // A colour outside the options: Invalid, so it asks again, still for Ada.
    let purple = result(
        &rpc(
            url,
            method,
            with(json!({"requestState": state2,
                        "inputResponses": {"colour": {"action": "accept", "content": {"colour": "purple"}}}})),
        )
        .await,
        def,
    );
    assert_eq!(purple["resultType"], "input_required");
    assert_eq!(
        purple["inputRequests"]["colour"]["params"]["message"],
        "Ada, pick a colour."
    );

    // No answer for the colour: Missing, so it asks again, still for Ada.
    let missing = result(
        &rpc(
            url,
            method,
            with(json!({"requestState": state2,
                        "inputResponses": {"name": {"action": "accept", "content": {"name": "Eve"}}}})),
        )
        .await,
        def,
    );
    assert_eq!(missing["resultType"], "input_required");
    assert_eq!(
        missing["inputRequests"]["colour"]["params"]["message"],
        "Ada, pick a colour."
    );

    // A declined colour ends the flow with a goodbye to the name in the state.
    let declined = result(
        &rpc(
            url,
            method,
            with(json!({"requestState": state2,
                        "inputResponses": {"colour": {"action": "decline"}}})),
        )
        .await,
        def,
    );
    assert_eq!(declined["resultType"], "complete", "{declined:#}");
    assert!(
        declined.to_string().contains("Goodbye, Ada."),
        "{declined:#}"
    );

    // Round 3: only the newest answer travels; the name comes from the state.
    let done = result(
        &rpc(
            url,
            method,
            with(json!({"requestState": state2,
                        "inputResponses": {"colour": {"action": "accept", "content": {"colour": "green"}}}})),
        )
        .await,
        def,
    );
    assert_eq!(done["resultType"], "complete", "{done:#}");
    results.push(done);

    // A state minted for one round does not fit another target.
    let tampered = rpc(
        url,
        method,
        with(json!({"requestState": format!("{state2}x")})),
    )
    .await;
    assert_eq!(error(&tampered)["code"], -32602);
    results
}

#[tokio::test]
async fn multi_round_flow_over_a_tool() {
    let running = serve(server()).await;
    let done = drive_flow(
        &running.url,
        "tools/call",
        json!({"name": "greet"}),
        "CallToolResult",
    )
    .await;
    assert_eq!(text(&done[0]), "Hello Ada, lover of Green!");
}

#[tokio::test]
async fn multi_round_flow_over_a_prompt() {
    let running = serve(server()).await;
    let done = drive_flow(
        &running.url,
        "prompts/get",
        json!({"name": "greeting"}),
        "GetPromptResult",
    )
    .await;
    assert_eq!(done[0]["messages"][0]["role"], "user");
    assert_eq!(
        done[0]["messages"][0]["content"]["text"],
        "Hello Ada, lover of Green!"
    );
}

#[tokio::test]
async fn multi_round_flow_over_a_resource() {
    let running = serve(server()).await;
    let done = drive_flow(
        &running.url,
        "resources/read",
        json!({"uri": "test://greeting-card"}),
        "ReadResourceResult",
    )
    .await;
    let contents = &done[0]["contents"][0];
    assert_eq!(contents["uri"], "test://greeting-card");
    assert_eq!(contents["mimeType"], "text/plain");
    assert_eq!(contents["text"], "Hello Ada, lover of Green!");
}

#[tokio::test]
async fn a_state_for_one_tool_does_not_resume_another() {
    let running = serve(server()).await;
    let first = result(
        &call_tool(&running.url, json!({"name": "greet"})).await,
        "CallToolResult",
    );
    let state = first["requestState"].as_str().unwrap();
    let response = call_tool(
        &running.url,
        json!({"name": "counted", "requestState": state}),
    )
    .await;
    assert_eq!(
        error(&response)["message"],
        "Invalid or expired \"requestState\""
    );
}

#[tokio::test]
async fn declining_ends_the_flow() {
    let running = serve(server()).await;
    let first = result(
        &call_tool(&running.url, json!({"name": "greet"})).await,
        "CallToolResult",
    );
    let state = first["requestState"].as_str().unwrap();
    let response = call_tool(
        &running.url,
        json!({"name": "greet", "requestState": state,
               "inputResponses": {"name": {"action": "decline"}}}),
    )
    .await;
    assert_eq!(
        text(&result(&response, "CallToolResult")),
        "No name, no greeting."
    );
}

#[tokio::test]
async fn prompt_arguments_and_fixed_resources_and_templates() {
    let running = serve(server()).await;
    let prompt = result(
        &rpc(
            &running.url,
            "prompts/get",
            json!({"name": "summarise", "arguments": {"topic": "rust"}}),
        )
        .await,
        "GetPromptResult",
    );
    assert_eq!(
        prompt["messages"][0]["content"]["text"],
        "Summarise rust in 100 words."
    );
    let missing = rpc(
        &running.url,
        "prompts/get",
        json!({"name": "summarise", "arguments": {}}),
    )
    .await;
    let missing = error(&missing);
    assert_eq!(missing["code"], -32602);
    assert!(missing["message"].as_str().unwrap().contains("topic"));

    let text = result(
        &rpc(
            &running.url,
            "resources/read",
            json!({"uri": "test://static/text"}),
        )
        .await,
        "ReadResourceResult",
    );
    assert_eq!(text["contents"][0]["uri"], "test://static/text");
    assert_eq!(text["contents"][0]["mimeType"], "text/plain");
    assert_eq!(text["contents"][0]["text"], "This is static text.");

    let item = result(
        &rpc(
            &running.url,
            "resources/read",
            json!({"uri": "test://template/abc-42/data"}),
        )
        .await,
        "ReadResourceResult",
    );
    let contents = &item["contents"][0];
    assert_eq!(contents["uri"], "test://template/abc-42/data");
    assert_eq!(contents["mimeType"], "application/json");
    let parsed: Value = serde_json::from_str(contents["text"].as_str().unwrap()).unwrap();
    assert_eq!(parsed, json!({"id": "abc-42", "kind": "item"}));
}

#[tokio::test]
async fn a_state_that_verifies_but_does_not_decode_is_refused_before_the_handler() {
    let running = serve(server()).await;
    let url = running.url.clone();
    let counter = || async {
        let response = call_tool(&url, json!({"name": "run_count"})).await;
        text(&result(&response, "CallToolResult"))
            .parse::<usize>()
            .unwrap()
    };

    // A first call runs the handler once.
    let first = result(
        &call_tool(&running.url, json!({"name": "counted"})).await,
        "CallToolResult",
    );
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(counter().await, 1);

    // Mint states as the server would: same key, same binding.
    let signer = RequestStateSigner::new(SECRET).unwrap();
    let arguments = mcp_runtime::schema::JsonObject::new();
    let binding = signer.bind_for(
        &BindingRequest {
            method: "tools/call",
            target: "counted",
            arguments: (&arguments).into(),
        },
        &ReceiveContext::new(TransportKind::Http),
    );
    let bound = signer.bind_to(binding);

    // It verifies (right key and binding) but is not a `Step`.
    let not_a_step = bound.sign_json(&42).unwrap();
    let response = call_tool(
        &running.url,
        json!({"name": "counted", "requestState": not_a_step}),
    )
    .await;
    let error = error(&response);
    assert_eq!(error["code"], -32602);
    assert_eq!(error["message"], "Invalid or expired \"requestState\"");
    assert!(error.get("data").is_none());
    assert_eq!(counter().await, 1, "the handler did not run");

    // The control: a `Step` minted the same way resumes the handler.
    let a_step = bound.sign_json(&Step::AskedName).unwrap();
    let response = call_tool(
        &running.url,
        json!({"name": "counted", "requestState": a_step}),
    )
    .await;
    assert_eq!(text(&result(&response, "CallToolResult")), "resumed");
    assert_eq!(counter().await, 2);
}

#[tokio::test]
async fn declared_form_constraints_are_enforced_on_answers() {
    let running = serve(server()).await;
    let first = result(
        &call_tool(&running.url, json!({"name": "book"})).await,
        "CallToolResult",
    );
    let schema = &first["inputRequests"]["booking"]["params"]["requestedSchema"];
    assert_eq!(schema["properties"]["email"]["format"], "email");
    assert_eq!(schema["properties"]["seats"]["minimum"], 1.0);
    assert_eq!(schema["properties"]["seats"]["maximum"], 4.0);
    assert_eq!(schema["properties"]["note"]["maxLength"], 10);
    let state = first["requestState"].as_str().unwrap().to_owned();

    let answer = |content: Value| {
        json!({"name": "book", "requestState": state,
               "inputResponses": {"booking": {"action": "accept", "content": content}}})
    };
    for (content, field) in [
        (json!({"email": "a@b.co", "seats": 9}), "seats"),
        (json!({"email": "a@b.co", "seats": 0}), "seats"),
        (json!({"email": "a@b.co", "seats": 2.5}), "seats"),
        (json!({"email": "not-an-email", "seats": 2}), "email"),
        (
            json!({"email": "a@b.co", "seats": 2, "note": "far too long a note"}),
            "note",
        ),
        (json!({"seats": 2}), "email"),
    ] {
        let response = call_tool(&running.url, answer(content.clone())).await;
        let reasked = result(&response, "CallToolResult");
        assert_eq!(reasked["resultType"], "input_required", "{content}");
        let message = reasked["inputRequests"]["booking"]["params"]["message"]
            .as_str()
            .unwrap();
        assert!(
            message.starts_with("Please correct") && message.contains(&format!("{field:?}")),
            "{content}: {message}"
        );
    }

    let response = call_tool(
        &running.url,
        answer(json!({"email": "a@b.co", "seats": 2, "note": "aisle"})),
    )
    .await;
    assert_eq!(
        text(&result(&response, "CallToolResult")),
        "Booked 2 for a@b.co (aisle)."
    );
}

#[test]
fn two_handlers_with_the_same_name_do_not_build() {
    /// One.
    #[tool(name = "same")]
    async fn first() -> String {
        "1".into()
    }

    /// Two.
    #[tool(name = "same")]
    async fn second() -> String {
        "2".into()
    }

    /// One.
    #[prompt(name = "same_prompt")]
    async fn prompt_one() -> String {
        "1".into()
    }

    /// Two.
    #[prompt(name = "same_prompt")]
    async fn prompt_two() -> String {
        "2".into()
    }

    let built = Server::builder("dup", "1")
        .tool(first {})
        .tool(second {})
        .prompt(prompt_one {})
        .prompt(prompt_two {})
        .resource(static_text {})
        .resource(static_text {})
        .build();
    let Err(error) = built else {
        panic!("duplicates do not build")
    };
    let problems = error.problems().join("\n");
    assert!(
        problems.contains("two tools are named \"same\""),
        "{problems}"
    );
    assert!(
        problems.contains("two prompts are named \"same_prompt\""),
        "{problems}"
    );
    assert!(
        problems.contains("two resources have the URI \"test://static/text\""),
        "{problems}"
    );
}

/// One `#[handlers]` block.
struct FrontDesk;

#[handlers]
impl FrontDesk {
    /// Pages whoever is on call.
    #[tool(name = "page")]
    async fn page(&self) -> String {
        "paged".into()
    }
}

/// Another block, with a tool of the same name.
struct BackDesk;

#[handlers]
impl BackDesk {
    /// Pages the back office.
    #[tool(name = "page")]
    async fn page(&self) -> String {
        "paged too".into()
    }
}

#[test]
fn the_same_name_in_two_handlers_blocks_is_a_build_error_in_sentences() {
    let Err(error) = Server::builder("desks", "1")
        .handlers(FrontDesk)
        .handlers(BackDesk)
        .build()
    else {
        panic!("two tools named `page` must not build")
    };
    let expected = "the server cannot be built:\n  - Two tools are named \"page\", perhaps in two \
                    `#[handlers]` blocks or registered twice; rename one \
                    (`#[tool(name = \"...\")]`) or register it once.";
    assert_eq!(error.to_string(), expected);
    // `fn main() -> Result<(), Box<dyn Error>>` prints `Debug`: the same sentences.
    assert_eq!(format!("{error:?}"), expected);
}

/// Asks for a name and resumes from a signed state.
#[tool]
async fn resumes(step: Resume<Step>) -> Reply<Step> {
    match step.into_inner() {
        None => ask_name(),
        Some(_) => Reply::text("resumed"),
    }
}

/// Asks, but resumes from nothing: no signer needed.
#[tool]
async fn only_asks() -> Reply<()> {
    Reply::ask(
        "name",
        mcp_runtime::schema::InputRequest::elicit_url("Sign in.", "https://example.com/login"),
    )
}

#[test]
fn a_handler_that_resumes_needs_a_signer_at_build() {
    let Err(error) = Server::builder("no-signer", "1")
        .tool(resumes {})
        .tool(only_asks {})
        .build()
    else {
        panic!("a `Resume<S>` handler without a signer must not build")
    };
    assert_eq!(
        error.to_string(),
        "the server cannot be built:\n  - Tool \"resumes\" takes a `Resume<S>` state, which the \
         server signs, but the server has no request-state signer; add \
         `.request_state_signer(RequestStateSigner::generate()?)` \
         (`ServerBuilder::request_state_signer`) before `.build()`."
    );

    // With a signer it builds; a handler that only asks never needed one.
    Server::builder("signer", "1")
        .tool(resumes {})
        .request_state_signer(RequestStateSigner::new(SECRET).unwrap())
        .build()
        .expect("builds with a signer");
    Server::builder("asks", "1")
        .tool(only_asks {})
        .build()
        .expect("a handler without `Resume<S>` needs no signer");
}

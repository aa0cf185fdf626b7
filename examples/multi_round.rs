//! A handler that asks more than one question, written with the macros.
//!
//! `greet` asks for the user's name, then for a favourite colour (a choice
//! field from an `ElicitChoice` enum), then answers using both. The client
//! resends only the newest round's answers, so the name learnt in round one
//! travels in the typed resume state (`Step::AskedColour { name }`), signed
//! by the server and bound to the call. The `greeting` prompt runs the same
//! flow. A scripted client, in the same process but over real HTTP on
//! 127.0.0.1, plays the user, and every message is printed as it travels.
//!
//! ```text
//! cargo run --example multi_round
//! ```

use mcp_runtime::prelude::*;
use mcp_runtime::schema::{GetPromptResult, PromptMessage};
use mcp_runtime::state::RequestStateSigner;
use mcp_runtime::transport::http::HttpTransport;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The first question.
#[derive(ElicitForm)]
struct NameForm {
    /// Your name.
    #[elicit(min_length = 1, max_length = 40)]
    name: String,
}

/// The options of the second question; `rename_all` sets the wire values.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ElicitChoice)]
#[serde(rename_all = "lowercase")]
enum Colour {
    Red,
    Green,
    Blue,
}

/// The second question: a single-select field.
#[derive(ElicitForm)]
struct ColourForm {
    /// Your favourite colour.
    colour: Colour,
}

/// Where the conversation stands between rounds. It travels in
/// `requestState`, signed (not encrypted), so it carries what the handler
/// learnt, never a secret.
#[derive(Serialize, Deserialize)]
enum Step {
    AskedName,
    AskedColour { name: String },
}

fn ask_name<T>() -> Reply<Step, T> {
    Reply::ask("name", NameForm::form("What is your name?")).resume(Step::AskedName)
}

fn ask_colour<T>(name: String) -> Reply<Step, T> {
    Reply::ask(
        "colour",
        ColourForm::form(format!("Nice to meet you, {name}. Pick a colour.")),
    )
    .resume(Step::AskedColour { name })
}

/// One flow for the tool and the prompt; `done` wraps the final text in the
/// method's result type.
fn converse<T>(step: Resume<Step>, ctx: &Ctx, done: impl Fn(String) -> T) -> Reply<Step, T> {
    match step.into_inner() {
        // A first call: nothing is known yet.
        None => ask_name(),
        Some(Step::AskedName) => match ctx.answer::<NameForm>("name") {
            Answer::Accept(NameForm { name }) => ask_colour(name),
            Answer::Decline | Answer::Cancel => Reply::done(done("Maybe next time.".into())),
            // No answer, or one that breaks the form's rules: ask again.
            Answer::Missing | Answer::Invalid(_) => ask_name(),
        },
        Some(Step::AskedColour { name }) => match ctx.answer::<ColourForm>("colour") {
            Answer::Accept(ColourForm { colour }) => {
                Reply::done(done(format!("Hello {name}! {colour:?} is a fine colour.")))
            }
            Answer::Decline | Answer::Cancel => Reply::done(done(format!("Goodbye, {name}."))),
            Answer::Missing | Answer::Invalid(_) => ask_colour(name),
        },
    }
}

/// Greets the user by name and favourite colour, asking for both.
#[tool(read_only)]
async fn greet(ctx: Ctx, step: Resume<Step>) -> Reply<Step> {
    converse(step, &ctx, CallToolResult::text)
}

/// A greeting message, written after asking for a name and a colour.
#[prompt]
async fn greeting(ctx: Ctx, step: Resume<Step>) -> Reply<Step, GetPromptResult> {
    converse(step, &ctx, |text| {
        GetPromptResult::new(vec![PromptMessage::user(text)])
    })
}

/// A scripted MCP client speaking raw JSON over HTTP.
struct Client {
    http: reqwest::Client,
    url: String,
    next_id: i64,
}

impl Client {
    async fn send(&mut self, method: &str, params: Value) -> Result<Value, reqwest::Error> {
        self.next_id += 1;
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } },
            "io.modelcontextprotocol/clientInfo": { "name": "scripted-client", "version": "1.0.0" }
        });
        let name = params["name"].as_str().unwrap_or_default().to_owned();
        let request =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        println!("\nclient -> {request}");
        let response: Value = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .header("mcp-name", name)
            .body(request.to_string())
            .send()
            .await?
            .json()
            .await?;
        println!("server -> {response}");
        Ok(response)
    }
}

/// The `requestState` of an `input_required` response.
fn state_of(response: &Value) -> Result<String, String> {
    response["result"]["requestState"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("expected an input_required result, got {response}"))
}

fn accept(key: &str, content: Value) -> Value {
    json!({ key: { "action": "accept", "content": content } })
}

/// Plays the whole conversation against `method` (`tools/call` or
/// `prompts/get`) and returns the final response.
async fn conversation(
    client: &mut Client,
    method: &str,
    name: &str,
) -> Result<Value, Box<dyn std::error::Error>> {
    println!("\n-- a. The first call: the server asks for a name.");
    let first = client.send(method, json!({"name": name})).await?;
    let state = state_of(&first)?;

    println!(
        "\n-- b. The client answers; the server asks for a colour, the name now in its state."
    );
    let second = client
        .send(
            method,
            json!({"name": name, "requestState": state,
                   "inputResponses": accept("name", json!({"name": "Ada"}))}),
        )
        .await?;
    let state = state_of(&second)?;

    println!("\n-- c. A colour that is not one of the options is refused: the form comes back.");
    let third = client
        .send(
            method,
            json!({"name": name, "requestState": state,
                   "inputResponses": accept("colour", json!({"colour": "purple"}))}),
        )
        .await?;
    let state = state_of(&third)?;

    println!("\n-- d. Only the newest answer travels; the server still knows the name.");
    let done = client
        .send(
            method,
            json!({"name": name, "requestState": state,
                   "inputResponses": accept("colour", json!({"colour": "green"}))}),
        )
        .await?;
    Ok(done)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The reason a state is refused goes to the server's log, never to the client.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let server = Server::builder("greeter", "1.0.0")
        .tool(greet {})
        .prompt(greeting {})
        .request_state_signer(RequestStateSigner::generate()?)
        .build()?;
    let bound = HttpTransport::new(server).bind("127.0.0.1:0").await?;
    let mut client = Client {
        http: reqwest::Client::new(),
        url: bound.url(),
        next_id: 0,
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(bound.serve_until(async {
        let _ = stopped.await;
    }));

    println!("== 1. A tool that asks two questions in turn.");
    let done = conversation(&mut client, "tools/call", "greet").await?;
    let tool_text = done["result"]["content"][0]["text"].clone();
    println!("   result: {tool_text}");

    println!("\n== 2. The same flow on a prompt.");
    let done = conversation(&mut client, "prompts/get", "greeting").await?;
    let prompt_text = done["result"]["messages"][0]["content"]["text"].clone();
    println!("   result: {prompt_text}");

    let _ = stop.send(());
    serving.await??;

    let expected = "Hello Ada! Green is a fine colour.";
    if tool_text != expected || prompt_text != expected {
        return Err(format!("expected {expected:?}, got {tool_text} and {prompt_text}").into());
    }
    Ok(())
}

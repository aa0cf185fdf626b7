//! Typed arguments and per-call answer handlers of `mcp_runtime::client`:
//! against the real server of this crate over HTTP on 127.0.0.1, and
//! against a tiny stdio server in Python.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::{Asked, Client, ClientBuilder, ClientError, Direction, InputResponse};
use mcp_runtime::prelude::*;
use mcp_runtime::schema::GetPromptResult;
use mcp_runtime::state::RequestStateSigner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod support;

use support::client::{python_script, text_of};
use support::handlers::{NameForm, Step, SummariseArgs, ask_name, summarise};
use support::http::{Running, serve};

// --- The real server ----------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DeployArgs {
    /// Where to deploy.
    target: String,
    /// How many replicas to run.
    replicas: Option<u32>,
    /// Labels to attach.
    labels: Vec<String>,
    /// Only print what would happen.
    dry_run: bool,
    /// Limits, by resource.
    limits: BTreeMap<String, f64>,
}

/// Deploys; answers with the arguments exactly as they arrived.
#[tool]
async fn deploy(args: DeployArgs) -> Json<DeployArgs> {
    Json(args)
}

support::handlers::greeting_handlers!(Red, Green);

/// Never satisfied: asks for a name on every round.
#[tool]
async fn insatiable(_step: Resume<Step>) -> Reply<Step> {
    ask_name()
}

fn server() -> Server {
    Server::builder("client-calls-tests", "1.0.0")
        .tool(deploy {})
        .tool(greet {})
        .tool(insatiable {})
        .prompt(summarise {})
        .prompt(greeting {})
        .resource(greeting_card {})
        .request_state_signer(
            RequestStateSigner::new(*b"client-calls-secret-32-bytes-ok!").unwrap(),
        )
        .build()
        .unwrap()
}

/// The server, running, and a client of it as `configure` builds it.
async fn connect_with(configure: impl FnOnce(ClientBuilder) -> ClientBuilder) -> (Running, Client) {
    let running = serve(server()).await;
    let client = configure(Client::http(&running.url))
        .connect()
        .await
        .unwrap();
    (running, client)
}

/// The server, running, and a client of it with no handler of its own.
async fn connect() -> (Running, Client) {
    connect_with(|client| client).await
}

fn prompt_text(result: &GetPromptResult) -> Value {
    serde_json::to_value(&result.messages[0]).unwrap()["content"]["text"].clone()
}

/// A per-call handler answering the name form with `name` and the colour
/// form with `colour`, told apart by their fields.
fn answer_with(name: &str, colour: Colour) -> impl Fn(Asked) -> InputResponseFuture + use<> {
    let name = name.to_owned();
    move |asked: Asked| {
        let response = if asked.is_form_of::<NameForm>() {
            InputResponse::form(&NameForm { name: name.clone() })
        } else if asked.is_form_of::<ColourForm>() {
            InputResponse::form(&ColourForm { colour })
        } else {
            InputResponse::Defer
        };
        std::future::ready(response)
    }
}

type InputResponseFuture = std::future::Ready<InputResponse>;

// --- Typed arguments -------------------------------------------------------------

#[tokio::test]
async fn typed_arguments_reach_the_tool_as_sent() {
    let (_running, client) = connect().await;
    let args = DeployArgs {
        target: "prod \u{e9}u-west".into(),
        replicas: Some(3),
        labels: vec!["blue".into(), "canary".into()],
        dry_run: true,
        limits: [("cpu".to_owned(), 1.5), ("memory".to_owned(), 512.0)].into(),
    };
    let result = client.call_tool_with("deploy", &args).await.unwrap();
    let arrived: DeployArgs =
        serde_json::from_value(result.structured_content.clone().unwrap()).unwrap();
    assert_eq!(arrived, args);
    assert_eq!(
        result.structured_content.unwrap()["dryRun"],
        true,
        "serde attributes apply"
    );

    // The builder form sends the same thing.
    let again = client.tool_call("deploy").arguments(&args).await.unwrap();
    let arrived: DeployArgs = serde_json::from_value(again.structured_content.unwrap()).unwrap();
    assert_eq!(arrived, args);

    // A map works as well as a struct.
    let map = json!({"target": "staging", "labels": [], "dryRun": false, "limits": {}});
    let result = client.call_tool_with("deploy", &map).await.unwrap();
    assert_eq!(result.structured_content.unwrap()["target"], "staging");
}

#[tokio::test]
async fn typed_prompt_arguments_reach_the_prompt() {
    let (_running, client) = connect().await;
    let prompt = client
        .get_prompt_with(
            "summarise",
            &SummariseArgs {
                topic: "rust".into(),
                length: Some("50".into()),
            },
        )
        .await
        .unwrap();
    assert_eq!(prompt_text(&prompt), "Summarise rust in 50 words.");

    /// Without `skip_serializing_if`: the `None` serialises to `null`,
    /// which the client leaves out.
    #[derive(Serialize)]
    struct Nullable {
        topic: &'static str,
        length: Option<&'static str>,
    }
    let prompt = client
        .get_prompt_with(
            "summarise",
            &Nullable {
                topic: "tea",
                length: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(prompt_text(&prompt), "Summarise tea in 100 words.");
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize)]
struct Newtype(String);

#[derive(Serialize)]
struct Pair(u32, u32);

#[tokio::test]
async fn arguments_that_are_not_an_object_are_an_error() {
    let (_running, client) = connect().await;
    let cases: Vec<(ClientError, &str)> = vec![
        (
            client.call_tool_with("deploy", &Unit).await.unwrap_err(),
            "null",
        ),
        (
            client
                .call_tool_with("deploy", &Newtype("prod".into()))
                .await
                .unwrap_err(),
            "a string",
        ),
        (
            client
                .call_tool_with("deploy", &Pair(1, 2))
                .await
                .unwrap_err(),
            "an array",
        ),
        (
            client.call_tool_with("deploy", &42).await.unwrap_err(),
            "a number",
        ),
    ];
    for (error, kind) in cases {
        assert_eq!(
            error,
            ClientError::InvalidArguments(format!(
                "they must serialise to a JSON object, not {kind}"
            ))
        );
        assert_eq!(
            error.to_string(),
            format!("invalid arguments: they must serialise to a JSON object, not {kind}")
        );
    }

    #[derive(Serialize)]
    struct NotStrings {
        topic: &'static str,
        length: u32,
    }
    let error = client
        .get_prompt_with(
            "summarise",
            &NotStrings {
                topic: "rust",
                length: 50,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ClientError::InvalidArguments(
            "prompt arguments are strings, but \"length\" is a number".into()
        )
    );
}

#[tokio::test]
async fn invalid_arguments_send_nothing() {
    // Every message the client sends is counted.
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&sent);
    let (_running, client) = connect_with(|client| {
        client.on_message(move |direction, _| {
            if direction == Direction::Sent {
                counter.fetch_add(1, Ordering::SeqCst);
            }
        })
    })
    .await;
    let before = sent.load(Ordering::SeqCst);
    let error = client
        .call_tool_with("deploy", &["not", "an", "object"])
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::InvalidArguments(_)), "{error}");
    assert_eq!(sent.load(Ordering::SeqCst), before, "nothing was sent");
    // Valid arguments are sent (and the unknown tool refused by the server).
    let refused = client
        .call_tool_with("deploy", &json!({"target": "x"}))
        .await
        .unwrap_err();
    assert!(matches!(refused, ClientError::Protocol(_)), "{refused}");
    assert_eq!(sent.load(Ordering::SeqCst), before + 1);
}

// --- Per-call handlers -----------------------------------------------------------

#[tokio::test]
async fn a_per_call_handler_answers_a_two_round_tool() {
    // No handler on the client: the call declares elicitation on its own.
    let (_running, client) = connect().await;
    assert!(!client.capabilities().supports_elicitation_form());

    // The handler borrows `log`, which outlives the call but is not 'static.
    let log = Mutex::new(Vec::new());
    let result = client
        .tool_call("greet")
        .answering(|asked| {
            log.lock().unwrap().push(asked.key.clone());
            let answer = answer_with("Bob", Colour::Red);
            answer(asked)
        })
        .await
        .unwrap();
    assert_eq!(text_of(&result), "Hello Bob, lover of Red!");
    assert_eq!(*log.lock().unwrap(), ["name", "colour"]);

    // Prompts and resources take per-call handlers too.
    let prompt = client
        .prompt_get("greeting")
        .answering(answer_with("Cy", Colour::Green))
        .await
        .unwrap();
    assert_eq!(prompt_text(&prompt), "Hello Cy, lover of Green!");
    let card = client
        .resource_read("test://greeting-card")
        .answering(answer_with("Di", Colour::Red))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&card.contents[0]).unwrap()["text"],
        "Hello Di, lover of Red!"
    );

    // The handler belonged to those calls only: a plain call cannot answer.
    let error = client.call_tool("greet", None).await.unwrap_err();
    assert!(matches!(error, ClientError::Protocol(_)), "{error:?}");
}

#[tokio::test]
async fn a_per_call_decline_is_sent_as_a_decline() {
    let (_running, client) = connect().await;
    let result = client
        .tool_call("greet")
        .answering(|_| async { InputResponse::decline() })
        .await
        .unwrap();
    assert_eq!(text_of(&result), "No name, no greeting.");
}

#[tokio::test]
async fn concurrent_calls_get_their_own_answers() {
    let (_running, client) = connect().await;
    let client = Arc::new(client);
    // Both calls must be asked their name before either answers: run one
    // after the other, they would wait here forever.
    let both_asked = Arc::new(tokio::sync::Barrier::new(2));
    let call = |name: &'static str, colour: Colour| {
        let client = Arc::clone(&client);
        let both_asked = Arc::clone(&both_asked);
        tokio::spawn(async move {
            client
                .tool_call("greet")
                .answering(move |asked| {
                    let both_asked = Arc::clone(&both_asked);
                    let answer = answer_with(name, colour);
                    async move {
                        if asked.key == "name" {
                            both_asked.wait().await;
                        }
                        answer(asked).await
                    }
                })
                .await
        })
    };
    let (ada, bob) = tokio::time::timeout(Duration::from_secs(20), async {
        tokio::join!(call("Ada", Colour::Green), call("Bob", Colour::Red))
    })
    .await
    .expect("the two calls ran concurrently");
    assert_eq!(
        text_of(&ada.unwrap().unwrap()),
        "Hello Ada, lover of Green!"
    );
    assert_eq!(text_of(&bob.unwrap().unwrap()), "Hello Bob, lover of Red!");
}

#[tokio::test]
async fn the_per_call_handler_comes_before_the_clients() {
    let client_asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&client_asked);
    let (_running, client) = connect_with(|client| {
        client.on_elicit_form(move |params| {
            seen.lock().unwrap().push(params.message.clone());
            answer_ada_green(params)
        })
    })
    .await;

    // The per-call handler answers both forms: the client's is never asked.
    let result = client
        .tool_call("greet")
        .answering(answer_with("Bob", Colour::Red))
        .await
        .unwrap();
    assert_eq!(text_of(&result), "Hello Bob, lover of Red!");
    assert!(client_asked.lock().unwrap().is_empty());

    // It answers the name and defers the colour to the client's handler.
    let result = client
        .tool_call("greet")
        .answering(|asked| async move {
            if asked.is_form_of::<NameForm>() {
                InputResponse::form(&NameForm { name: "Bob".into() })
            } else {
                InputResponse::Defer
            }
        })
        .await
        .unwrap();
    assert_eq!(text_of(&result), "Hello Bob, lover of Green!");
    assert_eq!(*client_asked.lock().unwrap(), ["Bob, pick a colour."]);

    // Without a per-call handler, the client's answers everything.
    let result = client.call_tool("greet", None).await.unwrap();
    assert_eq!(text_of(&result), "Hello Ada, lover of Green!");
}

#[tokio::test]
async fn deferring_without_a_client_handler_is_a_missing_handler_error() {
    let (_running, client) = connect().await;
    let error = client
        .tool_call("greet")
        .answering(|_| async { InputResponse::Defer })
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ClientError::MissingHandler {
            key: "name".into(),
            kind: "elicitation/create (form)".into()
        }
    );
}

#[tokio::test]
async fn a_per_call_failure_ends_the_call_with_its_error() {
    let (_running, client) = connect_with(|client| client.on_elicit_form(answer_ada_green)).await;
    let error = client
        .tool_call("greet")
        .answering(|_| async { InputResponse::Fail(ClientError::Transport("no user".into())) })
        .await
        .unwrap_err();
    assert_eq!(error, ClientError::Transport("no user".into()));
}

#[tokio::test]
async fn per_call_rounds_are_bounded() {
    let (_running, client) = connect_with(|client| client.max_rounds(2)).await;
    let asked = AtomicUsize::new(0);
    let error = client
        .tool_call("insatiable")
        .answering(|_| {
            asked.fetch_add(1, Ordering::SeqCst);
            async { InputResponse::form(&NameForm { name: "Ada".into() }) }
        })
        .await
        .unwrap_err();
    assert_eq!(error, ClientError::RoundsExceeded { max_rounds: 2 });
    assert_eq!(asked.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn typed_arguments_and_a_per_call_handler_together() {
    let (_running, client) = connect().await;
    let args = DeployArgs {
        target: "prod".into(),
        replicas: None,
        labels: vec![],
        dry_run: false,
        limits: BTreeMap::new(),
    };
    // A tool that asks nothing never calls the handler.
    let result = client
        .call_tool_with("deploy", &args)
        .answering(|_| async { InputResponse::Fail(ClientError::Transport("asked".into())) })
        .await
        .unwrap();
    let arrived: DeployArgs = serde_json::from_value(result.structured_content.unwrap()).unwrap();
    assert_eq!(arrived, args);
}

// --- stdio ------------------------------------------------------------------------

/// Asks a name once, then answers with the arguments and the capabilities
/// it received.
const PY_SERVER: &str = r#"
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    req = json.loads(line)
    rid, p = req["id"], req["params"]
    if req["method"] == "server/discover":
        send({"jsonrpc": "2.0", "id": rid, "result": {"resultType": "complete",
            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "ttlMs": 0, "cacheScope": "private"}}); continue
    caps = p["_meta"].get("io.modelcontextprotocol/clientCapabilities")
    if "requestState" not in p:
        send({"jsonrpc": "2.0", "id": rid, "result": {"resultType": "input_required",
            "inputRequests": {"who": {"method": "elicitation/create", "params": {"message": "name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}},
            "requestState": "s1"}})
    elif p["requestState"] != "s1" or sorted(p.get("inputResponses", {})) != ["who"]:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "bad retry"}})
    else:
        name = p["inputResponses"]["who"]["content"]["name"]
        send({"jsonrpc": "2.0", "id": rid, "result": {"resultType": "complete",
            "content": [{"type": "text", "text": "hi " + name}],
            "structuredContent": {"arguments": p.get("arguments"), "capabilities": caps}}})
"#;

#[tokio::test]
async fn stdio_typed_arguments_and_a_per_call_handler() {
    let script = python_script("mcp-client-calls-test", PY_SERVER);
    let client = Client::stdio("python3", [script]).connect().await.unwrap();
    let args = DeployArgs {
        target: "edge".into(),
        replicas: Some(2),
        labels: vec!["a".into()],
        dry_run: true,
        limits: [("cpu".to_owned(), 0.5)].into(),
    };
    let result = client
        .call_tool_with("deploy", &args)
        .answering(answer_with("Eve", Colour::Red))
        .await
        .unwrap();
    assert_eq!(text_of(&result), "hi Eve");
    let echoed = result.structured_content.unwrap();
    assert_eq!(echoed["arguments"], serde_json::to_value(&args).unwrap());
    assert_eq!(
        echoed["capabilities"],
        json!({"elicitation": {"form": {}, "url": {}}}),
        "a call with a per-call handler declares both elicitation modes"
    );
}

//! The rules the macros check at compile time hold for handlers written by
//! hand too: `ServerBuilder::build` refuses a tool or prompt without a
//! description, a required scope that is not one token and a fixed
//! resource URI with `{`; and a form whose bounds no answer can meet is
//! never sent, neither as an `InputRequiredResult` nor through the bridge
//! to a 2025-era client.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use mcp_runtime::BoxFuture;
use mcp_runtime::form::{FieldOptions, FormSchema};
use mcp_runtime::schema::{
    CallToolResult, GetPromptResult, InputRequest, McpError, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};
use mcp_runtime::server::Server;
use mcp_runtime::server::handler::{
    Ask, Ctx, Outcome, PromptHandler, ResourceHandler, ResourceTemplateHandler, ToolArguments,
    ToolHandler,
};
use mcp_runtime::transport::http::HttpTransport;
use mcp_runtime::transport::{Incoming, Notifier, ReceiveContext, TransportKind, parse_message};
use serde_json::{Value, json};

mod support;

use support::http::{form_client_meta, start};
use support::legacy::LegacyClient;

/// A tool with the description and scopes it is given, asking `form` when
/// there is one.
struct HandTool {
    name: &'static str,
    description: Option<&'static str>,
    scopes: &'static [&'static str],
    form: Option<fn() -> InputRequest>,
}

impl HandTool {
    fn fine(name: &'static str) -> Self {
        Self {
            name,
            description: Some("A tool written by hand."),
            scopes: &[],
            form: None,
        }
    }
}

impl ToolHandler for HandTool {
    fn descriptor(&self) -> Tool {
        let mut tool = Tool::new(self.name, "");
        tool.description = self.description.map(str::to_owned);
        tool
    }

    fn call(
        &self,
        _: ToolArguments,
        _: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async move {
            Ok(match self.form {
                Some(form) => Outcome::InputRequired(Ask::new("seats", form())),
                None => Outcome::Complete(CallToolResult::text("done")),
            })
        })
    }

    fn required_scopes(&self) -> &[&'static str] {
        self.scopes
    }
}

struct HandPrompt(Option<&'static str>);

impl PromptHandler for HandPrompt {
    fn descriptor(&self) -> Prompt {
        let mut prompt = Prompt::new("review", "");
        prompt.description = self.0.map(str::to_owned);
        prompt
    }

    fn get(
        &self,
        _: BTreeMap<String, String>,
        _: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<GetPromptResult>, McpError>> {
        Box::pin(async { Err(McpError::internal("not called")) })
    }
}

struct HandResource(&'static str, &'static [&'static str]);

impl ResourceHandler for HandResource {
    fn descriptor(&self) -> Resource {
        Resource::new(self.0, "a resource")
    }

    fn read(&self, _: Ctx) -> BoxFuture<'_, Result<Outcome<ReadResourceResult>, McpError>> {
        Box::pin(async { Err(McpError::internal("not called")) })
    }

    fn required_scopes(&self) -> &[&'static str] {
        self.1
    }
}

struct HandTemplate(&'static [&'static str]);

impl ResourceTemplateHandler for HandTemplate {
    fn descriptor(&self) -> ResourceTemplate {
        ResourceTemplate::new("test://items/{id}", "an item")
    }

    fn read(
        &self,
        _: String,
        _: BTreeMap<String, String>,
        _: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<ReadResourceResult>, McpError>> {
        Box::pin(async { Err(McpError::internal("not called")) })
    }

    fn required_scopes(&self) -> &[&'static str] {
        self.0
    }
}

#[test]
fn hand_written_handlers_that_follow_the_rules_build() {
    let built = Server::builder("rules", "1")
        .tool(HandTool {
            scopes: &["deploy:write", "https://api.example/deploy"],
            ..HandTool::fine("deploy")
        })
        .prompt(HandPrompt(Some("Reviews code.")))
        .resource(HandResource("test://items/all", &["items:read"]))
        .resource_template(HandTemplate(&["items:read"]))
        .build();
    assert!(built.is_ok(), "{:?}", built.err());
}

#[test]
fn build_refuses_what_the_macros_refuse_at_compile_time() {
    let error = Server::builder("rules", "1")
        .tool(HandTool {
            description: None,
            ..HandTool::fine("undescribed")
        })
        .tool(HandTool {
            description: Some("  "),
            scopes: &["deploy write", "", "ok"],
            ..HandTool::fine("blank")
        })
        .prompt(HandPrompt(None))
        .resource(HandResource("test://items/{id}", &["caf\u{e9}"]))
        .resource_template(HandTemplate(&["a\\b"]))
        .build()
        .unwrap_err();
    let problems = error.problems();
    let expected = [
        "tool \"undescribed\" has no description (",
        "tool \"blank\" has an empty description (",
        "tool \"blank\" requires the scope \"deploy write\", which is not one scope",
        "tool \"blank\" requires the scope \"\", which is not one scope",
        "prompt \"review\" has no description (",
        "resource \"test://items/{id}\": a fixed resource URI holds no `{`",
        "resource \"test://items/{id}\" requires the scope \"caf\u{e9}\"",
        "resource template \"test://items/{id}\" requires the scope \"a\\\\b\"",
    ];
    assert_eq!(problems.len(), expected.len(), "{problems:#?}");
    for start in expected {
        assert!(
            problems.iter().any(|p| p.starts_with(start)),
            "no problem starts with {start:?}: {problems:#?}"
        );
    }
    // Each says how to fix it.
    for problem in problems {
        assert!(
            problem.contains("descriptor()")
                || problem.contains("required_scopes()")
                || problem.contains("resource_template"),
            "{problem}"
        );
    }
}

/// A form asking for at least 5 and at most 1 seats.
fn contradictory_form() -> InputRequest {
    let schema = FormSchema::new()
        .field::<u8>(
            "seats",
            FieldOptions {
                minimum: Some(5.0),
                maximum: Some(1.0),
                ..FieldOptions::EMPTY
            },
        )
        .build();
    InputRequest::elicit_form("How many seats?", schema)
}

/// The same form with bounds an answer can meet.
fn sound_form() -> InputRequest {
    let schema = FormSchema::new()
        .field::<u8>(
            "seats",
            FieldOptions {
                minimum: Some(1.0),
                maximum: Some(5.0),
                ..FieldOptions::EMPTY
            },
        )
        .build();
    InputRequest::elicit_form("How many seats?", schema)
}

fn form_server() -> Server {
    Server::builder("forms", "1")
        .tool(HandTool {
            form: Some(contradictory_form),
            ..HandTool::fine("contradictory")
        })
        .tool(HandTool {
            form: Some(sound_form),
            ..HandTool::fine("sound")
        })
        .build()
        .unwrap()
}

async fn call_in_process(server: &Server, tool: &str) -> Value {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "_meta": form_client_meta()}
    });
    let Ok(Incoming::Request(request)) = parse_message(body.to_string().as_bytes()) else {
        panic!("not a request")
    };
    let response = server
        .handle_request(
            request,
            ReceiveContext::new(TransportKind::InProcess),
            Notifier::disabled(),
        )
        .await;
    serde_json::from_str(&response.to_json()).unwrap()
}

#[tokio::test]
async fn a_form_no_answer_can_fill_in_is_not_sent() {
    let server = form_server();
    let sound = call_in_process(&server, "sound").await;
    assert_eq!(sound["result"]["resultType"], "input_required", "{sound}");
    assert_eq!(
        sound["result"]["inputRequests"]["seats"]["params"]["requestedSchema"]["properties"]["seats"]
            ["maximum"],
        5,
        "{sound}"
    );

    let refused = call_in_process(&server, "contradictory").await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(refused.get("result").is_none(), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bridge_does_not_ask_a_2025_era_client_either() {
    let running = start(HttpTransport::new(form_server())).await;
    let capabilities = json!({"elicitation": {}});
    let (client, _) = LegacyClient::initialize(&running.url, "2025-11-25", capabilities).await;
    // `request` fails the test if the server sends `elicitation/create`.
    let exchange = client
        .request(1, "tools/call", json!({"name": "contradictory"}))
        .await;
    assert_eq!(exchange.response["error"]["code"], -32603, "{exchange:?}");
    assert!(exchange.messages.is_empty(), "{exchange:?}");
}

//! `tools/call` params with arbitrary `inputResponses` and `requestState`
//! (and arbitrary whole messages) go through the real dispatch path of a
//! server with a signer and a replay guard, as 2026-07-28 requests and as
//! messages of a 2025-era session: an answer, never a panic.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcp_runtime::BoxFuture;
use mcp_runtime::schema::{
    CallToolResult, ElicitRequestFormParams, ElicitRequestParams, ElicitRequestedSchema,
    InputRequest, McpError, Tool,
};
use mcp_runtime::server::Server;
use mcp_runtime::server::handler::{Ask, Ctx, Outcome, ToolArguments, ToolHandler};
use mcp_runtime::server::legacy::Session;
use mcp_runtime::state::{InMemoryReplayGuard, RequestStateSigner};
use mcp_runtime::transport::{Incoming, Notifier, ReceiveContext, TransportKind, parse_message};
use serde_json::{Value, json};

struct Confirm;

impl ToolHandler for Confirm {
    fn descriptor(&self) -> Tool {
        Tool::new("confirm", "Asks for a confirmation.")
    }

    fn call(
        &self,
        _: ToolArguments,
        ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async move {
            if ctx.state::<String>()?.is_some() && ctx.input_response("ok").is_some() {
                return Ok(Outcome::Complete(CallToolResult::text("done")));
            }
            let form = ElicitRequestFormParams {
                mode: None,
                message: "Sure?".into(),
                requested_schema: ElicitRequestedSchema::default().into(),
            };
            let ask = Ask::new(
                "ok",
                InputRequest::Elicitation(ElicitRequestParams::Form(form)),
            )
            .resume("asked")?;
            Ok(Outcome::InputRequired(ask))
        })
    }
}

struct Fixture {
    server: Server,
    runtime: tokio::runtime::Runtime,
    /// A 2025-era session of a client that can answer forms.
    session: Session,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let signer = RequestStateSigner::new([9u8; 32]).unwrap_or_else(|e| unreachable!("{e}"));
        let server = Server::builder("fuzz", "0")
            .tool(Confirm)
            .request_state_signer(signer)
            .replay_guard(InMemoryReplayGuard::new())
            .build()
            .unwrap_or_else(|e| unreachable!("{e}"));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap_or_else(|e| unreachable!("{e}"));
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "fuzz", "version": "0"}}});
        let Ok(Incoming::Request(request)) = parse_message(initialize.to_string().as_bytes())
        else {
            unreachable!("initialize parses")
        };
        let opened = runtime.block_on(server.handle_request(
            request,
            ReceiveContext::new(TransportKind::InProcess),
            Notifier::disabled(),
        ));
        let session = opened
            .opened_session()
            .cloned()
            .unwrap_or_else(|| unreachable!("a session"));
        Fixture {
            server,
            runtime,
            session,
        }
    })
}

fn dispatch(fixture: &Fixture, session: Option<&Session>, bytes: &[u8]) {
    match parse_message(bytes) {
        Ok(Incoming::Request(request)) => {
            let receive = ReceiveContext::new(TransportKind::InProcess);
            let server = &fixture.server;
            let response = fixture.runtime.block_on(async {
                match session {
                    Some(session) => {
                        server
                            .handle_session_request(
                                request,
                                receive,
                                session.clone(),
                                Notifier::disabled(),
                            )
                            .await
                    }
                    None => {
                        server
                            .handle_request(request, receive, Notifier::disabled())
                            .await
                    }
                }
            });
            let json = response.to_json();
            assert!(
                serde_json::from_str::<Value>(&json).is_ok(),
                "invalid JSON out: {json}"
            );
        }
        Ok(Incoming::Notification { method, .. }) => {
            if let Some(session) = session {
                fixture.server.handle_notification(&method, session);
            }
        }
        Ok(Incoming::Response(response)) => {
            if let Some(session) = session {
                let _ = session.deliver(response);
            }
        }
        Err(response) => assert!(response.error_value().is_some()),
    }
}

fuzz_target!(|data: &[u8]| {
    let fixture = fixture();
    // As a whole message, of a 2026-07-28 client and of a 2025-era session.
    dispatch(fixture, None, data);
    dispatch(fixture, Some(&fixture.session), data);
    // As the round-trip fields of a well-formed tools/call.
    let split = data.iter().position(|&b| b == 0xFF).unwrap_or(data.len());
    let state = String::from_utf8_lossy(&data[..split]).into_owned();
    let rest = data.get(split + 1..).unwrap_or_default();
    let responses = serde_json::from_slice::<Value>(rest)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(rest).into_owned()));
    let message = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
            },
            "name": "confirm",
            "inputResponses": responses,
            "requestState": state,
        }
    });
    dispatch(fixture, None, message.to_string().as_bytes());
});

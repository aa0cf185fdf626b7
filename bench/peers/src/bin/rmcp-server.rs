//! The official Rust SDK, rmcp 3.x, serving the same two tools as our
//! conformance server over streamable HTTP (2026-07-28, stateless, JSON
//! answers), with rmcp's HMAC request-state codec:
//! - `test_simple_text` returns a fixed text;
//! - `test_input_required_result_request_state` asks for a confirmation
//!   (one form elicitation) and carries a sealed state, bound to the method,
//!   the tool and its arguments and valid for 600 s; the retry opens and
//!   decodes the state and the answer before completing.
//!
//! Configured for speed as a careful user would: one tool router shared by
//! every request, no SSE keep-alive, JSON answers.
//!
//! `rmcp-server --listen 127.0.0.1:PORT`

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcp_bench_peers::{FLOW_KEY, FLOW_MESSAGE, PLAIN_TEXT};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationSchema, InputRequest, InputRequests,
    InputRequiredResult, JsonObject, ProtocolVersion, RequestStateCodec, SealOptions,
    ServerCapabilities, ServerConfig,
};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};

/// How long a sealed state stays valid, as our server's default.
const STATE_TTL: Duration = Duration::from_secs(600);

/// Where a confirmation flow stands.
#[derive(Serialize, Deserialize)]
enum Confirming {
    /// The confirmation was asked for.
    Asked,
}

/// What every request's handler shares (built once, cloned per request).
struct Common {
    codec: RequestStateCodec,
    schema: ElicitationSchema,
}

/// The server: the tool router and the shared parts. The service factory
/// clones it for every request, so both are behind an `Arc`, and the
/// handler uses this router (`#[tool_handler(router = ...)]`): by default
/// the macro would build a new router for every call.
#[derive(Clone)]
struct Peer {
    common: Arc<Common>,
    tool_router: Arc<ToolRouter<Self>>,
}

/// The bytes a state is bound to: the method, the tool and its arguments.
fn binding(tool: &str, arguments: &JsonObject) -> Result<Vec<u8>, ErrorData> {
    let mut bytes = b"tools/call\0".to_vec();
    bytes.extend_from_slice(tool.as_bytes());
    bytes.push(0);
    serde_json::to_writer(&mut bytes, arguments)
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    Ok(bytes)
}

/// The `ok` field of an accepted confirmation; `None` for any other answer.
fn confirmed(responses: Option<&rmcp::model::InputResponses>) -> Option<bool> {
    let raw = responses?.get(FLOW_KEY)?;
    let result = ElicitResult::deserialize(raw).ok()?;
    match result.action {
        ElicitationAction::Accept => result.content?.get("ok")?.as_bool(),
        _ => None,
    }
}

#[tool_router]
impl Peer {
    fn new(common: Arc<Common>) -> Self {
        Self {
            common,
            tool_router: Arc::new(Self::tool_router()),
        }
    }

    /// Returns a fixed text.
    #[tool(name = "test_simple_text", description = "Returns a fixed text.")]
    async fn simple_text(&self) -> String {
        PLAIN_TEXT.to_owned()
    }

    /// Asks for a confirmation carrying a sealed requestState.
    #[tool(
        name = "test_input_required_result_request_state",
        description = "Asks for a confirmation carrying a sealed requestState."
    )]
    async fn request_state(
        &self,
        Parameters(arguments): Parameters<JsonObject>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let bound = binding("test_input_required_result_request_state", &arguments)?;
        if let Some(state) = state {
            let step: Confirming = self
                .common
                .codec
                .open_json_with(&state, &bound)
                .map_err(|_| ErrorData::invalid_params("invalid requestState", None))?;
            if let (Confirming::Asked, Some(ok)) = (step, confirmed(responses.as_ref())) {
                let text = format!("state-ok: the requestState verified; ok = {ok}.");
                return Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into());
            }
        }
        let sealed = self
            .common
            .codec
            .seal_json_with(
                &Confirming::Asked,
                &SealOptions::new().associated_data(&bound).ttl(STATE_TTL),
            )
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let mut requests = InputRequests::new();
        requests.insert(
            FLOW_KEY.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(
                ElicitRequestParams::FormElicitationParams {
                    meta: None,
                    message: FLOW_MESSAGE.to_owned(),
                    requested_schema: self.common.schema.clone(),
                },
            )),
        );
        Ok(InputRequiredResult::new(Some(requests), Some(sealed)).into())
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}

fn common() -> Result<Common, String> {
    let schema = serde_json::from_value(serde_json::json!({
        "type": "object",
        "properties": {"ok": {"type": "boolean", "description": "Confirm?"}},
        "required": ["ok"]
    }))
    .map_err(|e| format!("schema: {e}"))?;
    // A fixed key: the benchmark only needs the codec's cost.
    let codec =
        RequestStateCodec::try_new([1u8; 32].to_vec()).map_err(|e| format!("codec: {e}"))?;
    Ok(Common { codec, schema })
}

#[tokio::main]
async fn main() -> ExitCode {
    let (addr, common) = match mcp_bench_peers::listen_addr("rmcp-server").and_then(|addr| {
        let common = common()?;
        Ok((addr, Arc::new(common)))
    }) {
        Ok(parts) => parts,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_stateless_protocol_metadata_required(true);
    let peer = Peer::new(common);
    let service = StreamableHttpService::new(
        move || Ok(peer.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let app = axum::Router::new().route_service("/mcp", service);
    mcp_bench_peers::serve("rmcp-server", addr, app).await
}

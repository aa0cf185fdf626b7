//! The practical limit: a bare axum handler that parses the JSON body and
//! returns a fixed result. The first call of the flow tool (no
//! `requestState`) gets a fixed `input_required` result; every other call
//! gets a fixed text result. Nothing is validated beyond the JSON parse.
//!
//! `limit-server --listen 127.0.0.1:PORT`

use std::process::ExitCode;

use axum::Router;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use mcp_bench_peers::{FLOW_KEY, FLOW_MESSAGE, FLOW_TOOL, PLAIN_TEXT};
use serde_json::{Value, json};

/// The fixed `requestState` of the first round.
const STATE: &str = "fixed-request-state";

async fn mcp(body: Bytes) -> axum::response::Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "not JSON").into_response();
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let params = request.get("params");
    let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
    let first_round = params.and_then(|p| p.get("requestState")).is_none();
    let result = if name == Some(FLOW_TOOL) && first_round {
        json!({
            "resultType": "input_required",
            "inputRequests": {FLOW_KEY: {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": FLOW_MESSAGE,
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"ok": {"type": "boolean", "description": "Confirm?"}},
                        "required": ["ok"]
                    }
                }
            }},
            "requestState": STATE
        })
    } else {
        json!({"resultType": "complete", "content": [{"type": "text", "text": PLAIN_TEXT}]})
    };
    let response = json!({"jsonrpc": "2.0", "id": id, "result": result});
    ([(CONTENT_TYPE, "application/json")], response.to_string()).into_response()
}

#[tokio::main]
async fn main() -> ExitCode {
    let addr = match mcp_bench_peers::listen_addr("limit-server") {
        Ok(addr) => addr,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let app = Router::new().route("/mcp", axum::routing::post(mcp));
    mcp_bench_peers::serve("limit-server", addr, app).await
}

//! What the peer servers share: the command line (`--listen ADDR`, loopback
//! only), the announcement the benchmark script waits for, and the texts
//! of the two tools, the same as our conformance fixtures'.

use std::net::SocketAddr;

/// The plain tool's name and answer (as the `test_simple_text` fixture).
pub const PLAIN_TOOL: &str = "test_simple_text";
/// What the plain tool answers.
pub const PLAIN_TEXT: &str = "This is a simple text response for testing.";
/// The tool with one elicitation round carrying a signed `requestState`
/// (as the `test_input_required_result_request_state` fixture).
pub const FLOW_TOOL: &str = "test_input_required_result_request_state";
/// The key the flow tool asks under.
pub const FLOW_KEY: &str = "confirm";
/// What the flow tool's first round asks.
pub const FLOW_MESSAGE: &str = "Please confirm";

/// The address given with `--listen`, which must be a loopback address.
///
/// # Errors
///
/// A usage message when the arguments are not `--listen ADDR` with a
/// loopback `ADDR` (port 0 picks a free port).
pub fn listen_addr(program: &str) -> Result<SocketAddr, String> {
    let usage = format!("usage: {program} --listen 127.0.0.1:PORT");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [flag, addr] = args.as_slice() else {
        return Err(usage);
    };
    if flag != "--listen" {
        return Err(usage);
    }
    let addr: SocketAddr = addr
        .parse()
        .map_err(|e| format!("--listen {addr:?}: {e}\n{usage}"))?;
    if !addr.ip().is_loopback() {
        return Err(format!(
            "--listen {addr}: only loopback addresses are served"
        ));
    }
    Ok(addr)
}

/// Serves `app` on `addr` until SIGINT or SIGTERM; the exit code tells how
/// it ended (errors go to stderr, prefixed with `program`).
pub async fn serve(program: &str, addr: SocketAddr, app: axum::Router) -> std::process::ExitCode {
    let served = match bind(addr).await {
        Ok(listener) => {
            axum::serve(listener, app)
                .with_graceful_shutdown(shutdown())
                .await
        }
        Err(error) => Err(error),
    };
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{program}: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Binds `addr` and announces `listening on http://ADDR/mcp` on stderr.
///
/// # Errors
///
/// The bind error.
pub async fn bind(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    Ok(listener)
}

/// Completes on SIGINT or SIGTERM.
pub async fn shutdown() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}

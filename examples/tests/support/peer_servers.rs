//! Other SDKs' servers that our client is tested against, each serving the
//! same tool set (`elicit_name`, `sample`, `progress`, `add_tool`, `slow`,
//! `cancelled_count`, `bump` and the resource `test://counter`; see the
//! header of each server's source):
//!
//! - the TypeScript SDK v1 (`tests/interop/typescript-v1/server.mjs`),
//! - the Python SDK 1.x's FastMCP (`tests/interop/python-v1/server.py`),
//! - rmcp 3.11 (`tests/interop/rmcp/`) in the 2025 era and in the
//!   2026-07-28 (stateless) era;
//! - and, for comparison, our own `peer-tools-server`, which serves both
//!   eras on one endpoint.
//!
//! Each is installed (or built) on first use in a test process by its
//! harness's `setup.sh`. Over HTTP a server listens on a free port of
//! 127.0.0.1 and announces `listening on http://127.0.0.1:PORT/mcp` on
//! stdout; over stdio the client spawns it from [`PeerServer::stdio_command`].

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::Duration;

use super::interop::Harness;
use super::process::{repo, set_up};
use super::{STARTUP_TIMEOUT, drain_stderr, kill_child, logs_of};

/// `tests/interop/typescript-v1/`: Node 22 and the SDK, with `server.mjs`
/// next to its `node_modules`.
static TYPESCRIPT_V1: Harness = Harness::npm(
    "typescript-v1",
    "MCP_INTEROP_TYPESCRIPT_V1_DIR",
    &["server.mjs"],
);

/// `tests/interop/python-v1/`: a virtualenv with the SDK.
static PYTHON_V1: Harness = Harness::venv("python-v1");

/// Bound for building `rmcp-interop-server` from cold.
const RMCP_BUILD_LIMIT: Duration = Duration::from_secs(900);

/// The `rmcp-interop-server` binary that `tests/interop/rmcp/setup.sh`
/// built (once per test process).
fn rmcp_server() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let mut command = Command::new("bash");
        command.arg(repo().join("tests/interop/rmcp/setup.sh"));
        set_up(command, RMCP_BUILD_LIMIT)
    })
}

/// A peer SDK's server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerServer {
    /// `@modelcontextprotocol/sdk` 1.32.2 (`McpServer`): the 2025 era.
    TypeScriptV1,
    /// `mcp` 1.30.0 (FastMCP): the 2025 era.
    PythonV1,
    /// rmcp 3.11 with `--era 2025`: `initialize`, sessions, server requests.
    Rmcp2025,
    /// rmcp 3.11 with `--era 2026`: 2026-07-28 only (stateless,
    /// `server/discover`, `InputRequiredResult` rounds).
    Rmcp2026,
    /// This SDK's `peer-tools-server`: both eras on one endpoint.
    Ours,
}

impl PeerServer {
    /// Every other SDK's server.
    pub const ALL: [PeerServer; 4] = [
        PeerServer::TypeScriptV1,
        PeerServer::PythonV1,
        PeerServer::Rmcp2025,
        PeerServer::Rmcp2026,
    ];

    /// A short name for messages.
    pub fn name(&self) -> &'static str {
        match self {
            PeerServer::TypeScriptV1 => "typescript-v1",
            PeerServer::PythonV1 => "python-v1",
            PeerServer::Rmcp2025 => "rmcp-2025",
            PeerServer::Rmcp2026 => "rmcp-2026",
            PeerServer::Ours => "ours",
        }
    }

    /// The program and the arguments before the transport's flags.
    fn base(&self) -> (PathBuf, Vec<String>) {
        let script = |harness: &Harness, file: &str| {
            let installed = harness.installed();
            (
                installed.interpreter.clone(),
                vec![installed.dir.join(file).display().to_string()],
            )
        };
        match self {
            PeerServer::TypeScriptV1 => script(&TYPESCRIPT_V1, "server.mjs"),
            PeerServer::PythonV1 => script(&PYTHON_V1, "server.py"),
            PeerServer::Rmcp2025 => (rmcp_server().clone(), vec!["--era".into(), "2025".into()]),
            PeerServer::Rmcp2026 => (rmcp_server().clone(), vec!["--era".into(), "2026".into()]),
            PeerServer::Ours => (
                PathBuf::from(env!("CARGO_BIN_EXE_peer-tools-server")),
                vec![],
            ),
        }
    }

    /// The command line (program, arguments) that runs the server over
    /// stdio, for a client to spawn (installing the server first if need be).
    pub fn stdio_command(&self) -> (PathBuf, Vec<String>) {
        let (program, mut args) = self.base();
        args.push("--stdio".into());
        (program, args)
    }

    /// Starts the server over streamable HTTP on a free port of 127.0.0.1
    /// and waits (bounded by `STARTUP_TIMEOUT`) until it listens. Panics
    /// with its output when it does not.
    pub fn start_http(&self) -> RunningPeer {
        let (program, mut args) = self.base();
        args.extend(["--http".into(), "0".into()]);
        let mut command = Command::new(program);
        command
            .args(args)
            .env("NO_COLOR", "1")
            .env("PYTHONUNBUFFERED", "1")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let what = format!("{} ({command:?})", self.name());
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {what}: {e}"));
        let logs = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        if let Some(stdout) = child.stdout.take() {
            drain_stderr(stdout, Arc::clone(&logs), Some(tx));
        }
        if let Some(stderr) = child.stderr.take() {
            drain_stderr(stderr, Arc::clone(&logs), None);
        }
        match rx.recv_timeout(STARTUP_TIMEOUT) {
            Ok(url) if url.starts_with("http://127.0.0.1:") => RunningPeer {
                peer: *self,
                child,
                url,
                logs,
            },
            outcome => {
                let status = child.try_wait().ok().flatten();
                kill_child(&mut child);
                panic!(
                    "{what} did not announce `listening on http://127.0.0.1:PORT/mcp` within \
                     {STARTUP_TIMEOUT:?} (got {outcome:?}; exit status: {status:?}); output:\n{}",
                    logs_of(&logs)
                );
            }
        }
    }
}

/// A peer server running over HTTP; killed on drop.
pub struct RunningPeer {
    peer: PeerServer,
    child: Child,
    url: String,
    logs: Arc<Mutex<String>>,
}

impl RunningPeer {
    /// Its endpoint, `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Which server it is.
    pub fn peer(&self) -> PeerServer {
        self.peer
    }

    /// What it wrote to stdout and stderr so far, for assertion messages.
    pub fn logs(&self) -> String {
        logs_of(&self.logs)
    }
}

impl Drop for RunningPeer {
    fn drop(&mut self) {
        kill_child(&mut self.child);
    }
}

//! A process under test that serves MCP over HTTP on 127.0.0.1 and announces
//! itself with a `listening on http://...` line on stderr: our
//! `interop-server`, or a peer SDK's server in the interop tests.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};

use super::{IO_TIMEOUT, STARTUP_TIMEOUT, drain_stderr, kill_child, logs_of};

/// A port on 127.0.0.1 that was free a moment ago, for a process that
/// must be told its port before it starts (a protected server names its
/// own URL; an authorization server is named in the server's flags).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .unwrap_or_else(|e| panic!("no free port on 127.0.0.1: {e}"))
}

/// A running HTTP server process; killed on drop.
pub struct Listening {
    /// The process.
    pub child: Child,
    /// The URL it printed, `http://127.0.0.1:PORT/...`.
    pub url: String,
    /// What it wrote to stderr so far.
    pub logs: Arc<Mutex<String>>,
}

impl Listening {
    /// Spawns `command` and waits (bounded) for its `listening on` line.
    /// Panics with the process's stderr when it never comes.
    pub fn spawn(mut command: Command) -> Self {
        let what = format!("{command:?}");
        let mut child = command
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {what}: {e}"));
        let logs = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let stderr = child
            .stderr
            .take()
            .unwrap_or_else(|| panic!("{what}: stderr not piped"));
        drain_stderr(stderr, Arc::clone(&logs), Some(tx));
        match rx.recv_timeout(STARTUP_TIMEOUT) {
            Ok(url) => Listening { child, url, logs },
            Err(_) => {
                let status = child.try_wait().ok().flatten();
                kill_child(&mut child);
                panic!(
                    "{what} did not print `listening on http://...` within {STARTUP_TIMEOUT:?} \
                     (exit status: {status:?}); stderr:\n{}",
                    logs_of(&logs)
                );
            }
        }
    }

    /// `interop-server --listen 127.0.0.1:0`, the server the peer SDKs'
    /// clients drive.
    pub fn interop_server() -> Self {
        let mut command = Command::new(super::interop::interop_server_bin());
        command.args(["--listen", "127.0.0.1:0"]);
        let server = Self::spawn(command);
        assert!(
            server.url.starts_with("http://127.0.0.1:"),
            "not a loopback URL: {}",
            server.url
        );
        server
    }

    /// Whether stderr contains `needle`, waiting (bounded by `IO_TIMEOUT`)
    /// for the line to arrive: the process may answer before the line it
    /// logs on the way reaches us.
    pub fn logged(&self, needle: &str) -> bool {
        let deadline = std::time::Instant::now() + IO_TIMEOUT;
        loop {
            if self.logs().contains(needle) {
                return true;
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// What the process wrote to stderr so far.
    pub fn logs(&self) -> String {
        logs_of(&self.logs)
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        kill_child(&mut self.child);
    }
}

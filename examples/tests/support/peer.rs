//! A process under test that serves MCP over HTTP on 127.0.0.1 and announces
//! itself with a `listening on http://...` line on stderr: our
//! `interop-server`, or a peer SDK's server in the interop tests.

use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};

use super::{STARTUP_TIMEOUT, drain_stderr, kill_child, logs_of};

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

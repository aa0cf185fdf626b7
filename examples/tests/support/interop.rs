//! What the interop tests with other SDKs' clients and servers share: a
//! harness under `tests/interop/NAME/` whose `setup.sh` installs the peer
//! (once per test process) and prints its interpreter, the commands that run
//! the harness's scripts, and running a client to its JSON output.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

use super::peer::Listening;
use super::process::{repo, run_bounded, set_up};

/// Bound for one run of a peer's client script or CLI (each bounds its own
/// waits well below this).
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(120);

/// The `interop-server` binary.
pub fn interop_server_bin() -> &'static str {
    env!("CARGO_BIN_EXE_interop-server")
}

/// A harness, `tests/interop/NAME/`, whose `setup.sh` installs a peer SDK
/// and prints the interpreter that runs it. Meant for a `static`: the
/// set-up runs at most once per test process.
pub struct Harness {
    name: &'static str,
    kind: Kind,
    files: &'static [&'static str],
    installed: OnceLock<Installed>,
}

enum Kind {
    /// A virtualenv (`tests/interop/venv-setup.sh`); the scripts run from
    /// the harness directory.
    Venv,
    /// npm packages (`tests/interop/npm-setup.sh`) in the directory named
    /// by `dir_var`, where setup copies the scripts.
    Npm { dir_var: &'static str },
}

/// What a harness's `setup.sh` installed.
pub struct Installed {
    /// The interpreter it printed: the virtualenv's python, or Node 22.
    pub interpreter: PathBuf,
    /// Where the scripts are and run from.
    pub dir: PathBuf,
}

impl Harness {
    /// A Python harness: `setup.sh` creates a virtualenv with the pinned SDK.
    pub const fn venv(name: &'static str) -> Self {
        Self {
            name,
            kind: Kind::Venv,
            files: &[],
            installed: OnceLock::new(),
        }
    }

    /// A Node harness: `setup.sh` installs Node 22 and the pinned packages
    /// into the directory named by `dir_var` (default
    /// `<repo>/.cache/interop/NAME`), with `files` (paths under it) there.
    pub const fn npm(
        name: &'static str,
        dir_var: &'static str,
        files: &'static [&'static str],
    ) -> Self {
        Self {
            name,
            kind: Kind::Npm { dir_var },
            files,
            installed: OnceLock::new(),
        }
    }

    /// Runs `setup.sh` (bounded) the first time it is asked for.
    pub fn installed(&self) -> &Installed {
        self.installed.get_or_init(|| {
            let harness = repo().join("tests/interop").join(self.name);
            let setup = harness.join("setup.sh");
            let mut command = Command::new("bash");
            command.arg(&setup);
            let (dir, limit) = match self.kind {
                // Creating the virtualenv and installing the SDK.
                Kind::Venv => (harness, Duration::from_secs(600)),
                // Downloads Node 22 and the packages on a fresh machine.
                Kind::Npm { dir_var } => {
                    let dir = std::env::var_os(dir_var).map_or_else(
                        || repo().join(".cache/interop").join(self.name),
                        PathBuf::from,
                    );
                    command.env(dir_var, &dir);
                    (dir, Duration::from_secs(900))
                }
            };
            let interpreter = set_up(command, limit);
            for file in self.files {
                assert!(
                    dir.join(file).is_file(),
                    "{} left no {file} in {}",
                    setup.display(),
                    dir.display()
                );
            }
            Installed { interpreter, dir }
        })
    }

    /// `script` (a path under the harness's script directory) run by its
    /// interpreter from that directory, reaching 127.0.0.1 directly.
    pub fn command(&self, script: &str) -> Command {
        let installed = self.installed();
        let mut command = Command::new(&installed.interpreter);
        command
            .arg(installed.dir.join(script))
            .current_dir(&installed.dir)
            .env("NO_PROXY", "127.0.0.1")
            .env("no_proxy", "127.0.0.1");
        if let Kind::Venv = self.kind {
            command
                .env("PYTHONUNBUFFERED", "1")
                .env("PYTHONDONTWRITEBYTECODE", "1");
        }
        command
    }
}

/// Runs the client `command` (bounded by `CLIENT_TIMEOUT`) against
/// `interop-server` (`server` over HTTP; `None` over stdio, where the client
/// spawns it), asserts that it exited 0 and printed JSON, and returns the
/// JSON with a description of the run (the command, its output and the
/// server's log) for assertion messages. `what` names the client in them.
pub fn run_client(what: &str, command: Command, server: Option<&Listening>) -> (Value, String) {
    let line = format!("{command:?}");
    let output = run_bounded(command, CLIENT_TIMEOUT);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let server_logs = server.map_or_else(
        || format!("(over stdio: in {what} stderr)"),
        Listening::logs,
    );
    let context = format!(
        "{line}\n{what} stdout:\n{stdout}\n{what} stderr:\n{stderr}\ninterop-server stderr:\n{server_logs}"
    );
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{context}",
        output.status
    );
    let json: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{what} did not print JSON ({e}):\n{context}"));
    (json, context)
}

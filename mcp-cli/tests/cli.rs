//! The built `mcp` binary against our own servers, `interop-server` and
//! `conformance-server` (package `mcp-examples`), over HTTP on 127.0.0.1 and
//! over stdio (TARGET as one command line).
//!
//! Finding the servers: cargo gives a test the path of its own package's
//! binaries only (`CARGO_BIN_EXE_mcp`), and a binary of another package
//! cannot be a dev-dependency. So the test asks cargo itself, once: it runs
//! `cargo build --message-format=json -p mcp-examples --bin interop-server
//! --bin conformance-server` with this test's profile (a no-op when they
//! are fresh) and takes each binary's path from cargo's own
//! `compiler-artifact` message, which is right whatever the target
//! directory (`CARGO_TARGET_DIR`, `--target-dir` or the default). Setting
//! `MCP_CLI_TEST_SERVER_DIR` to a directory holding both binaries skips the
//! build.
//!
//! Every wait is bounded: the build, a server's `listening on` line, and
//! each run of `mcp`, which is killed past its bound and fails the test.
//!
//! The sign-in tests protect `conformance-server` (`--protect ISSUER`, JWT
//! access tokens) with the authorization server of the tests' own
//! (`tests/auth/jwks_server.rs`), whose token endpoint answers the client
//! credentials grant.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../tests/auth/jwks_server.rs"]
mod jwks;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Enough to build the servers from cold on a slow machine.
const BUILD_LIMIT: Duration = Duration::from_secs(900);
/// Bound for a server to print its `listening on` line.
const STARTUP_LIMIT: Duration = Duration::from_secs(60);
/// Bound for one run of `mcp`.
const RUN_LIMIT: Duration = Duration::from_secs(90);

const INTEROP: &str = "interop-server";
const CONFORMANCE: &str = "conformance-server";

// ---------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------

/// What a bounded process left.
struct Ran {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn code(&self) -> Option<i32> {
        self.status.code()
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    fn describe(&self) -> String {
        format!(
            "status {:?}\nstdout:\n{}\nstderr:\n{}",
            self.status.code(),
            self.stdout,
            self.stderr
        )
    }
}

/// Runs `command` with `input` on stdin (then closed), killing it past
/// `limit`, which fails the test.
fn run_bounded(mut command: Command, input: &str, limit: Duration) -> Ran {
    let what = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot spawn {what}: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < limit => thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                let stderr = stderr.join().unwrap_or_default();
                panic!("{what} did not finish within {limit:?}; stderr:\n{stderr}");
            }
            Err(e) => panic!("waiting for {what}: {e}"),
        }
    };
    Ran {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// The cargo profile this test was built with, from its own path
/// (`<target>/<profile dir>/deps/<test>-<hash>`).
fn profile() -> String {
    let exe = std::env::current_exe().expect("the test's own path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .and_then(|name| name.to_str())
        .unwrap_or("debug")
        .to_owned();
    if dir == "debug" {
        "dev".to_owned()
    } else {
        dir
    }
}

/// The path of `name` (`interop-server` or `conformance-server`).
fn server_bin(name: &str) -> PathBuf {
    static BINS: OnceLock<HashMap<String, PathBuf>> = OnceLock::new();
    let bins = BINS.get_or_init(|| {
        if let Some(dir) = std::env::var_os("MCP_CLI_TEST_SERVER_DIR") {
            let dir = PathBuf::from(dir);
            return [INTEROP, CONFORMANCE]
                .into_iter()
                .map(|n| (n.to_owned(), dir.join(n)))
                .collect();
        }
        let mut command = Command::new(env!("CARGO"));
        command
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
            .args(["build", "--message-format=json-render-diagnostics"])
            .args(["-p", "mcp-examples", "--bin", INTEROP, "--bin", CONFORMANCE])
            .args(["--profile", &profile()]);
        let built = run_bounded(command, "", BUILD_LIMIT);
        assert!(
            built.status.success(),
            "building the servers failed: {}",
            built.describe()
        );
        built
            .stdout
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|m| m["reason"] == "compiler-artifact")
            .filter_map(|m| {
                let name = m["target"]["name"].as_str()?.to_owned();
                let exe = m["executable"].as_str()?;
                Some((name, PathBuf::from(exe)))
            })
            .collect()
    });
    let path = bins
        .get(name)
        .unwrap_or_else(|| panic!("cargo reported no executable for {name}"));
    assert!(path.is_file(), "{name} is not at {}", path.display());
    path.clone()
}

/// An HTTP server process of the test's own; killed on drop.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    /// `NAME --listen 127.0.0.1:0`, once it printed `listening on URL`.
    fn http(name: &str) -> Self {
        Self::http_with(name, &["--listen", "127.0.0.1:0"])
    }

    /// `NAME ARGS`, once it printed `listening on URL`.
    fn http_with(name: &str, args: &[&str]) -> Self {
        let mut child = Command::new(server_bin(name))
            .args(args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn {name}: {e}"));
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = mpsc::channel();
        // Reads every line (so the server never blocks on stderr), sending
        // the URL when it appears.
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("listening on http://") {
                    let url = line[at + "listening on ".len()..].trim().to_owned();
                    let _ = tx.send(url);
                }
            }
        });
        match rx.recv_timeout(STARTUP_LIMIT) {
            Ok(url) => Self { child, url },
            Err(_) => {
                let _ = child.kill();
                panic!("{name} did not print `listening on http://...` within {STARTUP_LIMIT:?}");
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `NAME --stdio` as one TARGET command line (quoted as a shell would).
fn stdio_target(name: &str) -> String {
    let path = server_bin(name);
    let path = path.to_str().expect("a UTF-8 path");
    let quoted = shlex::try_quote(path).expect("a path without NUL");
    format!("{quoted} --stdio")
}

/// Runs `mcp ARGS` with stdin not a terminal (and empty).
fn mcp(args: &[&str]) -> Ran {
    mcp_with_input(args, "")
}

fn mcp_with_input(args: &[&str], input: &str) -> Ran {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp"));
    command.args(args).env("RUST_LOG", "warn");
    run_bounded(command, input, RUN_LIMIT)
}

/// The names (or URIs, with `key`) of a listed JSON array.
fn listed(ran: &Ran, key: &str) -> Vec<String> {
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    let Value::Array(items) = ran.json() else {
        panic!("not a JSON array: {}", ran.describe());
    };
    items
        .iter()
        .map(|item| {
            item[key]
                .as_str()
                .unwrap_or_else(|| panic!("an item without {key}: {item}"))
                .to_owned()
        })
        .collect()
}

/// The text of a tool result's first content block.
fn text_of(ran: &Ran) -> String {
    let result = ran.json();
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content: {}", ran.describe()))
        .to_owned()
}

/// Asserts a failure with exit status 2, nothing on stdout, and one
/// message on stderr that holds every one of `needles`.
fn assert_failed(ran: &Ran, needles: &[&str]) {
    assert_eq!(ran.code(), Some(2), "{}", ran.describe());
    assert!(ran.stdout.is_empty(), "{}", ran.describe());
    for needle in needles {
        assert!(
            ran.stderr.contains(needle),
            "stderr lacks {needle:?}: {}",
            ran.describe()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Lists
// ---------------------------------------------------------------------------------------------

#[test]
fn tools_prints_every_tool_as_a_json_array() {
    let server = Server::http(INTEROP);
    let ran = mcp(&["tools", &server.url]);
    let names = listed(&ran, "name");
    for name in ["add", "book_table", "checkout"] {
        assert!(names.contains(&name.to_owned()), "{names:?}");
    }
    // Items as the server sent them: the input schema is there.
    assert_eq!(ran.json()[0]["inputSchema"]["type"], "object");
}

#[test]
fn prompts_and_resources_print_their_lists() {
    let server = Server::http(CONFORMANCE);
    let prompts = listed(&mcp(&["prompts", &server.url]), "name");
    assert!(
        prompts.contains(&"test_input_required_result_prompt".to_owned()),
        "{prompts:?}"
    );
    let resources = listed(&mcp(&["resources", &server.url]), "uri");
    for uri in ["test://static-text", "test://static-binary"] {
        assert!(resources.contains(&uri.to_owned()), "{resources:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Results and exit statuses
// ---------------------------------------------------------------------------------------------

#[test]
fn call_prints_the_result_and_exits_0() {
    let server = Server::http(INTEROP);
    let ran = mcp(&["call", &server.url, "add", r#"{"a": 2, "b": 3}"#]);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert_eq!(text_of(&ran), "5");
    assert_ne!(ran.json()["isError"], true);
}

#[test]
fn a_tool_error_exits_1_with_the_result_printed() {
    let server = Server::http(CONFORMANCE);
    let ran = mcp(&["call", &server.url, "test_error_handling"]);
    assert_eq!(ran.code(), Some(1), "{}", ran.describe());
    assert_eq!(ran.json()["isError"], true);
    assert!(
        text_of(&ran).contains("intentionally"),
        "{}",
        ran.describe()
    );
}

#[test]
fn an_argument_in_a_header_goes_as_mcp_param() {
    // The tool's `region` is annotated x-mcp-header: the server refuses a
    // call without the Mcp-Param-Region header.
    let server = Server::http(CONFORMANCE);
    let ran = mcp(&[
        "call",
        &server.url,
        "test_custom_header",
        r#"{"region": "eu-west"}"#,
    ]);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert_eq!(text_of(&ran), "Region: eu-west");
}

#[test]
fn read_and_prompt_print_their_results() {
    let server = Server::http(CONFORMANCE);
    let ran = mcp(&["read", &server.url, "test://static-text"]);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert_eq!(
        ran.json()["contents"][0]["text"],
        "This is the content of the static text resource."
    );
    let ran = mcp(&[
        "prompt",
        &server.url,
        "test_input_required_result_prompt",
        "--answers",
        r#"{"context": "the README"}"#,
    ]);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    let text = ran.json()["messages"][0]["content"]["text"].clone();
    assert_eq!(text, "Answer using this context: the README");
}

#[test]
fn an_unknown_tool_exits_2_naming_the_server_and_the_request() {
    let server = Server::http(INTEROP);
    let ran = mcp(&["call", &server.url, "no_such_tool"]);
    assert_failed(
        &ran,
        &[&server.url, "tools/call of \"no_such_tool\" failed"],
    );
}

#[test]
fn an_unreachable_url_exits_2() {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let ran = mcp(&["tools", &url, "--timeout", "20"]);
    assert_failed(&ran, &[&url, "cannot connect", "server/discover"]);
}

#[test]
fn a_stdio_command_that_cannot_start_exits_2() {
    let ran = mcp(&["tools", "/no/such/mcp-server --stdio"]);
    assert_failed(&ran, &["/no/such/mcp-server --stdio", "cannot"]);
}

#[test]
fn a_server_that_never_answers_is_bounded_by_timeout() {
    let ran = mcp(&["tools", "sleep 30", "--timeout", "1"]);
    assert_failed(&ran, &["sleep 30", "no result within 1s"]);
}

#[test]
fn bad_usage_exits_2() {
    let server = Server::http(INTEROP);
    let ran = mcp(&["call", &server.url, "add", "{not json"]);
    assert_failed(&ran, &["ARGS_JSON is not JSON"]);
    let ran = mcp(&["call", &server.url, "add", "[1, 2]"]);
    assert_failed(&ran, &["ARGS_JSON must be a JSON object, not an array"]);
    let ran = mcp(&["call", &server.url, "add", "{}", "--answers", "[1]"]);
    assert_failed(&ran, &["--answers must be a JSON object"]);
    let ran = mcp(&[
        "call",
        &server.url,
        "add",
        "{}",
        "--answers",
        "/no/such/answers.json",
    ]);
    assert_failed(&ran, &["neither JSON nor a file"]);
    let ran = mcp(&["tools", "node 'unbalanced"]);
    assert_failed(&ran, &["TARGET"]);
    let ran = mcp(&["tools", "cat", "--header", "X-Key: 1"]);
    assert_failed(&ran, &["--header applies to HTTP targets only"]);
    let ran = mcp(&["tools", &server.url, "--timeout", "0"]);
    assert_eq!(ran.code(), Some(2), "{}", ran.describe());
    let ran = mcp(&["frobnicate", &server.url]);
    assert_eq!(ran.code(), Some(2), "{}", ran.describe());
}

#[test]
fn era_pins_the_protocol_and_verbose_shows_every_message() {
    let server = Server::http(INTEROP);
    // 2025: a session opened with initialize, no probe.
    let ran = mcp(&["tools", &server.url, "--era", "2025", "--verbose"]);
    assert!(listed(&ran, "name").contains(&"add".to_owned()));
    let first_sent = ran
        .stderr
        .lines()
        .find(|l| l.starts_with(">> "))
        .unwrap_or_default();
    assert!(
        first_sent.contains(r#""method":"initialize""#),
        "{}",
        ran.describe()
    );
    assert!(
        !ran.stderr.contains("server/discover"),
        "{}",
        ran.describe()
    );
    assert!(
        ran.stderr.lines().any(|l| l.starts_with("<< ")),
        "{}",
        ran.describe()
    );
    // 2026: server/discover, no initialize.
    let ran = mcp(&["tools", &server.url, "--era", "2026", "--verbose"]);
    assert!(listed(&ran, "name").contains(&"add".to_owned()));
    assert!(ran.stderr.contains("server/discover"), "{}", ran.describe());
    assert!(
        !ran.stderr.contains(r#""method":"initialize""#),
        "{}",
        ran.describe()
    );
    // A 2025-era call completes through the server's own elicitation requests.
    let ran = mcp(&[
        "call",
        &server.url,
        "book_table",
        r#"{"restaurant": "Chez Ada"}"#,
        "--era",
        "2025",
        "--answers",
        r#"{"guests": 2, "sitting": "early"}"#,
    ]);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert_eq!(text_of(&ran), "Booked Chez Ada for 2, early sitting.");
}

#[test]
fn headers_go_with_every_http_request() {
    // A listener that records the first request and answers 404.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("its address"));
    let recorder = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("one connection");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("a read timeout");
        let mut seen = Vec::new();
        let mut buffer = [0u8; 4096];
        while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
            match std::io::Read::read(&mut stream, &mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buffer[..n]),
            }
        }
        let _ = std::io::Write::write_all(
            &mut stream,
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        );
        String::from_utf8_lossy(&seen).to_ascii_lowercase()
    });
    let ran = mcp(&[
        "tools",
        &url,
        "--era",
        "2026",
        "--header",
        "X-Api-Key: secret",
    ]);
    assert_failed(&ran, &[&url]);
    let request = recorder.join().expect("the recorder ends");
    assert!(request.contains("x-api-key: secret"), "{request}");
}

// ---------------------------------------------------------------------------------------------
// Forms
// ---------------------------------------------------------------------------------------------

#[test]
fn answers_complete_a_tool_that_asks_twice() {
    let server = Server::http(INTEROP);
    let ran = mcp(&[
        "call",
        &server.url,
        "book_table",
        r#"{"restaurant": "Chez Ada"}"#,
        "--answers",
        r#"{"guests": 4, "sitting": "late", "unrelated": true}"#,
    ]);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert_eq!(text_of(&ran), "Booked Chez Ada for 4, late sitting.");
}

#[test]
fn answers_from_a_file() {
    let server = Server::http(CONFORMANCE);
    let path = std::env::temp_dir().join(format!("mcp-cli-test-{}.json", std::process::id()));
    std::fs::write(&path, r#"{"name": "Ada"}"#).expect("a temporary file");
    let file = path.to_str().expect("a UTF-8 path").to_owned();
    let ran = mcp(&[
        "call",
        &server.url,
        "test_input_required_result_elicitation",
        "--answers",
        &file,
    ]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert_eq!(text_of(&ran), "Hello, Ada!");
}

#[test]
fn decline_declines_every_form() {
    let server = Server::http(INTEROP);
    let ran = mcp(&[
        "call",
        &server.url,
        "book_table",
        r#"{"restaurant": "Chez Ada"}"#,
        "--decline",
    ]);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert_eq!(text_of(&ran), "No table booked.");
    assert!(ran.stderr.contains("--decline"), "{}", ran.describe());
}

#[test]
fn answers_missing_a_required_field_decline_the_form() {
    let server = Server::http(INTEROP);
    let ran = mcp(&[
        "call",
        &server.url,
        "book_table",
        r#"{"restaurant": "Chez Ada"}"#,
        "--answers",
        r#"{"sitting": "late"}"#,
    ]);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert_eq!(text_of(&ran), "No table booked.");
    assert!(
        ran.stderr.contains("declined") && ran.stderr.contains("\"guests\""),
        "{}",
        ran.describe()
    );
}

#[test]
fn without_a_terminal_or_answers_forms_are_declined() {
    let server = Server::http(INTEROP);
    let ran = mcp_with_input(
        &["call", &server.url, "book_table", r#"{"restaurant": "X"}"#],
        "4\nlate\n",
    );
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert_eq!(text_of(&ran), "No table booked.");
    assert!(ran.stderr.contains("not a terminal"), "{}", ran.describe());
}

#[test]
fn a_url_request_is_shown_and_accepted() {
    let server = Server::http(INTEROP);
    let ran = mcp(&["call", &server.url, "checkout", r#"{"euros": 7}"#]);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert_eq!(text_of(&ran), "Paid 7 EUR.");
    assert!(
        ran.stderr.contains("https://pay.example.com/checkout/"),
        "{}",
        ran.describe()
    );
}

// ---------------------------------------------------------------------------------------------
// Stdio
// ---------------------------------------------------------------------------------------------

#[test]
fn a_command_line_target_is_spawned_over_stdio() {
    let target = stdio_target(INTEROP);
    let names = listed(&mcp(&["tools", &target]), "name");
    assert!(names.contains(&"add".to_owned()), "{names:?}");
    let ran = mcp(&["call", &target, "add", r#"{"a": 20, "b": 22}"#]);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert_eq!(text_of(&ran), "42");
    let ran = mcp(&[
        "call",
        &target,
        "book_table",
        r#"{"restaurant": "Stdio"}"#,
        "--answers",
        r#"{"guests": 2, "sitting": "early"}"#,
    ]);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert_eq!(text_of(&ran), "Booked Stdio for 2, early sitting.");
}

#[test]
fn stdio_errors_exit_2_and_tool_errors_1() {
    let target = stdio_target(CONFORMANCE);
    let ran = mcp(&["call", &target, "test_error_handling"]);
    assert_eq!(ran.code(), Some(1), "{}", ran.describe());
    let ran = mcp(&["call", &target, "no_such_tool"]);
    assert_failed(&ran, &[&target, "tools/call of \"no_such_tool\" failed"]);
}

// ---------------------------------------------------------------------------------------------
// The terminal
// ---------------------------------------------------------------------------------------------

/// With stdin a terminal (a pty from util-linux `script`), each field is
/// asked by its label and type: a number out of range is asked again, a
/// choice is taken by its number. Skipped, saying so, where `script` is
/// missing.
#[test]
fn on_a_terminal_forms_are_asked_field_by_field() {
    let has_script = Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_script {
        eprintln!("skipped: util-linux `script` (to give mcp a terminal) is not installed");
        return;
    }
    let server = Server::http(INTEROP);
    let line = [
        env!("CARGO_BIN_EXE_mcp"),
        "call",
        &server.url,
        "book_table",
        r#"{"restaurant": "Tty"}"#,
    ]
    .iter()
    .map(|word| shlex::try_quote(word).expect("no NUL").into_owned())
    .collect::<Vec<_>>()
    .join(" ");
    let mut command = Command::new("script");
    command
        .args(["-qec", &line, "/dev/null"])
        .env("RUST_LOG", "warn");
    let ran = run_bounded(command, "20\n3\n2\n", RUN_LIMIT);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    // The pty carries the prompts (stderr) and the result (stdout) alike.
    for shown in [
        "How many guests are coming?",
        "at most 12, please",
        "2) late",
        "Booked Tty for 3, late sitting.",
    ] {
        assert!(
            ran.stdout.contains(shown),
            "{shown:?} missing: {}",
            ran.describe()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Signing in
// ---------------------------------------------------------------------------------------------

/// A free port on 127.0.0.1 (a protected server names its own URL, so it
/// needs its port before it starts).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The authorization server of the tests' own (serving on `runtime`),
/// issuing JWTs to the client `machine` / `machine-secret`, and
/// `conformance-server --protect` trusting it.
fn protected() -> (tokio::runtime::Runtime, jwks::JwksServer, Server) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let key = jwks::Key::generate("k1");
    let authorization = runtime.block_on(jwks::JwksServer::start(vec![key.jwk.clone()]));
    authorization.issue_tokens(key, "machine", "machine-secret");
    let listen = format!("127.0.0.1:{}", free_port());
    let server = Server::http_with(
        CONFORMANCE,
        &[
            "--listen",
            &listen,
            "--protect",
            &authorization.issuer,
            "--required-scope",
            "mcp:tools",
        ],
    );
    (runtime, authorization, server)
}

/// A fresh directory under the system's temporary one.
fn temp_dir(what: &str) -> PathBuf {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).unwrap();
    let name: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let dir = std::env::temp_dir().join(format!("mcp-cli-{what}-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn client_id_and_secret_sign_in_as_a_machine_to_a_protected_server() {
    let (_runtime, authorization, server) = protected();
    let dir = temp_dir("machine");
    let store = dir.join("tokens.json");
    let store_arg = store.to_str().unwrap();
    let signed_in = [
        "--client-id",
        "machine",
        "--client-secret",
        "machine-secret",
        "--token-store",
        store_arg,
    ];

    // A wrong secret: the token endpoint's refusal, without the secret.
    let refused = mcp(&[
        "call",
        &server.url,
        "test_simple_text",
        "--client-id",
        "machine",
        "--client-secret",
        "wrong-secret-7f3a",
        "--token-store",
        store_arg,
    ]);
    assert_failed(&refused, &[&server.url, "invalid_client"]);
    assert!(
        !refused.stderr.contains("wrong-secret-7f3a"),
        "{}",
        refused.describe()
    );

    let mut args = vec!["call", server.url.as_str(), "test_simple_text"];
    args.extend(signed_in);
    let ran = mcp(&args);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert!(!text_of(&ran).is_empty(), "{}", ran.describe());
    let forms = authorization.token_requests();
    let granted = forms
        .iter()
        .filter(|form| {
            form.iter()
                .any(|(k, v)| k == "grant_type" && v == "client_credentials")
        })
        .count();
    assert_eq!(granted, forms.len());
    assert!(
        forms
            .last()
            .unwrap()
            .iter()
            .any(|(k, v)| k == "resource" && *v == server.url),
        "{forms:?}"
    );
    let kept = std::fs::read_to_string(&store).unwrap();
    assert!(kept.contains("access_token"), "{kept}");

    // The next run uses the kept token: no new token request.
    let before = authorization.token_requests().len();
    let mut args = vec!["tools", server.url.as_str()];
    args.extend(signed_in);
    let ran = mcp(&args);
    assert!(
        listed(&ran, "name").contains(&"test_simple_text".to_owned()),
        "{}",
        ran.describe()
    );
    assert_eq!(authorization.token_requests().len(), before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_token_store_is_created_readable_by_the_user_only() {
    let (_runtime, _authorization, server) = protected();
    let dir = temp_dir("store");
    let store = dir.join("nested").join("tokens.json");
    let ran = mcp(&[
        "tools",
        &server.url,
        "--client-id",
        "machine",
        "--client-secret",
        "machine-secret",
        "--scope",
        "mcp:tools",
        "--token-store",
        store.to_str().unwrap(),
    ]);
    assert_eq!(ran.code(), Some(0), "{}", ran.describe());
    assert!(store.is_file(), "no store at {}", store.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&store).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
    }
    let kept = std::fs::read_to_string(&store).unwrap();
    assert!(
        !kept.contains("machine-secret"),
        "the client secret was written: {kept}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sign_in_options_are_for_http_targets_only() {
    let ran = mcp(&["tools", "node server.js", "--client-id", "x"]);
    assert_failed(&ran, &["HTTP targets only"]);
    let ran = mcp(&["tools", "http://127.0.0.1:1/mcp", "--client-secret", "x"]);
    assert_eq!(ran.code(), Some(2), "{}", ran.describe());
}

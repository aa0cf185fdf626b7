//! The client speaks TLS to an `https://` server, and refuses one whose
//! certificate no trusted authority signed: a Python HTTPS server on
//! 127.0.0.1 with a self-signed certificate made by `openssl` for the test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use mcp_runtime::client::{Client, ClientError};

/// A self-signed certificate and key for 127.0.0.1, in a fresh directory.
fn self_signed() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-client-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"])
        .args(["-addext", "subjectAltName=IP:127.0.0.1"])
        .arg("-keyout")
        .arg(dir.join("key.pem"))
        .arg("-out")
        .arg(dir.join("cert.pem"))
        .stderr(Stdio::null())
        .status()
        .expect("openssl runs");
    assert!(made.success(), "openssl made no certificate");
    dir
}

const HTTPS_SERVER: &str = r#"
import http.server, ssl, sys
class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.send_response(200); self.send_header("content-length", "0"); self.end_headers()
    def log_message(self, *args): pass
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1] + "/cert.pem", sys.argv[1] + "/key.pem")
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
"#;

#[tokio::test]
async fn an_untrusted_certificate_is_refused() {
    let dir = self_signed();
    let mut server = Command::new("python3")
        .args(["-c", HTTPS_SERVER])
        .arg(&dir)
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut port = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    let url = format!("https://127.0.0.1:{}/mcp", port.trim());
    let connected = tokio::time::timeout(Duration::from_secs(30), Client::http(&url).connect())
        .await
        .expect("connect is bounded");
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
    let error = connected
        .err()
        .expect("an untrusted certificate is refused");
    let ClientError::Transport(detail) = &error else {
        panic!("not a transport error: {error:?}");
    };
    assert!(detail.contains("certificate"), "{detail}");
    assert!(
        detail.contains(&url),
        "the error names the server: {detail}"
    );
}

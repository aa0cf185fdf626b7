//! A redis-server of a test's own on a free 127.0.0.1 port, without
//! persistence, killed on drop: for the tests that need a real Redis (the
//! fleet tests in `examples/tests`, the task store's in `mcp-runtime/tests`,
//! which both include this file with `#[path]`). `ensure-redis.sh`, beside
//! it, installs Debian's redis-server when it is absent.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The redis-server binary: `tests/fleet/ensure-redis.sh` prints its path,
/// installing it first when absent.
pub fn redis_server_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("tests/fleet/ensure-redis.sh");
        let mut child = Command::new("bash")
            .arg(&script)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        // Installing the package may take a while; never forever.
        let deadline = Instant::now() + Duration::from_secs(600);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{} did not finish in time", script.display());
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert!(status.success(), "{} failed: {status}", script.display());
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let path = PathBuf::from(out.trim());
        assert!(path.is_file(), "no redis-server at {path:?}");
        path
    })
}

/// A free port on 127.0.0.1 (free when asked; a clash shows up as a
/// redis-server that never answers).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A redis-server of our own on 127.0.0.1, without persistence; killed on
/// drop.
pub struct Redis {
    child: Option<Child>,
    /// The port it listens on.
    pub port: u16,
}

impl Redis {
    pub fn start() -> Self {
        let mut redis = Self {
            child: None,
            port: free_port(),
        };
        redis.restart();
        redis
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Starts (again) on the same port and waits until it answers PING.
    pub fn restart(&mut self) {
        let child = Command::new(redis_server_bin())
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.answers_ping() {
            assert!(
                Instant::now() < deadline,
                "redis-server on port {} did not answer PING",
                self.port
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn answers_ping(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
        let mut reply = [0u8; 7];
        stream.write_all(b"PING\r\n").is_ok()
            && stream.read_exact(&mut reply).is_ok()
            && &reply == b"+PONG\r\n"
    }

    /// Sends `signal` (`STOP` or `CONT`) to the server: a stopped one
    /// accepts connections but never answers.
    pub fn signal(&self, signal: &str) {
        let pid = self.child.as_ref().unwrap().id();
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(pid.to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }

    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

//! A redis-server of a test's own on a free 127.0.0.1 port, for the fleet
//! tests: `tests/fleet/ensure-redis.sh` installs Debian's redis-server
//! when it is absent.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::process::{repo, set_up};

/// The redis-server binary, installed once per test run if absent.
pub fn redis_server_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let mut command = Command::new("bash");
        command.arg(repo().join("tests/fleet/ensure-redis.sh"));
        set_up(command, Duration::from_secs(600))
    })
}

/// A free port on 127.0.0.1 (free when asked; the OS may reuse it later,
/// so a clash shows up as a redis-server that never answers).
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
        let mut redis = Redis {
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
            std::thread::sleep(Duration::from_millis(50));
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

//! Running helper programs to completion within a bound: set-up scripts
//! and peer SDK clients.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `command` to completion within `limit`, killing it and failing the
/// test when it takes longer. Returns its output.
pub fn run_bounded(mut command: Command, limit: Duration) -> Output {
    let what = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot spawn {what}: {e}"));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr piped")));
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(50)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                let stderr =
                    String::from_utf8_lossy(&stderr.join().unwrap_or_default()).into_owned();
                panic!("{what} did not finish within {limit:?}; stderr:\n{stderr}");
            }
            Err(e) => panic!("waiting for {what} failed: {e}"),
        }
    };
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// Runs the set-up script `command` (within `limit`), which must succeed
/// and print the path of the installed tool as its last line; returns it.
pub fn set_up(command: Command, limit: Duration) -> PathBuf {
    let what = format!("{command:?}");
    let output = run_bounded(command, limit);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let path = PathBuf::from(
        stdout
            .lines()
            .last()
            .unwrap_or_else(|| panic!("{what} printed nothing; stderr:\n{stderr}"))
            .trim(),
    );
    assert!(path.is_file(), "{what}'s last line is not a file: {path:?}");
    path
}

/// Enough to build an example from cold on a slow machine.
pub const EXAMPLE_BUILD_LIMIT: Duration = Duration::from_secs(600);

/// The cargo profile this test was built with, from its own path
/// (`target/<profile dir>/deps/<test>-<hash>`).
pub fn profile() -> String {
    let exe = std::env::current_exe().expect("the test's own path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .and_then(|name| name.to_str())
        .unwrap_or("debug");
    match dir {
        "debug" => "dev".to_owned(),
        other => other.to_owned(),
    }
}

/// Builds the example `name` of this package with the test's profile
/// (bounded; a no-op when `cargo test` built it already) and returns its
/// executable. Cargo gives a test no path to an example, hence the build.
pub fn example(name: &str) -> PathBuf {
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(repo())
        .args(["build", "--quiet", "-p", "mcp-examples", "--example", name])
        .args(["--profile", &profile()]);
    let output = run_bounded(command, EXAMPLE_BUILD_LIMIT);
    assert!(
        output.status.success(),
        "building the example {name} failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let exe = std::env::current_exe().expect("the test's own path");
    exe.parent()
        .and_then(Path::parent)
        .map(|dir| dir.join("examples").join(name))
        .expect("the test's target directory")
}

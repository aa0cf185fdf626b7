//! Tasks across a fleet: two `conformance-server` instances keeping task
//! records in one real `redis-server` (`--tasks-redis`), over HTTP on
//! 127.0.0.1:
//! - a task created on A is read, answered and cancelled through B, and
//!   the round after B's `tasks/update` runs on B;
//! - a cancel sent to B reaches the handler running on A;
//! - killing A mid-task leaves the task `failed` once A's lease runs out;
//! - a bounded soak of 200 tasks whose rounds land on both instances:
//!   each completes, and the instances' deletion counts add up to 200.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::peer::Listening;
use support::redis::Redis;

const TASKS: &str = "io.modelcontextprotocol/tasks";
/// The lease the instances take on a round: short, so that abandonment
/// shows within the test.
const LEASE_MS: u64 = 1500;
/// Bound on one whole test.
const TEST_TIMEOUT: Duration = Duration::from_secs(180);

/// An instance keeping its tasks in `redis`.
fn instance(redis: &Redis) -> Listening {
    let mut command = Command::new(env!("CARGO_BIN_EXE_conformance-server"));
    command
        .args(["--listen", "127.0.0.1:0", "--tasks-redis", &redis.url()])
        .args(["--task-lease-ms", &LEASE_MS.to_string()])
        // The soak's 200 tasks come from one address.
        .args(["--task-client-cap", "1000"])
        .env("RUST_LOG", "warn,mcp_runtime::server::tasks=info");
    Listening::spawn(command)
}

/// A client of one instance that declares the tasks extension.
struct Peer {
    url: String,
    http: reqwest::Client,
}

impl Peer {
    fn of(server: &Listening) -> Self {
        Self {
            url: server.url.clone(),
            http: reqwest::Client::new(),
        }
    }

    async fn rpc(&self, method: &str, mut params: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities":
                {"elicitation": {"form": {}}, "extensions": {TASKS: {}}}
        });
        let mut request = self
            .http
            .post(&self.url)
            .timeout(Duration::from_secs(10))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method);
        if let Some(name) = params["name"].as_str().or(params["taskId"].as_str()) {
            request = request.header("mcp-name", name);
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let text = request
            .body(body.to_string())
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }

    async fn create(&self, tool: &str, arguments: Value) -> String {
        let created = self
            .rpc("tools/call", json!({"name": tool, "arguments": arguments}))
            .await;
        assert_eq!(created["result"]["resultType"], "task", "{created:#}");
        created["result"]["taskId"].as_str().unwrap().to_owned()
    }

    async fn get(&self, id: &str) -> Value {
        let got = self.rpc("tasks/get", json!({"taskId": id})).await;
        got.get("result")
            .unwrap_or_else(|| panic!("tasks/get failed: {got:#}"))
            .clone()
    }

    /// `tasks/get` until `done` holds (bounded by `within`).
    async fn until(&self, id: &str, within: Duration, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + within;
        loop {
            let task = self.get(id).await;
            if done(&task) {
                return task;
            }
            assert!(Instant::now() < deadline, "never got there: {task:#}");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    async fn confirm(&self, id: &str, key: &str) {
        let ack = self
            .rpc(
                "tasks/update",
                json!({"taskId": id, "inputResponses":
                    {key: {"action": "accept", "content": {"confirm": true}}}}),
            )
            .await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack:#}");
    }

    async fn deletions(&self) -> usize {
        let counted = self
            .rpc(
                "tools/call",
                json!({"name": "task_deletions", "arguments": {}}),
            )
            .await;
        counted["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    }
}

fn status(status: &'static str) -> impl Fn(&Value) -> bool {
    move |task| task["status"] == status
}

async fn bounded<F: Future<Output = ()>>(test: F) {
    tokio::time::timeout(TEST_TIMEOUT, test)
        .await
        .expect("the test finished within its bound");
}

#[tokio::test]
async fn a_task_created_on_one_instance_is_served_by_the_other() {
    bounded(async {
        let redis = Redis::start();
        let (a, b) = (instance(&redis), instance(&redis));
        let (on_a, on_b) = (Peer::of(&a), Peer::of(&b));
        let within = Duration::from_secs(10);

        // Created on A; its question read and answered on B; the next
        // round runs on B, and A sees the result.
        let id = on_a
            .create("confirm_delete", json!({"filename": "fleet.txt"}))
            .await;
        let asking = on_b.until(&id, within, status("input_required")).await;
        assert!(asking["inputRequests"].get("confirm").is_some());
        on_b.confirm(&id, "confirm").await;
        let done = on_a.until(&id, within, status("completed")).await;
        assert_eq!(done["result"]["content"][0]["text"], "deleted 'fleet.txt'");
        assert_eq!(on_a.deletions().await, 0, "the deleting round ran on B");
        assert_eq!(on_b.deletions().await, 1);

        // Cancelled through B while its round runs on A: the task is
        // cancelled at once, and A's handler stops (it would run 60 s).
        let id = on_a
            .create("slow_compute", json!({"seconds": 60, "label": "fleet"}))
            .await;
        let cancelled = on_b.rpc("tasks/cancel", json!({"taskId": id})).await;
        assert_eq!(cancelled["result"]["resultType"], "complete");
        assert_eq!(on_a.get(&id).await["status"], "cancelled");
        assert!(
            a.logged("a cancelled task's round ended"),
            "A's round did not end: {}",
            a.logs()
        );
        assert!(a.logs().contains("stopped by itself"), "{}", a.logs());
        assert_eq!(on_b.get(&id).await["status"], "cancelled");
    })
    .await;
}

#[tokio::test]
async fn a_task_left_by_a_dead_instance_fails_when_its_lease_runs_out() {
    bounded(async {
        let redis = Redis::start();
        let (mut a, b) = (instance(&redis), instance(&redis));
        let on_b = Peer::of(&b);
        let id = Peer::of(&a)
            .create("slow_compute", json!({"seconds": 60, "label": "orphan"}))
            .await;
        assert_eq!(on_b.get(&id).await["status"], "working");
        a.child.kill().unwrap();
        a.child.wait().unwrap();
        let killed = Instant::now();
        // A renewed its lease at most a third of it ago: the task fails
        // within the lease (and a little polling).
        let failed = on_b
            .until(
                &id,
                Duration::from_millis(LEASE_MS + 2000),
                status("failed"),
            )
            .await;
        assert!(killed.elapsed() <= Duration::from_millis(LEASE_MS + 2000));
        assert_eq!(failed["error"]["code"], -32603);
        assert_eq!(
            failed["error"]["message"],
            "The server running this task stopped before it finished"
        );
        // And it stays failed.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(on_b.get(&id).await["status"], "failed");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_soak_of_tasks_spread_over_the_fleet_completes_each_once() {
    const TASK_COUNT: usize = 200;
    const AT_ONCE: usize = 20;
    bounded(async {
        let redis = Redis::start();
        let (a, b) = (instance(&redis), instance(&redis));
        let peers = [Peer::of(&a), Peer::of(&b)];
        let peers = &peers;
        let mut finished = 0;
        for batch in 0..TASK_COUNT / AT_ONCE {
            let flows = (0..AT_ONCE).map(|i| async move {
                let n = batch * AT_ONCE + i;
                // Created on one, answered on the other, read on either.
                let (maker, answerer) = (&peers[n % 2], &peers[(n + 1) % 2]);
                let file = format!("soak-{n}.txt");
                let id = maker
                    .create("confirm_delete", json!({"filename": file}))
                    .await;
                let within = Duration::from_secs(20);
                answerer.until(&id, within, status("input_required")).await;
                answerer.confirm(&id, "confirm").await;
                let done = peers[n / 2 % 2]
                    .until(&id, within, status("completed"))
                    .await;
                assert_eq!(
                    done["result"]["content"][0]["text"],
                    format!("deleted '{file}'")
                );
            });
            futures_util::future::join_all(flows).await;
            finished += AT_ONCE;
        }
        assert_eq!(finished, TASK_COUNT);
        let deleted = peers[0].deletions().await + peers[1].deletions().await;
        assert_eq!(deleted, TASK_COUNT, "each task's deleting round ran once");
    })
    .await;
}

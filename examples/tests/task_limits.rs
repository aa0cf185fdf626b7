//! The bounds of task storage against `conformance-server`, over HTTP on
//! 127.0.0.1:
//! - one unauthenticated client creating tasks that finish at once is
//!   refused at its own allowance (finished tasks count until they
//!   expire), with an error naming the cap and its setter, while a client
//!   from another address still gets its task;
//! - a task call carrying a large `_meta` does not make its record keep
//!   it: 20 such tasks leave the server's memory within a margin, and
//!   `tasks/get` answers.
//!
//! Every loop is bounded and every wait has a deadline.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::*;

const TASKS: &str = "io.modelcontextprotocol/tasks";
/// A task tool of the conformance server that fails after 300 ms.
const QUICK_TASK: &str = "protocol_error_job";
/// Bound on one whole test.
const TEST_TIMEOUT: Duration = Duration::from_secs(120);

/// A client that declares the tasks extension, its connections from
/// `source`.
struct Client {
    url: String,
    http: reqwest::Client,
}

impl Client {
    fn from(server: &HttpServer, source: Ipv4Addr) -> Self {
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(IO_TIMEOUT)
            .local_address(IpAddr::V4(source))
            .build()
            .unwrap();
        Self {
            url: server.url.clone(),
            http,
        }
    }

    fn meta() -> Value {
        json!({
            META_VERSION: PROTOCOL_VERSION,
            META_CAPS: {"extensions": {TASKS: {}}},
        })
    }

    /// Sends `method` with `params` and this `_meta`; the JSON-RPC answer.
    async fn rpc_with_meta(&self, method: &str, params: Value, meta: Value) -> Value {
        let message = request_with_meta(json!(1), method, params, meta);
        let mut request = self.http.post(&self.url);
        let mut headers = headers_for(&message);
        if let Some(id) = message["params"]["taskId"].as_str() {
            set_header(&mut headers, "Mcp-Name", id);
        }
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let body = serde_json::to_vec(&message).unwrap();
        let text = request
            .body(body)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:.300}"))
    }

    async fn rpc(&self, method: &str, params: Value) -> Value {
        self.rpc_with_meta(method, params, Self::meta()).await
    }

    async fn call_quick_task(&self) -> Value {
        self.rpc("tools/call", json!({"name": QUICK_TASK, "arguments": {}}))
            .await
    }

    /// `tasks/get` until the task is finished (bounded).
    async fn until_finished(&self, id: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let got = self.rpc("tasks/get", json!({"taskId": id})).await;
            let task = got
                .get("result")
                .unwrap_or_else(|| panic!("tasks/get failed: {got:#}"));
            if ["completed", "failed", "cancelled"].contains(&task["status"].as_str().unwrap_or(""))
            {
                return task.clone();
            }
            assert!(
                Instant::now() < deadline,
                "the task never finished: {task:#}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

fn task_id(answer: &Value) -> Option<String> {
    answer["result"]["taskId"].as_str().map(str::to_owned)
}

#[tokio::test]
async fn one_client_filling_its_allowance_leaves_room_for_another() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        const CAP: usize = 3;
        const CAPACITY: usize = 8;
        let server = HttpServer::spawn_with(&[
            "--task-client-cap",
            &CAP.to_string(),
            "--task-capacity",
            &CAPACITY.to_string(),
        ]);
        let greedy = Client::from(&server, Ipv4Addr::new(127, 0, 0, 1));
        let mut created = Vec::new();
        let mut refusal = None;
        // Bounded: past the store's capacity, something must have refused.
        for _ in 0..=CAPACITY {
            let answer = greedy.call_quick_task().await;
            match task_id(&answer) {
                Some(id) => {
                    // It finishes at once; finished, it still counts.
                    greedy.until_finished(&id).await;
                    created.push(id);
                }
                None => {
                    refusal = Some(answer);
                    break;
                }
            }
        }
        let count = created.len();
        let refusal = refusal.unwrap_or_else(|| panic!("{count} tasks and never refused"));
        let message = refusal["error"]["message"].as_str().unwrap_or_default();
        eprintln!("created {count}, then refused: {refusal}");
        assert_eq!(count, CAP, "refused after {count}: {refusal:#}");
        assert!(
            message.contains(&CAP.to_string())
                && message.contains("max_tasks_per_anonymous_client"),
            "the refusal names the cap and its setter: {refusal:#}"
        );
        // A client from another address has its own allowance.
        let other = Client::from(&server, Ipv4Addr::new(127, 0, 0, 2));
        let answer = other.call_quick_task().await;
        let id = task_id(&answer).unwrap_or_else(|| panic!("the other client: {answer:#}"));
        other.until_finished(&id).await;
        // The first may still read its finished tasks, and create no more.
        for id in &created {
            greedy.until_finished(id).await;
        }
        assert!(task_id(&greedy.call_quick_task().await).is_none());
    })
    .await
    .expect("the test finished within its bound");
}

#[tokio::test]
async fn a_large_meta_is_not_kept_by_task_records() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        const TASK_COUNT: usize = 20;
        // About 3 MB of `0,`: some 1.5 million JSON values.
        const PADDING: usize = 1_500_000;
        // Room for all of them (20 by default).
        let server = HttpServer::spawn_with(&["--task-client-cap", "100"]);
        let client = Client::from(&server, Ipv4Addr::LOCALHOST);
        let warm = client.call_quick_task().await;
        let warm = task_id(&warm).unwrap_or_else(|| panic!("{warm:#}"));
        client.until_finished(&warm).await;
        let before = rss_bytes(server.pid());

        let mut meta = Client::meta();
        meta["x-padding"] = Value::Array(vec![json!(0); PADDING]);
        let mut ids = Vec::new();
        for _ in 0..TASK_COUNT {
            let answer = client
                .rpc_with_meta(
                    "tools/call",
                    json!({"name": QUICK_TASK, "arguments": {}}),
                    meta.clone(),
                )
                .await;
            ids.push(task_id(&answer).unwrap_or_else(|| panic!("{answer:#}")));
        }
        for id in &ids {
            let task = client.until_finished(id).await;
            assert_eq!(task["status"], "failed", "{task:#}");
        }
        // What the requests held while they were read is given back (the
        // allocator may keep a little); the records keep none of it.
        let margin = 64 * 1024 * 1024;
        let after = rss_settled(server.pid(), before + margin, Duration::from_secs(10)).await;
        eprintln!(
            "RSS: {} MiB before, {} MiB after {TASK_COUNT} tasks with a 3 MB _meta",
            before >> 20,
            after >> 20
        );
        assert!(
            after <= before + margin,
            "RSS {} MiB after {TASK_COUNT} tasks with a 3 MB _meta, {} MiB before",
            after >> 20,
            before >> 20
        );
        // `tasks/get` answers, at once.
        let started = Instant::now();
        for id in &ids {
            client.until_finished(id).await;
        }
        eprintln!("{TASK_COUNT} tasks/get in {:?}", started.elapsed());
    })
    .await
    .expect("the test finished within its bound");
}

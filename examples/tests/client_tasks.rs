//! The client's side of the tasks extension against `conformance-server`,
//! over HTTP on 127.0.0.1 and over stdio:
//! - a client that declares the extension awaits a task to its result
//!   (`call_tool`), the task's questions answered through `tasks/update` by
//!   the registered form handler or by a per-call handler;
//! - a question asked before the task exists is answered as an ordinary
//!   round;
//! - a task that fails carries its error; one that fails as a tool does
//!   completes with its `isError` result;
//! - `start()` returns the task; `cancel()` makes it `cancelled`, and
//!   waiting on it then says so;
//! - dropping a wait does not cancel the task;
//! - `max_rounds` bounds the task's input rounds, `max_duration` its wait;
//! - without the extension a call is ordinary, and a required task is
//!   refused with `-32021`.
//!
//! Every wait is bounded.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use mcp_runtime::client::{Client, ClientBuilder, ClientError, InputResponse, Retry, Started};
use mcp_runtime::schema::{
    CallToolResult, ElicitRequestFormParams, ElicitResult, ElicitValue, TaskStatus,
};
use serde_json::{Value, json};
use support::*;

/// Bound on one whole test.
const TEST_TIMEOUT: Duration = Duration::from_secs(90);

/// Answers every form: name Ada, confirm yes.
async fn answer_form(params: ElicitRequestFormParams) -> ElicitResult {
    let mut content = BTreeMap::new();
    for field in params.requested_schema.properties.keys() {
        let value = match field.as_str() {
            "name" => json!("Ada"),
            "confirm" => json!(true),
            other => panic!("unexpected form field {other:?}"),
        };
        let value: ElicitValue = serde_json::from_value(value).unwrap();
        content.insert(field.clone(), value);
    }
    ElicitResult::accept(content)
}

/// A client of `server` that declares the extension and answers forms.
async fn tasks_client(server: &HttpServer) -> Client {
    Client::http(&server.url)
        .tasks()
        .on_elicit_form(answer_form)
        .connect()
        .await
        .unwrap()
}

/// The text of a tool result's first content block.
fn text(result: &CallToolResult) -> String {
    let value = serde_json::to_value(result).unwrap();
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {value:#}"))
        .to_owned()
}

/// Runs `test` within [`TEST_TIMEOUT`].
async fn bounded<F: std::future::Future<Output = ()>>(test: F) {
    tokio::time::timeout(TEST_TIMEOUT, test)
        .await
        .expect("the test did not finish in time");
}

#[tokio::test]
async fn call_tool_awaits_a_task_that_works_in_the_background() {
    let server = HttpServer::spawn();
    bounded(async {
        let client = tasks_client(&server).await;
        // Two seconds of work: far past the creation window, so a task.
        let started = client
            .tool_call("slow_compute")
            .arguments(&json!({"seconds": 2, "label": "sums"}))
            .start()
            .await
            .unwrap();
        let Started::Task(task) = started else {
            panic!("slow_compute did not become a task: {started:?}");
        };
        assert!(!task.id().is_empty());
        assert_eq!(task.created().status, TaskStatus::Working);
        assert_eq!(task.status().await.unwrap().status, TaskStatus::Working);
        let result = task.wait().await.unwrap();
        assert_eq!(text(&result), "computed sums in 2 s");

        // `call_tool` does the same in one call.
        let mut arguments = mcp_runtime::schema::JsonObject::new();
        arguments.insert("seconds".into(), json!(1));
        let result = client
            .call_tool("slow_compute", Some(arguments))
            .await
            .unwrap();
        assert_eq!(text(&result), "computed work in 1 s");

        // Work that ends within the creation window is answered directly.
        match client
            .call_tool_with("slow_compute", &json!({"seconds": 0}))
            .start()
            .await
            .unwrap()
        {
            Started::Complete(result) => assert_eq!(text(&result), "computed work in 0 s"),
            Started::Task(task) => panic!("a task for no work: {task:?}"),
        }
        // A single round has no place for a task.
        let mut arguments = mcp_runtime::schema::JsonObject::new();
        arguments.insert("filename".into(), json!("once.txt"));
        let once = client
            .call_tool_once("confirm_delete", Some(arguments), &Retry::none())
            .await;
        assert_eq!(once, Err(ClientError::UnknownResultType("task".into())));
    })
    .await;
}

#[tokio::test]
async fn a_task_that_asks_is_answered_by_the_form_handler() {
    let server = HttpServer::spawn();
    bounded(async {
        let client = tasks_client(&server).await;
        // `confirm_delete` always runs as a task and asks inside it.
        let result = client
            .call_tool_with("confirm_delete", &json!({"filename": "a.txt"}))
            .await
            .unwrap();
        assert_eq!(text(&result), "deleted 'a.txt'");
        // Two questions in one round.
        let result = client.tool_call("multi_input").await.unwrap();
        assert_eq!(text(&result), "Hello, Ada, confirmed.");
        // A question before the task (an ordinary round), then the task.
        let result = client.tool_call("test_tool_with_task").await.unwrap();
        assert_eq!(text(&result), "Hello, Ada! (computed in task)");
    })
    .await;
}

#[tokio::test]
async fn a_per_call_handler_answers_the_task_first() {
    let server = HttpServer::spawn();
    bounded(async {
        // No form handler on the client: the per-call one must answer.
        let client = Client::http(&server.url).tasks().connect().await.unwrap();
        let result = client
            .call_tool_with("confirm_delete", &json!({"filename": "b.txt"}))
            .answering(|asked| async move {
                assert!(asked.form().is_some(), "{asked:?}");
                InputResponse::decline()
            })
            .await
            .unwrap();
        assert_eq!(text(&result), "kept 'b.txt'");
        // Without a per-call handler the call declares no elicitation, so
        // the server fails the task when it asks.
        match client
            .call_tool_with("confirm_delete", &json!({"filename": "c.txt"}))
            .await
        {
            Err(ClientError::TaskFailed { error, .. }) => {
                assert_eq!(error.code, -32021, "{error:?}");
            }
            other => panic!("{other:?}"),
        }
    })
    .await;
}

#[tokio::test]
async fn failed_tasks_carry_their_error() {
    let server = HttpServer::spawn();
    bounded(async {
        let client = tasks_client(&server).await;
        match client.tool_call("protocol_error_job").await {
            Err(ClientError::TaskFailed { task_id, error }) => {
                assert!(!task_id.is_empty());
                assert_eq!(error.code, -32603);
                assert_eq!(error.message, "The job's backend refused the request");
            }
            other => panic!("{other:?}"),
        }
        // A tool error completes the task: the result says it.
        let result = client.tool_call("failing_job").await.unwrap();
        assert_eq!(result.is_error, Some(true));
        assert!(text(&result).contains("corrupt"), "{result:?}");
    })
    .await;
}

#[tokio::test]
async fn a_started_task_is_cancelled() {
    let server = HttpServer::spawn();
    bounded(async {
        let client = tasks_client(&server).await;
        let Started::Task(task) = client
            .call_tool_with("slow_compute", &json!({"seconds": 600}))
            .start()
            .await
            .unwrap()
        else {
            panic!("slow_compute did not become a task");
        };
        task.cancel().await.unwrap();
        let read = task.status().await.unwrap();
        assert_eq!(read.status, TaskStatus::Cancelled, "{read:?}");
        match task.wait().await {
            Err(ClientError::TaskCancelled { task_id, .. }) => assert_eq!(task_id, task.id()),
            other => panic!("{other:?}"),
        }
        // Cancelling a finished task is answered the same way.
        task.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_dropped_wait_leaves_the_task_running_and_the_wait_is_bounded() {
    let server = HttpServer::spawn();
    bounded(async {
        let client = Client::http(&server.url)
            .tasks()
            .max_duration(Duration::from_secs(2))
            .connect()
            .await
            .unwrap();
        let Started::Task(task) = client
            .call_tool_with("slow_compute", &json!({"seconds": 600}))
            .start()
            .await
            .unwrap()
        else {
            panic!("slow_compute did not become a task");
        };
        let waited = tokio::time::timeout(Duration::from_millis(1500), task.wait()).await;
        assert!(waited.is_err(), "the wait ended early: {waited:?}");
        assert_eq!(task.status().await.unwrap().status, TaskStatus::Working);
        assert_eq!(
            task.wait().await,
            Err(ClientError::Timeout(Duration::from_secs(2)))
        );
        assert_eq!(task.status().await.unwrap().status, TaskStatus::Working);
        // The awaited call times out the same way.
        let error = client
            .call_tool_with("slow_compute", &json!({"seconds": 600}))
            .await
            .unwrap_err();
        assert_eq!(error, ClientError::Timeout(Duration::from_secs(2)));
        task.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn max_rounds_bounds_the_rounds_inside_a_task() {
    let server = HttpServer::spawn();
    bounded(async {
        let client = Client::http(&server.url)
            .tasks()
            .on_elicit_form(answer_form)
            .max_rounds(0)
            .connect()
            .await
            .unwrap();
        let error = client.tool_call("multi_input").await.unwrap_err();
        assert_eq!(error, ClientError::RoundsExceeded { max_rounds: 0 });
        // A round before the task counts as well.
        let error = client.tool_call("test_tool_with_task").await.unwrap_err();
        assert_eq!(error, ClientError::RoundsExceeded { max_rounds: 0 });
        // One round is enough for it.
        let builder: ClientBuilder = Client::http(&server.url)
            .tasks()
            .on_elicit_form(answer_form)
            .max_rounds(1);
        let client = builder.connect().await.unwrap();
        let result = client.tool_call("multi_input").await.unwrap();
        assert_eq!(text(&result), "Hello, Ada, confirmed.");
    })
    .await;
}

#[tokio::test]
async fn without_the_extension_calls_are_ordinary() {
    let server = HttpServer::spawn();
    bounded(async {
        let client = Client::http(&server.url)
            .on_elicit_form(answer_form)
            .connect()
            .await
            .unwrap();
        assert!(client.capabilities().extensions.is_none());
        let started = client
            .call_tool_with("slow_compute", &json!({"seconds": 1}))
            .start()
            .await
            .unwrap();
        match started {
            Started::Complete(result) => assert_eq!(text(&result), "computed work in 1 s"),
            Started::Task(task) => panic!("a task without the extension: {task:?}"),
        }
        match client
            .call_tool_with("confirm_delete", &json!({"filename": "d.txt"}))
            .await
        {
            Err(ClientError::Protocol(error)) => {
                assert_eq!(error.code, -32021, "{error:?}");
                let data = error.data.unwrap_or(Value::Null);
                assert!(
                    data["requiredCapabilities"]["extensions"]
                        .get("io.modelcontextprotocol/tasks")
                        .is_some(),
                    "{data:#}"
                );
            }
            other => panic!("{other:?}"),
        }
    })
    .await;
}

#[tokio::test]
async fn a_task_is_awaited_over_stdio() {
    bounded(async {
        let client = Client::stdio(server_bin(), ["--stdio"])
            .tasks()
            .on_elicit_form(answer_form)
            .connect()
            .await
            .unwrap();
        let result = client
            .call_tool_with("confirm_delete", &json!({"filename": "e.txt"}))
            .await
            .unwrap();
        assert_eq!(text(&result), "deleted 'e.txt'");
        let Started::Task(task) = client
            .call_tool_with("slow_compute", &json!({"seconds": 600}))
            .start()
            .await
            .unwrap()
        else {
            panic!("slow_compute did not become a task over stdio");
        };
        task.cancel().await.unwrap();
        assert_eq!(task.status().await.unwrap().status, TaskStatus::Cancelled);
    })
    .await;
}

//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) from the
//! client's side: declaring it ([`ClientBuilder::tasks`]), starting a call
//! that may become a task ([`Call::start`]), and awaiting a task: polling
//! `tasks/get` as the server's hints say, answering its questions with
//! `tasks/update`, and stopping it with `tasks/cancel` ([`TaskHandle`]).
//!
//! [`Client::call_tool`] and an awaited [`Call`] await a task for the
//! caller: a client that declares the extension gets the tool's final
//! result either way.
//!
//! Every wait is bounded: polling by [`ClientLimits::max_duration`](super::ClientLimits)
//! and a floor on the poll interval ([`poll_delay`]), input rounds by
//! [`ClientLimits::max_rounds`](super::ClientLimits).

use std::fmt;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::answering::{PerCall, answer_round, with_elicitation};
use super::fulfil::Ended;
use super::{Call, Client, ClientBuilder, ClientError};
use crate::schema::request_methods::TOOLS_CALL;
use crate::schema::task_methods::{TASKS_CANCEL, TASKS_GET, TASKS_UPDATE};
use crate::schema::{
    CallToolResult, ClientCapabilities, InputRequests, InputRequiredResult, InputResponses,
    JsonObject, TASKS_EXTENSION, Task, TaskStatus,
};

/// The `resultType` of a `CreateTaskResult`.
pub(super) const TASK_RESULT_TYPE: &str = "task";

/// The shortest wait between two polls, whatever the server suggests: a
/// `pollIntervalMs` of 0 cannot make the client spin.
const MIN_POLL: Duration = Duration::from_millis(100);
/// The longest wait between two polls, whatever the server suggests.
const MAX_POLL: Duration = Duration::from_secs(30);
/// The wait between two polls when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// The wait before the next `tasks/get`, given the server's
/// `pollIntervalMs`: the hint, held between 100 ms and 30 s; 1 s without
/// one.
pub(super) fn poll_delay(hint_ms: Option<u64>) -> Duration {
    match hint_ms {
        Some(ms) => Duration::from_millis(ms).clamp(MIN_POLL, MAX_POLL),
        None => DEFAULT_POLL,
    }
}

/// `capabilities`, declaring the tasks extension when `tasks` is set.
pub(super) fn declared(mut capabilities: ClientCapabilities, tasks: bool) -> ClientCapabilities {
    if tasks {
        capabilities
            .extensions
            .get_or_insert_with(JsonObject::new)
            .insert(TASKS_EXTENSION.to_owned(), Value::Object(JsonObject::new()));
    }
    capabilities
}

/// Whether `capabilities` declare the tasks extension.
fn declares(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .extensions
        .as_ref()
        .is_some_and(|extensions| extensions.contains_key(TASKS_EXTENSION))
}

/// The task of a result of `method` whose `resultType` is `kind`: a
/// `CreateTaskResult` when `kind` is `"task"`, the request a `tools/call`
/// (the only request the extension makes a task of) and its capabilities
/// declare the extension; otherwise `kind` is unknown, as the
/// specification says.
pub(super) fn created(
    method: &str,
    kind: String,
    result: Value,
    capabilities: &ClientCapabilities,
) -> Result<Box<Task>, ClientError> {
    if kind != TASK_RESULT_TYPE || method != TOOLS_CALL || !declares(capabilities) {
        return Err(ClientError::UnknownResultType(kind));
    }
    read_task(result, None, TOOLS_CALL).map(Box::new)
}

/// Reads a task from the answer to `method`; it must name `expected` when
/// given.
fn read_task(result: Value, expected: Option<&str>, method: &str) -> Result<Task, ClientError> {
    let found = result.get("taskId").and_then(Value::as_str);
    let task_id = expected.or(found).unwrap_or("(none given)").to_owned();
    let malformed = |detail: String| ClientError::MalformedTask {
        task_id: task_id.clone(),
        method: method.to_owned(),
        detail,
    };
    match (found, expected) {
        (None, _) => return Err(malformed("no taskId string".into())),
        (Some(""), _) => return Err(malformed("an empty taskId".into())),
        (Some(found), Some(expected)) if found != expected => {
            return Err(malformed(format!("the answer is about task {found:?}")));
        }
        _ => {}
    }
    match result.get("status") {
        Some(Value::String(status)) => {
            if serde_json::from_value::<TaskStatus>(Value::String(status.clone())).is_err() {
                return Err(ClientError::UnknownTaskStatus {
                    task_id,
                    method: method.to_owned(),
                    status: status.clone(),
                });
            }
        }
        Some(_) => return Err(malformed("a status that is not a string".into())),
        None => return Err(malformed("no status".into())),
    }
    serde_json::from_value(result).map_err(|e| malformed(e.to_string()))
}

/// What to do after reading a task.
#[derive(Debug, PartialEq)]
enum Next {
    /// Poll again after this long.
    Poll(Duration),
    /// Answer these questions with `tasks/update`.
    Answer(InputRequests),
    /// The task completed with this result.
    Done(Value),
}

/// What a task's state calls for: wait, answer, or end (with the result,
/// or the error of a failed or cancelled task).
fn next(task: Task) -> Result<Next, ClientError> {
    let delay = poll_delay(task.poll_interval_ms);
    let malformed = |detail: &str| ClientError::MalformedTask {
        task_id: task.task_id.clone(),
        method: TASKS_GET.to_owned(),
        detail: detail.to_owned(),
    };
    match task.status {
        TaskStatus::Working => Ok(Next::Poll(delay)),
        TaskStatus::InputRequired => match task.input_requests {
            Some(requests) if !requests.is_empty() => Ok(Next::Answer(requests)),
            // Every question answered, the next round not yet started.
            _ => Ok(Next::Poll(delay)),
        },
        TaskStatus::Completed => match task.result {
            Some(result) => Ok(Next::Done(result)),
            None => Err(malformed("a completed task without its result")),
        },
        TaskStatus::Failed => match task.error {
            Some(error) => Err(ClientError::TaskFailed {
                task_id: task.task_id,
                error,
            }),
            None => Err(malformed("a failed task without its error")),
        },
        TaskStatus::Cancelled => Err(ClientError::TaskCancelled {
            task_id: task.task_id,
            message: task.status_message,
        }),
    }
}

/// Sends `method` about `task_id` with `params` (besides `taskId`),
/// declaring `capabilities`; an error names the task and the request.
async fn task_request(
    client: &Client,
    method: &str,
    task_id: &str,
    mut params: JsonObject,
    capabilities: &ClientCapabilities,
) -> Result<Value, ClientError> {
    params.insert("taskId".to_owned(), Value::String(task_id.to_owned()));
    client
        .request_as(method, params, capabilities, None)
        .await
        .map_err(|error| ClientError::TaskRequest {
            task_id: task_id.to_owned(),
            method: method.to_owned(),
            error: Box::new(error),
        })
}

/// One `tasks/get`.
async fn get(
    client: &Client,
    task_id: &str,
    capabilities: &ClientCapabilities,
) -> Result<Task, ClientError> {
    let answer = task_request(client, TASKS_GET, task_id, JsonObject::new(), capabilities).await?;
    read_task(answer, Some(task_id), TASKS_GET)
}

/// Awaits `created` to its end: polls, answers its questions (the per-call
/// handler first, then the client's), and decodes its result as `T`.
/// `fulfilled` rounds were answered before the task existed; they count
/// towards `max_rounds`. Not bounded in time here: the callers are.
pub(super) async fn settle<T: DeserializeOwned>(
    client: &Client,
    created: &Task,
    per_call: Option<&PerCall<'_>>,
    capabilities: &ClientCapabilities,
    fulfilled: usize,
) -> Result<T, ClientError> {
    let task_id = created.task_id.clone();
    let mut rounds = fulfilled;
    let mut delay = match created.status {
        TaskStatus::Working => poll_delay(created.poll_interval_ms),
        _ => Duration::ZERO, // already finished or asking: read it at once
    };
    loop {
        tokio::time::sleep(delay).await;
        let task = get(client, &task_id, capabilities).await?;
        delay = match next(task)? {
            Next::Poll(delay) => delay,
            Next::Done(result) => {
                return serde_json::from_value(result).map_err(|e| ClientError::MalformedTask {
                    task_id: task_id.clone(),
                    method: TASKS_GET.to_owned(),
                    detail: format!("the result is not a tool result: {e}"),
                });
            }
            Next::Answer(requests) => {
                if rounds >= client.limits.max_rounds {
                    return Err(ClientError::RoundsExceeded {
                        max_rounds: client.limits.max_rounds,
                    });
                }
                let asked = InputRequiredResult::with_requests(requests);
                let responses = match per_call {
                    Some(per_call) => answer_round(per_call, &client.handlers, &asked).await?,
                    None => client.fulfil(&asked).await?,
                };
                update(client, &task_id, responses, capabilities).await?;
                rounds += 1;
                MIN_POLL
            }
        };
    }
}

/// One `tasks/update` carrying `responses`.
async fn update(
    client: &Client,
    task_id: &str,
    responses: InputResponses,
    capabilities: &ClientCapabilities,
) -> Result<(), ClientError> {
    let mut params = JsonObject::new();
    params.insert("inputResponses".to_owned(), Value::Object(responses));
    task_request(client, TASKS_UPDATE, task_id, params, capabilities).await?;
    Ok(())
}

/// What [`Call::start`] returns: the tool's result, when the server
/// answered the call directly, or the task it created.
#[derive(Debug)]
pub enum Started<'a> {
    /// The server answered directly (the tool finished within the
    /// server's creation window, or the request did not declare the
    /// extension).
    Complete(CallToolResult),
    /// The server created a task: poll it, await it or cancel it.
    Task(TaskHandle<'a>),
}

/// A task a `tools/call` became, returned by [`Call::start`].
///
/// Its requests (`tasks/get`, `tasks/update`, `tasks/cancel`) declare the
/// capabilities of the call that created it, the tasks extension among
/// them, and its questions are answered by the call's per-call handler
/// ([`Call::answering`]) and then the client's handlers.
///
/// **Dropping is not cancelling.** A task outlives the request that
/// created it, and dropping this handle, or a `call_tool` future awaiting a
/// task, sends nothing: the task runs on until it finishes or expires on
/// the server. Call [`TaskHandle::cancel`] to stop it. A client that loses
/// interest can still reach the task by its [`id`](TaskHandle::id) as long
/// as the server keeps it; cancelling in `Drop` would need a request sent
/// from a destructor, which cannot be awaited or reported.
pub struct TaskHandle<'a> {
    client: &'a Client,
    created: Box<Task>,
    capabilities: Box<ClientCapabilities>,
    answering: Option<PerCall<'a>>,
    /// Input rounds answered before the task existed.
    fulfilled: usize,
}

impl fmt::Debug for TaskHandle<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskHandle")
            .field("created", &self.created)
            .field("answering", &self.answering.is_some())
            .field("fulfilled", &self.fulfilled)
            .finish_non_exhaustive()
    }
}

impl<'a> TaskHandle<'a> {
    /// The server's id of the task.
    pub fn id(&self) -> &str {
        &self.created.task_id
    }

    /// The task as the server created it (the `CreateTaskResult`): status,
    /// timestamps, time to live and poll interval.
    pub fn created(&self) -> &Task {
        &self.created
    }

    /// Reads the task once (`tasks/get`): its status, and its questions,
    /// result or error.
    ///
    /// An answer about another task, without a field the extension
    /// requires, or with a status the extension does not define is an
    /// error ([`ClientError::MalformedTask`],
    /// [`ClientError::UnknownTaskStatus`]).
    pub async fn status(&self) -> Result<Task, ClientError> {
        get(self.client, self.id(), &self.capabilities).await
    }

    /// Awaits the task's end, as [`Client::call_tool`] does: polls
    /// `tasks/get` as the server's `pollIntervalMs` says (held between
    /// 100 ms and 30 s), answers its questions with `tasks/update`, and
    /// returns the tool's result.
    ///
    /// Fails with [`ClientError::TaskFailed`] (the task carries a JSON-RPC
    /// error), [`ClientError::TaskCancelled`], [`ClientError::Timeout`]
    /// after [`ClientLimits::max_duration`](super::ClientLimits) from this
    /// call, and [`ClientError::RoundsExceeded`] once the call's input
    /// rounds, before and inside the task, pass
    /// [`ClientLimits::max_rounds`](super::ClientLimits). A tool that fails
    /// as a tool does (`isError`) completes its task: its result is
    /// returned.
    pub async fn wait(&self) -> Result<CallToolResult, ClientError> {
        let limit = self.client.limits.max_duration;
        let settled = settle(
            self.client,
            &self.created,
            self.answering.as_ref(),
            &self.capabilities,
            self.fulfilled,
        );
        tokio::time::timeout(limit, settled)
            .await
            .map_err(|_| ClientError::Timeout(limit))?
    }

    /// Asks the server to stop the task (`tasks/cancel`). A task that has
    /// not finished becomes `cancelled`; a finished one stays as it is and
    /// the answer is the same.
    pub async fn cancel(&self) -> Result<(), ClientError> {
        task_request(
            self.client,
            TASKS_CANCEL,
            self.id(),
            JsonObject::new(),
            &self.capabilities,
        )
        .await?;
        Ok(())
    }
}

impl ClientBuilder {
    /// Declares the tasks extension (`io.modelcontextprotocol/tasks`) in
    /// every request's client capabilities, so that the server may run a
    /// `tools/call` as a task; a tool that requires one refuses a client
    /// without it with `-32021`.
    ///
    /// [`Client::call_tool`] and an awaited [`Call`] then await a task to
    /// its result; [`Call::start`] returns the task instead.
    ///
    /// ```no_run
    /// use mcp_runtime::client::{Client, Started};
    /// use mcp_runtime::schema::ElicitResult;
    ///
    /// # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
    /// let client = Client::http("http://127.0.0.1:8080/mcp")
    ///     .tasks()
    ///     .on_elicit_form(|_| async { ElicitResult::decline() })
    ///     .connect()
    ///     .await?;
    /// // Awaited to its end, task or not; the task's questions go to the
    /// // form handler through `tasks/update`.
    /// let result = client.call_tool("deploy", None).await?;
    /// # let _ = result;
    ///
    /// // Or the task itself.
    /// match client.tool_call("deploy").start().await? {
    ///     Started::Complete(result) => println!("answered at once: {result:?}"),
    ///     Started::Task(task) => {
    ///         println!("task {}: {:?}", task.id(), task.status().await?.status);
    ///         task.cancel().await?;
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "tasks")))]
    pub fn tasks(mut self) -> Self {
        self.tasks = true;
        self
    }
}

impl<'a> Call<'a, CallToolResult> {
    /// Sends the call and fulfils its input requests until the server
    /// answers it directly or creates a task, and returns which.
    ///
    /// Questions asked before the task exists are answered as for an
    /// awaited call; the task's own are answered by [`TaskHandle::wait`]
    /// (with this call's per-call handler, if any). Without
    /// [`ClientBuilder::tasks`] the server never creates a task, and this
    /// is always [`Started::Complete`]. Bounded by the client's
    /// `max_duration` and `max_rounds`.
    ///
    /// ```no_run
    /// use mcp_runtime::client::{Client, Started};
    ///
    /// # async fn run(client: Client) -> Result<(), mcp_runtime::client::ClientError> {
    /// let result = match client.tool_call("slow_compute").start().await? {
    ///     Started::Complete(result) => result,
    ///     Started::Task(task) => task.wait().await?,
    /// };
    /// # let _ = result;
    /// # Ok(()) }
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "tasks")))]
    pub async fn start(self) -> Result<Started<'a>, ClientError> {
        let (client, method, params, answering) = self.into_parts();
        let params = params?;
        let capabilities = match answering {
            Some(_) => with_elicitation(&client.capabilities),
            None => client.capabilities.clone(),
        };
        let limit = client.limits.max_duration;
        let rounds = client.until_task(method, params, answering.as_ref(), &capabilities, None);
        let ended = tokio::time::timeout(limit, rounds)
            .await
            .map_err(|_| ClientError::Timeout(limit))??;
        Ok(match ended {
            Ended::Complete(result) => Started::Complete(result),
            Ended::Task(created, fulfilled) => Started::Task(TaskHandle {
                client,
                created,
                capabilities: Box::new(capabilities),
                answering,
                fulfilled,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(status: &str) -> Value {
        json!({
            "taskId": "t1",
            "status": status,
            "createdAt": "2026-12-03T10:00:00Z",
            "lastUpdatedAt": "2026-12-03T10:00:00Z",
            "ttlMs": 60000,
            "pollIntervalMs": 0
        })
    }

    fn with_tasks() -> ClientCapabilities {
        declared(ClientCapabilities::default(), true)
    }

    #[test]
    fn a_poll_interval_of_zero_is_floored_and_a_huge_one_capped() {
        assert_eq!(poll_delay(Some(0)), MIN_POLL);
        assert_eq!(poll_delay(Some(1)), MIN_POLL);
        assert_eq!(poll_delay(Some(250)), Duration::from_millis(250));
        assert_eq!(poll_delay(Some(u64::MAX)), MAX_POLL);
        assert_eq!(poll_delay(None), DEFAULT_POLL);
        // A working task whose server asks for no wait at all still waits.
        let working = read_task(task("working"), Some("t1"), TASKS_GET);
        assert_eq!(next(working.unwrap()).unwrap(), Next::Poll(MIN_POLL));
    }

    #[test]
    fn an_unknown_status_is_a_typed_error() {
        assert_eq!(
            read_task(task("paused"), Some("t1"), TASKS_GET).unwrap_err(),
            ClientError::UnknownTaskStatus {
                task_id: "t1".into(),
                method: "tasks/get".into(),
                status: "paused".into(),
            }
        );
    }

    #[test]
    fn a_changed_or_missing_id_or_field_is_malformed() {
        let mut other = task("working");
        other["taskId"] = json!("t2");
        let error = read_task(other, Some("t1"), TASKS_GET).unwrap_err();
        assert!(
            matches!(&error, ClientError::MalformedTask { task_id, detail, .. }
                if task_id == "t1" && detail.contains("t2")),
            "{error:?}"
        );
        for field in ["taskId", "status", "createdAt"] {
            let mut partial = task("working");
            partial.as_object_mut().unwrap().remove(field);
            let error = read_task(partial, Some("t1"), TASKS_GET).unwrap_err();
            assert!(
                matches!(&error, ClientError::MalformedTask { task_id, method, .. }
                    if task_id == "t1" && method == "tasks/get"),
                "{field}: {error:?}"
            );
        }
        let mut numeric = task("working");
        numeric["status"] = json!(3);
        assert!(matches!(
            read_task(numeric, None, TOOLS_CALL),
            Err(ClientError::MalformedTask { .. })
        ));
    }

    #[test]
    fn a_task_is_taken_only_when_declared_and_named_task() {
        let declared = with_tasks();
        let task_made = created(TOOLS_CALL, "task".into(), task("working"), &declared).unwrap();
        assert_eq!(task_made.task_id, "t1");
        let undeclared = ClientCapabilities::default();
        assert_eq!(
            created(TOOLS_CALL, "task".into(), task("working"), &undeclared),
            Err(ClientError::UnknownResultType("task".into()))
        );
        assert_eq!(
            created(TOOLS_CALL, "job".into(), task("working"), &declared),
            Err(ClientError::UnknownResultType("job".into()))
        );
        assert_eq!(
            created("prompts/get", "task".into(), task("working"), &declared),
            Err(ClientError::UnknownResultType("task".into()))
        );
        assert!(!declares(&ClientCapabilities::default()));
        assert!(declares(&declared));
        assert_eq!(
            self::declared(ClientCapabilities::default(), false),
            ClientCapabilities::default()
        );
    }

    #[test]
    fn finished_tasks_end_with_their_result_or_a_typed_error() {
        let mut done = task("completed");
        done["result"] = json!({"content": []});
        let done = read_task(done, Some("t1"), TASKS_GET).unwrap();
        assert_eq!(next(done).unwrap(), Next::Done(json!({"content": []})));

        let bare = read_task(task("completed"), Some("t1"), TASKS_GET).unwrap();
        assert!(matches!(next(bare), Err(ClientError::MalformedTask { .. })));

        let mut failed = task("failed");
        failed["error"] = json!({"code": -32603, "message": "boom"});
        let failed = read_task(failed, Some("t1"), TASKS_GET).unwrap();
        match next(failed) {
            Err(ClientError::TaskFailed { task_id, error }) => {
                assert_eq!(task_id, "t1");
                assert_eq!(error.code, -32603);
            }
            other => panic!("{other:?}"),
        }
        let bare = read_task(task("failed"), Some("t1"), TASKS_GET).unwrap();
        assert!(matches!(next(bare), Err(ClientError::MalformedTask { .. })));

        let mut cancelled = task("cancelled");
        cancelled["statusMessage"] = json!("Cancelled by the client.");
        let cancelled = read_task(cancelled, Some("t1"), TASKS_GET).unwrap();
        assert_eq!(
            next(cancelled).unwrap_err(),
            ClientError::TaskCancelled {
                task_id: "t1".into(),
                message: Some("Cancelled by the client.".into()),
            }
        );
    }

    #[test]
    fn questions_are_answered_and_an_empty_round_is_polled() {
        let mut asking = task("input_required");
        asking["inputRequests"] = json!({
            "confirm": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "Go?",
                "requestedSchema": {"type": "object", "properties": {}}
            }}
        });
        let asking = read_task(asking, Some("t1"), TASKS_GET).unwrap();
        match next(asking).unwrap() {
            Next::Answer(requests) => assert!(requests.contains_key("confirm")),
            other => panic!("{other:?}"),
        }
        let empty = read_task(task("input_required"), Some("t1"), TASKS_GET).unwrap();
        assert_eq!(next(empty).unwrap(), Next::Poll(MIN_POLL));
    }
}

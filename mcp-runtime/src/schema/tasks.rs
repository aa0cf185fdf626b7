//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a
//! `tools/call` the server runs in the background, polled with `tasks/get`,
//! answered with `tasks/update`, stopped with `tasks/cancel`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ErrorObject, InputRequests, JsonObject};

/// The extension's identifier: the key under `capabilities.extensions` in
/// `server/discover`, and under a request's declared
/// `clientCapabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The extension's request methods.
pub mod task_methods {
    /// Reads a task: its status, and its questions, result or error.
    pub const TASKS_GET: &str = "tasks/get";
    /// Answers the questions of a task waiting for input.
    pub const TASKS_UPDATE: &str = "tasks/update";
    /// Asks the server to stop a task.
    pub const TASKS_CANCEL: &str = "tasks/cancel";
    /// A task's status change, on a `subscriptions/listen` stream.
    pub const NOTIFICATION: &str = "notifications/tasks";
}

/// Where a task is in its life. `working` and `input_required` may
/// alternate; the other three are terminal and never change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client to answer `inputRequests` with `tasks/update`.
    InputRequired,
    /// Finished with a result (a tool's `isError` result included).
    Completed,
    /// Finished with a JSON-RPC error.
    Failed,
    /// Stopped at the client's request.
    Cancelled,
}

impl TaskStatus {
    /// Whether the status is final.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// The status as it travels.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// A task as `tasks/get` and `notifications/tasks` describe it: the common
/// fields, plus what its status carries (`inputRequests`, `result` or
/// `error`). A `CreateTaskResult` is the common fields only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The server's unguessable id of the task.
    pub task_id: String,
    /// Where the task is.
    pub status: TaskStatus,
    /// A human-readable word on the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When the task was created (RFC 3339, UTC).
    pub created_at: String,
    /// When the task last changed (RFC 3339, UTC).
    pub last_updated_at: String,
    /// How long after its creation the task is kept, in milliseconds
    /// (`null`: for ever).
    pub ttl_ms: Option<u64>,
    /// How often the client should poll, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// `input_required`: every question still unanswered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// `completed`: what the `tools/call` would have returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// `failed`: the JSON-RPC error the `tools/call` would have returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// Extension metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `tasks/get`, `tasks/cancel`: the task they name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
}

/// `tasks/update`: answers to a task's outstanding questions, by key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// The answers; a key that is not outstanding is ignored.
    pub input_responses: JsonObject,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_task_omits_what_it_does_not_carry() {
        let task = Task {
            task_id: "t1".to_owned(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: "2026-12-03T10:00:00Z".to_owned(),
            last_updated_at: "2026-12-03T10:00:00Z".to_owned(),
            ttl_ms: Some(60_000),
            poll_interval_ms: None,
            input_requests: None,
            result: None,
            error: None,
            meta: None,
        };
        assert_eq!(
            serde_json::to_value(&task).unwrap_or_default(),
            json!({
                "taskId": "t1",
                "status": "working",
                "createdAt": "2026-12-03T10:00:00Z",
                "lastUpdatedAt": "2026-12-03T10:00:00Z",
                "ttlMs": 60000
            })
        );
        let unlimited = Task {
            ttl_ms: None,
            ..task
        };
        assert_eq!(
            serde_json::to_value(&unlimited).unwrap_or_default()["ttlMs"],
            Value::Null
        );
    }

    #[test]
    fn statuses_travel_in_snake_case() {
        for status in [
            TaskStatus::Working,
            TaskStatus::InputRequired,
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ] {
            assert_eq!(
                serde_json::to_value(status).unwrap_or_default(),
                json!(status.as_str())
            );
        }
    }
}

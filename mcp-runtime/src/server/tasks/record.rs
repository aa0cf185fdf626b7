//! What the server keeps of one task, between the rounds of its handler and
//! across the instances of a fleet: a plain serde record, stored whole.
//!
//! Of the creating request, a record keeps only what a later round needs:
//! the caller (its owner), the tool, the arguments and the `_meta` entries
//! a round runs under (protocol version, client capabilities, client
//! info), each as compact JSON text within a bound (see
//! [`Tasks::max_kept_arguments_bytes`](super::Tasks::max_kept_arguments_bytes)),
//! and only until the task finishes.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::schema::{
    ErrorObject, InputRequests, JsonObject, McpError, RequestMeta, Task, TaskStatus,
};

/// One task as the store keeps it. Every change replaces the record whole,
/// and only if its [`version`](Self::version) is the one read (see
/// [`TaskStore::replace`](super::TaskStore::replace)), so two instances
/// changing one task never lose either change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The task's id: 128 random bits, hex.
    pub id: String,
    /// Who created it: only they may read, answer or cancel it.
    pub owner: String,
    /// The tool it runs.
    pub tool: String,
    /// The tool's arguments, as compact JSON text (stored as the JSON
    /// object itself), which a later round runs with; `None` once the task
    /// has finished.
    #[serde(default, with = "kept_json", skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
    /// What a later round runs under of the creating request's `_meta`
    /// (protocol version, client capabilities, client info), as compact
    /// JSON text (stored as the JSON object itself); `None` once the task
    /// has finished. Other entries of the request's `_meta` are not kept.
    #[serde(default, with = "kept_json", skip_serializing_if = "Option::is_none")]
    pub meta: Option<String>,
    /// Where the task is.
    pub status: TaskStatus,
    /// A word on the status, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// Last change, milliseconds since the Unix epoch.
    pub updated_ms: u64,
    /// How long after creation the record is kept, in milliseconds.
    pub ttl_ms: u64,
    /// The poll interval suggested to the client, in milliseconds.
    pub poll_interval_ms: u64,
    /// How many times the handler has been started for this task.
    pub round: u32,
    /// `input_required`: the questions not yet answered, by wire key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub questions: Option<InputRequests>,
    /// The answers given so far this round, by the handler's own key.
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub answers: JsonObject,
    /// The state the next round resumes from, kept here rather than sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<KeptState>,
    /// `completed`: the tool's result, as `tools/call` would return it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// `failed`: the error `tools/call` would have returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// The instance running a round, and until when it has promised to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<Lease>,
    /// Bumped by every change.
    pub version: u64,
}

/// A handler's resume state, kept server-side between a task's rounds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeptState {
    /// A resume value's bytes, base64url.
    Payload(String),
    /// A token the handler minted itself, verified again on the next round.
    Token(String),
}

impl KeptState {
    /// Keeps a resume value's bytes.
    pub(crate) fn payload(bytes: &[u8]) -> Self {
        Self::Payload(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
    }

    /// The resume value's bytes, if that is what is kept and it decodes.
    pub(crate) fn payload_bytes(&self) -> Option<Vec<u8>> {
        match self {
            Self::Payload(encoded) => base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(encoded)
                .ok(),
            Self::Token(_) => None,
        }
    }
}

/// An instance's promise to finish a round (or renew the promise) by
/// [`until_ms`](Self::until_ms). A `working` task whose lease has run out
/// was left by an instance that stopped: it is failed, never left working.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// The instance holding it.
    pub holder: String,
    /// Until when, milliseconds since the Unix epoch.
    pub until_ms: u64,
}

impl TaskRecord {
    /// A new task `id` of `owner` running `tool`: `working`, created now,
    /// kept `ttl_ms`, in its first round, with no arguments or `_meta`
    /// (set them with struct update syntax).
    pub fn new(
        id: impl Into<String>,
        owner: impl Into<String>,
        tool: impl Into<String>,
        ttl_ms: u64,
    ) -> Self {
        let now = now_ms();
        Self {
            id: id.into(),
            owner: owner.into(),
            tool: tool.into(),
            arguments: None,
            meta: None,
            status: TaskStatus::Working,
            status_message: None,
            created_ms: now,
            updated_ms: now,
            ttl_ms,
            poll_interval_ms: 1000,
            round: 1,
            questions: None,
            answers: JsonObject::new(),
            resume: None,
            result: None,
            error: None,
            lease: None,
            version: 1,
        }
    }

    /// When the record may be forgotten, milliseconds since the Unix epoch.
    pub fn expires_ms(&self) -> u64 {
        self.created_ms.saturating_add(self.ttl_ms)
    }

    /// Whether a `working` task's round was abandoned: its lease ran out.
    pub(crate) fn abandoned(&self, now_ms: u64) -> bool {
        self.status == TaskStatus::Working
            && self.lease.as_ref().is_none_or(|l| l.until_ms < now_ms)
    }

    /// Moves to a terminal status with its result or error; the questions,
    /// answers, state and lease go, and so do the arguments and `_meta`
    /// kept for later rounds.
    pub(crate) fn finish(&mut self, status: TaskStatus, now_ms: u64) {
        self.status = status;
        self.arguments = None;
        self.meta = None;
        self.questions = None;
        self.answers = JsonObject::new();
        self.resume = None;
        self.lease = None;
        self.updated_ms = now_ms;
    }

    /// Fails the task with `error`.
    pub(crate) fn fail(&mut self, error: &McpError, now_ms: u64) {
        let object = error.to_object();
        self.status_message = Some(object.message.clone());
        self.error = Some(object);
        self.result = None;
        self.finish(TaskStatus::Failed, now_ms);
    }

    /// A copy without the kept arguments and `_meta`, which are not copied.
    pub(crate) fn without_kept(&self) -> Self {
        Self {
            id: self.id.clone(),
            owner: self.owner.clone(),
            tool: self.tool.clone(),
            arguments: None,
            meta: None,
            status: self.status,
            status_message: self.status_message.clone(),
            created_ms: self.created_ms,
            updated_ms: self.updated_ms,
            ttl_ms: self.ttl_ms,
            poll_interval_ms: self.poll_interval_ms,
            round: self.round,
            questions: self.questions.clone(),
            answers: self.answers.clone(),
            resume: self.resume.clone(),
            result: self.result.clone(),
            error: self.error.clone(),
            lease: self.lease.clone(),
            version: self.version,
        }
    }

    /// The kept `_meta`, parsed (none kept: an empty object, which does not
    /// make a valid `_meta`).
    pub(crate) fn kept_meta(&self) -> Result<RequestMeta, McpError> {
        let object: JsonObject = match &self.meta {
            Some(text) => serde_json::from_str(text).map_err(|e| {
                McpError::internal(format!("a task's kept _meta does not parse: {e}"))
            })?,
            None => JsonObject::new(),
        };
        RequestMeta::from_json(&object)
            .map_err(|e| McpError::internal(format!("a task's kept _meta is invalid: {e}")))
    }

    /// The task as `tasks/get` shows it.
    pub fn to_task(&self) -> Task {
        Task {
            task_id: self.id.clone(),
            status: self.status,
            status_message: self.status_message.clone(),
            created_at: rfc3339(self.created_ms),
            last_updated_at: rfc3339(self.updated_ms),
            ttl_ms: Some(self.ttl_ms),
            poll_interval_ms: Some(self.poll_interval_ms),
            input_requests: match self.status {
                TaskStatus::InputRequired => self.questions.clone(),
                _ => None,
            },
            result: match self.status {
                TaskStatus::Completed => self.result.clone(),
                _ => None,
            },
            error: match self.status {
                TaskStatus::Failed => self.error.clone(),
                _ => None,
            },
            meta: None,
        }
    }

    /// The task as `CreateTaskResult` shows it: the common fields only.
    pub(crate) fn to_created(&self) -> Task {
        Task {
            input_requests: None,
            result: None,
            error: None,
            ..self.to_task()
        }
    }
}

/// What a request's `_meta` leaves in a task's record: the entries a later
/// round runs under (no progress token: a task sends no progress), as
/// compact JSON text.
pub(crate) fn kept_meta_text(meta: &RequestMeta) -> Result<String, McpError> {
    let mut kept = meta.clone();
    kept.progress_token = None;
    serde_json::to_string(&kept.to_json())
        .map_err(|e| McpError::internal(format!("could not serialise a task's _meta: {e}")))
}

/// Kept JSON text, stored as the JSON it is (so that a record reads the
/// same as one that kept the value itself), read back as compact text.
mod kept_json {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::value::RawValue;

    pub(super) fn serialize<S: Serializer>(
        text: &Option<String>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match text {
            Some(text) => {
                let raw = RawValue::from_string(text.clone()).map_err(serde::ser::Error::custom)?;
                raw.serialize(serializer)
            }
            None => serializer.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<String>, D::Error> {
        let raw = Option::<Box<RawValue>>::deserialize(deserializer)?;
        Ok(raw.map(|raw| String::from(Box::<str>::from(raw))))
    }
}

/// The wire key of a question asked in `round`: the handler's own key in
/// the first round, suffixed with the round after, so that no key is ever
/// used twice in one task.
pub(crate) fn wire_key(key: &str, round: u32) -> String {
    if round <= 1 {
        key.to_owned()
    } else {
        format!("{key}~{round}")
    }
}

/// The handler's key of a wire key asked in `round`.
pub(crate) fn handler_key(wire: &str, round: u32) -> &str {
    if round <= 1 {
        return wire;
    }
    wire.strip_suffix(&format!("~{round}")).unwrap_or(wire)
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `ms` since the epoch as RFC 3339 in UTC, to the millisecond.
pub(crate) fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

/// The (year, month, day) of a day count since 1970-01-01, in the
/// proleptic Gregorian calendar (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_in_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339(1_796_299_199_999), "2026-12-03T11:59:59.999Z");
        assert_eq!(rfc3339(4_107_542_400_000), "2100-03-01T00:00:00.000Z");
    }

    #[test]
    fn wire_keys_never_repeat_and_map_back() {
        assert_eq!(wire_key("confirm", 1), "confirm");
        assert_eq!(wire_key("confirm", 3), "confirm~3");
        assert_eq!(handler_key("confirm~3", 3), "confirm");
        assert_eq!(handler_key("confirm", 1), "confirm");
        assert_eq!(handler_key("a~2", 3), "a~2");
    }

    #[test]
    fn kept_json_is_stored_as_json_and_dropped_when_finished() {
        let mut record = TaskRecord::new("t", "ada", "x", 60_000);
        record.arguments = Some(r#"{"n":[1,2]}"#.to_owned());
        let stored = serde_json::to_value(&record).unwrap_or_default();
        assert_eq!(stored["arguments"], serde_json::json!({"n": [1, 2]}));
        assert!(stored.get("meta").is_none());
        let back: TaskRecord = serde_json::from_value(stored).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, record);
        let kept = crate::server::handler::ToolArguments::from_kept(
            record.arguments.clone().unwrap_or_default(),
        );
        assert_eq!(
            kept.ok().and_then(|a| a.get("n")),
            Some(serde_json::json!([1, 2]))
        );
        record.finish(TaskStatus::Completed, 1);
        assert_eq!((record.arguments, record.meta), (None, None));
    }

    #[test]
    fn a_kept_meta_holds_what_a_round_runs_under_and_nothing_else() {
        let mut object = JsonObject::new();
        object.insert(
            "io.modelcontextprotocol/protocolVersion".into(),
            "2026-07-28".into(),
        );
        object.insert(
            "io.modelcontextprotocol/clientCapabilities".into(),
            serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
        );
        object.insert("progressToken".into(), "p".into());
        object.insert("x-padding".into(), serde_json::json!([0, 0, 0]));
        let meta = RequestMeta::from_json(&object).unwrap_or_else(|e| panic!("{e}"));
        let text = kept_meta_text(&meta).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            !text.contains("x-padding") && !text.contains("progressToken"),
            "{text}"
        );
        let mut record = TaskRecord::new("t", "ada", "x", 60_000);
        record.meta = Some(text);
        let kept = record.kept_meta().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(kept.protocol_version, "2026-07-28");
        assert!(kept.client_capabilities.extensions.is_some());
    }

    #[test]
    fn kept_payloads_round_trip() {
        let kept = KeptState::payload(b"{\"step\":2}");
        assert_eq!(kept.payload_bytes().as_deref(), Some(&b"{\"step\":2}"[..]));
        assert_eq!(KeptState::Token("t".to_owned()).payload_bytes(), None);
    }
}

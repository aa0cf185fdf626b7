//! `tasks/get`, `tasks/update` and `tasks/cancel`: rows of the method
//! table, served from the task's record on whichever instance gets them.
//!
//! Each first checks that the request declares the extension (`-32021`
//! otherwise, before any lookup), then finds the task among the caller's
//! own (`-32602` for one that does not exist, has expired, or is someone
//! else's: the three are indistinguishable). A `working` task whose lease
//! ran out is failed on the way: its instance stopped.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::watch;

use super::TaskEngine;
use super::record::KeptState;
use super::record::{Lease, TaskRecord, handler_key, now_ms};
use super::run::{self, change, unavailable};
use super::start::busy;
use crate::schema::{
    ClientCapabilities, ErrorObject, JsonObject, McpError, TASKS_EXTENSION, TaskIdParams,
    TaskStatus, UpdateTaskParams, codes,
};
use crate::server::gate::Kept;
use crate::server::handler::{Ctx, RequestData, RoundAnswers, TaskLink, ToolArguments};
use crate::server::round::{Call, Core, Shape};
use crate::state::{BindingRequest, BoundArguments};

/// `tasks/get`: the task, with its questions, result or error.
pub(crate) async fn get(core: &Core, engine: &TaskEngine, call: Call) -> Result<String, McpError> {
    declared(&call.data)?;
    let params: TaskIdParams = parse(call.params)?;
    let record = find(engine, &params.task_id, &call.data).await?;
    let mut value = serde_json::to_value(record.to_task())
        .map_err(|e| McpError::internal(format!("could not serialise a task: {e}")))?;
    if let Value::Object(object) = &mut value {
        object.insert("resultType".to_owned(), Value::from("complete"));
    }
    core.finisher.extension(Shape::Modern, value)
}

/// `tasks/update`: answers to the questions of a task waiting for input.
/// Keys that are not outstanding (never asked, answered already, of an
/// earlier round) and answers that are not objects are ignored. Once every
/// question of the round is answered, the next round starts here.
pub(crate) async fn update(
    core: &Arc<Core>,
    engine: &Arc<TaskEngine>,
    call: Call,
) -> Result<String, McpError> {
    let Call {
        mut params,
        round_trip,
        data,
        ..
    } = call;
    declared(&data)?;
    // `inputResponses` travels apart from the params, as on a retry.
    round_trip.restore(&mut params);
    let params: UpdateTaskParams = parse(params)?;
    let found = find(engine, &params.task_id, &data).await?;
    let ready = found.status == TaskStatus::InputRequired;
    if ready && !engine.has_room() {
        return Err(busy(
            "this server runs as many tasks as it may; try again later",
        ));
    }
    let mut starts = false;
    let until_ms = now_ms().saturating_add(engine.lease_ms());
    let written = change(engine.settings.store.as_ref(), &params.task_id, |record| {
        starts = false;
        answer(
            record,
            &params.input_responses,
            &engine.instance,
            until_ms,
            &mut starts,
        )
    })
    .await?;
    if let (true, Some(record)) = (starts, written) {
        start_round(core, engine, record, data).await;
    }
    ack(core)
}

/// `tasks/cancel`: a task not yet finished is cancelled at once; the
/// instance running its round tells the handler and drops it after the
/// cancel grace. A finished task is left as it is; the answer is the same.
pub(crate) async fn cancel(
    core: &Core,
    engine: &TaskEngine,
    call: Call,
) -> Result<String, McpError> {
    declared(&call.data)?;
    let params: TaskIdParams = parse(call.params)?;
    find(engine, &params.task_id, &call.data).await?;
    change(engine.settings.store.as_ref(), &params.task_id, |record| {
        if record.status.is_terminal() {
            return false;
        }
        record.status_message = Some("Cancelled by the client.".to_owned());
        record.finish(TaskStatus::Cancelled, now_ms());
        true
    })
    .await?;
    engine.signal_cancel(&params.task_id);
    ack(core)
}

/// Whether the request declares the extension: `-32021` naming it
/// otherwise.
fn declared(data: &RequestData) -> Result<(), McpError> {
    if declares_tasks(&data.meta().client_capabilities) {
        Ok(())
    } else {
        Err(tasks_required())
    }
}

/// Whether a request's capabilities declare the tasks extension.
pub(crate) fn declares_tasks(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .extensions
        .as_ref()
        .is_some_and(|extensions| extensions.contains_key(TASKS_EXTENSION))
}

/// `-32021` with `data.requiredCapabilities.extensions` naming the tasks
/// extension.
pub(crate) fn tasks_required() -> McpError {
    let mut extensions = JsonObject::new();
    extensions.insert(TASKS_EXTENSION.to_owned(), Value::Object(JsonObject::new()));
    McpError::MissingClientCapability {
        required: Box::new(ClientCapabilities {
            extensions: Some(extensions),
            ..ClientCapabilities::default()
        }),
    }
}

fn parse<T: DeserializeOwned>(mut params: JsonObject) -> Result<T, McpError> {
    params.remove("_meta");
    serde_json::from_value(Value::Object(params))
        .map_err(|e| McpError::invalid_params(format!("invalid params: {e}")))
}

/// The caller's task `id`, its abandonment settled.
async fn find(engine: &TaskEngine, id: &str, data: &RequestData) -> Result<TaskRecord, McpError> {
    let store = engine.settings.store.as_ref();
    let record = store.view(id).await.map_err(unavailable)?;
    let Some(record) = record.filter(|r| r.owner == data.receive().subject()) else {
        return Err(McpError::invalid_params(format!("Unknown task: {id}")));
    };
    let now = now_ms();
    if !record.abandoned(now) {
        return Ok(record);
    }
    let settled = change(store, id, |record| {
        if !record.abandoned(now) {
            return false;
        }
        record.fail(&abandoned(), now);
        true
    })
    .await?;
    settled.ok_or_else(|| McpError::invalid_params(format!("Unknown task: {id}")))
}

fn abandoned() -> McpError {
    McpError::Other(ErrorObject {
        code: codes::INTERNAL_ERROR,
        message: "The server running this task stopped before it finished".to_owned(),
        data: None,
    })
}

/// Takes the answers to outstanding questions into `record`; when none is
/// left, the task goes back to `working` with the next round, leased here
/// (`starts`). Whether anything changed.
fn answer(
    record: &mut TaskRecord,
    responses: &JsonObject,
    instance: &str,
    until_ms: u64,
    starts: &mut bool,
) -> bool {
    if record.status != TaskStatus::InputRequired {
        return false;
    }
    let Some(questions) = record.questions.as_mut() else {
        return false;
    };
    let mut changed = false;
    for (wire, response) in responses {
        if !response.is_object() || questions.remove(wire).is_none() {
            continue;
        }
        let key = handler_key(wire, record.round).to_owned();
        record.answers.insert(key, response.clone());
        changed = true;
    }
    if !changed {
        return false;
    }
    let now = now_ms();
    record.updated_ms = now;
    if record.questions.as_ref().is_some_and(|q| q.is_empty()) {
        record.questions = None;
        record.status = TaskStatus::Working;
        record.status_message = None;
        record.round = record.round.saturating_add(1);
        record.lease = Some(Lease {
            holder: instance.to_owned(),
            until_ms,
        });
        *starts = true;
    }
    true
}

/// Starts the round `record` was just moved to, here. A round that cannot
/// start fails its task, saying why.
async fn start_round(
    core: &Core,
    engine: &Arc<TaskEngine>,
    record: TaskRecord,
    request: Arc<RequestData>,
) {
    let (cancel, cancelled) = watch::channel(false);
    let id = record.id.clone();
    let round = record.round;
    if !engine.admit(&id, cancel.clone()) {
        let full = busy("this server runs as many tasks as it may");
        run::record_outcome(engine, &id, round, Err(full)).await;
        return;
    }
    let prepared = round_data(core, &record, request, cancelled).await;
    let handler = core
        .catalog
        .tools
        .get(&record.tool)
        .map(|(_, h)| Arc::clone(h));
    match (prepared, handler) {
        (Ok((data, arguments)), Some(handler)) => {
            let handle = run::spawn(handler, arguments, Ctx::from_data(data));
            run::supervise(Arc::clone(engine), id, round, handle, cancel);
        }
        (Err(error), _) => {
            run::record_outcome(engine, &id, round, Err(error)).await;
            engine.release(&id);
        }
        (Ok(_), None) => {
            let gone = McpError::internal(format!(
                "the tool {:?} of this task is no longer served",
                record.tool
            ));
            run::record_outcome(engine, &id, round, Err(gone)).await;
            engine.release(&id);
        }
    }
}

/// The data a round of `record` runs with: the creating request's `_meta`,
/// the round's answers, the kept state (a token verified again, like any
/// echoed state; a payload as it was kept), and the `tasks/update`
/// request's caller and transport; and the arguments it runs with.
async fn round_data(
    core: &Core,
    record: &TaskRecord,
    update: Arc<RequestData>,
    cancelled: watch::Receiver<bool>,
) -> Result<(Arc<RequestData>, ToolArguments), McpError> {
    let meta = record.kept_meta()?;
    let arguments = match &record.arguments {
        Some(text) => ToolArguments::from_kept(text.clone())?,
        None => ToolArguments::empty(),
    };
    let task = TaskLink {
        id: record.id.clone(),
        cancelled,
    };
    let mut data = update.task_round(meta, RoundAnswers::from_map(&record.answers), task);
    let kept = match &record.resume {
        Some(KeptState::Token(token)) => Some(Kept::Token(token)),
        Some(kept) => kept.payload_bytes().map(Kept::Payload),
        None => None,
    };
    let binding = BindingRequest {
        method: crate::schema::request_methods::TOOLS_CALL,
        target: &record.tool,
        arguments: BoundArguments::Text(arguments.json()),
    };
    let verified = core.gate.open_kept(binding, data.receive(), kept).await?;
    Arc::make_mut(&mut data).pass(verified);
    Ok((data, arguments))
}

/// The empty answer of `tasks/update` and `tasks/cancel`.
fn ack(core: &Core) -> Result<String, McpError> {
    core.finisher
        .extension(Shape::Modern, Value::Object(JsonObject::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn waiting(questions: &[&str]) -> TaskRecord {
        let mut record: TaskRecord = serde_json::from_value(json!({
            "id": "t", "owner": "", "tool": "x", "arguments": {}, "meta": {"k": [1, 2]},
            "status": "input_required", "created_ms": 0, "updated_ms": 0,
            "ttl_ms": 1000, "poll_interval_ms": 100, "round": 2, "version": 1
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let ask = json!({"method": "elicitation/create", "params": {
            "message": "?", "requestedSchema": {"type": "object", "properties": {}}}});
        record.questions = Some(
            questions
                .iter()
                .map(|q| {
                    let request =
                        serde_json::from_value(ask.clone()).unwrap_or_else(|e| panic!("{e}"));
                    ((*q).to_owned(), request)
                })
                .collect(),
        );
        record
    }

    #[test]
    fn answers_are_taken_key_by_key_until_none_is_left() {
        let mut record = waiting(&["name~2", "confirm~2"]);
        let mut starts = false;
        let partial = json!({"name~2": {"action": "accept"}, "other": {"x": 1}, "confirm~2": "no"});
        let Value::Object(partial) = partial else {
            unreachable!()
        };
        assert!(answer(&mut record, &partial, "me", 5, &mut starts));
        assert!(!starts);
        assert_eq!(record.status, TaskStatus::InputRequired);
        assert!(record.answers.contains_key("name"));
        assert!(
            record
                .questions
                .as_ref()
                .is_some_and(|q| q.contains_key("confirm~2"))
        );
        // The same answer again changes nothing.
        assert!(!answer(&mut record, &partial, "me", 5, &mut starts));
        let rest = json!({"confirm~2": {"action": "accept"}});
        let Value::Object(rest) = rest else {
            unreachable!()
        };
        assert!(answer(&mut record, &rest, "me", 5, &mut starts));
        assert!(starts);
        assert_eq!(record.status, TaskStatus::Working);
        assert_eq!(record.round, 3);
        assert_eq!(record.lease.as_ref().map(|l| l.holder.as_str()), Some("me"));
        assert_eq!(record.answers.len(), 2);
    }
}

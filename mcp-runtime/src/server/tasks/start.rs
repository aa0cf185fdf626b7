//! `tools/call` to a tool that may run as a task, from a request that
//! declares the extension: the handler's first run, and the task it makes.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::watch;

use super::allowance::{allowance_of, refused, within};
use super::record::{Lease, TaskRecord, kept_meta_text, now_ms};
use super::run::{self, RoundResult};
use super::{Allowance, TaskEngine, new_task_id};
use crate::schema::{ErrorObject, McpError, codes};
use crate::server::gate::Checked;
use crate::server::handler::{
    Ctx, Outcome, RequestData, TaskLink, TaskSupport, ToolArguments, ToolHandler,
};
use crate::server::round::{Core, Shape, finish_outcome};

/// The tool being called, as the task path needs it.
pub(crate) struct TaskCall {
    pub(crate) name: String,
    pub(crate) arguments: ToolArguments,
    pub(crate) handler: Arc<dyn ToolHandler>,
    pub(crate) support: TaskSupport,
}

/// Runs the handler's first round in the call. Questions it marks
/// `before_task` are asked as an `InputRequiredResult`; a tool that only
/// may run as a task and finishes within the creation window is answered
/// directly. Anything else becomes a task, stored before its
/// `CreateTaskResult` is sent: finished, waiting for input, or (when the
/// run outlasts the window) working, with this instance's lease, the run
/// going on in the background.
pub(crate) async fn call_tool(
    core: &Core,
    engine: &Arc<TaskEngine>,
    call: TaskCall,
    checked: Checked<'_>,
    mut data: Arc<RequestData>,
) -> Result<String, McpError> {
    let settings = &engine.settings;
    // What the task would keep, bounded before anything runs.
    let arguments = call.arguments.json();
    within(
        arguments.len(),
        "arguments",
        settings.max_kept_arguments_bytes,
        "max_kept_arguments_bytes",
    )?;
    let arguments = arguments.to_owned();
    let meta = kept_meta_text(data.meta())?;
    within(
        meta.len(),
        "_meta entries (protocol version, client capabilities, client info)",
        settings.max_kept_meta_bytes,
        "max_kept_meta_bytes",
    )?;
    let allowance = allowance_of(settings, data.receive());
    // Multi-round exchanges before the task: their state is verified here,
    // as for any call.
    let verified = core.gate.claim(checked).await?;
    Arc::make_mut(&mut data).pass(verified);
    let id = new_task_id()
        .ok_or_else(|| McpError::internal("the OS random generator failed: no task id"))?;
    let (cancel, cancelled) = watch::channel(false);
    // Progress and log messages have no stream to go to in a task.
    let data = data.in_task(TaskLink {
        id: id.clone(),
        cancelled,
    });
    let owner = data.receive().subject().to_owned();
    let (ctx, request) = Ctx::shared_with(data);
    let mut handle = run::spawn(Arc::clone(&call.handler), call.arguments, ctx);
    let first = tokio::time::timeout(engine.settings.creation_window, &mut handle).await;
    let now = now_ms();
    let mut record = TaskRecord {
        arguments: Some(arguments),
        meta: Some(meta),
        created_ms: now,
        updated_ms: now,
        poll_interval_ms: engine.poll_interval_ms(),
        ..TaskRecord::new(id, owner, call.name, engine.ttl_ms())
    };
    match first {
        Ok(joined) => {
            let outcome: RoundResult = run::joined(joined);
            match (outcome, call.support) {
                (Ok(Outcome::InputRequired(ask)), _) if ask.before_task => {
                    finish_outcome::<crate::schema::CallToolResult>(
                        &core.finisher,
                        Outcome::InputRequired(ask),
                        &request,
                    )
                }
                (Ok(Outcome::Complete(result)), TaskSupport::Optional) => {
                    core.finisher.result(Shape::Modern, result)
                }
                (Err(error), TaskSupport::Optional) => Err(error),
                (outcome, _) => {
                    run::apply(&mut record, outcome, now);
                    create(engine, &record, &allowance).await?;
                    created(core, &record)
                }
            }
        }
        Err(_still_running) => {
            if !engine.admit(&record.id, cancel.clone()) {
                handle.abort();
                return Err(busy(
                    "this server runs as many tasks as it may; try again later",
                ));
            }
            record.lease = Some(Lease {
                holder: engine.instance.clone(),
                until_ms: now.saturating_add(engine.lease_ms()),
            });
            if let Err(error) = create(engine, &record, &allowance).await {
                engine.release(&record.id);
                handle.abort();
                return Err(error);
            }
            run::supervise(Arc::clone(engine), record.id.clone(), 1, handle, cancel);
            created(core, &record)
        }
    }
}

async fn create(
    engine: &TaskEngine,
    record: &TaskRecord,
    allowance: &Allowance,
) -> Result<(), McpError> {
    let settings = &engine.settings;
    settings
        .store
        .create(record, allowance)
        .await
        .map_err(|error| refused(settings, allowance, error))
}

/// `CreateTaskResult`: `resultType: "task"` and the task's common fields.
fn created(core: &Core, record: &TaskRecord) -> Result<String, McpError> {
    let mut value = serde_json::to_value(record.to_created())
        .map_err(|e| McpError::internal(format!("could not serialise a task: {e}")))?;
    if let Value::Object(object) = &mut value {
        object.insert("resultType".to_owned(), Value::from("task"));
    }
    core.finisher.extension(Shape::Modern, value)
}

/// A bound reached: `-32603` with a message that says which.
pub(crate) fn busy(message: &str) -> McpError {
    McpError::Other(ErrorObject {
        code: codes::INTERNAL_ERROR,
        message: format!("Server busy: {message}"),
        data: None,
    })
}

//! Running a task's round: the handler on a tokio task of its own, a
//! supervisor that renews the round's lease and hears of cancellation, and
//! the outcome written into the record.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt as _;
use serde_json::Value;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::record::{KeptState, Lease, TaskRecord, now_ms, wire_key};
use super::{TaskEngine, TaskStore};
use crate::logged::Wire;
use crate::schema::{CallToolResult, JsonObject, McpError, TaskStatus};
use crate::server::gate::NextState;
use crate::server::handler::{Ask, Ctx, Outcome, ToolArguments, ToolHandler, settle};

/// What a round came to: the handler's outcome, or its error (a panic
/// included).
pub(crate) type RoundResult = Result<Outcome<CallToolResult>, McpError>;

/// How many times a change is tried against a record that others change.
const CHANGE_ATTEMPTS: usize = 16;

/// Starts the handler on a tokio task of its own, so that the round
/// outlives the request that started it.
pub(crate) fn spawn(
    handler: Arc<dyn ToolHandler>,
    arguments: ToolArguments,
    ctx: Ctx,
) -> JoinHandle<RoundResult> {
    tokio::spawn(async move {
        let kept = ctx.clone();
        match AssertUnwindSafe(handler.call(arguments, ctx))
            .catch_unwind()
            .await
        {
            Ok(outcome) => settle(outcome, kept.data()),
            Err(panic) => Err(McpError::internal(format!(
                "the task's handler panicked: {}",
                panic
                    .downcast_ref::<&str>()
                    .copied()
                    .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                    .unwrap_or("(no message)")
            ))),
        }
    })
}

/// A finished tokio task's round result.
pub(crate) fn joined(result: Result<RoundResult, tokio::task::JoinError>) -> RoundResult {
    result.unwrap_or_else(|error| {
        Err(McpError::internal(format!(
            "the task's handler did not finish: {error}"
        )))
    })
}

/// Applies what round `record.round` came to.
pub(crate) fn apply(record: &mut TaskRecord, outcome: RoundResult, now: u64) {
    match outcome {
        Ok(Outcome::Complete(result)) => match tool_result(&result) {
            Ok(value) => {
                record.result = Some(value);
                record.status_message = None;
                record.finish(TaskStatus::Completed, now);
            }
            Err(error) => record.fail(&error, now),
        },
        Ok(Outcome::InputRequired(ask)) => ask_inside(record, ask, now),
        Err(error) => record.fail(&error, now),
    }
}

/// The result as the task shows it: what `tools/call` would have returned,
/// without the envelope's `resultType`.
fn tool_result(result: &CallToolResult) -> Result<Value, McpError> {
    let mut value = serde_json::to_value(result)
        .map_err(|e| McpError::internal(format!("could not serialise the task's result: {e}")))?;
    if let Value::Object(object) = &mut value {
        object.remove("resultType");
    }
    Ok(value)
}

/// The task waits for the questions of `ask`, under keys unique to this
/// round; its state is kept in the record.
fn ask_inside(record: &mut TaskRecord, ask: Ask, now: u64) {
    let Ask {
        requests, state, ..
    } = ask;
    let Some(requests) = requests.filter(|r| !r.is_empty()) else {
        record.fail(
            &McpError::internal(
                "a task's handler asked for nothing: inside a task, only questions can be asked",
            ),
            now,
        );
        return;
    };
    if let Err(error) = crate::form::check_forms(&requests) {
        tracing::error!(task = %Wire(&record.id), %error, "a task's handler asked with a form it cannot send");
        record.fail(&error, now);
        return;
    }
    let capabilities = record
        .kept_meta()
        .map(|meta| meta.client_capabilities)
        .unwrap_or_default();
    if let Some(required) = capabilities.missing_for(requests.values()) {
        record.fail(
            &McpError::MissingClientCapability {
                required: Box::new(required),
            },
            now,
        );
        return;
    }
    let round = record.round;
    record.questions = Some(
        requests
            .into_iter()
            .map(|(key, request)| (wire_key(&key, round), request))
            .collect(),
    );
    record.resume = match state {
        NextState::None => None,
        NextState::Resume(payload) => Some(KeptState::payload(&payload)),
        NextState::Token(token) => Some(KeptState::Token(token)),
    };
    record.answers = JsonObject::new();
    record.lease = None;
    record.status = TaskStatus::InputRequired;
    record.status_message = Some("Waiting for input.".to_owned());
    record.updated_ms = now;
}

/// Changes the record of `id` with `change`, reading it again whenever
/// another change came first. `change` returns whether to write at all.
/// The record as written (or as found, when `change` declined), or `None`
/// when there is no such record.
pub(crate) async fn change(
    store: &dyn TaskStore,
    id: &str,
    mut change: impl FnMut(&mut TaskRecord) -> bool,
) -> Result<Option<TaskRecord>, McpError> {
    for _ in 0..CHANGE_ATTEMPTS {
        let Some(mut record) = store.load(id).await.map_err(unavailable)? else {
            return Ok(None);
        };
        if !change(&mut record) {
            return Ok(Some(record));
        }
        record.version = record.version.saturating_add(1);
        if store.replace(&record).await.map_err(unavailable)? {
            return Ok(Some(record));
        }
    }
    Err(McpError::internal(format!(
        "task {id}: {CHANGE_ATTEMPTS} changes in a row lost the race for its record"
    )))
}

pub(crate) fn unavailable(error: super::TaskStoreError) -> McpError {
    McpError::internal(format!("the task store failed: {error}"))
}

/// Oversees round `round` of task `id`, running here as `handle`: renews
/// its lease every third of the lease, writes its outcome, and, once the
/// task is found cancelled (or gone), tells the handler and drops it after
/// the cancel grace.
pub(crate) fn supervise(
    engine: Arc<TaskEngine>,
    id: String,
    round: u32,
    mut handle: JoinHandle<RoundResult>,
    cancel: watch::Sender<bool>,
) {
    tokio::spawn(async move {
        let renew_every = Duration::from_millis((engine.lease_ms() / 3).max(10));
        let mut cancel_rx = cancel.subscribe();
        let outcome = loop {
            tokio::select! {
                joined_result = &mut handle => break Some(joined(joined_result)),
                () = async { drop(cancel_rx.wait_for(|c| *c).await) } => break None,
                () = tokio::time::sleep(renew_every) => {
                    if !renew(&engine, &id, round).await {
                        cancel.send_replace(true);
                        break None;
                    }
                }
            }
        };
        match outcome {
            Some(outcome) => record_outcome(&engine, &id, round, outcome).await,
            None => {
                // Cancelled: the handler sees it in its context; give it the
                // grace to stop, then drop it. Its outcome is not recorded.
                let stopped = tokio::time::timeout(engine.settings.cancel_grace, &mut handle)
                    .await
                    .is_ok();
                if !stopped {
                    handle.abort();
                }
                tracing::info!(
                    task = %Wire(&id),
                    round,
                    how = if stopped { "stopped by itself" } else { "dropped after the grace" },
                    "a cancelled task's round ended"
                );
            }
        }
        engine.release(&id);
    });
}

/// Extends this instance's lease on round `round` of `id`. `false` when the
/// round should stop: the task was cancelled, finished, moved on or is gone.
async fn renew(engine: &TaskEngine, id: &str, round: u32) -> bool {
    let until_ms = now_ms().saturating_add(engine.lease_ms());
    let mut ours = false;
    let changed = change(engine.settings.store.as_ref(), id, |record| {
        ours = runs_here(record, round, &engine.instance);
        if ours {
            record.lease = Some(Lease {
                holder: engine.instance.clone(),
                until_ms,
            });
        }
        ours
    })
    .await;
    match changed {
        Ok(Some(_)) => ours,
        Ok(None) => false,
        Err(error) => {
            // The store is down: keep running; the outcome is written when
            // it is back, or the lease runs out and the task fails.
            tracing::warn!(task = %Wire(id), %error, "could not renew a task's lease");
            true
        }
    }
}

/// Writes what round `round` of `id` came to, unless the task has moved on
/// (cancelled, or failed as abandoned) in the meantime.
pub(crate) async fn record_outcome(
    engine: &TaskEngine,
    id: &str,
    round: u32,
    outcome: RoundResult,
) {
    let written = change(engine.settings.store.as_ref(), id, |record| {
        let ours = runs_here(record, round, &engine.instance);
        if ours {
            apply(record, outcome.clone(), now_ms());
        } else {
            outcome_dropped(id, record);
        }
        ours
    })
    .await;
    if let Err(error) = written {
        tracing::error!(task = %Wire(id), %error, "could not record a task's outcome");
    }
}

/// Whether round `round` of the task is still the one `instance` runs:
/// the task is working on that round under this instance's lease.
fn runs_here(record: &TaskRecord, round: u32, instance: &str) -> bool {
    record.status == TaskStatus::Working
        && record.round == round
        && record.lease.as_ref().is_some_and(|l| l.holder == instance)
}

fn outcome_dropped(id: &str, record: &TaskRecord) {
    tracing::info!(
        task = %Wire(id),
        status = record.status.as_str(),
        "a task's round ended after the task moved on; its outcome is dropped"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::{FieldOptions, FormSchema};
    use crate::schema::InputRequest;

    #[test]
    fn a_form_no_answer_can_fill_in_fails_the_task() {
        let schema = FormSchema::new()
            .field::<String>(
                "pin",
                FieldOptions {
                    min_length: Some(6),
                    max_length: Some(4),
                    ..FieldOptions::EMPTY
                },
            )
            .build();
        let ask = Ask::new("pin", InputRequest::elicit_form("Your PIN?", schema));
        let mut record = TaskRecord::new("t1", "owner", "unlock", 60_000);
        apply(&mut record, Ok(Outcome::InputRequired(ask)), 1);
        assert_eq!(record.status, TaskStatus::Failed);
        assert_eq!(record.questions, None);
        // Refused as the handler's bug (`-32603`), before the capability
        // check (this record's client declared none: `-32021` otherwise).
        let error = record.error.as_ref().map(|e| e.code);
        assert_eq!(error, Some(crate::schema::codes::INTERNAL_ERROR));
    }
}

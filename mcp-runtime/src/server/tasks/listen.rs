//! `notifications/tasks` on a `subscriptions/listen` stream: the tasks a
//! stream asked for (`notifications.taskIds`), polled from the store, so a
//! change made on any instance of a fleet reaches the stream.

use std::time::Duration;

use tokio::time::Instant;

use super::TaskEngine;
use super::methods::{declares_tasks, tasks_required};
use crate::logged::Wire;
use crate::schema::{McpError, Task};
use crate::server::handler::RequestData;

/// The most tasks one stream watches; ids past it are not acknowledged.
pub const MAX_WATCHED_TASKS: usize = 64;

/// The longest time between two looks at the watched tasks.
const MAX_WATCH_INTERVAL: Duration = Duration::from_secs(1);

/// The tasks one stream watches, with the version of each last reported.
#[derive(Debug, Default)]
pub(crate) struct Watched {
    tasks: Vec<(String, Option<u64>)>,
    interval: Duration,
    next: Option<Instant>,
}

/// The tasks among `ids` a listen request may watch: the caller's own,
/// existing ones, at most [`MAX_WATCHED_TASKS`]. `-32021` when the request
/// does not declare the extension.
pub(crate) async fn watch(
    engine: &TaskEngine,
    data: &RequestData,
    ids: &[String],
) -> Result<Watched, McpError> {
    if !declares_tasks(&data.meta().client_capabilities) {
        return Err(tasks_required());
    }
    let mut tasks: Vec<(String, Option<u64>)> = Vec::new();
    for id in ids {
        if tasks.len() == MAX_WATCHED_TASKS {
            break;
        }
        if tasks.iter().any(|(known, _)| known == id) {
            continue;
        }
        match engine.settings.store.view(id).await {
            Ok(Some(record)) if record.owner == data.receive().subject() => {
                tasks.push((id.clone(), None));
            }
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(task = %Wire(id), %error, "could not look up a task to watch");
            }
        }
    }
    let interval = engine.settings.poll_interval.min(MAX_WATCH_INTERVAL);
    Ok(Watched {
        next: (!tasks.is_empty()).then(Instant::now),
        tasks,
        interval: interval.max(Duration::from_millis(50)),
    })
}

impl Watched {
    /// The ids watched, as the acknowledgement names them.
    pub(crate) fn ids(&self) -> Option<Vec<String>> {
        (!self.tasks.is_empty()).then(|| self.tasks.iter().map(|(id, _)| id.clone()).collect())
    }

    /// Resolves when the tasks are due a look; never when none is watched.
    pub(crate) async fn next_poll(&self) {
        match self.next {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    }

    /// Looks at every watched task; returns each that changed since it was
    /// last reported (the first look reports all). A finished task is
    /// reported once and no longer watched; a task that is gone is dropped.
    pub(crate) async fn poll(&mut self, engine: &TaskEngine) -> Vec<Task> {
        let store = &engine.settings.store;
        let mut changed = Vec::new();
        let mut kept = Vec::with_capacity(self.tasks.len());
        for (id, seen) in std::mem::take(&mut self.tasks) {
            let record = match store.view(&id).await {
                Ok(Some(record)) => record,
                Ok(None) => continue,
                Err(error) => {
                    tracing::warn!(task = %Wire(&id), %error, "could not look at a watched task");
                    kept.push((id, seen));
                    continue;
                }
            };
            if seen != Some(record.version) {
                changed.push(record.to_task());
            }
            if !record.status.is_terminal() {
                kept.push((id, Some(record.version)));
            }
        }
        self.tasks = kept;
        self.next = (!self.tasks.is_empty()).then(|| Instant::now() + self.interval);
        changed
    }
}

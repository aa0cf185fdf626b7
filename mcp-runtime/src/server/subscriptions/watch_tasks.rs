//! The tasks a listen stream watches (`notifications.taskIds`), with the
//! `tasks` feature: the `tasks` room looks them up and polls them; this
//! holds the engine beside them for the stream's loop.

use super::{MAX_NAMED_TASKS, Sources};
use crate::schema::{McpError, Task};
use crate::server::handler::RequestData;
use crate::server::tasks::{self, TaskEngine};

/// The tasks one stream watches, and the engine they are polled from.
pub(super) struct Watching<'a> {
    engine: &'a TaskEngine,
    watched: tasks::Watched,
}

/// The tasks among `asked` the stream may watch (see `tasks::watch`):
/// `-32602` when it names more than [`MAX_NAMED_TASKS`], `-32021` when the
/// request does not declare the extension; none when it names none.
pub(super) async fn watch<'a>(
    sources: &Sources<'a>,
    data: &RequestData,
    asked: Option<&[String]>,
) -> Result<Watching<'a>, McpError> {
    let engine = sources.tasks;
    let watched = match asked {
        Some(ids) if ids.len() > MAX_NAMED_TASKS => {
            return Err(McpError::invalid_params(format!(
                "notifications.taskIds names {} tasks; a stream may name at most \
                 {MAX_NAMED_TASKS} (and watches at most {})",
                ids.len(),
                tasks::MAX_WATCHED_TASKS
            )));
        }
        Some(ids) if !ids.is_empty() => tasks::watch(engine, data, ids).await?,
        _ => tasks::Watched::default(),
    };
    Ok(Watching { engine, watched })
}

impl Watching<'_> {
    /// The ids watched, as the acknowledgement names them.
    pub(super) fn ids(&self) -> Option<Vec<String>> {
        self.watched.ids()
    }

    /// Resolves when the tasks are due a look; never when none is watched.
    pub(super) async fn next_poll(&self) {
        self.watched.next_poll().await;
    }

    /// The watched tasks that changed since they were last reported.
    pub(super) async fn poll(&mut self) -> Vec<Task> {
        self.watched.poll(self.engine).await
    }
}

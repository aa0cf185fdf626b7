//! The tasks a listen stream watches, without the `tasks` feature: none.
//!
//! `notifications.taskIds` is left out of the acknowledgement, as any part
//! of the filter the server cannot honour is (a resource subscription on a
//! server without resources, say), rather than refused: the acknowledgement
//! is how the specification has a server say what a stream carries, and
//! the stream's other notifications still work. The server does not
//! advertise the tasks extension, so it can have made none of the tasks
//! named; the `tasks` feature likewise leaves out, without an error, the
//! ids of tasks it does not know.

use std::marker::PhantomData;

use super::Sources;
use crate::schema::{McpError, Task};
use crate::server::handler::RequestData;

/// No task, ever.
pub(super) struct Watching<'a>(PhantomData<&'a ()>);

/// Watches none of `asked`.
pub(super) async fn watch<'a>(
    _sources: &Sources<'a>,
    _data: &RequestData,
    _asked: Option<&[String]>,
) -> Result<Watching<'a>, McpError> {
    Ok(Watching(PhantomData))
}

impl Watching<'_> {
    /// None: the acknowledgement names no task.
    pub(super) fn ids(&self) -> Option<Vec<String>> {
        None
    }

    /// Never resolves.
    pub(super) async fn next_poll(&self) {
        std::future::pending::<()>().await;
    }

    /// Never called, as `next_poll` never resolves; nothing changed.
    pub(super) async fn poll(&mut self) -> Vec<Task> {
        Vec::new()
    }
}

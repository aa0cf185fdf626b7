//! The registry: everything a built server holds, each part handed by the
//! method table to the room that needs it. Immutable after `build()`.

use std::sync::Arc;

use crate::schema::Implementation;
use crate::server::handler::Services;
use crate::server::legacy::LegacyClients;
use crate::server::methods::Lists;
use crate::server::notify::Closing;
use crate::server::round::Core;
#[cfg(feature = "tasks")]
use crate::server::tasks::TaskEngine;

/// Everything a built server holds.
pub(crate) struct Registry {
    /// The server's self-description.
    pub(crate) info: Implementation,
    /// What every room that runs handlers reads.
    pub(crate) core: Arc<Core>,
    /// What handlers reach beyond their request.
    pub(crate) services: Arc<Services>,
    /// Discovery and the rendered lists.
    pub(crate) lists: Lists,
    /// Tasks (the tasks extension): their store, bounds and the rounds
    /// running here. Without the `tasks` feature, no engine: no tool runs
    /// as a task and the `tasks/*` methods are not in the table.
    #[cfg(feature = "tasks")]
    pub(crate) tasks: Arc<TaskEngine>,
    /// How 2025-era clients are served.
    pub(crate) legacy: LegacyClients,
    /// Ends open `subscriptions/listen` streams when the server shuts down.
    pub(crate) closing: Closing,
}

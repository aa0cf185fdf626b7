//! Changes the server announces: list changes and resource updates, sent
//! to `subscriptions/listen` streams and to 2025-era sessions, and the
//! signal that ends those streams when the server shuts down.

use tokio::sync::{broadcast, watch};

/// A change a `subscriptions/listen` stream may carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The tool list changed.
    ToolsListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource list changed.
    ResourcesListChanged,
    /// The resource with this URI changed.
    ResourceUpdated(String),
}

/// Announces changes to every open `subscriptions/listen` stream that asked
/// for them. Cheap to clone; get one from `Server::changes` or
/// `Ctx::changes`.
#[derive(Debug, Clone)]
pub struct ChangeNotifier {
    tx: broadcast::Sender<Change>,
}

impl Default for ChangeNotifier {
    fn default() -> Self {
        Self::new()
    }
}

impl ChangeNotifier {
    pub(crate) fn new() -> Self {
        let (tx, _) = broadcast::channel(256);
        Self { tx }
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.tx.subscribe()
    }

    /// Announces a change; returns how many streams received it.
    pub fn announce(&self, change: Change) -> usize {
        self.tx.send(change).unwrap_or(0)
    }

    /// The tool list changed.
    pub fn tools_list_changed(&self) -> usize {
        self.announce(Change::ToolsListChanged)
    }

    /// The prompt list changed.
    pub fn prompts_list_changed(&self) -> usize {
        self.announce(Change::PromptsListChanged)
    }

    /// The resource list changed.
    pub fn resources_list_changed(&self) -> usize {
        self.announce(Change::ResourcesListChanged)
    }

    /// The resource `uri` changed.
    pub fn resource_updated(&self, uri: impl Into<String>) -> usize {
        self.announce(Change::ResourceUpdated(uri.into()))
    }
}

/// Tells open streams the server is shutting down.
#[derive(Debug)]
pub(crate) struct Closing {
    tx: watch::Sender<bool>,
}

impl Closing {
    pub(crate) fn new() -> Self {
        Self {
            tx: watch::channel(false).0,
        }
    }

    pub(crate) fn close(&self) {
        self.tx.send_replace(true);
    }

    pub(crate) fn watch(&self) -> watch::Receiver<bool> {
        self.tx.subscribe()
    }
}

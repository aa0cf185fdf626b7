//! The registered handlers and the server's fixed configuration.

use std::collections::HashMap;
use std::sync::Arc;

use super::uri_template::UriTemplate;
use super::{
    CompletionHandler, MethodHandler, PromptHandler, ResourceHandler, ResourceTemplateHandler,
    ToolHandler,
};
use crate::schema::{
    CacheHint, Implementation, JsonObject, Prompt, Resource, ResourceTemplate, ServerCapabilities,
    Tool,
};
use crate::state::{ReplayGuard, RequestStateSigner};

/// Handlers of one kind in registration order, with an index by key.
pub(crate) struct Table<D, H: ?Sized> {
    entries: Vec<(D, Arc<H>)>,
    index: HashMap<String, usize>,
}

impl<D, H: ?Sized> Default for Table<D, H> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<D, H: ?Sized> Table<D, H> {
    /// Adds an entry under `key`; `false` if the key is taken.
    pub(crate) fn insert(&mut self, key: String, descriptor: D, handler: Arc<H>) -> bool {
        if self.index.contains_key(&key) {
            return false;
        }
        self.index.insert(key, self.entries.len());
        self.entries.push((descriptor, handler));
        true
    }

    pub(crate) fn get(&self, key: &str) -> Option<&(D, Arc<H>)> {
        self.index.get(key).and_then(|&i| self.entries.get(i))
    }

    pub(crate) fn descriptors(&self) -> impl Iterator<Item = &D> {
        self.entries.iter().map(|(d, _)| d)
    }

    /// Every entry, in registration order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &(D, Arc<H>)> {
        self.entries.iter()
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A resource template with its parsed matcher.
pub(crate) struct TemplateEntry {
    pub(crate) descriptor: ResourceTemplate,
    pub(crate) matcher: UriTemplate,
}

/// Caching hints the server attaches to cacheable results.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CachePolicy {
    pub(crate) discover: CacheHint,
    pub(crate) lists: CacheHint,
}

/// Application values shared with every handler, by type.
pub(crate) type SharedValues = HashMap<std::any::TypeId, Arc<dyn std::any::Any + Send + Sync>>;

/// Everything a built server holds; immutable after `build()`.
pub(crate) struct Registry {
    pub(crate) info: Implementation,
    /// `{"io.modelcontextprotocol/serverInfo": ...}`, ready to put in result `_meta`.
    pub(crate) result_meta: Option<JsonObject>,
    pub(crate) instructions: Option<String>,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) cache: CachePolicy,
    pub(crate) tools: Table<Tool, dyn ToolHandler>,
    pub(crate) prompts: Table<Prompt, dyn PromptHandler>,
    pub(crate) resources: Table<Resource, dyn ResourceHandler>,
    pub(crate) templates: Vec<(TemplateEntry, Arc<dyn ResourceTemplateHandler>)>,
    pub(crate) completion: Option<Arc<dyn CompletionHandler>>,
    pub(crate) methods: HashMap<String, Arc<dyn MethodHandler>>,
    pub(crate) signer: Option<RequestStateSigner>,
    pub(crate) replay_guard: Option<Arc<dyn ReplayGuard>>,
    /// How the answers of consumed states are kept (with a replay guard).
    pub(crate) outcomes: super::Outcomes,
    /// The `Arc` this registry lives in, for work that must outlive a
    /// request (a consuming round runs to its end though its client left).
    pub(crate) this: std::sync::Weak<Registry>,
    /// The URL steps handlers open (`ServerBuilder::url_steps`).
    pub(crate) url_steps: Option<super::UrlSteps>,
    pub(crate) shared: Arc<SharedValues>,
    pub(crate) changes: super::ChangeNotifier,
    pub(crate) closing: super::subscriptions::Closing,
    /// The constant results (discovery and the lists), rendered on first use.
    pub(crate) rendered: Rendered,
    /// How 2025-era clients are served.
    pub(crate) legacy: super::LegacyClients,
    /// How their input-required rounds are bridged.
    pub(crate) bridge: super::Bridge,
    /// Tasks (the tasks extension): their store, bounds and the rounds
    /// running here.
    pub(crate) tasks: Arc<super::tasks::TaskEngine>,
}

/// Results that never change once the server is built, as the JSON sent.
#[derive(Default)]
pub(crate) struct Rendered {
    pub(crate) discover: std::sync::OnceLock<String>,
    pub(crate) tools: std::sync::OnceLock<String>,
    pub(crate) prompts: std::sync::OnceLock<String>,
    pub(crate) resources: std::sync::OnceLock<String>,
    pub(crate) templates: std::sync::OnceLock<String>,
}

impl Rendered {
    /// The result in `slot`, rendering it the first time.
    pub(crate) fn get<E>(
        slot: &std::sync::OnceLock<String>,
        render: impl FnOnce() -> Result<String, E>,
    ) -> Result<String, E> {
        if let Some(json) = slot.get() {
            return Ok(json.clone());
        }
        let json = render()?;
        Ok(slot.get_or_init(|| json).clone())
    }
}

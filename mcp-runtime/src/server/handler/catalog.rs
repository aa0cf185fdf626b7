//! The catalog: the handlers a server was built with, by kind, each with
//! its descriptor; what the server therefore offers ([`Offer`]), and the
//! capabilities it advertises for it.

use std::collections::HashMap;
use std::sync::Arc;

use super::traits::{
    CompletionHandler, MethodHandler, PromptHandler, ResourceHandler, ResourceTemplateHandler,
    TaskSupport, ToolHandler,
};
use super::uri_template::UriTemplate;
use crate::schema::{
    JsonObject, ListChangedCapability, Prompt, Resource, ResourceTemplate, ResourcesCapability,
    ServerCapabilities, TASKS_EXTENSION, Tool,
};

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

/// Application values shared with every handler, by type.
pub(crate) type SharedValues = HashMap<std::any::TypeId, Arc<dyn std::any::Any + Send + Sync>>;

/// The handlers of a built server; immutable after `build()`.
#[derive(Default)]
pub(crate) struct Catalog {
    pub(crate) tools: Table<Tool, dyn ToolHandler>,
    pub(crate) prompts: Table<Prompt, dyn PromptHandler>,
    pub(crate) resources: Table<Resource, dyn ResourceHandler>,
    pub(crate) templates: Vec<(TemplateEntry, Arc<dyn ResourceTemplateHandler>)>,
    pub(crate) completion: Option<Arc<dyn CompletionHandler>>,
    pub(crate) methods: HashMap<String, Arc<dyn MethodHandler>>,
}

/// What a server must offer for a method to exist on it: `-32601` (HTTP
/// 404) otherwise, and the matching capability is advertised only if it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Offer {
    /// Every server.
    Always,
    /// At least one tool.
    Tools,
    /// At least one prompt.
    Prompts,
    /// At least one resource or resource template.
    Resources,
    /// A completion handler.
    Completions,
    /// A tool that may run as a task (the tasks extension).
    Tasks,
    /// A 2025-era session (its log level is the session's).
    Session,
    /// A 2025-era session, and a resource or resource template.
    Subscriptions,
}

/// The era of a request, as dispatch decided it, for what is offered to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Asked {
    /// A 2026-07-28 request.
    Modern,
    /// A 2025-era request, in a session or not.
    Legacy {
        /// Whether it belongs to a session.
        session: bool,
    },
}

impl Catalog {
    /// Whether the server offers what `offer` asks for, to a request of `asked`.
    pub(crate) fn offers(&self, offer: Offer, asked: Asked) -> bool {
        let session = asked == Asked::Legacy { session: true };
        match offer {
            Offer::Always => true,
            Offer::Tools => !self.tools.is_empty(),
            Offer::Prompts => !self.prompts.is_empty(),
            Offer::Resources => self.has_resources(),
            Offer::Completions => self.completion.is_some(),
            Offer::Tasks => self
                .tools
                .values()
                .any(|(_, handler)| handler.task_support() != TaskSupport::Forbidden),
            Offer::Session => session,
            Offer::Subscriptions => session && self.has_resources(),
        }
    }

    /// Whether a resource or a resource template is registered.
    pub(crate) fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty()
    }

    /// The capabilities `server/discover` advertises: one for each kind of
    /// method the server offers. Every server serves `subscriptions/listen`,
    /// so lists are advertised as `listChanged` and resources as `subscribe`.
    pub(crate) fn capabilities(&self) -> ServerCapabilities {
        let list_changed = || ListChangedCapability {
            list_changed: Some(true),
        };
        let asked = Asked::Modern;
        ServerCapabilities {
            tools: self.offers(Offer::Tools, asked).then(list_changed),
            prompts: self.offers(Offer::Prompts, asked).then(list_changed),
            resources: self
                .offers(Offer::Resources, asked)
                .then_some(ResourcesCapability {
                    subscribe: Some(true),
                    list_changed: Some(true),
                }),
            completions: self.offers(Offer::Completions, asked).then(JsonObject::new),
            extensions: self.offers(Offer::Tasks, asked).then(|| {
                let mut extensions = JsonObject::new();
                extensions.insert(TASKS_EXTENSION.to_owned(), JsonObject::new().into());
                extensions
            }),
            ..ServerCapabilities::default()
        }
    }

    /// The capabilities `initialize` answers a 2025-era client with: one for
    /// each kind of method the server offers it. In a session, list changes
    /// and resource updates reach the client on the session's stream, and
    /// `logging/setLevel` is served; without one, none of that is offered.
    pub(crate) fn legacy_capabilities(&self, session: bool) -> ServerCapabilities {
        let asked = Asked::Legacy { session };
        let flag = session.then_some(true);
        let list_changed = || ListChangedCapability { list_changed: flag };
        ServerCapabilities {
            tools: self.offers(Offer::Tools, asked).then(list_changed),
            prompts: self.offers(Offer::Prompts, asked).then(list_changed),
            resources: self
                .offers(Offer::Resources, asked)
                .then_some(ResourcesCapability {
                    subscribe: self.offers(Offer::Subscriptions, asked).then_some(true),
                    list_changed: flag,
                }),
            completions: self.offers(Offer::Completions, asked).then(JsonObject::new),
            logging: self.offers(Offer::Session, asked).then(JsonObject::new),
            ..ServerCapabilities::default()
        }
    }
}

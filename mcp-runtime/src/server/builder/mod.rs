//! Building a [`Server`]: [`ServerBuilder`] collects handlers and settings
//! and checks them all in `build()`; `register.rs` holds the traits by
//! which an `impl` block or a handler named by its type registers itself.
//!
//! The top room of the server: it uses `dispatch` (the [`Server`] it
//! makes) and the rooms whose parts the registry holds.

mod checks;
mod completions;
mod error;
mod register;

pub use error::BuildError;
pub use register::{Handlers, Register};

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::budget::{Memory, MemoryLimits};
use crate::schema::{CacheHint, Implementation, JsonObject, meta_keys};
use crate::server::dispatch::{Registry, Server, is_reserved};
use crate::server::gate::{OutcomeRecord, StateGate};
use crate::server::handler::{
    Catalog, CompletionHandler, MethodHandler, PromptHandler, ResourceHandler,
    ResourceTemplateHandler, Services, SharedValues, Table, TaskSupport, TemplateEntry, Templates,
    ToolHandler, UriTemplate,
};
use crate::server::legacy::{Bridge, LegacyClients};
use crate::server::methods::{CachePolicy, Lists};
use crate::server::notify::{ChangeNotifier, Closing};
use crate::server::round::{Core, Finisher};
#[cfg(feature = "tasks")]
use crate::server::tasks::{TaskEngine, Tasks};
use crate::server::url_steps::UrlSteps;
use crate::state::{ReplayGuard, RequestStateSigner};

impl Server {
    /// Starts building a server that identifies itself as `name` `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(name, version)
    }
}

/// Collects handlers and settings, then checks them all in [`Self::build`].
#[must_use = "a builder does nothing until `build()` is called"]
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    server_info_in_results: bool,
    cache: CachePolicy,
    tools: Vec<Arc<dyn ToolHandler>>,
    prompts: Vec<Arc<dyn PromptHandler>>,
    resources: Vec<Arc<dyn ResourceHandler>>,
    templates: Vec<Arc<dyn ResourceTemplateHandler>>,
    completions: Vec<Arc<dyn CompletionHandler>>,
    methods: Vec<Arc<dyn MethodHandler>>,
    signer: Option<RequestStateSigner>,
    replay_guard: Option<Arc<dyn ReplayGuard>>,
    outcomes: OutcomeRecord,
    url_steps: Option<UrlSteps>,
    shared: SharedValues,
    legacy: LegacyClients,
    bridge: Bridge,
    #[cfg(feature = "tasks")]
    tasks: Tasks,
    memory: MemoryLimits,
}

impl ServerBuilder {
    pub(crate) fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            info: Implementation::new(name, version),
            instructions: None,
            server_info_in_results: true,
            cache: CachePolicy::default(),
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            completions: Vec::new(),
            methods: Vec::new(),
            signer: None,
            replay_guard: None,
            outcomes: OutcomeRecord::default(),
            url_steps: None,
            shared: Default::default(),
            legacy: LegacyClients::default(),
            bridge: Bridge::default(),
            #[cfg(feature = "tasks")]
            tasks: Tasks::default(),
            memory: MemoryLimits::default(),
        }
    }

    /// What peers may make the server keep, and the process-wide budget it
    /// all counts against (see [`MemoryLimits`] for each limit and its
    /// default). Past the budget, new work is refused as busy;
    /// [`Server::memory`] reports what is held.
    pub fn memory_limits(mut self, limits: MemoryLimits) -> Self {
        self.memory = limits;
        self
    }

    /// How 2025-era clients (those that open with `initialize`) are served:
    /// in sessions (the default), statelessly, or not at all. 2026-07-28
    /// clients are served the same way whatever this says.
    pub fn legacy_clients(mut self, legacy: LegacyClients) -> Self {
        self.legacy = legacy;
        self
    }

    /// How a handler's input-required result reaches a 2025-era client in a
    /// session (default: bridged, 8 rounds, 600 s a round); [`Bridge::off`](Bridge::off)
    /// turns it off.
    pub fn bridge(mut self, bridge: Bridge) -> Self {
        self.bridge = bridge;
        self
    }

    /// How tools that support tasks (tasks extension) run them: the store
    /// their records live in (one shared by every instance of a fleet,
    /// such as `RedisTaskStore`), and their times and bounds. Without it,
    /// records are kept in this process ([`InMemoryTaskStore`](super::InMemoryTaskStore)).
    #[cfg(feature = "tasks")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tasks")))]
    pub fn tasks(mut self, tasks: Tasks) -> Self {
        self.tasks = tasks;
        self
    }

    /// Replaces the server's self-description (title, icons, website...).
    pub fn info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// Instructions for the model, returned by `server/discover`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Whether every result carries `_meta["io.modelcontextprotocol/serverInfo"]`
    /// (on by default, as the specification recommends).
    pub fn server_info_in_results(mut self, enabled: bool) -> Self {
        self.server_info_in_results = enabled;
        self
    }

    /// The caching hint of `server/discover` (default: stale, private).
    pub fn discover_cache(mut self, hint: CacheHint) -> Self {
        self.cache.discover = hint;
        self
    }

    /// The caching hint of every list result (default: stale, private).
    pub fn list_cache(mut self, hint: CacheHint) -> Self {
        self.cache.lists = hint;
        self
    }

    /// Registers a tool.
    pub fn tool(mut self, handler: impl ToolHandler) -> Self {
        self.tools.push(Arc::new(handler));
        self
    }

    /// Registers a prompt.
    pub fn prompt(mut self, handler: impl PromptHandler) -> Self {
        self.prompts.push(Arc::new(handler));
        self
    }

    /// Registers a resource with a fixed URI.
    pub fn resource(mut self, handler: impl ResourceHandler) -> Self {
        self.resources.push(Arc::new(handler));
        self
    }

    /// Registers a resource template. Templates are tried in registration
    /// order, after the fixed resources.
    pub fn resource_template(mut self, handler: impl ResourceTemplateHandler) -> Self {
        self.templates.push(Arc::new(handler));
        self
    }

    /// Registers a handler of `completion/complete` (and advertises
    /// `completions`): the completer of one argument when its
    /// [`CompletionHandler::completes`] names one, else the server's
    /// catch-all, asked about every known argument without a completer of
    /// its own. [`Self::build`] refuses a completer whose prompt, template
    /// or argument the server does not have, two completers of one
    /// argument, and two catch-alls.
    pub fn completion(mut self, handler: impl CompletionHandler) -> Self {
        self.completions.push(Arc::new(handler));
        self
    }

    /// Verifies every echoed `requestState` with `signer` before the handler
    /// runs, and checks every state a handler hands out against it.
    ///
    /// Without a signer the raw state reaches the handler and its integrity
    /// is the handler's own concern.
    pub fn request_state_signer(mut self, signer: RequestStateSigner) -> Self {
        self.signer = Some(signer);
        self
    }

    /// Makes every verified state single use: `guard` is consulted after
    /// verification, and a second use gets the same error as a forged state.
    /// Needs a signer. A use the guard cannot record is refused: when an
    /// `InMemoryReplayGuard` is full, like a replay (`-32602`); when the
    /// guard's store is unreachable, with `-32603`. An in-memory guard
    /// covers one process and forgets on restart; a shared one
    /// (`RedisReplayGuard`) covers a fleet and restarts.
    pub fn replay_guard(mut self, guard: impl ReplayGuard) -> Self {
        self.replay_guard = Some(Arc::new(guard));
        self
    }

    /// How the answer of the round that consumed a state is kept for its
    /// duplicates, with a replay guard ([`OutcomeRecord::default`]: on, answers
    /// up to 64 KiB; [`OutcomeRecord::off`] refuses every duplicate). A retry
    /// whose answer was lost gets the recorded answer again without the
    /// handler running twice; a retry with other `inputResponses` gets
    /// the fixed `-32602`.
    ///
    /// [`OutcomeRecord`]: OutcomeRecord
    /// [`OutcomeRecord::default`]: OutcomeRecord::default
    /// [`OutcomeRecord::off`]: OutcomeRecord::off
    pub fn outcomes(mut self, outcomes: OutcomeRecord) -> Self {
        self.outcomes = outcomes;
        self
    }

    /// Tracks the URL-mode steps handlers open with
    /// [`Ctx::open_url_step`](super::handler::Ctx::open_url_step), so that a
    /// retry accepts a step only once the application marked it complete
    /// ([`UrlSteps::complete`](UrlSteps::complete)). Keep a clone of
    /// `steps` (or use [`Server::url_steps`](super::Server::url_steps)) for
    /// the web route that finishes them.
    pub fn url_steps(mut self, steps: UrlSteps) -> Self {
        self.url_steps = Some(steps);
        self
    }

    /// Shares `value` with every handler: a `Shared<T>` parameter (or
    /// `ctx.shared::<T>()`) receives it. One value per type; a second call
    /// with the same type replaces the first.
    pub fn share<T: Send + Sync + 'static>(self, value: T) -> Self {
        self.share_arc(Arc::new(value))
    }

    /// Like [`Self::share`], for a value the caller keeps a handle to.
    pub fn share_arc<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.shared.insert(std::any::TypeId::of::<T>(), value);
        self
    }

    /// Registers a handler for a method outside the core set.
    pub fn method(mut self, handler: impl MethodHandler) -> Self {
        self.methods.push(Arc::new(handler));
        self
    }

    /// Checks everything and builds the server: duplicate names, invalid
    /// tool names, input schemas whose root is not an object, malformed URI
    /// templates, `Shared<T>` parameters whose value was never given to
    /// [`Self::share`], and what the macros check at compile time (a tool
    /// or prompt without a description, a required scope that is not one
    /// token, a fixed resource URI with `{`) are all reported together.
    pub fn build(self) -> Result<Server, BuildError> {
        let mut problems = Vec::new();
        let has_signer = self.signer.is_some();

        let mut tools = Table::default();
        for handler in self.tools {
            let tool = handler.descriptor();
            checks::tool(&tool, handler.required_scopes(), &mut problems);
            checks::missing_shared(&self.shared, handler.needs_shared(), &mut problems, || {
                format!("tool {:?}", tool.name)
            });
            // A tool that always runs as a task keeps its state in the task
            // store, unsigned; every other round carries it signed.
            let needs_signer =
                handler.needs_signer() && handler.task_support() != TaskSupport::Required;
            checks::task_support(handler.task_support(), &mut problems, || {
                format!("tool {:?}", tool.name)
            });
            checks::missing_signer(has_signer, needs_signer, &mut problems, || {
                format!("tool {:?}", tool.name)
            });
            if !crate::rules::valid_tool_name(&tool.name) {
                problems.push(format!(
                    "tool name {:?} must be {}",
                    tool.name,
                    crate::rules::TOOL_NAME_RULE
                ));
            }
            if tool.input_schema.get("type") != Some(&Value::from("object")) {
                problems.push(format!(
                    "tool {:?}: the input schema's root must have \"type\": \"object\"",
                    tool.name
                ));
            }
            let name = tool.name.clone();
            if !tools.insert(name.clone(), tool, handler) {
                problems.push(format!(
                    "two tools are named {name:?}, perhaps in two `#[handlers]` blocks or \
                     registered twice; rename one (`#[tool(name = \"...\")]`) or register it once"
                ));
            }
        }

        let mut prompts = Table::default();
        for handler in self.prompts {
            let prompt = handler.descriptor();
            checks::prompt(&prompt, handler.required_scopes(), &mut problems);
            checks::missing_shared(&self.shared, handler.needs_shared(), &mut problems, || {
                format!("prompt {:?}", prompt.name)
            });
            checks::missing_signer(has_signer, handler.needs_signer(), &mut problems, || {
                format!("prompt {:?}", prompt.name)
            });
            let name = prompt.name.clone();
            if name.is_empty() {
                problems.push("a prompt has an empty name".to_owned());
            }
            if !prompts.insert(name.clone(), prompt, handler) {
                problems.push(format!(
                    "two prompts are named {name:?}, perhaps in two `#[handlers]` blocks or \
                     registered twice; rename one (`#[prompt(name = \"...\")]`) or register it once"
                ));
            }
        }

        let mut resources = Table::default();
        for handler in self.resources {
            let resource = handler.descriptor();
            checks::resource(&resource, handler.required_scopes(), &mut problems);
            checks::missing_shared(&self.shared, handler.needs_shared(), &mut problems, || {
                format!("resource {:?}", resource.uri)
            });
            checks::missing_signer(has_signer, handler.needs_signer(), &mut problems, || {
                format!("resource {:?}", resource.uri)
            });
            let uri = resource.uri.clone();
            if !resources.insert(uri.clone(), resource, handler) {
                problems.push(format!(
                    "two resources have the URI {uri:?}, perhaps in two `#[handlers]` blocks or \
                     registered twice; give one another URI or register it once"
                ));
            }
        }

        let mut templates: Templates = Vec::new();
        for handler in self.templates {
            let descriptor = handler.descriptor();
            checks::resource_template(&descriptor, handler.required_scopes(), &mut problems);
            checks::missing_shared(&self.shared, handler.needs_shared(), &mut problems, || {
                format!("resource template {:?}", descriptor.uri_template)
            });
            checks::missing_signer(has_signer, handler.needs_signer(), &mut problems, || {
                format!("resource template {:?}", descriptor.uri_template)
            });
            if templates
                .iter()
                .any(|(t, _)| t.descriptor.uri_template == descriptor.uri_template)
            {
                problems.push(format!(
                    "two resource templates are {:?}, perhaps in two `#[handlers]` blocks or \
                     registered twice; change one or register it once",
                    descriptor.uri_template
                ));
                continue;
            }
            match UriTemplate::parse(&descriptor.uri_template) {
                Some(matcher) => templates.push((
                    TemplateEntry {
                        descriptor,
                        matcher,
                    },
                    handler,
                )),
                None => problems.push(format!(
                    "resource template {:?} must be {}",
                    descriptor.uri_template,
                    crate::rules::URI_TEMPLATE_RULE
                )),
            }
        }

        let (completion, completers) = completions::sort(
            self.completions,
            &prompts,
            &templates,
            &self.shared,
            &mut problems,
        );

        let mut methods = HashMap::new();
        for handler in self.methods {
            let method = handler.method().to_owned();
            if is_reserved(&method) {
                problems.push(format!(
                    "{method:?} is a method of the protocol and cannot be replaced"
                ));
            } else if methods.insert(method.clone(), handler).is_some() {
                problems.push(format!(
                    "two handlers serve the method {method:?}; register one handler per method"
                ));
            }
        }

        if self.replay_guard.is_some() && self.signer.is_none() {
            problems.push(
                "a replay guard needs a request-state signer (`request_state_signer`)".to_owned(),
            );
        }

        if !problems.is_empty() {
            return Err(BuildError::new(problems));
        }

        let result_meta = self.server_info_in_results.then(|| {
            let mut meta = JsonObject::new();
            meta.insert(
                meta_keys::SERVER_INFO.to_owned(),
                serde_json::to_value(&self.info).unwrap_or(Value::Null),
            );
            meta
        });

        let catalog = Catalog {
            tools,
            prompts,
            resources,
            templates,
            completion,
            completers,
            methods,
        };
        let lists = Lists::new(catalog.capabilities(), self.instructions, self.cache);
        let core = Core {
            catalog,
            gate: StateGate::new(self.signer, self.replay_guard, self.outcomes),
            finisher: Finisher::new(result_meta),
            bridge: self.bridge,
            memory: Memory::new(self.memory),
        };
        // A store that keeps its records in this process charges them to
        // the server's memory budget.
        #[cfg(feature = "tasks")]
        self.tasks.store.charge_to(&core.memory.budget);
        Ok(Server::from_registry(Registry {
            info: self.info,
            core: Arc::new(core),
            services: Arc::new(Services {
                shared: self.shared,
                changes: ChangeNotifier::new(),
                url_steps: self.url_steps,
                carried_limit: self.memory.max_carried_answer_bytes,
            }),
            lists,
            #[cfg(feature = "tasks")]
            tasks: TaskEngine::new(self.tasks),
            legacy: self.legacy,
            closing: Closing::new(),
        }))
    }
}

//! The catalog: the handlers a server was built with, by kind, each with
//! its descriptor; what the server therefore offers ([`Offer`]), and the
//! capabilities it advertises for it.

use std::collections::HashMap;
use std::sync::Arc;

use super::completion::CompletionTarget;
use super::traits::{
    CompletionHandler, MethodHandler, PromptHandler, ResourceHandler, ResourceTemplateHandler,
    TaskSupport, ToolHandler,
};
use super::uri_template::UriTemplate;
use crate::schema::{
    CompletionReference, JsonObject, ListChangedCapability, McpError, Prompt, Resource,
    ResourceTemplate, ResourcesCapability, ServerCapabilities, TASKS_EXTENSION, Tool,
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
    pub(crate) templates: Templates,
    /// The catch-all completion handler (`#[completion]` with no target).
    pub(crate) completion: Option<Arc<dyn CompletionHandler>>,
    /// The per-argument completers, by what each completes.
    pub(crate) completers: Completers,
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
    /// A tool that may run as a task (the tasks extension); never without
    /// the `tasks` feature.
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
            Offer::Completions => self.completion.is_some() || !self.completers.is_empty(),
            // Without the `tasks` feature a tool that may run as a task is
            // served as any other: nothing offers the extension.
            Offer::Tasks => {
                cfg!(feature = "tasks")
                    && self
                        .tools
                        .values()
                        .any(|(_, handler)| handler.task_support() != TaskSupport::Forbidden)
            }
            Offer::Session => session,
            Offer::Subscriptions => session && self.has_resources(),
        }
    }

    /// What a `completion/complete` request for `argument` of `reference`
    /// completes, or the `-32602` naming what the server does not know: the
    /// prompt, the resource template, or the argument (with the ones that
    /// exist).
    pub(crate) fn completion_target(
        &self,
        reference: &CompletionReference,
        argument: &str,
    ) -> Result<CompletionTarget, McpError> {
        let target = CompletionTarget::of(reference, argument);
        let known = self.completable(&target).ok_or_else(|| {
            McpError::invalid_params(match reference {
                CompletionReference::Prompt { name, .. } => format!("Unknown prompt: {name}"),
                CompletionReference::Resource { uri } => {
                    format!("Unknown resource template: {uri}")
                }
            })
        })?;
        if known.contains(&argument) {
            return Ok(target);
        }
        let what = match reference {
            CompletionReference::Prompt { name, .. } => format!("prompt {name:?} has no argument"),
            CompletionReference::Resource { uri } => {
                format!("resource template {uri:?} has no variable")
            }
        };
        Err(McpError::invalid_params(format!(
            "Unknown argument: {what} {argument:?} ({})",
            listed(&known, "it declares none", "it declares")
        )))
    }

    /// The names that can be completed for the prompt or template `target`
    /// refers to; see [`completable`].
    pub(crate) fn completable(&self, target: &CompletionTarget) -> Option<Vec<&str>> {
        completable(&self.prompts, &self.templates, target)
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

/// The per-argument completers of a server, by what each completes.
pub(crate) type Completers = HashMap<CompletionTarget, Arc<dyn CompletionHandler>>;

/// The template handlers of a server, with their matchers.
pub(crate) type Templates = Vec<(TemplateEntry, Arc<dyn ResourceTemplateHandler>)>;

/// The names that can be completed for the prompt or template `target`
/// refers to (its declared arguments, its variables), in declared order;
/// `None` when there is no such prompt or template.
pub(crate) fn completable<'a>(
    prompts: &'a Table<Prompt, dyn PromptHandler>,
    templates: &'a Templates,
    target: &CompletionTarget,
) -> Option<Vec<&'a str>> {
    match target {
        CompletionTarget::PromptArgument { prompt, .. } => {
            let (descriptor, _) = prompts.get(prompt)?;
            Some(
                descriptor
                    .arguments
                    .iter()
                    .flatten()
                    .map(|argument| argument.name.as_str())
                    .collect(),
            )
        }
        CompletionTarget::TemplateVariable { template, .. } => templates
            .iter()
            .find(|(entry, _)| entry.descriptor.uri_template == *template)
            .map(|(entry, _)| entry.matcher.variables().collect()),
    }
}

/// `names` quoted and joined (`"a", "b"`) after `some`, or `none`.
pub(crate) fn listed(names: &[&str], none: &str, some: &str) -> String {
    if names.is_empty() {
        return none.to_owned();
    }
    let quoted: Vec<String> = names.iter().map(|name| format!("{name:?}")).collect();
    format!("{some} {}", quoted.join(", "))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::BoxFuture;
    use crate::schema::{
        GetPromptResult, McpError, PromptArgument, ReadResourceResult, ResourceTemplate,
    };
    use crate::server::handler::{Ctx, Outcome};

    /// A prompt that declares `team` and `urgency`, in that order.
    struct Triage;

    impl PromptHandler for Triage {
        fn descriptor(&self) -> Prompt {
            let argument = |name: &str| PromptArgument {
                name: name.to_owned(),
                title: None,
                description: None,
                required: Some(false),
            };
            Prompt::new("triage", "Triage a ticket.")
                .with_argument(argument("team"))
                .with_argument(argument("urgency"))
        }

        fn get(
            &self,
            _: BTreeMap<String, String>,
            _: Ctx,
        ) -> BoxFuture<'_, Result<Outcome<GetPromptResult>, McpError>> {
            Box::pin(async { Err(McpError::internal("not called")) })
        }
    }

    /// A template of one variable, `team`.
    struct TeamPage;

    impl ResourceTemplateHandler for TeamPage {
        fn descriptor(&self) -> ResourceTemplate {
            ResourceTemplate::new("desk://teams/{team}", "team")
        }

        fn read(
            &self,
            _: String,
            _: BTreeMap<String, String>,
            _: Ctx,
        ) -> BoxFuture<'_, Result<Outcome<ReadResourceResult>, McpError>> {
            Box::pin(async { Err(McpError::internal("not called")) })
        }
    }

    fn catalog() -> Catalog {
        let mut catalog = Catalog::default();
        let prompt: Arc<dyn PromptHandler> = Arc::new(Triage);
        assert!(
            catalog
                .prompts
                .insert("triage".into(), prompt.descriptor(), prompt)
        );
        let template: Arc<dyn ResourceTemplateHandler> = Arc::new(TeamPage);
        let descriptor = template.descriptor();
        let matcher = UriTemplate::parse(&descriptor.uri_template).expect("a valid template");
        catalog.templates.push((
            TemplateEntry {
                descriptor,
                matcher,
            },
            template,
        ));
        catalog
    }

    fn prompt(name: &str) -> CompletionReference {
        CompletionReference::Prompt {
            name: name.to_owned(),
            title: None,
        }
    }

    fn template(uri: &str) -> CompletionReference {
        CompletionReference::Resource {
            uri: uri.to_owned(),
        }
    }

    /// The `-32602` message of `result`.
    fn refused(result: Result<CompletionTarget, McpError>) -> String {
        match result {
            Err(McpError::InvalidParams { message, .. }) => message,
            other => panic!("not -32602: {other:?}"),
        }
    }

    #[test]
    fn known_arguments_and_variables_are_targets() {
        let catalog = catalog();
        assert_eq!(
            catalog.completion_target(&prompt("triage"), "urgency"),
            Ok(CompletionTarget::prompt("triage", "urgency"))
        );
        assert_eq!(
            catalog.completion_target(&template("desk://teams/{team}"), "team"),
            Ok(CompletionTarget::template("desk://teams/{team}", "team"))
        );
    }

    #[test]
    fn unknown_prompts_templates_and_arguments_are_invalid_params_naming_them() {
        let catalog = catalog();
        assert_eq!(
            refused(catalog.completion_target(&prompt("triag"), "team")),
            "Unknown prompt: triag"
        );
        assert_eq!(
            refused(catalog.completion_target(&template("desk://team/{team}"), "team")),
            "Unknown resource template: desk://team/{team}"
        );
        assert_eq!(
            refused(catalog.completion_target(&prompt("triage"), "teem")),
            "Unknown argument: prompt \"triage\" has no argument \"teem\" (it declares \"team\", \
             \"urgency\")"
        );
        assert_eq!(
            refused(catalog.completion_target(&template("desk://teams/{team}"), "id")),
            "Unknown argument: resource template \"desk://teams/{team}\" has no variable \"id\" \
             (it declares \"team\")"
        );
    }

    #[test]
    fn completions_are_offered_by_a_completer_alone() {
        struct Nothing;
        impl CompletionHandler for Nothing {
            fn complete(
                &self,
                _: CompletionReference,
                _: crate::schema::CompletionArgument,
                _: Option<crate::schema::CompletionContext>,
                _: Ctx,
            ) -> BoxFuture<'_, Result<crate::schema::CompleteResult, McpError>> {
                Box::pin(async { Ok(crate::schema::CompleteResult::new(Vec::new())) })
            }
        }
        let mut catalog = catalog();
        assert!(!catalog.offers(Offer::Completions, Asked::Modern));
        catalog.completers.insert(
            CompletionTarget::prompt("triage", "team"),
            Arc::new(Nothing),
        );
        assert!(catalog.offers(Offer::Completions, Asked::Modern));
        assert!(catalog.capabilities().completions.is_some());
    }
}

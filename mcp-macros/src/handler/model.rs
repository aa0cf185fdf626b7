//! The finished model of one handler: what the checks proved and all the
//! emitter reads. Nothing in it is a raw attribute.

use proc_macro2::{Span, TokenStream};

use super::HandlerFn;
use crate::attr::Docs;

/// What a handler serves: the one enum every later step matches on.
pub(crate) enum Target {
    /// `#[tool]`.
    Tool {
        /// Its behaviour hints.
        hints: Annotations,
        /// Whether it may (`task`) or must (`task = "required"`) run as a
        /// task; `None`: never.
        task: Option<TaskMode>,
    },
    /// `#[prompt]`.
    Prompt,
    /// `#[resource(uri = "...")]`.
    Resource {
        /// The fixed URI.
        uri: String,
        mime_type: Option<String>,
    },
    /// `#[completion]`: suggests values for prompt arguments and template
    /// variables; `completes` names the one argument of a per-argument
    /// completer (`None`: the catch-all).
    Completion { completes: Option<Completes> },
    /// `#[resource(uri_template = "...")]`.
    ResourceTemplate {
        /// The template as written.
        template: String,
        /// Its variables, each to be a field of the variables type.
        variables: Vec<String>,
        /// Where the template was written.
        span: Span,
        mime_type: Option<String>,
    },
}

/// The one argument a per-argument completer completes.
pub(crate) struct Completes {
    /// The prompt or the template it belongs to.
    pub(crate) reference: Reference,
    /// Where the prompt's name or the template was written.
    pub(crate) reference_span: Span,
    /// The argument's (or variable's) name.
    pub(crate) argument: String,
    /// Where the argument's name was written.
    pub(crate) argument_span: Span,
}

/// What a per-argument completer's argument belongs to.
#[derive(PartialEq, Eq)]
pub(crate) enum Reference {
    /// `prompt = "..."`: a prompt, by name.
    Prompt(String),
    /// `template = "..."`: a resource template, as written.
    Template(String),
}

/// How a tool runs as a task (the tasks extension).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskMode {
    /// `task` or `task = "optional"`.
    Optional,
    /// `task = "required"`.
    Required,
}

/// A tool's behaviour hints (`None`: not said).
#[derive(Default)]
pub(crate) struct Annotations {
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
}

/// One handler, checked.
pub(crate) struct Handler<'a> {
    pub(crate) func: &'a HandlerFn,
    pub(crate) target: Target,
    /// The wire name.
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    /// From `description = "..."` or the doc comment, kept as written.
    pub(crate) description: Option<Docs>,
    /// The parameter types, in order.
    pub(crate) params: Vec<&'a syn::Type>,
    /// For a per-argument completer: which parameter takes what was typed
    /// (`&str` or `String`), if one does.
    pub(crate) value_param: Option<usize>,
    /// The return type (`None` only when an error was reported).
    pub(crate) output: Option<&'a syn::Type>,
    /// The path of the runtime crate (`::mcp_runtime` unless overridden).
    pub(crate) runtime: TokenStream,
    /// For a method of a `#[handlers]` block: the block's type.
    pub(crate) owner: Option<Owner>,
    /// The scopes a caller's token needs (`scopes = [...]`).
    pub(crate) scopes: Vec<String>,
}

/// The `#[handlers]` block a method handler belongs to.
pub(crate) struct Owner {
    /// The generated handler type, holding an `Arc` of the value.
    pub(crate) handler: syn::Ident,
}

impl Target {
    /// The attribute's name, for messages.
    pub(crate) fn attribute(&self) -> &'static str {
        match self {
            Self::Tool { .. } => "tool",
            Self::Prompt => "prompt",
            Self::Resource { .. } | Self::ResourceTemplate { .. } => "resource",
            Self::Completion { .. } => "completion",
        }
    }

    /// The builder method that registers it.
    pub(crate) fn register_with(&self) -> &'static str {
        match self {
            Self::Tool { .. } => "tool",
            Self::Prompt => "prompt",
            Self::Resource { .. } => "resource",
            Self::ResourceTemplate { .. } => "resource_template",
            Self::Completion { .. } => "completion",
        }
    }
}

//! The completion handlers a server was given, sorted into the catch-all
//! and the per-argument completers, each completer checked against the
//! prompts and resource templates the server was built with.
//!
//! Each problem is one sentence naming the completer's prompt or template,
//! its argument, and the names that do exist.

use std::sync::Arc;

use super::checks;
use crate::schema::Prompt;
use crate::server::handler::{
    Completers, CompletionHandler, CompletionTarget, PromptHandler, SharedValues, Table, Templates,
    completable, listed,
};

/// The catch-all and the completers by target, from `handlers` in
/// registration order; every problem is added to `problems`.
pub(super) fn sort(
    handlers: Vec<Arc<dyn CompletionHandler>>,
    prompts: &Table<Prompt, dyn PromptHandler>,
    templates: &Templates,
    shared: &SharedValues,
    problems: &mut Vec<String>,
) -> (Option<Arc<dyn CompletionHandler>>, Completers) {
    let mut catch_all = None;
    let mut completers = Completers::new();
    for handler in handlers {
        let Some(target) = handler.completes() else {
            checks::missing_shared(shared, handler.needs_shared(), problems, || {
                "the catch-all completion handler".to_owned()
            });
            if catch_all.replace(handler).is_some() {
                problems.push(
                    "two catch-all completion handlers are registered (a `#[completion]` \
                     without `prompt` or `template`, or a `CompletionHandler` whose `completes` \
                     is `None`), and a server has one; answer every argument in one handler, or \
                     declare each completer for its argument with \
                     `#[completion(prompt = \"...\", argument = \"...\")]`"
                        .to_owned(),
                );
            }
            continue;
        };
        checks::missing_shared(shared, handler.needs_shared(), problems, || {
            format!("the completer of {target}")
        });
        if let Some(problem) = unknown(&target, prompts, templates) {
            problems.push(problem);
        } else if completers.insert(target.clone(), handler).is_some() {
            problems.push(format!(
                "two completers complete {target}, perhaps in two `#[handlers]` blocks or \
                 registered twice; keep one"
            ));
        }
    }
    (catch_all, completers)
}

/// The problem with a completer whose prompt, template or argument the
/// server does not have, naming the ones it has.
fn unknown(
    target: &CompletionTarget,
    prompts: &Table<Prompt, dyn PromptHandler>,
    templates: &Templates,
) -> Option<String> {
    let (argument, kind, key) = match target {
        CompletionTarget::PromptArgument { argument, .. } => (argument, "prompt", "argument"),
        CompletionTarget::TemplateVariable { variable, .. } => {
            (variable, "resource template", "variable")
        }
    };
    let Some(known) = completable(prompts, templates, target) else {
        let names: Vec<&str> = match target {
            CompletionTarget::PromptArgument { .. } => prompts
                .descriptors()
                .map(|prompt| prompt.name.as_str())
                .collect(),
            CompletionTarget::TemplateVariable { .. } => templates
                .iter()
                .map(|(entry, _)| entry.descriptor.uri_template.as_str())
                .collect(),
        };
        let attribute = if kind == "prompt" {
            "prompt"
        } else {
            "template"
        };
        return Some(format!(
            "the completer of {target} names a {kind} this server does not have ({}); fix the \
             name in `#[completion({attribute} = \"...\")]`, or register the {kind}",
            listed(
                &names,
                &format!("it has no {kind}s"),
                &format!("its {kind}s are")
            ),
        ));
    };
    if known.contains(&argument.as_str()) {
        return None;
    }
    let declared = match target {
        CompletionTarget::PromptArgument { .. } => {
            listed(&known, "it declares no arguments", "it declares")
        }
        CompletionTarget::TemplateVariable { .. } => {
            listed(&known, "it has no variables", "its variables are")
        }
    };
    Some(format!(
        "the completer of {target} names a{} {key} the {kind} does not have ({declared}); fix the \
         name in `#[completion(argument = \"...\")]`",
        if key == "argument" { "n" } else { "" }
    ))
}

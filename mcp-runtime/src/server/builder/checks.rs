//! The rules of `mcp-rules` that the macros check at compile time, checked
//! again by [`ServerBuilder::build`](super::ServerBuilder::build) for every
//! handler, so that one implemented by hand cannot break them: a tool or
//! prompt has a description, each scope a handler requires is one token,
//! and a fixed resource URI holds no `{`.
//!
//! Each function adds one sentence per problem to `problems`, naming the
//! handler and saying how to fix it.

use crate::rules;
use crate::schema::{Prompt, Resource, ResourceTemplate, Tool};
use crate::server::handler::SharedValues;
use crate::server::handler::plumbing::SharedNeed;

/// Checks a tool's description and the scopes it requires.
pub(super) fn tool(tool: &Tool, scopes: &[&str], problems: &mut Vec<String>) {
    let who = format!("tool {:?}", tool.name);
    description(&who, "Tool", tool.description.as_deref(), problems);
    self::scopes(&who, scopes, problems);
}

/// Checks a prompt's description and the scopes it requires.
pub(super) fn prompt(prompt: &Prompt, scopes: &[&str], problems: &mut Vec<String>) {
    let who = format!("prompt {:?}", prompt.name);
    description(&who, "Prompt", prompt.description.as_deref(), problems);
    self::scopes(&who, scopes, problems);
}

/// Checks a fixed resource's URI and the scopes it requires.
pub(super) fn resource(resource: &Resource, scopes: &[&str], problems: &mut Vec<String>) {
    let who = format!("resource {:?}", resource.uri);
    if !rules::valid_fixed_uri(&resource.uri) {
        problems.push(format!(
            "{who}: {}; register a resource with `{{variables}}` with \
             `ServerBuilder::resource_template` (a `ResourceTemplateHandler`), or write a \
             literal `{{` in a fixed URI as `%7B`",
            rules::FIXED_URI_RULE
        ));
    }
    self::scopes(&who, scopes, problems);
}

/// Checks the scopes a resource template requires (its template is
/// checked by the builder, which parses it).
pub(super) fn resource_template(
    template: &ResourceTemplate,
    scopes: &[&str],
    problems: &mut Vec<String>,
) {
    let who = format!("resource template {:?}", template.uri_template);
    self::scopes(&who, scopes, problems);
}

/// `who` has a description ([`rules::DESCRIPTION_RULE`]); `kind` names its
/// descriptor type.
fn description(who: &str, kind: &str, description: Option<&str>, problems: &mut Vec<String>) {
    let what = match description {
        None => "no description",
        Some(text) if !rules::valid_description(text) => "an empty description",
        Some(_) => return,
    };
    problems.push(format!(
        "{who} has {what} ({}): set `description` in the `{kind}` its `descriptor()` returns \
         (with the macros, write a doc comment or `description = \"...\"`)",
        rules::DESCRIPTION_RULE
    ));
}

/// Each scope `who` requires is one token ([`rules::SCOPE_RULE`]).
fn scopes(who: &str, scopes: &[&str], problems: &mut Vec<String>) {
    for scope in scopes.iter().filter(|scope| !rules::valid_scope(scope)) {
        problems.push(format!(
            "{who} requires the scope {scope:?}, which is not one scope: a scope is {}; \
             return each scope as a string of its own from `required_scopes()`",
            rules::SCOPE_RULE
        ));
    }
}

/// A problem when `who` resumes from a signed state
/// ([`ToolHandler::needs_signer`]) and the server has no signer to sign it.
pub(super) fn missing_signer(
    has_signer: bool,
    needs: bool,
    problems: &mut Vec<String>,
    who: impl Fn() -> String,
) {
    if needs && !has_signer {
        problems.push(format!(
            "{} takes a `Resume<S>` state, which the server signs, but the server has no \
             request-state signer; add `.request_state_signer(RequestStateSigner::generate()?)` \
             (`ServerBuilder::request_state_signer`) before `.build()`",
            who()
        ));
    }
}

/// Reports each value `needs` names that `shared` lacks, for `who`.
pub(super) fn missing_shared(
    shared: &SharedValues,
    needs: Vec<SharedNeed>,
    problems: &mut Vec<String>,
    who: impl Fn() -> String,
) {
    for need in needs {
        if !shared.contains_key(&need.type_id()) {
            problems.push(format!(
                "{} takes Shared<{}>, but no value of that type was given to \
                 ServerBuilder::share; add `.share(value)` before `.build()`",
                who(),
                need.type_name()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(check: impl FnOnce(&mut Vec<String>)) -> Vec<String> {
        let mut problems = Vec::new();
        check(&mut problems);
        problems
    }

    #[test]
    fn a_tool_or_prompt_needs_a_description() {
        let mut tool = Tool::new("deploy", "Deploys.");
        assert!(problems(|p| super::tool(&tool, &[], p)).is_empty());
        tool.description = None;
        let found = problems(|p| super::tool(&tool, &[], p));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("tool \"deploy\" has no description (")
                && found[0].contains("set `description` in the `Tool`"),
            "{found:?}"
        );
        tool.description = Some(" \n".to_owned());
        let found = problems(|p| super::tool(&tool, &[], p));
        assert!(found[0].contains("has an empty description"), "{found:?}");

        let mut prompt = Prompt::new("review", "Reviews code.");
        assert!(problems(|p| super::prompt(&prompt, &[], p)).is_empty());
        prompt.description = Some(String::new());
        let found = problems(|p| super::prompt(&prompt, &[], p));
        assert!(
            found[0].starts_with("prompt \"review\" has an empty description")
                && found[0].contains("the `Prompt` its `descriptor()` returns"),
            "{found:?}"
        );
    }

    #[test]
    fn every_bad_scope_is_named() {
        let tool = Tool::new("deploy", "Deploys.");
        let found = problems(|p| super::tool(&tool, &["deploy:write", "a b", "", "caf\u{e9}"], p));
        assert_eq!(found.len(), 3, "{found:?}");
        for (problem, scope) in found.iter().zip(["\"a b\"", "\"\"", "\"caf\u{e9}\""]) {
            assert!(
                problem.starts_with(&format!("tool \"deploy\" requires the scope {scope}")),
                "{problem}"
            );
            assert!(problem.contains("from `required_scopes()`"), "{problem}");
        }
        let template = ResourceTemplate::new("test://items/{id}", "item");
        let found = problems(|p| resource_template(&template, &["x\"y"], p));
        assert!(
            found[0].starts_with("resource template \"test://items/{id}\" requires"),
            "{found:?}"
        );
    }

    #[test]
    fn a_fixed_uri_has_no_brace() {
        let fine = Resource::new("test://items/all", "items");
        assert!(problems(|p| resource(&fine, &["items:read"], p)).is_empty());
        let templated = Resource::new("test://items/{id}", "item");
        let found = problems(|p| resource(&templated, &[], p));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0]
                .starts_with("resource \"test://items/{id}\": a fixed resource URI holds no `{`")
                && found[0].contains("`ServerBuilder::resource_template`"),
            "{found:?}"
        );
    }
}

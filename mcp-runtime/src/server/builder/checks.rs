//! The rules of `mcp-runtime-rules` that the macros check at compile time, checked
//! again by [`ServerBuilder::build`](super::ServerBuilder::build) for every
//! handler, so that one implemented by hand cannot break them: a tool or
//! prompt has a description, each scope a handler requires is one token,
//! and a fixed resource URI holds no `{`.
//!
//! Each function adds one sentence per problem to `problems`, naming the
//! handler and saying how to fix it.

use serde_json::Value;

use crate::rules;
use crate::schema::{JsonObject, Prompt, Resource, ResourceTemplate, Tool};
use crate::server::handler::plumbing::SharedNeed;
use crate::server::handler::{SharedValues, TaskSupport};

/// Checks a tool's description, the scopes it requires and the integers
/// of its input schema.
pub(super) fn tool(tool: &Tool, scopes: &[&str], problems: &mut Vec<String>) {
    let who = format!("tool {:?}", tool.name);
    description(&who, "Tool", tool.description.as_deref(), problems);
    self::scopes(&who, scopes, problems);
    wide_integers(&who, &tool.input_schema, problems);
}

/// How deep [`wide_integers`] looks into a schema (every derived schema
/// is far shallower); deeper parts are not checked.
const SCHEMA_DEPTH: usize = 32;

/// Each property of `who`'s input schema that is a 128-bit integer
/// (`"format": "uint128"` or `"int128"`, as schemars writes `u128` and
/// `i128`): JSON numbers carry integers exactly only up to 64 bits, so
/// every call giving it a value would be refused with "invalid type:
/// floating point". The macros refuse such a parameter written in the
/// function; this finds one inside an arguments struct they cannot see.
fn wide_integers(who: &str, schema: &JsonObject, problems: &mut Vec<String>) {
    let mut found = Vec::new();
    let mut seen = Vec::new();
    wide_integers_in(schema, schema, "", &mut seen, SCHEMA_DEPTH, &mut found);
    found.dedup();
    for (path, format) in found {
        let (ty, instead) = match format {
            "uint128" => ("u128", "u64"),
            _ => ("i128", "i64"),
        };
        let place = if path.is_empty() {
            "its arguments are".to_owned()
        } else {
            format!("the argument `{path}` is")
        };
        problems.push(format!(
            "{who}: {place} a 128-bit integer (`{ty}`), which JSON carries exactly only up to 64 \
             bits, so every call giving it a value would be refused; use `{instead}`, or a \
             `String` for larger values"
        ));
    }
}

/// Walks `schema` (at the property path `path`; `root` holds its `$defs`),
/// adding each 128-bit integer's path and format to `found`. `seen` holds
/// the `$ref`s being followed, so a recursive type is walked once.
fn wide_integers_in<'a>(
    root: &'a JsonObject,
    schema: &'a JsonObject,
    path: &str,
    seen: &mut Vec<&'a str>,
    depth: usize,
    found: &mut Vec<(String, &'static str)>,
) {
    let Some(depth) = depth.checked_sub(1) else {
        return;
    };
    match schema.get("format").and_then(Value::as_str) {
        Some("uint128") => found.push((path.to_owned(), "uint128")),
        Some("int128") => found.push((path.to_owned(), "int128")),
        _ => {}
    }
    let mut walk = |sub: &'a Value, path: &str, seen: &mut Vec<&'a str>| {
        if let Value::Object(sub) = sub {
            wide_integers_in(root, sub, path, seen, depth, found);
        }
    };
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (name, sub) in properties {
            let path = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            walk(sub, &path, seen);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = schema.get(key) {
            walk(sub, &format!("{path}[]"), seen);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(subs)) = schema.get(key) {
            for sub in subs {
                walk(sub, path, seen);
            }
        }
    }
    let target = schema
        .get("$ref")
        .and_then(Value::as_str)
        .filter(|target| !seen.contains(target));
    // `#` is the root (a recursive arguments type), `#/$defs/Name` one of
    // its definitions.
    let definition = target.and_then(|target| match target.strip_prefix("#/$defs/") {
        Some(name) => root.get("$defs")?.get(name)?.as_object(),
        None => (target == "#").then_some(root),
    });
    if let (Some(target), Some(definition)) = (target, definition) {
        seen.push(target);
        wide_integers_in(root, definition, path, seen, depth, found);
        seen.pop();
    }
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

/// A problem when `who` must run as a task ([`TaskSupport::Required`]) and
/// the crate is built without the `tasks` feature.
///
/// A build error rather than a compile error: `task_support` is a value a
/// handler returns (written by hand or by `#[tool(task = "required")]`),
/// and the macros, a crate of their own, cannot see this crate's features;
/// refusing here covers both kinds of handler with one sentence that names
/// the feature. Such a tool could only ever answer `-32021` (no client can
/// declare an extension the server does not offer), so it is refused rather
/// than served. A tool that *may* run as a task
/// ([`TaskSupport::Optional`]) is served without the feature, answered
/// directly as for a request that does not declare the extension.
pub(super) fn task_support(
    support: TaskSupport,
    problems: &mut Vec<String>,
    who: impl Fn() -> String,
) {
    if cfg!(not(feature = "tasks")) && support == TaskSupport::Required {
        problems.push(format!(
            "{} must run as a task (`TaskSupport::Required`, `#[tool(task = \"required\")]`), \
             but mcp-runtime was built without its `tasks` feature; turn the feature on, or \
             let the tool run without a task",
            who()
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

    /// The input schema the macros give a tool whose arguments are `T`.
    fn tool_of<T: schemars::JsonSchema>() -> Tool {
        let schema = schemars::generate::SchemaSettings::draft2020_12()
            .into_generator()
            .into_root_schema_for::<T>();
        let Value::Object(schema) = schema.to_value() else {
            panic!("an object schema")
        };
        Tool::new("pay", "Pays.").with_input_schema(schema)
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Narrow {
        count: u64,
        offset: i64,
        ratio: f64,
        small: Option<u8>,
        list: Vec<i32>,
        inner: Option<Box<Narrow>>,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Payment {
        amount: u128,
        note: String,
        legs: Vec<Leg>,
        refund: Option<Leg>,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Leg {
        delta: i128,
        fee: u64,
    }

    #[test]
    fn integers_up_to_64_bits_and_floats_are_fine() {
        let tool = tool_of::<Narrow>();
        assert!(problems(|p| super::tool(&tool, &[], p)).is_empty());
    }

    #[test]
    fn a_128_bit_integer_in_the_arguments_is_named_by_its_path() {
        let tool = tool_of::<Payment>();
        let found = problems(|p| super::tool(&tool, &[], p));
        assert_eq!(
            found,
            [
                "tool \"pay\": the argument `amount` is a 128-bit integer (`u128`), which JSON \
                 carries exactly only up to 64 bits, so every call giving it a value would be \
                 refused; use `u64`, or a `String` for larger values",
                "tool \"pay\": the argument `legs[].delta` is a 128-bit integer (`i128`), which \
                 JSON carries exactly only up to 64 bits, so every call giving it a value would \
                 be refused; use `i64`, or a `String` for larger values",
                "tool \"pay\": the argument `refund.delta` is a 128-bit integer (`i128`), which \
                 JSON carries exactly only up to 64 bits, so every call giving it a value would \
                 be refused; use `i64`, or a `String` for larger values",
            ]
        );
    }

    #[test]
    fn a_schema_deeper_than_the_walk_or_referring_to_itself_ends() {
        let mut schema = serde_json::json!({"type": "integer", "format": "uint128"});
        for _ in 0..200 {
            schema = serde_json::json!({"type": "object", "properties": {"a": schema}});
        }
        let Value::Object(schema) = schema else {
            panic!("an object")
        };
        let tool = Tool::new("deep", "Deep.").with_input_schema(schema);
        assert!(problems(|p| super::tool(&tool, &[], p)).is_empty());
        let looped = serde_json::json!({
            "type": "object",
            "properties": {"next": {"$ref": "#/$defs/A"}, "back": {"$ref": "#"}},
            "$defs": {"A": {"properties": {"next": {"$ref": "#/$defs/A"}}}},
        });
        let Value::Object(looped) = looped else {
            panic!("an object")
        };
        let tool = Tool::new("looped", "Loops.").with_input_schema(looped);
        assert!(problems(|p| super::tool(&tool, &[], p)).is_empty());
    }

    #[test]
    fn a_fixed_uri_has_no_brace() {
        let fine = Resource::new("test://items/all", "items");
        assert!(problems(|p| resource(&fine, &["items:read"], p)).is_empty());
        let templated = Resource::new("test://items/{id}", "item");
        let found = problems(|p| resource(&templated, &[], p));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with(
                "resource \"test://items/{id}\": a fixed resource URI holds no `\u{7b}`"
            ) && found[0].contains("`ServerBuilder::resource_template`"),
            "{found:?}"
        );
    }
}

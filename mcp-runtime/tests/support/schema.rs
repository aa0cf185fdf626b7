//! Validation against the JSON Schema of 2026-07-28 (`$defs` of
//! `schema.json`), and of 2025-11-25 for what 2025-era clients get.
//!
//! The schemas are read at run time from the shared copy of the
//! specification (`../../shared/spec/<revision>/schema.json`, relative to
//! this crate). [`validate`] checks a value against one `$defs` entry by
//! compiling the whole document with a root `$ref` to that entry, so every
//! nested `$ref` resolves inside the same document.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::{Value, json};

/// The directory of the specification: `schema.json` and `examples/`.
pub(crate) fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec/2026-07-28")
}

/// A revision of the specification whose schema a value is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Revision {
    /// 2026-07-28.
    Current,
    /// 2025-11-25, what 2025-era clients read.
    Legacy,
}

/// The parsed `schema.json` of `revision`, read once.
fn document_of(revision: Revision) -> &'static Value {
    static CURRENT: OnceLock<Value> = OnceLock::new();
    static LEGACY: OnceLock<Value> = OnceLock::new();
    let (slot, dir) = match revision {
        Revision::Current => (&CURRENT, spec_dir()),
        Revision::Legacy => (&LEGACY, spec_dir().join("../2025-11-25")),
    };
    slot.get_or_init(|| {
        let path = dir.join("schema.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        serde_json::from_str(&text).expect("schema.json is JSON")
    })
}

fn document() -> &'static Value {
    document_of(Revision::Current)
}

/// `schema.json` with `additionalProperties: false` added to every object
/// schema that lists `properties` and says nothing about other keys (except
/// the open `_meta` objects and the branches of an `allOf`, which only
/// refine their siblings). The specification does not forbid unknown keys,
/// but a key *we* emit that the schema does not name is a misspelt or
/// invented field, so our own serialisations are also checked against this.
fn strict_document() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let mut document = document().clone();
        for (name, def) in document["$defs"].as_object_mut().expect("$defs").iter_mut() {
            if !name.ends_with("MetaObject") {
                close_objects(def, false);
            }
        }
        document
    })
}

fn close_objects(schema: &mut Value, in_all_of: bool) {
    match schema {
        Value::Object(map) => {
            if !in_all_of
                && map.contains_key("properties")
                && !map.contains_key("additionalProperties")
            {
                map.insert("additionalProperties".into(), Value::Bool(false));
            }
            for (key, value) in map.iter_mut() {
                match (key.as_str(), value) {
                    ("allOf", Value::Array(branches)) => {
                        branches.iter_mut().for_each(|b| close_objects(b, true));
                    }
                    // Property *names* are not schemas; their values are.
                    ("properties", Value::Object(properties)) => {
                        properties
                            .values_mut()
                            .for_each(|p| close_objects(p, false));
                    }
                    (_, value) => close_objects(value, false),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| close_objects(i, false)),
        _ => {}
    }
}

/// The compiled validator of `#/$defs/<def>` of `revision` (of the strict
/// 2026-07-28 document when `strict`), compiled once per name.
fn validator(revision: Revision, def: &str, strict: bool) -> Arc<jsonschema::Validator> {
    type Cache = Mutex<HashMap<(Revision, String, bool), Arc<jsonschema::Validator>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let document = match (revision, strict) {
        (Revision::Current, true) => strict_document(),
        (revision, _) => document_of(revision),
    };
    assert!(
        document["$defs"].get(def).is_some(),
        "schema.json has no $defs/{def}"
    );
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    cache
        .entry((revision, def.to_owned(), strict))
        .or_insert_with(|| {
            let mut schema = document.clone();
            schema["$ref"] = json!(format!("#/$defs/{def}"));
            let compiled = jsonschema::options()
                .should_validate_formats(true)
                .build(&schema)
                .unwrap_or_else(|e| panic!("$defs/{def} does not compile: {e}"));
            Arc::new(compiled)
        })
        .clone()
}

/// The schema errors of `instance` against `$defs/<def>` (empty when valid).
pub(crate) fn errors_in(def: &str, instance: &Value, strict: bool) -> Vec<String> {
    errors_of(Revision::Current, def, instance, strict)
}

/// The schema errors of `instance` against `$defs/<def>` of `revision`.
pub(crate) fn errors_of(
    revision: Revision,
    def: &str,
    instance: &Value,
    strict: bool,
) -> Vec<String> {
    validator(revision, def, strict)
        .iter_errors(instance)
        .map(|e| format!("at {:?}: {e}", e.instance_path.as_str()))
        .collect()
}

/// The schema errors of `instance` against `$defs/<def>` as published.
pub(crate) fn errors(def: &str, instance: &Value) -> Vec<String> {
    errors_in(def, instance, false)
}

/// Asserts `instance` is valid against `$defs/<def>`.
pub(crate) fn validate(def: &str, instance: &Value) {
    let errors = errors(def, instance);
    assert!(
        errors.is_empty(),
        "not a valid {def}:\n{}\ninstance: {instance:#}",
        errors.join("\n")
    );
}

/// Asserts `instance` is valid against `$defs/<def>` and uses no key the
/// schema does not name (see [`strict_document`]).
pub(crate) fn validate_strict(def: &str, instance: &Value) {
    validate(def, instance);
    let errors = errors_in(def, instance, true);
    assert!(
        errors.is_empty(),
        "{def} has keys the schema does not name:\n{}\ninstance: {instance:#}",
        errors.join("\n")
    );
}

/// The `result` of a successful JSON-RPC response, validated against
/// `$defs/<def>` (against `InputRequiredResult` when it asks for input).
pub(crate) fn result(response: &Value, def: &str) -> Value {
    assert!(
        response.get("error").is_none(),
        "expected a result: {response:#}"
    );
    let result = response["result"].clone();
    let def = if result["resultType"] == "input_required" {
        "InputRequiredResult"
    } else {
        def
    };
    validate_strict(def, &result);
    result
}

/// The `error` of a JSON-RPC error response, validated against the schema.
pub(crate) fn error(response: &Value) -> Value {
    assert!(
        response.get("result").is_none(),
        "expected an error: {response:#}"
    );
    validate_strict("JSONRPCErrorResponse", response);
    response["error"].clone()
}

/// Asserts `instance` is refused by `$defs/<def>`.
pub(crate) fn assert_invalid(def: &str, instance: &Value) {
    assert!(
        !errors(def, instance).is_empty(),
        "{def} accepted an invalid instance: {instance:#}"
    );
}

/// Asserts `instance` is valid against `$defs/<def>` of 2025-11-25 (what a
/// 2025-era client is sent).
pub(crate) fn validate_2025(def: &str, instance: &Value) {
    let errors = errors_of(Revision::Legacy, def, instance, false);
    assert!(
        errors.is_empty(),
        "not a valid 2025-11-25 {def}:\n{}\ninstance: {instance:#}",
        errors.join("\n")
    );
}

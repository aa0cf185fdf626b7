//! A request's `arguments`, which the reader keeps apart as the JSON text
//! the client sent: how deep they may nest, and how they go back into the
//! params of a method that takes them there.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::schema::JsonObject;

/// Puts `arguments`, kept apart as sent, back into `params`, for the
/// methods that take them in their params.
pub(crate) fn restore_arguments(arguments: Option<Box<RawValue>>, params: &mut JsonObject) {
    if let Some(arguments) = arguments {
        // Text read as JSON once, within the depth limit, reads again.
        let value = serde_json::from_str(arguments.get()).unwrap_or(Value::Null);
        params.insert(ARGUMENTS.to_owned(), value);
    }
}

/// The deepest `arguments` may nest: `serde_json`'s limit for a tree.
pub(super) const MAX_DEPTH: usize = 128;

/// Refuses valid JSON `text` read as text (where no tree holds it to
/// `serde_json`'s depth limit) that nests deeper than a tree may, with the
/// parser's own error; `outer` is how many levels hold it already.
pub(super) fn within_depth<E: serde::de::Error>(text: &str, outer: usize) -> Result<(), E> {
    if nesting_depth(text) + outer > MAX_DEPTH {
        return Err(E::custom("recursion limit exceeded"));
    }
    Ok(())
}

/// How deep the arrays and objects of valid JSON `text` nest: one pass
/// over its bytes, strings skipped.
pub(super) fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for byte in text.bytes() {
        match (in_string, byte) {
            (true, _) if escaped => escaped = false,
            (true, b'\\') => escaped = true,
            (true, b'"') => in_string = false,
            (true, _) => {}
            (false, b'"') => in_string = true,
            (false, b'{' | b'[') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, b'}' | b']') => depth = depth.saturating_sub(1),
            (false, _) => {}
        }
    }
    deepest
}

/// The params member a tool call's arguments travel in.
pub(super) const ARGUMENTS: &str = "arguments";

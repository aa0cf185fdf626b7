//! The core methods of 2026-07-28, each served by one function the method
//! table names: `tools/call`, `prompts/get`, `resources/read`,
//! `completion/complete` and extension methods (`calls.rs`), discovery and
//! the lists (`lists.rs`), and the HTTP header rules they and dispatch
//! check (`headers.rs`).
//!
//! It uses `round` (to run handlers, and through its core whether the
//! gate signs), `tasks` (a `tools/call` of a task tool) and `handler`; the
//! dispatch room calls it.

mod calls;
pub(crate) mod headers;
mod lists;

pub(crate) use calls::{call_tool, complete, extension, get_prompt, read_resource};
pub(crate) use lists::{CachePolicy, Lists, discover, prompts, resources, templates, tools};

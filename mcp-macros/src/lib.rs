//! Procedural macros for `mcp-runtime`.
//!
//! The handler attributes (`#[tool]`, `#[prompt]`, `#[resource]`) and the
//! `#[derive(ElicitForm)]` derive arrive with the DSL; until then this crate
//! is an empty proc-macro crate so the workspace layout is final.

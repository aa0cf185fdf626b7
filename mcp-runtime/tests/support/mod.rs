//! Helpers shared by the integration tests of `mcp-runtime`.
//!
//! Each file in `tests/` is its own crate and includes this module with
//! `mod support;`; not every test uses every helper, hence `dead_code`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub(crate) mod auth_handlers;
pub(crate) mod client;
pub(crate) mod handlers;
pub(crate) mod http;
pub(crate) mod legacy;
pub(crate) mod schema;

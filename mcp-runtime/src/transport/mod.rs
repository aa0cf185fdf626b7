//! Transports: newline-delimited JSON over stdio, and streamable HTTP.
//!
//! A transport reads bytes, turns them into one JSON-RPC message and a
//! [`ReceiveContext`](crate::server::ReceiveContext), hands the message to
//! the [`Server`](crate::server::Server), and writes back what it returns.
//! No transport knows about handlers.

pub mod http;
mod session;
pub mod stdio;

//! Transports: newline-delimited JSON over stdio, and streamable HTTP.
//!
//! A transport reads bytes, turns them into one JSON-RPC message and a
//! [`ReceiveContext`](crate::server::ReceiveContext), hands the message to
//! the [`Server`](crate::server::Server), and writes back what it returns.
//! No transport knows about handlers.
//!
//! What a message means for a 2025-era session is written once, in the
//! crate's session driver (`session.rs`), which both transports use: a
//! request runs tracked and cancellable in its peer's session (within the
//! in-flight bound, if the transport sets one), `notifications/cancelled`
//! and the other notifications are routed, the client's responses reach
//! the questions they answer, and the changes the session asked for are
//! streamed. Each transport keeps the bytes: framing and writing, and for
//! HTTP its statuses, its sessions by id with their expiry, and resumable
//! streams.

pub mod http;
mod session;
pub mod stdio;

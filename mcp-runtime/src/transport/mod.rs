//! Transports: newline-delimited JSON over stdio, and streamable HTTP.
//!
//! A transport reads bytes, turns them into one JSON-RPC message
//! ([`parse_message`]) and a [`ReceiveContext`], hands the message to the
//! [`Server`](crate::server::Server), and writes back the [`Response`] it
//! returns; what the server sends outside a response leaves through a
//! [`Notifier`]. No transport knows about handlers. The items below are
//! what writing a transport of your own takes; [`stdio`] and [`http`] are
//! the two shipped.
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

#[cfg(feature = "http")]
pub mod http;
#[cfg(any(feature = "http", feature = "stdio"))]
mod session;
#[cfg(feature = "stdio")]
pub mod stdio;

pub use crate::receive_context::{HttpRequestHeaders, ReceiveContext, TransportKind};
pub use crate::server::{Incoming, Notifier, Request, Response, StreamClose, parse_message};

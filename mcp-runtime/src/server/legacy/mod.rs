//! The 2025 era: how a server treats clients that open with `initialize`
//! ([`LegacyClients`], [`Bridge`], set on the
//! [`ServerBuilder`](super::ServerBuilder)), and the [`Session`] a
//! transport keeps for each.
//!
//! In the source, the 2025 era beside 2026-07-28 is in one room: how the server treats
//! 2025-era clients ([`LegacyClients`], [`Bridge`]); their sessions
//! ([`Session`], `session.rs`); `initialize` and the methods 2026-07-28
//! removed (`ping`, `logging/setLevel`, `resources/subscribe`,
//! `resources/unsubscribe`, `requests.rs`); the questions a bridged round
//! asks the client on its session (`bridge.rs`); and the 2025 shape results
//! are written in (`shape.rs`).
//!
//! Which era a request belongs to is decided in one place, the dispatch
//! room; the round loop (`round`) hands a 2025-era client's asks to
//! `bridge.rs` (`ask_round`) and runs the next round in process. This room uses
//! `notify` and `url_steps` only: it knows nothing of handlers.

mod bridge;
mod requests;
mod session;
mod shape;

pub(crate) use bridge::{Bridged, Channel, admit, ask_round};
pub(crate) use requests::{
    Introduction, initialize, ping, request_meta, set_level, subscribe, unsubscribe,
};
pub use session::{ClientResponse, MAX_SUBSCRIPTIONS, Session, UnknownResponse};
pub(crate) use shape::serialise_2025;

use std::time::Duration;

/// How a server treats 2025-era clients (those that open with `initialize`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LegacyClients {
    /// Served in sessions: `initialize` opens one (an `MCP-Session-Id` on
    /// HTTP; the connection on stdio), which keeps the client's
    /// capabilities and log level, carries resource subscriptions and
    /// change notifications, and lets the server ask the client for input
    /// (the [`Bridge`]). The default.
    #[default]
    Sessions,
    /// Served one request at a time, with no session: `initialize` is
    /// answered but opens nothing, so the server cannot ask the client
    /// anything (no bridge), and `logging/setLevel` and
    /// `resources/subscribe` are not offered.
    Stateless,
    /// Refused: `initialize` gets `-32022` naming the versions this server
    /// supports (2026-07-28 only).
    Refused,
}

/// How an input-required result reaches a 2025-era client, which cannot
/// read one: the server sends each input request to the client itself
/// (`elicitation/create`, `sampling/createMessage`, `roots/list`) on the
/// session, collects the answers, and enters the handler again with them
/// and the state it returned, verified as on the 2026-07-28 path.
///
/// When the bridge cannot go on (the client did not declare what is asked,
/// a bound is hit, a round times out, the client leaves or cancels), a tool
/// call ends as a result with `isError: true` and a prompt or resource read
/// with a `-32603` error, each saying why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bridge {
    pub(crate) enabled: bool,
    pub(crate) max_rounds: usize,
    pub(crate) round_timeout: Duration,
    pub(crate) max_answer_bytes: usize,
}

/// The largest answer to one question the bridge takes by default: 1 MiB.
const DEFAULT_MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// The most rounds the bridge runs for one request by default.
#[doc(hidden)]
pub const DEFAULT_BRIDGE_ROUNDS: usize = 8;

/// How long the bridge waits for the client's answers to one round by default.
#[doc(hidden)]
pub const DEFAULT_BRIDGE_ROUND_TIMEOUT: Duration = Duration::from_secs(600);

impl Default for Bridge {
    fn default() -> Self {
        Self {
            enabled: true,
            max_rounds: DEFAULT_BRIDGE_ROUNDS,
            round_timeout: DEFAULT_BRIDGE_ROUND_TIMEOUT,
            max_answer_bytes: DEFAULT_MAX_ANSWER_BYTES,
        }
    }
}

impl Bridge {
    /// No bridge: a handler that asks a 2025-era client for input ends as
    /// when the bridge cannot go on.
    pub fn off() -> Self {
        Self {
            enabled: false,
            ..Self::default()
        }
    }

    /// The most rounds for one request (8 by default, at least 1).
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds.max(1);
        self
    }

    /// How long one round may wait for the client's answers (10 minutes by default).
    pub fn round_timeout(mut self, timeout: Duration) -> Self {
        self.round_timeout = timeout;
        self
    }

    /// The largest answer to one question the bridge takes, as JSON text
    /// (1 MiB by default): the answers are kept until the handler runs
    /// again. A larger answer ends the bridge, as when the client cannot
    /// answer, saying so.
    pub fn max_answer_bytes(mut self, bytes: usize) -> Self {
        self.max_answer_bytes = bytes;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bridge_bounds_are_at_least_one_round() {
        let bridge = Bridge::default().max_rounds(0);
        assert_eq!(bridge.max_rounds, 1);
        assert!(!Bridge::off().enabled);
    }
}

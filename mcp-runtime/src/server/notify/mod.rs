//! What leaves the server outside a response: a request's way out to its
//! client ([`Notifier`]: progress, log messages, a 2025-era client's
//! questions, the early close of an event stream) and the changes the
//! server announces to everyone listening ([`ChangeNotifier`]).
//!
//! The lowest room of the server: it uses nothing of the server's.

mod changes;
mod lazy;
mod notifier;

pub(crate) use changes::Closing;
pub use changes::{Change, ChangeNotifier};
#[cfg(feature = "http")]
pub(crate) use lazy::LazyNotes;
pub(crate) use notifier::WeakNotifier;
pub use notifier::{Notifier, StreamClose};

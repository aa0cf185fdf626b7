//! Signed, bound, expiring `requestState`, and single use.
//!
//! See [`RequestStateSigner`] for the token and its binding, and
//! [`ReplayGuard`] for single use. The guide below (also
//! `docs/asking-for-input.md` in this crate) walks through the whole round
//! trip.
//!
#![doc = include_str!("../../docs/asking-for-input.md")]

mod binding;
mod clock;
mod error;
mod keys;
#[cfg(feature = "redis")]
mod redis;
mod replay;
mod signer;
mod token;

pub use binding::{Binding, BindingRequest, BoundArguments, arguments_digest};
pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{KeyError, StateError};
pub use keys::{MIN_SECRET_BYTES, SigningKey};
#[cfg(feature = "redis")]
pub use redis::{DEFAULT_REDIS_TIMEOUT, RedisReplayGuard};
// Kept for one release, hidden: the default is stated on `key_prefix`.
#[cfg(feature = "redis")]
#[allow(deprecated)]
pub use redis::DEFAULT_KEY_PREFIX;
#[cfg(feature = "redis")]
pub(crate) use redis::{Script, lazy_connection};
pub use replay::{
    InMemoryReplayGuard, ReplayError, ReplayGuard, RoundClaim, default_replay_capacity,
};
pub use signer::{MAX_STATE_BYTES, RequestStateSigner, VerifiedState};
// Kept for one release, hidden: the defaults are stated on the setters.
#[allow(deprecated)]
pub use replay::DEFAULT_OUTCOME_BUDGET;
#[allow(deprecated)]
pub use signer::DEFAULT_TTL_SECONDS;

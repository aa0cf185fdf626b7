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

pub use binding::{Binding, BindingRequest, arguments_digest};
pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{KeyError, StateError};
pub use keys::{MIN_SECRET_BYTES, SigningKey};
#[cfg(feature = "redis")]
pub use redis::{DEFAULT_KEY_PREFIX, DEFAULT_REDIS_TIMEOUT, RedisReplayGuard};
#[cfg(feature = "redis")]
pub(crate) use redis::{Script, lazy_connection};
pub use replay::{
    DEFAULT_OUTCOME_BUDGET, InMemoryReplayGuard, ReplayError, ReplayGuard, RoundClaim,
    default_replay_capacity,
};
pub use signer::{DEFAULT_TTL_SECONDS, MAX_STATE_BYTES, RequestStateSigner, VerifiedState};

//! Why a state was refused (for the log, never for the client), and why a
//! key was refused (for the operator).

use std::fmt;

/// Why a `requestState` failed verification, or could not be minted.
///
/// The server answers every one of these with the same `-32602`
/// `Invalid or expired "requestState"`; this reason goes to the log only.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StateError {
    /// The token is longer than the size cap (checked before any decoding).
    TooLarge {
        /// Its length in bytes.
        len: usize,
        /// The cap.
        max: usize,
    },
    /// The token is not of the expected shape.
    Malformed(&'static str),
    /// The token's format version is not one this signer reads.
    UnsupportedVersion,
    /// The token names a key this signer does not hold.
    UnknownKey {
        /// The key id the token named.
        key_id: String,
    },
    /// The signature (or AEAD tag) does not match: tampered, minted under
    /// another key, or for another binding (caller, method, target, arguments).
    BadSignature,
    /// The token's lifetime is over.
    Expired {
        /// When it expired (Unix seconds).
        expired_at: u64,
        /// The time of the check (Unix seconds).
        now: u64,
    },
    /// The token was already used once and single use is on.
    Replayed,
    /// Single use is on and the replay guard is full: the use could not be
    /// recorded, so it is refused.
    GuardFull {
        /// How many states the guard may remember.
        capacity: usize,
    },
    /// The payload could not be encoded or encrypted.
    Encoding(String),
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLarge { len, max } => {
                write!(f, "state is {len} bytes, above the cap of {max}")
            }
            Self::Malformed(what) => write!(f, "state is malformed: {what}"),
            Self::UnsupportedVersion => f.write_str("state has an unsupported format version"),
            Self::UnknownKey { key_id } => write!(f, "state names unknown key id {key_id:?}"),
            Self::BadSignature => f.write_str(
                "state signature does not verify (tampered, other key, or other binding)",
            ),
            Self::Expired { expired_at, now } => {
                write!(f, "state expired at {expired_at} (now {now})")
            }
            Self::Replayed => f.write_str("state was already used (single use)"),
            Self::GuardFull { capacity } => write!(
                f,
                "the replay guard is full ({capacity} unexpired states): the use of this \
                 state cannot be recorded, so it is refused (raise the capacity, shorten \
                 the TTL, or use a shared guard such as Redis)"
            ),
            Self::Encoding(why) => write!(f, "state could not be encoded: {why}"),
        }
    }
}

impl std::error::Error for StateError {}

/// A secret or key id that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError(pub(crate) String);

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeyError {}

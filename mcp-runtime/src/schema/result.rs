//! `resultType` and the caching hints of cacheable results.

use serde::{Deserialize, Serialize};

/// The kind of a result. Every 2026-07-28 result names one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum ResultType {
    /// `"complete"`: the ordinary, final result.
    #[default]
    Complete,
    /// `"input_required"`: the client must fulfil input requests and retry.
    InputRequired,
    /// A value added by an extension (e.g. `"task"`).
    Other(String),
}

impl ResultType {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Complete => "complete",
            Self::InputRequired => "input_required",
            Self::Other(s) => s,
        }
    }
}

impl Serialize for ResultType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(match s.as_str() {
            "complete" => Self::Complete,
            "input_required" => Self::InputRequired,
            _ => Self::Other(s),
        })
    }
}

/// Who may reuse a cached result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No user data: shareable across authorization contexts.
    Public,
    /// Reusable only within the same authorization context.
    #[default]
    Private,
}

/// How long a cacheable result stays fresh, and for whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CacheHint {
    /// Freshness in milliseconds from receipt; 0 means immediately stale.
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub scope: CacheScope,
}

impl CacheHint {
    /// Immediately stale, private: the safe default.
    pub const NONE: Self = Self {
        ttl_ms: 0,
        scope: CacheScope::Private,
    };

    /// Fresh for `ttl_ms`, shareable across callers.
    pub const fn public(ttl_ms: u64) -> Self {
        Self {
            ttl_ms,
            scope: CacheScope::Public,
        }
    }

    /// Fresh for `ttl_ms`, only for the same caller.
    pub const fn private(ttl_ms: u64) -> Self {
        Self {
            ttl_ms,
            scope: CacheScope::Private,
        }
    }
}

impl Default for CacheHint {
    fn default() -> Self {
        Self::NONE
    }
}

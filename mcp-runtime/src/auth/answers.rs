//! A bounded, short-lived cache of an authorization server's answers about
//! tokens, keyed by the SHA-256 digest of the token: the token itself is
//! never kept.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};

/// The SHA-256 digest of a token, the only form of it the cache keeps.
pub(super) type TokenDigest = [u8; 32];

/// The digest of `token`.
pub(super) fn digest(token: &str) -> TokenDigest {
    Sha256::digest(token.as_bytes()).into()
}

/// Answers kept for at most `ttl` each, at most `capacity` of them. A TTL
/// of zero, or a capacity of zero, keeps nothing.
pub(super) struct AnswerCache<T> {
    ttl: Duration,
    capacity: usize,
    entries: Mutex<HashMap<TokenDigest, Kept<T>>>,
}

/// One kept answer and when it stops being used.
struct Kept<T> {
    until: Instant,
    answer: T,
}

impl<T: Clone> AnswerCache<T> {
    /// A cache that keeps nothing.
    pub(super) fn off(capacity: usize) -> Self {
        Self::new(Duration::ZERO, capacity)
    }

    /// A cache of at most `capacity` answers, each kept at most `ttl`.
    pub(super) fn new(ttl: Duration, capacity: usize) -> Self {
        Self {
            ttl,
            capacity,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The longest an answer is kept.
    pub(super) fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The most answers kept at once.
    pub(super) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether anything is ever kept.
    pub(super) fn is_on(&self) -> bool {
        !self.ttl.is_zero() && self.capacity > 0
    }

    /// The answer kept for `key`, unless it has expired (then it is
    /// dropped).
    pub(super) fn get(&self, key: &TokenDigest, now: Instant) -> Option<T> {
        if !self.is_on() {
            return None;
        }
        let mut entries = self.lock();
        match entries.get(key) {
            Some(kept) if now < kept.until => Some(kept.answer.clone()),
            Some(_) => {
                entries.remove(key);
                None
            }
            None => None,
        }
    }

    /// Keeps `answer` for `key` for `lifetime`, never longer than the TTL.
    /// When the cache is full, expired answers go first, then the one that
    /// would expire soonest.
    pub(super) fn put(&self, key: TokenDigest, answer: T, now: Instant, lifetime: Duration) {
        let lifetime = lifetime.min(self.ttl);
        if !self.is_on() || lifetime.is_zero() {
            return;
        }
        let mut entries = self.lock();
        if entries.len() >= self.capacity && !entries.contains_key(&key) {
            entries.retain(|_, kept| now < kept.until);
            if entries.len() >= self.capacity {
                let soonest = entries
                    .iter()
                    .min_by_key(|(_, kept)| kept.until)
                    .map(|(key, _)| *key);
                if let Some(soonest) = soonest {
                    entries.remove(&soonest);
                }
            }
        }
        entries.insert(
            key,
            Kept {
                until: now + lifetime,
                answer,
            },
        );
    }

    /// How many answers are kept, expired ones included.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<TokenDigest, Kept<T>>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn an_answer_is_kept_for_its_lifetime_and_never_past_the_ttl() {
        let cache = AnswerCache::new(10 * SECOND, 8);
        let now = Instant::now();
        cache.put(digest("a"), 1, now, 3 * SECOND);
        cache.put(digest("b"), 2, now, 60 * SECOND);
        assert_eq!(cache.get(&digest("a"), now + 2 * SECOND), Some(1));
        assert_eq!(cache.get(&digest("a"), now + 3 * SECOND), None);
        assert_eq!(cache.get(&digest("b"), now + 9 * SECOND), Some(2));
        assert_eq!(cache.get(&digest("b"), now + 10 * SECOND), None);
        assert_eq!(cache.len(), 0, "expired answers are dropped when read");
    }

    #[test]
    fn a_full_cache_drops_the_expired_then_the_soonest_to_expire() {
        let cache = AnswerCache::new(10 * SECOND, 2);
        let now = Instant::now();
        cache.put(digest("short"), 1, now, SECOND);
        cache.put(digest("long"), 2, now, 9 * SECOND);
        cache.put(digest("new"), 3, now, 5 * SECOND);
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get(&digest("short"), now), None);
        assert_eq!(cache.get(&digest("long"), now), Some(2));
        assert_eq!(cache.get(&digest("new"), now), Some(3));
        // Expired ones go first, however long the others have.
        cache.put(digest("later"), 4, now + 6 * SECOND, 9 * SECOND);
        assert_eq!(cache.get(&digest("long"), now + 6 * SECOND), Some(2));
        assert_eq!(cache.get(&digest("later"), now + 6 * SECOND), Some(4));
    }

    #[test]
    fn a_cache_without_ttl_or_capacity_keeps_nothing() {
        let now = Instant::now();
        for cache in [AnswerCache::off(8), AnswerCache::new(SECOND, 0)] {
            cache.put(digest("a"), 1, now, SECOND);
            assert_eq!(cache.get(&digest("a"), now), None);
            assert_eq!(cache.len(), 0);
        }
    }

    #[test]
    fn keys_are_digests_not_tokens() {
        assert_eq!(digest("a"), digest("a"));
        assert_ne!(digest("a"), digest("b"));
        assert_ne!(&digest("token")[..5], b"token");
    }
}

//! Single use: a guard that accepts each verified state once.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

use super::{Clock, SystemClock};
use crate::BoxFuture;

/// The guard could not record the claim. The server fails closed either
/// way: the request is refused and the handler does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayError {
    /// The guard's store could not decide (unreachable, say): the retry is
    /// refused with `-32603`, as the server, not the client, is at fault.
    Unavailable(String),
    /// The guard remembers as many states as it may: the retry is refused
    /// as a replay would be (`-32602`), and the log says why.
    Full {
        /// How many states the guard may remember.
        capacity: usize,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unavailable(why) => write!(f, "replay guard unavailable: {why}"),
            Self::Full { capacity } => write!(
                f,
                "replay guard full: it remembers {capacity} unexpired states, its capacity"
            ),
        }
    }
}

impl std::error::Error for ReplayError {}

/// Remembers which states were used, so each is accepted once.
///
/// Consulted after a state verifies and before the handler runs. A guard
/// shared by a fleet (Redis, a database) makes a state single use across
/// every instance; [`InMemoryReplayGuard`] covers one process.
pub trait ReplayGuard: Send + Sync + 'static {
    /// Claims `fingerprint` until `expires_at` (Unix seconds): `Ok(true)`
    /// the first time, `Ok(false)` on every later call, an error when the
    /// claim cannot be recorded (never `Ok(true)` unrecorded). Must be
    /// atomic.
    fn claim<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        expires_at: u64,
    ) -> BoxFuture<'a, Result<bool, ReplayError>>;

    /// Claims `fingerprint` for a round whose answers digest to `answers`,
    /// keeping room for the round's outcome: [`RoundClaim::First`] the
    /// first time (the caller runs the round, then calls
    /// [`record_outcome`](Self::record_outcome)); later, the recorded
    /// outcome for the same answers, [`RoundClaim::Running`] while the
    /// first is still running, and [`RoundClaim::Refused`] for other
    /// answers or when no outcome was recorded. Must be atomic.
    ///
    /// The default keeps no outcomes: it is [`claim`](Self::claim), and
    /// every later use is refused.
    fn claim_round<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        answers: &'a [u8; 32],
        expires_at: u64,
    ) -> BoxFuture<'a, Result<RoundClaim, ReplayError>> {
        let _ = answers;
        Box::pin(async move {
            Ok(match self.claim(fingerprint, expires_at).await? {
                true => RoundClaim::First,
                false => RoundClaim::Refused,
            })
        })
    }

    /// Records the outcome of the round that claimed `fingerprint` with
    /// [`claim_round`](Self::claim_round) for the answers digested to
    /// `answers` (the same digest), until `expires_at`: `Some` bytes to
    /// hand to duplicates, or `None` when there is none to keep (later uses
    /// are then refused). `Ok(false)` when the guard did not keep it (no
    /// room); the default keeps nothing.
    fn record_outcome<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        answers: &'a [u8; 32],
        outcome: Option<&'a [u8]>,
        expires_at: u64,
    ) -> BoxFuture<'a, Result<bool, ReplayError>> {
        let _ = (fingerprint, answers, outcome, expires_at);
        Box::pin(std::future::ready(Ok(false)))
    }
}

/// What a round's claim found (see [`ReplayGuard::claim_round`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoundClaim {
    /// The state's first use: run the round and record its outcome.
    First,
    /// Used before with the same answers: the first use's outcome.
    Recorded(Vec<u8>),
    /// Used before with the same answers, and that round is still running.
    Running,
    /// Used before with other answers, or without an outcome kept.
    Refused,
}

/// The most bytes of outcomes an [`InMemoryReplayGuard`] keeps at once by
/// default: 64 MiB.
const OUTCOME_BUDGET: usize = 64 << 20;

/// The default most bytes of outcomes an [`InMemoryReplayGuard`] keeps at
/// once (64 MiB).
#[doc(hidden)]
#[deprecated(
    note = "the default (64 MiB) is stated on `InMemoryReplayGuard::outcome_budget`; this constant goes away"
)]
pub const DEFAULT_OUTCOME_BUDGET: usize = OUTCOME_BUDGET;

/// A replay guard in this process's memory.
///
/// Entries are dropped once the state they remember has expired, and at
/// most [`capacity`](Self::capacity) are kept: when that many unexpired
/// states are remembered, a new claim fails with [`ReplayError::Full`]
/// (the retry is refused, never accepted unrecorded). An entry takes 53 B
/// of a table whose room doubles as it fills (never more than 7/8 full):
/// 61 to 122 B an entry, and the old table beside the new one while it
/// doubles. Remembering every state used within one TTL takes
/// `rate x TTL` entries (10,000 retries a second with the default 600 s
/// TTL: 6 million, 370 to 730 MB), besides the outcomes kept (at most
/// [`outcome_budget`](Self::outcome_budget)). It tells states apart by the
/// first 16 bytes of their fingerprints (the server's are SHA-256 digests
/// of the tokens it signed): two fingerprints that share them count as one
/// state, so the second is refused, never accepted twice. Beyond what one
/// machine should hold, or for single use across a fleet or a restart,
/// use a shared guard (`RedisReplayGuard`, cargo feature `redis`): a restart
/// forgets this one.
pub struct InMemoryReplayGuard {
    seen: Mutex<Seen>,
    clock: Arc<dyn Clock>,
    capacity: usize,
    outcome_budget: usize,
}

/// A remembered state: until when, and what is kept of its first use.
/// Small, as a guard holds millions (52 B with its key: see
/// [`InMemoryReplayGuard`]).
struct Entry {
    /// Unix seconds (`u32` lasts until 2106; later ones are kept as its
    /// largest, which only keeps the entry longer).
    expiry: u32,
    kept: Kept,
}

/// What a table keys a state by: the first half of its fingerprint, a
/// SHA-256 digest of a token the server signed. 128 bits are as unique as
/// the whole (two states sharing a key would be a refusal, never a
/// second use) in half the room.
type Key = [u8; 16];

/// What a table keeps of the answers of a round: the first half of their
/// digest (finding other answers with the same 128 bits is out of reach).
type AnswersKey = [u8; 16];

fn halve(digest: &[u8; 32]) -> [u8; 16] {
    let mut half = [0; 16];
    half.copy_from_slice(&digest[..16]);
    half
}

fn expiry_of(expires_at: u64) -> u32 {
    u32::try_from(expires_at).unwrap_or(u32::MAX)
}

/// The most bytes of one chunk of an [`InMemoryReplayGuard`]'s recorded
/// outcomes (128 KiB): one allocation for a few hundred answers.
const CHUNK_BYTES: usize = 128 << 10;

/// Where an [`InMemoryReplayGuard`] keeps recorded outcomes: appended to
/// chunks of their own, each freed once every answer in it is gone.
/// Answers kept for minutes, one allocation each, would sit among the
/// short-lived allocations of requests and fragment the allocator's heap
/// (measured: glibc's `malloc` then costs a quarter of a retry-only
/// load); in chunks they are a few large allocations. Answers expire
/// about in the order they were recorded (every state lives as long as
/// the signer's lifetime), so chunks empty about in order too.
#[derive(Default)]
struct Slab {
    /// The chunks still holding an answer, oldest first; `chunks[i]` has
    /// the id `first + i` (wrapping: the ids of the chunks held at once
    /// span far less than `u32`'s range).
    chunks: VecDeque<Chunk>,
    first: u32,
    /// The bytes the chunks hold (their capacity): what the outcome budget
    /// bounds.
    held: usize,
}

struct Chunk {
    /// Filled up to its capacity, never beyond (so never moved); empty
    /// and without capacity once freed.
    bytes: Vec<u8>,
    /// How many kept answers are in it.
    live: usize,
}

/// Where one answer is in a [`Slab`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    chunk: u32,
    start: u32,
    len: u32,
}

impl Slab {
    /// Appends `outcome`, within `budget` bytes held: where it is, or
    /// `None` when a chunk for it would pass the budget (or it is 4 GiB or
    /// more).
    fn put(&mut self, outcome: &[u8], budget: usize) -> Option<Place> {
        let len = u32::try_from(outcome.len()).ok()?;
        let last_id = self
            .first
            .wrapping_add(u32::try_from(self.chunks.len()).ok()?);
        let fits = self.chunks.back().is_some_and(|chunk| {
            chunk.live > 0 && chunk.bytes.capacity() - chunk.bytes.len() >= outcome.len()
        });
        if !fits {
            let capacity = outcome.len().max(CHUNK_BYTES.min(budget));
            if capacity > budget.saturating_sub(self.held) {
                return None;
            }
            self.held += capacity;
            self.chunks.push_back(Chunk {
                bytes: Vec::with_capacity(capacity),
                live: 0,
            });
        }
        let chunk_id = if fits {
            last_id.wrapping_sub(1)
        } else {
            last_id
        };
        let chunk = self.chunks.back_mut()?;
        // A chunk is 128 KiB, or one outcome of less than 4 GiB: its
        // length fits.
        let start = u32::try_from(chunk.bytes.len()).ok()?;
        chunk.bytes.extend_from_slice(outcome);
        chunk.live += 1;
        Some(Place {
            chunk: chunk_id,
            start,
            len,
        })
    }

    /// The answer at `place`.
    fn get(&self, place: Place) -> &[u8] {
        let (start, len) = (place.start as usize, place.len as usize);
        self.chunk(place.chunk)
            .and_then(|chunk| chunk.bytes.get(start..start + len))
            .unwrap_or_default()
    }

    /// Lets go of the answer at `place`: its chunk is freed with its last
    /// answer, and freed chunks at the front are dropped.
    fn free(&mut self, place: Place) {
        let Some(chunk) = self.index(place.chunk).and_then(|i| self.chunks.get_mut(i)) else {
            return;
        };
        chunk.live = chunk.live.saturating_sub(1);
        if chunk.live == 0 {
            self.held = self.held.saturating_sub(chunk.bytes.capacity());
            chunk.bytes = Vec::new();
        }
        while self.chunks.front().is_some_and(|chunk| chunk.live == 0) {
            self.chunks.pop_front();
            self.first = self.first.wrapping_add(1);
        }
    }

    fn chunk(&self, id: u32) -> Option<&Chunk> {
        self.chunks.get(self.index(id)?)
    }

    /// Where the chunk `id` is in `chunks`, if it is held.
    fn index(&self, id: u32) -> Option<usize> {
        usize::try_from(id.wrapping_sub(self.first))
            .ok()
            .filter(|&index| index < self.chunks.len())
    }
}

/// Hashes a [`Key`] by its first eight bytes: it is part of a SHA-256 digest
/// of a token the server signed (no client can choose one), so its bytes
/// are already uniform and `SipHash` would only cost time.
#[derive(Default)]
struct FingerprintHasher(u64);

impl Hasher for FingerprintHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // An array hashes as its length (`write_usize`, which lands here
        // too), then its bytes in one write: the first eight bytes decide.
        for (i, byte) in bytes.iter().take(8).enumerate() {
            self.0 ^= u64::from(*byte) << (8 * i);
        }
    }
}

type Fingerprints = HashMap<Key, Entry, BuildHasherDefault<FingerprintHasher>>;

enum Kept {
    /// Claimed with [`ReplayGuard::claim`]: nothing kept.
    Claimed,
    /// Claimed for a round with these answers, which is still running.
    Running { answers: AnswersKey },
    /// The round with these answers ended with this outcome.
    Done { answers: AnswersKey, outcome: Place },
    /// The round ended without an outcome to keep.
    Unrecorded,
}

impl Entry {
    /// Where its outcome is, if it holds one.
    fn outcome(&self) -> Option<Place> {
        match self.kept {
            Kept::Done { outcome, .. } => Some(outcome),
            _ => None,
        }
    }
}

struct Seen {
    entries: Fingerprints,
    /// The outcomes the entries hold.
    outcomes: Slab,
    /// The size at which expired entries are swept next.
    sweep_at: usize,
    /// No entry expires before this (the last sweep's earliest, lowered by
    /// each claim since): while full, no sweep runs before it, so a full
    /// table is not scanned on every claim.
    next_expiry: u32,
}

/// States remembered when the machine's memory cannot be read.
const FALLBACK_CAPACITY: usize = 1 << 20;

/// The default capacity of an [`InMemoryReplayGuard`]: as many entries as
/// fit, at 128 B each, in 1/64 of the machine's memory (from
/// `/proc/meminfo`), at least 65,536 and at most 16 Mi; 1 Mi where the
/// memory cannot be read. 8 GiB of memory gives 1 Mi entries.
pub fn default_replay_capacity() -> usize {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|meminfo| mem_total_bytes(&meminfo))
        .map_or(FALLBACK_CAPACITY, |bytes| {
            usize::try_from(bytes / 64 / 128)
                .unwrap_or(usize::MAX)
                .clamp(1 << 16, 1 << 24)
        })
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn mem_total_bytes(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut parts = line["MemTotal:".len()..].split_whitespace();
    let kib: u64 = parts.next()?.parse().ok()?;
    (parts.next() == Some("kB")).then(|| kib.saturating_mul(1024))
}

impl InMemoryReplayGuard {
    /// A guard on the system clock, of the default capacity
    /// ([`default_replay_capacity`]).
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock))
    }

    /// A guard on `clock` (use the signer's clock), of the default
    /// capacity.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self {
            seen: Mutex::new(Seen {
                entries: Fingerprints::default(),
                outcomes: Slab::default(),
                sweep_at: 1024,
                next_expiry: 0,
            }),
            clock,
            capacity: default_replay_capacity(),
            outcome_budget: OUTCOME_BUDGET,
        }
    }

    /// The most bytes of round outcomes kept at once (default 64 MiB); 0
    /// keeps none. Past it, an outcome is not kept and its duplicates are
    /// refused. Outcomes are kept in chunks of up to 128 KiB, each freed
    /// with its last outcome; the bytes counted are the chunks'.
    pub fn outcome_budget(mut self, bytes: usize) -> Self {
        self.outcome_budget = bytes;
        self
    }

    /// The most unexpired states remembered at once, at least 1 (default
    /// [`default_replay_capacity`]: an amount in proportion to the
    /// machine's memory, 1 Mi entries for 8 GiB).
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    /// How many states are remembered right now.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// True when no state is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Seen {
    /// Drops the entries expired at `now`; notes the earliest expiry left.
    fn sweep(&mut self, now: u64) {
        let mut earliest = u32::MAX;
        let outcomes = &mut self.outcomes;
        self.entries.retain(|_, entry| {
            let keep = u64::from(entry.expiry) > now;
            if keep {
                earliest = earliest.min(entry.expiry);
            } else if let Some(place) = entry.outcome() {
                outcomes.free(place);
            }
            keep
        });
        self.next_expiry = earliest;
        self.sweep_at = (self.entries.len() * 2).max(1024);
    }
}

impl Default for InMemoryReplayGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for InMemoryReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemoryReplayGuard")
            .field("remembered", &self.len())
            .finish()
    }
}

impl Seen {
    /// Makes room for a new entry at `now`: sweeps when due. `Err` when the
    /// guard is full of unexpired entries.
    fn make_room(&mut self, now: u64, capacity: usize) -> Result<(), ReplayError> {
        let full = self.entries.len() >= capacity;
        if self.entries.len() >= self.sweep_at || (full && now >= u64::from(self.next_expiry)) {
            self.sweep(now);
        }
        if self.entries.len() >= capacity {
            return Err(ReplayError::Full { capacity });
        }
        Ok(())
    }

    /// Remembers `key` until `expires_at`, replacing an expired entry.
    fn insert(&mut self, key: Key, expires_at: u64, kept: Kept) {
        let expiry = expiry_of(expires_at);
        let entry = Entry { expiry, kept };
        if let Some(place) = self
            .entries
            .insert(key, entry)
            .and_then(|old| old.outcome())
        {
            self.outcomes.free(place);
        }
        self.next_expiry = self.next_expiry.min(expiry);
    }

    /// The unexpired entry of `key`.
    fn live(&self, key: &Key, now: u64) -> Option<&Entry> {
        self.entries
            .get(key)
            .filter(|entry| u64::from(entry.expiry) > now)
    }
}

impl ReplayGuard for InMemoryReplayGuard {
    fn claim<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        expires_at: u64,
    ) -> BoxFuture<'a, Result<bool, ReplayError>> {
        let (now, key) = (self.clock.now(), halve(fingerprint));
        let mut seen = self.lock();
        let outcome = if seen.live(&key, now).is_some() {
            Ok(false)
        } else {
            seen.make_room(now, self.capacity).map(|()| {
                seen.insert(key, expires_at, Kept::Claimed);
                true
            })
        };
        Box::pin(std::future::ready(outcome))
    }

    fn claim_round<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        answers: &'a [u8; 32],
        expires_at: u64,
    ) -> BoxFuture<'a, Result<RoundClaim, ReplayError>> {
        let (now, key, answers) = (self.clock.now(), halve(fingerprint), halve(answers));
        let mut seen = self.lock();
        let claim = match seen.live(&key, now).map(|entry| &entry.kept) {
            Some(Kept::Running { answers: first }) if *first == answers => Ok(RoundClaim::Running),
            Some(Kept::Done {
                answers: first,
                outcome,
            }) if *first == answers => {
                Ok(RoundClaim::Recorded(seen.outcomes.get(*outcome).to_vec()))
            }
            Some(_) => Ok(RoundClaim::Refused),
            None => seen.make_room(now, self.capacity).map(|()| {
                seen.insert(key, expires_at, Kept::Running { answers });
                RoundClaim::First
            }),
        };
        Box::pin(std::future::ready(claim))
    }

    fn record_outcome<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        _answers: &'a [u8; 32],
        outcome: Option<&'a [u8]>,
        _expires_at: u64,
    ) -> BoxFuture<'a, Result<bool, ReplayError>> {
        // The running entry holds the digest its claim was made with.
        let mut seen = self.lock();
        let seen = &mut *seen;
        let mut kept = false;
        if let Some(entry) = seen.entries.get_mut(&halve(fingerprint))
            && let Kept::Running { answers } = entry.kept
        {
            let place = outcome.and_then(|outcome| seen.outcomes.put(outcome, self.outcome_budget));
            kept = place.is_some();
            entry.kept = match place {
                Some(outcome) => Kept::Done { answers, outcome },
                None => Kept::Unrecorded,
            };
        }
        Box::pin(std::future::ready(Ok(kept)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_total_is_read_in_bytes() {
        let meminfo = "MemTotal:        8000000 kB\nMemFree:  1 kB\n";
        assert_eq!(mem_total_bytes(meminfo), Some(8_192_000_000));
        assert_eq!(mem_total_bytes("MemTotal: 12 MB"), None);
        assert_eq!(mem_total_bytes(""), None);
        let capacity = default_replay_capacity();
        assert!(((1 << 16)..=(1 << 24)).contains(&capacity), "{capacity}");
    }

    fn block_on<T>(future: BoxFuture<'_, T>) -> T {
        // The in-memory guard's futures are ready at once.
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        let mut future = future;
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(value) => value,
            std::task::Poll::Pending => panic!("the in-memory guard never waits"),
        }
    }

    #[test]
    fn an_entry_with_its_key_takes_52_bytes() {
        assert_eq!(std::mem::size_of::<(Key, Entry)>(), 52);
    }

    #[test]
    fn outcomes_share_chunks_that_are_freed_with_their_last_outcome() {
        let mut slab = Slab::default();
        let answer = [7u8; 1000];
        // Two chunks' worth (each holds 131 answers of 1000 bytes).
        let places: Vec<Place> = (0..200)
            .map(|_| {
                slab.put(&answer, 1 << 20)
                    .unwrap_or_else(|| panic!("no room"))
            })
            .collect();
        assert_eq!(slab.chunks.len(), 2);
        assert_eq!(slab.held, 2 * CHUNK_BYTES);
        assert!(places.iter().all(|place| slab.get(*place) == answer));
        // The second chunk emptied first is freed but waits for the first.
        for place in &places[131..] {
            slab.free(*place);
        }
        assert_eq!((slab.chunks.len(), slab.held), (2, CHUNK_BYTES));
        for place in &places[..131] {
            slab.free(*place);
        }
        assert_eq!((slab.chunks.len(), slab.held, slab.first), (0, 0, 2));
        // Within the budget only; an answer larger than a chunk gets its own.
        assert_eq!(slab.put(&answer, 999), None);
        let large = vec![1u8; CHUNK_BYTES + 1];
        let place = slab
            .put(&large, 1 << 20)
            .unwrap_or_else(|| panic!("no room"));
        assert_eq!(slab.get(place), &large[..]);
        assert_eq!(slab.held, CHUNK_BYTES + 1);
    }

    #[test]
    fn chunk_ids_wrap_around() {
        let mut slab = Slab {
            first: u32::MAX,
            ..Slab::default()
        };
        let large = vec![1u8; CHUNK_BYTES];
        let places: Vec<Place> = (0..3)
            .map(|i| {
                slab.put(&large[i..], 1 << 20)
                    .unwrap_or_else(|| panic!("no room"))
            })
            .collect();
        let ids: Vec<u32> = places.iter().map(|place| place.chunk).collect();
        assert_eq!(ids, [u32::MAX, 0, 1]);
        assert!(
            places
                .iter()
                .zip(0..)
                .all(|(p, i)| slab.get(*p) == &large[i..])
        );
        for place in places {
            slab.free(place);
        }
        assert_eq!((slab.chunks.len(), slab.held, slab.first), (0, 0, 2));
        assert_eq!(
            slab.get(Place {
                chunk: 5,
                start: 0,
                len: 1
            }),
            b""
        );
    }

    #[test]
    fn a_round_is_claimed_once_and_its_outcome_handed_to_duplicates() {
        let clock = Arc::new(crate::state::ManualClock::at(100));
        let guard = InMemoryReplayGuard::with_clock(clock.clone()).outcome_budget(10);
        let (state, answers, other) = ([1u8; 32], [2u8; 32], [3u8; 32]);
        let claim = |answers| block_on(guard.claim_round(&state, answers, 200));
        assert_eq!(claim(&answers), Ok(RoundClaim::First));
        assert_eq!(claim(&answers), Ok(RoundClaim::Running));
        assert_eq!(claim(&other), Ok(RoundClaim::Refused));
        assert_eq!(
            block_on(guard.record_outcome(&state, &answers, Some(b"answer"), 200)),
            Ok(true)
        );
        assert_eq!(
            claim(&answers),
            Ok(RoundClaim::Recorded(b"answer".to_vec()))
        );
        assert_eq!(claim(&other), Ok(RoundClaim::Refused));
        // A plain claim of a state used for a round is a replay.
        assert_eq!(block_on(guard.claim(&state, 200)), Ok(false));

        // Past the budget (10 bytes, 6 used), an outcome is not kept, and
        // its duplicates are refused.
        let second = [4u8; 32];
        assert_eq!(
            block_on(guard.claim_round(&second, &answers, 200)),
            Ok(RoundClaim::First)
        );
        assert_eq!(
            block_on(guard.record_outcome(&second, &answers, Some(b"too long"), 200)),
            Ok(false)
        );
        assert_eq!(
            block_on(guard.claim_round(&second, &answers, 200)),
            Ok(RoundClaim::Refused)
        );

        // Expiry frees the outcome's bytes and the state.
        clock.advance(150);
        let third = [5u8; 32];
        for fingerprint in [&third, &state] {
            assert_eq!(
                block_on(guard.claim_round(fingerprint, &answers, 400)),
                Ok(RoundClaim::First)
            );
        }
        let mut seen = guard.lock();
        seen.sweep(clock.now());
        assert_eq!(seen.outcomes.held, 0);
        drop(seen);
        assert_eq!(
            block_on(guard.record_outcome(&third, &answers, Some(b"0123456789"), 400)),
            Ok(true)
        );
    }
}

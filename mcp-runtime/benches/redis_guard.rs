//! `RedisReplayGuard` against a real Redis: a round's claim and its recorded
//! answer (about 200 bytes, as the load bench's), one request at a time
//! and 16 or 64 at once on one thread, as on a server pinned to one CPU.
//! Concurrent claims share pipelines.
//!
//! Two measures of the same work: `replay/redis/wall`, the time it takes
//! (mostly Redis's round trips, the thread idle meanwhile), and
//! `replay/redis/cpu`, the thread's CPU time (the client's own work and
//! its system calls: what the guard costs a busy server; on Unix only).
//!
//! It needs a Redis of its own, without persistence (the keys it writes
//! live 2 s):
//!
//! ```text
//! redis-server --port 6391 --save '' --appendonly no &
//! MCP_BENCH_REDIS=redis://127.0.0.1:6391 cargo bench -p mcp-runtime --features redis --bench redis_guard
//! ```
//!
//! Without `MCP_BENCH_REDIS` it measures nothing and says so.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcp_runtime::state::{RedisReplayGuard, ReplayGuard, RoundClaim};

/// A fingerprint no other claim of this process, nor of a run in the last
/// few seconds, has used.
fn fresh_fingerprint(counter: &AtomicU64, salt: u64) -> [u8; 32] {
    let n = counter.fetch_add(1, Ordering::Relaxed);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&salt.to_le_bytes());
    bytes[8..16].copy_from_slice(&n.to_le_bytes());
    bytes
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// One request's work with the guard: the claim, then the record.
async fn claim_and_record(guard: &RedisReplayGuard, state: [u8; 32], outcome: &[u8]) {
    let answers = [9u8; 32];
    // Keys live 2 s at most: Redis stays small over a whole run.
    let expires = now() + 2;
    let claim = guard.claim_round(&state, &answers, expires).await.unwrap();
    assert_eq!(claim, RoundClaim::First);
    let recorded = guard
        .record_outcome(&state, &answers, Some(outcome), expires)
        .await
        .unwrap();
    black_box(recorded);
}

fn redis_guard(c: &mut Criterion) {
    let Ok(url) = std::env::var("MCP_BENCH_REDIS") else {
        eprintln!(
            "redis_guard: set MCP_BENCH_REDIS=redis://127.0.0.1:PORT (a redis-server of its own, \
             without persistence) to measure; nothing measured"
        );
        return;
    };
    // One thread, as a server pinned to one CPU.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let guard = runtime.block_on(async {
        let guard = RedisReplayGuard::with_timeout(&url, Duration::from_secs(5)).unwrap();
        guard.ping().await.expect("no Redis at MCP_BENCH_REDIS");
        Arc::new(guard)
    });
    let outcome: Arc<[u8]> = vec![b'R'; 200].into();
    let counter = Arc::new(AtomicU64::new(0));
    let salt = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;

    let measures: &[Measure] = if cfg!(unix) {
        &[Measure::Wall, Measure::Cpu]
    } else {
        &[Measure::Wall]
    };
    for &measure in measures {
        let mut group = c.benchmark_group(format!("replay/redis/{}", measure.name()));
        for at_once in [1u64, 16, 64] {
            group.throughput(Throughput::Elements(at_once));
            group.bench_with_input(
                BenchmarkId::new("claim_and_record", at_once),
                &at_once,
                |b, &at_once| {
                    b.iter_custom(|iters| {
                        runtime.block_on(async {
                            let start = measure.now();
                            for _ in 0..iters {
                                let mut requests = tokio::task::JoinSet::new();
                                for _ in 0..at_once {
                                    let guard = Arc::clone(&guard);
                                    let outcome = Arc::clone(&outcome);
                                    let state = fresh_fingerprint(&counter, salt);
                                    requests.spawn(async move {
                                        claim_and_record(&guard, state, &outcome).await;
                                    });
                                }
                                while let Some(done) = requests.join_next().await {
                                    done.unwrap();
                                }
                            }
                            measure.now().saturating_sub(start)
                        })
                    })
                },
            );
        }
        group.finish();
    }
}

/// What a sample's time is.
#[derive(Clone, Copy)]
enum Measure {
    /// Time as a clock on the wall sees it.
    Wall,
    /// The CPU time of this thread, which runs the requests and the
    /// guard's tasks (a current-thread runtime).
    Cpu,
}

impl Measure {
    fn name(self) -> &'static str {
        match self {
            Self::Wall => "wall",
            Self::Cpu => "cpu",
        }
    }

    /// Now, from some fixed start, in this measure.
    fn now(self) -> Duration {
        match self {
            Self::Wall => {
                static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
                START.get_or_init(Instant::now).elapsed()
            }
            Self::Cpu => thread_cpu_time(),
        }
    }
}

/// This thread's CPU time so far.
#[cfg(unix)]
fn thread_cpu_time() -> Duration {
    let time = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(time.tv_sec).unwrap(),
        u32::try_from(time.tv_nsec).unwrap(),
    )
}

/// Not measured elsewhere (`redis_guard` skips the group).
#[cfg(not(unix))]
fn thread_cpu_time() -> Duration {
    Duration::ZERO
}

criterion_group!(benches, redis_guard);
criterion_main!(benches);

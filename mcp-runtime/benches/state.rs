//! Cost of the request-state primitives: sign, verify, verify + decode into
//! a typed enum, at a 64-byte and a 1 KiB payload, signed and sealed; and
//! the canonical digest that binds a state to its arguments and keys a
//! round's answers, from the text as sent and from a tree.
//!
//! And the in-memory replay guard: a round's claim and its recorded answer,
//! on an empty guard and on one that already holds 100,000 states.
//!
//! `cargo bench -p mcp-runtime --bench state`

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcp_runtime::state::{
    Binding, BoundArguments, InMemoryReplayGuard, ReplayGuard, RequestStateSigner, arguments_digest,
};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
enum Step {
    AwaitingConfirmation { note: String },
}

fn payload(size: usize) -> Vec<u8> {
    // A JSON payload of about `size` bytes, so verify+decode decodes it.
    let note = "x".repeat(size.saturating_sub(36));
    serde_json::to_vec(&Step::AwaitingConfirmation { note }).unwrap()
}

fn signers() -> [(&'static str, RequestStateSigner); 2] {
    let binding = Binding::empty()
        .with("alice")
        .with("tools/call")
        .with("deploy")
        .with([7u8; 32]);
    let signed = RequestStateSigner::new([1u8; 32])
        .unwrap()
        .bind_to(binding.clone());
    let sealed = RequestStateSigner::new([1u8; 32])
        .unwrap()
        .sealed()
        .bind_to(binding);
    [("signed", signed), ("sealed", sealed)]
}

fn bench(c: &mut Criterion) {
    for (mode, signer) in signers() {
        let mut group = c.benchmark_group(format!("state/{mode}"));
        for size in [64usize, 1024] {
            let payload = payload(size);
            let token = signer.sign(&payload).unwrap();
            group.throughput(Throughput::Bytes(payload.len() as u64));
            group.bench_with_input(BenchmarkId::new("sign", size), &payload, |b, p| {
                b.iter(|| signer.sign(black_box(p)).unwrap())
            });
            group.bench_with_input(BenchmarkId::new("verify", size), &token, |b, t| {
                b.iter(|| signer.verify(black_box(t)).unwrap())
            });
            group.bench_with_input(BenchmarkId::new("verify_decode", size), &token, |b, t| {
                b.iter(|| {
                    let verified = signer.verify(black_box(t)).unwrap();
                    serde_json::from_slice::<Step>(verified.payload()).unwrap()
                })
            });
        }
        group.finish();
    }
}

/// Answers as a client sends them: keys in order, and the same out of
/// order with white space; and larger arguments.
const TEXTS: [(&str, &str); 3] = [
    (
        "answers",
        r#"{"confirm":{"action":"accept","content":{"confirmed":true,"note":"ok"}}}"#,
    ),
    (
        "answers-unsorted",
        r#"{ "confirm": { "content": { "note": "ok", "confirmed": true }, "action": "accept" } }"#,
    ),
    (
        "arguments",
        r#"{"query":"select * from orders where id = 42","limit":100,"tags":["a","b","c"],"options":{"dry_run":false,"timeout_ms":2500,"labels":{"team":"payments","env":"staging"}}}"#,
    ),
];

fn digest(c: &mut Criterion) {
    let mut group = c.benchmark_group("binding/digest");
    for (name, text) in TEXTS {
        group.bench_with_input(BenchmarkId::new("text", name), text, |b, t| {
            b.iter(|| BoundArguments::Text(black_box(t)).digest())
        });
        let tree = serde_json::from_str(text).unwrap();
        group.bench_with_input(BenchmarkId::new("tree", name), &tree, |b, t| {
            b.iter(|| arguments_digest(black_box(t)))
        });
    }
    group.finish();
}

/// A fingerprint per number: as spread as the server's (SHA-256 digests).
fn fingerprint(n: u64) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    let spread = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    bytes[..8].copy_from_slice(&spread.to_le_bytes());
    bytes[8..16].copy_from_slice(&n.to_le_bytes());
    bytes
}

/// A round's claim and its recorded answer (about 200 bytes, as the
/// conformance flow's), each sample on a fresh guard that holds `held`
/// states first: what single use adds to a retry in one process.
fn guard(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let answers = [9u8; 32];
    let outcome = vec![b'R'; 200];
    let expires = u64::from(u32::MAX) - 1;
    let mut group = c.benchmark_group("replay/in_memory");
    for held in [0u64, 100_000] {
        group.bench_with_input(
            BenchmarkId::new("claim_and_record", held),
            &held,
            |b, &held| {
                b.iter_custom(|iters| {
                    runtime.block_on(async {
                        // Room for every state and answer of a sample, whatever
                        // the machine's memory: the refusals are not measured.
                        let guard = InMemoryReplayGuard::new()
                            .capacity(1 << 22)
                            .outcome_budget(1 << 30);
                        for n in 0..held {
                            let state = fingerprint(n);
                            guard.claim_round(&state, &answers, expires).await.unwrap();
                            let kept = Some(outcome.as_slice());
                            guard
                                .record_outcome(&state, &answers, kept, expires)
                                .await
                                .unwrap();
                        }
                        let start = std::time::Instant::now();
                        for n in held..held + iters {
                            let state = fingerprint(n);
                            let claim = guard.claim_round(black_box(&state), &answers, expires);
                            black_box(claim.await.unwrap());
                            let kept = Some(outcome.as_slice());
                            let record = guard.record_outcome(&state, &answers, kept, expires);
                            black_box(record.await.unwrap());
                        }
                        start.elapsed()
                    })
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench, digest, guard);
criterion_main!(benches);

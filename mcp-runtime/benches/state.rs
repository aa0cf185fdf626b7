//! Cost of the request-state primitives: sign, verify, verify + decode into
//! a typed enum, at a 64-byte and a 1 KiB payload, signed and sealed; and
//! the canonical digest that binds a state to its arguments and keys a
//! round's answers, from the text as sent and from a tree.
//!
//! `cargo bench -p mcp-runtime --bench state`

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcp_runtime::state::{Binding, BoundArguments, RequestStateSigner, arguments_digest};
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

criterion_group!(benches, bench, digest);
criterion_main!(benches);

//! The in-process cost of an input-required round over a plain call, the
//! ratio the [house] issue tracks (target: at most 1.5x), measured
//! interleaved so that a drift of the machine hits both alike: `PAIRS`
//! times, a batch of plain `tools/call`s then a batch of middle rounds
//! (verify and decode the state, decode the answer, ask again with a new
//! signed state), each batch timed. Prints the medians and the median of
//! the per-pair ratios with its 10th and 90th percentiles.
//!
//! `cargo bench -p mcp-runtime --bench round_ratio`

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod fixtures;

use std::hint::black_box;
use std::time::Instant;

use fixtures::{call, dispatch, middle_round, server};
use serde_json::json;

const PAIRS: usize = 300;
const BATCH: u32 = 200;

fn main() {
    let server = server();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let plain = call("simple_text", json!({}));
    let round = middle_round(&server, &runtime);
    let batch = |bytes: &[u8]| {
        let start = Instant::now();
        for _ in 0..BATCH {
            black_box(dispatch(&server, &runtime, black_box(bytes)));
        }
        start.elapsed().as_secs_f64() * 1e9 / f64::from(BATCH)
    };
    // Warm up both paths.
    batch(&plain);
    batch(&round);
    let (mut plains, mut rounds, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..PAIRS {
        let p = batch(&plain);
        let r = batch(&round);
        plains.push(p);
        rounds.push(r);
        ratios.push(r / p);
    }
    for v in [&mut plains, &mut rounds, &mut ratios] {
        v.sort_by(f64::total_cmp);
    }
    let at = |v: &[f64], percent: usize| v[(v.len() - 1) * percent / 100];
    println!(
        "round_ratio: plain {:.2} µs, round {:.2} µs (medians); round/plain {:.3} (p10 {:.3}, p90 {:.3}) over {PAIRS} interleaved pairs of {BATCH} calls",
        at(&plains, 50) / 1000.0,
        at(&rounds, 50) / 1000.0,
        at(&ratios, 50),
        at(&ratios, 10),
        at(&ratios, 90),
    );
}

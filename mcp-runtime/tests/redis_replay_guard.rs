//! `RedisReplayGuard` against a real redis-server of the test's own: a
//! round's claim is one command (`SET .. NX GET` on Redis 7, the script on
//! older ones, both run here), the round's answer is recorded after the
//! claim returns (one `SET .. XX KEEPTTL`), and every later claim reads
//! it: the same answers get the answer, other answers are refused.
//! Concurrent claims share round trips (pipelines), and a record keeps its
//! key's lifetime and never brings back a key that expired.

#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcp_runtime::state::{RedisReplayGuard, ReplayGuard, RoundClaim};

#[path = "../../tests/fleet/redis_server.rs"]
mod redis_server;

use redis_server::Redis;

/// One command to the Redis on `port`, its reply as text.
fn command(port: u16, line: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.write_all(format!("{line}\r\n").as_bytes()).unwrap();
    let mut reply = vec![0u8; 64 * 1024];
    let n = stream.read(&mut reply).unwrap();
    String::from_utf8_lossy(&reply[..n]).into_owned()
}

/// How many times Redis ran `name` (from `INFO commandstats`).
fn calls(port: u16, name: &str) -> u64 {
    let info = command(port, "INFO commandstats");
    let prefix = format!("cmdstat_{name}:calls=");
    info.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .and_then(|rest| rest.split(',').next())
        .map_or(0, |n| n.parse().unwrap())
}

fn in_a_minute() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 60
}

/// The claim of `fingerprint` once its record has landed (it is written in
/// the background), within 5 s.
async fn claim_once_recorded(
    guard: &RedisReplayGuard,
    fingerprint: &[u8; 32],
    answers: &[u8; 32],
) -> RoundClaim {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let claim = guard
            .claim_round(fingerprint, answers, in_a_minute())
            .await
            .unwrap();
        if claim != RoundClaim::Running || Instant::now() > deadline {
            return claim;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The whole life of two states on `guard`, whose keys start with `tag`.
async fn rounds(guard: &RedisReplayGuard, tag: u8) {
    let (state, answers, others) = ([tag; 32], [1u8; 32], [2u8; 32]);
    let expires = in_a_minute();
    assert_eq!(
        guard.claim_round(&state, &answers, expires).await.unwrap(),
        RoundClaim::First
    );
    assert_eq!(
        guard.claim_round(&state, &answers, expires).await.unwrap(),
        RoundClaim::Running
    );
    assert_eq!(
        guard.claim_round(&state, &others, expires).await.unwrap(),
        RoundClaim::Refused
    );
    guard
        .record_outcome(&state, &answers, Some(b"R{\"done\":true}"), expires)
        .await
        .unwrap();
    assert_eq!(
        claim_once_recorded(guard, &state, &answers).await,
        RoundClaim::Recorded(b"R{\"done\":true}".to_vec())
    );
    assert_eq!(
        guard.claim_round(&state, &others, expires).await.unwrap(),
        RoundClaim::Refused
    );

    // A round that ended without an answer: every later use is refused.
    let silent = [tag.wrapping_add(1); 32];
    assert_eq!(
        guard.claim_round(&silent, &answers, expires).await.unwrap(),
        RoundClaim::First
    );
    guard
        .record_outcome(&silent, &answers, None, expires)
        .await
        .unwrap();
    assert_eq!(
        claim_once_recorded(guard, &silent, &answers).await,
        RoundClaim::Refused
    );
}

#[tokio::test]
async fn a_claim_is_one_set_and_the_record_follows() {
    let redis = Redis::start();
    let guard = RedisReplayGuard::new(&redis.url()).unwrap();
    guard.ping().await.unwrap();
    tokio::time::timeout(Duration::from_secs(60), rounds(&guard, 10))
        .await
        .unwrap();
    // Redis 7 and later: neither a claim nor a record ran a script.
    let scripted = calls(redis.port, "evalsha") + calls(redis.port, "eval");
    assert_eq!(scripted, 0, "no command ran a script");
    // At least seven claims and the two records.
    assert!(calls(redis.port, "set") >= 9);
}

#[tokio::test]
async fn the_script_of_an_older_redis_claims_the_same() {
    let redis = Redis::start();
    let guard = RedisReplayGuard::new(&redis.url())
        .unwrap()
        .claims_by_script();
    tokio::time::timeout(Duration::from_secs(60), rounds(&guard, 20))
        .await
        .unwrap();
    // At least seven claims (a SET inside a script counts as a SET too, so
    // the scripts are what is counted).
    let scripted = calls(redis.port, "evalsha") + calls(redis.port, "eval");
    assert!(scripted >= 7, "every claim ran the script: {scripted}");
}

#[tokio::test]
async fn a_state_claimed_plainly_is_refused_to_a_round() {
    let redis = Redis::start();
    let guard = RedisReplayGuard::new(&redis.url()).unwrap();
    let state = [30u8; 32];
    assert!(guard.claim(&state, in_a_minute()).await.unwrap());
    assert!(!guard.claim(&state, in_a_minute()).await.unwrap());
    assert_eq!(
        guard
            .claim_round(&state, &[1u8; 32], in_a_minute())
            .await
            .unwrap(),
        RoundClaim::Refused
    );
}

/// A number from Redis's `INFO stats`.
fn stat(port: u16, name: &str) -> u64 {
    let info = command(port, "INFO stats");
    let prefix = format!("{name}:");
    info.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .map_or(0, |n| n.trim().parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_claims_share_round_trips() {
    let redis = Redis::start();
    let guard = RedisReplayGuard::new(&redis.url()).unwrap();
    guard.ping().await.unwrap();
    let reads_before = stat(redis.port, "total_reads_processed");
    let claims: Vec<_> = (0..500u32)
        .map(|i| {
            let guard = guard.clone();
            tokio::spawn(async move {
                let mut state = [0u8; 32];
                state[..4].copy_from_slice(&i.to_be_bytes());
                guard.claim_round(&state, &[1u8; 32], in_a_minute()).await
            })
        })
        .collect();
    for claim in claims {
        assert_eq!(claim.await.unwrap().unwrap(), RoundClaim::First);
    }
    assert_eq!(calls(redis.port, "set"), 500);
    // Each read of a client's socket by Redis took many claims at once
    // (the INFO connections of this test count too).
    let reads = stat(redis.port, "total_reads_processed") - reads_before;
    assert!(reads < 250, "500 claims took {reads} reads");
}

/// The key the guard writes for `fingerprint` (the default prefix).
fn key_of(fingerprint: &[u8; 32]) -> String {
    let hex: String = fingerprint.iter().map(|b| format!("{b:02x}")).collect();
    format!("mcp:request-state:{hex}")
}

#[tokio::test]
async fn a_record_keeps_the_lifetime_and_never_revives_an_expired_key() {
    let redis = Redis::start();
    let guard = RedisReplayGuard::new(&redis.url()).unwrap();
    let (lasting, fleeting, answers) = ([60u8; 32], [61u8; 32], [1u8; 32]);
    // Claimed for a minute, then recorded: the key keeps its lifetime.
    assert_eq!(
        guard
            .claim_round(&lasting, &answers, in_a_minute())
            .await
            .unwrap(),
        RoundClaim::First
    );
    guard
        .record_outcome(&lasting, &answers, Some(b"R1"), in_a_minute())
        .await
        .unwrap();
    assert_eq!(
        claim_once_recorded(&guard, &lasting, &answers).await,
        RoundClaim::Recorded(b"R1".to_vec())
    );
    let ttl = command(redis.port, &format!("TTL {}", key_of(&lasting)));
    let ttl: i64 = ttl.trim().trim_start_matches(':').parse().unwrap();
    assert!(
        (1..=60).contains(&ttl),
        "the record kept the claim's TTL: {ttl}"
    );

    // Claimed for its last second; recorded once the key expired: the
    // record does not bring the key back (without a lifetime).
    let now = in_a_minute() - 60;
    assert_eq!(
        guard.claim_round(&fleeting, &answers, now).await.unwrap(),
        RoundClaim::First
    );
    let exists = format!("EXISTS {}", key_of(&fleeting));
    let deadline = Instant::now() + Duration::from_secs(10);
    while command(redis.port, &exists).trim() != ":0" {
        assert!(Instant::now() < deadline, "the claim never expired");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    guard
        .record_outcome(&fleeting, &answers, Some(b"R2"), now)
        .await
        .unwrap();
    // Replies come in order: once a later claim is answered, the record
    // was carried out.
    assert_eq!(
        guard
            .claim_round(&[62u8; 32], &answers, in_a_minute())
            .await
            .unwrap(),
        RoundClaim::First
    );
    assert_eq!(command(redis.port, &exists).trim(), ":0");
}

#[tokio::test]
async fn a_claim_given_up_while_queued_is_never_sent() {
    let redis = Redis::start();
    let guard = RedisReplayGuard::new(&redis.url()).unwrap();
    guard.ping().await.unwrap();
    // Redis holds every command for 300 ms: the first claim goes out and
    // waits there; the second queues behind it, and its request gives up.
    assert!(command(redis.port, "CLIENT PAUSE 300 ALL").starts_with("+OK"));
    let (first, second, answers) = ([50u8; 32], [51u8; 32], [1u8; 32]);
    let sent = guard.claim_round(&first, &answers, in_a_minute());
    let queued = async {
        tokio::time::sleep(Duration::from_millis(10)).await;
        tokio::time::timeout(
            Duration::from_millis(50),
            guard.claim_round(&second, &answers, in_a_minute()),
        )
        .await
    };
    let (sent, queued) = tokio::join!(sent, queued);
    assert_eq!(sent.unwrap(), RoundClaim::First);
    assert!(queued.is_err(), "the second claim was given up");
    // Its state was not claimed: a later claim is the first use.
    assert_eq!(
        guard
            .claim_round(&second, &answers, in_a_minute())
            .await
            .unwrap(),
        RoundClaim::First
    );
}

/// A Redis that holds every command far longer than the guard's timeout:
/// the claim out and the claims queued behind it each fail (closed) by
/// their own deadline; none waits for Redis to let go.
#[tokio::test]
async fn claims_fail_in_time_while_redis_holds_them() {
    let redis = Redis::start();
    let guard = RedisReplayGuard::with_timeout(&redis.url(), Duration::from_millis(200)).unwrap();
    guard.ping().await.unwrap();
    assert!(command(redis.port, "CLIENT PAUSE 5000 ALL").starts_with("+OK"));
    let answers = [1u8; 32];
    let claims: Vec<_> = (70..78u8)
        .map(|tag| {
            let guard = guard.clone();
            tokio::spawn(async move {
                // The first goes out; the others queue behind it.
                tokio::time::sleep(Duration::from_millis(u64::from(tag - 70) * 10)).await;
                guard.claim_round(&[tag; 32], &answers, in_a_minute()).await
            })
        })
        .collect();
    // Only a hang would take this long: Redis holds them for 5 s.
    let outcomes = tokio::time::timeout(Duration::from_secs(4), async {
        let mut outcomes = Vec::new();
        for claim in claims {
            outcomes.push(claim.await.unwrap());
        }
        outcomes
    })
    .await
    .expect("every claim ends before Redis answers");
    for outcome in outcomes {
        let error = outcome.unwrap_err();
        assert!(error.to_string().contains("Redis claim failed"), "{error}");
    }
}

//! `RedisReplayGuard` against a real redis-server of the test's own: a
//! round's claim is one command (`SET .. NX GET` on Redis 7, the script on
//! older ones, both run here), the round's answer is recorded after the
//! claim returns, and every later claim reads it: the same answers get the
//! answer, other answers are refused.

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
        .record_outcome(&state, Some(b"R{\"done\":true}"), expires)
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
    guard.record_outcome(&silent, None, expires).await.unwrap();
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
    // Redis 7 and later: no claim went through a script (the records do).
    let scripted = calls(redis.port, "evalsha") + calls(redis.port, "eval");
    assert_eq!(scripted, 2, "only the two records ran a script");
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
    // At least seven claims and two records (a SET inside a script counts
    // as a SET too, so the scripts are what is counted).
    let scripted = calls(redis.port, "evalsha") + calls(redis.port, "eval");
    assert!(scripted >= 9, "every claim ran the script: {scripted}");
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

//! `RedisTaskStore` against a real redis-server: each test starts its own on
//! a free 127.0.0.1 port, without persistence, and kills it when done.
//! `tests/fleet/ensure-redis.sh` installs Debian's redis-server when it is
//! absent.

#![cfg(all(feature = "redis", feature = "tasks"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::future::Future;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcp_runtime::schema::TaskStatus;
use mcp_runtime::server::tasks::{
    Allowance, DEFAULT_TASK_KEY_PREFIX, KeptState, Lease, RedisTaskStore, TaskRecord, TaskStore,
    TaskStoreError,
};
use serde_json::json;

/// Bound on one whole test.
const TEST_TIMEOUT: Duration = Duration::from_secs(60);

#[path = "../../tests/fleet/redis_server.rs"]
mod redis_server;

use redis_server::{Redis, free_port};

/// A plain connection to `redis`, for looking at the keys directly.
fn raw(redis: &Redis) -> redis::Connection {
    let client = redis::Client::open(redis.url()).unwrap();
    let connection = client
        .get_connection_with_timeout(Duration::from_secs(5))
        .unwrap();
    connection
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    connection
}

/// Whether `key` exists in `redis`.
fn exists(redis: &Redis, key: &str) -> bool {
    let found: i64 = redis::cmd("EXISTS")
        .arg(key)
        .query(&mut raw(redis))
        .unwrap();
    found == 1
}

// --- Helpers ---------------------------------------------------------------------------

async fn bounded<F: Future<Output = ()>>(test: F) {
    tokio::time::timeout(TEST_TIMEOUT, test)
        .await
        .expect("the test finished in time");
}

fn now_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// A working task of `owner`, kept a minute.
fn record(id: &str, owner: &str) -> TaskRecord {
    TaskRecord::new(id, owner, "t", 60_000)
}

/// The next version of `record`, finished with `status`.
fn finished(record: &TaskRecord, status: TaskStatus) -> TaskRecord {
    let mut next = record.clone();
    next.version += 1;
    next.status = status;
    next.lease = None;
    next.updated_ms = now_ms();
    next
}

/// Creates `record` under an allowance of `max` records keyed by its owner.
async fn create(
    store: &RedisTaskStore,
    record: &TaskRecord,
    max: usize,
) -> Result<(), TaskStoreError> {
    let allowance = Allowance {
        key: record.owner.clone(),
        max,
        shared_max: None,
    };
    store.create(record, &allowance).await
}

fn store(redis: &Redis, prefix: &str) -> RedisTaskStore {
    RedisTaskStore::new(&redis.url())
        .unwrap()
        .key_prefix(prefix)
}

// --- Tests -----------------------------------------------------------------------------

#[tokio::test]
async fn a_created_record_loads_back_exactly() {
    bounded(async {
        let redis = Redis::start();
        let store = RedisTaskStore::new(&redis.url()).unwrap();
        store.ping().await.unwrap();
        let mut created = record("3f2a", "ada");
        created.status_message = Some("half way, ünïcode".to_owned());
        created.arguments = Some(r#"{"n":3,"deep":{"list":[1,"two",null]}}"#.to_owned());
        created.meta = Some(r#"{"protocolVersion":"2026-07-28"}"#.to_owned());
        created.answers = json!({"name": "Ada"}).as_object().unwrap().clone();
        created.resume = Some(KeptState::Payload("eyJzdGVwIjoyfQ".to_owned()));
        created.lease = Some(Lease {
            holder: "instance-a".to_owned(),
            until_ms: created.created_ms + 30_000,
        });
        created.round = 2;
        created.version = 7;
        create(&store, &created, 10).await.unwrap();
        assert_eq!(store.load("3f2a").await, Ok(Some(created.clone())));
        assert_eq!(store.load("nope").await, Ok(None));
        // A view leaves the kept arguments and _meta behind.
        let mut shown = created.clone();
        shown.arguments = None;
        shown.meta = None;
        assert_eq!(store.view("3f2a").await, Ok(Some(shown)));

        // The hash holds the version and the JSON, and Redis forgets it at
        // the record's expiry.
        let key = format!("{DEFAULT_TASK_KEY_PREFIX}task:3f2a");
        let mut connection = raw(&redis);
        let version: String = redis::cmd("HGET")
            .arg(&key)
            .arg("v")
            .query(&mut connection)
            .unwrap();
        assert_eq!(version, "7");
        let expire_at: i64 = redis::cmd("PEXPIRETIME")
            .arg(&key)
            .query(&mut connection)
            .unwrap();
        assert_eq!(u64::try_from(expire_at).unwrap(), created.expires_ms());

        // The id is taken.
        assert_eq!(
            create(&store, &created, 10).await,
            Err(TaskStoreError::Unavailable(
                "a task with this id exists".to_owned()
            ))
        );

        // A record that does not parse is an error, not a panic.
        let _: i64 = redis::cmd("HSET")
            .arg(format!("{DEFAULT_TASK_KEY_PREFIX}task:bad"))
            .arg("v")
            .arg("1")
            .arg("d")
            .arg("{not json")
            .query(&mut connection)
            .unwrap();
        assert!(
            matches!(store.load("bad").await, Err(TaskStoreError::Unavailable(why)) if why.contains("does not parse")),
        );
    })
    .await;
}

#[tokio::test]
async fn replace_is_compare_and_swap() {
    bounded(async {
        let redis = Redis::start();
        let store = store(&redis, "cas:");
        let first = record("a", "ada");
        create(&store, &first, 10).await.unwrap();

        let mut next = first.clone();
        next.version = 2;
        next.status = TaskStatus::InputRequired;
        next.status_message = Some("a question".to_owned());
        assert_eq!(store.replace(&next).await, Ok(true));
        assert_eq!(store.load("a").await, Ok(Some(next.clone())));

        // A change made from the stale version 1 loses, and changes nothing.
        let mut stale = first.clone();
        stale.version = 2;
        stale.status = TaskStatus::Cancelled;
        assert_eq!(store.replace(&stale).await, Ok(false));
        // Nor does skipping a version win.
        let mut ahead = next.clone();
        ahead.version = 4;
        assert_eq!(store.replace(&ahead).await, Ok(false));
        assert_eq!(store.load("a").await, Ok(Some(next.clone())));

        // Gone, or no version before it: false, never a new record.
        let mut missing = record("missing", "ada");
        missing.version = 2;
        assert_eq!(store.replace(&missing).await, Ok(false));
        assert_eq!(store.load("missing").await, Ok(None));
        assert!(!exists(&redis, "cas:task:missing"));
        let mut zero = next.clone();
        zero.version = 0;
        assert_eq!(store.replace(&zero).await, Ok(false));
        assert_eq!(store.load("a").await, Ok(Some(next.clone())));

        // The next change from the stored version wins.
        let third = finished(&next, TaskStatus::Completed);
        assert_eq!(store.replace(&third).await, Ok(true));
        assert_eq!(store.load("a").await, Ok(Some(third)));
    })
    .await;
}

#[tokio::test]
async fn finished_tasks_count_toward_the_allowance_until_they_expire() {
    bounded(async {
        let redis = Redis::start();
        let store = store(&redis, "cap:");
        let a = record("a", "ada");
        create(&store, &a, 2).await.unwrap();
        // A record born finished counts as well.
        let born_done = finished(&record("z", "ada"), TaskStatus::Completed);
        create(&store, &born_done, 2).await.unwrap();
        assert_eq!(
            create(&store, &record("c", "ada"), 2).await,
            Err(TaskStoreError::OverAllowance(2))
        );
        assert_eq!(store.load("c").await, Ok(None));
        // Someone else is not limited by ada's tasks.
        create(&store, &record("d", "bob"), 2).await.unwrap();
        // Finishing, failing or cancelling one frees nothing.
        assert_eq!(
            store.replace(&finished(&a, TaskStatus::Completed)).await,
            Ok(true)
        );
        assert_eq!(
            create(&store, &record("c", "ada"), 2).await,
            Err(TaskStoreError::OverAllowance(2))
        );
    })
    .await;
}

#[tokio::test]
async fn unauthenticated_clients_share_a_bound() {
    bounded(async {
        let redis = Redis::start();
        let store = store(&redis, "anon:");
        let client = |key: &str| Allowance {
            key: key.to_owned(),
            max: 1,
            shared_max: Some(2),
        };
        let one = client("ip:10.0.0.1");
        store.create(&record("a", ""), &one).await.unwrap();
        assert_eq!(
            store.create(&record("b", ""), &one).await,
            Err(TaskStoreError::OverAllowance(1))
        );
        let two = client("ip:10.0.0.2");
        store.create(&record("c", ""), &two).await.unwrap();
        assert_eq!(
            store.create(&record("d", ""), &client("ip:10.0.0.3")).await,
            Err(TaskStoreError::OverShared(2))
        );
        assert!(exists(&redis, "anon:anonymous"));
        // An authenticated caller is not held by the shared bound.
        create(&store, &record("e", "ada"), 1).await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn an_expired_record_is_gone_and_frees_its_place() {
    bounded(async {
        let redis = Redis::start();
        let store = store(&redis, "ttl:");
        let mut short = record("short", "eve");
        short.ttl_ms = 300;
        create(&store, &short, 1).await.unwrap();
        let created = Instant::now();
        assert_eq!(store.load("short").await, Ok(Some(short.clone())));
        // While it lives, it takes eve's only place.
        assert!(matches!(
            create(&store, &record("next", "eve"), 1).await,
            Err(TaskStoreError::OverAllowance(_))
        ));
        let held_key = format!("ttl:held:{}", "657665"); // "eve" in hex
        assert!(exists(&redis, &held_key));

        let deadline = created + Duration::from_secs(3);
        while store.load("short").await.unwrap().is_some() {
            assert!(Instant::now() < deadline, "the record outlived its ttl");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let gone_after = created.elapsed();
        assert!(
            gone_after < Duration::from_millis(1500),
            "gone after {gone_after:?}"
        );
        // Redis itself forgot the record, and eve's held set with it.
        while exists(&redis, "ttl:task:short") || exists(&redis, &held_key) {
            assert!(Instant::now() < deadline, "Redis kept the expired keys");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        create(&store, &record("next", "eve"), 1).await.unwrap();
        assert!(store.load("next").await.unwrap().is_some());
    })
    .await;
}

#[tokio::test]
async fn an_expired_entry_in_a_held_set_never_blocks() {
    bounded(async {
        let redis = Redis::start();
        let store = store(&redis, "sweep:");
        let mut short = record("short", "eve");
        short.ttl_ms = 200;
        create(&store, &short, 2).await.unwrap();
        let mut long = record("long", "eve");
        long.ttl_ms = 60_000;
        create(&store, &long, 2).await.unwrap();
        // The held set lives as long as its longest-lived member.
        let held_key = format!("sweep:held:{}", "657665");
        let expire_at: i64 = redis::cmd("PEXPIRETIME")
            .arg(&held_key)
            .query(&mut raw(&redis))
            .unwrap();
        assert_eq!(u64::try_from(expire_at).unwrap(), long.expires_ms());
        assert!(matches!(
            create(&store, &record("third", "eve"), 2).await,
            Err(TaskStoreError::OverAllowance(_))
        ));
        // Once the short one expires, its entry is swept at the next create.
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            match create(&store, &record("third", "eve"), 2).await {
                Ok(()) => break,
                Err(TaskStoreError::OverAllowance(_)) => {
                    assert!(Instant::now() < deadline, "the expired entry still counts");
                    tokio::time::sleep(Duration::from_millis(25)).await;
                }
                Err(other) => panic!("{other}"),
            }
        }
        assert!(store.load("short").await.unwrap().is_none());
        assert!(store.load("long").await.unwrap().is_some());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_instances_share_records_and_one_of_racing_changes_wins() {
    bounded(async {
        let redis = Redis::start();
        let a = store(&redis, "fleet:");
        let b = store(&redis, "fleet:");
        let first = record("shared", "ada");
        create(&a, &first, 10).await.unwrap();
        assert_eq!(b.load("shared").await, Ok(Some(first.clone())));
        let mut second = first.clone();
        second.version = 2;
        second.status = TaskStatus::InputRequired;
        assert_eq!(b.replace(&second).await, Ok(true));
        assert_eq!(a.load("shared").await, Ok(Some(second.clone())));
        // The bound on ada's tasks holds across the fleet.
        create(&b, &record("other", "ada"), 2).await.unwrap();
        assert!(matches!(
            create(&a, &record("third", "ada"), 2).await,
            Err(TaskStoreError::OverAllowance(_))
        ));

        // 20 changes from version 2, half through each instance.
        let start = std::sync::Arc::new(tokio::sync::Barrier::new(20));
        let mut racers = Vec::new();
        for n in 0..20 {
            let store = if n % 2 == 0 { a.clone() } else { b.clone() };
            let start = start.clone();
            let mut change = second.clone();
            change.version = 3;
            change.status_message = Some(format!("change {n}"));
            racers.push(tokio::spawn(async move {
                start.wait().await;
                (store.replace(&change).await, change)
            }));
        }
        let mut winners = Vec::new();
        for racer in racers {
            let (outcome, change) = racer.await.unwrap();
            match outcome {
                Ok(true) => winners.push(change),
                Ok(false) => {}
                Err(e) => panic!("a replace failed: {e}"),
            }
        }
        assert_eq!(winners.len(), 1, "exactly one change wins");
        assert_eq!(a.load("shared").await, Ok(Some(winners[0].clone())));
        assert_eq!(b.load("shared").await, Ok(Some(winners[0].clone())));
    })
    .await;
}

#[tokio::test]
async fn with_redis_stopped_calls_fail_quickly_and_recover() {
    bounded(async {
        let mut redis = Redis::start();
        let store = RedisTaskStore::with_timeout(&redis.url(), Duration::from_millis(300))
            .unwrap()
            .key_prefix("down:");
        let kept = record("kept", "ada");
        create(&store, &kept, 10).await.unwrap();
        assert!(store.load("kept").await.unwrap().is_some());

        // Hung: every call gives up at the timeout.
        redis.signal("STOP");
        let asked = Instant::now();
        let hung = store.load("kept").await;
        redis.signal("CONT");
        assert!(
            matches!(hung, Err(TaskStoreError::Unavailable(_))),
            "{hung:?}"
        );
        assert!(
            asked.elapsed() < Duration::from_secs(3),
            "took {:?}",
            asked.elapsed()
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        while store.load("kept").await.is_err() {
            assert!(Instant::now() < deadline, "the store did not recover");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(store.load("kept").await, Ok(Some(kept.clone())));

        // Gone: every call fails at once.
        redis.stop();
        let asked = Instant::now();
        assert!(matches!(
            store.load("kept").await,
            Err(TaskStoreError::Unavailable(_))
        ));
        assert!(
            asked.elapsed() < Duration::from_secs(3),
            "took {:?}",
            asked.elapsed()
        );
        let asked = Instant::now();
        assert!(matches!(
            create(&store, &record("new", "ada"), 10).await,
            Err(TaskStoreError::Unavailable(_))
        ));
        assert!(matches!(
            store.replace(&finished(&kept, TaskStatus::Completed)).await,
            Err(TaskStoreError::Unavailable(_))
        ));
        assert!(
            asked.elapsed() < Duration::from_secs(6),
            "took {:?}",
            asked.elapsed()
        );

        // Back (empty, without persistence): the store reconnects by itself,
        // and loads its scripts again.
        redis.restart();
        let deadline = Instant::now() + Duration::from_secs(10);
        while store.ping().await.is_err() {
            assert!(Instant::now() < deadline, "the store did not reconnect");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(store.load("kept").await, Ok(None));
        create(&store, &kept, 10).await.unwrap();
        assert_eq!(
            store.replace(&finished(&kept, TaskStatus::Completed)).await,
            Ok(true)
        );

        // Never reachable at all: an error too, not a hang.
        let closed = RedisTaskStore::with_timeout(
            &format!("redis://127.0.0.1:{}", free_port()),
            Duration::from_millis(300),
        )
        .unwrap();
        let asked = Instant::now();
        assert!(matches!(
            closed.load("kept").await,
            Err(TaskStoreError::Unavailable(_))
        ));
        assert!(asked.elapsed() < Duration::from_secs(3));
        assert!(RedisTaskStore::new("not a url").is_err());
    })
    .await;
}

#[tokio::test]
async fn owners_with_odd_names_are_kept_apart() {
    bounded(async {
        let redis = Redis::start();
        let store = store(&redis, "odd:");
        let owners = ["", "a:b", "live:x", "a", "61", "Ünï😀", "a b\n*"];
        // One place each: any two owners sharing a held set would refuse.
        for (n, owner) in owners.iter().enumerate() {
            create(&store, &record(&format!("t{n}"), owner), 1)
                .await
                .unwrap_or_else(|e| panic!("owner {owner:?}: {e}"));
        }
        for (n, owner) in owners.iter().enumerate() {
            assert!(
                matches!(
                    create(&store, &record(&format!("u{n}"), owner), 1).await,
                    Err(TaskStoreError::OverAllowance(_))
                ),
                "owner {owner:?} holds one"
            );
            let loaded = store.load(&format!("t{n}")).await.unwrap().unwrap();
            assert_eq!(loaded.owner, *owner);
        }
        // The owners' names never appear in a key.
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg("odd:held:*")
            .query(&mut raw(&redis))
            .unwrap();
        assert!(keys.contains(&"odd:held:".to_owned()), "{keys:?}");
        assert!(keys.contains(&"odd:held:613a62".to_owned()), "{keys:?}");
        assert!(
            keys.iter().all(|k| k["odd:held:".len()..]
                .bytes()
                .all(|b| b.is_ascii_hexdigit())),
            "{keys:?}"
        );
    })
    .await;
}

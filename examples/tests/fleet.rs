//! A fleet of two `conformance-server` instances sharing a signing key, as
//! behind a load balancer, over HTTP on 127.0.0.1:
//! - a state minted by one instance completes on the other;
//! - single use across the fleet with Redis (`--redis`): a state consumed on
//!   one instance runs once; a duplicate retry with the same answers gets
//!   the recorded answer on either instance, one with other answers is
//!   refused on both; with Redis stopped, both refuse, and the flow
//!   completes once it is back;
//! - the outcome record: a final answer lost when its client leaves is
//!   answered again by the other instance, 50 racing duplicates run the
//!   deploy once, and an answer above the limit is not kept;
//! - single use in memory (`--single-use`) only covers one process;
//! - rolling a key through the fleet in the documented order loses no
//!   in-flight flow, and the wrong order does;
//! - a bounded soak of concurrent flows spread across both instances:
//!   every flow completes exactly once.
//!
//! `tests/fleet/ensure-redis.sh` installs Debian's redis-server when it is
//! absent; each test starts its own on a free loopback port.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use mcp_runtime::client::{Client, ClientError, Retry, Step};
use mcp_runtime::schema::{
    CallToolResult, ContentBlock, ElicitRequestFormParams, ElicitResult, ElicitValue,
    InputRequiredResult, JsonObject,
};
use support::peer::Listening;
use support::redis::{Redis, free_port};

/// The key every instance signs with at first.
const KEY_1: &str = "1111111111111111111111111111111111111111111111111111111111111111";
/// The key rolled in.
const KEY_2: &str = "2222222222222222222222222222222222222222222222222222222222222222";

/// A confirmation flow: one question, a signed state.
const CONFIRM: &str = "test_input_required_result_request_state";
const CONFIRMED: &str = "state-ok: the requestState verified; ok = true.";
/// A three-step flow: a name, then a colour, each round with a new state.
const ROUNDS: &str = "test_input_required_result_multi_round";
const ROUNDS_DONE: &str = "Hello Ada, whose favorite color is teal!";

/// A deploy that confirms, then counts its run (`exactly_once.rs`).
const DEPLOY: &str = "test_exactly_once_deploy";

/// Bound on one whole test.
const TEST_TIMEOUT: Duration = Duration::from_secs(120);

// --- Instances and clients ---------------------------------------------------------------

/// A `conformance-server` on a free port with `args`.
fn instance(args: &[&str]) -> Listening {
    let mut command = Command::new(env!("CARGO_BIN_EXE_conformance-server"));
    command
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .env("RUST_LOG", "warn");
    Listening::spawn(command)
}

/// Two instances with the same `args`, each with its client.
async fn pair(args: &[&str]) -> ((Listening, Client), (Listening, Client)) {
    let (a, b) = (instance(args), instance(args));
    let (on_a, on_b) = (client(&a).await, client(&b).await);
    ((a, on_a), (b, on_b))
}

/// A client that answers every form: name Ada, colour teal, confirm yes.
async fn client(server: &Listening) -> Client {
    Client::http(&server.url)
        .on_elicit_form(answer)
        .connect()
        .await
        .unwrap()
}

async fn answer(params: ElicitRequestFormParams) -> ElicitResult {
    let mut content = JsonObject::new();
    for field in params.requested_schema.properties.keys() {
        let value = match field.as_str() {
            "name" => "Ada".into(),
            "color" => "teal".into(),
            "ok" => true.into(),
            other => panic!("unexpected form field {other:?}"),
        };
        content.insert(field.clone(), value);
    }
    let content = serde_json::from_value::<std::collections::BTreeMap<String, ElicitValue>>(
        serde_json::Value::Object(content),
    )
    .unwrap();
    ElicitResult::accept(content.into_iter().collect())
}

/// `retry` with every answer declined: the same state, other answers.
fn declined(retry: &Retry) -> Retry {
    let mut changed = retry.clone();
    if let Some(responses) = changed.input_responses.as_mut() {
        for answer in responses.values_mut() {
            *answer = serde_json::json!({"action": "decline"});
        }
    }
    changed
}

/// The deploy's arguments.
fn deploy_args(hold_ms: u64, pad: usize) -> JsonObject {
    let serde_json::Value::Object(args) = serde_json::json!({"hold_ms": hold_ms, "pad": pad})
    else {
        unreachable!()
    };
    args
}

/// The deploy's first round through `client`, and the retry that confirms.
async fn deploy_retry(client: &Client, args: &JsonObject) -> Retry {
    let asked = match client
        .call_tool_once(DEPLOY, Some(args.clone()), &Retry::none())
        .await
        .unwrap()
    {
        Step::InputRequired(asked) => asked,
        Step::Complete(done) => panic!("{DEPLOY} did not ask: {done:?}"),
    };
    answers(client, &asked).await
}

/// The deploy's final round through `client`.
async fn deploy(
    client: &Client,
    args: &JsonObject,
    retry: &Retry,
) -> Result<Step<CallToolResult>, ClientError> {
    client
        .call_tool_once(DEPLOY, Some(args.clone()), retry)
        .await
}

/// How many deploys `client`'s instance ran.
async fn deploys(client: &Client) -> usize {
    let done = client
        .call_tool_once("test_deploy_count", None, &Retry::none())
        .await
        .unwrap();
    text(done).parse().unwrap()
}

/// The first round of `tool`: it must ask.
async fn start(client: &Client, tool: &str) -> InputRequiredResult {
    match client
        .call_tool_once(tool, None, &Retry::none())
        .await
        .unwrap()
    {
        Step::InputRequired(asked) => asked,
        Step::Complete(done) => panic!("{tool} did not ask: {done:?}"),
    }
}

/// The retry answering `asked`, as `client` would send it.
async fn answers(client: &Client, asked: &InputRequiredResult) -> Retry {
    Retry::answering(asked, client.fulfil(asked).await.unwrap())
}

/// Sends `retry` for `tool` through `client`.
async fn resume(
    client: &Client,
    tool: &str,
    retry: &Retry,
) -> Result<Step<CallToolResult>, ClientError> {
    client.call_tool_once(tool, None, retry).await
}

fn text(step: Step<CallToolResult>) -> String {
    match step {
        Step::Complete(result) => match &result.content[0] {
            ContentBlock::Text(text) => text.text.clone(),
            other => panic!("not text: {other:?}"),
        },
        Step::InputRequired(asked) => panic!("still asking: {asked:?}"),
    }
}

fn asked(step: Step<CallToolResult>) -> InputRequiredResult {
    match step {
        Step::InputRequired(asked) => asked,
        Step::Complete(done) => panic!("completed too early: {done:?}"),
    }
}

/// The error code of a refused call, and asserts it is one.
fn code(outcome: Result<Step<CallToolResult>, ClientError>) -> i32 {
    match outcome {
        Err(ClientError::Protocol(error)) => {
            if error.code == -32602 {
                assert_eq!(error.message, r#"Invalid or expired "requestState""#);
                assert!(error.data.is_none(), "no reason reaches the client");
            }
            error.code
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

async fn bounded<F: Future<Output = ()>>(test: F) {
    tokio::time::timeout(TEST_TIMEOUT, test)
        .await
        .expect("the test finished within its bound");
}

// --- Tests -------------------------------------------------------------------------------

#[tokio::test]
async fn a_state_minted_on_one_instance_completes_on_the_other() {
    bounded(async {
        let ((_a, on_a), (_b, on_b)) = pair(&["--state-key-hex", KEY_1]).await;
        let first = start(&on_a, ROUNDS).await;
        let second = asked(
            resume(&on_b, ROUNDS, &answers(&on_b, &first).await)
                .await
                .unwrap(),
        );
        let done = resume(&on_a, ROUNDS, &answers(&on_a, &second).await).await;
        assert_eq!(text(done.unwrap()), ROUNDS_DONE);

        // An instance with another key refuses the same state.
        let stranger = instance(&["--state-key-hex", KEY_2]);
        let on_stranger = client(&stranger).await;
        let retry = answers(&on_stranger, &first).await;
        assert_eq!(code(resume(&on_stranger, ROUNDS, &retry).await), -32602);
    })
    .await;
}

#[tokio::test]
async fn with_redis_a_state_is_used_once_across_the_fleet() {
    bounded(async {
        let redis = Redis::start();
        let url = redis.url();
        let args = ["--state-key-hex", KEY_1, "--redis", url.as_str()];
        let ((_a, on_a), (b, on_b)) = pair(&args).await;

        // Consumed on A: the same retry gets A's answer again on B and on
        // A; the same state with other answers is refused on both.
        let retry = answers(&on_a, &start(&on_a, CONFIRM).await).await;
        assert_eq!(
            text(resume(&on_a, CONFIRM, &retry).await.unwrap()),
            CONFIRMED
        );
        assert_eq!(
            text(resume(&on_b, CONFIRM, &retry).await.unwrap()),
            CONFIRMED
        );
        assert_eq!(
            code(resume(&on_b, CONFIRM, &declined(&retry)).await),
            -32602
        );
        assert_eq!(
            code(resume(&on_a, CONFIRM, &declined(&retry)).await),
            -32602
        );
        assert!(b.logged("already used"), "B logs why: {}", b.logs());

        // Minted on A, consumed on B: A repeats B's answer, and refuses
        // other answers.
        let retry = answers(&on_a, &start(&on_a, CONFIRM).await).await;
        assert_eq!(
            text(resume(&on_b, CONFIRM, &retry).await.unwrap()),
            CONFIRMED
        );
        assert_eq!(
            text(resume(&on_a, CONFIRM, &retry).await.unwrap()),
            CONFIRMED
        );
        assert_eq!(
            code(resume(&on_a, CONFIRM, &declined(&retry)).await),
            -32602
        );

        // Each round of a multi-round flow carries a new state, so single
        // use does not stop a flow that moves between instances.
        let first = start(&on_a, ROUNDS).await;
        let second = asked(
            resume(&on_b, ROUNDS, &answers(&on_b, &first).await)
                .await
                .unwrap(),
        );
        let done = resume(&on_a, ROUNDS, &answers(&on_a, &second).await).await;
        assert_eq!(text(done.unwrap()), ROUNDS_DONE);
    })
    .await;
}

#[tokio::test]
async fn in_memory_single_use_only_covers_one_instance() {
    bounded(async {
        let args = ["--state-key-hex", KEY_1, "--single-use"];
        let ((_a, on_a), (_b, on_b)) = pair(&args).await;
        let args = deploy_args(0, 0);
        let retry = deploy_retry(&on_a, &args).await;
        let first = text(deploy(&on_a, &args, &retry).await.unwrap());
        assert_eq!(text(deploy(&on_a, &args, &retry).await.unwrap()), first);
        assert_eq!(code(deploy(&on_a, &args, &declined(&retry)).await), -32602);
        // B has its own memory: it runs the deploy again. This is why a
        // fleet needs --redis.
        let again = text(deploy(&on_b, &args, &retry).await.unwrap());
        assert_ne!(again, first);
        assert_eq!((deploys(&on_a).await, deploys(&on_b).await), (1, 1));
    })
    .await;
}

#[tokio::test]
async fn with_redis_stopped_every_instance_refuses_and_nothing_is_lost() {
    bounded(async {
        let mut redis = Redis::start();
        let url = redis.url();
        let args = ["--state-key-hex", KEY_1, "--redis", url.as_str()];
        let ((a, on_a), (_b, on_b)) = pair(&args).await;
        let retry = answers(&on_a, &start(&on_a, CONFIRM).await).await;

        redis.stop();
        // First calls carry no state and never touch Redis.
        start(&on_b, CONFIRM).await;
        // Retries fail closed on both instances, with the reason logged.
        assert_eq!(code(resume(&on_a, CONFIRM, &retry).await), -32603);
        assert_eq!(code(resume(&on_b, CONFIRM, &retry).await), -32603);
        assert!(a.logged("Redis claim failed"), "A logs why: {}", a.logs());

        // The refused state was never claimed: once Redis is back, the same
        // retry completes (the guard reconnects on its own), exactly once.
        redis.restart();
        let deadline = Instant::now() + Duration::from_secs(30);
        let done = loop {
            match resume(&on_b, CONFIRM, &retry).await {
                Err(ClientError::Protocol(e)) if e.code == -32603 => {
                    assert!(Instant::now() < deadline, "the guard never reconnected");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                other => break other,
            }
        };
        assert_eq!(text(done.unwrap()), CONFIRMED);
        assert_eq!(
            code(resume(&on_a, CONFIRM, &declined(&retry)).await),
            -32602
        );
    })
    .await;
}

/// One more round of a multi-round flow through `client`: the next
/// question, or (with `None`) the final text.
async fn step(client: &Client, flow: &InputRequiredResult) -> Step<CallToolResult> {
    resume(client, ROUNDS, &answers(client, flow).await)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_key_rolls_through_the_fleet_without_failing_a_flow() {
    bounded(async {
        let old = ["--state-key-hex", KEY_1];
        // Step 1: every instance learns the new key, still signing with the old.
        let learning = ["--state-key-hex", KEY_1, "--state-verify-key-hex", KEY_2];
        // Step 2: every instance signs with the new key, still verifying the old.
        let rolled = ["--state-key-hex", KEY_2, "--state-verify-key-hex", KEY_1];
        // Step 3, once the old key's states have expired: the new key alone.
        let done_rolling = ["--state-key-hex", KEY_2];

        let (a, b) = (instance(&old), instance(&old));
        // Flow F starts before the roll, signed with the old key.
        let f = start(&client(&a).await, ROUNDS).await;

        // Step 1, one instance at a time, while flows go on.
        drop(b);
        let b = instance(&learning);
        let on_b = client(&b).await;
        let f = asked(step(&on_b, &f).await);
        drop(a);
        let a = instance(&learning);
        let g = start(&client(&a).await, ROUNDS).await;

        // Step 2, one instance at a time. A signs with the new key while B
        // still signs with the old: each verifies the other's states.
        drop(a);
        let a = instance(&rolled);
        let on_a = client(&a).await;
        assert_eq!(text(step(&on_a, &f).await), ROUNDS_DONE, "F, minted by B");
        let g = asked(step(&on_a, &g).await);
        assert_eq!(text(step(&on_b, &g).await), ROUNDS_DONE, "G, minted by A");
        let h = start(&on_b, ROUNDS).await;
        let stale = start(&on_b, CONFIRM).await;
        drop(b);
        let b = instance(&rolled);
        let on_b = client(&b).await;
        let h = asked(step(&on_b, &h).await);
        assert_eq!(text(step(&on_a, &h).await), ROUNDS_DONE, "H, minted by B");

        // Step 3: an old-key state is refused from then on.
        drop((a, b));
        let a = instance(&done_rolling);
        let on_a = client(&a).await;
        let retry = answers(&on_a, &stale).await;
        assert_eq!(code(resume(&on_a, CONFIRM, &retry).await), -32602);
    })
    .await;
}

#[tokio::test]
async fn signing_with_a_key_before_the_fleet_knows_it_fails_retries() {
    bounded(async {
        // The wrong order: A signs with the new key while B has never heard
        // of it. This is what step 1 of the roll prevents.
        let a = instance(&["--state-key-hex", KEY_2, "--state-verify-key-hex", KEY_1]);
        let b = instance(&["--state-key-hex", KEY_1]);
        let (on_a, on_b) = (client(&a).await, client(&b).await);
        let retry = answers(&on_b, &start(&on_a, CONFIRM).await).await;
        assert_eq!(code(resume(&on_b, CONFIRM, &retry).await), -32602);
        assert!(b.logged("refused requestState"), "{}", b.logs());
    })
    .await;
}

/// How many flows the soak runs, and how many at once.
const SOAK_FLOWS: usize = 200;
const SOAK_CONCURRENCY: usize = 16;

#[tokio::test]
async fn soak_every_flow_completes_exactly_once_across_the_fleet() {
    bounded(async {
        let redis = Redis::start();
        let url = redis.url();
        let args = ["--state-key-hex", KEY_1, "--redis", url.as_str()];
        let (a, b) = (instance(&args), instance(&args));
        let clients = std::sync::Arc::new([client(&a).await, client(&b).await]);

        // Each flow starts on one instance, then sends its one retry to both
        // instances at the same moment, as a client retrying through a load
        // balancer after a timeout might: the deploy runs once, and both
        // get its answer.
        let semaphore = std::sync::Arc::new(tokio::sync::Semaphore::new(SOAK_CONCURRENCY));
        let mut flows = tokio::task::JoinSet::new();
        for flow in 0..SOAK_FLOWS {
            let clients = clients.clone();
            let semaphore = semaphore.clone();
            flows.spawn(async move {
                let _permit = semaphore.acquire().await.unwrap();
                let first = &clients[flow % 2];
                let args = deploy_args(0, 0);
                let retry = deploy_retry(first, &args).await;
                let (x, y) = tokio::join!(
                    deploy(&clients[0], &args, &retry),
                    deploy(&clients[1], &args, &retry)
                );
                let (x, y) = (text(x.unwrap()), text(y.unwrap()));
                assert_eq!(x, y, "both duplicates get the one run's answer");
                x
            });
        }
        let mut answers = std::collections::HashSet::new();
        while let Some(answer) = flows.join_next().await {
            answers.insert(answer.unwrap());
        }
        assert_eq!(answers.len(), SOAK_FLOWS, "no flow was lost or merged");
        let runs = deploys(&clients[0]).await + deploys(&clients[1]).await;
        assert_eq!(runs, SOAK_FLOWS, "every flow deployed exactly once");
    })
    .await;
}

/// Sends the deploy's final round to `url` over a raw connection of its
/// own, and returns the connection unread: dropping it is a client that
/// leaves before its answer.
fn send_unread(url: &str, args: &JsonObject, retry: &Retry) -> TcpStream {
    let mut params = serde_json::json!({"name": DEPLOY, "arguments": args, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "leaver", "version": "1"}}});
    params["inputResponses"] = serde_json::Value::Object(retry.input_responses.clone().unwrap());
    params["requestState"] = retry.request_state.clone().unwrap().into();
    let body =
        serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
            .to_string();
    let address = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once('/'))
        .map(|(address, _)| address)
        .unwrap();
    let mut stream = TcpStream::connect(address).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: {DEPLOY}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    stream.flush().unwrap();
    stream
}

#[tokio::test]
async fn a_final_answer_lost_on_one_instance_is_answered_by_the_other() {
    bounded(async {
        let redis = Redis::start();
        let url = redis.url();
        let args = ["--state-key-hex", KEY_1, "--redis", url.as_str()];
        let ((a, on_a), (b, on_b)) = pair(&args).await;
        // The deploy takes a while: once it has started on A, its client
        // leaves, long before the answer.
        let deploy_args = deploy_args(500, 0);
        let retry = deploy_retry(&on_a, &deploy_args).await;
        let leaving = send_unread(&a.url, &deploy_args, &retry);
        let deadline = Instant::now() + Duration::from_secs(10);
        while deploys(&on_a).await == 0 {
            assert!(Instant::now() < deadline, "A never started the deploy");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        drop(leaving);

        // The client retries through the other instance: it waits for the
        // run A finished for nobody, and gets its answer.
        let answer = text(deploy(&on_b, &deploy_args, &retry).await.unwrap());
        assert_eq!(
            answer,
            format!("Deployed: run 1 of process {}.", a.child.id()),
            "A: {}\nB: {}",
            a.logs(),
            b.logs()
        );
        assert_eq!((deploys(&on_a).await, deploys(&on_b).await), (1, 0));
        // And again through A.
        assert_eq!(
            text(deploy(&on_a, &deploy_args, &retry).await.unwrap()),
            answer
        );
        assert_eq!(deploys(&on_a).await, 1, "the side effect ran once");
    })
    .await;
}

#[tokio::test]
async fn fifty_racing_duplicates_of_a_final_retry_run_it_once() {
    bounded(async {
        let redis = Redis::start();
        let url = redis.url();
        let args = ["--state-key-hex", KEY_1, "--redis", url.as_str()];
        let (a, b) = (instance(&args), instance(&args));
        let clients = std::sync::Arc::new([client(&a).await, client(&b).await]);
        let deploy_args = deploy_args(200, 0);
        let retry = deploy_retry(&clients[0], &deploy_args).await;
        let mut duplicates = tokio::task::JoinSet::new();
        for n in 0..50 {
            let (clients, args, retry) = (clients.clone(), deploy_args.clone(), retry.clone());
            duplicates
                .spawn(async move { text(deploy(&clients[n % 2], &args, &retry).await.unwrap()) });
        }
        let mut answers = Vec::new();
        while let Some(answer) = duplicates.join_next().await {
            answers.push(answer.unwrap());
        }
        assert_eq!(answers.len(), 50);
        assert!(
            answers.iter().all(|answer| *answer == answers[0]),
            "every duplicate gets the one answer: {answers:?}"
        );
        let runs = deploys(&clients[0]).await + deploys(&clients[1]).await;
        assert_eq!(runs, 1, "one run in the fleet");
        // Other answers to the same state: refused everywhere.
        for client in clients.iter() {
            assert_eq!(
                code(deploy(client, &deploy_args, &declined(&retry)).await),
                -32602
            );
        }
    })
    .await;
}

#[tokio::test]
async fn an_answer_above_the_limit_is_not_recorded_and_its_duplicate_is_refused() {
    bounded(async {
        let redis = Redis::start();
        let url = redis.url();
        let args = [
            "--state-key-hex",
            KEY_1,
            "--redis",
            url.as_str(),
            "--max-outcome-bytes",
            "1024",
        ];
        let ((a, on_a), (_b, on_b)) = pair(&args).await;
        let large = deploy_args(0, 4096);
        let retry = deploy_retry(&on_a, &large).await;
        let answer = text(deploy(&on_a, &large, &retry).await.unwrap());
        assert!(answer.len() > 4096);
        assert!(
            a.logged("above the outcome record's limit"),
            "A says why it kept nothing: {}",
            a.logs()
        );
        assert_eq!(code(deploy(&on_b, &large, &retry).await), -32602);
        assert_eq!(code(deploy(&on_a, &large, &retry).await), -32602);
        assert_eq!(deploys(&on_a).await + deploys(&on_b).await, 1);

        // A small answer is kept under the same limit.
        let small = deploy_args(0, 0);
        let retry = deploy_retry(&on_b, &small).await;
        let answer = text(deploy(&on_b, &small, &retry).await.unwrap());
        assert_eq!(text(deploy(&on_a, &small, &retry).await.unwrap()), answer);
    })
    .await;
}

/// Sends one command to `redis` and returns its raw reply line.
fn redis_command(redis: &Redis, command: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", redis.port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream
        .write_all(format!("{command}\r\n").as_bytes())
        .unwrap();
    let mut reply = Vec::new();
    let mut byte = [0u8; 1];
    while !reply.ends_with(b"\r\n") {
        stream.read_exact(&mut byte).unwrap();
        reply.push(byte[0]);
    }
    String::from_utf8(reply).unwrap().trim_end().to_owned()
}

#[tokio::test]
async fn the_redis_guard_claims_once_for_the_remaining_lifetime() {
    use mcp_runtime::state::{ManualClock, RedisReplayGuard, ReplayGuard};
    bounded(async {
        let redis = Redis::start();
        let clock = ManualClock::at(1_000);
        let guard = RedisReplayGuard::new(&redis.url())
            .unwrap()
            .key_prefix("test:")
            .with_clock(clock.clone());
        guard.ping().await.unwrap();
        let fingerprint = [0xab; 32];
        assert_eq!(guard.claim(&fingerprint, 1_300).await, Ok(true));
        assert_eq!(guard.claim(&fingerprint, 1_300).await, Ok(false));
        let key = format!("test:{}", "ab".repeat(32));
        assert_eq!(redis_command(&redis, &format!("TTL {key}")), ":300");
        // A lifetime already over still claims for a second, never forever.
        assert_eq!(guard.claim(&[1; 32], 900).await, Ok(true));
        let key = format!("test:{}", "01".repeat(32));
        assert_eq!(redis_command(&redis, &format!("TTL {key}")), ":1");

        assert!(RedisReplayGuard::new("not a url").is_err());
        let closed = RedisReplayGuard::new(&format!("redis://127.0.0.1:{}", free_port())).unwrap();
        assert!(
            closed.claim(&fingerprint, 1_300).await.is_err(),
            "fails closed"
        );
    })
    .await;
}

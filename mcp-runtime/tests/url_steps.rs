//! URL-mode steps the server can see finish, over HTTP on 127.0.0.1: a
//! retry before the application marked the step complete does not accept
//! it; after, it does; an unknown or another subject's step cannot be
//! marked; an expired step is gone; and with Redis, a step opened by one
//! server is completed through another's handle.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use mcp_runtime::prelude::*;
use mcp_runtime::server::url_steps::{InMemoryUrlSteps, UrlStepError, UrlSteps};
use mcp_runtime::state::{ManualClock, RequestStateSigner};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use support::http::{meta, request};

/// Where the payment stands: the step travels in the resume state.
#[derive(Serialize, Deserialize)]
struct Paying {
    step: UrlStep,
}

fn ask(step: UrlStep) -> Reply<Paying> {
    let url = format!("https://pay.example.com/checkout/{}", step.id());
    Reply::ask("pay", step.request("Pay 40 EUR.", url)).resume(Paying { step })
}

/// Round one of every payment tool: a new step, and the question.
async fn open_and_ask(ctx: &Ctx) -> Reply<Paying> {
    match ctx.open_url_step().await {
        Ok(step) => ask(step),
        Err(error) => Reply::text(format!("cannot take payments: {error}")),
    }
}

/// Takes a payment through a URL-mode step; answers only once the
/// application marked the step complete.
#[tool]
async fn pay(ctx: Ctx, resume: Resume<Paying>) -> Reply<Paying> {
    let Some(Paying { step }) = resume.into_inner() else {
        return open_and_ask(&ctx).await;
    };
    match ctx.url_step_answer("pay", &step).await {
        UrlAnswer::Completed => Reply::text(format!("Paid ({}).", step.id())),
        UrlAnswer::Pending => ask(step),
        other => Reply::text(format!("Not paid: {other:?}.")),
    }
}

/// The same payment, asked in line.
#[tool]
async fn pay_in_line(ctx: Ctx) -> Result<String, ToolError> {
    let checkout = |step: &UrlStep| format!("https://pay.example.com/checkout/{}", step.id());
    let step = ctx.ask_url_step("pay", "Pay 40 EUR.", checkout).await?;
    Ok(format!("Paid ({}).", step.id()))
}

fn server(steps: UrlSteps) -> Server {
    Server::builder("shop", "1")
        .handler::<pay>()
        .handler::<pay_in_line>()
        .request_state_signer(RequestStateSigner::new([3u8; 32]).unwrap())
        .url_steps(steps)
        .build()
        .unwrap()
}

fn url_client() -> Value {
    meta(json!({"elicitation": {"url": {}}}), json!({}))
}

/// Calls `pay`, with `retry` (the previous answer) accepted when given.
async fn call(url: &str, retry: Option<&Value>) -> Value {
    call_tool(url, "pay", retry).await
}

/// Calls `tool`, with `retry` (the previous answer) accepted when given.
async fn call_tool(url: &str, tool: &str, retry: Option<&Value>) -> Value {
    let mut params = json!({"name": tool, "arguments": {}});
    if let Some(previous) = retry {
        params["requestState"] = previous["result"]["requestState"].clone();
        params["inputResponses"] = json!({"pay": {"action": "accept"}});
    }
    request(url, 1, "tools/call", params, url_client()).await
}

/// The step id in an input-required answer's URL.
fn step_id(asked: &Value) -> String {
    let url = asked["result"]["inputRequests"]["pay"]["params"]["url"]
        .as_str()
        .unwrap_or_else(|| panic!("no URL request: {asked}"));
    url.rsplit('/').next().unwrap().to_owned()
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {answer}"))
}

#[tokio::test]
async fn a_step_accepts_only_once_the_application_marked_it_complete() {
    let steps = UrlSteps::in_memory();
    let running = support::http::serve(server(steps.clone())).await;
    let asked = call(&running.url, None).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let id = step_id(&asked);
    assert_eq!(id.len(), 32);

    // The user says they are done, but nothing was paid: asked again.
    let again = call(&running.url, Some(&asked)).await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
    assert_eq!(step_id(&again), id, "the same step");

    // Nobody else can mark it, nor an id the server never opened.
    assert_eq!(
        steps.complete(&id, "mallory").await,
        Err(UrlStepError::Foreign)
    );
    assert_eq!(
        steps.complete("00000000000000000000000000000000", "").await,
        Err(UrlStepError::Unknown)
    );
    let still = call(&running.url, Some(&again)).await;
    assert_eq!(still["result"]["resultType"], "input_required", "{still}");

    // The payment provider's callback marks it: the retry accepts.
    steps.complete(&id, "").await.unwrap();
    let paid = call(&running.url, Some(&still)).await;
    assert_eq!(text(&paid), format!("Paid ({id})."));
}

#[tokio::test]
async fn a_step_asked_in_line_is_carried_until_complete_and_replaced_when_expired() {
    let clock = ManualClock::at(1_000_000);
    let steps = UrlSteps::new(InMemoryUrlSteps::with_clock(clock.clone()))
        .with_clock(clock.clone())
        .ttl(std::time::Duration::from_secs(60));
    let running = support::http::serve(server(steps.clone())).await;
    let call = |retry| call_tool(&running.url, "pay_in_line", retry);
    let asked = call(None).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let id = step_id(&asked);

    // Accepted, but not paid: the same step is asked again.
    let again = call(Some(&asked)).await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
    assert_eq!(step_id(&again), id, "the same step");

    // Expired: a new step.
    clock.advance(61);
    let renewed = call(Some(&again)).await;
    assert_eq!(
        renewed["result"]["resultType"], "input_required",
        "{renewed}"
    );
    let new_id = step_id(&renewed);
    assert_ne!(new_id, id, "a new step");

    // Paid: the handler goes on past the question.
    steps.complete(&new_id, "").await.unwrap();
    let paid = call(Some(&renewed)).await;
    assert_eq!(text(&paid), format!("Paid ({new_id})."));
}

#[tokio::test]
async fn an_expired_step_is_gone() {
    let clock = ManualClock::at(1_000_000);
    let steps = UrlSteps::new(InMemoryUrlSteps::with_clock(clock.clone()))
        .with_clock(clock.clone())
        .ttl(std::time::Duration::from_secs(60));
    let running = support::http::serve(server(steps.clone())).await;
    let asked = call(&running.url, None).await;
    let id = step_id(&asked);
    clock.advance(61);
    assert_eq!(steps.complete(&id, "").await, Err(UrlStepError::Unknown));
    let expired = call(&running.url, Some(&asked)).await;
    assert_eq!(text(&expired), "Not paid: Expired.");
}

#[tokio::test]
async fn without_url_steps_a_handler_that_opens_one_says_why() {
    let running = support::http::serve(
        Server::builder("shop", "1")
            .handler::<pay>()
            .request_state_signer(RequestStateSigner::new([3u8; 32]).unwrap())
            .build()
            .unwrap(),
    )
    .await;
    let refused = call(&running.url, None).await;
    assert!(
        text(&refused).starts_with("cannot take payments:"),
        "{refused}"
    );
}

#[cfg(feature = "redis")]
#[path = "../../tests/fleet/redis_server.rs"]
mod redis_server;

#[cfg(feature = "redis")]
#[tokio::test]
async fn with_redis_the_step_is_completed_through_another_instance() {
    use mcp_runtime::server::url_steps::RedisUrlSteps;
    let redis = redis_server::Redis::start();
    let on =
        |prefix: &str| UrlSteps::new(RedisUrlSteps::new(&redis.url()).unwrap().key_prefix(prefix));
    let (a, b) = (on("shop:"), on("shop:"));
    let running = support::http::serve(server(a)).await;
    let asked = call(&running.url, None).await;
    let id = step_id(&asked);
    // Expiry cleans up: the step's key lives no longer than the step.
    let mut connection = redis::Client::open(redis.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let ttl: i64 = redis::cmd("TTL")
        .arg(format!("shop:{id}"))
        .query_async(&mut connection)
        .await
        .unwrap();
    assert!(
        (1..=600).contains(&ttl),
        "the key expires with the step: {ttl}"
    );
    let pending = call(&running.url, Some(&asked)).await;
    assert_eq!(pending["result"]["resultType"], "input_required");

    // The web route runs on B: another process, the same Redis.
    assert_eq!(b.complete(&id, "mallory").await, Err(UrlStepError::Foreign));
    assert_eq!(b.complete("nope", "").await, Err(UrlStepError::Unknown));
    b.complete(&id, "").await.unwrap();
    let paid = call(&running.url, Some(&pending)).await;
    assert_eq!(text(&paid), format!("Paid ({id})."));

    // Another prefix is another store: the step is unknown there.
    assert_eq!(
        on("other:").complete(&id, "").await,
        Err(UrlStepError::Unknown)
    );
}

// ---------------------------------------------------------------------------
// 2025-era clients: the bridge asks them the URL step with
// `elicitation/create`, and they hear `notifications/elicitation/complete`
// when the step completes.

/// Like `pay`, but after the user accepts it waits (bounded) for the
/// payment instead of asking again: the shape a 2025-era bridge prefers.
#[tool]
async fn pay_and_wait(ctx: Ctx, resume: Resume<Paying>) -> Reply<Paying> {
    let Some(Paying { step }) = resume.into_inner() else {
        return open_and_ask(&ctx).await;
    };
    match ctx.url_step_answer("pay", &step).await {
        UrlAnswer::Pending => {}
        other => return Reply::text(format!("Answered: {other:?}.")),
    }
    match ctx
        .wait_url_step(&step, std::time::Duration::from_millis(1_500))
        .await
    {
        UrlAnswer::Completed => Reply::text(format!("Paid ({}).", step.id())),
        other => Reply::text(format!("Not paid: {other:?}.")),
    }
}

/// Waits two seconds after the user accepts, without looking at the step:
/// only the bridge's own watch can announce a completion meanwhile.
#[tool]
async fn pay_blind(ctx: Ctx, resume: Resume<Paying>) -> Reply<Paying> {
    if resume.into_inner().is_none() {
        return open_and_ask(&ctx).await;
    }
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    Reply::text("Done waiting.")
}

/// A payment the provider confirms before the user is even asked (the
/// card on file): the step is complete when the question goes out.
#[tool]
async fn pay_on_file(ctx: Ctx, resume: Resume<Paying>) -> Reply<Paying> {
    let Some(Paying { step }) = resume.into_inner() else {
        let steps = ctx.shared::<UrlSteps>().unwrap();
        let step = ctx.open_url_step().await.unwrap();
        steps.complete(step.id(), "").await.unwrap();
        return ask(step);
    };
    Reply::text(format!("{:?}", ctx.url_step_answer("pay", &step).await))
}

fn legacy_server(steps: UrlSteps) -> Server {
    Server::builder("shop", "1")
        .handler::<pay_and_wait>()
        .handler::<pay_blind>()
        .handler::<pay_on_file>()
        .share(steps.clone())
        .request_state_signer(RequestStateSigner::new([3u8; 32]).unwrap())
        .url_steps(steps)
        .build()
        .unwrap()
}

/// The URL-mode `elicitation/create` requests the client saw, as
/// (elicitationId, step id in the URL).
fn asked_steps(exchange: &support::legacy::Exchange) -> Vec<(String, String)> {
    exchange
        .with_method("elicitation/create")
        .into_iter()
        .map(|m| {
            let url = m["params"]["url"].as_str().unwrap();
            let id = m["params"]["elicitationId"].as_str().unwrap();
            (id.to_owned(), url.rsplit('/').next().unwrap().to_owned())
        })
        .collect()
}

/// The `elicitationId`s of the completion notifications of `exchange`.
fn announced(exchange: &support::legacy::Exchange) -> Vec<String> {
    exchange
        .with_method("notifications/elicitation/complete")
        .into_iter()
        .map(|m| m["params"]["elicitationId"].as_str().unwrap().to_owned())
        .collect()
}

async fn legacy_url_client(url: &str) -> support::legacy::LegacyClient {
    let capabilities = json!({"elicitation": {"form": {}, "url": {}}});
    support::legacy::LegacyClient::initialize(url, "2025-11-25", capabilities)
        .await
        .0
}

/// Asserts that `exchange` asked one URL step and announced its
/// completion once, under the question's elicitationId, after the
/// question; returns the step id.
fn asked_once_and_announced_after(exchange: &support::legacy::Exchange) -> String {
    let asked = asked_steps(exchange);
    assert_eq!(asked.len(), 1, "{exchange:#?}");
    let (elicitation_id, step) = &asked[0];
    assert_eq!(
        announced(exchange),
        std::slice::from_ref(elicitation_id),
        "once: {exchange:#?}"
    );
    let position = |method: &str| exchange.messages.iter().position(|m| m["method"] == method);
    assert!(
        position("elicitation/create") < position("notifications/elicitation/complete"),
        "{exchange:#?}"
    );
    step.clone()
}

/// A user who accepts each URL request and pays: the payment provider's
/// callback marks the step through `steps` a moment later.
fn paying_through(steps: UrlSteps) -> impl FnMut(&Value) -> Option<Value> {
    move |asked| {
        let url = asked["params"]["url"].as_str()?;
        let id = url.rsplit('/').next()?.to_owned();
        let steps = steps.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            steps.complete(&id, "").await.unwrap();
        });
        Some(json!({"action": "accept"}))
    }
}

#[tokio::test]
async fn a_2025_client_hears_its_step_complete_once_before_the_result() {
    let steps = UrlSteps::in_memory();
    let running = support::http::serve(legacy_server(steps.clone())).await;
    let client = legacy_url_client(&running.url).await;
    let params = json!({"name": "pay_and_wait", "arguments": {}});
    let exchange = client
        .call(7, "tools/call", params, paying_through(steps.clone()))
        .await;
    let step = asked_once_and_announced_after(&exchange);
    assert_eq!(text(&exchange.response), format!("Paid ({step})."));
}

#[tokio::test]
async fn a_step_complete_before_it_is_asked_is_announced_after_the_question() {
    let running = support::http::serve(legacy_server(UrlSteps::in_memory())).await;
    let client = legacy_url_client(&running.url).await;
    let params = json!({"name": "pay_on_file", "arguments": {}});
    let exchange = client
        .call(10, "tools/call", params, |_| {
            Some(json!({"action": "accept"}))
        })
        .await;
    assert_eq!(text(&exchange.response), "Completed");
    asked_once_and_announced_after(&exchange);
}

#[tokio::test]
async fn a_step_never_completed_is_never_announced() {
    let steps = UrlSteps::in_memory();
    let running = support::http::serve(legacy_server(steps.clone())).await;
    let client = legacy_url_client(&running.url).await;
    let params = json!({"name": "pay_and_wait", "arguments": {}});
    let exchange = client
        .call(8, "tools/call", params, |_| {
            Some(json!({"action": "accept"}))
        })
        .await;
    assert_eq!(text(&exchange.response), "Not paid: Pending.");
    assert_eq!(asked_steps(&exchange).len(), 1);
    assert!(announced(&exchange).is_empty(), "{exchange:#?}");

    // Completing it afterwards, with nobody left to tell, is quiet and fine.
    let step = &asked_steps(&exchange)[0].1;
    steps.complete(step, "").await.unwrap();
}

#[tokio::test]
async fn a_2026_client_is_asked_without_an_elicitation_id() {
    // 2026-07-28 has no completion notification: the request is answered
    // input-required, and completing the step sends nothing anywhere.
    let steps = UrlSteps::in_memory();
    let running = support::http::serve(legacy_server(steps.clone())).await;
    let params = json!({"name": "pay_and_wait", "arguments": {}});
    let asked = request(&running.url, 1, "tools/call", params, url_client()).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let url = asked["result"]["inputRequests"]["pay"]["params"]["url"]
        .as_str()
        .unwrap();
    assert!(
        asked["result"]["inputRequests"]["pay"]["params"]
            .get("elicitationId")
            .is_none()
    );
    steps
        .complete(url.rsplit('/').next().unwrap(), "")
        .await
        .unwrap();
}

#[cfg(feature = "redis")]
#[tokio::test]
async fn with_redis_a_2025_client_hears_a_step_completed_on_another_instance() {
    use mcp_runtime::server::url_steps::RedisUrlSteps;
    let redis = redis_server::Redis::start();
    let on = || {
        UrlSteps::new(
            RedisUrlSteps::new(&redis.url())
                .unwrap()
                .key_prefix("shop:"),
        )
    };
    let (a, b) = (on(), on());
    let running = support::http::serve(legacy_server(a)).await;
    let client = legacy_url_client(&running.url).await;
    let params = json!({"name": "pay_blind", "arguments": {}});
    let exchange = client
        // The web route runs on B: only A's watch of Redis can tell.
        .call(9, "tools/call", params, paying_through(b))
        .await;
    assert_eq!(text(&exchange.response), "Done waiting.");
    asked_once_and_announced_after(&exchange);
}

//! `examples/payment.rs` does what its doc comment promises, over HTTP on
//! 127.0.0.1: the checkout sends the user to the shop's payment page; a
//! retry before paying is asked again; the page refuses an id it never
//! opened; after paying, the retry charges; the same retry again (its
//! answer lost) gets the same answer without a second charge; a retry with
//! other answers is refused. Then the same with two instances sharing a
//! real Redis: the payment page is served by the other instance, and the
//! charge runs once in the fleet.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::process::Command;
use std::time::Duration;

use mcp_runtime::client::{Client, ClientError, Retry, Step};
use mcp_runtime::schema::{CallToolResult, ElicitResult, InputRequiredResult, JsonObject};
use serde_json::{Value, json};
use support::peer::Listening;
use support::process::example;
use support::redis::Redis;

/// Bound on one whole test (the example is built before it starts).
const TEST_TIMEOUT: Duration = Duration::from_secs(120);

/// The secret every instance of the fleet signs states with.
const STATE_KEY: &str = "a shared secret of at least thirty-two bytes";

const CHARGED: &str = "Charged 40 EUR for order A-1.";
/// The log line of the one side effect.
const CHARGE_LOG: &str = "charged order A-1 40 EUR";

/// The payment example on a free port, with `env` on top.
fn shop(env: &[(&str, &str)]) -> Listening {
    let mut command = Command::new(example("payment"));
    command
        .env("SHOP_LISTEN", "127.0.0.1:0")
        .env("RUST_LOG", "info")
        .envs(env.iter().copied());
    Listening::spawn(command)
}

/// A client that accepts every URL-mode request, as a user who says
/// "done" would.
async fn client(shop: &Listening) -> Client {
    Client::http(&shop.url)
        .on_elicit_url(|_| async { ElicitResult::accept(Default::default()) })
        .connect()
        .await
        .unwrap()
}

fn order() -> JsonObject {
    let Value::Object(args) = json!({"order": "A-1", "euros": 40}) else {
        unreachable!()
    };
    args
}

async fn checkout(client: &Client, retry: &Retry) -> Result<Step<CallToolResult>, ClientError> {
    client
        .call_tool_once("checkout", Some(order()), retry)
        .await
}

fn asked(step: Step<CallToolResult>) -> InputRequiredResult {
    match step {
        Step::InputRequired(asked) => asked,
        Step::Complete(done) => panic!("completed too early: {done:?}"),
    }
}

fn text(step: Step<CallToolResult>) -> String {
    match step {
        Step::Complete(done) => {
            let done = serde_json::to_value(&done).unwrap();
            assert_ne!(done["isError"], true, "{done}");
            done["content"][0]["text"].as_str().unwrap().to_owned()
        }
        Step::InputRequired(asked) => panic!("still asking: {asked:?}"),
    }
}

/// The payment request's message and URL.
fn payment_request(asked: &InputRequiredResult) -> (String, String) {
    let asked = serde_json::to_value(asked).unwrap();
    let params = &asked["inputRequests"]["payment"]["params"];
    assert_eq!(params["mode"], "url", "{asked}");
    let field = |name: &str| params[name].as_str().unwrap().to_owned();
    (field("message"), field("url"))
}

/// The retry answering `asked` the way `client` does (accept).
async fn accepting(client: &Client, asked: &InputRequiredResult) -> Retry {
    Retry::answering(asked, client.fulfil(asked).await.unwrap())
}

/// The `/pay/{id}` page of `shop` (a `Listening` URL ends in `/mcp`).
fn page(shop: &Listening, id: &str) -> String {
    format!("{}/pay/{id}", shop.url.trim_end_matches("/mcp"))
}

async fn pay(url: &str) -> u16 {
    reqwest::Client::new()
        .post(url)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

fn refusal_code(outcome: Result<Step<CallToolResult>, ClientError>) -> i32 {
    match outcome {
        Err(ClientError::Protocol(error)) => {
            assert_eq!(error.message, r#"Invalid or expired "requestState""#);
            error.code
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// The `retry` with its answer declined: the same state, other answers.
fn declined(retry: &Retry) -> Retry {
    let mut changed = retry.clone();
    for answer in changed.input_responses.as_mut().unwrap().values_mut() {
        *answer = json!({"action": "decline"});
    }
    changed
}

/// How often `shops` logged the charge, once their logs have settled.
fn charges(shops: &[&Listening]) -> usize {
    assert!(
        shops.iter().any(|shop| shop.logged(CHARGE_LOG)),
        "no shop charged"
    );
    shops
        .iter()
        .map(|shop| shop.logs().matches(CHARGE_LOG).count())
        .sum()
}

async fn bounded<F: Future<Output = ()>>(test: F) {
    tokio::time::timeout(TEST_TIMEOUT, test)
        .await
        .expect("the test finished within its bound");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shop_charges_a_paid_order_once() {
    let shop = tokio::task::block_in_place(|| shop(&[]));
    bounded(async {
        let client = client(&shop).await;
        // An order id the shop would not put in its logs is refused.
        let Value::Object(long) = json!({"order": "A".repeat(65), "euros": 40}) else {
            unreachable!()
        };
        let refused = client
            .call_tool_once("checkout", Some(long), &Retry::none())
            .await
            .unwrap();
        let Step::Complete(refused) = refused else {
            panic!("a long order id was asked about: {refused:?}")
        };
        assert_eq!(refused.is_error, Some(true), "{refused:?}");

        let first = asked(checkout(&client, &Retry::none()).await.unwrap());
        let (message, url) = payment_request(&first);
        assert_eq!(message, "Open the payment page. Pay 40 EUR for order A-1.");
        let id = url.rsplit('/').next().unwrap().to_owned();
        assert_eq!(url, page(&shop, &id));
        let html = reqwest::get(&url).await.unwrap().text().await.unwrap();
        assert!(html.contains("<button>Pay</button>"), "{html}");

        // "Done", says the user, who has not paid: asked again.
        let retry = accepting(&client, &first).await;
        let again = asked(checkout(&client, &retry).await.unwrap());
        let (message, again_url) = payment_request(&again);
        assert!(
            message.starts_with("The payment has not arrived yet."),
            "{message}"
        );
        assert_eq!(again_url, url, "the same payment");

        // The page marks only what the shop opened.
        assert_eq!(pay(&page(&shop, &"0".repeat(32))).await, 404);
        assert_eq!(pay(&url).await, 200);

        let last = accepting(&client, &again).await;
        assert_eq!(text(checkout(&client, &last).await.unwrap()), CHARGED);
        // The answer was lost; the client sends the same retry again.
        assert_eq!(text(checkout(&client, &last).await.unwrap()), CHARGED);
        assert_eq!(charges(&[&shop]), 1, "{}", shop.logs());
        // Other answers under the same state are refused.
        assert_eq!(
            refusal_code(checkout(&client, &declined(&last)).await),
            -32602
        );
        // The first state was consumed when it was answered.
        assert_eq!(
            refusal_code(checkout(&client, &declined(&retry)).await),
            -32602
        );
    })
    .await;
    assert_eq!(charges(&[&shop]), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_takes_the_payment_on_either_instance_and_charges_once() {
    let redis = Redis::start();
    let url = redis.url();
    let env = [("SHOP_REDIS", url.as_str()), ("SHOP_STATE_KEY", STATE_KEY)];
    let (a, b) = tokio::task::block_in_place(|| (shop(&env), shop(&env)));
    bounded(async {
        let (on_a, on_b) = (client(&a).await, client(&b).await);
        let first = asked(checkout(&on_a, &Retry::none()).await.unwrap());
        let id = payment_request(&first)
            .1
            .rsplit('/')
            .next()
            .unwrap()
            .to_owned();

        // Before paying, the retry (on B) is asked again.
        let again = asked(
            checkout(&on_b, &accepting(&on_b, &first).await)
                .await
                .unwrap(),
        );
        assert!(
            payment_request(&again)
                .0
                .starts_with("The payment has not arrived yet.")
        );

        // The payment page is served by B; A's page knows the id as well.
        assert_eq!(pay(&page(&b, &"f".repeat(32))).await, 404);
        assert_eq!(pay(&page(&b, &id)).await, 200);

        // The final round on A charges; its duplicate on B is answered the same.
        let last = accepting(&on_a, &again).await;
        assert_eq!(text(checkout(&on_a, &last).await.unwrap()), CHARGED);
        assert_eq!(text(checkout(&on_b, &last).await.unwrap()), CHARGED);
        assert_eq!(
            refusal_code(checkout(&on_b, &declined(&last)).await),
            -32602
        );
    })
    .await;
    assert_eq!(charges(&[&a, &b]), 1, "A: {}\nB: {}", a.logs(), b.logs());
    assert!(
        a.logs().contains(CHARGE_LOG),
        "the round ran where it was sent"
    );
}

//! What `ServerBuilder::build` refuses of handlers written with the macros
//! when the macro cannot see the mistake: a 128-bit integer inside an
//! arguments struct, and a `Resume<S>` or `Shared<T>` behind a type alias.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use mcp_runtime::prelude::*;
use mcp_runtime::state::RequestStateSigner;
use serde::{Deserialize, Serialize};

// --- 128-bit integers inside an arguments struct --------------------------------

#[derive(Deserialize, JsonSchema)]
struct Transfer {
    /// In cents.
    amount: u128,
    legs: Vec<Leg>,
}

#[derive(Deserialize, JsonSchema)]
struct Leg {
    delta: i128,
}

/// Transfers money.
#[tool]
async fn transfer(args: Transfer) -> String {
    let moved: i128 = args.legs.iter().map(|leg| leg.delta).sum();
    format!("{} cents, {moved} moved", args.amount)
}

#[derive(Deserialize, JsonSchema)]
struct Measure {
    count: u64,
    offset: i64,
    ratio: f64,
    small: Option<u32>,
}

/// Measures.
#[tool]
async fn measure(args: Measure) -> String {
    format!(
        "{} {} {} {:?}",
        args.count, args.offset, args.ratio, args.small
    )
}

#[test]
fn a_128_bit_integer_in_an_arguments_struct_stops_the_build() {
    let error = Server::builder("bank", "1")
        .handler::<transfer>()
        .handler::<measure>()
        .build()
        .expect_err("a u128 argument cannot arrive in JSON");
    assert_eq!(
        error.to_string(),
        "the server cannot be built (2 problems):\n  - Tool \"transfer\": the argument `amount` \
         is a 128-bit integer (`u128`), which JSON carries exactly only up to 64 bits, so every \
         call giving it a value would be refused; use `u64`, or a `String` for larger values.\n  \
         - Tool \"transfer\": the argument `legs[].delta` is a 128-bit integer (`i128`), which \
         JSON carries exactly only up to 64 bits, so every call giving it a value would be \
         refused; use `i64`, or a `String` for larger values."
    );
    // 64-bit integers and floats are fine.
    Server::builder("meter", "1")
        .handler::<measure>()
        .build()
        .expect("u64, i64, f64 and u32 arguments build");
}

// --- Resume<S> and Shared<T> behind type aliases --------------------------------

#[derive(Serialize, Deserialize)]
struct Step;

type Resumed = Resume<Step>;
type Ledger = Shared<Vec<u64>>;

/// Asks once, then resumes from a signed state named by an alias.
#[tool]
async fn aliased(step: Resumed) -> Reply<Step> {
    match step.into_inner() {
        None => Reply::ask(
            "name",
            mcp_runtime::schema::InputRequest::elicit_url("Sign in.", "https://example.com/login"),
        )
        .resume(Step),
        Some(Step) => Reply::text("resumed"),
    }
}

/// Reads a shared ledger named by an alias.
#[prompt]
async fn ledger(ledger: Ledger, step: Resumed) -> String {
    format!(
        "{} entries, first call: {}",
        ledger.len(),
        step.is_first_call()
    )
}

struct Desk;

#[handlers]
impl Desk {
    /// Resumes, by an alias, in a `#[handlers]` block.
    #[resource(uri = "desk://state")]
    async fn state(&self, step: Resumed) -> String {
        step.is_first_call().to_string()
    }
}

#[test]
fn a_resume_or_shared_behind_an_alias_is_needed_at_build() {
    let error = Server::builder("aliases", "1")
        .handler::<aliased>()
        .handler::<ledger>()
        .handlers(Desk)
        .build()
        .expect_err("an aliased Resume<S> needs a signer, an aliased Shared<T> a value");
    let signer = |who: &str| {
        format!(
            "{who} takes a `Resume<S>` state, which the server signs, but the server has no \
             request-state signer; add `.request_state_signer(RequestStateSigner::generate()?)` \
             (`ServerBuilder::request_state_signer`) before `.build()`"
        )
    };
    assert_eq!(
        error.problems(),
        [
            signer("tool \"aliased\""),
            "prompt \"ledger\" takes Shared<alloc::vec::Vec<u64>>, but no value of that type was \
             given to ServerBuilder::share; add `.share(value)` before `.build()`"
                .to_owned(),
            signer("prompt \"ledger\""),
            signer("resource \"desk://state\""),
        ]
    );
    Server::builder("aliases", "1")
        .handler::<aliased>()
        .handler::<ledger>()
        .handlers(Desk)
        .share(vec![1_u64])
        .request_state_signer(RequestStateSigner::generate().unwrap())
        .build()
        .expect("with a signer and the value it builds");
}

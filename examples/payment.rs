//! A checkout whose payment is confirmed through a URL, charged exactly
//! once.
//!
//! The `checkout` tool opens a URL step (`Ctx::open_url_step`) and sends
//! the user to the shop's own payment page, `/pay/{id}`. Paying there
//! marks the step complete (`UrlSteps::complete`). The tool charges only
//! when the client retries with `accept` **and** the step is complete: a
//! user who says "done" without paying is asked again. Single use with an
//! outcome record makes the charge happen once: if the answer to the final
//! round is lost and the client retries it, the retry gets the recorded
//! answer, and the handler does not run again.
//!
//! One process serves the MCP endpoint at `/mcp` and the payment page
//! beside it:
//!
//! ```text
//! cargo run --example payment
//! ```
//!
//! Settings come from the environment:
//!
//! - `SHOP_LISTEN`: the address to listen on (default `127.0.0.1:8080`).
//! - `SHOP_PUBLIC_URL`: the URL users reach the shop at, for the payment
//!   links (default `http://SHOP_LISTEN`).
//! - `SHOP_REDIS`: a Redis URL (`redis://127.0.0.1:6379`). With it, the
//!   URL steps, single use and the outcome record live in Redis, so that
//!   several instances behind one address act as one shop: the payment
//!   page may be served by another instance than the MCP request, and a
//!   charge runs once in the whole fleet.
//! - `SHOP_STATE_KEY`: the `requestState` signing secret (at least 32
//!   bytes), the same on every instance of a fleet (random by default).
//!
//! A 2025-era client is served too: the bridge asks it the URL step with
//! `elicitation/create`, and it hears `notifications/elicitation/complete`
//! when the payment goes through.
//!
//! This server has no authentication, so every step belongs to the subject
//! `""`. Behind authentication, the payment page must know which subject
//! is paying (from its own sign-in) to pass it to `UrlSteps::complete`.

use std::sync::{Mutex, PoisonError};

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Html;
use mcp_runtime::prelude::*;
use mcp_runtime::server::url_steps::{RedisUrlSteps, UrlStepError, UrlSteps};
use mcp_runtime::state::{InMemoryReplayGuard, RedisReplayGuard, RequestStateSigner};
use mcp_runtime::transport::http::HttpTransport;
use serde::{Deserialize, Serialize};

// --- The tool -------------------------------------------------------------------

/// The shop: where its payment page is, and what it has charged.
struct Shop {
    /// The URL users reach the shop at, for payment links.
    public_url: String,
    /// The charges made by this process: (order, euros).
    charges: Mutex<Vec<(String, u32)>>,
}

/// The longest order id the shop takes (it goes into messages and logs).
const MAX_ORDER_ID: usize = 64;

#[derive(Deserialize, JsonSchema)]
struct Order {
    /// The order to pay for (at most 64 characters).
    order: String,
    /// The amount, in euros.
    euros: u32,
}

/// What the first round learnt: the payment's step.
#[derive(Serialize, Deserialize)]
struct Paying {
    step: UrlStep,
}

impl Shop {
    /// Sends the user to the payment page of `step`.
    fn ask_to_pay(&self, order: &Order, step: UrlStep, message: &str) -> Reply<Paying> {
        let url = format!("{}/pay/{}", self.public_url, step.id());
        let message = format!(
            "{message} Pay {} EUR for order {}.",
            order.euros, order.order
        );
        Reply::ask("payment", step.request(message, url)).resume(Paying { step })
    }

    /// The side effect that must happen once.
    fn charge(&self, order: &Order) {
        let mut charges = self.charges.lock().unwrap_or_else(PoisonError::into_inner);
        charges.push((order.order.clone(), order.euros));
        tracing::info!("charged order {} {} EUR", order.order, order.euros);
    }
}

#[handlers]
impl Shop {
    /// Checks an order out: the user pays on the shop's payment page, then
    /// the order is charged, once.
    #[tool(destructive)]
    async fn checkout(
        &self,
        order: Order,
        ctx: Ctx,
        paying: Resume<Paying>,
    ) -> Result<Reply<Paying>, ToolError> {
        let id = &order.order;
        if id.is_empty() || id.chars().count() > MAX_ORDER_ID || id.chars().any(char::is_control) {
            return Err(ToolError::new(
                "An order id has 1 to 64 characters, none of them control characters.",
            ));
        }
        let unavailable = |why: &dyn std::fmt::Display| {
            tracing::warn!("payments are unavailable: {why}");
            ToolError::new("Payments are unavailable right now; nothing was charged.")
        };
        let Some(Paying { step }) = paying.into_inner() else {
            let step = ctx.open_url_step().await.map_err(|e| unavailable(&e))?;
            return Ok(self.ask_to_pay(&order, step, "Open the payment page."));
        };
        let mut answer = ctx.url_step_answer("payment", &step).await;
        if answer == UrlAnswer::Pending {
            // The user says they paid: give the payment page's callback a
            // moment before asking again.
            let moment = std::time::Duration::from_secs(2);
            answer = ctx.wait_url_step(&step, moment).await;
        }
        match answer {
            UrlAnswer::Completed => {
                self.charge(&order);
                Ok(Reply::text(format!(
                    "Charged {} EUR for order {}.",
                    order.euros, order.order
                )))
            }
            UrlAnswer::Pending | UrlAnswer::Missing => {
                Ok(self.ask_to_pay(&order, step, "The payment has not arrived yet."))
            }
            UrlAnswer::Declined | UrlAnswer::Cancelled => Ok(Reply::text(format!(
                "Checkout of order {} cancelled; nothing was charged.",
                order.order
            ))),
            UrlAnswer::Expired => Err(ToolError::new(
                "The payment link expired; nothing was charged. Check out again.",
            )),
            UrlAnswer::Unavailable(why) => Err(unavailable(&why)),
            other => Err(unavailable(&format!("{other:?}"))),
        }
    }
}

// --- The payment page -----------------------------------------------------------

/// The page a payment link opens: one button.
async fn payment_page(Path(id): Path<String>) -> Html<String> {
    // The id goes into the page only if it is a step id (32 hex digits).
    let id: String = id
        .chars()
        .filter(char::is_ascii_hexdigit)
        .take(32)
        .collect();
    Html(format!(
        "<!doctype html><title>Pay</title>\
         <form method=post action=\"/pay/{id}\"><button>Pay</button></form>"
    ))
}

/// The payment went through (in a real shop: the payment provider's
/// callback): the step is marked complete.
async fn paid(State(steps): State<UrlSteps>, Path(id): Path<String>) -> (StatusCode, &'static str) {
    match steps.complete(&id, "").await {
        Ok(()) => (StatusCode::OK, "Paid. You can go back to your assistant."),
        Err(UrlStepError::Unknown) => (StatusCode::NOT_FOUND, "No such payment, or it expired."),
        Err(UrlStepError::Foreign) => (StatusCode::FORBIDDEN, "This payment is not yours."),
        Err(error) => {
            tracing::warn!("could not mark a payment: {error}");
            (StatusCode::SERVICE_UNAVAILABLE, "Try again in a moment.")
        }
    }
}

// --- Wiring ---------------------------------------------------------------------

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();

    let setting = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let listen = setting("SHOP_LISTEN").unwrap_or_else(|| "127.0.0.1:8080".into());
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    let address = listener.local_addr()?;
    let public_url = setting("SHOP_PUBLIC_URL").unwrap_or_else(|| format!("http://{address}"));
    let signer = match setting("SHOP_STATE_KEY") {
        Some(secret) => RequestStateSigner::new(secret.as_bytes())?,
        None => RequestStateSigner::generate()?,
    };

    let shop = Shop {
        public_url: public_url.trim_end_matches('/').to_owned(),
        charges: Mutex::default(),
    };
    let builder = Server::builder("shop", "1.0.0")
        .handlers(shop)
        .request_state_signer(signer);
    // Single use (the outcome record is on with it by default), and the
    // steps, in Redis for a fleet or in this process.
    let (builder, steps) = match setting("SHOP_REDIS") {
        Some(url) => (
            builder.replay_guard(RedisReplayGuard::new(&url)?),
            UrlSteps::new(RedisUrlSteps::new(&url)?),
        ),
        None => (
            builder.replay_guard(InMemoryReplayGuard::new()),
            UrlSteps::in_memory(),
        ),
    };
    let server = builder.url_steps(steps.clone()).build()?;

    let payment_pages = axum::Router::new()
        .route("/pay/{id}", axum::routing::get(payment_page).post(paid))
        .with_state(steps);
    let app = HttpTransport::new(server)
        .into_router()
        .merge(payment_pages);
    eprintln!("listening on http://{address}/mcp");
    axum::serve(listener, app).await?;
    Ok(())
}

//! The server the official Python and TypeScript SDK clients drive in the
//! interoperability tests (`tests/interop/`): the 2026-07-28 clients
//! (`python/`, `typescript/`) and the 2025-era ones, which open with
//! `initialize` and keep a session (`python-v1/`, `typescript-v1/`).
//!
//! ```text
//! interop-server --listen 127.0.0.1:PORT
//! interop-server --stdio
//! ```
//!
//! It serves:
//! - the `add` tool, which answers at once with the sum of two integers
//!   (the text `5` for 2 and 3);
//! - the `book_table` tool, which asks, in two rounds, how many guests are
//!   coming (a number from 1 to 12) and then which sitting they want (a
//!   choice), carrying the first answer to the second round in its signed
//!   state, and answers "Booked RESTAURANT for N, SITTING sitting." (or
//!   "No table booked." when the user declines);
//! - the `haiku` prompt, which asks for a topic, then returns a message about
//!   it;
//! - the `checkout` tool, which sends the user to a payment page through a
//!   URL step the server tracks (`https://pay.example.com/checkout/ID`).
//!   The page does not exist: the payment provider's callback is played by
//!   the server itself, which marks the step complete 300 ms after asking.
//!   Once the user has accepted, the tool waits (at most 10 s) for the
//!   step and answers "Paid N EUR." (or "No payment taken." when the user
//!   declines). A 2025-era client hears `notifications/elicitation/complete`
//!   for the request when the step completes.
//!
//! The two that ask are written once, as `input_required` handlers: a
//! 2026-07-28 client answers their input requests and retries, and for a
//! 2025-era client the server asks the questions itself with
//! `elicitation/create` requests over the client's session.
//!
//! Over HTTP it prints `listening on http://127.0.0.1:PORT/mcp` to stderr
//! once it accepts connections. Logs go to stderr (`RUST_LOG` filters them).

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::schema::{GetPromptResult, PromptMessage};
use mcp_runtime::server::url_steps::UrlSteps;
use mcp_runtime::state::RequestStateSigner;
use mcp_runtime::transport::{http::HttpTransport, stdio};
use serde::{Deserialize, Serialize};

const USAGE: &str = "usage: interop-server (--listen ADDR | --stdio)";

/// The arguments of `add`.
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

/// Adds two integers and answers with the text of their sum.
#[tool]
async fn add(args: AddArgs) -> Result<String, ToolError> {
    args.a
        .checked_add(args.b)
        .map(|sum| sum.to_string())
        .ok_or_else(|| ToolError::new("The sum does not fit in a 64-bit integer."))
}

/// The arguments of `book_table`.
#[derive(Deserialize, JsonSchema)]
struct BookTableArgs {
    /// The restaurant to book.
    restaurant: String,
}

/// Round one of `book_table`.
#[derive(ElicitForm)]
struct PartyForm {
    /// How many guests?
    #[elicit(minimum = 1, maximum = 12)]
    guests: i64,
}

/// The sittings a table can be booked for.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ElicitChoice)]
#[serde(rename_all = "lowercase")]
enum Sitting {
    Early,
    Late,
}

/// Round two of `book_table`.
#[derive(ElicitForm)]
struct SittingForm {
    /// Which sitting?
    sitting: Sitting,
}

/// Where a booking stands between rounds.
#[derive(Serialize, Deserialize)]
enum Booking {
    AskedGuests,
    AskedSitting { guests: i64 },
}

fn ask_guests() -> Reply<Booking> {
    Reply::ask("guests", PartyForm::form("How many guests are coming?"))
        .resume(Booking::AskedGuests)
}

fn ask_sitting(guests: i64) -> Reply<Booking> {
    Reply::ask(
        "sitting",
        SittingForm::form(format!("A table for {guests}: which sitting?")),
    )
    .resume(Booking::AskedSitting { guests })
}

/// Books a table, asking how many guests are coming and for which sitting.
#[tool]
async fn book_table(args: BookTableArgs, ctx: Ctx, step: Resume<Booking>) -> Reply<Booking> {
    match step.into_inner() {
        None => ask_guests(),
        Some(Booking::AskedGuests) => match ctx.answer::<PartyForm>("guests") {
            Answer::Accept(PartyForm { guests }) => ask_sitting(guests),
            Answer::Decline | Answer::Cancel => Reply::text("No table booked."),
            Answer::Missing | Answer::Invalid(_) => ask_guests(),
        },
        Some(Booking::AskedSitting { guests }) => match ctx.answer::<SittingForm>("sitting") {
            Answer::Accept(SittingForm { sitting }) => Reply::text(format!(
                "Booked {} for {guests}, {} sitting.",
                args.restaurant,
                format!("{sitting:?}").to_lowercase()
            )),
            Answer::Decline | Answer::Cancel => Reply::text("No table booked."),
            Answer::Missing | Answer::Invalid(_) => ask_sitting(guests),
        },
    }
}

/// Asks for a haiku's topic.
#[derive(ElicitForm)]
struct TopicForm {
    /// The haiku's topic.
    #[elicit(min_length = 1)]
    topic: String,
}

/// A request for a haiku, on a topic the user is asked for.
#[prompt]
async fn haiku(ctx: Ctx) -> Reply<(), GetPromptResult> {
    match ctx.answer::<TopicForm>("topic") {
        Answer::Accept(TopicForm { topic }) => {
            Reply::done(GetPromptResult::new(vec![PromptMessage::user(format!(
                "Write a haiku about {topic}."
            ))]))
        }
        Answer::Decline | Answer::Cancel => {
            Reply::done(GetPromptResult::new(vec![PromptMessage::user(
                "Write a haiku about silence.",
            )]))
        }
        Answer::Missing | Answer::Invalid(_) => {
            Reply::ask("topic", TopicForm::form("What should the haiku be about?"))
        }
    }
}

/// The arguments of `checkout`.
#[derive(Deserialize, JsonSchema)]
struct CheckoutArgs {
    /// The amount to pay, in euros.
    euros: u32,
}

/// Where a checkout stands between rounds: its payment's step.
#[derive(Serialize, Deserialize)]
struct Paying {
    step: UrlStep,
}

/// How long the simulated payment provider takes to call back.
const PAYMENT_CALLBACK_DELAY: Duration = Duration::from_millis(300);

/// Takes a payment on a payment page, and answers once it went through.
#[tool]
async fn checkout(
    args: CheckoutArgs,
    ctx: Ctx,
    paying: Resume<Paying>,
) -> Result<Reply<Paying>, ToolError> {
    let unavailable = |why: String| ToolError::new(format!("Payments are unavailable: {why}"));
    let Some(Paying { step }) = paying.into_inner() else {
        let step = ctx
            .open_url_step()
            .await
            .map_err(|e| unavailable(e.to_string()))?;
        let steps = ctx.shared::<UrlSteps>();
        let (id, payer) = (step.id().to_owned(), ctx.receive().subject().to_owned());
        // The payment provider's callback, played by the server.
        tokio::spawn(async move {
            tokio::time::sleep(PAYMENT_CALLBACK_DELAY).await;
            if let Some(steps) = steps
                && let Err(error) = steps.complete(&id, &payer).await
            {
                tracing::warn!("the simulated payment callback failed: {error}");
            }
        });
        let url = format!("https://pay.example.com/checkout/{}", step.id());
        let message = format!("Pay {} EUR on the payment page.", args.euros);
        return Ok(Reply::ask("payment", step.request(message, url)).resume(Paying { step }));
    };
    match ctx.url_step_answer("payment", &step).await {
        UrlAnswer::Completed => {}
        UrlAnswer::Pending => match ctx.wait_url_step(&step, Duration::from_secs(10)).await {
            UrlAnswer::Completed => {}
            other => {
                return Err(unavailable(format!(
                    "the payment did not arrive ({other:?})"
                )));
            }
        },
        UrlAnswer::Declined | UrlAnswer::Cancelled | UrlAnswer::Missing => {
            return Ok(Reply::text("No payment taken."));
        }
        other => return Err(unavailable(format!("{other:?}"))),
    }
    Ok(Reply::text(format!("Paid {} EUR.", args.euros)))
}

fn server() -> Result<Server, Box<dyn std::error::Error>> {
    let steps = UrlSteps::in_memory();
    Ok(Server::builder("interop-server", env!("CARGO_PKG_VERSION"))
        .tool(add {})
        .tool(book_table {})
        .tool(checkout {})
        .prompt(haiku {})
        .request_state_signer(RequestStateSigner::generate()?)
        .url_steps(steps.clone())
        .share(steps)
        .build()?)
}

async fn run(mode: &str, listen: Option<String>) -> Result<(), Box<dyn std::error::Error>> {
    let server = server()?;
    match (mode, listen) {
        ("--stdio", None) => Ok(stdio::serve(server).await?),
        ("--listen", Some(address)) => {
            let bound = HttpTransport::new(server).bind(address.as_str()).await?;
            eprintln!("listening on {}", bound.url());
            Ok(bound.serve().await?)
        }
        _ => Err(USAGE.into()),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let mut args = std::env::args().skip(1);
    let (Some(mode), listen, None) = (args.next(), args.next(), args.next()) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match run(&mode, listen).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("interop-server: {error}");
            ExitCode::from(2)
        }
    }
}

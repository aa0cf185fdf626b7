//! A server written as an `impl` block, whose tool, prompt and resource
//! each ask the user for input, driven by our Rust client.
//!
//! The refund desk is one value, `Desk`, whose ledger (a `Mutex`) every
//! handler shares: `#[handlers]` on `impl Desk` makes its `#[tool]`,
//! `#[prompt]` and `#[resource]` methods the server's handlers.
//!
//! - the `refund` tool asks in two rounds: the reason and the amount (a
//!   form, asked again naming the field when an answer breaks its rules),
//!   then a confirmation. The typed resume state (`Step`) carries what
//!   round one learnt, since the client resends only the newest answers.
//! - the `apology` prompt asks for its `order` argument when it is left out.
//! - the `desk://ledger` resource sends the user to a sign-in page first
//!   (URL mode, answered with a `UrlConsent`), then checks its own records
//!   that the sign-in happened.
//!
//! A scripted client, in the same process but over real HTTP on
//! 127.0.0.1, plays the user with a per-call handler (`answering`), and
//! prints every question and answer as it travels.
//!
//! ```text
//! cargo run --example refund_desk
//! ```

use std::collections::HashMap;
use std::future::ready;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use mcp_runtime::client::{Asked, Client, InputResponse};
use mcp_runtime::prelude::*;
use mcp_runtime::schema::GetPromptResult;
use mcp_runtime::state::RequestStateSigner;
use mcp_runtime::transport::http::HttpTransport;
use serde::{Deserialize, Serialize};

// --- The server ---------------------------------------------------------------

/// One refund paid.
struct Refund {
    order: String,
    reason: Reason,
    euros: u32,
}

/// The desk: its ledger and the sign-ins of its web page, shared by every
/// handler and every request.
#[derive(Default)]
struct Desk {
    ledger: Mutex<Vec<Refund>>,
    /// Sign-in attempts, by id: whether the user finished signing in.
    sign_ins: Mutex<HashMap<u64, bool>>,
    next_sign_in: AtomicU64,
}

/// Why a customer wants their money back: a single-select field.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ElicitChoice)]
#[serde(rename_all = "snake_case")]
enum Reason {
    #[elicit(title = "Arrived damaged")]
    Damaged,
    #[elicit(title = "Arrived late")]
    Late,
    #[elicit(title = "Not what was ordered")]
    WrongItem,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct RefundArgs {
    /// The order to refund, e.g. `A-1001`.
    order: String,
}

/// Round one of `refund`.
#[derive(ElicitForm, Serialize)]
struct Details {
    /// Why the customer wants a refund.
    #[elicit(title = "Reason")]
    reason: Reason,
    /// How much to refund, in whole euros.
    #[elicit(title = "Amount (EUR)", minimum = 1, maximum = 500)]
    euros: u32,
}

/// Round two of `refund`.
#[derive(ElicitForm, Serialize)]
struct Confirm {
    /// Pay the refund?
    ok: bool,
}

/// Where a `refund` call stands between rounds. It travels in
/// `requestState`, signed and bound to this caller, tool and arguments.
#[derive(Serialize, Deserialize)]
enum Step {
    AskedDetails,
    /// What round one learnt: the client will not send it again.
    AskedConfirmation {
        reason: Reason,
        euros: u32,
    },
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct ApologyArgs {
    /// The refunded order; asked for when left out.
    order: Option<String>,
}

/// What `apology` asks when its argument is missing.
#[derive(ElicitForm, Serialize)]
struct WhichOrder {
    /// The order number, e.g. A-1001.
    #[elicit(title = "Order", min_length = 1, max_length = 20)]
    order: String,
}

/// Where a read of the ledger stands: the sign-in it sent the user to.
#[derive(Serialize, Deserialize)]
enum Audit {
    SigningIn { attempt: u64 },
}

const DETAILS: &str = "Why, and how much?";
const WHICH_ORDER: &str = "Which order is the apology for?";

#[handlers]
impl Desk {
    /// Refunds an order: asks why and how much, then for a confirmation.
    #[tool(destructive)]
    async fn refund(
        &self,
        args: RefundArgs,
        ctx: Ctx,
        step: Resume<Step>,
    ) -> Result<Reply<Step>, ToolError> {
        if self.refund_of(&args.order).is_some() {
            return Err(ToolError::new(format!(
                "Order {} was refunded already.",
                args.order
            )));
        }
        let ask_details = |request| Reply::ask("details", request).resume(Step::AskedDetails);
        let ask_confirmation = |reason: Reason, euros: u32| {
            let question = format!("Refund {euros} EUR for order {}?", args.order);
            Reply::ask("confirm", Confirm::form(question))
                .resume(Step::AskedConfirmation { reason, euros })
        };
        match step.into_inner() {
            // A first call: nothing is known yet.
            None => Ok(ask_details(Details::form(DETAILS))),
            Some(Step::AskedDetails) => Ok(match ctx.answer::<Details>("details") {
                Answer::Accept(Details { reason, euros }) => ask_confirmation(reason, euros),
                Answer::Decline | Answer::Cancel => Reply::text("No refund."),
                Answer::Missing => ask_details(Details::form(DETAILS)),
                // "Amount (EUR): must be at most 500, got 900. Why, and how much?"
                Answer::Invalid(error) => ask_details(Details::form_again(&error, DETAILS)),
            }),
            Some(Step::AskedConfirmation { reason, euros }) => {
                match ctx.answer::<Confirm>("confirm") {
                    // The side effect comes after the last question.
                    Answer::Accept(Confirm { ok: true }) => self.pay(args.order, reason, euros),
                    Answer::Accept(_) | Answer::Decline | Answer::Cancel => {
                        Ok(Reply::text("No refund."))
                    }
                    Answer::Missing | Answer::Invalid(_) => Ok(ask_confirmation(reason, euros)),
                }
            }
        }
    }

    /// An apology to the customer of a refunded order.
    #[prompt]
    async fn apology(
        &self,
        args: ApologyArgs,
        ctx: Ctx,
    ) -> Result<Reply<(), GetPromptResult>, PromptError> {
        // The missing argument, asked for. The answer carries it, so there
        // is no state to resume from.
        let order = match args.order {
            Some(order) => order,
            None => match ctx.answer::<WhichOrder>("order") {
                Answer::Accept(WhichOrder { order }) => order,
                Answer::Decline | Answer::Cancel => {
                    return Err(PromptError::new("No order, no apology."));
                }
                Answer::Missing => return Ok(Reply::ask("order", WhichOrder::form(WHICH_ORDER))),
                Answer::Invalid(error) => {
                    return Ok(Reply::ask(
                        "order",
                        WhichOrder::form_again(&error, WHICH_ORDER),
                    ));
                }
            },
        };
        let Some((reason, euros)) = self.refund_of(&order) else {
            // A refusal: the client gets -32602 with this message.
            return Err(PromptError::new(format!("Order {order} was not refunded.")));
        };
        Ok(Reply::user(format!(
            "Write a short apology to the customer of order {order}, whose parcel {}. \
             Tell them {euros} EUR are on their way back.",
            reason.describe()
        )))
    }

    /// The refund ledger, for auditors who signed in on the desk's web page.
    #[resource(uri = "desk://ledger", mime_type = "text/plain")]
    async fn ledger(
        &self,
        ctx: Ctx,
        step: Resume<Audit>,
    ) -> Result<Reply<Audit, ResourceBody>, ResourceError> {
        let sign_in = |attempt: u64| {
            let url = format!("https://desk.example.com/audit/sign-in?attempt={attempt}");
            Reply::ask(
                "sign_in",
                UrlConsent::request("Sign in as an auditor to read the ledger.", url),
            )
            .resume(Audit::SigningIn { attempt })
        };
        let Some(Audit::SigningIn { attempt }) = step.into_inner() else {
            return Ok(sign_in(self.start_sign_in()));
        };
        match ctx.answer::<UrlConsent>("sign_in") {
            // Accept is the user's consent to open the page, not proof that
            // they signed in there: the desk's own records say that.
            Answer::Accept(UrlConsent) if self.signed_in(attempt) => {
                Ok(Reply::resource_text(self.statement()))
            }
            Answer::Accept(UrlConsent) => Err(ResourceError::new("The sign-in did not finish.")),
            Answer::Decline | Answer::Cancel => Err(ResourceError::new(
                "The ledger is for signed-in auditors only.",
            )),
            Answer::Missing | Answer::Invalid(_) => Ok(sign_in(attempt)),
        }
    }
}

/// The desk's own methods: not handlers.
impl Desk {
    fn entries(&self) -> MutexGuard<'_, Vec<Refund>> {
        self.ledger.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn attempts(&self) -> MutexGuard<'_, HashMap<u64, bool>> {
        self.sign_ins.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn refund_of(&self, order: &str) -> Option<(Reason, u32)> {
        let ledger = self.entries();
        let refund = ledger.iter().find(|refund| refund.order == order)?;
        Some((refund.reason, refund.euros))
    }

    /// Pays a refund, unless a call that raced this one paid it first.
    fn pay(&self, order: String, reason: Reason, euros: u32) -> Result<Reply<Step>, ToolError> {
        let mut ledger = self.entries();
        if ledger.iter().any(|refund| refund.order == order) {
            return Err(ToolError::new(format!(
                "Order {order} was refunded already."
            )));
        }
        ledger.push(Refund {
            order: order.clone(),
            reason,
            euros,
        });
        let total: u32 = ledger.iter().map(|refund| refund.euros).sum();
        Ok(Reply::text(format!(
            "Refunded {euros} EUR for order {order} ({total} EUR refunded in all)."
        )))
    }

    fn statement(&self) -> String {
        self.entries()
            .iter()
            .map(|r| format!("{}  {} EUR  {}\n", r.order, r.euros, r.reason.describe()))
            .collect()
    }

    /// A new sign-in attempt. A real desk would draw a random id; the
    /// state that carries it is signed, so the client cannot swap it.
    fn start_sign_in(&self) -> u64 {
        let attempt = self.next_sign_in.fetch_add(1, Ordering::Relaxed) + 1;
        self.attempts().insert(attempt, false);
        attempt
    }

    fn signed_in(&self, attempt: u64) -> bool {
        self.attempts().get(&attempt).copied().unwrap_or(false)
    }

    /// What the desk's sign-in web page does once the user has signed in
    /// there (outside MCP: the page the URL points at).
    fn finish_sign_in(&self, attempt: u64) {
        if let Some(done) = self.attempts().get_mut(&attempt) {
            *done = true;
        }
    }
}

impl Reason {
    fn describe(self) -> &'static str {
        match self {
            Self::Damaged => "arrived damaged",
            Self::Late => "arrived late",
            Self::WrongItem => "was not what they ordered",
        }
    }
}

// --- The scripted user --------------------------------------------------------

/// One line of JSON.
fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("<{e}>"))
}

/// Prints a question the server asked.
fn asks(asked: &Asked) {
    println!(
        "   server asks    {:?}: {}",
        asked.key,
        json(&asked.request)
    );
}

/// Prints the answer the user gives, and gives it.
fn answers(asked: &Asked, response: InputResponse) -> std::future::Ready<InputResponse> {
    if let InputResponse::Elicit(result) = &response {
        println!("   client answers {:?}: {}", asked.key, json(result));
    }
    ready(response)
}

/// The value of `name=` in `url`'s query.
fn query_value(url: &str, name: &str) -> Option<u64> {
    let query = url.split_once('?')?.1;
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))?
        .parse()
        .ok()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The reason a state is refused goes to the server's log.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();

    // The desk is shared with the "web page" below, so it goes in an Arc.
    let desk = Arc::new(Desk::default());
    let server = Server::builder("refund-desk", "1.0.0")
        .handlers_shared(Arc::clone(&desk))
        .request_state_signer(RequestStateSigner::generate()?)
        .build()?;
    let bound = HttpTransport::new(server).bind("127.0.0.1:0").await?;
    let url = bound.url();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(bound.serve_until(async {
        let _ = stopped.await;
    }));
    // `connect` talks to the server (server/discover): it must be serving.
    let client = Client::http(url).connect().await?;

    println!("== 1. A refund in two rounds: the details, then a confirmation.");
    let args = RefundArgs {
        order: "A-1001".into(),
    };
    println!("client -> tools/call refund {}", json(&args));
    let result = client
        .call_tool_with("refund", &args)
        .answering(|asked| {
            asks(&asked);
            let answer = if asked.is_form_of::<Details>() {
                InputResponse::form(&Details {
                    reason: Reason::Damaged,
                    euros: 40,
                })
            } else if asked.is_form_of::<Confirm>() {
                InputResponse::form(&Confirm { ok: true })
            } else {
                InputResponse::Defer
            };
            answers(&asked, answer)
        })
        .await?;
    println!("server -> {}", json(&result));

    println!("\n== 2. An amount over the limit: the form comes back naming the field.");
    let args = RefundArgs {
        order: "B-2002".into(),
    };
    let tries = AtomicU64::new(0);
    println!("client -> tools/call refund {}", json(&args));
    let result = client
        .call_tool_with("refund", &args)
        .answering(|asked| {
            asks(&asked);
            let answer = if asked.is_form_of::<Details>() {
                // 900 first (the form allows at most 500), then 25.
                let euros = match tries.fetch_add(1, Ordering::Relaxed) {
                    0 => 900,
                    _ => 25,
                };
                InputResponse::form(&Details {
                    reason: Reason::Late,
                    euros,
                })
            } else if asked.is_form_of::<Confirm>() {
                InputResponse::form(&Confirm { ok: true })
            } else {
                InputResponse::Defer
            };
            answers(&asked, answer)
        })
        .await?;
    println!("server -> {}", json(&result));

    println!(
        "\n== 3. The same order again: the tool fails, without asking (the ledger is shared)."
    );
    let args = RefundArgs {
        order: "A-1001".into(),
    };
    println!("client -> tools/call refund {}", json(&args));
    let result = client.call_tool_with("refund", &args).await?;
    println!("server -> {}", json(&result));

    println!("\n== 4. A prompt without its argument asks for it.");
    println!("client -> prompts/get apology {{}}");
    let prompt = client
        .prompt_get("apology")
        .answering(|asked| {
            asks(&asked);
            let answer = if asked.is_form_of::<WhichOrder>() {
                InputResponse::form(&WhichOrder {
                    order: "A-1001".into(),
                })
            } else {
                InputResponse::Defer
            };
            answers(&asked, answer)
        })
        .await?;
    println!("server -> {}", json(&prompt));

    println!("\n== 5. The ledger: the user is sent to a sign-in page first (URL mode).");
    println!("client -> resources/read desk://ledger");
    let ledger = client
        .resource_read("desk://ledger")
        .answering(|asked| {
            asks(&asked);
            let answer = match asked.url() {
                Some(request) => {
                    println!("   (the user opens {} and signs in)", request.url);
                    if let Some(attempt) = query_value(&request.url, "attempt") {
                        desk.finish_sign_in(attempt);
                    }
                    InputResponse::accept()
                }
                None => InputResponse::Defer,
            };
            answers(&asked, answer)
        })
        .await?;
    println!("server -> {}", json(&ledger));

    println!("\n== 6. The user declines to sign in: the read is refused with an error.");
    println!("client -> resources/read desk://ledger");
    let refused = client
        .resource_read("desk://ledger")
        .answering(|asked| {
            asks(&asked);
            answers(&asked, InputResponse::decline())
        })
        .await;
    match refused {
        Ok(ledger) => println!("server -> {}", json(&ledger)),
        Err(error) => println!("server -> {error}"),
    }

    let _ = stop.send(());
    serving.await??;
    Ok(())
}

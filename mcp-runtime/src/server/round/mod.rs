//! A handler run round by round: the state gate before the first run, the
//! handler, and what it returned finished. A complete result, or an ask to
//! a 2026-07-28 client (its `InputRequiredResult`, `input_required.rs`),
//! ends the request. An ask to a 2025-era client is asked on its session
//! (the `legacy` room) and the handler runs again in process with the
//! answers and the state it returned, which never leaves the server: no
//! token is signed for it and no replay guard is asked about it.
//!
//! It uses `gate`, `handler` and `legacy`; the rooms that serve methods
//! (`methods`, `tasks`) run their handlers through [`rounds`].

mod finish;
mod input_required;

pub(crate) use finish::{Finisher, ResultMeta, Shape, serialise};
pub(crate) use input_required::finish_outcome;

use std::sync::Arc;

use crate::BoxFuture;
use crate::budget::Memory;
use crate::logged::Wire;
use crate::schema::McpError;
use crate::server::gate::{self, Checked, NextState, Opened, StateGate};
use crate::server::handler::{Ask, Catalog, Ctx, Outcome, RequestData, RoundAnswers, settle};
use crate::server::legacy::{self, Bridge, Bridged};

/// What every room that runs handlers reads of a built server: its
/// handlers, its state gate, how it finishes results and how it bridges a
/// 2025-era client's rounds. Shared, immutable after `build()`.
pub(crate) struct Core {
    /// The handlers.
    pub(crate) catalog: Catalog,
    /// The request state's settings.
    pub(crate) gate: StateGate,
    /// How results are finished.
    pub(crate) finisher: Finisher,
    /// How a 2025-era client's rounds are bridged.
    pub(crate) bridge: Bridge,
    /// What peers may make the server keep, and the budget for it.
    pub(crate) memory: Memory,
}

/// Runs a handler that may ask for input, round by round (see the module
/// docs), for the request whose data is `data`, whose state the gate
/// checked (`checked`).
pub(crate) async fn rounds<R: ResultMeta + Bridged + Send + 'static>(
    core: &Arc<Core>,
    checked: Checked<'_>,
    mut data: Box<RequestData>,
    mut run: impl FnMut(Ctx) -> BoxFuture<'static, Result<Outcome<R>, McpError>> + Send + 'static,
) -> Result<String, McpError> {
    if consumes_its_state(&core.gate, &data) {
        return detached_round(Arc::clone(core), checked.into_owned(), data, run).await;
    }
    let answers = data.answers().map(RoundAnswers::tree);
    let target = checked.target().to_owned();
    let opened = core.gate.open_round(checked, answers).await?;
    let mut ticket = match opened {
        Opened::Run(verified, ticket) => {
            data.pass(verified);
            ticket
        }
        Opened::Replayed(answer) => return answer,
    };
    let mut round = 0;
    loop {
        let (ctx, request) = Ctx::shared_with(data);
        let ask = match settle(run(ctx).await, &request) {
            Ok(Outcome::InputRequired(ask)) if request.is_legacy() => {
                // The bridge asks the client itself: no answer goes out to
                // repeat for a duplicate.
                if let Some(ticket) = ticket.take() {
                    ticket.record(None).await;
                }
                ask
            }
            outcome => {
                let answer =
                    outcome.and_then(|outcome| finish_outcome(&core.finisher, outcome, &request));
                if let Some(ticket) = ticket.take() {
                    ticket.record(Some(&answer)).await;
                }
                return answer;
            }
        };
        round += 1;
        data = match next_round(core, ask, &request, round).await {
            Ok(next) => Box::new(next),
            Err(Stop::Fault(error)) => return Err(error),
            Err(Stop::Stuck(why)) => {
                tracing::info!(
                    method = %request.method(),
                    target = %Wire(&target),
                    why = %Wire(&why),
                    "a 2025-era request needing input could not be bridged"
                );
                return core.finisher.result(Shape::Legacy, R::stuck(why)?);
            }
        };
    }
}

/// A handler's input (its arguments) for each run of [`rounds`]: moved
/// whole into the one run of a 2026-07-28 request, whose retry is a new
/// request; copied for each run of a 2025-era one, which the bridge runs
/// again with the client's answers.
pub(crate) struct RunInput<T> {
    kept: Option<T>,
    runs_again: bool,
}

impl<T: Clone + Default> RunInput<T> {
    /// The input of a request; `legacy` when it comes from a 2025-era
    /// client (then it may run more than once).
    pub(crate) fn new(input: T, legacy: bool) -> Self {
        Self {
            kept: Some(input),
            runs_again: legacy,
        }
    }

    /// The input for the next run.
    pub(crate) fn next(&mut self) -> T {
        match self.runs_again {
            true => self.kept.clone(),
            false => self.kept.take(),
        }
        .unwrap_or_default()
    }
}

/// Why the bridge stopped.
enum Stop {
    /// The handler is at fault: answered with the error as usual.
    Fault(McpError),
    /// The bridge cannot go on: the request ends saying why ([`Bridged::stuck`]).
    Stuck(String),
}

/// The `round`-th bridged round of the 2025-era request whose data is
/// `request`, after its handler asked `ask`: the questions asked on its
/// session, and the data of the handler's next run, with the client's
/// answers and the state the handler returned, carried in process.
async fn next_round(
    core: &Core,
    ask: Ask,
    request: &RequestData,
    round: usize,
) -> Result<RequestData, Stop> {
    let session = legacy::admit(core.bridge, request.session(), round).map_err(Stop::Stuck)?;
    let Ask {
        requests, state, ..
    } = ask;
    if requests.is_none() && state == NextState::None {
        return Err(Stop::Fault(McpError::internal(
            "a handler returned an input_required result with neither inputRequests nor requestState",
        )));
    }
    let (verified, raw) = gate::carry(request.verified(), state).map_err(Stop::Fault)?;
    let requests = requests.unwrap_or_default();
    crate::form::check_forms(&requests).map_err(Stop::Fault)?;
    let channel = legacy::Channel {
        session,
        out: request.notifier(),
        url_steps: request
            .url_steps()
            .map(|steps| (steps, request.receive().subject())),
    };
    let answers = legacy::ask_round(core.bridge, channel, &requests)
        .await
        .map_err(Stop::Stuck)?;
    Ok(request.next_round(RoundAnswers::from_sent(answers), verified, raw))
}

/// Whether this round may consume its state with its answer recorded: a
/// 2026-07-28 retry carrying a state, to a server with single use and the
/// outcome record on.
fn consumes_its_state(gate: &StateGate, data: &RequestData) -> bool {
    gate.records_outcomes() && data.request_state().is_some() && !data.is_legacy()
}

/// Runs a round that may consume its state on a task of its own, from the
/// claim to the recorded answer: once the state is claimed, the round runs
/// to its end and its answer is kept even if the client leaves, so a
/// client that retries after losing it gets it again and the handler runs
/// once. `-32603` when the task failed (a panic, logged).
async fn detached_round<R: ResultMeta + Send + 'static>(
    core: Arc<Core>,
    checked: Checked<'static>,
    mut data: Box<RequestData>,
    mut run: impl FnMut(Ctx) -> BoxFuture<'static, Result<Outcome<R>, McpError>> + Send + 'static,
) -> Result<String, McpError> {
    let round = async move {
        let answers = data.answers().map(RoundAnswers::tree);
        let opened = core.gate.open_round(checked, answers).await?;
        let ticket = match opened {
            Opened::Run(verified, ticket) => {
                data.pass(verified);
                ticket
            }
            Opened::Replayed(answer) => return answer,
        };
        let (ctx, request) = Ctx::shared_with(data);
        let answer = settle(run(ctx).await, &request)
            .and_then(|outcome| finish_outcome(&core.finisher, outcome, &request));
        if let Some(ticket) = ticket {
            ticket.record(Some(&answer)).await;
        }
        answer
    };
    // Outside a Tokio runtime (an embedder's own executor), inline.
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return round.await;
    };
    runtime.spawn(round).await.unwrap_or_else(|error| {
        Err(McpError::internal(format!(
            "a round that may consume its requestState failed: {error}"
        )))
    })
}

/// One request on its way to the function that serves its method.
pub(crate) struct Call {
    /// The request's params, `_meta` included, the round-trip members not
    /// (nor, for `tools/call`, the arguments).
    pub(crate) params: crate::schema::JsonObject,
    /// A `tools/call`'s `arguments`, as sent.
    pub(crate) arguments: Option<Box<serde_json::value::RawValue>>,
    /// What a retry carries (`inputResponses`, `requestState`), kept apart.
    pub(crate) round_trip: crate::server::handler::RoundTrip,
    /// Everything else known about the request; it becomes the handler's
    /// [`Ctx`].
    pub(crate) data: Box<RequestData>,
}

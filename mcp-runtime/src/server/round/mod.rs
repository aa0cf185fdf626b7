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

use futures_util::future::Either;

use crate::BoxFuture;
use crate::budget::Memory;
use crate::logged::Wire;
use crate::schema::McpError;
use crate::server::gate::{self, Checked, NextState, Opened, Opening, StateGate, Ticket};
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
///
/// A function that returns its future rather than an `async fn`: the
/// state is opened before the future is made, and the future holds what
/// it needs once (an `async fn` keeps its arguments beside its locals), so
/// a plain call's future, boxed by the method table, stays small. The
/// rare waits (the replay guard's claim, the outcome record, the 2025-era
/// bridge) are boxed where they start.
pub(crate) fn rounds<'a, R, F>(
    core: &'a Arc<Core>,
    checked: Checked<'a>,
    mut data: Arc<RequestData>,
    mut run: F,
) -> impl Future<Output = Result<String, McpError>> + Send + 'a
where
    R: ResultMeta + Bridged + Send + 'static,
    F: FnMut(Ctx) -> BoxFuture<'static, Result<Outcome<R>, McpError>> + Send + 'static,
{
    if consumes_its_state(&core.gate, &data) {
        return Either::Left(round_to_its_end(
            Arc::clone(core),
            checked.into_owned(),
            data,
            run,
        ));
    }
    // Named in the log of a 2025-era round the bridge cannot go on with.
    let target = data.is_legacy().then(|| checked.target().to_owned());
    let opening = core
        .gate
        .open_round(checked, data.answers().map(RoundAnswers::json));
    Either::Right(async move {
        let mut ticket = match pass(opening, &mut data).await {
            Ok(ticket) => ticket,
            Err(replayed) => return replayed,
        };
        let mut round = 0;
        loop {
            let (ctx, request) = Ctx::shared_with(data);
            let ask = match settle(run(ctx).await, &request) {
                Ok(Outcome::InputRequired(ask)) if request.is_legacy() => {
                    // The bridge asks the client itself: no answer goes out
                    // to repeat for a duplicate.
                    if let Some(ticket) = ticket.take() {
                        Box::pin(ticket.record(None)).await;
                    }
                    ask
                }
                outcome => {
                    let answer = outcome
                        .and_then(|outcome| finish_outcome(&core.finisher, outcome, &request));
                    if let Some(ticket) = ticket.take() {
                        Box::pin(ticket.record(Some(&answer))).await;
                    }
                    return answer;
                }
            };
            round += 1;
            // Boxed: a 2026-07-28 request's future does not carry the bridge's.
            data = match Box::pin(next_round(core, ask, &request, round)).await {
                Ok(next) => Arc::new(next),
                Err(Stop::Fault(error)) => return Err(error),
                Err(Stop::Stuck(why)) => {
                    tracing::info!(
                        method = %request.method(),
                        target = %Wire(target.as_deref().unwrap_or_default()),
                        why = %Wire(&why),
                        "a 2025-era request needing input could not be bridged"
                    );
                    return core.finisher.result(Shape::Legacy, R::stuck(why)?);
                }
            };
        }
    })
}

/// Waits for a round's claim, if it has one, and passes the state it
/// opened to the handler's `data`: the ticket its answer is recorded
/// through, if any; or, for a duplicate of a round already run or a claim
/// that failed, the answer to give (`Err`).
#[allow(clippy::type_complexity)]
async fn pass<'t>(
    opening: Opening<'_, 't>,
    data: &mut Arc<RequestData>,
) -> Result<Option<Box<Ticket<'t>>>, Result<String, McpError>> {
    let opened = match opening {
        Opening::Now(opened) => opened,
        Opening::Claim(claim) => claim.await.map_err(Err)?,
    };
    match opened {
        Opened::Run(verified, ticket) => {
            Arc::make_mut(data).pass(verified);
            Ok(ticket)
        }
        Opened::Replayed(answer) => Err(answer),
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

/// Runs a round that may consume its state from the claim to the recorded
/// answer, to its end even if the client leaves: its answer is kept, so a
/// client that retries after losing it gets it again and the handler runs
/// once. It runs in the request's own task; if the request is dropped
/// before the round ends, the rest of the round moves to a task of its own
/// ([`RunsToEnd`]).
fn round_to_its_end<R: ResultMeta + Send + 'static>(
    core: Arc<Core>,
    checked: Checked<'static>,
    mut data: Arc<RequestData>,
    mut run: impl FnMut(Ctx) -> BoxFuture<'static, Result<Outcome<R>, McpError>> + Send + 'static,
) -> RunsToEnd<impl Future<Output = Result<String, McpError>> + Send + 'static> {
    RunsToEnd::new(async move {
        let opening = core
            .gate
            .open_round(checked, data.answers().map(RoundAnswers::json));
        let ticket = match pass(opening, &mut data).await {
            Ok(ticket) => ticket,
            Err(replayed) => return replayed,
        };
        let (ctx, request) = Ctx::shared_with(data);
        let answer = settle(run(ctx).await, &request)
            .and_then(|outcome| finish_outcome(&core.finisher, outcome, &request));
        if let Some(ticket) = ticket {
            ticket.record(Some(&answer)).await;
        }
        answer
    })
}

/// A future that is finished even if it is dropped first: dropped before
/// its end, the rest of it runs on a task of its own (on the Tokio runtime
/// it was made on; outside one, or while a panic unwinds, it is dropped,
/// and a claimed round's ticket records that there is no answer). A round
/// thus costs no task of its own unless its request is dropped.
struct RunsToEnd<F: Future + Send + 'static> {
    future: Option<std::pin::Pin<Box<F>>>,
    runtime: Option<tokio::runtime::Handle>,
}

impl<F: Future + Send + 'static> RunsToEnd<F> {
    fn new(future: F) -> Self {
        Self {
            future: Some(Box::pin(future)),
            runtime: tokio::runtime::Handle::try_current().ok(),
        }
    }
}

impl<F: Future + Send + 'static> Future for RunsToEnd<F> {
    type Output = F::Output;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let Some(future) = self.future.as_mut() else {
            return std::task::Poll::Pending;
        };
        let polled = future.as_mut().poll(cx);
        if polled.is_ready() {
            self.future = None;
        }
        polled
    }
}

impl<F: Future + Send + 'static> Drop for RunsToEnd<F> {
    fn drop(&mut self) {
        // Dropped while a poll of it panics: it cannot be resumed, and is
        // dropped (the panic becomes the request's `-32603`).
        if std::thread::panicking() {
            return;
        }
        if let (Some(future), Some(runtime)) = (self.future.take(), &self.runtime) {
            runtime.spawn(async move {
                let _ = future.await;
            });
        }
    }
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
    pub(crate) data: Arc<RequestData>,
}

#[cfg(test)]
mod tests {
    use super::RunsToEnd;
    use std::time::Duration;
    use tokio::sync::oneshot;

    #[tokio::test]
    async fn a_round_dropped_before_its_end_still_ends() {
        let (go, wait) = oneshot::channel::<()>();
        let (done, ended) = oneshot::channel::<&str>();
        let round = RunsToEnd::new(async move {
            let _ = wait.await;
            let _ = done.send("ended");
        });
        // Polled once (it waits), then dropped, as a request whose client
        // left.
        let polled = tokio::time::timeout(Duration::from_millis(20), round).await;
        assert!(polled.is_err(), "the round should still be waiting");
        go.send(()).unwrap();
        let ended = tokio::time::timeout(Duration::from_secs(10), ended).await;
        assert_eq!(ended.unwrap().unwrap(), "ended");
    }

    #[tokio::test]
    async fn a_round_that_ends_in_place_gives_its_output() {
        assert_eq!(RunsToEnd::new(async { 7 }).await, 7);
    }

    #[tokio::test]
    async fn a_round_whose_poll_panics_is_not_resumed() {
        let round = RunsToEnd::new(async {
            tokio::task::yield_now().await;
            panic!("the handler panicked");
        });
        let caught = tokio::spawn(round).await;
        assert!(caught.unwrap_err().is_panic());
        // Resuming it would panic again on a task of its own, which the
        // runtime reports; give such a task the time to run.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

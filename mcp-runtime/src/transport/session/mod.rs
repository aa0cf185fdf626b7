//! The 2025-era session glue, written once for every transport.
//!
//! A [`Driver`] stands for one peer: a stdio connection, an HTTP session,
//! or one session-less HTTP message. The transport frames a message, parses
//! it, and hands the [`Incoming`] to [`Driver::receive`], which does what
//! the message asks:
//!
//! - a request is admitted within the driver's in-flight bound, if it has
//!   one (waiting for a slot, or refused as [`Busy`] when it would wait
//!   behind questions that await this client's answer), recorded in the
//!   cancel table before anything can run it (or refused when its id is
//!   that of a request still in flight), and handed back as
//!   [`Step::Run`]; [`Admitted::run`] serves it in the peer's session and
//!   pins the session it opens (`initialize`);
//! - `notifications/cancelled` stops the request it names; any other
//!   notification goes to the server with the session;
//! - a response goes to the session's question it answers.
//!
//! [`changes`] is the stream of the list changes and resource updates a
//! session's client asked for: stdio writes it to stdout, HTTP to the
//! session's standalone event stream.
//!
//! The transports keep the bytes: reading and framing, writing responses
//! and event streams, and for HTTP its statuses, its table of sessions by
//! id with their expiry, and resumable streams.

mod admitted;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures_util::Stream;
use futures_util::future::AbortHandle;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::budget::Held;
use crate::logged::Wire;
use crate::schema::{
    CancelledNotificationParams, ErrorObject, JsonObject, McpError, RequestId, codes,
    notification_methods,
};
use crate::server::{Incoming, Request, Response, Server, Session, TransportKind};
pub(crate) use admitted::Admitted;
use admitted::Entry;

/// The 2025-era glue of one peer: its session (once `initialize` opened
/// one), the cancel table of its requests in flight, and, where the
/// transport asks for one, a bound on how many run at once.
///
/// Shared as `Arc<Driver>`: the requests it admitted remove themselves
/// from its table when they finish, however they finish.
pub(crate) struct Driver {
    /// The peer's session.
    session: Mutex<Option<Session>>,
    /// Its requests in flight, for `notifications/cancelled`.
    in_flight: Mutex<InFlight>,
    /// The bound on requests in flight, if any.
    slots: Option<Slots>,
}

/// The cancel table: one entry per admitted request that has not finished.
#[derive(Default)]
struct InFlight {
    by_id: HashMap<RequestId, Tracked>,
    /// The serial of the next admitted request.
    next: u64,
}

/// An admitted request, as the cancel table holds it.
struct Tracked {
    /// Tells this request from a later one with the same id.
    serial: u64,
    abort: AbortHandle,
}

/// A bound on requests in flight.
struct Slots {
    free: Arc<Semaphore>,
    max: usize,
}

/// What a transport does next with a message [`Driver::receive`] took.
#[must_use = "a request must be run, a refusal sent"]
// `Run` is the common case, taken apart as soon as it is returned: boxing
// it would cost every request an allocation to save a few bytes of stack.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Step {
    /// A request, admitted and cancellable: run it and send its answer.
    Run(Admitted),
    /// A request refused before it ran: send this response.
    Refused(Response),
    /// A request refused because the server's memory budget is spent:
    /// send this response (over HTTP, with `503`).
    OverBudget(Response),
    /// A notification routed, or a response delivered (or dropped, logged,
    /// when nothing awaits it): nothing to send.
    Done,
    /// A client's response (with this id) outside any session: nothing can
    /// await it. Never answered with a JSON-RPC error, which would read as
    /// the answer to the client's own request with that id.
    Unsessioned(#[cfg_attr(not(feature = "stdio"), allow(dead_code))] RequestId),
}

/// Why a request is refused as busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Busy {
    /// Every one of this many in-flight slots is taken and some request
    /// waits for the client's answer: the next request must not be left
    /// unread in front of that answer.
    Slots(usize),
    /// Every session of the endpoint is in use: a new one cannot be kept.
    /// (Only HTTP keeps sessions by id.)
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Sessions,
    /// The server's memory budget is spent.
    Memory,
}

impl Busy {
    /// The refusal of request `id`: `-32603` with a message that says what
    /// to do.
    pub(crate) fn refuse(self, id: Option<RequestId>) -> Response {
        let message = match self {
            Self::Slots(max) => format!(
                "Server busy: all {max} request slots are taken, some by requests \
                 waiting for this client's answers; answer them, then retry"
            ),
            Self::Sessions => "Server busy: every session is in use; retry later".to_owned(),
            Self::Memory => return Response::error(id, crate::budget::busy()),
        };
        Response::error(
            id,
            McpError::Other(ErrorObject {
                code: codes::INTERNAL_ERROR,
                message,
                data: None,
            }),
        )
    }
}

impl Driver {
    /// The driver of a peer without a session yet (a stdio connection, or
    /// one HTTP message without `MCP-Session-Id`), with no in-flight bound.
    pub(crate) fn new() -> Self {
        Self {
            session: Mutex::new(None),
            in_flight: Mutex::default(),
            slots: None,
        }
    }

    /// The driver of an open `session` (an HTTP session).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn in_session(session: Session) -> Self {
        let driver = Self::new();
        *driver.lock_session() = Some(session);
        driver
    }

    /// Bounds the requests in flight to `max` (at least 1): a request
    /// arriving while they all run waits in [`Self::receive`] for one to
    /// finish, or is refused as [`Busy::Slots`] when some request waits for
    /// the client's answer. A slot is held until the [`Answer`](admitted::Answer) is dropped.
    #[cfg_attr(not(feature = "stdio"), allow(dead_code))]
    pub(crate) fn max_in_flight(mut self, max: usize) -> Self {
        let max = max.max(1);
        self.slots = Some(Slots {
            free: Arc::new(Semaphore::new(max)),
            max,
        });
        self
    }

    /// The peer's session, if one is open.
    pub(crate) fn session(&self) -> Option<Session> {
        self.lock_session().clone()
    }

    /// Takes one message of the peer and says what the transport does
    /// next. Only a request can wait here: for a free slot, within the
    /// in-flight bound.
    #[cfg_attr(not(feature = "stdio"), allow(dead_code))]
    pub(crate) async fn receive(self: &Arc<Self>, server: &Server, message: Incoming) -> Step {
        match self.try_receive(server, message) {
            Received::Now(step) => step,
            Received::Waits(waiting) => self.admit_when_free(server, waiting).await,
        }
    }

    /// [`Self::receive`] without waiting: what the transport does next, or,
    /// when this driver bounds the requests in flight, the request that
    /// waits for a slot ([`Self::admit_when_free`]). A driver without a
    /// bound (HTTP's) never waits, and its caller's future need not hold
    /// the wait.
    pub(crate) fn try_receive(self: &Arc<Self>, server: &Server, message: Incoming) -> Received {
        let session = self.session();
        match message {
            Incoming::Notification { method, params } => {
                tracing::debug!(method = %Wire(&method), "accepted a notification");
                if method == notification_methods::CANCELLED {
                    self.cancel(params);
                } else if let Some(session) = &session {
                    server.handle_notification(&method, session);
                }
                Received::Now(Step::Done)
            }
            Incoming::Response(response) => Received::Now(match &session {
                None => Step::Unsessioned(response.id),
                Some(session) => {
                    // Dropped either way: an answer that comes after the
                    // server stopped waiting is the client's due, not its
                    // fault.
                    if let Err(unknown) = session.deliver(response) {
                        tracing::info!(
                            unknown = %Wire(&unknown.to_string()),
                            "ignored a response"
                        );
                    }
                    Step::Done
                }
            }),
            Incoming::Request(request) => {
                // What the request holds while it runs counts against the
                // server's budget until its answer is written.
                let held = match server.memory().try_hold(request.held_bytes()) {
                    Ok(held) => held,
                    Err(over) => {
                        tracing::warn!(%over, method = %Wire(&request.method), "refused a request");
                        let refused = Busy::Memory.refuse(Some(request.id));
                        return Received::Now(Step::OverBudget(refused));
                    }
                };
                if self.slots.is_some() {
                    return Received::Waits(Waiting {
                        request,
                        session,
                        held,
                    });
                }
                Received::Now(match self.admit(server, request, session, (None, held)) {
                    Ok(admitted) => Step::Run(admitted),
                    Err(in_use) => Step::Refused(in_use),
                })
            }
        }
    }

    /// Admits a request [`Self::try_receive`] left waiting, once a slot is
    /// free (or refuses it as busy: see [`Self::slot`]).
    pub(crate) async fn admit_when_free(
        self: &Arc<Self>,
        server: &Server,
        waiting: Waiting,
    ) -> Step {
        let Waiting {
            request,
            session,
            held,
        } = waiting;
        match self.slot(session.as_ref()).await {
            Ok(slot) => match self.admit(server, request, session, (slot, held)) {
                Ok(admitted) => Step::Run(admitted),
                Err(in_use) => Step::Refused(in_use),
            },
            Err(busy) => Step::Refused(busy.refuse(Some(request.id))),
        }
    }

    /// Ends the peer's session, if one is open: its questions fail, its
    /// change stream ends. The requests in flight run on.
    #[cfg_attr(not(feature = "stdio"), allow(dead_code))]
    pub(crate) fn end(&self) {
        if let Some(session) = self.lock_session().take() {
            session.end();
        }
    }

    /// How many admitted requests have not finished.
    #[cfg(test)]
    pub(crate) fn in_flight(&self) -> usize {
        self.lock_in_flight().by_id.len()
    }

    /// A slot for the next request: at once without a bound; otherwise
    /// when one is free, unless the client must first answer a question of
    /// the session (then busy).
    async fn slot(&self, session: Option<&Session>) -> Result<Option<OwnedSemaphorePermit>, Busy> {
        let Some(slots) = &self.slots else {
            return Ok(None);
        };
        let free = Arc::clone(&slots.free);
        // `Err` only once the semaphore is closed, which it never is.
        match session {
            None => Ok(free.acquire_owned().await.ok()),
            Some(session) => tokio::select! {
                biased;
                permit = free.acquire_owned() => Ok(permit.ok()),
                () = session.until_awaiting_client() => Err(Busy::Slots(slots.max)),
            },
        }
    }

    /// Records `request` in the cancel table, before anything can run it,
    /// so that a request that finishes at once still leaves the table. A
    /// request whose id is that of one still in flight is refused
    /// (`-32600`, naming the id), and the one in flight runs on, still
    /// cancellable: a response or a cancellation names one request.
    fn admit(
        self: &Arc<Self>,
        server: &Server,
        request: Request,
        session: Option<Session>,
        (slot, held): (Option<OwnedSemaphorePermit>, Held),
    ) -> Result<Admitted, Response> {
        let (abort, registration) = AbortHandle::new_pair();
        let serial = {
            let mut table = self.lock_in_flight();
            if table.by_id.contains_key(&request.id) {
                return Err(id_in_use(request.id));
            }
            let serial = table.next;
            table.next = table.next.wrapping_add(1);
            table
                .by_id
                .insert(request.id.clone(), Tracked { serial, abort });
            serial
        };
        Ok(Admitted {
            server: server.clone(),
            entry: Entry {
                driver: Arc::clone(self),
                id: request.id.clone(),
                serial,
            },
            request,
            session,
            registration,
            slot,
            held,
        })
    }

    /// Stops the request a `notifications/cancelled` names, if it runs.
    fn cancel(&self, params: Option<JsonObject>) {
        let parsed = params.and_then(|p| {
            serde_json::from_value::<CancelledNotificationParams>(serde_json::Value::Object(p)).ok()
        });
        let Some(params) = parsed else {
            tracing::debug!("ignored a malformed notifications/cancelled");
            return;
        };
        let tracked = self.lock_in_flight().by_id.remove(&params.request_id);
        if let Some(tracked) = tracked {
            tracing::debug!(
                id = %Wire(&params.request_id.to_string()),
                "request cancelled by the client"
            );
            tracked.abort.abort();
        }
    }

    /// Pins the session `initialize` opened; one opened earlier on the same
    /// peer (two `initialize` at once) is ended, so that nothing is left
    /// forwarding its changes.
    fn pin(&self, opened: &Session) {
        let earlier = self.lock_session().replace(opened.clone());
        if let Some(earlier) = earlier
            && earlier != *opened
        {
            tracing::info!("a second initialize replaced the session; the first one ended");
            earlier.end();
        }
    }

    fn lock_session(&self) -> MutexGuard<'_, Option<Session>> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock_in_flight(&self) -> MutexGuard<'_, InFlight> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// The refusal of a request whose `id` is that of a request still in
/// flight on the same peer.
fn id_in_use(id: RequestId) -> Response {
    let detail = format!(
        "the id {id} is in use by a request still in flight; send each request in flight \
         with its own id"
    );
    Response::error(Some(id), McpError::InvalidRequest { detail })
}

/// What [`Driver::try_receive`] makes of a message.
#[must_use = "a step must be taken, a waiting request admitted"]
// As `Step`: taken apart as soon as it is returned.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Received {
    /// What the transport does next.
    Now(Step),
    /// A request that waits for a free slot
    /// ([`Driver::admit_when_free`]).
    Waits(Waiting),
}

/// A request [`Driver::try_receive`] took that waits for a free slot: its
/// charge to the memory budget already held.
pub(crate) struct Waiting {
    request: Request,
    session: Option<Session>,
    held: Held,
}

/// The changes `session`'s client asked for, as the JSON of their
/// notifications: list changes, and updates of the resources it
/// subscribed to. Subscribed at once, so nothing announced after this call
/// is missed; ends with the session (or the server's change channel).
/// Changes dropped because the reader fell behind are logged.
pub(crate) fn changes(
    server: &Server,
    session: Session,
    transport: TransportKind,
) -> impl Stream<Item = String> + Send + 'static {
    let receiver = server.changes().subscribe();
    futures_util::stream::unfold(
        (receiver, session),
        move |(mut receiver, session)| async move {
            loop {
                let change = tokio::select! {
                    change = receiver.recv() => change,
                    () = session.ended() => return None,
                };
                match change {
                    Ok(change) => {
                        if let Some(json) = session.notification_for(&change) {
                            return Some((json, (receiver, session)));
                        }
                    }
                    Err(RecvError::Lagged(missed)) => {
                        tracing::warn!(
                            missed,
                            ?transport,
                            "a session's change stream fell behind; changes were dropped"
                        );
                    }
                    Err(RecvError::Closed) => return None,
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use futures_util::StreamExt;

    use super::*;
    use crate::schema::ClientCapabilities;
    use crate::server::parse_message;
    use crate::server::{Notifier, ReceiveContext};

    fn server() -> Server {
        Server::builder("driver", "1").build().unwrap()
    }

    fn session() -> Session {
        Session::open(
            "2025-11-25",
            ClientCapabilities::default(),
            None,
            crate::budget::Held::none(),
        )
    }

    fn message(json: &str) -> Incoming {
        parse_message(json.as_bytes()).unwrap()
    }

    fn ping(id: u64) -> Incoming {
        message(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#))
    }

    fn cancel(id: u64) -> Incoming {
        message(&format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
        ))
    }

    async fn admitted(driver: &Arc<Driver>, server: &Server, message: Incoming) -> Admitted {
        match driver.receive(server, message).await {
            Step::Run(admitted) => admitted,
            _ => panic!("a request is admitted"),
        }
    }

    async fn run(admitted: Admitted) -> Response {
        admitted
            .run(
                ReceiveContext::new(TransportKind::InProcess),
                Notifier::disabled(),
            )
            .await
            .into_response()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn quick_requests_with_distinct_ids_leave_the_cancel_table_empty() {
        let (server, driver) = (server(), Arc::new(Driver::new().max_in_flight(8)));
        let mut tasks = tokio::task::JoinSet::new();
        for id in 0..2_000 {
            let admitted = admitted(&driver, &server, ping(id)).await;
            tasks.spawn(run(admitted));
        }
        while let Some(done) = tasks.join_next().await {
            assert!(!done.unwrap().is_cancelled());
        }
        assert_eq!(driver.in_flight(), 0);
    }

    #[tokio::test]
    async fn a_cancel_that_comes_before_the_request_runs_stops_it() {
        let (server, driver) = (server(), Arc::new(Driver::new()));
        let admitted = admitted(&driver, &server, ping(7)).await;
        assert_eq!(driver.in_flight(), 1);
        assert!(matches!(
            driver.receive(&server, cancel(7)).await,
            Step::Done
        ));
        assert!(run(admitted).await.is_cancelled());
        assert_eq!(driver.in_flight(), 0);
    }

    #[tokio::test]
    async fn a_request_reusing_an_id_in_flight_is_refused_and_the_first_runs_on() {
        let (server, driver) = (server(), Arc::new(Driver::new()));
        let first = admitted(&driver, &server, ping(1)).await;
        let Step::Refused(refused) = driver.receive(&server, ping(1)).await else {
            panic!("the second request with id 1 is refused");
        };
        assert_eq!(refused.id(), Some(&RequestId::Number(1)));
        let json = refused.to_json();
        assert!(json.contains("-32600"), "{json}");
        assert!(
            json.contains("the id 1 is in use by a request still in flight"),
            "{json}"
        );
        assert_eq!(driver.in_flight(), 1, "the first is still tracked");
        let _ = driver.receive(&server, cancel(1)).await;
        assert!(run(first).await.is_cancelled(), "and still cancellable");
        assert_eq!(driver.in_flight(), 0);
        // Once the first has left, the id is free again.
        let again = admitted(&driver, &server, ping(1)).await;
        assert!(!run(again).await.is_cancelled());
    }

    #[tokio::test]
    async fn a_cancelled_request_that_ends_late_leaves_a_reused_id_alone() {
        let (server, driver) = (server(), Arc::new(Driver::new()));
        let first = admitted(&driver, &server, ping(1)).await;
        let _ = driver.receive(&server, cancel(1)).await;
        let second = admitted(&driver, &server, ping(1)).await;
        assert!(run(first).await.is_cancelled());
        assert_eq!(driver.in_flight(), 1, "the second is still tracked");
        let _ = driver.receive(&server, cancel(1)).await;
        assert!(run(second).await.is_cancelled());
        assert_eq!(driver.in_flight(), 0);
    }

    #[tokio::test]
    async fn a_request_dropped_unrun_leaves_the_table() {
        let (server, driver) = (server(), Arc::new(Driver::new()));
        drop(admitted(&driver, &server, ping(3)).await);
        assert_eq!(driver.in_flight(), 0);
    }

    #[tokio::test]
    async fn a_full_driver_waits_for_a_slot_unless_the_client_owes_an_answer() {
        let server = server();
        let s = session();
        let driver = Arc::new(Driver::in_session(s.clone()).max_in_flight(1));
        let first = admitted(&driver, &server, ping(1)).await;
        let waiting = driver.receive(&server, ping(2));
        let mut waiting = std::pin::pin!(waiting);
        assert!(
            tokio::time::timeout(Duration::from_millis(50), &mut waiting)
                .await
                .is_err(),
            "no slot is free: the request waits"
        );
        let question = s.open_question().unwrap();
        let Step::Refused(busy) = waiting.await else {
            panic!("refused as busy once a question awaits the client");
        };
        assert_eq!(busy.id(), Some(&RequestId::Number(2)));
        assert!(busy.to_json().contains("Server busy: all 1 request slots"));
        drop(question);
        let answer = first
            .run(
                ReceiveContext::new(TransportKind::InProcess),
                Notifier::disabled(),
            )
            .await;
        let third = driver.receive(&server, ping(3));
        let mut third = std::pin::pin!(third);
        assert!(
            tokio::time::timeout(Duration::from_millis(50), &mut third)
                .await
                .is_err(),
            "the slot is held until the answer is dropped"
        );
        drop(answer);
        assert!(matches!(third.await, Step::Run(_)));
    }

    #[tokio::test]
    async fn responses_reach_their_session_or_are_reported_unsessioned() {
        let server = server();
        let response = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        let alone = Arc::new(Driver::new());
        assert!(matches!(
            alone.receive(&server, message(response)).await,
            Step::Unsessioned(RequestId::Number(1))
        ));
        let s = session();
        let mut question = s.open_question().unwrap();
        let id = question.id.to_string();
        let driver = Arc::new(Driver::in_session(s.clone()));
        let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"ok":true}}}}"#);
        assert!(matches!(
            driver.receive(&server, message(&answer)).await,
            Step::Done
        ));
        assert!(question.answer().await.unwrap().is_ok());
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let _ = driver.receive(&server, message(initialized)).await;
        assert!(s.is_initialized());
    }

    #[tokio::test]
    async fn initialize_pins_its_session_and_end_ends_it() {
        let server = server();
        let driver = Arc::new(Driver::new());
        let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let response = run(admitted(&driver, &server, message(initialize)).await).await;
        let opened = response.opened_session().unwrap().clone();
        assert_eq!(driver.session(), Some(opened.clone()));
        driver.end();
        assert!(opened.is_ended());
        assert_eq!(driver.session(), None);
    }

    #[tokio::test]
    async fn changes_carry_what_the_session_asked_for_until_it_ends() {
        let server = server();
        let s = session();
        assert!(s.subscribe("file:///watched".to_owned(), crate::budget::Held::none(), 8));
        let mut changes = std::pin::pin!(changes(&server, s.clone(), TransportKind::Stdio));
        server.changes().resource_updated("file:///other");
        server.changes().resource_updated("file:///watched");
        server.changes().tools_list_changed();
        let first = changes.next().await.unwrap();
        assert!(first.contains("notifications/resources/updated"), "{first}");
        assert!(first.contains("file:///watched"), "{first}");
        let second = changes.next().await.unwrap();
        assert!(
            second.contains("notifications/tools/list_changed"),
            "{second}"
        );
        s.end();
        assert_eq!(changes.next().await, None);
    }
}

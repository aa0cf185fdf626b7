//! The event streams of 2025-era sessions: event ids, the priming event,
//! `retry`, and resumption with `Last-Event-ID` (SSE polling, 2025-11-25).
//!
//! A request of a session answered with an event stream gets a stream
//! number, and each of its events the id `<stream>-<n>`; the first event
//! primes the client with an id and no data. When the handler closes the
//! stream ([`Ctx::close_stream`](crate::server::handler::Ctx::close_stream)),
//! the client is told when to reconnect (`retry`), the connection ends, and
//! the request goes on detached: what it sends next is kept in the
//! session's [`EventLog`] of that stream, bounded, until the client comes
//! back with `GET` and `Last-Event-ID` and reads it, the response last.
//!
//! A client that goes away by itself, without the server closing the
//! stream, takes its request with it: the handler is dropped, as on any
//! other stream.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::response::Response as HttpResponse;
use tokio::sync::{Notify, mpsc};

use super::respond::{json_response, sse_response};
use crate::budget::{Held, MemoryBudget};
use crate::server::{Response, Session, StreamClose};

/// The most bytes of events one detached stream keeps for its client; past
/// it, or past what the server's memory budget has room for, the oldest
/// are dropped (a client resuming after them misses them).
pub(super) const MAX_LOG_BYTES: usize = 1024 * 1024;

/// What a detached stream kept for its client to resume.
pub(super) struct EventLog {
    stream: u64,
    state: Mutex<LogState>,
    changed: Notify,
}

struct LogState {
    /// Events by number, oldest first.
    events: VecDeque<(u64, Bytes)>,
    bytes: usize,
    /// `bytes`, charged to the server's memory budget.
    held: Held,
    next: u64,
    done: bool,
}

impl EventLog {
    /// The log of stream `stream`, whose next event is number `next`,
    /// charged to `budget`.
    fn new(stream: u64, next: u64, budget: &MemoryBudget) -> Self {
        Self {
            stream,
            state: Mutex::new(LogState {
                next,
                events: VecDeque::new(),
                bytes: 0,
                // Charged as events come: nothing yet.
                held: budget.try_hold(0).unwrap_or_else(|_| Held::none()),
                done: false,
            }),
            changed: Notify::new(),
        }
    }

    /// The stream's number.
    pub(super) fn stream(&self) -> u64 {
        self.stream
    }

    fn push(&self, json: &str) {
        let mut state = self.lock();
        let n = state.next;
        state.next += 1;
        let frame = event(self.stream, n, json);
        state.bytes += frame.len();
        state.events.push_back((n, frame));
        while state.bytes > MAX_LOG_BYTES && state.events.len() > 1 {
            if let Some((_, dropped)) = state.events.pop_front() {
                state.bytes -= dropped.len();
            }
        }
        loop {
            let bytes = state.bytes;
            if state.held.try_resize(bytes).is_ok() {
                break;
            }
            match state.events.pop_front() {
                Some((_, dropped)) => state.bytes -= dropped.len(),
                None => break,
            }
        }
        drop(state);
        self.changed.notify_waiters();
    }

    fn finish(&self) {
        self.lock().done = true;
        self.changed.notify_waiters();
    }

    /// The events after number `after`, and whether the stream is over.
    fn after(&self, after: u64) -> (Vec<(u64, Bytes)>, bool) {
        let state = self.lock();
        let events = state
            .events
            .iter()
            .filter(|(n, _)| *n > after)
            .cloned()
            .collect();
        (events, state.done)
    }

    fn lock(&self) -> MutexGuard<'_, LogState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An event id: the stream and the event's number in it.
pub(super) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, n) = id.split_once('-')?;
    Some((stream.parse().ok()?, n.parse().ok()?))
}

/// One event carrying the JSON-RPC message `json`, with its id.
pub(super) fn event(stream: u64, n: u64, json: &str) -> Bytes {
    Bytes::from(format!(
        "id: {stream}-{n}\nevent: message\ndata: {json}\n\n"
    ))
}

/// The priming event: an id and no data, so that the client can resume
/// from the very start.
pub(super) fn priming(stream: u64) -> Bytes {
    Bytes::from(format!("id: {stream}-0\ndata: \n\n"))
}

/// Tells the client when to reconnect, before the server closes a stream.
fn retry_field(retry: Duration) -> Bytes {
    Bytes::from(format!("retry: {}\n\n", retry.as_millis()))
}

/// What a session's streams need from the session table: a stream number,
/// and a place to keep a detached stream's log.
pub(super) trait Logs: Send + Sync + 'static {
    /// The budget the kept events are charged to.
    fn budget(&self) -> &MemoryBudget;
    /// A new stream number of the session.
    fn next_stream(&self) -> u64;
    /// Keeps `log` for the session's client to resume.
    fn keep(&self, log: Arc<EventLog>);
}

/// Drives `handling` until it finishes (answered with JSON), emits its
/// first message, or its handler closes the stream (either answered with
/// a resumable event stream).
pub(super) async fn respond<F>(
    mut handling: Pin<Box<F>>,
    notes: mpsc::Receiver<String>,
    close: StreamClose,
    session: Session,
    logs: Arc<dyn Logs>,
) -> HttpResponse
where
    F: Future<Output = Response> + Send + 'static,
{
    let mut pump = Pump {
        stream: 0,
        next: 1,
        pending: VecDeque::new(),
        handling: None,
        notes,
        close,
        response: None,
        session,
        logs,
        over: false,
    };
    tokio::select! {
        biased;
        note = pump.notes.recv() => match note {
            Some(first) => {
                pump.handling = Some(handling);
                pump.start(Some(first))
            }
            None => json_response(&handling.await),
        },
        _ = pump.close.requested() => {
            pump.handling = Some(handling);
            pump.start(None)
        }
        response = &mut handling => match pump.notes.try_recv() {
            Ok(first) => {
                pump.response = Some(response);
                pump.start(Some(first))
            }
            Err(_) => json_response(&response),
        },
    }
}

/// The body of a session's event stream: it drives the request and writes
/// its messages, numbered, until the response, or until the handler closes
/// the stream (then the request goes on detached).
struct Pump<F> {
    stream: u64,
    /// The number of the next event.
    next: u64,
    /// Frames to write before anything else.
    pending: VecDeque<Bytes>,
    handling: Option<Pin<Box<F>>>,
    notes: mpsc::Receiver<String>,
    close: StreamClose,
    /// The finished handler's response, written after the last message.
    response: Option<Response>,
    session: Session,
    logs: Arc<dyn Logs>,
    /// The stream has ended (response written, or detached).
    over: bool,
}

impl<F> Pump<F>
where
    F: Future<Output = Response> + Send + 'static,
{
    /// Answers with the event stream: the priming event, then `first`.
    fn start(mut self, first: Option<String>) -> HttpResponse {
        self.stream = self.logs.next_stream();
        self.pending.push_back(priming(self.stream));
        if let Some(first) = first {
            self.push(&first);
        }
        let body = futures_util::stream::unfold(self, |mut pump| async move {
            let frame = pump.next_frame().await?;
            Some((Ok::<_, Infallible>(frame), pump))
        });
        sse_response(Body::from_stream(body))
    }

    fn push(&mut self, json: &str) {
        let frame = event(self.stream, self.next, json);
        self.next += 1;
        self.pending.push_back(frame);
    }

    async fn next_frame(&mut self) -> Option<Bytes> {
        loop {
            if let Some(frame) = self.pending.pop_front() {
                return Some(frame);
            }
            if self.over {
                return None;
            }
            let running = self.handling.is_some();
            tokio::select! {
                biased;
                retry = self.close.requested(), if running => {
                    self.detach();
                    return Some(retry_field(retry));
                }
                note = self.notes.recv() => match note {
                    Some(json) => self.push(&json),
                    // Every notifier is gone: the response ends the stream.
                    None => {
                        let response = match (self.response.take(), self.handling.take()) {
                            (Some(response), _) => response,
                            (None, Some(handling)) => handling.await,
                            (None, None) => return None,
                        };
                        self.over = true;
                        if !response.is_cancelled() {
                            self.push(&response.to_json());
                        }
                    }
                },
                response = poll_running(&mut self.handling), if running => {
                    self.handling = None;
                    self.response = Some(response);
                }
            }
        }
    }

    /// Hands the rest of the request to a task that keeps its messages in
    /// a log the client resumes from; this stream ends.
    fn detach(&mut self) {
        self.over = true;
        let log = Arc::new(EventLog::new(self.stream, self.next, self.logs.budget()));
        self.logs.keep(Arc::clone(&log));
        let handling = self.handling.take();
        let notes = std::mem::replace(&mut self.notes, mpsc::channel(1).1);
        let response = self.response.take();
        let session = self.session.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = run_detached(handling, notes, response, &log) => {}
                // The session ended: nobody can resume; the request stops.
                () = session.ended() => {}
            }
            log.finish();
        });
    }
}

/// The handler's next step, when it runs.
async fn poll_running<F: Future<Output = Response>>(
    handling: &mut Option<Pin<Box<F>>>,
) -> Response {
    match handling {
        Some(handling) => handling.as_mut().await,
        None => std::future::pending().await,
    }
}

/// Runs a detached request to its end, keeping its messages in `log`.
async fn run_detached<F: Future<Output = Response>>(
    mut handling: Option<Pin<Box<F>>>,
    mut notes: mpsc::Receiver<String>,
    mut response: Option<Response>,
    log: &EventLog,
) {
    loop {
        let running = handling.is_some();
        tokio::select! {
            note = notes.recv() => match note {
                Some(json) => log.push(&json),
                None => break,
            },
            done = poll_running(&mut handling), if running => {
                handling = None;
                response = Some(done);
            }
        }
    }
    let response = match (response, handling) {
        (Some(response), _) => response,
        (None, Some(handling)) => handling.await,
        (None, None) => return,
    };
    if !response.is_cancelled() {
        log.push(&response.to_json());
    }
}

/// The answer to `GET` with `Last-Event-ID` naming event `after` of a
/// detached stream: the events kept since, then those still to come,
/// until the stream's end.
pub(super) fn resume(log: Arc<EventLog>, after: u64) -> HttpResponse {
    let body = futures_util::stream::unfold(
        (log, after, VecDeque::<Bytes>::new()),
        |(log, mut after, mut pending)| async move {
            loop {
                if let Some(frame) = pending.pop_front() {
                    return Some((Ok::<_, Infallible>(frame), (log, after, pending)));
                }
                // Registered before looking, so no event is missed between.
                let changed = log.changed.notified();
                let (events, done) = log.after(after);
                if let Some((last, _)) = events.last() {
                    after = *last;
                    pending.extend(events.into_iter().map(|(_, frame)| frame));
                    continue;
                }
                if done {
                    return None;
                }
                changed.await;
            }
        },
    );
    sse_response(Body::from_stream(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_name_the_stream_and_the_event() {
        assert_eq!(parse_event_id("3-17"), Some((3, 17)));
        for bad in ["", "3", "-1", "a-1", "3-", "3-x", "1-2-3"] {
            assert_eq!(parse_event_id(bad), None, "{bad}");
        }
        let frame = event(3, 17, "{}");
        assert_eq!(&frame[..], b"id: 3-17\nevent: message\ndata: {}\n\n");
    }

    #[test]
    fn a_log_keeps_what_follows_a_given_event_within_its_bound() {
        let log = EventLog::new(2, 5, &MemoryBudget::default());
        log.push("{\"a\":1}");
        log.push("{\"a\":2}");
        let (events, done) = log.after(5);
        assert_eq!(events.len(), 1);
        assert!(!done);
        log.finish();
        assert!(log.after(6).1);
        let big = "x".repeat(MAX_LOG_BYTES / 2);
        for _ in 0..4 {
            log.push(&big);
        }
        assert!(log.lock().bytes <= MAX_LOG_BYTES);
        assert!(log.after(0).0.len() < 6, "the oldest were dropped");
    }
}

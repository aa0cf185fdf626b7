//! A request a [`Driver`] admitted: [`Admitted::run`] serves it, its
//! [`Answer`] holds its slot and memory charge until the transport drops
//! it, and its [`Entry`] leaves the driver's cancel table however it ends.

use std::future::Future;
use std::sync::Arc;

use futures_util::FutureExt as _;
use futures_util::future::{AbortRegistration, Abortable, Aborted};
use tokio::sync::OwnedSemaphorePermit;

use super::Driver;
use crate::budget::Held;
use crate::schema::RequestId;
use crate::server::{Notifier, ReceiveContext, Request, Response, Server, Session};

/// A request admitted by [`Driver::receive`]: recorded for cancellation
/// and holding its slot. Dropped without running, it leaves the table too.
#[must_use = "an admitted request does nothing until it runs"]
pub(crate) struct Admitted {
    pub(super) server: Server,
    pub(super) request: Request,
    /// The peer's session when the request arrived.
    pub(super) session: Option<Session>,
    pub(super) registration: AbortRegistration,
    pub(super) entry: Entry,
    pub(super) slot: Option<OwnedSemaphorePermit>,
    /// The request's charge to the server's memory budget.
    pub(super) held: Held,
}

impl Admitted {
    /// Serves the request with what the transport knows (`receive`), in
    /// the peer's session when it has one, and `notifier`, unless
    /// the client cancels it first: then the response
    /// [`is_cancelled`](Response::is_cancelled) and nothing is sent. The
    /// session the response opens is pinned to the driver before the
    /// transport sees it.
    ///
    /// The handler's future is built here, and the one returned holds it
    /// once, with only what it needs after.
    pub(crate) fn run(
        self,
        receive: ReceiveContext,
        notifier: Notifier,
    ) -> impl Future<Output = Answer> + Send + 'static + use<> {
        let Self {
            server,
            request,
            session,
            registration,
            entry,
            slot,
            held,
        } = self;
        let id = request.id.clone();
        let handling = Abortable::new(
            server.handle(request, receive, session, notifier),
            registration,
        );
        // `map`, not an `async` block, which would hold the handler's
        // future twice (captured, then awaited).
        handling.map(move |handled| {
            let response = match handled {
                Ok(response) => response,
                Err(Aborted) => Response::cancelled(id),
            };
            if let Some(opened) = response.opened_session() {
                entry.driver.pin(opened);
            }
            drop(entry);
            Answer {
                response,
                _slot: slot,
                _held: held,
            }
        })
    }
}

/// A request's response. It holds the request's in-flight slot until it
/// is dropped: a transport drops it once the response is written or
/// queued, so that answers the peer does not read count against the
/// bound.
pub(crate) struct Answer {
    response: Response,
    _slot: Option<OwnedSemaphorePermit>,
    /// The request's charge to the memory budget, with the response's.
    _held: Held,
}

impl Answer {
    /// The response.
    #[cfg_attr(not(feature = "stdio"), allow(dead_code))]
    pub(crate) fn response(&self) -> &Response {
        &self.response
    }

    /// The response, the slot freed (over HTTP; stdio writes it in place).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn into_response(self) -> Response {
        self.response
    }
}

/// An admitted request's entry in its driver's cancel table, removed when
/// this drops (the request finished, was cancelled, or was dropped).
pub(super) struct Entry {
    pub(super) driver: Arc<Driver>,
    pub(super) id: RequestId,
    pub(super) serial: u64,
}

impl Drop for Entry {
    fn drop(&mut self) {
        let mut table = self.driver.lock_in_flight();
        // Not a later request that reused the id.
        if table
            .by_id
            .get(&self.id)
            .is_some_and(|tracked| tracked.serial == self.serial)
        {
            table.by_id.remove(&self.id);
        }
    }
}

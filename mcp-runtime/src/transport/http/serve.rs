//! Serving a bound listener: one hyper HTTP/1.1 connection per accepted
//! socket, with a timer (so the request-head timeout holds), a deadline on
//! writes the peer does not take, a cap on the connections served at once,
//! and a graceful shutdown.

use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::limits::ConnectionLimits;
use super::routes::Routes;
use super::write_deadline::WriteDeadline;

tokio::task_local! {
    /// The IP address of the connection whose task is running: each
    /// connection is served on a task of its own, and its requests run on
    /// that task, so a request reads its peer here (an entry in each
    /// request's extensions costs an allocation or more per request).
    static PEER: IpAddr;
}

/// The IP address of the connection whose request is running, when
/// [`serve`] accepted it (not on a connection handed to [`serve_one`]).
pub(super) fn peer_ip() -> Option<IpAddr> {
    PEER.try_with(|&ip| ip).ok()
}

/// Accepts and serves connections on `listener` until `shutdown`
/// completes, then stops accepting and waits for the connections in
/// flight (idle ones are closed at once, the others after their current
/// response).
///
/// At most `limits.max_connections` are served at once: the next one is
/// accepted when one closes, and until then waits in the listen queue.
pub(super) async fn serve(
    listener: TcpListener,
    routes: Routes,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let http = http1_builder(&limits);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // The shutdown future is polled first, every time: a signal
        // handler it installs on its first poll is in place before the
        // first connection is served.
        let permit = tokio::select! {
            biased;
            () = &mut shutdown => break,
            permit = Arc::clone(&permits).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break, // never closed
            },
        };
        let (stream, peer) = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => (stream, peer),
                Err(error) => {
                    if !is_per_connection(&error) {
                        // Out of file descriptors, say: wait rather than spin.
                        tracing::error!(%error, "cannot accept a connection; retrying in 1 s");
                        tokio::select! {
                            () = tokio::time::sleep(Duration::from_secs(1)) => {}
                            () = &mut shutdown => break,
                        }
                    }
                    continue;
                }
            },
        };
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let connection = http.serve_connection(
            TokioIo::new(WriteDeadline::new(stream, limits.write_timeout)),
            routes.clone(),
        );
        let connection = graceful.watch(connection);
        tokio::spawn(PEER.scope(peer.ip(), async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection closed with an error");
            }
            drop(permit);
        }));
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// The HTTP/1.1 settings of every connection.
fn http1_builder(limits: &ConnectionLimits) -> http1::Builder {
    let mut http = http1::Builder::new();
    // Half-closing stays off: a client whose side ends is taken as gone,
    // and its handler is dropped (cancelled) rather than left running.
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    http
}

/// Serves one connection on `io` with the settings of [`serve`], until it
/// closes.
pub(super) async fn serve_one<I>(
    io: I,
    routes: Routes,
    limits: ConnectionLimits,
) -> Result<(), hyper::Error>
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    http1_builder(&limits)
        .serve_connection(
            TokioIo::new(WriteDeadline::new(io, limits.write_timeout)),
            routes,
        )
        .await
}

/// An accept error that concerns only the connection being accepted (the
/// peer left before it was accepted, say): the next accept may succeed at
/// once.
fn is_per_connection(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

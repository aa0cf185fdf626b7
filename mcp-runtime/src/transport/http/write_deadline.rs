//! A connection whose peer stops reading is closed: a write that makes no
//! progress for the write timeout fails, and hyper closes the connection.
//!
//! Only a stalled write counts. A connection idle between writes, as an
//! event stream waiting for its next event, is not affected; the time a
//! peer may take to *send* is bounded elsewhere (the head and body
//! timeouts).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// `io` whose writes fail once one has waited `timeout` for the peer.
pub(super) struct WriteDeadline<T> {
    io: T,
    timeout: Duration,
    /// Running while a write waits; cleared when one makes progress.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<T> WriteDeadline<T> {
    pub(super) fn new(io: T, timeout: Duration) -> Self {
        Self {
            io,
            timeout,
            stalled: None,
        }
    }

    /// What a write operation returned, with the deadline applied: progress
    /// clears it, waiting starts (or keeps) it, and waiting past it fails.
    fn deadline<R>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>> {
        if polled.is_ready() {
            self.stalled = None;
            return polled;
        }
        let timeout = self.timeout;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the peer read nothing for {timeout:?}"),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteDeadline<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.io).poll_write(cx, buf);
        this.deadline(cx, polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.deadline(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.io).poll_flush(cx);
        this.deadline(cx, polled)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.io).poll_shutdown(cx);
        this.deadline(cx, polled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn a_write_the_peer_does_not_take_fails_after_the_timeout() {
        let (ours, mut peer) = tokio::io::duplex(16);
        let mut ours = WriteDeadline::new(ours, Duration::from_secs(5));
        // Fits the pipe: no wait, no deadline.
        ours.write_all(&[0; 16]).await.unwrap();
        // The peer reads nothing more: the next write waits, then fails.
        let error = tokio::time::timeout(Duration::from_secs(60), ours.write_all(&[0; 16]))
            .await
            .expect("the write fails rather than waiting on")
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        let mut read = [0; 16];
        peer.read_exact(&mut read).await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn idle_time_between_writes_does_not_count() {
        let (ours, mut peer) = tokio::io::duplex(16);
        let mut ours = WriteDeadline::new(ours, Duration::from_secs(5));
        for _ in 0..3 {
            ours.write_all(&[1; 16]).await.unwrap();
            let mut read = [0; 16];
            peer.read_exact(&mut read).await.unwrap();
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        // A write that waits less than the timeout goes through.
        ours.write_all(&[2; 16]).await.unwrap();
        let writing = ours.write_all(&[3; 16]);
        let reading = async {
            tokio::time::sleep(Duration::from_secs(4)).await;
            let mut read = [0; 32];
            peer.read_exact(&mut read).await.unwrap();
        };
        let (written, ()) = tokio::join!(writing, reading);
        written.unwrap();
    }
}

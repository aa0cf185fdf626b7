//! `sessions`: the server's resident memory per idle 2025-era session.
//!
//! Opens `connections` keep-alive connections and warms each up (one
//! session opened and ended with `DELETE`, so the connection's buffers and
//! the server's first-request allocations are in place), reads the
//! server's `VmRSS`, opens `count` sessions (`initialize`, then
//! `notifications/initialized`) spread over the connections, reading
//! `VmRSS` again halfway and at the end, and leaves them open. It then
//! checks, with a `ping` in each, that the first and the last session
//! each connection opened in each half are still open: a server whose
//! session cap is below `count` evicts the longest-idle sessions, and the
//! figure would be meaningless.

use std::time::Duration;

use crate::http1::Connection;
use crate::load::{self, Framing};
use crate::target::Target;
use crate::wire;

/// What `sessions` measures.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// Sessions opened and left open.
    pub(crate) count: usize,
    /// Connections they are opened over, concurrently.
    pub(crate) connections: usize,
    /// The longest one request may take.
    pub(crate) timeout: Duration,
    /// How long the server is left alone before each reading.
    pub(crate) settle: Duration,
}

/// The readings of one `sessions` run, in KiB of `VmRSS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Readings {
    /// After the warm-up, before any session stays open.
    pub(crate) before_kb: u64,
    /// With the first half of the sessions open.
    pub(crate) half_kb: u64,
    /// With all of them open.
    pub(crate) after_kb: u64,
}

impl Readings {
    /// The result line: the readings and the bytes per session, over all
    /// of them and over the second half alone (the marginal cost).
    pub(crate) fn to_line(&self, server: &str, plan: &Plan) -> String {
        let count = plan.count as u64;
        let half = count / 2;
        let per = |from: u64, to: u64, n: u64| {
            if n == 0 {
                0.0
            } else {
                (to as f64 - from as f64) * 1024.0 / n as f64
            }
        };
        format!(
            "server={server}\tsessions={count}\tconnections={}\trss_before_kb={}\trss_half_kb={}\trss_after_kb={}\tbytes_per_session={:.0}\tbytes_per_session_second_half={:.0}",
            plan.connections,
            self.before_kb,
            self.half_kb,
            self.after_kb,
            per(self.before_kb, self.after_kb, count),
            per(self.half_kb, self.after_kb, count - half),
        )
    }
}

/// The sessions connection `index` of `connections` opens when `count`
/// are spread over them (the first ones take one more).
fn share(count: usize, connections: usize, index: usize) -> usize {
    count / connections + usize::from(index < count % connections)
}

/// Opens `n` sessions on connection `index`, one after another; their ids,
/// in order.
async fn open_many(
    mut connection: Connection,
    target: Target,
    timeout: Duration,
    index: usize,
    n: usize,
) -> Result<(Connection, Vec<String>), String> {
    let mut ids = Vec::with_capacity(n);
    for k in 0..n {
        let id = ((index as u64) << 32) | k as u64;
        let session = load::open_session(&mut connection, &target, timeout, id)
            .await
            .map_err(|e| format!("opening a session on connection {index}: {e}"))?;
        ids.push(session);
    }
    Ok((connection, ids))
}

/// Opens `count` sessions over `connections`, concurrently; their ids, one
/// vector per connection.
async fn open_all(
    connections: Vec<Connection>,
    target: &Target,
    timeout: Duration,
    count: usize,
) -> Result<(Vec<Connection>, Vec<Vec<String>>), String> {
    let total = connections.len();
    let tasks: Vec<_> = connections
        .into_iter()
        .enumerate()
        .map(|(index, connection)| {
            let n = share(count, total, index);
            tokio::spawn(open_many(connection, target.clone(), timeout, index, n))
        })
        .collect();
    let mut connections = Vec::with_capacity(total);
    let mut ids = Vec::with_capacity(total);
    for task in tasks {
        let (connection, opened) = task.await.map_err(|e| format!("a task failed: {e}"))??;
        connections.push(connection);
        ids.push(opened);
    }
    Ok((connections, ids))
}

/// Whether `session` is still open: a `ping` in it is answered.
async fn still_open(
    connection: &mut Connection,
    target: &Target,
    timeout: Duration,
    session: &str,
) -> Result<(), String> {
    let framing = Framing::Legacy {
        session: Some(session),
    };
    let id = u64::MAX / 2;
    let head = load::head(target, framing, true).map_err(|e| e.to_string())?;
    load::call(
        connection,
        timeout,
        &head,
        id,
        &wire::ping(id),
        wire::expect_pong,
    )
    .await
    .map(|_| ())
    .map_err(|e| format!("a ping in session {session} failed ({e}): was it evicted?"))
}

/// Runs the measurement; `rss_kb` reads the server's `VmRSS`.
pub(crate) async fn run(
    target: Target,
    plan: &Plan,
    rss_kb: impl Fn() -> Option<u64>,
) -> Result<Readings, String> {
    let mut connections = Vec::with_capacity(plan.connections);
    for index in 0..plan.connections {
        let mut connection = load::connect_patiently(&target)
            .await
            .map_err(|e| format!("cannot open connection {index} to {}: {e}", target.addr))?;
        let warm = load::open_session(&mut connection, &target, plan.timeout, u64::MAX / 4)
            .await
            .map_err(|e| format!("warming up connection {index}: {e}"))?;
        load::close_session(&mut connection, &target, plan.timeout, &warm)
            .await
            .map_err(|e| format!("ending the warm-up session on connection {index}: {e}"))?;
        connections.push(connection);
    }
    let read = || async {
        tokio::time::sleep(plan.settle).await;
        rss_kb().ok_or_else(|| "cannot read the server's VmRSS".to_owned())
    };
    let before_kb = read().await?;
    let first_half = plan.count / 2;
    let (connections, first) = open_all(connections, &target, plan.timeout, first_half).await?;
    let half_kb = read().await?;
    let (mut connections, second) =
        open_all(connections, &target, plan.timeout, plan.count - first_half).await?;
    let after_kb = read().await?;
    let opened: usize = first.iter().chain(&second).map(Vec::len).sum();
    if opened != plan.count {
        return Err(format!("opened {opened} sessions, not {}", plan.count));
    }
    // The oldest and the newest session of each connection and half.
    let probes: Vec<&String> = first
        .iter()
        .chain(&second)
        .flat_map(|ids| ids.first().into_iter().chain(ids.last()))
        .collect();
    if let Some(connection) = connections.first_mut() {
        for session in probes {
            still_open(connection, &target, plan.timeout, session).await?;
        }
    }
    Ok(Readings {
        before_kb,
        half_kb,
        after_kb,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_shared_out_evenly() {
        let total: usize = (0..3).map(|i| share(10, 3, i)).sum();
        assert_eq!(total, 10);
        assert_eq!(
            (share(10, 3, 0), share(10, 3, 1), share(10, 3, 2)),
            (4, 3, 3)
        );
        assert_eq!(share(2, 4, 3), 0);
    }

    #[test]
    fn the_line_has_bytes_per_session() {
        let plan = Plan {
            count: 1000,
            connections: 4,
            timeout: Duration::from_secs(1),
            settle: Duration::ZERO,
        };
        let readings = Readings {
            before_kb: 1000,
            half_kb: 1500,
            after_kb: 2000,
        };
        let line = readings.to_line("ours", &plan);
        assert!(line.contains("sessions=1000\t"), "{line}");
        assert!(line.contains("bytes_per_session=1024\t"), "{line}");
        assert!(
            line.ends_with("bytes_per_session_second_half=1024"),
            "{line}"
        );
    }
}

//! The guard's commands, many requests' at once: one pipeline per round trip.

use std::time::Duration;

use redis::aio::ConnectionManager;
use redis::{Cmd, RedisError, RedisResult, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// How many commands may wait for the next pipeline.
const QUEUE: usize = 1024;

/// The most commands sent in one pipeline.
const BATCH: usize = 256;

/// Sends commands to Redis in pipelines: while one pipeline is out, the
/// commands queued meanwhile wait and go out together in the next, and so
/// do the commands of requests that run in the same pass of the scheduler.
/// Under load a round trip to Redis, and its wake-up of `redis-server`,
/// carries many requests' commands instead of one; alone, a command goes
/// out as soon as the scheduler has nothing else ready. Replies come back
/// to each command's sender in order.
///
/// The queue holds at most 1024 commands; a sender waits for room. A
/// command's deadline is the timeout after its sender began to queue it,
/// and it is answered by then (by twice the timeout at most, if it had to
/// wait for room). The task keeps that bound, so a command costs no timer
/// of its own: a pipeline is given up at its oldest command's deadline,
/// and a command whose deadline passed while it was queued is answered
/// that it timed out, and not sent. One task sends the pipelines; it ends
/// when every sender is dropped.
#[derive(Clone)]
pub(crate) struct Pipeline {
    queue: mpsc::Sender<Queued>,
    timeout: Duration,
}

/// A command waiting for the next pipeline, and what to do with its reply.
struct Queued {
    command: Cmd,
    then: Then,
    /// When its sender stops waiting: the timeout after the sender began
    /// to queue it (before any wait for room).
    deadline: Instant,
}

/// Where a command's reply goes.
enum Then {
    /// To the request waiting for it.
    Answer(oneshot::Sender<RedisResult<Value>>),
    /// Nobody waits: the function reads it (to log a failure, say).
    Detach(fn(RedisResult<Value>)),
}

impl Pipeline {
    /// A pipeline over `connection`, each wait bounded by `timeout`. Must
    /// be called inside a Tokio runtime (its task is spawned there).
    pub(crate) fn spawn(connection: ConnectionManager, timeout: Duration) -> Self {
        let (queue, commands) = mpsc::channel(QUEUE);
        tokio::spawn(send_pipelines(connection, commands, timeout));
        Self { queue, timeout }
    }

    /// Sends `command` with the next pipeline and waits for its reply, at
    /// most the timeout.
    pub(crate) async fn query(&self, command: Cmd) -> RedisResult<Value> {
        let (answer, reply) = oneshot::channel();
        self.enqueue(command, Then::Answer(answer)).await?;
        // The task answers by the command's deadline (see `send_pipelines`),
        // or is gone and drops the answer.
        reply.await.map_err(|_| stopped())?
    }

    /// Queues `command` for the next pipeline without waiting for its
    /// reply, which `then` reads. Waits only when the queue is full, at
    /// most the timeout.
    pub(crate) async fn detach(
        &self,
        command: Cmd,
        then: fn(RedisResult<Value>),
    ) -> RedisResult<()> {
        self.enqueue(command, Then::Detach(then)).await
    }

    /// Queues `command`, its deadline the timeout from now; waits for room
    /// only when the queue is full, until that deadline.
    async fn enqueue(&self, command: Cmd, then: Then) -> RedisResult<()> {
        let deadline = Instant::now() + self.timeout;
        let queued = Queued {
            command,
            then,
            deadline,
        };
        let queued = match self.queue.try_send(queued) {
            Ok(()) => return Ok(()),
            Err(mpsc::error::TrySendError::Closed(_)) => return Err(stopped()),
            Err(mpsc::error::TrySendError::Full(queued)) => queued,
        };
        tokio::time::timeout_at(deadline, self.queue.send(queued))
            .await
            .map_err(|_| timed_out(self.timeout))?
            .map_err(|_| stopped())
    }
}

/// The pipeline's task: takes what is queued (see [`next_batch`]), sends
/// it as one pipeline, hands out the replies, and again.
///
/// Every command is answered by its deadline. Commands are queued in order
/// with the same timeout, so the pipeline out while a command waits has
/// the earlier deadline and is over by then (unless the command waited
/// for room: then the pipeline's commands may have begun after it, and it
/// is over within the timeout of the command's getting in). The command
/// is then answered at once if its deadline has passed, or sent in a
/// pipeline given up at the deadline of its oldest command.
async fn send_pipelines(
    mut connection: ConnectionManager,
    mut commands: mpsc::Receiver<Queued>,
    timeout: Duration,
) {
    let mut batch = Vec::with_capacity(BATCH);
    let mut pipeline = redis::pipe();
    while next_batch(&mut commands, &mut batch).await {
        answer_late(&mut batch, Instant::now(), timeout);
        // A request that stopped waiting (it was dropped) must not claim
        // its state after all.
        batch.retain(|queued| !queued.then.abandoned());
        let Some(deadline) = batch.iter().map(|queued| queued.deadline).min() else {
            continue;
        };
        pipeline.clear();
        for queued in &mut batch {
            pipeline.add_command(std::mem::take(&mut queued.command));
        }
        run(&mut connection, &pipeline, &mut batch, deadline, timeout).await;
    }
}

/// Answers the commands of `batch` whose deadline has passed by `now`
/// that they timed out, and takes them out: they are not sent.
fn answer_late(batch: &mut Vec<Queued>, now: Instant, timeout: Duration) {
    for late in batch.extract_if(.., |queued| queued.deadline <= now) {
        late.then.deliver(Err(timed_out(timeout)));
    }
}

/// Waits for a command, then fills `batch` with what is queued, up to
/// [`BATCH`] in all, once the scheduler has run the other tasks that were
/// ready with the first command's sender. False once every sender is gone.
///
/// The first command wakes this task, which Tokio then runs right after
/// its sender, before the other ready tasks; without the yield, the first
/// command of every pass would go to Redis alone, in a round trip of its
/// own.
async fn next_batch<T>(commands: &mut mpsc::Receiver<T>, batch: &mut Vec<T>) -> bool {
    if commands.recv_many(batch, BATCH).await == 0 {
        return false;
    }
    tokio::task::yield_now().await;
    while batch.len() < BATCH {
        match commands.try_recv() {
            Ok(command) => batch.push(command),
            Err(_) => break,
        }
    }
    true
}

/// Sends `pipeline`, the commands of `batch`, and hands each its reply (a
/// server error as `Value::ServerError`), or every one the pipeline's
/// error, or that it timed out if no reply came by `deadline`; `batch` is
/// left empty.
async fn run(
    connection: &mut ConnectionManager,
    pipeline: &redis::Pipeline,
    batch: &mut Vec<Queued>,
    deadline: Instant,
    timeout: Duration,
) {
    let count = pipeline.len();
    // Not `ConnectionLike::req_packed_commands`, which boxes this future
    // (over a kilobyte, allocated per pipeline).
    let sent = connection.send_packed_commands(pipeline, 0, count);
    let Ok(replies) = tokio::time::timeout_at(deadline, sent).await else {
        for queued in batch.drain(..) {
            queued.then.deliver(Err(timed_out(timeout)));
        }
        return;
    };
    let error = match replies {
        Ok(values) if values.len() == count => {
            for (queued, value) in batch.drain(..).zip(values) {
                queued.then.deliver(Ok(value));
            }
            return;
        }
        Ok(values) => RedisError::from((
            redis::ErrorKind::Client,
            "Redis answered a pipeline with the wrong number of replies",
            format!("{} replies to {count} commands", values.len()),
        )),
        Err(error) => error,
    };
    for queued in batch.drain(..) {
        queued.then.deliver(Err(error.clone()));
    }
}

impl Then {
    /// Whether nobody waits for this reply any more, where somebody did.
    fn abandoned(&self) -> bool {
        matches!(self, Self::Answer(answer) if answer.is_closed())
    }

    fn deliver(self, reply: RedisResult<Value>) {
        match self {
            // The request may have stopped waiting (timed out): nothing to do.
            Self::Answer(answer) => drop(answer.send(reply)),
            Self::Detach(read) => read(reply),
        }
    }
}

fn stopped() -> RedisError {
    RedisError::from((
        redis::ErrorKind::Client,
        "the Redis pipeline's task has stopped",
    ))
}

fn timed_out(timeout: Duration) -> RedisError {
    RedisError::from((
        redis::ErrorKind::Io,
        "no reply from Redis in time",
        format!("waited {timeout:?}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    // One worker, as a server pinned to one CPU: the senders of one pass
    // of the scheduler share one batch, though the first send wakes the
    // batch's task, which Tokio runs next.
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn the_commands_of_one_pass_make_one_batch() {
        let (queue, mut commands) = mpsc::channel(QUEUE);
        let batches = tokio::spawn(async move {
            let mut sizes = Vec::new();
            let mut batch = Vec::new();
            while next_batch(&mut commands, &mut batch).await {
                sizes.push(batch.len());
                batch.clear();
            }
            sizes
        });
        // Spawned from a task on the worker, the senders run in one pass
        // once it waits.
        tokio::spawn(async move {
            let senders: Vec<_> = (0..8)
                .map(|i| {
                    let queue = queue.clone();
                    tokio::spawn(async move { queue.send(i).await.unwrap() })
                })
                .collect();
            for sender in senders {
                sender.await.unwrap();
            }
        })
        .await
        .unwrap();
        assert_eq!(batches.await.unwrap(), vec![8]);
    }

    #[tokio::test]
    async fn a_command_past_its_deadline_is_answered_and_not_sent() {
        let now = Instant::now();
        let queued = |deadline| {
            let (answer, reply) = oneshot::channel();
            let queued = Queued {
                command: redis::cmd("PING"),
                then: Then::Answer(answer),
                deadline,
            };
            (queued, reply)
        };
        let (late, late_reply) = queued(now - Duration::from_millis(1));
        let (due, mut due_reply) = queued(now + Duration::from_secs(1));
        let (exact, exact_reply) = queued(now);
        let mut batch = vec![late, due, exact];
        answer_late(&mut batch, now, Duration::from_secs(1));
        assert_eq!(batch.len(), 1);
        assert_eq!(batch[0].deadline, now + Duration::from_secs(1));
        for reply in [late_reply, exact_reply] {
            let error = reply.await.unwrap().unwrap_err();
            assert!(error.to_string().contains("in time"), "{error}");
        }
        assert!(due_reply.try_recv().is_err());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn a_batch_holds_at_most_its_bound() {
        let (queue, mut commands) = mpsc::channel(QUEUE);
        for i in 0..BATCH + 3 {
            queue.send(i).await.unwrap();
        }
        drop(queue);
        let mut batch = Vec::new();
        assert!(next_batch(&mut commands, &mut batch).await);
        assert_eq!(batch.len(), BATCH);
        batch.clear();
        assert!(next_batch(&mut commands, &mut batch).await);
        assert_eq!(batch, vec![BATCH, BATCH + 1, BATCH + 2]);
        batch.clear();
        assert!(!next_batch(&mut commands, &mut batch).await);
    }
}

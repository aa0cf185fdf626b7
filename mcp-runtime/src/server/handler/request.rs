//! The data of one request, behind its handler's [`Ctx`]: set by the
//! request path through the methods here, the resume state only as the
//! state gate's [`Verified`].
//!
//! [`Ctx`]: super::Ctx

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::watch;

use super::answers::{RoundAnswers, RoundTrip, SentAnswers};
use super::catalog::SharedValues;
use super::inline::InlineRound;
use crate::receive_context::ReceiveContext;
use crate::schema::{McpError, RequestId, RequestMeta};
use crate::server::gate::Verified;
use crate::server::legacy::Session;
use crate::server::notify::{ChangeNotifier, Notifier};
use crate::server::url_steps::UrlSteps;

/// What every handler of a server can reach beyond its request: the values
/// shared at build time, the change announcer, the URL steps.
#[derive(Debug)]
pub(crate) struct Services {
    /// Values given to `ServerBuilder::share`, by type.
    pub(crate) shared: SharedValues,
    /// Announces changes to `subscriptions/listen` streams and sessions.
    pub(crate) changes: ChangeNotifier,
    /// The server's URL steps, if it tracks them.
    pub(crate) url_steps: Option<UrlSteps>,
    /// The most bytes of answers a handler asking in line carries between
    /// rounds.
    pub(crate) carried_limit: usize,
}

impl Default for Services {
    fn default() -> Self {
        Self {
            shared: SharedValues::default(),
            changes: ChangeNotifier::default(),
            url_steps: None,
            carried_limit: crate::budget::MemoryLimits::default().max_carried_answer_bytes,
        }
    }
}

/// A round's link to its task, in the handler's context.
#[derive(Debug, Clone)]
pub(crate) struct TaskLink {
    /// The task's id.
    pub(crate) id: String,
    /// Turns `true` when the task is cancelled.
    pub(crate) cancelled: watch::Receiver<bool>,
}

/// The data of one request. Its fields are this module's.
#[derive(Debug, Clone)]
pub(crate) struct RequestData {
    request_id: RequestId,
    method: Cow<'static, str>,
    meta: RequestMeta,
    /// This round's `inputResponses`.
    answers: Option<RoundAnswers>,
    /// The `requestState` the client echoed, as received.
    request_state: Option<String>,
    /// What the state gate let through: the payload resumed from, the
    /// bound signer.
    verified: Verified,
    receive: ReceiveContext,
    /// The 2025-era session the request came in, if any.
    session: Option<Session>,
    notifier: Notifier,
    services: Arc<Services>,
    /// Whether the request is of the 2025 era (then an input-required
    /// result goes through the bridge, and results take the 2025 shape).
    legacy: bool,
    /// The task this run is a round of (tasks extension).
    task: Option<TaskLink>,
    /// What this run asked and heard in line (new for every run).
    inline: InlineRound,
}

impl RequestData {
    /// The data of a request as dispatch received it, before its round
    /// trip is read and the state gate has been passed.
    pub(crate) fn new(
        request_id: RequestId,
        method: Cow<'static, str>,
        meta: RequestMeta,
        receive: ReceiveContext,
        notifier: Notifier,
        services: Arc<Services>,
    ) -> Self {
        Self {
            request_id,
            method,
            meta,
            answers: None,
            request_state: None,
            verified: Verified::default(),
            receive,
            session: None,
            notifier,
            services,
            legacy: false,
            task: None,
            inline: InlineRound::default(),
        }
    }

    /// This request marked as of the 2025 era, in `session` if it has one.
    pub(crate) fn in_2025_era(mut self: Arc<Self>, session: Option<Session>) -> Arc<Self> {
        let this = Arc::make_mut(&mut self);
        this.legacy = true;
        this.session = session;
        self
    }

    /// Takes this round's answers and echoed state, checking their shapes:
    /// an object of objects, and a string (`-32602` otherwise).
    pub(crate) fn take_round_trip(&mut self, round_trip: RoundTrip) -> Result<(), McpError> {
        self.answers = round_trip
            .input_responses
            .map(SentAnswers::into_checked)
            .transpose()?;
        self.request_state = match round_trip.request_state {
            None => None,
            Some(Value::String(state)) => Some(state),
            Some(_) => return Err(McpError::invalid_params("requestState must be a string")),
        };
        Ok(())
    }

    /// Sets what the state gate let through for this round.
    pub(crate) fn pass(&mut self, verified: Verified) {
        self.verified = verified;
    }

    /// The next round of a bridged request: the same request, with the
    /// answers the client gave and the state the gate carried over
    /// (`raw`: a state a server without a signer hands on as it is).
    pub(crate) fn next_round(
        &self,
        answers: RoundAnswers,
        verified: Verified,
        raw: Option<String>,
    ) -> Self {
        Self {
            answers: Some(answers),
            request_state: raw,
            verified,
            ..self.clone()
        }
    }

    /// This request as a round of a task: linked to it, and with no stream
    /// (progress and log messages have nowhere to go in a task).
    #[cfg(feature = "tasks")]
    pub(crate) fn in_task(mut self: Arc<Self>, task: TaskLink) -> Arc<Self> {
        let this = Arc::make_mut(&mut self);
        this.task = Some(task);
        this.notifier = Notifier::disabled();
        self
    }

    /// A later round of a task, run for the `tasks/update` request `self`:
    /// under the `_meta` of the call that made the task, with the round's
    /// answers, as a `tools/call`.
    #[cfg(feature = "tasks")]
    pub(crate) fn task_round(
        mut self: Arc<Self>,
        meta: RequestMeta,
        answers: RoundAnswers,
        task: TaskLink,
    ) -> Arc<Self> {
        let this = Arc::make_mut(&mut self);
        this.method = Cow::Borrowed(crate::schema::request_methods::TOOLS_CALL);
        this.meta = meta;
        this.answers = Some(answers);
        this.request_state = None;
        this.verified = Verified::default();
        this.legacy = false;
        self.in_task(task)
    }

    /// The request's id.
    pub(crate) fn request_id(&self) -> &RequestId {
        &self.request_id
    }

    /// The method served.
    pub(crate) fn method(&self) -> &str {
        &self.method
    }

    /// The request's `_meta` (a 2025-era request's, from its session).
    pub(crate) fn meta(&self) -> &RequestMeta {
        &self.meta
    }

    /// This round's answers.
    pub(crate) fn answers(&self) -> Option<&RoundAnswers> {
        self.answers.as_ref()
    }

    /// The echoed state, as received.
    pub(crate) fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }

    /// What the state gate let through.
    pub(crate) fn verified(&self) -> &Verified {
        &self.verified
    }

    /// What the transport knows.
    pub(crate) fn receive(&self) -> &ReceiveContext {
        &self.receive
    }

    /// The 2025-era session, if any.
    pub(crate) fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// The request's way out.
    pub(crate) fn notifier(&self) -> &Notifier {
        &self.notifier
    }

    /// The server's URL steps, if it tracks them.
    pub(crate) fn url_steps(&self) -> Option<&UrlSteps> {
        self.services.url_steps.as_ref()
    }

    /// Whether the request is of the 2025 era.
    pub(crate) fn is_legacy(&self) -> bool {
        self.legacy
    }

    /// What handlers reach beyond their request.
    pub(crate) fn services(&self) -> &Services {
        &self.services
    }

    /// The task this run is a round of, if any.
    pub(crate) fn task(&self) -> Option<&TaskLink> {
        self.task.as_ref()
    }

    /// What this run asked and heard in line.
    pub(crate) fn inline(&self) -> &InlineRound {
        &self.inline
    }

    /// Replaces this round's answers (tests and embedding).
    pub(crate) fn set_answers(&mut self, answers: RoundAnswers) {
        self.answers = Some(answers);
    }
}

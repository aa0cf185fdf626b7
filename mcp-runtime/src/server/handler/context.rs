//! The context every handler receives: the handler's view of its request.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::answers::RoundAnswers;
use super::request::RequestData;
use crate::form::{Answer, ElicitForm};
use crate::receive_context::{ReceiveContext, TransportKind};
use crate::schema::{
    ClientCapabilities, InputRequest, InputResponses, LoggingLevel,
    LoggingMessageNotificationParams, McpError, ProgressNotificationParams, RequestId, RequestMeta,
    notification_methods,
};
use crate::server::notify::{ChangeNotifier, Notifier};
use crate::server::url_steps::{UrlAnswer, UrlStep, UrlStepError, UrlStepStatus};
use crate::state::RequestStateSigner;

/// What a handler knows about the request it serves.
///
/// Cloning is cheap: the request's data is shared, and copied only if a
/// clone is changed (which the runtime does only before the handler runs).
#[derive(Debug, Clone)]
pub struct Ctx {
    data: Arc<RequestData>,
}

impl Ctx {
    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &RequestId {
        self.data.request_id()
    }

    /// The method being served, e.g. `tools/call`.
    pub fn method(&self) -> &str {
        self.data.method()
    }

    /// The parsed per-request `_meta`.
    pub fn meta(&self) -> &RequestMeta {
        self.data.meta()
    }

    /// The client's capabilities for this request. Never inferred from
    /// earlier requests: each request declares its own.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.data.meta().client_capabilities
    }

    /// The newest round's `inputResponses`, as the client sent them. Only
    /// the newest round is ever sent: earlier answers travel in the state.
    pub fn input_responses(&self) -> Option<&InputResponses> {
        self.data.answers().map(|a| a.tree())
    }

    /// The raw answer under `key` in the newest round, if any.
    pub fn input_response(&self, key: &str) -> Option<&Value> {
        self.data.answers()?.tree().get(key)
    }

    /// The answer under `key` to a form elicitation, decoded as form `T`.
    ///
    /// The raw response is parsed as an `ElicitResult`; `decline` and
    /// `cancel` map to [`Answer::Decline`] and [`Answer::Cancel`]; an
    /// accepted form is checked against `T`'s schema and decoded (content
    /// that fails is [`Answer::Invalid`], naming the field); no response
    /// under `key` this round is [`Answer::Missing`].
    ///
    /// ```
    /// use mcp_runtime::form::{Answer, ElicitForm, FieldOptions, FormDecoder, FormError, FormSchema};
    /// use mcp_runtime::schema::{CallToolResult, RenderedSchema};
    /// use mcp_runtime::server::handler::{Ask, Ctx, Outcome};
    /// use std::sync::OnceLock;
    ///
    /// // What `#[derive(ElicitForm)]` writes for `struct Confirm { ok: bool }`.
    /// struct Confirm {
    ///     ok: bool,
    /// }
    /// impl ElicitForm for Confirm {
    ///     fn form_schema() -> &'static RenderedSchema {
    ///         static SCHEMA: OnceLock<RenderedSchema> = OnceLock::new();
    ///         SCHEMA.get_or_init(|| FormSchema::new().field::<bool>("ok", FieldOptions::EMPTY).render())
    ///     }
    ///     fn decode(decoder: &mut FormDecoder<'_>) -> Result<Self, FormError> {
    ///         Ok(Self { ok: decoder.field("ok")? })
    ///     }
    /// }
    ///
    /// fn deploy(ctx: &Ctx) -> Outcome<CallToolResult> {
    ///     match ctx.answer::<Confirm>("confirm") {
    ///         Answer::Accept(Confirm { ok: true }) => Outcome::Complete(CallToolResult::text("Deployed.")),
    ///         Answer::Accept(_) | Answer::Decline | Answer::Cancel => {
    ///             Outcome::Complete(CallToolResult::text("Not deployed."))
    ///         }
    ///         Answer::Missing | Answer::Invalid(_) => Outcome::InputRequired(
    ///             Ask::new("confirm", Confirm::form("Deploy to production?")),
    ///         ),
    ///     }
    /// }
    /// ```
    pub fn answer<T: ElicitForm>(&self, key: &str) -> Answer<T> {
        // Straight from the JSON the client sent, with no tree between.
        Answer::from_json(self.data.answers().and_then(|a| a.get(key)))
    }

    /// Asks `request` under `key` and returns its answer, read as `A`: a
    /// form type, [`UrlConsent`](crate::form::UrlConsent) for a URL,
    /// [`Decision<T>`](super::Decision) to read a refusal as a value (see
    /// [`FromAnswer`](super::FromAnswer)). Pass the error on with `?`.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    ///
    /// #[derive(ElicitForm)]
    /// struct Confirm {
    ///     /// Go ahead?
    ///     ok: bool,
    /// }
    ///
    /// /// Pages the engineer on call.
    /// #[tool]
    /// async fn page(ctx: Ctx) -> Result<String, ToolError> {
    ///     let confirm: Confirm = ctx.ask("confirm", Confirm::form("Page Ada?")).await?;
    ///     Ok(if confirm.ok { "Paged." } else { "Not paged." }.to_owned())
    /// }
    /// ```
    ///
    /// **The handler runs again from the top each round.** On a round
    /// without the answer the question is recorded and the call fails with
    /// [`Unanswered::Asked`](super::Unanswered::Asked); once the handler has
    /// returned, the round ends with an input-required result asking every
    /// question recorded, whatever the handler returned. The client answers
    /// and calls again; the handler runs from the top, and this time `ask`
    /// returns the answer. Answers of earlier rounds travel in the state,
    /// signed (and sealed, with a sealing key) and bound to this call, so
    /// the client sends only the newest and cannot change an earlier one.
    /// Code before the last `ask` therefore runs once per round: keep side
    /// effects after the questions, or make them idempotent.
    ///
    /// - Several questions in one round: create the futures before awaiting
    ///   them, e.g. `tokio::try_join!(ctx.ask(..), ctx.ask(..))`; each
    ///   records its question when it is created.
    /// - An answer that cannot be read (a field out of range, say) is asked
    ///   again, with the reason, naming the field, in front of the form's
    ///   message.
    /// - A decline or cancel fails with [`Unanswered::Declined`](super::Unanswered::Declined) or
    ///   [`Cancelled`](super::Unanswered::Cancelled): a tool's result says
    ///   so with `isError: true`, a prompt or resource answers `-32602`.
    ///   Ask for `Decision<T>` to handle it yourself.
    /// - It works the same for 2026-07-28 clients, for 2025-era clients
    ///   (the runtime asks them with `elicitation/create` and runs the
    ///   handler again in process) and inside tasks.
    /// - It needs `ServerBuilder::request_state_signer` (without one the
    ///   round fails with `-32603`, logged saying so), and the answers
    ///   carried are bounded (`MemoryLimits::max_carried_answer_bytes`,
    ///   64 KiB by default; beyond it the call is refused with `-32602`).
    ///
    /// A handler that wants an explicit typed state between rounds takes
    /// [`Resume<S>`](super::Resume) instead; do not mix the two in one
    /// handler.
    pub fn ask<A: super::FromAnswer>(
        &self,
        key: &str,
        request: InputRequest,
    ) -> impl Future<Output = Result<A, super::Unanswered>> + Send + use<A> {
        super::inline::ask(&self.data, key, request)
    }

    /// Sends the user to a URL and returns once they have been there, in
    /// line: the URL-step counterpart of [`ask`](Self::ask). The step is
    /// opened on the first round (`url` writes the address for it: put the
    /// step's [`id`](UrlStep::id) in it) and carried in the state after, so
    /// every round of the call sees the same step. Once the user accepted
    /// and the application marked the step complete
    /// ([`UrlSteps::complete`](crate::server::url_steps::UrlSteps::complete)),
    /// it returns the step; accepted but not complete within two seconds,
    /// the user is asked again; an expired step is replaced by a new one.
    /// Needs `ServerBuilder::url_steps` ([`Unanswered::Failed`](super::Unanswered::Failed),
    /// logged, otherwise).
    pub async fn ask_url_step(
        &self,
        key: &str,
        message: &str,
        url: impl Fn(&UrlStep) -> String,
    ) -> Result<UrlStep, super::Unanswered> {
        use super::inline;
        let data = &*self.data;
        let failed = |why: &str| {
            tracing::warn!(key = %crate::logged::Wire(key), why, "a URL step could not be asked");
            super::Unanswered::Failed {
                key: key.to_owned(),
            }
        };
        let open = || async {
            let step = self
                .open_url_step()
                .await
                .map_err(|e| failed(&e.to_string()))?;
            inline::keep_step(data, key, &step);
            Ok(step)
        };
        let step = match inline::step(data, key) {
            Some(step) => step,
            None => open().await?,
        };
        let _: crate::form::UrlConsent =
            inline::ask(data, key, step.request(message, url(&step))).await?;
        match self
            .wait_url_step(&step, std::time::Duration::from_secs(2))
            .await
        {
            UrlAnswer::Completed => Ok(step),
            UrlAnswer::Pending => Err(inline::ask_anew(
                data,
                key,
                step.request(message, url(&step)),
            )),
            UrlAnswer::Expired => {
                let step = open().await?;
                Err(inline::ask_anew(
                    data,
                    key,
                    step.request(message, url(&step)),
                ))
            }
            UrlAnswer::Unavailable(why) => Err(failed(&why)),
            other => Err(failed(&format!("unexpected step status {other:?}"))),
        }
    }

    /// Opens a URL step for this request's caller (it owns it: only the
    /// same authenticated subject can complete it), open for the server's
    /// step lifetime. Needs `ServerBuilder::url_steps` (`-32603`
    /// otherwise, or when the store cannot be reached).
    pub async fn open_url_step(&self) -> Result<UrlStep, McpError> {
        let steps = self
            .data
            .url_steps()
            .ok_or_else(|| McpError::internal("open_url_step needs ServerBuilder::url_steps"))?;
        steps
            .open(self.data.receive().subject())
            .await
            .map_err(|e| McpError::internal(format!("could not open a URL step: {e}")))
    }

    /// What became of `step`, asked under `key`: the client's answer to
    /// the URL-mode request, and whether the application marked the step
    /// complete. [`UrlAnswer::Completed`] only
    /// when the user accepted **and** the step is done.
    pub async fn url_step_answer(&self, key: &str, step: &UrlStep) -> UrlAnswer {
        match self.answer::<crate::form::UrlConsent>(key) {
            Answer::Accept(_) => self.url_step_status(step).await,
            Answer::Decline => UrlAnswer::Declined,
            Answer::Cancel => UrlAnswer::Cancelled,
            Answer::Missing | Answer::Invalid(_) => UrlAnswer::Missing,
        }
    }

    /// Waits until `step` is complete, at most `within` (and at most a
    /// minute): `Completed`, or what it still is when the wait ends.
    pub async fn wait_url_step(&self, step: &UrlStep, within: std::time::Duration) -> UrlAnswer {
        let deadline = std::time::Instant::now() + within.min(std::time::Duration::from_secs(60));
        let mut pause = std::time::Duration::from_millis(20);
        loop {
            let status = self.url_step_status(step).await;
            if status != UrlAnswer::Pending || std::time::Instant::now() >= deadline {
                return status;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(std::time::Duration::from_millis(250));
        }
    }

    /// Where `step` stands in the server's store, as an answer.
    async fn url_step_status(&self, step: &UrlStep) -> UrlAnswer {
        let Some(steps) = self.data.url_steps() else {
            return UrlAnswer::Unavailable("the server has no URL steps".to_owned());
        };
        match steps.status(step, self.data.receive().subject()).await {
            Ok(UrlStepStatus::Completed) => {
                // A 2025-era client asked for it hears before the result.
                steps.announce(step.id()).await;
                UrlAnswer::Completed
            }
            Ok(UrlStepStatus::Pending) => UrlAnswer::Pending,
            Err(UrlStepError::Unavailable(why)) => UrlAnswer::Unavailable(why),
            Err(UrlStepError::Unknown | UrlStepError::Foreign | UrlStepError::Full) => {
                UrlAnswer::Expired
            }
        }
    }

    /// The `requestState` the client echoed, exactly as received.
    pub fn request_state(&self) -> Option<&str> {
        self.data.request_state()
    }

    /// The payload of the echoed `requestState`, verified under this
    /// request's binding before the handler runs. `None` on a first call,
    /// and always `None` when the server has no signer.
    pub fn state_payload(&self) -> Option<&[u8]> {
        self.data.verified().payload()
    }

    /// The verified state decoded from JSON. A payload that verified but does
    /// not decode (minted by an older build, say) is refused with the same
    /// `-32602` as a forged state; the reason is logged.
    pub fn state<T: DeserializeOwned>(&self) -> Result<Option<T>, McpError> {
        let Some(payload) = self.data.verified().payload() else {
            return Ok(None);
        };
        serde_json::from_slice(payload).map(Some).map_err(|error| {
            tracing::warn!(%error, method = %self.data.method(), "refused a requestState whose payload does not decode");
            McpError::InvalidRequestState
        })
    }

    /// Announces list and resource changes to open `subscriptions/listen`
    /// streams (e.g. after a tool was added).
    pub fn changes(&self) -> &ChangeNotifier {
        &self.data.services().changes
    }

    /// The id of the task this run is a round of, when the call runs as a
    /// task (tasks extension); `None` otherwise.
    pub fn task_id(&self) -> Option<&str> {
        self.data.task().map(|t| t.id.as_str())
    }

    /// Whether the task this run is a round of was cancelled
    /// (`tasks/cancel`). A long handler checks it, or awaits
    /// [`Self::cancelled`], and stops; one that does not is dropped after
    /// the server's cancel grace. Always `false` outside tasks.
    pub fn is_cancelled(&self) -> bool {
        self.data.task().is_some_and(|t| *t.cancelled.borrow())
    }

    /// Resolves once the task this run is a round of is cancelled; never
    /// outside tasks. Meant for `tokio::select!` beside the handler's work.
    pub async fn cancelled(&self) {
        let Some(task) = self.data.task() else {
            return std::future::pending().await;
        };
        let mut cancelled = task.cancelled.clone();
        if cancelled.wait_for(|c| *c).await.is_err() {
            // The sender is gone: the round is being dropped anyway.
            std::future::pending::<()>().await;
        }
    }

    /// The value of type `T` given to `ServerBuilder::share`, if any.
    pub fn shared<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let value = self
            .data
            .services()
            .shared
            .get(&std::any::TypeId::of::<T>())?;
        Arc::clone(value).downcast::<T>().ok()
    }

    /// The server's signer, already bound to this request (caller, method,
    /// target, arguments), for minting the next state.
    pub fn signer(&self) -> Option<&RequestStateSigner> {
        self.data.verified().signer()
    }

    /// Mints a `requestState` carrying `value` as JSON, bound to this
    /// request, for a hand-written handler that sets it with
    /// [`Ask::with_state`](crate::server::handler::Ask::with_state). An error when the server
    /// has no signer.
    ///
    /// Usually unnecessary: hand the value to [`Ask::resume`](crate::server::handler::Ask::resume)
    /// (or return a [`Reply`](crate::server::handler::Reply) with `.resume(...)`) and the
    /// runtime signs it once the handler returns, without verifying it again.
    pub fn mint_state<T: Serialize + ?Sized>(&self, value: &T) -> Result<String, McpError> {
        let signer = self.data.verified().signer().ok_or_else(|| {
            McpError::internal("a handler minted a requestState but the server has no signer")
        })?;
        signer
            .sign_json(value)
            .map_err(|e| McpError::internal(format!("could not mint a requestState: {e}")))
    }

    /// Transport-level facts: transport kind, caller, headers.
    pub fn receive(&self) -> &ReceiveContext {
        self.data.receive()
    }

    /// Reports progress, if the request carried a `progressToken` and the
    /// transport can stream. Returns whether the notification was sent.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let Some(token) = self.data.meta().progress_token.clone() else {
            return false;
        };
        let params = ProgressNotificationParams {
            progress_token: token,
            progress,
            total,
            message: message.map(str::to_owned),
            meta: None,
        };
        self.data
            .notifier()
            .send(notification_methods::PROGRESS, params)
            .await
    }

    /// Ends the HTTP event stream this request's messages travel on, asking
    /// the client to reconnect after `retry` (SSE polling, 2025-11-25): the
    /// request goes on, and what it sends from now on, its response
    /// included, waits for the client to resume the stream with
    /// `Last-Event-ID`. Only for a 2025-era client over HTTP whose request
    /// accepted an event stream; elsewhere nothing happens and this returns
    /// `false`.
    pub fn close_stream(&self, retry: std::time::Duration) -> bool {
        self.data.notifier().close_stream(retry)
    }

    /// Sends a log message, if the request's `_meta` asked for a level at
    /// or below `level`. Without a requested level nothing is sent.
    /// Logging is deprecated in 2026-07-28 but still part of it.
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) -> bool {
        match self.data.meta().log_level {
            Some(wanted) if level >= wanted => {}
            _ => return false,
        }
        let params = LoggingMessageNotificationParams {
            level,
            logger: logger.map(str::to_owned),
            data,
            meta: None,
        };
        self.data
            .notifier()
            .send(notification_methods::MESSAGE, params)
            .await
    }

    /// Sets the newest round's `inputResponses` (for tests and embedding,
    /// with [`detached`](Self::detached)).
    #[doc(hidden)]
    pub fn with_input_responses(mut self, responses: InputResponses) -> Self {
        self.data_mut()
            .set_answers(RoundAnswers::from_map(&responses));
        self
    }

    /// A context for calling a handler directly (tests, embedding): no
    /// transport, no caller, no notifications.
    pub fn detached(method: &'static str, meta: RequestMeta) -> Self {
        Self::from_data(Arc::new(RequestData::new(
            RequestId::Number(0),
            Cow::Borrowed(method),
            meta,
            ReceiveContext::new(TransportKind::InProcess),
            Notifier::disabled(),
            Arc::default(),
        )))
    }

    pub(crate) fn from_data(data: Arc<RequestData>) -> Self {
        Self { data }
    }

    /// A context for the handler, and the request's data kept for what
    /// follows it (finishing its result), shared rather than copied.
    pub(crate) fn shared_with(data: Arc<RequestData>) -> (Self, Arc<RequestData>) {
        let ctx = Self::from_data(data);
        let kept = Arc::clone(&ctx.data);
        (ctx, kept)
    }

    /// The request's data, to change before the handler runs (copied
    /// first if a clone shares it).
    pub(crate) fn data_mut(&mut self) -> &mut RequestData {
        Arc::make_mut(&mut self.data)
    }

    /// The request's data.
    pub(crate) fn data(&self) -> &RequestData {
        &self.data
    }
}

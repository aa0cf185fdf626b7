//! The auto-fulfil loop: answer every input request of an
//! `input_required` result through the registered handlers, then retry
//! with a new id, the newest answers only, and the exact `requestState`.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::answering::{PerCall, answer_round, with_elicitation};
#[cfg(feature = "tasks")]
use super::tasks::{self, TASK_RESULT_TYPE};
use super::{Client, ClientBuilder, ClientError, capabilities_of, decode, result_type};
use crate::BoxFuture;
use crate::form::ElicitForm;
use crate::schema::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestFormParams,
    ElicitRequestParams, ElicitRequestUrlParams, ElicitResult, ElicitValue, InputRequest,
    InputRequiredResult, InputResponses, JsonObject, ListRootsResult, ProgressToken, ResultType,
    input_methods,
};

/// One round of a request: a step of the ordinary kind, or (with the
/// `tasks` feature) a task.
pub(super) enum Round<T> {
    /// A complete result or an `InputRequiredResult`.
    Step(Step<T>),
    /// The `CreateTaskResult`.
    #[cfg(feature = "tasks")]
    Task(Box<crate::schema::Task>),
}

/// How the rounds of a call before its task ended.
pub(super) enum Ended<T> {
    /// The server answered directly.
    Complete(T),
    /// The server created this task, after this many fulfilled rounds.
    #[cfg(feature = "tasks")]
    Task(Box<crate::schema::Task>, usize),
}

type Handler<P, R> = Arc<dyn Fn(P) -> BoxFuture<'static, R> + Send + Sync>;

fn boxed<P, R, F, Fut>(f: F) -> Handler<P, R>
where
    F: Fn(P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
{
    Arc::new(move |params| Box::pin(f(params)))
}

/// The handlers a client answers input requests with; each one registered
/// declares the matching client capability.
#[derive(Default, Clone)]
pub struct Handlers {
    elicit_form: Option<Handler<ElicitRequestFormParams, ElicitResult>>,
    elicit_url: Option<Handler<ElicitRequestUrlParams, ElicitResult>>,
    sampling: Option<Handler<CreateMessageRequestParams, CreateMessageResult>>,
    roots: Option<Handler<(), ListRootsResult>>,
}

impl Handlers {
    /// Answers form-mode elicitations (declares `elicitation.form`).
    pub fn set_elicit_form<F, Fut>(&mut self, f: F)
    where
        F: Fn(ElicitRequestFormParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        self.elicit_form = Some(boxed(f));
    }

    /// Answers URL-mode elicitations (declares `elicitation.url`). An
    /// `accept` means the user consented; the server decides on the retry
    /// whether the out-of-band step finished.
    pub fn set_elicit_url<F, Fut>(&mut self, f: F)
    where
        F: Fn(ElicitRequestUrlParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        self.elicit_url = Some(boxed(f));
    }

    /// Answers sampling requests (declares `sampling`; deprecated kind).
    pub fn set_sampling<F, Fut>(&mut self, f: F)
    where
        F: Fn(CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CreateMessageResult> + Send + 'static,
    {
        self.sampling = Some(boxed(f));
    }

    /// Answers `roots/list` requests (declares `roots`; deprecated kind).
    pub fn set_roots<F, Fut>(&mut self, f: F)
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ListRootsResult> + Send + 'static,
    {
        self.roots = Some(boxed(move |()| f()));
    }

    /// The client capabilities these handlers declare.
    pub fn capabilities(&self) -> ClientCapabilities {
        capabilities_of(
            self.elicit_form.is_some(),
            self.elicit_url.is_some(),
            self.sampling.is_some(),
            self.roots.is_some(),
        )
    }

    /// The handler-kind name of `request` if no handler answers it.
    #[allow(deprecated)]
    fn missing(&self, request: &InputRequest) -> Option<&'static str> {
        match request {
            InputRequest::Elicitation(ElicitRequestParams::Form(_))
                if self.elicit_form.is_none() =>
            {
                Some("elicitation/create (form)")
            }
            InputRequest::Elicitation(ElicitRequestParams::Url(_)) if self.elicit_url.is_none() => {
                Some("elicitation/create (url)")
            }
            InputRequest::Sampling(_) if self.sampling.is_none() => Some(input_methods::SAMPLING),
            InputRequest::ListRoots if self.roots.is_none() => Some(input_methods::LIST_ROOTS),
            _ => None,
        }
    }

    /// Runs the handler for `request` and returns its answer as JSON.
    #[allow(deprecated)]
    pub(super) async fn answer(
        &self,
        key: &str,
        request: InputRequest,
    ) -> Result<Value, ClientError> {
        let missing = |kind: &str| ClientError::MissingHandler {
            key: key.to_owned(),
            kind: kind.to_owned(),
        };
        let answer = match request {
            InputRequest::Elicitation(ElicitRequestParams::Form(params)) => {
                let handler = self
                    .elicit_form
                    .as_ref()
                    .ok_or_else(|| missing("elicitation/create (form)"))?;
                let defaults = form_defaults(&params);
                serde_json::to_value(handler(params).await).map(|mut answer| {
                    apply_defaults(&mut answer, defaults);
                    answer
                })
            }
            InputRequest::Elicitation(ElicitRequestParams::Url(params)) => {
                let handler = self
                    .elicit_url
                    .as_ref()
                    .ok_or_else(|| missing("elicitation/create (url)"))?;
                serde_json::to_value(handler(params).await)
            }
            InputRequest::Sampling(params) => {
                let handler = self
                    .sampling
                    .as_ref()
                    .ok_or_else(|| missing(input_methods::SAMPLING))?;
                serde_json::to_value(handler(*params).await)
            }
            InputRequest::ListRoots => {
                let handler = self
                    .roots
                    .as_ref()
                    .ok_or_else(|| missing(input_methods::LIST_ROOTS))?;
                serde_json::to_value(handler(()).await)
            }
        };
        answer.map_err(|e| ClientError::Transport(format!("cannot encode the answer: {e}")))
    }

    /// Answers every input request of `asked`, keyed exactly as asked.
    /// Refuses up front when any kind has no handler.
    async fn fulfil(&self, asked: &InputRequiredResult) -> Result<InputResponses, ClientError> {
        let requests = asked.input_requests.clone().unwrap_or_default();
        for (key, request) in &requests {
            if let Some(kind) = self.missing(request) {
                return Err(ClientError::MissingHandler {
                    key: key.clone(),
                    kind: kind.to_owned(),
                });
            }
        }
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            let answer = self.answer(&key, request).await?;
            responses.insert(key, answer);
        }
        Ok(responses)
    }
}

impl ClientBuilder {
    /// Answers form-mode elicitations with `f` (declares `elicitation.form`).
    pub fn on_elicit_form<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ElicitRequestFormParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        self.handlers.set_elicit_form(f);
        self
    }

    /// Answers URL-mode elicitations with `f` (declares `elicitation.url`).
    pub fn on_elicit_url<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ElicitRequestUrlParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        self.handlers.set_elicit_url(f);
        self
    }

    /// Answers sampling requests with `f` (declares `sampling`).
    #[deprecated(note = "sampling is deprecated in MCP 2026-07-28 (SEP-2577)")]
    pub fn on_sampling<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CreateMessageResult> + Send + 'static,
    {
        self.handlers.set_sampling(f);
        self
    }

    /// Answers `roots/list` requests with `f` (declares `roots`).
    #[deprecated(note = "roots are deprecated in MCP 2026-07-28 (SEP-2577)")]
    pub fn on_roots<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ListRootsResult> + Send + 'static,
    {
        self.handlers.set_roots(f);
        self
    }
}

/// An accepted form answer carrying `value`, serialised field by field
/// into the content map (each field must be a string, number, boolean or
/// list of strings, as every `ElicitForm` field is).
pub fn form_answer<T: ElicitForm + Serialize>(value: &T) -> Result<ElicitResult, ClientError> {
    let encode = |e: String| ClientError::MalformedResponse(format!("cannot encode form: {e}"));
    let Value::Object(fields) = serde_json::to_value(value).map_err(|e| encode(e.to_string()))?
    else {
        return Err(encode("a form serialises to an object".into()));
    };
    let mut content = BTreeMap::new();
    for (name, field) in fields {
        if field.is_null() {
            continue; // an empty optional field is left out
        }
        let field: ElicitValue =
            serde_json::from_value(field).map_err(|e| encode(format!("field {name:?}: {e}")))?;
        content.insert(name, field);
    }
    Ok(ElicitResult::accept(content))
}

/// The answers and state a retry carries: the previous round's
/// `inputResponses` and its `requestState`, echoed unchanged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Retry {
    /// Answers keyed by the previous round's input request keys.
    pub input_responses: Option<InputResponses>,
    /// The previous round's `requestState`, exactly as received.
    pub request_state: Option<String>,
}

impl Retry {
    /// No answers and no state: a first call.
    pub fn none() -> Self {
        Self::default()
    }

    /// The retry of `asked` carrying `responses`.
    pub fn answering(asked: &InputRequiredResult, responses: InputResponses) -> Self {
        Self {
            // A state-only round ("retry me") is retried without answers.
            input_responses: asked.input_requests.as_ref().map(|_| responses),
            request_state: asked.request_state.clone(),
        }
    }

    fn apply(&self, params: &mut JsonObject) {
        if let Some(responses) = &self.input_responses {
            params.insert("inputResponses".into(), Value::Object(responses.clone()));
        }
        if let Some(state) = &self.request_state {
            params.insert("requestState".into(), Value::String(state.clone()));
        }
    }
}

/// One round's outcome: the complete result, or the server's request for
/// input before a retry.
#[derive(Debug, Clone, PartialEq)]
pub enum Step<T> {
    /// The final result.
    Complete(T),
    /// The server needs input; answer it and retry with [`Retry::answering`].
    InputRequired(InputRequiredResult),
}

impl Client {
    /// Answers every input request of `asked` through the registered
    /// handlers (for callers driving rounds by hand).
    pub async fn fulfil(&self, asked: &InputRequiredResult) -> Result<InputResponses, ClientError> {
        self.handlers.fulfil(asked).await
    }

    pub(super) async fn once<T: DeserializeOwned>(
        &self,
        method: &str,
        params: JsonObject,
        retry: &Retry,
    ) -> Result<Step<T>, ClientError> {
        self.once_as(method, params, retry, &self.capabilities)
            .await
    }

    /// One round, declaring `capabilities` in its `_meta`. A task
    /// (`resultType: "task"`) is an unknown result type here: only the
    /// auto-fulfilling calls and `Call::start` take one.
    async fn once_as<T: DeserializeOwned>(
        &self,
        method: &str,
        params: JsonObject,
        retry: &Retry,
        capabilities: &ClientCapabilities,
    ) -> Result<Step<T>, ClientError> {
        match self
            .round_as(method, params, retry, capabilities, None)
            .await?
        {
            Round::Step(step) => Ok(step),
            #[cfg(feature = "tasks")]
            Round::Task(_) => Err(ClientError::UnknownResultType(TASK_RESULT_TYPE.into())),
        }
    }

    /// One round, declaring `capabilities` in its `_meta`: a step, or the
    /// task the server created (only when `capabilities` declare the tasks
    /// extension; see [`tasks::created`]).
    async fn round_as<T: DeserializeOwned>(
        &self,
        method: &str,
        mut params: JsonObject,
        retry: &Retry,
        capabilities: &ClientCapabilities,
        progress: Option<&ProgressToken>,
    ) -> Result<Round<T>, ClientError> {
        retry.apply(&mut params);
        let result = self
            .request_as(method, params, capabilities, progress)
            .await?;
        match result_type(&result)? {
            ResultType::Complete => decode(result).map(|r| Round::Step(Step::Complete(r))),
            ResultType::InputRequired => {
                decode(result).map(|r| Round::Step(Step::InputRequired(r)))
            }
            #[cfg(feature = "tasks")]
            ResultType::Other(kind) => {
                tasks::created(method, kind, result, capabilities).map(Round::Task)
            }
            // Without the `tasks` feature the client never declares the
            // extension, so a `CreateTaskResult` (`resultType: "task"`) is
            // a result type it does not know, as any other: a protocol
            // error the caller gets, never a panic.
            #[cfg(not(feature = "tasks"))]
            ResultType::Other(kind) => Err(ClientError::UnknownResultType(kind)),
        }
    }

    pub(super) async fn fulfilling<T: DeserializeOwned>(
        &self,
        method: &str,
        params: JsonObject,
    ) -> Result<T, ClientError> {
        self.fulfilling_with(method, params, None, None).await
    }

    /// The auto-fulfil loop; `per_call`, when given, is asked first about
    /// every input request and the call declares elicitation for it.
    pub(super) async fn fulfilling_with<T: DeserializeOwned>(
        &self,
        method: &str,
        params: JsonObject,
        per_call: Option<&PerCall<'_>>,
        progress: Option<&ProgressToken>,
    ) -> Result<T, ClientError> {
        let limit = self.limits.max_duration;
        let capabilities = match per_call {
            Some(_) => with_elicitation(&self.capabilities),
            None => self.capabilities.clone(),
        };
        let rounds = async {
            match self
                .until_task(method, params, per_call, &capabilities, progress)
                .await?
            {
                Ended::Complete(result) => Ok(result),
                #[cfg(feature = "tasks")]
                Ended::Task(created, fulfilled) => {
                    tasks::settle(self, &created, per_call, &capabilities, fulfilled).await
                }
            }
        };
        tokio::time::timeout(limit, rounds)
            .await
            .map_err(|_| ClientError::Timeout(limit))?
    }

    /// The rounds of a call until its result is complete or the server
    /// creates a task, with how many rounds were fulfilled before it.
    // Without the `tasks` feature a round is always a step.
    #[cfg_attr(not(feature = "tasks"), allow(clippy::infallible_destructuring_match))]
    pub(super) async fn until_task<T: DeserializeOwned>(
        &self,
        method: &str,
        params: JsonObject,
        per_call: Option<&PerCall<'_>>,
        capabilities: &ClientCapabilities,
        progress: Option<&ProgressToken>,
    ) -> Result<Ended<T>, ClientError> {
        let mut retry = Retry::none();
        let mut fulfilled = 0usize;
        loop {
            let step = match self
                .round_as(method, params.clone(), &retry, capabilities, progress)
                .await?
            {
                Round::Step(step) => step,
                #[cfg(feature = "tasks")]
                Round::Task(created) => return Ok(Ended::Task(created, fulfilled)),
            };
            match step {
                Step::Complete(result) => return Ok(Ended::Complete(result)),
                Step::InputRequired(asked) => {
                    if fulfilled >= self.limits.max_rounds {
                        return Err(ClientError::RoundsExceeded {
                            max_rounds: self.limits.max_rounds,
                        });
                    }
                    let responses = match per_call {
                        Some(per_call) => answer_round(per_call, &self.handlers, &asked).await?,
                        None => self.handlers.fulfil(&asked).await?,
                    };
                    fulfilled += 1;
                    retry = Retry::answering(&asked, responses);
                }
            }
        }
    }
}

/// The `default` of each field of a form request (SEP-1034).
fn form_defaults(form: &ElicitRequestFormParams) -> serde_json::Map<String, Value> {
    declared_defaults(form).unwrap_or_default()
}

fn declared_defaults(form: &ElicitRequestFormParams) -> Option<serde_json::Map<String, Value>> {
    let schema = serde_json::to_value(&*form.requested_schema).ok()?;
    let defaults: serde_json::Map<String, Value> = schema
        .get("properties")?
        .as_object()?
        .iter()
        .filter_map(|(name, field)| Some((name.clone(), field.get("default")?.clone())))
        .collect();
    Some(defaults)
}

/// Fills the fields an accepted form left out with their defaults
/// (SEP-1034: a client applies the defaults the form declares).
fn apply_defaults(result: &mut Value, defaults: serde_json::Map<String, Value>) {
    if defaults.is_empty() || result.get("action").and_then(Value::as_str) != Some("accept") {
        return;
    }
    let Some(object) = result.as_object_mut() else {
        return;
    };
    let content = object
        .entry("content")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if let Some(content) = content.as_object_mut() {
        for (name, value) in defaults {
            content.entry(name).or_insert(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_fill_only_what_an_accepted_form_left_out() {
        let defaults: serde_json::Map<String, Value> =
            serde_json::from_value(json!({"name": "John", "age": 30})).unwrap();
        let mut accepted = json!({"action": "accept", "content": {"name": "Ann"}});
        apply_defaults(&mut accepted, defaults.clone());
        assert_eq!(accepted["content"], json!({"name": "Ann", "age": 30}));
        let mut declined = json!({"action": "decline"});
        apply_defaults(&mut declined, defaults);
        assert_eq!(declined, json!({"action": "decline"}));
    }
}

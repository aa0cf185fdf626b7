//! Questions asked in line: [`Ctx::ask`](super::Ctx::ask).
//!
//! A handler that asks in line runs again from the top every round. Each
//! `ask` looks for its answer among the answers carried from earlier rounds
//! (in the signed state), then among this round's `inputResponses`; found
//! and valid, it returns it and keeps it to carry on. Not found (or
//! invalid), it records the question and fails with
//! [`Unanswered::Asked`], which the handler passes on with `?`. Once the
//! handler has returned, [`settle`] ends the round with the questions
//! recorded and, as the state, every answer heard so far: whatever the
//! handler returned is set aside.
//!
//! The carried answers travel as the state's payload, behind a marker that
//! no JSON value starts with, so a payload of the other kind (a `Resume<S>`
//! value) is never read as answers.

use std::collections::BTreeMap;
use std::fmt;
use std::future::{Ready, ready};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::request::RequestData;
use super::{Ask, Outcome, PromptError, ResourceError};
use crate::form::{Answer, ElicitForm};
use crate::schema::{
    CreateMessageResult, ElicitRequestParams, InputRequest, InputRequests, ListRootsResult,
    McpError,
};
use crate::server::url_steps::UrlStep;

/// What starts a payload of carried answers (never the first byte of JSON).
const MARKER: &[u8] = b"\0mcp-ask/1\0";

/// A type an answer to a question asked in line reads into
/// ([`Ctx::ask`](super::Ctx::ask)).
///
/// Implemented for every [`ElicitForm`] (a form, or
/// [`UrlConsent`](crate::form::UrlConsent) for a URL step), for
/// [`Decision<T>`] (to read a decline or cancel as a value), and for the
/// deprecated sampling and roots results.
pub trait FromAnswer: Sized + Send + 'static {
    /// Reads the answer from the JSON text the client sent under the
    /// question's key.
    fn from_answer(json: &str) -> Heard<Self>;

    /// The question asked again after an answer it could not read
    /// ([`Heard::Invalid`]): by default the same question, with the reason
    /// in front of a form's message.
    fn ask_again(request: InputRequest, why: &str) -> InputRequest {
        with_reason(request, why)
    }
}

/// What an answer read as: a value, a refusal, or an answer that cannot be
/// used (asked again).
#[derive(Debug, Clone, PartialEq)]
pub enum Heard<T> {
    /// The value.
    Value(T),
    /// The user refused (`action: "decline"`).
    Declined,
    /// The user dismissed the question (`action: "cancel"`).
    Cancelled,
    /// The answer cannot be used; the reason is shown when asking again.
    Invalid(String),
}

/// A question's answer when a refusal is a value rather than the end of
/// the call: ask for `Decision<T>` instead of `T`.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// #[derive(ElicitForm)]
/// struct Reason {
///     /// Why?
///     why: String,
/// }
///
/// async fn close(ctx: Ctx) -> Result<String, ToolError> {
///     let reason: Decision<Reason> = ctx.ask("reason", Reason::form("Why close it?")).await?;
///     Ok(match reason {
///         Decision::Accept(Reason { why }) => format!("Closed: {why}."),
///         Decision::Decline | Decision::Cancel => "Closed without a reason.".to_owned(),
///     })
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision<T> {
    /// The user answered.
    Accept(T),
    /// The user refused.
    Decline,
    /// The user dismissed the question.
    Cancel,
}

/// Why [`Ctx::ask`](super::Ctx::ask) gave no value: pass it on with `?`.
///
/// It converts into [`ToolError`](super::ToolError) (a tool's declined
/// question becomes a result with `isError: true` saying so),
/// [`McpError`], [`PromptError`] and [`ResourceError`] (a declined question
/// is `-32602` with the same sentence). [`Unanswered::Asked`] ends the round
/// whatever the handler makes of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unanswered {
    /// The question is asked: the round ends with an input-required result
    /// and the handler runs again, from the top, with the answer.
    Asked {
        /// The question's key.
        key: String,
    },
    /// The user refused to answer.
    Declined {
        /// The question's key.
        key: String,
    },
    /// The user dismissed the question.
    Cancelled {
        /// The question's key.
        key: String,
    },
    /// The server could not ask: a URL step could not be opened or read
    /// (the reason is logged). It becomes `-32603`.
    Failed {
        /// The question's key.
        key: String,
    },
}

impl fmt::Display for Unanswered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Asked { key } => write!(f, "waiting for the answer to {key:?}"),
            Self::Declined { key } => write!(f, "the user declined to answer {key:?}"),
            Self::Cancelled { key } => write!(f, "the user dismissed the question {key:?}"),
            Self::Failed { key } => write!(f, "the server could not ask {key:?}"),
        }
    }
}

impl std::error::Error for Unanswered {}

impl From<Unanswered> for McpError {
    fn from(unanswered: Unanswered) -> Self {
        match unanswered {
            // Seen only where no round runs the handler (a detached context).
            Unanswered::Asked { .. } => McpError::internal(format!(
                "{unanswered}, but the handler runs outside a request that can ask"
            )),
            Unanswered::Failed { .. } => McpError::internal(unanswered.to_string()),
            refused => McpError::invalid_params(refused.to_string()),
        }
    }
}

impl From<Unanswered> for PromptError {
    fn from(unanswered: Unanswered) -> Self {
        McpError::from(unanswered).into()
    }
}

impl From<Unanswered> for ResourceError {
    fn from(unanswered: Unanswered) -> Self {
        McpError::from(unanswered).into()
    }
}

impl<T: ElicitForm + Send + 'static> FromAnswer for T {
    fn from_answer(json: &str) -> Heard<Self> {
        match Answer::<T>::from_json(Some(json)) {
            Answer::Accept(value) => Heard::Value(value),
            Answer::Decline => Heard::Declined,
            Answer::Cancel => Heard::Cancelled,
            Answer::Invalid(error) => Heard::Invalid(error.explain::<T>()),
            Answer::Missing => Heard::Invalid("no answer".to_owned()),
        }
    }
}

impl<T: FromAnswer> FromAnswer for Decision<T> {
    fn from_answer(json: &str) -> Heard<Self> {
        match T::from_answer(json) {
            Heard::Value(value) => Heard::Value(Decision::Accept(value)),
            Heard::Declined => Heard::Value(Decision::Decline),
            Heard::Cancelled => Heard::Value(Decision::Cancel),
            Heard::Invalid(why) => Heard::Invalid(why),
        }
    }

    fn ask_again(request: InputRequest, why: &str) -> InputRequest {
        T::ask_again(request, why)
    }
}

/// Reads a result that is not a form (sampling, roots) as serde does.
fn read_result<T: DeserializeOwned>(json: &str) -> Heard<T> {
    match serde_json::from_str(json) {
        Ok(value) => Heard::Value(value),
        Err(error) => Heard::Invalid(format!("The answer could not be used: {error}.")),
    }
}

impl FromAnswer for CreateMessageResult {
    fn from_answer(json: &str) -> Heard<Self> {
        read_result(json)
    }
}

impl FromAnswer for ListRootsResult {
    fn from_answer(json: &str) -> Heard<Self> {
        read_result(json)
    }
}

/// `request` with `why` in front of its message, when it is a form.
fn with_reason(request: InputRequest, why: &str) -> InputRequest {
    match request {
        InputRequest::Elicitation(ElicitRequestParams::Form(mut form)) => {
            form.message = format!("{why} {}", form.message);
            InputRequest::Elicitation(ElicitRequestParams::Form(form))
        }
        other => other,
    }
}

/// What one run of a handler asked and heard in line.
#[derive(Debug, Default)]
pub(crate) struct InlineRound {
    /// Set once a question is recorded: what every run's end reads, with
    /// no lock taken for the runs that ask nothing.
    asked: AtomicBool,
    state: Mutex<Option<Box<Inline>>>,
}

/// The answers and questions of one run, once it asks.
#[derive(Debug, Default)]
struct Inline {
    /// What was carried from earlier rounds, read from the state once.
    carried: Option<Carried>,
    /// What was first heard (or opened) this round, to carry on.
    fresh: Carried,
    /// The questions to ask, if the round ends here.
    questions: InputRequests,
}

/// What travels from round to round in the state: the answers heard, as
/// the client sent them, and the URL steps opened, by question key.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Carried {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    answers: BTreeMap<String, Box<RawValue>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    steps: BTreeMap<String, UrlStep>,
}

impl Inline {
    /// What was carried, read from `data`'s verified state on first use.
    fn carried(&mut self, data: &RequestData) -> &mut Carried {
        self.carried
            .get_or_insert_with(|| read_carried(data.verified().payload()))
    }
}

/// A new round starts with nothing heard, whatever the run it is copied from.
impl Clone for InlineRound {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl InlineRound {
    fn lock(&self) -> MutexGuard<'_, Option<Box<Inline>>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the run asked a question it has no answer to.
    fn asked(&self) -> bool {
        self.asked.load(Ordering::Acquire)
    }

    /// Records `request` under `key` in `inline`, the run's locked state.
    fn record(&self, inline: &mut Inline, key: &str, request: InputRequest) -> Unanswered {
        inline.questions.insert(key.to_owned(), request);
        self.asked.store(true, Ordering::Release);
        Unanswered::Asked {
            key: key.to_owned(),
        }
    }
}

/// Asks `request` under `key` for the run whose data is `data` (see the
/// module docs).
pub(crate) fn ask<A: FromAnswer>(
    data: &RequestData,
    key: &str,
    request: InputRequest,
) -> Ready<Result<A, Unanswered>> {
    let mut guard = data.inline().lock();
    let inline = guard.get_or_insert_with(Box::default);
    let carried = &mut inline.carried(data).answers;
    if let Some(answer) = carried.get(key) {
        match A::from_answer(answer.get()) {
            // Carried under this key for a question of another type.
            Heard::Invalid(_) => drop(carried.remove(key)),
            heard => return ready(settled(heard, key)),
        }
    }
    let mut why = None;
    if let Some(answer) = data.answers().and_then(|a| a.get(key)) {
        match A::from_answer(answer) {
            Heard::Invalid(reason) => why = Some(reason),
            heard => {
                if let Ok(raw) = RawValue::from_string(answer.to_owned()) {
                    inline.fresh.answers.insert(key.to_owned(), raw);
                }
                return ready(settled(heard, key));
            }
        }
    }
    let request = match why {
        Some(why) => A::ask_again(request, &why),
        None => request,
    };
    ready(Err(data.inline().record(inline, key, request)))
}

/// The URL step carried (or opened this round) for the question `key`.
pub(crate) fn step(data: &RequestData, key: &str) -> Option<UrlStep> {
    let mut guard = data.inline().lock();
    let inline = guard.get_or_insert_with(Box::default);
    if let Some(step) = inline.fresh.steps.get(key) {
        return Some(step.clone());
    }
    inline.carried(data).steps.get(key).cloned()
}

/// Keeps `step` for the question `key`, carried on from this round.
pub(crate) fn keep_step(data: &RequestData, key: &str, step: &UrlStep) {
    let mut guard = data.inline().lock();
    let inline = guard.get_or_insert_with(Box::default);
    inline.fresh.steps.insert(key.to_owned(), step.clone());
}

/// Asks `request` under `key` again, whatever was answered to it so far.
pub(crate) fn ask_anew(data: &RequestData, key: &str, request: InputRequest) -> Unanswered {
    let mut guard = data.inline().lock();
    let inline = guard.get_or_insert_with(Box::default);
    inline.carried(data).answers.remove(key);
    inline.fresh.answers.remove(key);
    data.inline().record(inline, key, request)
}

/// A read answer as what `ask` returns.
fn settled<A>(heard: Heard<A>, key: &str) -> Result<A, Unanswered> {
    let key = key.to_owned();
    match heard {
        Heard::Value(value) => Ok(value),
        Heard::Declined => Err(Unanswered::Declined { key }),
        Heard::Cancelled => Err(Unanswered::Cancelled { key }),
        Heard::Invalid(_) => Err(Unanswered::Asked { key }),
    }
}

/// What a verified payload carries; nothing when it carries none (a first
/// round, or a state of another kind).
fn read_carried(payload: Option<&[u8]>) -> Carried {
    payload
        .and_then(|p| p.strip_prefix(MARKER))
        .and_then(|json| serde_json::from_slice(json).ok())
        .unwrap_or_default()
}

/// What the run whose data is `data` came to: when it asked in line
/// something it has no answer to, the round ends with those questions and
/// every answer heard so far as the state, whatever the handler returned;
/// otherwise what the handler returned. `-32602` when the answers to carry
/// exceed the server's bound (the client chose their size).
pub(crate) fn settle<R>(
    returned: Result<Outcome<R>, McpError>,
    data: &RequestData,
) -> Result<Outcome<R>, McpError> {
    if !data.inline().asked() {
        return returned;
    }
    let Some(heard) = data.inline().lock().take() else {
        return returned;
    };
    let Inline {
        carried,
        fresh,
        questions,
    } = *heard;
    let mut kept = carried.unwrap_or_default();
    kept.answers.extend(fresh.answers);
    kept.steps.extend(fresh.steps);
    let mut payload = MARKER.to_vec();
    serde_json::to_writer(&mut payload, &kept)
        .map_err(|e| McpError::internal(format!("could not keep the answers heard: {e}")))?;
    let limit = data.services().carried_limit;
    if payload.len() - MARKER.len() > limit {
        return Err(McpError::invalid_params(format!(
            "the answers to carry to the next round take {} bytes, more than the {limit} this server keeps",
            payload.len() - MARKER.len()
        )));
    }
    if let Ok(Outcome::Complete(_)) = &returned {
        tracing::debug!(
            method = %data.method(),
            "a handler returned a result after asking in line; the questions are asked instead"
        );
    }
    Ok(Outcome::InputRequired(
        Ask::requests(questions).resume_payload(payload),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::UrlConsent;
    use crate::schema::{CallToolResult, InputResponses, RequestMeta};
    use crate::server::gate::NextState;
    use crate::server::handler::Ctx;
    use serde_json::{Value, json};

    #[derive(Debug, PartialEq)]
    struct Seats {
        n: u8,
    }

    impl ElicitForm for Seats {
        fn form_schema() -> &'static crate::schema::RenderedSchema {
            static SCHEMA: std::sync::OnceLock<crate::schema::RenderedSchema> =
                std::sync::OnceLock::new();
            SCHEMA.get_or_init(|| {
                crate::form::FormSchema::new()
                    .field::<u8>(
                        "n",
                        crate::form::FieldOptions {
                            maximum: Some(4.0),
                            ..crate::form::FieldOptions::EMPTY
                        },
                    )
                    .render()
            })
        }
        fn decode(
            decoder: &mut crate::form::FormDecoder<'_>,
        ) -> Result<Self, crate::form::FormError> {
            Ok(Self {
                n: decoder.field("n")?,
            })
        }
    }

    fn ctx(answers: Value) -> Ctx {
        let ctx = Ctx::detached("tools/call", RequestMeta::new(Default::default()));
        match serde_json::from_value::<InputResponses>(answers) {
            Ok(answers) if !answers.is_empty() => ctx.with_input_responses(answers),
            _ => ctx,
        }
    }

    fn ended(ctx: &Ctx) -> Ask {
        let done: Result<Outcome<CallToolResult>, McpError> =
            Ok(Outcome::Complete(CallToolResult::text("set aside")));
        match settle(done, ctx.data()) {
            Ok(Outcome::InputRequired(ask)) => ask,
            other => panic!("the round did not end with the questions: {other:?}"),
        }
    }

    #[tokio::test]
    async fn questions_created_together_are_asked_in_one_round() {
        let ctx = ctx(json!({}));
        let seats = ctx.ask::<Seats>("seats", Seats::form("How many?"));
        let url = ctx.ask::<UrlConsent>(
            "login",
            UrlConsent::request("Sign in.", "https://a.example"),
        );
        let joined = futures_util::future::try_join(seats, url).await;
        assert_eq!(
            joined.err(),
            Some(Unanswered::Asked {
                key: "seats".into()
            })
        );
        let ask = ended(&ctx);
        let keys: Vec<_> = ask
            .input_requests()
            .into_iter()
            .flatten()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(keys, ["login", "seats"]);
        assert!(ask.has_state());
    }

    #[tokio::test]
    async fn answers_of_this_round_are_returned_and_carried_on() {
        let ctx = ctx(json!({
            "seats": {"action": "accept", "content": {"n": 3}},
            "login": {"action": "decline"}
        }));
        assert_eq!(
            ctx.ask::<Seats>("seats", Seats::form("?")).await,
            Ok(Seats { n: 3 })
        );
        assert_eq!(
            ctx.ask::<Decision<UrlConsent>>("login", UrlConsent::request("?", "https://a.example"))
                .await,
            Ok(Decision::Decline)
        );
        assert_eq!(
            ctx.ask::<UrlConsent>("login", UrlConsent::request("?", "https://a.example"))
                .await,
            Err(Unanswered::Declined {
                key: "login".into()
            })
        );
        // Nothing unanswered: what the handler returned stands.
        let done: Result<Outcome<CallToolResult>, McpError> =
            Ok(Outcome::Complete(CallToolResult::text("kept")));
        assert_eq!(settle(done.clone(), ctx.data()), done);

        let _ = ctx.ask::<Seats>("more", Seats::form("And more?")).await;
        let NextState::Resume(payload) = ended(&ctx).state else {
            panic!("no payload")
        };
        let carried = read_carried(Some(&payload)).answers;
        assert_eq!(carried.keys().collect::<Vec<_>>(), ["login", "seats"]);
        assert_eq!(
            carried["seats"].get(),
            r#"{"action":"accept","content":{"n":3}}"#
        );
    }

    #[tokio::test]
    async fn an_invalid_answer_is_asked_again_naming_the_field() {
        let ctx = ctx(json!({"seats": {"action": "accept", "content": {"n": 9}}}));
        let asked = ctx.ask::<Seats>("seats", Seats::form("How many?")).await;
        assert_eq!(
            asked,
            Err(Unanswered::Asked {
                key: "seats".into()
            })
        );
        let ask = ended(&ctx);
        let again = &ask.input_requests().unwrap()["seats"];
        let InputRequest::Elicitation(params) = again else {
            panic!("{again:?}")
        };
        assert_eq!(params.message(), "n: must be at most 4, got 9. How many?");
    }

    #[tokio::test]
    #[allow(deprecated)]
    async fn sampling_and_roots_answers_read_as_their_results() {
        let ctx = ctx(json!({
            "draft": {"role": "assistant", "content": {"type": "text", "text": "Hi."}, "model": "m"},
            "roots": {"roots": [{"uri": "file:///repo"}]},
            "bad": {"roots": 3}
        }));
        let draft: CreateMessageResult = ctx.ask("draft", InputRequest::ListRoots).await.unwrap();
        assert_eq!(draft.model, "m");
        let roots: ListRootsResult = ctx.ask("roots", InputRequest::ListRoots).await.unwrap();
        assert_eq!(roots.roots.len(), 1);
        let bad = ctx
            .ask::<ListRootsResult>("bad", InputRequest::ListRoots)
            .await;
        assert_eq!(bad, Err(Unanswered::Asked { key: "bad".into() }));
    }

    #[test]
    fn a_payload_of_another_kind_carries_nothing() {
        let read = |payload: Option<&[u8]>| read_carried(payload).answers;
        assert!(read(Some(br#"{"answers":{"seats":{"action":"decline"}}}"#)).is_empty());
        assert!(read(None).is_empty());
        let mut broken = MARKER.to_vec();
        broken.extend_from_slice(b"not json");
        assert!(read(Some(&broken)).is_empty());
    }

    #[test]
    fn refusals_convert_to_each_handler_error() {
        let declined = Unanswered::Declined { key: "k".into() };
        assert_eq!(
            McpError::from(declined.clone()),
            McpError::invalid_params("the user declined to answer \"k\"")
        );
        assert_eq!(
            super::super::ToolError::from(declined).message(),
            "the user declined to answer \"k\""
        );
        let asked = McpError::from(Unanswered::Asked { key: "k".into() });
        assert!(matches!(asked, McpError::Internal { .. }), "{asked:?}");
    }
}

//! The bridge's questions: an input-required round of a 2025-era client,
//! asked by the server itself.
//!
//! Such a client cannot read an `InputRequiredResult`. Instead the server
//! asks it each input request as the matching request (`elicitation/create`,
//! `sampling/createMessage`, `roots/list`) on the stream of the request
//! being served, through the session's back channel ([`Session`]), and
//! collects the answers as the client sent them. The round loop (`round`)
//! feeds them to the handler's next round, in process: the state between
//! the rounds never leaves the server.
//!
//! Transports take no part beyond carrying messages: the question goes out
//! on the request's [`Notifier`] and the answer comes back through
//! [`Session::deliver`].

use serde_json::value::RawValue;
use tokio::time::{Instant, timeout_at};

use super::Bridge;
use super::session::{Question, Session, Unanswered};
use crate::schema::{
    CallToolResult, CancelledNotificationParams, ElicitRequestParams, ErrorObject, GetPromptResult,
    InputRequest, InputRequests, McpError, ReadResourceResult, RequestId, codes,
    notification_methods,
};
use crate::server::notify::Notifier;
use crate::server::url_steps::{self, UrlSteps};

/// A result type whose request may be bridged, and how it ends when the
/// bridge cannot go on.
pub(crate) trait Bridged: Sized {
    /// The request's end when the bridge stops for `why`.
    fn stuck(why: String) -> Result<Self, McpError>;
}

impl Bridged for CallToolResult {
    /// A tool call ends as a tool error, which the model and the user see.
    fn stuck(why: String) -> Result<Self, McpError> {
        Ok(Self::error(why))
    }
}

impl Bridged for GetPromptResult {
    fn stuck(why: String) -> Result<Self, McpError> {
        Err(stuck_error(why))
    }
}

impl Bridged for ReadResourceResult {
    fn stuck(why: String) -> Result<Self, McpError> {
        Err(stuck_error(why))
    }
}

/// `-32603` whose message says why (unlike `McpError::Internal`, whose
/// detail stays in the log: here the client needs to know).
fn stuck_error(why: String) -> McpError {
    McpError::Other(ErrorObject {
        code: codes::INTERNAL_ERROR,
        message: why,
        data: None,
    })
}

/// Whether the bridge may ask the `round`-th round of a request in
/// `session`: the session it asks on, or why it cannot go on (the bridge
/// is off, there is no session, the round bound is reached).
pub(crate) fn admit(
    bridge: Bridge,
    session: Option<&Session>,
    round: usize,
) -> Result<&Session, String> {
    let session = match (session, bridge.enabled) {
        (_, false) => {
            return Err(
                "this request needs input from the user, and this server does not ask \
                 2025-era clients for input (its bridge is off); a client of MCP 2026-07-28 \
                 can answer it"
                    .to_owned(),
            );
        }
        (None, true) => {
            return Err(
                "this request needs input from the user, and the server cannot ask a \
                 client it serves without a session; open a session with initialize"
                    .to_owned(),
            );
        }
        (Some(session), true) => session,
    };
    if round > bridge.max_rounds {
        return Err(format!(
            "the request still needed input after {} rounds, the most this server asks",
            bridge.max_rounds
        ));
    }
    Ok(session)
}

/// Where a round's questions go: the session, the request's stream, and
/// the URL steps whose completion the client hears about (with the
/// caller's subject, who owns them).
pub(crate) struct Channel<'a> {
    pub(crate) session: &'a Session,
    pub(crate) out: &'a Notifier,
    pub(crate) url_steps: Option<(&'a UrlSteps, &'a str)>,
}

/// Asks the client a round's questions, one after the other, within the
/// bridge's round timeout: each answer as the JSON the client sent, under
/// its key; or why the round could not be asked (the client did not
/// declare what is asked, left, answered with an error, or too late).
pub(crate) async fn ask_round(
    bridge: Bridge,
    channel: Channel<'_>,
    requests: &InputRequests,
) -> Result<Vec<(String, Box<RawValue>)>, String> {
    let declared = channel.session.client_capabilities();
    if let Some(required) = declared.missing_for(requests.values()) {
        return Err(format!(
            "this request needs input the client cannot give: it did not declare the {} \
             capability in initialize",
            described(&required)
        ));
    }
    let deadline = Instant::now() + bridge.round_timeout;
    let mut answers = Vec::with_capacity(requests.len());
    for (key, input) in requests {
        let answer = ask_one(&channel, input, deadline).await?;
        if answer.get().len() > bridge.max_answer_bytes {
            return Err(format!(
                "the client's answer to {} is {} bytes; this server takes at most {}",
                input.method(),
                answer.get().len(),
                bridge.max_answer_bytes
            ));
        }
        answers.push((key.clone(), answer));
    }
    Ok(answers)
}

/// The capabilities in `required`, named as a user would look them up.
#[allow(deprecated)]
fn described(required: &crate::schema::ClientCapabilities) -> String {
    let mut names = Vec::new();
    if let Some(elicitation) = &required.elicitation {
        match (elicitation.form.is_some(), elicitation.url.is_some()) {
            (_, true) => names.push("elicitation (URL mode)"),
            _ => names.push("elicitation"),
        }
    }
    if required.sampling.is_some() {
        names.push("sampling");
    }
    if required.roots.is_some() {
        names.push("roots");
    }
    names.join(" and ")
}

/// Asks the client one input request on the request's stream and awaits
/// its answer, until `deadline`.
async fn ask_one(
    channel: &Channel<'_>,
    input: &InputRequest,
    deadline: Instant,
) -> Result<Box<RawValue>, String> {
    let method = input.method();
    let (session, out) = (channel.session, channel.out);
    let mut question = session
        .open_question()
        .map_err(|why| unanswered(method, &why))?;
    let elicitation_id = elicitation_id(&question.id);
    let message = outgoing(
        &question,
        input,
        &elicitation_id,
        session.protocol_version(),
    )?;
    if let (InputRequest::Elicitation(ElicitRequestParams::Url(url)), Some((steps, subject))) =
        (input, channel.url_steps)
    {
        // A URL that carries one of the caller's open steps: the client
        // hears when that step completes.
        for step in url_steps::step_ids_in(&url.url) {
            steps.watch(step, subject, &elicitation_id, out).await;
        }
    }
    match timeout_at(deadline, out.send_json(message)).await {
        Ok(true) => {}
        Ok(false) => return Err(unanswered(method, &Unanswered::NoStream)),
        Err(_) => return Err(timed_out(method)),
    }
    match timeout_at(deadline, question.answer()).await {
        Ok(Ok(Ok(answer))) if answer.get().trim_start().starts_with('{') => Ok(answer),
        Ok(Ok(Ok(_))) => Err(format!("the client's answer to {method} is not an object")),
        Ok(Ok(Err(error))) => Err(format!(
            "the client answered {method} with error {}: {}",
            error.code, error.message
        )),
        Ok(Err(why)) => Err(unanswered(method, &why)),
        Err(_) => {
            // Tell the client to stop asking its user: the answer would
            // arrive after the server stopped waiting.
            cancel(out, &question.id, method).await;
            Err(timed_out(method))
        }
    }
}

fn unanswered(method: &str, why: &Unanswered) -> String {
    match why {
        Unanswered::Ended => format!("the session ended before the client answered {method}"),
        Unanswered::NoStream => format!(
            "the server cannot send {method} to the client: the request's response stream \
             is closed or was not accepted (send Accept: text/event-stream)"
        ),
        Unanswered::TooMany => format!(
            "the server cannot send {method}: this session has too many questions open \
             with its client"
        ),
    }
}

fn timed_out(method: &str) -> String {
    format!("the client did not answer {method} in time")
}

/// The JSON-RPC request that carries `input` to a client of `version`
/// (in URL mode, named `elicitation_id`).
fn outgoing(
    question: &Question,
    input: &InputRequest,
    elicitation_id: &str,
    version: &str,
) -> Result<String, String> {
    let mut message = match serde_json::to_value(input) {
        Ok(serde_json::Value::Object(message)) => message,
        _ => return Err(format!("could not serialise {}", input.method())),
    };
    message.insert("jsonrpc".into(), "2.0".into());
    message.insert(
        "id".into(),
        serde_json::to_value(&question.id).unwrap_or_default(),
    );
    if let (InputRequest::Elicitation(elicit), Some(serde_json::Value::Object(params))) =
        (input, message.get_mut("params"))
    {
        match elicit {
            // URL mode names the elicitation, so that its completion can
            // be announced; 2026-07-28 dropped the id, 2025-11-25 needs it.
            ElicitRequestParams::Url(_) => {
                params.insert("elicitationId".into(), elicitation_id.into());
            }
            // Before 2025-11-25 every elicitation was a form, with no `mode`.
            ElicitRequestParams::Form(_) if version < "2025-11-25" => {
                params.remove("mode");
            }
            ElicitRequestParams::Form(_) => {}
        }
    }
    serde_json::to_string(&message).map_err(|e| format!("could not serialise the request: {e}"))
}

/// An elicitation id: unguessable, so that no other client can complete it.
fn elicitation_id(question: &RequestId) -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        return format!("elicitation-{question}");
    }
    crate::hex::hex(&bytes)
}

/// Sends `notifications/cancelled` for a question the server gave up on.
async fn cancel(out: &Notifier, id: &RequestId, method: &str) {
    let params = CancelledNotificationParams {
        request_id: id.clone(),
        reason: Some(format!(
            "the server stopped waiting for the answer to {method}"
        )),
        meta: None,
    };
    let _ = out.send(notification_methods::CANCELLED, params).await;
}

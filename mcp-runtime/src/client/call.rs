//! [`Call`]: one `tools/call`, `prompts/get` or `resources/read` to
//! configure before it is awaited — typed arguments, a per-call handler.

use std::future::{Future, IntoFuture};
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::answering::{InputResponse, PerCall, per_call};
use super::inbound::ProgressHandler;
use super::{Asked, Client, ClientError, tool_params, uri_params};
use crate::BoxFuture;
use crate::schema::request_methods::{PROMPTS_GET, RESOURCES_READ, TOOLS_CALL};
use crate::schema::{
    CallToolResult, GetPromptResult, JsonObject, ProgressNotificationParams, ReadResourceResult,
};

/// A request built by [`Client::tool_call`], [`Client::prompt_get`],
/// [`Client::resource_read`], [`Client::call_tool_with`] or
/// [`Client::get_prompt_with`], sent when awaited (or by [`Call::send`]).
///
/// Awaiting it fulfils `input_required` results as [`Client::call_tool`]
/// does, within the client's bounds on rounds and time. A per-call handler
/// given with [`Call::answering`] is asked first about every input request
/// of every round; what it [defers](InputResponse::Defer) is answered by
/// the client's handlers.
#[must_use = "a call does nothing until it is awaited"]
pub struct Call<'a, T> {
    client: &'a Client,
    method: &'static str,
    /// The parameters, or why the arguments could not be encoded (reported
    /// when the call is awaited, before anything is sent).
    params: Result<JsonObject, ClientError>,
    answering: Option<PerCall<'a>>,
    progress: Option<ProgressHandler>,
    result: PhantomData<fn() -> T>,
}

impl<'a, T> Call<'a, T> {
    fn new(client: &'a Client, method: &'static str, params: JsonObject) -> Self {
        Self {
            client,
            method,
            params: Ok(params),
            answering: None,
            progress: None,
            result: PhantomData,
        }
    }

    fn set_arguments(mut self, arguments: Result<JsonObject, ClientError>) -> Self {
        self.params = match (self.params, arguments) {
            (Ok(mut params), Ok(arguments)) => {
                params.insert("arguments".into(), Value::Object(arguments));
                Ok(params)
            }
            (Err(error), _) | (_, Err(error)) => Err(error),
        };
        self
    }

    /// Answers this call's input requests with `f` first, before the
    /// client's handlers (replacing an earlier per-call handler).
    ///
    /// `f` is asked about every input request of every round, one at a
    /// time in key order; [`InputResponse::Defer`] leaves a request to the
    /// handler registered on the client for its kind. Because `f` may
    /// answer any elicitation, the call declares both elicitation modes
    /// (`form` and `url`) beside the client's own capabilities. `f` may
    /// borrow what outlives the call.
    ///
    /// ```no_run
    /// use mcp_runtime::client::{Client, InputResponse};
    /// use mcp_runtime::prelude::*;
    /// use serde::Serialize;
    ///
    /// #[derive(ElicitForm, Serialize)]
    /// struct Confirm {
    ///     /// Go ahead?
    ///     ok: bool,
    /// }
    ///
    /// # async fn run(client: Client) -> Result<(), mcp_runtime::client::ClientError> {
    /// let result = client
    ///     .tool_call("deploy")
    ///     .answering(|asked| async move {
    ///         if asked.is_form_of::<Confirm>() {
    ///             InputResponse::form(&Confirm { ok: true })
    ///         } else {
    ///             InputResponse::Defer
    ///         }
    ///     })
    ///     .await?;
    /// # let _ = result;
    /// # Ok(()) }
    /// ```
    pub fn answering<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Asked) -> Fut + Send + Sync + 'a,
        Fut: Future<Output = InputResponse> + Send + 'a,
    {
        self.answering = Some(per_call(f));
        self
    }

    /// Asks the server for progress on this call and gives each
    /// `notifications/progress` to `f` (a progress token is sent for you,
    /// the same in every round of the call).
    ///
    /// `f` runs on the task that reads the connection: keep it short.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_runtime::client::Client) -> Result<(), mcp_runtime::client::ClientError> {
    /// let result = client
    ///     .tool_call("index")
    ///     .on_progress(|p| eprintln!("{} of {:?}", p.progress, p.total))
    ///     .await?;
    /// # let _ = result;
    /// # Ok(()) }
    /// ```
    pub fn on_progress<F>(mut self, f: F) -> Self
    where
        F: Fn(ProgressNotificationParams) + Send + Sync + 'static,
    {
        self.progress = Some(std::sync::Arc::new(f));
        self
    }
}

#[cfg(feature = "tasks")]
impl<'a, T> Call<'a, T> {
    /// What the call holds: its client, method, parameters (or why its
    /// arguments could not be encoded) and per-call handler.
    pub(super) fn into_parts(self) -> CallParts<'a> {
        (self.client, self.method, self.params, self.answering)
    }
}

/// [`Call::into_parts`]: the client, the method, the parameters and the
/// per-call handler.
#[cfg(feature = "tasks")]
pub(super) type CallParts<'a> = (
    &'a Client,
    &'static str,
    Result<JsonObject, ClientError>,
    Option<PerCall<'a>>,
);

impl<'a, T: DeserializeOwned> Call<'a, T> {
    /// Sends the call and fulfils its input requests until the result is
    /// complete (what awaiting the call does).
    pub async fn send(self) -> Result<T, ClientError> {
        let params = self.params?;
        let Some(progress) = self.progress else {
            return self
                .client
                .fulfilling_with(self.method, params, self.answering.as_ref(), None)
                .await;
        };
        let token = self.client.progress_token();
        let _watching = self.client.watch_progress(token.clone(), progress);
        self.client
            .fulfilling_with(self.method, params, self.answering.as_ref(), Some(&token))
            .await
    }
}

impl<'a, T: DeserializeOwned + Send + 'a> IntoFuture for Call<'a, T> {
    type Output = Result<T, ClientError>;
    type IntoFuture = BoxFuture<'a, Result<T, ClientError>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}

impl<'a> Call<'a, CallToolResult> {
    /// Sets the tool's arguments to `arguments` serialised with serde; it
    /// must serialise to a JSON object (a struct or a map), or awaiting the
    /// call fails with [`ClientError::InvalidArguments`] and sends nothing.
    pub fn arguments<A: Serialize + ?Sized>(self, arguments: &A) -> Self {
        self.set_arguments(super::arguments(arguments))
    }
}

impl<'a> Call<'a, GetPromptResult> {
    /// Sets the prompt's arguments to `arguments` serialised with serde: a
    /// JSON object whose values are strings (`null`s, such as an empty
    /// `Option`, are left out), or awaiting the call fails with
    /// [`ClientError::InvalidArguments`] and sends nothing.
    pub fn arguments<A: Serialize + ?Sized>(self, arguments: &A) -> Self {
        self.set_arguments(prompt_arguments(arguments))
    }
}

/// Serialises `value` as the arguments of a call: it must be a JSON object
/// (a struct with named fields or a map with string keys); anything else —
/// a sequence, a string, a unit, `null` — or a failing `Serialize` is
/// [`ClientError::InvalidArguments`]. Useful with [`Client::call_tool_once`].
///
/// ```
/// use mcp_runtime::client::{ClientError, arguments};
///
/// #[derive(serde::Serialize)]
/// struct Deploy {
///     target: String,
///     replicas: u32,
/// }
///
/// let args = arguments(&Deploy { target: "prod".into(), replicas: 3 })?;
/// assert_eq!(args["replicas"], 3);
/// assert!(matches!(arguments(&[1, 2]), Err(ClientError::InvalidArguments(_))));
/// # Ok::<(), ClientError>(())
/// ```
pub fn arguments<A: Serialize + ?Sized>(value: &A) -> Result<JsonObject, ClientError> {
    let value = serde_json::to_value(value)
        .map_err(|e| ClientError::InvalidArguments(format!("cannot serialise them: {e}")))?;
    match value {
        Value::Object(object) => Ok(object),
        other => Err(ClientError::InvalidArguments(format!(
            "they must serialise to a JSON object, not {}",
            json_kind(&other)
        ))),
    }
}

/// [`arguments`] for a prompt: every value a string, `null`s left out.
fn prompt_arguments<A: Serialize + ?Sized>(value: &A) -> Result<JsonObject, ClientError> {
    let mut object = arguments(value)?;
    object.retain(|_, value| !value.is_null());
    match object.iter().find(|(_, value)| !value.is_string()) {
        Some((name, value)) => Err(ClientError::InvalidArguments(format!(
            "prompt arguments are strings, but {name:?} is {}",
            json_kind(value)
        ))),
        None => Ok(object),
    }
}

/// How a JSON value's kind reads in an error message.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Client {
    /// A `tools/call` of `name` without arguments, to configure (see
    /// [`Call`]) and await.
    pub fn tool_call(&self, name: &str) -> Call<'_, CallToolResult> {
        Call::new(self, TOOLS_CALL, tool_params(name, None))
    }

    /// A `prompts/get` of `name` without arguments, to configure and await.
    pub fn prompt_get(&self, name: &str) -> Call<'_, GetPromptResult> {
        Call::new(self, PROMPTS_GET, tool_params(name, None))
    }

    /// A `resources/read` of `uri`, to configure and await.
    pub fn resource_read(&self, uri: &str) -> Call<'_, ReadResourceResult> {
        Call::new(self, RESOURCES_READ, uri_params(uri))
    }

    /// `tools/call` with typed arguments: `arguments` is serialised with
    /// serde and must make a JSON object (see [`arguments`]). Await it, or
    /// give it a per-call handler first with [`Call::answering`].
    ///
    /// ```no_run
    /// use mcp_runtime::client::Client;
    /// use serde::Serialize;
    ///
    /// #[derive(Serialize)]
    /// struct DeployArgs {
    ///     target: String,
    ///     replicas: Option<u32>,
    /// }
    ///
    /// # async fn run(client: Client) -> Result<(), mcp_runtime::client::ClientError> {
    /// let args = DeployArgs { target: "prod".into(), replicas: Some(3) };
    /// let result = client.call_tool_with("deploy", &args).await?;
    /// # let _ = result;
    /// # Ok(()) }
    /// ```
    pub fn call_tool_with<A: Serialize + ?Sized>(
        &self,
        name: &str,
        arguments: &A,
    ) -> Call<'_, CallToolResult> {
        self.tool_call(name).arguments(arguments)
    }

    /// `prompts/get` with typed arguments: `arguments` must serialise to a
    /// JSON object of strings (`null`s left out), such as a struct of
    /// `String` and `Option<String>` fields.
    ///
    /// ```no_run
    /// use mcp_runtime::client::Client;
    /// use serde::Serialize;
    ///
    /// #[derive(Serialize)]
    /// struct Summarise<'a> {
    ///     topic: &'a str,
    ///     length: Option<&'a str>,
    /// }
    ///
    /// # async fn run(client: Client) -> Result<(), mcp_runtime::client::ClientError> {
    /// let prompt = client
    ///     .get_prompt_with("summarise", &Summarise { topic: "rust", length: None })
    ///     .await?;
    /// # let _ = prompt;
    /// # Ok(()) }
    /// ```
    pub fn get_prompt_with<A: Serialize + ?Sized>(
        &self,
        name: &str,
        arguments: &A,
    ) -> Call<'_, GetPromptResult> {
        self.prompt_get(name).arguments(arguments)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    struct Named {
        a: String,
        b: Option<String>,
    }

    #[test]
    fn structs_and_maps_make_objects() {
        let named = Named {
            a: "x".into(),
            b: None,
        };
        assert_eq!(
            Value::Object(arguments(&named).unwrap()),
            json!({"a": "x", "b": null})
        );
        let map: BTreeMap<&str, u8> = [("n", 1)].into();
        assert_eq!(Value::Object(arguments(&map).unwrap()), json!({"n": 1}));
    }

    #[test]
    fn other_shapes_are_invalid_arguments() {
        for (value, kind) in [
            (json!(null), "null"),
            (json!([1]), "an array"),
            (json!("s"), "a string"),
            (json!(2), "a number"),
        ] {
            match arguments(&value) {
                Err(ClientError::InvalidArguments(detail)) => {
                    assert!(detail.ends_with(kind), "{detail}");
                }
                other => panic!("{value}: {other:?}"),
            }
        }
        // A map whose keys are not strings cannot serialise to JSON at all.
        let map: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        assert!(matches!(
            arguments(&map),
            Err(ClientError::InvalidArguments(_))
        ));
    }

    #[test]
    fn prompt_arguments_are_strings_without_nulls() {
        let named = Named {
            a: "x".into(),
            b: None,
        };
        assert_eq!(
            Value::Object(prompt_arguments(&named).unwrap()),
            json!({"a": "x"})
        );
        let error = prompt_arguments(&json!({"a": "x", "n": 3}));
        assert_eq!(
            error,
            Err(ClientError::InvalidArguments(
                "prompt arguments are strings, but \"n\" is a number".into()
            ))
        );
    }
}

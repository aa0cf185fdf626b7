//! What a server tells the client without being asked: progress, log
//! messages, list and resource changes, finished URL steps.

use serde_json::Value;

use crate::schema::{
    LoggingMessageNotificationParams, ProgressNotificationParams, notification_methods,
};

/// A notification from the server, as the client's
/// [`on_notification`](super::ClientBuilder::on_notification) handler
/// receives it.
///
/// Progress also goes to the handler of the call it belongs to
/// ([`Call::on_progress`](super::Call::on_progress)); a list change also
/// marks the client's cached list stale, so the next `list_*` call asks
/// the server again.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ServerNotification {
    /// `notifications/progress`: how far a request has come.
    Progress(ProgressNotificationParams),
    /// `notifications/message`: a log message.
    Log(LoggingMessageNotificationParams),
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/resources/updated`: a subscribed resource changed.
    ResourceUpdated {
        /// The resource.
        uri: String,
    },
    /// `notifications/elicitation/complete`: a URL-mode elicitation the
    /// user finished out of band.
    ElicitationComplete {
        /// The id the elicitation request named.
        elicitation_id: String,
    },
    /// Any other notification, as sent.
    Other {
        /// Its method.
        method: String,
        /// Its params, if any.
        params: Option<Value>,
    },
}

impl ServerNotification {
    /// Reads a notification's method and params; a known method whose
    /// params do not have the expected shape is kept as [`Self::Other`].
    pub(crate) fn parse(method: &str, params: Option<Value>) -> Self {
        use notification_methods as n;
        let decoded = match method {
            n::PROGRESS => params
                .clone()
                .and_then(|p| serde_json::from_value(p).ok())
                .map(Self::Progress),
            n::MESSAGE => params
                .clone()
                .and_then(|p| serde_json::from_value(p).ok())
                .map(Self::Log),
            n::TOOLS_LIST_CHANGED => Some(Self::ToolsListChanged),
            n::PROMPTS_LIST_CHANGED => Some(Self::PromptsListChanged),
            n::RESOURCES_LIST_CHANGED => Some(Self::ResourcesListChanged),
            n::RESOURCES_UPDATED => {
                string_param(&params, "uri").map(|uri| Self::ResourceUpdated { uri })
            }
            n::ELICITATION_COMPLETE => string_param(&params, "elicitationId")
                .map(|elicitation_id| Self::ElicitationComplete { elicitation_id }),
            _ => None,
        };
        decoded.unwrap_or_else(|| Self::Other {
            method: method.to_owned(),
            params,
        })
    }
}

fn string_param(params: &Option<Value>, key: &str) -> Option<String> {
    params.as_ref()?.get(key)?.as_str().map(str::to_owned)
}

/// Whether a message travelled to the server or from it, for
/// [`on_message`](super::ClientBuilder::on_message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The client sent it.
    Sent,
    /// The server sent it.
    Received,
}

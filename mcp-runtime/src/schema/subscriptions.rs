//! `subscriptions/listen`: its parameters, its closing result and its
//! acknowledgement notification.

use serde::{Deserialize, Serialize};

use super::{JsonObject, RequestId, ResultType, SubscriptionFilter, meta_keys};

/// Parameters of `subscriptions/listen`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenRequestParams {
    /// The per-request `_meta`.
    #[serde(rename = "_meta")]
    pub meta: JsonObject,
    /// The change notifications the client wants on this stream.
    pub notifications: SubscriptionFilter,
}

/// The result that closes a `subscriptions/listen` stream gracefully.
///
/// Its `_meta` is required and carries
/// `io.modelcontextprotocol/subscriptionId` (the id of the listen request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// Always complete.
    #[serde(default)]
    pub result_type: ResultType,
    /// Result metadata, with the subscription id.
    #[serde(rename = "_meta")]
    pub meta: JsonObject,
}

impl SubscriptionsListenResult {
    /// The closing result of the stream opened by the request `subscription_id`.
    pub fn new(subscription_id: RequestId) -> Self {
        let mut meta = JsonObject::new();
        meta.insert(
            meta_keys::SUBSCRIPTION_ID.into(),
            serde_json::to_value(subscription_id).unwrap_or_default(),
        );
        Self {
            result_type: ResultType::Complete,
            meta,
        }
    }
}

/// Parameters of `notifications/subscriptions/acknowledged`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// The subset of the requested notifications the server will send.
    pub notifications: SubscriptionFilter,
    /// Notification metadata (carries the subscription id).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

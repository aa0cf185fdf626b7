//! Subscriptions: asking the server to announce list changes and updates
//! of resources. In the 2026-07-28 era a `subscriptions/listen` request
//! held open; in the 2025 era `resources/subscribe` (list changes come on
//! the session without asking).

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::era::Era;
use super::inbound::Router;
use super::wire::Wire;
use super::{Client, ClientError, Framed};
use crate::logged::Wire as Logged;
use crate::schema::request_methods::{
    RESOURCES_SUBSCRIBE, RESOURCES_UNSUBSCRIBE, SUBSCRIPTIONS_LISTEN,
};
use crate::schema::{JsonObject, RequestId, SubscriptionFilter, notification_methods};

/// What [`Client::subscribe`] set up; dropping it ends it.
///
/// The announcements go to the client's
/// [`on_notification`](super::ClientBuilder::on_notification) handler, and a
/// list change marks the client's kept list stale.
#[must_use = "the subscription ends when it is dropped"]
pub struct Subscription {
    /// What the server said it will announce.
    honoured: SubscriptionFilter,
    kind: Kind,
}

enum Kind {
    /// A `subscriptions/listen` request held open by a task.
    Listen {
        id: RequestId,
        task: JoinHandle<()>,
        wire: Wire,
        router: Arc<Router>,
    },
    /// `resources/subscribe` of each URI, undone on drop.
    Session {
        uris: Vec<String>,
        wire: Wire,
        router: Arc<Router>,
        next_id: Arc<std::sync::atomic::AtomicI64>,
    },
}

impl Subscription {
    /// What the server said it will announce (2026-07-28: its
    /// acknowledgement; 2025 era: the resources it accepted, and the list
    /// changes its capabilities announce).
    pub fn honoured(&self) -> &SubscriptionFilter {
        &self.honoured
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return;
        };
        match &self.kind {
            Kind::Listen {
                id,
                task,
                wire,
                router,
            } => {
                task.abort();
                // Over HTTP closing the stream ends it; over stdio the
                // server is told.
                if let Wire::Stdio(_) = wire {
                    let message = json!({
                        "jsonrpc": "2.0",
                        "method": notification_methods::CANCELLED,
                        "params": {"requestId": id, "reason": "the subscription ended"},
                    });
                    let (wire, router) = (wire.clone(), Arc::clone(router));
                    handle.spawn(async move { wire.send(&router, &message).await });
                }
            }
            Kind::Session {
                uris,
                wire,
                router,
                next_id,
            } => {
                for uri in uris {
                    let id = next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let message = json!({
                        "jsonrpc": "2.0",
                        "id": id,
                        "method": RESOURCES_UNSUBSCRIBE,
                        "params": {"uri": uri},
                    });
                    let (wire, router) = (wire.clone(), Arc::clone(router));
                    handle.spawn(async move {
                        let id = RequestId::Number(id);
                        let sent = wire.request(&router, &id, &message, &[]);
                        let _ =
                            tokio::time::timeout(std::time::Duration::from_secs(10), sent).await;
                        router.forget(&id);
                    });
                }
            }
        }
    }
}

impl Client {
    /// Asks the server to announce what `filter` names: list changes and
    /// updates of resources, delivered to the
    /// [`on_notification`](super::ClientBuilder::on_notification) handler
    /// until the [`Subscription`] is dropped.
    ///
    /// 2026-07-28: a `subscriptions/listen` request, held open by a task of
    /// its own; this returns once the server acknowledged it (within
    /// [`ClientLimits::request_timeout`](super::ClientLimits)). 2025 era:
    /// `resources/subscribe` for each resource named; list changes come on
    /// the session without asking.
    ///
    /// ```no_run
    /// use mcp_runtime::client::{Client, ServerNotification};
    /// use mcp_runtime::schema::SubscriptionFilter;
    ///
    /// # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
    /// let client = Client::http("http://127.0.0.1:8080/mcp")
    ///     .on_notification(|n| {
    ///         if let ServerNotification::ResourceUpdated { uri } = n {
    ///             println!("{uri} changed");
    ///         }
    ///     })
    ///     .connect()
    ///     .await?;
    /// let filter = SubscriptionFilter {
    ///     tools_list_changed: Some(true),
    ///     resource_subscriptions: Some(vec!["file:///notes.txt".into()]),
    ///     ..Default::default()
    /// };
    /// let subscription = client.subscribe(filter).await?;
    /// // ... announcements arrive while `subscription` lives.
    /// drop(subscription);
    /// # Ok(()) }
    /// ```
    pub async fn subscribe(&self, filter: SubscriptionFilter) -> Result<Subscription, ClientError> {
        match self.era() {
            Era::Modern => self.listen(filter).await,
            Era::Legacy => self.subscribe_resources(filter).await,
        }
    }

    async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, ClientError> {
        let mut params = JsonObject::new();
        params.insert(
            "notifications".into(),
            serde_json::to_value(&filter).map_err(|e| ClientError::Encode(e.to_string()))?,
        );
        let framed = Framed {
            capabilities: &self.capabilities,
            progress: None,
        };
        let (id, body, headers) = self.frame(Era::Modern, SUBSCRIPTIONS_LISTEN, params, &framed);
        let acknowledged = self.router.expect_acknowledgement(&id);
        let (wire, router, task_id) = (self.wire.clone(), Arc::clone(&self.router), id.clone());
        let target = self.target.clone();
        let task = tokio::spawn(async move {
            match wire.request(&router, &task_id, &body, &headers).await {
                Ok(response) if response.get("error").is_some() => {
                    let error = response["error"].to_string();
                    tracing::warn!(
                        error = %Logged(&error),
                        "{target}: subscriptions/listen refused"
                    );
                }
                Ok(_) => tracing::debug!("{target}: the server ended a subscription"),
                Err(e) => tracing::warn!("{target}: a subscription ended: {e}"),
            }
            router.forget(&task_id);
            // Ended before it was acknowledged: `subscribe` hears it now.
            router.forget_acknowledgement(&task_id);
        });
        let limit = self.limits.request_timeout;
        let honoured = match tokio::time::timeout(limit, acknowledged).await {
            Ok(Ok(honoured)) => serde_json::from_value(honoured).unwrap_or_default(),
            Ok(Err(_)) => {
                task.abort();
                return Err(ClientError::Transport(format!(
                    "{}: subscriptions/listen ended before the server acknowledged it (the log says why)",
                    self.target
                )));
            }
            Err(_) => {
                task.abort();
                self.router.forget_acknowledgement(&id);
                return Err(ClientError::Timeout(limit));
            }
        };
        Ok(Subscription {
            honoured,
            kind: Kind::Listen {
                id,
                task,
                wire: self.wire.clone(),
                router: Arc::clone(&self.router),
            },
        })
    }

    async fn subscribe_resources(
        &self,
        filter: SubscriptionFilter,
    ) -> Result<Subscription, ClientError> {
        let uris = filter.resource_subscriptions.clone().unwrap_or_default();
        let mut subscribed = Vec::new();
        for uri in uris {
            let mut params = JsonObject::new();
            params.insert("uri".into(), Value::String(uri.clone()));
            self.request(RESOURCES_SUBSCRIBE, params).await?;
            subscribed.push(uri);
        }
        let capabilities = self.server_capabilities();
        let honoured = SubscriptionFilter {
            tools_list_changed: filter
                .tools_list_changed
                .and(capabilities.tools.as_ref().and_then(|c| c.list_changed)),
            prompts_list_changed: filter
                .prompts_list_changed
                .and(capabilities.prompts.as_ref().and_then(|c| c.list_changed)),
            resources_list_changed: filter
                .resources_list_changed
                .and(capabilities.resources.as_ref().and_then(|c| c.list_changed)),
            resource_subscriptions: (!subscribed.is_empty()).then(|| subscribed.clone()),
            task_ids: None,
        };
        Ok(Subscription {
            honoured,
            kind: Kind::Session {
                uris: subscribed,
                wire: self.wire.clone(),
                router: Arc::clone(&self.router),
                next_id: Arc::clone(&self.next_id),
            },
        })
    }
}

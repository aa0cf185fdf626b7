//! `subscriptions/listen`: a long-lived request whose response stream
//! carries the change notifications the client opted into.

use tokio::sync::{broadcast, watch};

use super::finish::{add_server_info, serialise};
use super::methods::Call;
use super::{Context, registry::Registry};
use crate::BoxFuture;
use crate::schema::{
    JsonObject, McpError, NotificationParams, ResourceUpdatedNotificationParams,
    SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenResult,
    notification_methods,
};

/// A change a `subscriptions/listen` stream may carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The tool list changed.
    ToolsListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource list changed.
    ResourcesListChanged,
    /// The resource with this URI changed.
    ResourceUpdated(String),
}

/// Announces changes to every open `subscriptions/listen` stream that asked
/// for them. Cheap to clone; get one from `Server::changes` or
/// `Context::changes`.
#[derive(Debug, Clone)]
pub struct ChangeNotifier {
    tx: broadcast::Sender<Change>,
}

impl ChangeNotifier {
    pub(crate) fn new() -> Self {
        let (tx, _) = broadcast::channel(256);
        Self { tx }
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.tx.subscribe()
    }

    /// Announces a change; returns how many streams received it.
    pub fn announce(&self, change: Change) -> usize {
        self.tx.send(change).unwrap_or(0)
    }

    /// The tool list changed.
    pub fn tools_list_changed(&self) -> usize {
        self.announce(Change::ToolsListChanged)
    }

    /// The prompt list changed.
    pub fn prompts_list_changed(&self) -> usize {
        self.announce(Change::PromptsListChanged)
    }

    /// The resource list changed.
    pub fn resources_list_changed(&self) -> usize {
        self.announce(Change::ResourcesListChanged)
    }

    /// The resource `uri` changed.
    pub fn resource_updated(&self, uri: impl Into<String>) -> usize {
        self.announce(Change::ResourceUpdated(uri.into()))
    }
}

/// Tells open streams the server is shutting down.
#[derive(Debug)]
pub(crate) struct Closing {
    tx: watch::Sender<bool>,
}

impl Closing {
    pub(crate) fn new() -> Self {
        Self {
            tx: watch::channel(false).0,
        }
    }

    pub(crate) fn close(&self) {
        self.tx.send_replace(true);
    }

    pub(crate) fn watch(&self) -> watch::Receiver<bool> {
        self.tx.subscribe()
    }
}

/// The part of the filter this server can honour.
fn honoured(registry: &Registry, asked: &SubscriptionFilter) -> SubscriptionFilter {
    let has_resources = !registry.resources.is_empty() || !registry.templates.is_empty();
    let wanted =
        |flag: Option<bool>, offered: bool| (flag == Some(true) && offered).then_some(true);
    SubscriptionFilter {
        tools_list_changed: wanted(asked.tools_list_changed, !registry.tools.is_empty()),
        prompts_list_changed: wanted(asked.prompts_list_changed, !registry.prompts.is_empty()),
        resources_list_changed: wanted(asked.resources_list_changed, has_resources),
        resource_subscriptions: asked
            .resource_subscriptions
            .clone()
            .filter(|uris| has_resources && !uris.is_empty()),
        // Settled by `tasks::watched`, which needs the store.
        task_ids: None,
    }
}

fn carries(filter: &SubscriptionFilter, change: &Change) -> Option<&'static str> {
    use notification_methods as m;
    match change {
        Change::ToolsListChanged if filter.tools_list_changed == Some(true) => {
            Some(m::TOOLS_LIST_CHANGED)
        }
        Change::PromptsListChanged if filter.prompts_list_changed == Some(true) => {
            Some(m::PROMPTS_LIST_CHANGED)
        }
        Change::ResourcesListChanged if filter.resources_list_changed == Some(true) => {
            Some(m::RESOURCES_LIST_CHANGED)
        }
        Change::ResourceUpdated(uri)
            if filter
                .resource_subscriptions
                .as_ref()
                .is_some_and(|uris| uris.contains(uri)) =>
        {
            Some(m::RESOURCES_UPDATED)
        }
        _ => None,
    }
}

/// Completes once the server starts shutting down.
async fn closed(closing: &mut watch::Receiver<bool>) {
    loop {
        let closed = *closing.borrow_and_update();
        if closed || closing.changed().await.is_err() {
            return;
        }
    }
}

/// `subscriptions/listen`, as the method table calls it: the stream, then
/// its closing result with `serverInfo`.
pub(crate) fn listen(registry: &Registry, call: Call) -> BoxFuture<'_, Result<String, McpError>> {
    Box::pin(async move {
        let mut result = stream(registry, &call.params, Context::from_data(call.data)).await?;
        if let Some(server_meta) = &registry.result_meta {
            add_server_info(server_meta, &mut result.meta);
        }
        serialise(&result)
    })
}

/// Serves one `subscriptions/listen` request until the client goes away
/// (the transport drops this future) or the server shuts down (then the
/// closing result is returned).
async fn stream(
    registry: &Registry,
    params: &JsonObject,
    ctx: Context,
) -> Result<SubscriptionsListenResult, McpError> {
    if !ctx.data.notifier.is_enabled() {
        return Err(McpError::InvalidRequest {
            detail: "subscriptions/listen needs a streaming response: accept text/event-stream"
                .to_owned(),
        });
    }
    let asked: SubscriptionFilter = match params.get("notifications") {
        Some(value) => serde_json::from_value(value.clone()).map_err(|e| {
            McpError::invalid_params(format!("params.notifications is malformed: {e}"))
        })?,
        None => return Err(McpError::invalid_params("params.notifications is required")),
    };
    let mut filter = honoured(registry, &asked);
    let mut tasks = match asked.task_ids.as_deref() {
        Some(ids) if !ids.is_empty() => super::tasks::watch(registry, &ctx.data, ids).await?,
        _ => super::tasks::Watched::default(),
    };
    filter.task_ids = tasks.ids();
    // Subscribe before acknowledging, so no change after the ack is missed.
    let mut changes = registry.changes.subscribe();
    let mut closing = registry.closing.watch();
    let id = ctx.data.request_id.clone();
    let tag = NotificationParams::for_subscription(&id);
    let ack = SubscriptionsAcknowledgedNotificationParams {
        notifications: filter.clone(),
        meta: tag.meta.clone(),
    };
    if !ctx
        .data
        .notifier
        .send(notification_methods::SUBSCRIPTIONS_ACKNOWLEDGED, ack)
        .await
    {
        return Ok(SubscriptionsListenResult::new(id));
    }
    loop {
        tokio::select! {
            change = changes.recv() => match change {
                Ok(change) => {
                    let Some(method) = carries(&filter, &change) else { continue };
                    let sent = match change {
                        Change::ResourceUpdated(uri) => {
                            let params = ResourceUpdatedNotificationParams {
                                uri,
                                meta: tag.meta.clone(),
                            };
                            ctx.data.notifier.send(method, params).await
                        }
                        _ => ctx.data.notifier.send(method, &tag).await,
                    };
                    if !sent {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, subscription = %id, "a listen stream fell behind; changes were dropped");
                }
                Err(broadcast::error::RecvError::Closed) => break,
            },
            () = tasks.next_poll() => {
                for task in tasks.poll(registry).await {
                    let mut params = task;
                    params.meta = tag.meta.clone();
                    if !ctx.data.notifier.send(super::tasks::NOTIFICATION, params).await {
                        return Ok(SubscriptionsListenResult::new(id));
                    }
                }
            }
            () = closed(&mut closing) => break,
        }
    }
    Ok(SubscriptionsListenResult::new(id))
}

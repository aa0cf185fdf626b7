//! `subscriptions/listen`: a long-lived request whose response stream
//! carries the change notifications the client opted into: list changes
//! and resource updates as the server announces them (`notify`), and the
//! tasks it asked to watch (`tasks`, with the `tasks` feature; without it
//! a stream watches none, and its acknowledgement says so).
//!
//! It uses `tasks`, `round` (to finish its closing result), `handler` (what
//! the server offers) and `notify`; the dispatch room calls it.

#[cfg(not(feature = "tasks"))]
mod watch_none;
#[cfg(feature = "tasks")]
mod watch_tasks;
#[cfg(not(feature = "tasks"))]
use watch_none as watching;
#[cfg(feature = "tasks")]
use watch_tasks as watching;

use std::collections::HashSet;

use serde::Deserialize;
use tokio::sync::{broadcast, watch};

use crate::budget::{Held, Memory, string_cost};
use crate::schema::{
    McpError, NotificationParams, ResourceUpdatedNotificationParams, SubscriptionFilter,
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenResult, notification_methods,
    task_methods,
};
use crate::server::handler::{Catalog, Ctx};
use crate::server::notify::{Change, ChangeNotifier, Closing};
use crate::server::round::{Call, Core, serialise};
#[cfg(feature = "tasks")]
use crate::server::tasks::TaskEngine;

/// The part of the filter this server can honour.
fn honoured(catalog: &Catalog, asked: &SubscriptionFilter) -> SubscriptionFilter {
    let has_resources = catalog.has_resources();
    let wanted =
        |flag: Option<bool>, offered: bool| (flag == Some(true) && offered).then_some(true);
    SubscriptionFilter {
        tools_list_changed: wanted(asked.tools_list_changed, !catalog.tools.is_empty()),
        prompts_list_changed: wanted(asked.prompts_list_changed, !catalog.prompts.is_empty()),
        resources_list_changed: wanted(asked.resources_list_changed, has_resources),
        resource_subscriptions: asked
            .resource_subscriptions
            .clone()
            .filter(|uris| has_resources && !uris.is_empty()),
        // Settled by `watching::watch`, which needs the store.
        task_ids: None,
    }
}

/// The notification method that carries `change` to a stream with this
/// filter and these watched resource URIs, if the stream asked for it.
fn carries(
    filter: &SubscriptionFilter,
    uris: &HashSet<String>,
    change: &Change,
) -> Option<&'static str> {
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
        Change::ResourceUpdated(uri) if uris.contains(uri) => Some(m::RESOURCES_UPDATED),
        _ => None,
    }
}

/// The most task ids a `subscriptions/listen` request may name: each is
/// looked up in the task store before the stream is acknowledged.
#[cfg(feature = "tasks")]
const MAX_NAMED_TASKS: usize = 1024;

/// The resource URIs a stream watches, checked against the limits (their
/// number, each one's length: `-32602` naming the limit) and charged to
/// the memory budget for as long as the returned charge lives.
fn watched_uris(
    filter: &SubscriptionFilter,
    memory: &Memory,
) -> Result<(HashSet<String>, Held), McpError> {
    let asked = filter.resource_subscriptions.as_deref().unwrap_or_default();
    let max = memory.limits.max_listen_uris;
    if asked.len() > max {
        return Err(McpError::invalid_params(format!(
            "notifications.resourceSubscriptions names {} URIs; a stream may watch at most {max}",
            asked.len()
        )));
    }
    let mut cost = 0;
    for uri in asked {
        memory.check_uri(uri)?;
        cost += string_cost(uri);
    }
    let held = memory.hold(cost, "a listen stream's resource URIs")?;
    Ok((asked.iter().cloned().collect(), held))
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

/// Where a listen stream's notifications come from: the server's change
/// announcements, its shutdown signal and its tasks.
pub(crate) struct Sources<'a> {
    pub(crate) changes: &'a ChangeNotifier,
    pub(crate) closing: &'a Closing,
    #[cfg(feature = "tasks")]
    pub(crate) tasks: &'a TaskEngine,
}

/// `subscriptions/listen`, as the method table calls it: the stream, then
/// its closing result with `serverInfo`.
pub(crate) async fn listen(
    core: &Core,
    sources: Sources<'_>,
    call: Call,
) -> Result<String, McpError> {
    // Only the filter is kept for the stream's life, not the params.
    let asked = match call.params.get("notifications") {
        Some(value) => SubscriptionFilter::deserialize(value).map_err(|e| {
            McpError::invalid_params(format!("params.notifications is malformed: {e}"))
        })?,
        None => return Err(McpError::invalid_params("params.notifications is required")),
    };
    drop(call.params);
    let mut result = stream(core, sources, asked, Ctx::from_data(call.data)).await?;
    core.finisher.add_server_info(&mut result.meta);
    serialise(&result)
}

/// Serves one `subscriptions/listen` request until the client goes away
/// (the transport drops this future) or the server shuts down (then the
/// closing result is returned).
async fn stream(
    core: &Core,
    sources: Sources<'_>,
    asked: SubscriptionFilter,
    ctx: Ctx,
) -> Result<SubscriptionsListenResult, McpError> {
    let out = ctx.data().notifier();
    if !out.is_enabled() {
        return Err(McpError::InvalidRequest {
            detail: "subscriptions/listen needs a streaming response: accept text/event-stream"
                .to_owned(),
        });
    }
    let mut filter = honoured(&core.catalog, &asked);
    // The URIs are kept for the stream's life: bounded, and charged.
    let (uris, _held) = watched_uris(&filter, &core.memory)?;
    let mut watched = watching::watch(&sources, ctx.data(), asked.task_ids.as_deref()).await?;
    drop(asked);
    filter.task_ids = watched.ids();
    // Subscribe before acknowledging, so no change after the ack is missed.
    let mut changes = sources.changes.subscribe();
    let mut closing = sources.closing.watch();
    let id = ctx.data().request_id().clone();
    let tag = NotificationParams::for_subscription(&id);
    let ack = SubscriptionsAcknowledgedNotificationParams {
        notifications: filter.clone(),
        meta: tag.meta.clone(),
    };
    if !out
        .send(notification_methods::SUBSCRIPTIONS_ACKNOWLEDGED, ack)
        .await
    {
        return Ok(SubscriptionsListenResult::new(id));
    }
    // Matched against `uris` from now on.
    filter.resource_subscriptions = None;
    loop {
        tokio::select! {
            change = changes.recv() => match change {
                Ok(change) => {
                    let Some(method) = carries(&filter, &uris, &change) else { continue };
                    let sent = match change {
                        Change::ResourceUpdated(uri) => {
                            let params = ResourceUpdatedNotificationParams {
                                uri,
                                meta: tag.meta.clone(),
                            };
                            out.send(method, params).await
                        }
                        _ => out.send(method, &tag).await,
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
            () = watched.next_poll() => {
                for task in watched.poll().await {
                    let mut params = task;
                    params.meta = tag.meta.clone();
                    if !out.send(task_methods::NOTIFICATION, params).await {
                        return Ok(SubscriptionsListenResult::new(id));
                    }
                }
            }
            () = closed(&mut closing) => break,
        }
    }
    Ok(SubscriptionsListenResult::new(id))
}

//! The `*/list` calls: every page followed within bounds, and the lists
//! kept while they are fresh — for the `ttlMs` a 2026-07-28 server gives,
//! or, in a 2025-era session whose server announces list changes, until it
//! announces one.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::era::Era;
use super::{Client, ClientError};
use crate::schema::request_methods::{
    PROMPTS_LIST, RESOURCES_LIST, RESOURCES_TEMPLATES_LIST, TOOLS_LIST,
};
use crate::schema::{JsonObject, Prompt, Resource, ResourceTemplate, ServerCapabilities, Tool};

/// A list a server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ListKind {
    /// `tools/list`.
    Tools,
    /// `prompts/list`.
    Prompts,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
}

impl ListKind {
    /// The method that reads the list: `tools/list`, `prompts/list`,
    /// `resources/list` or `resources/templates/list`.
    pub fn method(self) -> &'static str {
        self.method_and_member().0
    }

    /// The method that reads the list, and the result member holding it.
    fn method_and_member(self) -> (&'static str, &'static str) {
        match self {
            Self::Tools => (TOOLS_LIST, "tools"),
            Self::Prompts => (PROMPTS_LIST, "prompts"),
            Self::Resources => (RESOURCES_LIST, "resources"),
            Self::ResourceTemplates => (RESOURCES_TEMPLATES_LIST, "resourceTemplates"),
        }
    }

    /// The list whose `list_changed` notification covers this one.
    pub(super) fn changed_by(self) -> Self {
        match self {
            Self::ResourceTemplates => Self::Resources,
            other => other,
        }
    }

    /// Whether a 2025-era server announces changes of this list.
    fn announced(self, capabilities: &ServerCapabilities) -> bool {
        let capabilities = serde_json::to_value(capabilities).unwrap_or_default();
        let member = match self {
            Self::Tools => "tools",
            Self::Prompts => "prompts",
            Self::Resources | Self::ResourceTemplates => "resources",
        };
        capabilities
            .get(member)
            .and_then(|c| c.get("listChanged"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }
}

/// The lists kept, by kind.
#[derive(Default)]
pub(super) struct ListCache {
    entries: Mutex<HashMap<ListKind, Cached>>,
}

struct Cached {
    items: Arc<Vec<Value>>,
    /// The count of `list_changed` notifications when it was read.
    generation: u64,
    /// When it goes stale by age; `None`: only a change notice ends it.
    expires: Option<Instant>,
}

impl Client {
    /// The items of a list as the server sent them, every page followed
    /// (the kept copy while it is fresh).
    ///
    /// At most [`ClientLimits::max_list_pages`](super::ClientLimits) pages are read, and a cursor the
    /// server already returned ends the walk with an error instead of a
    /// loop.
    pub async fn list_json(&self, kind: ListKind) -> Result<Vec<Value>, ClientError> {
        let values = self.list_values(kind).await?;
        if kind == ListKind::Tools {
            // Read as tools too, for the `Mcp-Param-*` headers of later calls.
            let tools: Vec<Tool> = values
                .iter()
                .filter_map(|item| serde_json::from_value(item.clone()).ok())
                .collect();
            self.remember_param_headers(&tools);
        }
        Ok(values.as_ref().clone())
    }

    async fn list_values(&self, kind: ListKind) -> Result<Arc<Vec<Value>>, ClientError> {
        let generation = self.router.generation(kind.changed_by());
        if let Some(items) = self.kept(kind, generation) {
            return Ok(items);
        }
        let (items, ttl) = self.read_pages(kind).await?;
        let items = Arc::new(items);
        let expires = self.read_negotiated(|negotiated| match negotiated.era {
            // A TTL past what the clock can count is kept until a change.
            Era::Modern => ttl
                .filter(|ttl| !ttl.is_zero())
                .map(|ttl| Instant::now().checked_add(ttl)),
            Era::Legacy => (kind.announced(&negotiated.capabilities)
                && self.router.hears_notifications())
            .then_some(None),
        });
        if let (Some(expires), Ok(mut entries)) = (expires, self.lists.entries.lock()) {
            entries.insert(
                kind,
                Cached {
                    items: Arc::clone(&items),
                    generation,
                    expires,
                },
            );
        }
        Ok(items)
    }

    fn kept(&self, kind: ListKind, generation: u64) -> Option<Arc<Vec<Value>>> {
        let mut entries = self.lists.entries.lock().ok()?;
        let cached = entries.get(&kind)?;
        let fresh = cached.generation == generation
            && cached
                .expires
                .is_none_or(|expires| Instant::now() < expires);
        if fresh {
            Some(Arc::clone(&cached.items))
        } else {
            entries.remove(&kind);
            None
        }
    }

    /// Reads every page; returns the items and the shortest `ttlMs`.
    async fn read_pages(
        &self,
        kind: ListKind,
    ) -> Result<(Vec<Value>, Option<Duration>), ClientError> {
        let (method, member) = kind.method_and_member();
        let mut items = Vec::new();
        let mut ttl: Option<Duration> = None;
        let mut seen = HashSet::new();
        let mut cursor: Option<String> = None;
        let max_pages = self.limits.max_list_pages;
        for _ in 0..max_pages {
            let mut params = JsonObject::new();
            if let Some(cursor) = cursor.take() {
                params.insert("cursor".into(), cursor.into());
            }
            let mut page = self.request_complete_value(method, params).await?;
            match page.get_mut(member).map(Value::take) {
                Some(Value::Array(page_items)) => items.extend(page_items),
                _ => {
                    return Err(ClientError::MalformedResponse(format!(
                        "{method} returned no {member:?} array"
                    )));
                }
            }
            if let Some(ms) = page.get("ttlMs").and_then(Value::as_u64) {
                let page_ttl = Duration::from_millis(ms);
                ttl = Some(ttl.map_or(page_ttl, |t| t.min(page_ttl)));
            }
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => {
                    if !seen.insert(next.to_owned()) {
                        return Err(ClientError::MalformedResponse(format!(
                            "{method} returned the cursor {next:?} twice"
                        )));
                    }
                    cursor = Some(next.to_owned());
                }
                _ => return Ok((items, ttl)),
            }
        }
        Err(ClientError::MalformedResponse(format!(
            "{method} had more than {max_pages} pages"
        )))
    }

    async fn list_typed<T: DeserializeOwned>(&self, kind: ListKind) -> Result<Vec<T>, ClientError> {
        let values = self.list_values(kind).await?;
        values
            .iter()
            .map(|item| {
                serde_json::from_value(item.clone()).map_err(|e| {
                    ClientError::MalformedResponse(format!("an item of {kind:?} list: {e}"))
                })
            })
            .collect()
    }

    /// `tools/list`, following `nextCursor` through every page.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let tools: Vec<Tool> = self.list_typed(ListKind::Tools).await?;
        self.remember_param_headers(&tools);
        Ok(tools)
    }

    /// `prompts/list`, following `nextCursor` through every page.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.list_typed(ListKind::Prompts).await
    }

    /// `resources/list`, following `nextCursor` through every page.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.list_typed(ListKind::Resources).await
    }

    /// `resources/templates/list`, following `nextCursor` through every page.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.list_typed(ListKind::ResourceTemplates).await
    }
}

//! The process-wide memory budget for what peers make the server hold.
//!
//! Every byte a peer can make the server keep beyond the read of its
//! message is charged here while it is kept: the bodies being read, the
//! messages being run (their parsed arguments), the data each 2025-era
//! session keeps from `initialize`, resource subscriptions and the URIs of
//! `subscriptions/listen` streams. A charge that would take the total past
//! the limit is refused, and the work that needed it is refused with it
//! ("Server busy": `503` over HTTP, a JSON-RPC error over stdio) instead
//! of growing the process. [`MemoryBudget::held`] is the figure to watch.
//!
//! The charges are estimates that err high: a parsed JSON tree is charged
//! what its nodes, strings and maps occupy ([`json_cost`]), not the length
//! of its text, which can be 16 times less.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use serde_json::Value;

/// The budget a server gets unless its builder sets one: 1 GiB.
pub(crate) const DEFAULT_MEMORY_BUDGET: usize = 1 << 30;

/// The limits on what a peer can make the server keep beyond the read of
/// its request, each bounded by what the value is for, and the budget
/// they all count against. Set with `ServerBuilder::memory_limits`; build
/// it by struct update from [`MemoryLimits::default`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryLimits {
    /// The process-wide budget, in bytes ([`MemoryBudget`]). Default: 1 GiB.
    pub budget_bytes: usize,
    /// The most a 2025-era session keeps of its client's `initialize`:
    /// `clientInfo` and `capabilities`, as JSON text. A larger `initialize`
    /// is refused with `-32602`. Default: 16 KiB.
    pub max_client_data_bytes: usize,
    /// The longest resource URI a client may subscribe to, with
    /// `resources/subscribe` or in a `subscriptions/listen` filter;
    /// longer ones are refused with `-32602`. Default: 4 KiB.
    pub max_uri_bytes: usize,
    /// The most resource URIs one `subscriptions/listen` stream may watch;
    /// more are refused with `-32602`. Default: 1,024.
    pub max_listen_uris: usize,
    /// The most resources one 2025-era session may subscribe to; one more
    /// is refused with `-32602`. Default: 1,024.
    pub max_subscriptions: usize,
    /// The most answers, as bytes of JSON, a handler asking in line
    /// (`Ctx::ask`) carries from round to round in its signed state; a
    /// round that would carry more is refused with `-32602`. Default:
    /// 64 KiB.
    pub max_carried_answer_bytes: usize,
}

impl Default for MemoryLimits {
    fn default() -> Self {
        Self {
            budget_bytes: DEFAULT_MEMORY_BUDGET,
            max_client_data_bytes: 16 * 1024,
            max_uri_bytes: 4 * 1024,
            max_listen_uris: 1024,
            max_subscriptions: 1024,
            max_carried_answer_bytes: 64 * 1024,
        }
    }
}

/// A server's memory settings as its rooms read them: the limits and the
/// budget they count against.
#[derive(Debug, Clone, Default)]
pub(crate) struct Memory {
    pub(crate) limits: MemoryLimits,
    pub(crate) budget: MemoryBudget,
}

impl Memory {
    /// The settings `limits` describe, with a budget of their own.
    pub(crate) fn new(limits: MemoryLimits) -> Self {
        Self {
            budget: MemoryBudget::new(limits.budget_bytes),
            limits,
        }
    }

    /// Checks a resource URI a client asks to keep against the length
    /// limit: `-32602` naming the limit when it is longer.
    pub(crate) fn check_uri(&self, uri: &str) -> Result<(), crate::schema::McpError> {
        let max = self.limits.max_uri_bytes;
        if uri.len() > max {
            return Err(crate::schema::McpError::invalid_params(format!(
                "a subscribed resource URI may be at most {max} bytes long; this one has {}",
                uri.len()
            )));
        }
        Ok(())
    }

    /// Charges what keeping something costs, or `-32603` "Server busy"
    /// when the budget is spent (logged with the figures).
    pub(crate) fn hold(&self, bytes: usize, what: &str) -> Result<Held, crate::schema::McpError> {
        self.budget.try_hold(bytes).map_err(|over| {
            tracing::warn!(%over, what, "refused: the memory budget is spent");
            busy()
        })
    }
}

/// The refusal of work the budget has no room for.
pub(crate) fn busy() -> crate::schema::McpError {
    crate::schema::McpError::Other(crate::schema::ErrorObject {
        code: crate::schema::codes::INTERNAL_ERROR,
        message: "Server busy: the server holds all the memory it may give its clients; \
                  retry later"
            .to_owned(),
        data: None,
    })
}

/// The process-wide budget for what peers hold (see the module docs).
/// Cheap to clone: clones share one account.
#[derive(Clone)]
pub struct MemoryBudget {
    account: Arc<Account>,
}

struct Account {
    limit: usize,
    held: AtomicUsize,
    refused: AtomicU64,
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self {
            account: Arc::new(Account {
                limit,
                held: AtomicUsize::new(0),
                refused: AtomicU64::new(0),
            }),
        }
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> usize {
        self.account.limit
    }

    /// The bytes charged now: what peers make the server hold.
    pub fn held(&self) -> usize {
        self.account.held.load(Ordering::Relaxed)
    }

    /// How many charges were refused since the server started: each is a
    /// piece of work refused as busy.
    pub fn refused(&self) -> u64 {
        self.account.refused.load(Ordering::Relaxed)
    }

    /// Charges `bytes` for as long as the returned [`Held`] lives, or
    /// refuses when that would take the total past the limit.
    pub fn try_hold(&self, bytes: usize) -> Result<Held, OverBudget> {
        self.account.charge(bytes)?;
        Ok(Held {
            account: Some(Arc::clone(&self.account)),
            bytes,
        })
    }
}

impl Default for MemoryBudget {
    fn default() -> Self {
        Self::new(DEFAULT_MEMORY_BUDGET)
    }
}

impl fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryBudget")
            .field("limit", &self.limit())
            .field("held", &self.held())
            .field("refused", &self.refused())
            .finish()
    }
}

impl Account {
    fn charge(&self, bytes: usize) -> Result<(), OverBudget> {
        let taken = self
            .held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(bytes).filter(|total| *total <= self.limit)
            });
        match taken {
            Ok(_) => Ok(()),
            Err(held) => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                Err(OverBudget {
                    asked: bytes,
                    held,
                    limit: self.limit,
                })
            }
        }
    }

    fn release(&self, bytes: usize) {
        self.held.fetch_sub(bytes, Ordering::AcqRel);
    }
}

/// Bytes charged to a [`MemoryBudget`], given back when dropped.
#[must_use = "the charge is given back as soon as this is dropped"]
pub struct Held {
    account: Option<Arc<Account>>,
    bytes: usize,
}

impl Held {
    /// A charge to no budget (nothing to give back).
    pub fn none() -> Self {
        Self {
            account: None,
            bytes: 0,
        }
    }

    /// The bytes charged.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Charges `more` bytes on top, or refuses (and keeps what is held).
    pub fn try_grow(&mut self, more: usize) -> Result<(), OverBudget> {
        if let Some(account) = &self.account {
            account.charge(more)?;
            self.bytes += more;
        }
        Ok(())
    }

    /// Makes the charge `bytes`: gives back what is over, or charges what
    /// is missing (refused as [`Self::try_grow`] refuses).
    pub fn try_resize(&mut self, bytes: usize) -> Result<(), OverBudget> {
        match bytes.checked_sub(self.bytes) {
            Some(more) => self.try_grow(more),
            None => {
                if let Some(account) = &self.account {
                    account.release(self.bytes - bytes);
                }
                self.bytes = bytes;
                Ok(())
            }
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(account) = &self.account {
            account.release(self.bytes);
        }
    }
}

impl fmt::Debug for Held {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Held({} bytes)", self.bytes)
    }
}

/// A charge refused: it would take the budget past its limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget {
    /// The bytes asked for.
    pub asked: usize,
    /// The bytes held when it was asked.
    pub held: usize,
    /// The limit.
    pub limit: usize,
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the memory budget is spent: {} bytes asked, {} of {} held",
            self.asked, self.held, self.limit
        )
    }
}

impl std::error::Error for OverBudget {}

/// What a parsed JSON value occupies, estimated from above: each node, the
/// capacity of each string and array, and each object entry with its share
/// of the map's nodes.
pub(crate) fn json_cost(value: &Value) -> usize {
    const NODE: usize = std::mem::size_of::<Value>();
    // A B-tree node holds 11 entries and is at least half full: each entry
    // takes at most twice its key and value, plus the key's text.
    const ENTRY: usize = 2 * (std::mem::size_of::<String>() + NODE);
    let mut cost = NODE;
    // Only nested arrays and objects wait here: leaves are counted where
    // they are met, so a flat value (most arguments) allocates nothing.
    let mut pending: Vec<&Value> = Vec::new();
    let mut current = Some(value);
    while let Some(value) = current.take().or_else(|| pending.pop()) {
        match value {
            Value::Array(items) => {
                cost += items.capacity() * NODE;
                for item in items {
                    cost += leaf_cost(item, &mut pending);
                }
            }
            Value::Object(map) => {
                for (key, item) in map {
                    cost += ENTRY + key.capacity() + leaf_cost(item, &mut pending);
                }
            }
            leaf => cost += leaf_cost(leaf, &mut pending),
        }
    }
    cost
}

/// What a leaf of [`json_cost`] adds (a string's text); an array or object
/// adds nothing yet and goes to `pending`, to be walked.
fn leaf_cost<'a>(value: &'a Value, pending: &mut Vec<&'a Value>) -> usize {
    match value {
        Value::String(s) => s.capacity(),
        Value::Array(_) | Value::Object(_) => {
            pending.push(value);
            0
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
}

/// What a parsed JSON object occupies, as [`json_cost`] counts it.
#[cfg(feature = "tasks")]
pub(crate) fn object_cost(object: &serde_json::Map<String, Value>) -> usize {
    const ENTRY: usize = 2 * (std::mem::size_of::<String>() + std::mem::size_of::<Value>());
    object
        .iter()
        .map(|(key, value)| ENTRY + key.capacity() + json_cost(value))
        .sum()
}

/// The length of `value`'s compact JSON text, counted without writing it.
pub(crate) fn json_text_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` into a counter cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// What a string kept on its own occupies: its text and its allocation's
/// bookkeeping, estimated from above.
pub(crate) fn string_cost(s: &str) -> usize {
    s.len() + 64
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn charges_are_refused_past_the_limit_and_given_back_when_dropped() {
        let budget = MemoryBudget::new(100);
        let a = budget.try_hold(60).unwrap();
        let refused = budget.try_hold(41).unwrap_err();
        assert_eq!((refused.asked, refused.held, refused.limit), (41, 60, 100));
        assert_eq!(budget.refused(), 1);
        let mut b = budget.try_hold(40).unwrap();
        assert_eq!(budget.held(), 100);
        assert!(b.try_grow(1).is_err(), "nothing left");
        drop(a);
        b.try_grow(50).unwrap();
        assert_eq!((b.bytes(), budget.held()), (90, 90));
        b.try_resize(10).unwrap();
        assert_eq!(budget.held(), 10);
        drop(b);
        assert_eq!(budget.held(), 0);
        assert!(budget.try_hold(usize::MAX).is_err(), "no overflow");
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn a_tree_costs_at_least_its_nodes_and_its_text() {
        let zeros: Value = serde_json::from_str(&format!("[{}0]", "0,".repeat(999))).unwrap();
        assert!(json_cost(&zeros) >= 1000 * 32, "{}", json_cost(&zeros));
        let text = json!({"key": "x".repeat(1000)});
        assert!(json_cost(&text) > 1000);
        assert!(json_cost(&json!(null)) > 0);
    }

    #[test]
    fn nested_values_cost_what_a_recursive_count_gives() {
        fn counted(value: &Value) -> usize {
            const NODE: usize = std::mem::size_of::<Value>();
            const ENTRY: usize = 2 * (std::mem::size_of::<String>() + NODE);
            match value {
                Value::String(s) => s.capacity(),
                Value::Array(items) => {
                    items.capacity() * NODE + items.iter().map(counted).sum::<usize>()
                }
                Value::Object(map) => map
                    .iter()
                    .map(|(key, item)| ENTRY + key.capacity() + counted(item))
                    .sum(),
                Value::Null | Value::Bool(_) | Value::Number(_) => 0,
            }
        }
        let values = [
            json!(null),
            json!("text"),
            json!({}),
            json!({"a": 1, "b": "two", "c": null}),
            json!([1, "x", [2, ["deep", {"k": "v"}]], {"o": {"p": [true, "q"]}}]),
            json!({"list": [{"name": "n", "tags": ["t1", "t2"]}, []], "s": "long text"}),
        ];
        for value in &values {
            let expected = std::mem::size_of::<Value>() + counted(value);
            assert_eq!(json_cost(value), expected, "{value}");
        }
    }
}

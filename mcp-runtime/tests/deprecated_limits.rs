//! The loose limit constants kept for one release (hidden and deprecated)
//! still compile where they were, and hold the same values as the settings
//! and setters that replace them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
#![allow(deprecated)]

use std::time::Duration;

#[test]
fn the_http_constants_are_the_http_limits_defaults() {
    use mcp_runtime::transport::http::*;
    let limits = HttpLimits::default();
    assert_eq!(DEFAULT_MAX_BODY_BYTES, limits.max_body_bytes);
    assert_eq!(DEFAULT_BODY_TIMEOUT, limits.body_timeout);
    assert_eq!(DEFAULT_HEADER_TIMEOUT, limits.header_timeout);
    assert_eq!(DEFAULT_WRITE_TIMEOUT, limits.write_timeout);
    assert_eq!(DEFAULT_DRAIN_BYTES, limits.drain_bytes);
    assert_eq!(DEFAULT_DRAIN_TIMEOUT, limits.drain_timeout);
    assert_eq!(default_max_connections(), limits.max_connections);
    assert_eq!(DEFAULT_MAX_SESSIONS, limits.max_sessions);
    assert_eq!(DEFAULT_SESSION_IDLE_TIMEOUT, limits.session_idle_timeout);
}

#[test]
fn the_stdio_constants_are_the_stdio_limits_defaults() {
    use mcp_runtime::transport::stdio::*;
    let limits = StdioLimits::default();
    assert_eq!(DEFAULT_MAX_LINE_BYTES, limits.max_line_bytes);
    assert_eq!(DEFAULT_MAX_IN_FLIGHT, limits.max_in_flight);
}

#[test]
fn the_client_constants_are_the_client_limits_defaults() {
    use mcp_runtime::client::*;
    let limits = ClientLimits::default();
    assert_eq!(DEFAULT_MAX_ROUNDS, limits.max_rounds);
    assert_eq!(DEFAULT_MAX_DURATION, limits.max_duration);
    assert_eq!(MAX_LIST_PAGES, limits.max_list_pages);
}

#[test]
fn the_state_constants_and_ttl_seconds_still_work() {
    use mcp_runtime::state::*;
    let signer = RequestStateSigner::new([1u8; 32]).unwrap();
    assert_eq!(Duration::from_secs(DEFAULT_TTL_SECONDS), signer.ttl());
    assert_eq!(DEFAULT_OUTCOME_BUDGET, 64 << 20);
    // The old setter keeps its old meaning: seconds, as given.
    let signer = signer.ttl_seconds(42);
    assert_eq!(signer.ttl(), Duration::from_secs(42));
}

#[cfg(feature = "redis")]
#[test]
fn the_redis_constants_keep_their_values() {
    use mcp_runtime::state::*;
    assert_eq!(DEFAULT_KEY_PREFIX, "mcp:request-state:");
    assert_eq!(DEFAULT_REDIS_TIMEOUT, Duration::from_secs(1));
}

#[test]
fn the_auth_constants_keep_their_values() {
    use mcp_runtime::auth::*;
    assert_eq!(DEFAULT_LEEWAY, Duration::from_secs(30));
    assert_eq!(DEFAULT_KEYS_MAX_AGE, Duration::from_secs(600));
    assert_eq!(MIN_REFETCH_INTERVAL, Duration::from_secs(10));
    assert_eq!(DEFAULT_FETCH_TIMEOUT, Duration::from_secs(5));
}

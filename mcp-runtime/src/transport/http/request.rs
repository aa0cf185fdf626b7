//! Reading a request: the bearer token, the content type, what the client
//! accepts, the body (within its limit) and the MCP headers.

use std::time::Duration;

use axum::body::{Body, BodyDataStream, Bytes};
use axum::http::header::{ACCEPT, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, EXPECT};
use axum::http::{HeaderMap, HeaderValue};
use bytes::BytesMut;
use futures_util::StreamExt;

use crate::budget::{Held, MemoryBudget};
use crate::server::HttpRequestHeaders;

/// The bearer token of the `Authorization` header, trimmed; `None` if
/// there is none, the scheme is not `Bearer` (any case) or the token is
/// blank.
pub(super) fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| token.trim())
}

/// Whether the `Content-Type` is `application/json` (any case, any
/// parameters).
pub(super) fn is_json_content(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim_ascii().eq_ignore_ascii_case("application/json"))
}

/// Whether the client accepts JSON and SSE. A missing `Accept` accepts both.
pub(super) fn accepted(headers: &HeaderMap) -> (bool, bool) {
    let mut values = headers.get_all(ACCEPT).iter().peekable();
    if values.peek().is_none() {
        return (true, true);
    }
    let (mut json, mut sse) = (false, false);
    for value in values {
        // A value that is not visible ASCII is skipped whole.
        if value.to_str().is_err() {
            continue;
        }
        for media in value.as_bytes().split(|&b| b == b',') {
            let range = media
                .split(|&b| b == b';')
                .next()
                .unwrap_or_default()
                .trim_ascii();
            if range == b"*/*" {
                (json, sse) = (true, true);
            } else if range.eq_ignore_ascii_case(b"application/json")
                || range.eq_ignore_ascii_case(b"application/*")
            {
                json = true;
            } else if range.eq_ignore_ascii_case(b"text/event-stream")
                || range.eq_ignore_ascii_case(b"text/*")
            {
                sse = true;
            }
        }
    }
    (json, sse)
}

/// Why a body was not read.
pub(super) enum BodyError {
    /// More than the limit: answered 413. Holds what is left of the body,
    /// to be discarded, unless the client waits for `100 Continue` before
    /// sending it (then nothing was sent and nothing is read).
    TooLarge(Option<BodyDataStream>),
    /// The body broke off before its end, or its framing (a chunk size, the
    /// declared length) is invalid: answered 400.
    Broken,
    /// The server's memory budget has no room for it: answered 503. Holds
    /// what is left of the body, as [`Self::TooLarge`] does.
    OverBudget(Option<BodyDataStream>),
}

/// Reads the body, refusing more than `limit` bytes, and more than the
/// server's memory `budget` has room for; what is read stays charged to it
/// while the returned charge lives. A body that arrives
/// in one piece is kept as it is; one in several is gathered into one
/// buffer, sized up front when a valid `Content-Length` declares it.
pub(super) async fn read_body(
    body: Body,
    headers: &HeaderMap,
    limit: usize,
    budget: &MemoryBudget,
) -> Result<(Bytes, Held), BodyError> {
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let mut body = body.into_data_stream();
    let waits_for_continue = headers
        .get(EXPECT)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    let rest = |rest| (!waits_for_continue).then_some(rest);
    let too_large = |body| BodyError::TooLarge(rest(body));
    if declared.is_some_and(|len| len > limit as u64) {
        return Err(too_large(body));
    }
    // What is read is charged as it arrives (all of a declared length at
    // once, as it is reserved at once). Once parsed, the request is charged
    // what its tree costs instead (`Driver::receive`).
    let mut charge = match budget.try_hold(declared.map_or(0, |len| len as usize)) {
        Ok(charge) => charge,
        Err(_) => return Err(BodyError::OverBudget(rest(body))),
    };
    let mut first: Option<Bytes> = None;
    let mut gathered = BytesMut::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|_| BodyError::Broken)?;
        let held = first.as_ref().map_or(0, Bytes::len) + gathered.len();
        if held + chunk.len() > limit {
            return Err(too_large(body));
        }
        if let Some(more) = (held + chunk.len()).checked_sub(charge.bytes())
            && charge.try_grow(more).is_err()
        {
            return Err(BodyError::OverBudget(rest(body)));
        }
        match first.take() {
            None if gathered.is_empty() => first = Some(chunk),
            earlier => {
                if let Some(earlier) = earlier {
                    let expected = declared.map_or(0, |len| len as usize);
                    gathered.reserve(expected.max(earlier.len() + chunk.len()));
                    gathered.extend_from_slice(&earlier);
                }
                gathered.extend_from_slice(&chunk);
            }
        }
    }
    Ok((first.unwrap_or_else(|| gathered.freeze()), charge))
}

/// Reads and discards what is left of a refused body, up to `max_bytes`
/// and for at most `max_time`, on a task of its own: while it reads, the
/// connection stays open and the client, still writing, can go on to read
/// the answer. Past either bound the rest is dropped and the connection
/// closes.
pub(super) fn discard(mut rest: BodyDataStream, max_bytes: usize, max_time: Duration) {
    tokio::spawn(async move {
        let reading = async {
            let mut read = 0usize;
            while let Some(Ok(chunk)) = rest.next().await {
                read = read.saturating_add(chunk.len());
                if read > max_bytes {
                    return;
                }
            }
        };
        let _ = tokio::time::timeout(max_time, reading).await;
    });
}

/// A header value without its surrounding whitespace; `None` if it is not
/// visible ASCII.
fn header_value(value: &HeaderValue) -> Option<&str> {
    value.to_str().ok().map(str::trim_ascii)
}

/// The MCP headers, trimmed; non-ASCII values are treated as absent. Of a
/// repeated `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name` the first
/// value counts; every `Mcp-Param-*` value is kept. One pass over the
/// headers: names arrive lowercase, so plain prefix comparisons suffice.
pub(super) fn mcp_headers(headers: &HeaderMap) -> HttpRequestHeaders {
    // `None` until the header is met, then the first value (if ASCII).
    let mut protocol_version: Option<Option<&str>> = None;
    let mut method: Option<Option<&str>> = None;
    let mut name: Option<Option<&str>> = None;
    let mut params = Vec::new();
    for (header, value) in headers {
        let Some(rest) = header.as_str().strip_prefix("mcp-") else {
            continue;
        };
        let first = match rest {
            "protocol-version" => &mut protocol_version,
            "method" => &mut method,
            "name" => &mut name,
            _ => {
                if let (Some(suffix), Some(value)) =
                    (rest.strip_prefix("param-"), header_value(value))
                {
                    params.push((suffix.to_owned(), value.to_owned()));
                }
                continue;
            }
        };
        if first.is_none() {
            *first = Some(header_value(value));
        }
    }
    let owned = |value: Option<Option<&str>>| value.flatten().map(str::to_owned);
    HttpRequestHeaders {
        protocol_version: owned(protocol_version),
        method: owned(method),
        name: owned(name),
        params,
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderName;

    use super::*;

    fn map(pairs: &[(&'static str, &[u8])]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            let value = HeaderValue::from_bytes(value).expect("a valid header value");
            headers.append(HeaderName::from_static(name), value);
        }
        headers
    }

    #[test]
    fn accept_ranges_ignore_case_and_parameters() {
        let accepts = |values: &[&'static str]| {
            let pairs: Vec<_> = values.iter().map(|v| ("accept", v.as_bytes())).collect();
            accepted(&map(&pairs))
        };
        assert_eq!(accepted(&HeaderMap::new()), (true, true));
        assert_eq!(
            accepts(&["application/json, text/event-stream"]),
            (true, true)
        );
        assert_eq!(
            accepts(&["Application/JSON;q=0.9", "TEXT/Event-Stream ; q=1"]),
            (true, true)
        );
        assert_eq!(accepts(&["application/*"]), (true, false));
        assert_eq!(accepts(&["text/*;q=0.1"]), (false, true));
        assert_eq!(accepts(&[" */* "]), (true, true));
        assert_eq!(accepts(&["text/html, application/xml"]), (false, false));
        assert_eq!(accepts(&["application/jsonx"]), (false, false));
        assert_eq!(accepts(&[""]), (false, false));
    }

    #[test]
    fn accept_values_that_are_not_ascii_are_skipped() {
        let headers = map(&[
            ("accept", b"application/json\xff"),
            ("accept", b"text/event-stream"),
        ]);
        assert_eq!(accepted(&headers), (false, true));
    }

    #[test]
    fn mcp_headers_are_trimmed_and_the_first_value_counts() {
        let headers = map(&[
            ("host", b"localhost"),
            ("mcp-protocol-version", b" 2026-07-28 "),
            ("mcp-method", b"tools/call"),
            ("mcp-method", b"tools/list"),
            ("mcp-name", b"\xffname"),
            ("mcp-name", b"second"),
            ("mcp-param-region", b" eu "),
            ("mcp-param-region", b"us"),
            ("mcp-param-bad", b"\xff"),
            ("mcp-param-", b"empty suffix"),
            ("mcp-other", b"ignored"),
        ]);
        let found = mcp_headers(&headers);
        assert_eq!(found.protocol_version.as_deref(), Some("2026-07-28"));
        assert_eq!(found.method.as_deref(), Some("tools/call"));
        assert_eq!(found.name, None, "a non-ASCII first value is absent");
        assert_eq!(
            found.params,
            [
                ("region".to_owned(), "eu".to_owned()),
                ("region".to_owned(), "us".to_owned()),
                (String::new(), "empty suffix".to_owned()),
            ]
        );
        assert_eq!(
            mcp_headers(&HeaderMap::new()),
            HttpRequestHeaders::default()
        );
    }
}

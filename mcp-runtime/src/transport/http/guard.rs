//! DNS-rebinding protection: which `Host` and `Origin` values are accepted.

use axum::http::header::{HOST, ORIGIN};
use axum::http::{HeaderMap, HeaderName};

use crate::logged::Wire;

/// Which hosts and origins the HTTP transport accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPolicy {
    /// Only loopback names (`localhost`, `127.0.0.1`, `[::1]`, any port) in
    /// `Host`, and only loopback origins. The default for a server bound to
    /// a loopback address.
    Loopback,
    /// Any `Host`; an `Origin`, when present, must be listed. The default
    /// for a server bound to another address (put it behind a proxy that
    /// authenticates).
    AllowOrigins(Vec<String>),
}

/// Why the guard refused a request: the reason goes to the log only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The headers are malformed (HTTP 400): more than one `Host` or
    /// `Origin` (RFC 9112 requires exactly one `Host`), a missing `Host`
    /// where one is needed, or a value that is not visible ASCII.
    Malformed(String),
    /// The host or origin is not allowed (HTTP 403).
    NotAllowed(String),
}

/// The one value of header `name`: `Ok(None)` when absent, refused when
/// repeated or not visible ASCII.
fn single<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Result<Option<&'h str>, Refusal> {
    let mut values = headers.get_all(name).iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(Refusal::Malformed(format!("more than one {name} header")));
    }
    first
        .to_str()
        .map(Some)
        .map_err(|_| Refusal::Malformed(format!("the {name} header is not visible ASCII")))
}

/// Checks the `Host` and `Origin` of a request against `policy`.
pub(crate) fn check(policy: &HostPolicy, headers: &HeaderMap) -> Result<(), Refusal> {
    let host = single(headers, &HOST)?;
    let origin = single(headers, &ORIGIN)?;
    match policy {
        HostPolicy::Loopback => {
            let host =
                host.ok_or_else(|| Refusal::Malformed("the Host header is missing".to_owned()))?;
            if !is_loopback_authority(host) {
                return Err(Refusal::NotAllowed(format!(
                    "Host {} is not a loopback name",
                    Wire(host)
                )));
            }
            if let Some(origin) = origin {
                let authority = origin
                    .strip_prefix("http://")
                    .or_else(|| origin.strip_prefix("https://"));
                if !authority.is_some_and(is_loopback_authority) {
                    return Err(Refusal::NotAllowed(format!(
                        "Origin {} is not allowed",
                        Wire(origin)
                    )));
                }
            }
            Ok(())
        }
        HostPolicy::AllowOrigins(allowed) => match origin {
            Some(origin) if !allowed.iter().any(|a| a == origin) => Err(Refusal::NotAllowed(
                format!("Origin {} is not allowed", Wire(origin)),
            )),
            _ => Ok(()),
        },
    }
}

/// `localhost`, `127.0.0.1` or `[::1]`, with or without a port.
fn is_loopback_authority(authority: &str) -> bool {
    let host = if let Some(rest) = authority.strip_prefix('[') {
        match rest.split_once(']') {
            Some((host, port)) if port.is_empty() || valid_port(port) => return host == "::1",
            _ => return false,
        }
    } else {
        match authority.split_once(':') {
            Some((host, port)) if valid_port(port) => host,
            Some(_) => return false,
            None => authority,
        }
    };
    host.eq_ignore_ascii_case("localhost") || host == "127.0.0.1"
}

fn valid_port(port_part: &str) -> bool {
    port_part
        .strip_prefix(':')
        .unwrap_or(port_part)
        .parse::<u16>()
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(HOST, HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            h.insert(ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        h
    }

    #[test]
    fn loopback_policy() {
        let p = HostPolicy::Loopback;
        assert!(check(&p, &headers("127.0.0.1:8080", None)).is_ok());
        assert!(check(&p, &headers("localhost", Some("http://localhost:3000"))).is_ok());
        assert!(check(&p, &headers("[::1]:80", Some("https://[::1]"))).is_ok());
        assert!(check(&p, &headers("evil.example.com", None)).is_err());
        assert!(
            check(
                &p,
                &headers("127.0.0.1:8080", Some("http://evil.example.com"))
            )
            .is_err()
        );
        assert!(check(&p, &headers("127.0.0.1:8080", Some("null"))).is_err());
        assert!(check(&p, &headers("127.0.0.1.evil.com", None)).is_err());
        assert!(check(&p, &headers("localhost:x", None)).is_err());
    }

    #[test]
    fn origin_allow_list() {
        let p = HostPolicy::AllowOrigins(vec!["https://app.example".into()]);
        assert!(check(&p, &headers("mcp.example", None)).is_ok());
        assert!(check(&p, &headers("mcp.example", Some("https://app.example"))).is_ok());
        assert!(check(&p, &headers("mcp.example", Some("https://evil.example"))).is_err());
    }

    #[test]
    fn repeated_or_missing_host_and_repeated_origin_are_malformed() {
        for policy in [
            HostPolicy::Loopback,
            HostPolicy::AllowOrigins(vec!["http://localhost".into()]),
        ] {
            let mut two_hosts = headers("localhost", None);
            two_hosts.append(HOST, HeaderValue::from_static("evil.example"));
            assert!(matches!(
                check(&policy, &two_hosts),
                Err(Refusal::Malformed(_))
            ));
            let mut two_origins = headers("localhost", Some("http://localhost"));
            two_origins.append(ORIGIN, HeaderValue::from_static("http://evil.example"));
            assert!(matches!(
                check(&policy, &two_origins),
                Err(Refusal::Malformed(_))
            ));
        }
        assert!(matches!(
            check(&HostPolicy::Loopback, &HeaderMap::new()),
            Err(Refusal::Malformed(_))
        ));
        assert_eq!(
            check(&HostPolicy::AllowOrigins(Vec::new()), &HeaderMap::new()),
            Ok(())
        );
    }

    #[test]
    fn a_huge_host_is_logged_cut() {
        let host = "a".repeat(300_000);
        let Err(Refusal::NotAllowed(reason)) = check(&HostPolicy::Loopback, &headers(&host, None))
        else {
            panic!("a foreign host must be refused");
        };
        assert!(reason.len() < 400, "{}", reason.len());
        assert!(reason.contains("300000 bytes"), "{reason}");
    }
}

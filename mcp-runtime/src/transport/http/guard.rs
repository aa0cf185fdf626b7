//! DNS-rebinding protection: which `Host` and `Origin` values are accepted.

use axum::http::HeaderMap;
use axum::http::header::{HOST, ORIGIN};

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

/// Why a request was refused.
pub(crate) fn check(policy: &HostPolicy, headers: &HeaderMap) -> Result<(), String> {
    let origin = match headers.get(ORIGIN) {
        None => None,
        Some(value) => Some(
            value
                .to_str()
                .map_err(|_| "the Origin header is not ASCII".to_owned())?,
        ),
    };
    match policy {
        HostPolicy::Loopback => {
            let host = headers
                .get(HOST)
                .and_then(|h| h.to_str().ok())
                .ok_or_else(|| "the Host header is missing".to_owned())?;
            if !is_loopback_authority(host) {
                return Err(format!("Host {host:?} is not a loopback name"));
            }
            if let Some(origin) = origin {
                let authority = origin
                    .strip_prefix("http://")
                    .or_else(|| origin.strip_prefix("https://"))
                    .ok_or_else(|| format!("Origin {origin:?} is not allowed"))?;
                if !is_loopback_authority(authority) {
                    return Err(format!("Origin {origin:?} is not allowed"));
                }
            }
            Ok(())
        }
        HostPolicy::AllowOrigins(allowed) => match origin {
            Some(origin) if !allowed.iter().any(|a| a == origin) => {
                Err(format!("Origin {origin:?} is not allowed"))
            }
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
}

//! The server under load: an `http://` URL whose host must be a loopback
//! address. Any other address is refused before a single byte is sent.

use std::net::SocketAddr;

/// A parsed endpoint on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The resolved loopback socket address.
    pub(crate) addr: SocketAddr,
    /// The `Host` header value, as written in the URL (`127.0.0.1:8080`).
    pub(crate) authority: String,
    /// The request path (`/mcp`).
    pub(crate) path: String,
}

/// Splits `http://HOST:PORT/PATH` into its authority and path.
fn split_url(url: &str) -> Result<(&str, &str), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url:?}: only http:// URLs are supported"))?;
    let (authority, path) = match rest.find('/') {
        Some(slash) => rest.split_at(slash),
        None => (rest, "/"),
    };
    if authority.is_empty() {
        return Err(format!("{url:?}: no host"));
    }
    Ok((authority, path))
}

/// Resolves `url`, refusing any address that is not loopback.
pub(crate) async fn resolve(url: &str) -> Result<Target, String> {
    let (authority, path) = split_url(url)?;
    let with_port = if authority.ends_with(']') || !authority.contains(':') {
        format!("{authority}:80")
    } else {
        authority.to_owned()
    };
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host(with_port.as_str())
        .await
        .map_err(|e| format!("{url:?}: cannot resolve the host: {e}"))?
        .collect();
    if addrs.is_empty() || addrs.iter().any(|addr| !addr.ip().is_loopback()) {
        return Err(format!(
            "{url:?}: the host must resolve to loopback addresses only (127.0.0.0/8, ::1)"
        ));
    }
    let addr = addrs
        .first()
        .copied()
        .ok_or_else(|| format!("{url:?}: no address"))?;
    Ok(Target {
        addr,
        authority: authority.to_owned(),
        path: path.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_authority_and_path() {
        assert_eq!(
            split_url("http://127.0.0.1:8080/mcp"),
            Ok(("127.0.0.1:8080", "/mcp"))
        );
        assert_eq!(split_url("http://[::1]:9"), Ok(("[::1]:9", "/")));
        assert!(split_url("https://127.0.0.1/mcp").is_err());
        assert!(split_url("http:///mcp").is_err());
    }

    #[tokio::test]
    async fn only_loopback_is_accepted() {
        let target = resolve("http://127.0.0.1:4000/mcp").await.unwrap();
        assert!(target.addr.ip().is_loopback());
        assert_eq!(target.addr.port(), 4000);
        assert_eq!(target.authority, "127.0.0.1:4000");
        assert_eq!(target.path, "/mcp");
        assert!(resolve("http://[::1]:4000/").await.is_ok());
        // Never contacted: refused at resolution.
        assert!(resolve("http://192.0.2.1:4000/mcp").await.is_err());
        assert!(resolve("http://10.0.0.1/mcp").await.is_err());
    }
}

//! A protected MCP server: every request needs an access token that the
//! authorization server at `MCP_ISSUER` issued for this server, with the
//! scope `mcp:tools`; `deploy` also needs `deploy:write`.
//!
//! ```text
//! MCP_ISSUER=https://auth.example.com/ cargo run --example protected
//! ```
//!
//! It listens on `MCP_LISTEN` (default `127.0.0.1:8080`) and names itself
//! `http://MCP_LISTEN/mcp`, the audience its tokens must carry.
//!
//! JWT access tokens are checked against the issuer's published keys; for
//! opaque tokens, use `IntrospectionVerifier` instead. See
//! `docs/authorization.md`.

use mcp_runtime::auth::{JwtVerifier, ProtectedResource};
use mcp_runtime::prelude::*;
use mcp_runtime::transport::http::HttpTransport;

/// Deploys the current release, as the caller the token names.
#[tool(scopes = ["deploy:write"])]
async fn deploy(ctx: Ctx) -> String {
    let caller = ctx.receive().caller.clone().unwrap_or_default();
    format!("Deployed, as {}.", caller.subject)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let issuer = std::env::var("MCP_ISSUER").unwrap_or_else(|_| "http://127.0.0.1:9000/".into());
    let listen = std::env::var("MCP_LISTEN").unwrap_or_else(|_| "127.0.0.1:8080".into());
    let resource = ProtectedResource::new(&format!("http://{listen}/mcp"), &issuer)?
        .scopes_supported(["mcp:tools", "deploy:write"])
        .required_scopes(["mcp:tools"]);
    let verifier = JwtVerifier::discover(&resource).await?;
    let server = Server::builder("protected", "1.0.0")
        .handler::<deploy>()
        .build()?;
    let http = HttpTransport::new(server).protect(resource, verifier);
    let bound = http.bind(listen.as_str()).await?;
    eprintln!("listening on {}", bound.url());
    bound.serve().await?;
    Ok(())
}

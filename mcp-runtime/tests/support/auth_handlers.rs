//! Handlers of the authorization tests (`auth_http`, `auth_jwt`): one that
//! needs a scope, and one whose state is bound to the caller.

use mcp_runtime::prelude::*;

/// Deploys: needs `deploy:write` on top of what every request needs.
#[tool(scopes = ["deploy:write"])]
pub(crate) async fn deploy(ctx: Ctx) -> String {
    let caller = ctx.receive().caller.clone().unwrap_or_default();
    format!("deployed by {}", caller.subject)
}

/// A confirmation.
#[derive(ElicitForm)]
pub(crate) struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// Asks, then answers: its state is bound to the caller.
#[tool]
pub(crate) async fn confirm(ctx: Ctx, _step: Resume<u8>) -> Reply<u8> {
    match ctx.answer::<Confirm>("ok") {
        Answer::Accept(Confirm { ok }) => Reply::text(format!("ok = {ok}")),
        _ => Reply::ask("ok", Confirm::form("Go ahead?")).resume(1),
    }
}

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use mcp_runtime::prelude::*;
use mcp_runtime::schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "mcp_runtime::schemars")]
struct DeployArgs {
    /// Where to deploy.
    target: String,
}

#[derive(ElicitForm)]
struct Confirm {
    /// Deploy to production?
    ok: bool,
}

#[derive(Serialize, Deserialize)]
enum Step {
    AwaitingConfirmation,
}

/// Deploy the current build.
#[tool(destructive)]
async fn deploy(args: DeployArgs, ctx: Ctx, step: Resume<Step>) -> Result<Reply<Step>, ToolError> {
    match step.into_inner() {
        None => Ok(
            Reply::ask("confirm", Confirm::form("Deploy to production?"))
                .resume(Step::AwaitingConfirmation),
        ),
        Some(Step::AwaitingConfirmation) => match ctx.answer::<Confirm>("confirm") {
            Answer::Accept(Confirm { ok: true }) => {
                Ok(Reply::text(format!("Deployed to {}.", args.target)))
            }
            Answer::Accept(_) | Answer::Decline | Answer::Cancel => {
                Ok(Reply::text("Not deployed."))
            }
            Answer::Missing | Answer::Invalid(_) => Ok(Reply::ask(
                "confirm",
                Confirm::form("Deploy to production?"),
            )
            .resume(Step::AwaitingConfirmation)),
        },
    }
}

#[test]
fn builds() {
    let server = Server::builder("smoke", "1")
        .tool(deploy {})
        .request_state_signer(mcp_runtime::state::RequestStateSigner::generate().unwrap())
        .build()
        .unwrap();
    let _ = server;
}

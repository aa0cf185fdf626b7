//! Fixtures for the outcome record (not in the conformance suite): a
//! confirmed deploy whose side effect is counted, so tests can see that a
//! retry of its final round ran once in the whole fleet.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::prelude::*;
use serde::Deserialize;

use crate::input_required::ConfirmForm;

/// Deploys run in this process.
static DEPLOYS: AtomicUsize = AtomicUsize::new(0);

/// How long a deploy may be made to take, at most.
const MAX_HOLD: Duration = Duration::from_secs(5);
/// The most filler a deploy's answer may carry.
const MAX_PAD: usize = 1 << 20;

/// How the deploy behaves.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct DeployArgs {
    /// Milliseconds the deploy takes (at most 5000).
    #[serde(default)]
    hold_ms: u64,
    /// Bytes of filler in the answer (at most 1 MiB).
    #[serde(default)]
    pad: usize,
}

/// Asks to confirm, then deploys once: the answer names the run and this
/// process, so identical answers from two instances show a single run.
#[tool]
pub(crate) async fn test_exactly_once_deploy(
    args: DeployArgs,
    ctx: Ctx,
    step: Resume<()>,
) -> Reply<()> {
    if step.into_inner().is_none() {
        return Reply::ask("confirm", ConfirmForm::form("Deploy now?")).resume(());
    }
    match ctx.answer::<ConfirmForm>("confirm") {
        Answer::Accept(ConfirmForm { ok: true }) => {
            let run = DEPLOYS.fetch_add(1, Ordering::SeqCst) + 1;
            tokio::time::sleep(Duration::from_millis(args.hold_ms).min(MAX_HOLD)).await;
            let pad = "x".repeat(args.pad.min(MAX_PAD));
            Reply::text(format!(
                "Deployed: run {run} of process {}.{pad}",
                std::process::id()
            ))
        }
        _ => Reply::text("Not deployed."),
    }
}

/// How many deploys ran in this process.
#[tool]
pub(crate) async fn test_deploy_count() -> String {
    DEPLOYS.load(Ordering::SeqCst).to_string()
}

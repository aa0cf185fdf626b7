use mcp_runtime::prelude::*;
use serde::Deserialize;

struct Desk;

#[derive(Deserialize, JsonSchema)]
struct TriageArgs {
    /// The team to hand it to.
    team: String,
}

#[handlers]
impl Desk {
    /// Triage a ticket.
    #[prompt]
    async fn triage(&self, args: TriageArgs) -> String {
        args.team
    }

    /// The teams that start with what was typed.
    #[completion(prompt = "triage", argument = "team")]
    async fn teams(&self, typed: &str) -> Vec<String> {
        vec![typed.to_owned()]
    }

    /// The same again.
    #[completion(prompt = "triage", argument = "team")]
    async fn more_teams(&self, typed: String) -> Vec<String> {
        vec![typed]
    }
}

fn main() {
    let _ = Server::builder("test", "1").handlers(Desk);
}

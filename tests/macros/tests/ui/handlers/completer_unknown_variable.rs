use mcp_runtime::prelude::*;
use serde::Deserialize;

struct Desk;

#[derive(Deserialize, JsonSchema)]
struct TeamVars {
    team: String,
}

#[handlers]
impl Desk {
    /// A team's page.
    #[resource(uri_template = "desk://teams/{team}")]
    async fn page(&self, vars: TeamVars) -> String {
        vars.team
    }

    /// The teams that start with what was typed.
    #[completion(template = "desk://teams/{team}", argument = "teams")]
    async fn teams(&self, typed: &str) -> Vec<String> {
        vec![typed.to_owned()]
    }
}

fn main() {
    let _ = Server::builder("test", "1").handlers(Desk);
}

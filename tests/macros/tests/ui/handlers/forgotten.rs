use mcp_runtime::prelude::*;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Lookup {
    id: u64,
}

struct Desk;

// No `#[handlers]` on the block: one error, at the first method's `&self`,
// though the attribute has an unknown key, the name is not a tool name,
// there is no doc comment and a parameter is a `u128`.
impl Desk {
    #[tool(name = "look up", colour = "red")]
    async fn look_up(&self, args: Lookup, ctx: Ctx, big: u128) -> String {
        let _ = (ctx, big);
        args.id.to_string()
    }
}

fn main() {}

use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Greeting {
    /// Who to greet.
    name: &'static str,
}

fn main() {}

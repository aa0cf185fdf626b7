use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Tags {
    /// Tags to add.
    tags: Vec<String>,
}

fn main() {}

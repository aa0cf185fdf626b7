use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Offset {
    /// Offset from the start.
    offset: Option<i128>,
}

fn main() {}

use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Point {
    /// Where to put it.
    at: (i32, i32),
}

fn main() {}

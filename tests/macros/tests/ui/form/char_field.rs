use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Initial {
    /// First letter of the name.
    initial: char,
}

fn main() {}

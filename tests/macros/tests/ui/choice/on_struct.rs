use mcp_runtime::ElicitChoice;

#[derive(ElicitChoice)]
struct Color {
    name: String,
}

fn main() {}

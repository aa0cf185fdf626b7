use mcp_runtime::ElicitChoice;

#[derive(ElicitChoice)]
enum Size {
    Small,
    Custom(u32),
}

fn main() {}

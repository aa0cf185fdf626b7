use mcp_runtime::ElicitChoice;

#[derive(ElicitChoice)]
#[serde(rename_all = "lowercase")]
enum Color {
    Red,
    #[serde(rename = "red")]
    Crimson,
}

fn main() {}

use mcp_runtime::prelude::*;

#[derive(ElicitChoice)]
#[serde(rename_all = "lowercase")]
enum Size {
    #[elicit(title = "Small (S)")]
    Small,
    Medium,
    #[serde(rename = "XL")]
    ExtraLarge,
}

fn main() {}

use mcp_runtime::ElicitChoice;

#[derive(ElicitChoice)]
enum Speed {
    #[elicit(title = "Standard", description = "Three to five days")]
    Standard,
    #[serde(skip)]
    #[elicit(titel = "Express")]
    Express,
}

fn main() {}

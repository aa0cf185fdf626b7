use mcp_runtime::prelude::*;

#[derive(ElicitForm)]
#[serde(rename_all = "camelCase")]
struct Signup {
    /// What to call you.
    #[elicit(min_length = 1, max_length = 80)]
    display_name: String,
    #[elicit(title = "Email", format = "email")]
    email: Option<String>,
    #[elicit(minimum = 13, maximum = 130, default = 18)]
    age: u8,
    #[serde(skip)]
    internal: bool,
}

fn main() {}

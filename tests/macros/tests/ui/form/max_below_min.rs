use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Login {
    #[elicit(min_length = 8, max_length = 4)]
    password: String,
}

fn main() {}

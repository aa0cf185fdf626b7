use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Settings {
    #[elicit(default = some_value())]
    retries: u32,
}

fn main() {}

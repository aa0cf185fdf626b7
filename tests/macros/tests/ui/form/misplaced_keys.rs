use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
#[elicit(title = "Shipping")]
struct Shipping {
    #[elicit(crate = "mcp_runtime", min_length = 1)]
    street: String,
}

fn main() {}

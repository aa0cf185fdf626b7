use mcp_runtime::ElicitForm;

struct Address {
    #[allow(dead_code)]
    street: String,
}

#[derive(ElicitForm)]
struct Contact {
    /// Name.
    name: String,
    /// Postal address.
    address: Address,
}

fn main() {}

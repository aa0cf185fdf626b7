use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Contact {
    #[elicit(format = "phone")]
    phone: String,
}

fn main() {}

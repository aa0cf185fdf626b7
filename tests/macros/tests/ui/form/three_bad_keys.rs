use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Contact {
    #[elicit(titel = "Name", min_length = "one", placeholder = "Ada")]
    name: String,
}

fn main() {
    // Using it adds no second error: a stub impl is emitted.
    let _ = <Contact as mcp_runtime::ElicitForm>::form("?");
}

use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
enum Confirm {
    Yes,
    No,
}

fn main() {
    // Using it adds no second error: a stub impl is emitted.
    let _ = <Confirm as mcp_runtime::ElicitForm>::form("?");
}

use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Confirm(bool);

fn main() {
    // Using it adds no second error: a stub impl is emitted.
    let _ = <Confirm as mcp_runtime::ElicitForm>::form("?");
}

use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Transfer {
    /// Amount, in the smallest unit.
    amount: u128,
}

fn main() {}

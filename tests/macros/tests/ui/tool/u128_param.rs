use mcp_runtime::tool;
use std::collections::BTreeMap;

/// Sums the amounts, in the smallest unit.
#[tool]
async fn total(amounts: BTreeMap<String, u128>) -> String {
    amounts.values().sum::<u128>().to_string()
}

fn main() {}

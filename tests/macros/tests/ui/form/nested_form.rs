use mcp_runtime::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(ElicitForm, Serialize, Deserialize, JsonSchema)]
struct Address {
    /// Street.
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

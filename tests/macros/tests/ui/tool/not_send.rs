use std::rc::Rc;

use mcp_runtime::prelude::*;

/// Holds an `Rc` across an `.await`, so its future is not `Send`.
#[tool]
async fn counts() -> String {
    let shared = Rc::new(1);
    std::future::ready(()).await;
    shared.to_string()
}

fn main() {
    let _ = Server::builder("test", "1").handler::<counts>();
}

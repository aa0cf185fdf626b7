use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Pick<T> {
    value: T,
}

fn main() {
    // Using it adds no second error: a stub impl is emitted.
    let _ = <Pick<String> as mcp_runtime::ElicitForm>::form("?");
}

use mcp_runtime::ElicitChoice;

#[derive(ElicitChoice)]
enum Pick<T> {
    One,
    Other(T),
}

fn main() {}

use mcp_runtime::ElicitForm;

struct Tag {
    #[allow(dead_code)]
    name: String,
}

#[derive(ElicitForm)]
struct Post {
    /// Tags to add.
    tags: Vec<Tag>,
}

fn main() {}

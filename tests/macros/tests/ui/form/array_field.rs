use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Rgb {
    /// Red, green and blue.
    channels: [u8; 3],
}

fn main() {}

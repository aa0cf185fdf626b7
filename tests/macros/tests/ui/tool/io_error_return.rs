use mcp_runtime::tool;

/// Reads the log.
#[tool]
async fn read_log() -> Result<String, std::io::Error> {
    std::fs::read_to_string("/var/log/app.log")
}

fn main() {}

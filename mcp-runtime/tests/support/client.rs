//! What the tests of `mcp_runtime::client` share: reading a result, and a
//! stdio server written in Python.

use mcp_runtime::prelude::*;
use mcp_runtime::schema::ContentBlock;

/// The text of the first content block of a tool result.
pub(crate) fn text_of(result: &CallToolResult) -> String {
    match &result.content[0] {
        ContentBlock::Text(text) => text.text.clone(),
        other => panic!("not text: {other:?}"),
    }
}

/// Writes the Python `source` to `server.py` in `<temp dir>/<dir>-<pid>`;
/// the script's path, to run with `python3`.
pub(crate) fn python_script(dir: &str, source: &str) -> String {
    let dir = std::env::temp_dir().join(format!("{dir}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("server.py");
    std::fs::write(&script, source).unwrap();
    script.to_string_lossy().into_owned()
}

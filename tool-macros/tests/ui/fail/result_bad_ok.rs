use tool_core::{tool, ToolError};

/// Open a file.
#[tool]
fn open(path: String) -> Result<std::fs::File, ToolError> {
    Ok(std::fs::File::open(path)?)
}

fn main() {}

use tool_core::tool;

/// Copy a file.
#[tool]
fn copy(#[arg(rename = "path")] from: String, path: String) -> String {
    format!("{from} -> {path}")
}

fn main() {}

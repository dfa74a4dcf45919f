use tool_core::{tool, Workspace};

/// Show the workspace.
#[tool(read_only)]
fn show(#[serde(default)] ws: &Workspace) -> String {
    format!("{ws:?}")
}

fn main() {}

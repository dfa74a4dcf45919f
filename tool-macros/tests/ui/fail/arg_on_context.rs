use tool_core::{tool, Workspace};

/// Show the workspace.
#[tool(read_only)]
fn show(#[arg(desc = "The workspace.")] ws: &Workspace) -> String {
    format!("{ws:?}")
}

fn main() {}

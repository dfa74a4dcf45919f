use tool_core::{tool, Workspace};

/// List the workspace.
///
/// # Arguments
/// * `ws` - The workspace.
/// * `depth` - How deep to go.
#[tool(read_only)]
fn list(ws: &Workspace, depth: u32) -> String {
    format!("{ws:?} {depth}")
}

fn main() {}

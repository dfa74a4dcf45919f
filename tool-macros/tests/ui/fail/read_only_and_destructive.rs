use tool_core::tool;

/// Delete a file.
#[tool(read_only, destructive)]
fn delete_file(path: String) -> String {
    path
}

fn main() {}

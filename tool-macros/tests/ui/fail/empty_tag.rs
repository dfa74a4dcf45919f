use tool_core::tool;

/// Read a file.
#[tool(read_only, tags("fs", " "))]
fn read_file(path: String) -> String {
    path
}

fn main() {}

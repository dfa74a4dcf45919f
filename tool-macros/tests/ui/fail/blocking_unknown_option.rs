use tool_core::tool;

/// Read a file.
#[tool(read_only, blocking(fast))]
fn read(path: String) -> String {
    path
}

fn main() {}

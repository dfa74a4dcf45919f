use tool_core::tool;

/// Read a file descriptor.
#[tool(read_only)]
fn read_fd(#[arg(path)] fd: u32) -> String {
    fd.to_string()
}

fn main() {}

use tool_core::tool;

/// Fetch something.
#[tool(read_only)]
fn fetch(#[arg(path, url)] target: String) -> String {
    target
}

fn main() {}

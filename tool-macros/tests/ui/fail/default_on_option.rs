use tool_core::tool;

/// List lines.
#[tool(read_only)]
fn lines(#[arg(default = Some(10))] limit: Option<u32>) -> String {
    format!("{limit:?}")
}

fn main() {}

use tool_core::tool;

/// Add two integers.
#[tool(read_only = true)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}

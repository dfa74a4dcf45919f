use tool_core::tool;

/// Add two integers.
#[tool(read_only)]
fn add((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}

use tool_core::tool;

/// Add two integers.
#[tool(readonly)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}

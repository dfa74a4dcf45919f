use tool_core::{tool, Args};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Left {
    a: i64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Right {
    b: i64,
}

/// Add two integers.
#[tool(read_only)]
fn add(Args(left): Args<Left>, Args(right): Args<Right>) -> i64 {
    left.a + right.b
}

fn main() {}

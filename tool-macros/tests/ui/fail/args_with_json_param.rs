use tool_core::{tool, Args};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Input {
    a: i64,
}

/// Add two integers.
#[tool(read_only)]
fn add(Args(input): Args<Input>, b: i64) -> i64 {
    input.a + b
}

fn main() {}

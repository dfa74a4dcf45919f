use tool_core::{tool, Args};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Input {
    a: i64,
}

/// Double an integer.
///
/// # Arguments
/// * `a` - The integer.
#[tool(read_only)]
fn double(Args(input): Args<Input>) -> i64 {
    input.a * 2
}

fn main() {}

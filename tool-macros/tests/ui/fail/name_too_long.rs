use tool_core::tool;

/// Add two integers.
#[tool(read_only, name = "add_two_integers_and_return_their_sum_as_text_for_the_model_please")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}

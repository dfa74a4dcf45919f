use tool_core::tool;

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool(read_only)]
fn add(a: i64, #[arg(desc = "The second addend.")] b: i64) -> i64 {
    a + b
}

fn main() {}

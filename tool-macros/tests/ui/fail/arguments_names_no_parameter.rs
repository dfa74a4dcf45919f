use tool_core::tool;

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `c` - The second addend.
#[tool(read_only)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}

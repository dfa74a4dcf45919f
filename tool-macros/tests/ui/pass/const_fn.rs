use tool_core::tool;

/// Add two integers. A `const fn` is a tool like any other.
#[tool(read_only)]
const fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}

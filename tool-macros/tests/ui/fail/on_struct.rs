use tool_core::tool;

/// Not a function.
#[tool]
struct Add {
    a: i64,
}

fn main() {}

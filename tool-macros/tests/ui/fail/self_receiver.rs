use tool_core::tool;

struct Calculator;

impl Calculator {
    /// Add two integers.
    #[tool(read_only)]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

fn main() {}

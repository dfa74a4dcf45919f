use tool_core::tool;

struct MyError;

/// Parse a number.
#[tool(read_only)]
fn parse(text: String) -> Result<i64, MyError> {
    text.parse().map_err(|_| MyError)
}

fn main() {}

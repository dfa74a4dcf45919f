use tool_core::tool;

/// Echo a value.
#[tool(read_only)]
fn echo(value: impl ToString) -> String {
    value.to_string()
}

fn main() {}

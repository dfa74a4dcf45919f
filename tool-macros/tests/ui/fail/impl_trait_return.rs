use tool_core::tool;

/// Echo a value.
#[tool(read_only)]
fn echo(value: String) -> impl std::fmt::Display {
    value
}

fn main() {}

use tool_core::tool;

/// Echo a value.
#[tool(read_only)]
fn echo<T: ToString>(value: T) -> String {
    value.to_string()
}

fn main() {}

use tool_core::tool;

/// Greet someone.
#[tool(read_only)]
fn greet(name: &str) -> String {
    format!("hello {name}")
}

fn main() {}

use tool_core::tool;

struct Database;

/// Count rows.
#[tool(read_only)]
fn count(#[ctx] db: &Database, table: String) -> String {
    let _ = db;
    table
}

fn main() {}

use tool_core::tool;

/// Fetch a page.
#[tool(read_only, open_world, closed_world)]
fn fetch(url: String) -> String {
    url
}

fn main() {}

use tool_core::tool;

/// Open a file.
#[tool]
fn open(path: String) -> std::fs::File {
    std::fs::File::open(path).unwrap()
}

fn main() {}

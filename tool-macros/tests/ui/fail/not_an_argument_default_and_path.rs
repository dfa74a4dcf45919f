use tool_core::tool;

#[derive(Default)]
struct Target {
    path: String,
}

/// Copy a file.
#[tool(read_only_if = same)]
fn copy(#[arg(default = Target::default())] from: Target, #[arg(path)] to: Target) -> String {
    format!("{} {}", from.path, to.path)
}

fn same(from: &Target, to: &Target) -> bool {
    from.path == to.path
}

fn main() {}

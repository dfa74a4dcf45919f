use tool_core::tool;

fn is_harmless(command: &str) -> bool {
    command.starts_with("git status")
}

/// Run a shell command.
#[tool(read_only_if = is_harmless)]
fn run(command: String, cwd: Option<String>) -> String {
    format!("{command} {cwd:?}")
}

fn main() {}

use tool_core::tool;

fn is_harmless(command: &String) -> bool {
    command.starts_with("git status")
}

/// Run a shell command.
#[tool(read_only, read_only_if = is_harmless)]
fn run(command: String) -> String {
    command
}

fn main() {}

use tool_core::{tool, Args};

struct Config {
    verbose: bool,
}

/// Run with a configuration.
#[tool]
fn run(Args(config): Args<Config>) -> String {
    format!("{}", config.verbose)
}

fn main() {}

use tool_core::tool;

struct Config {
    verbose: bool,
}

/// Run with a configuration.
#[tool]
fn run(config: Config, times: u32) -> String {
    format!("{} {times}", config.verbose)
}

fn main() {}

use tool_core::tool;

#[derive(serde::Deserialize)]
struct Step {
    command: String,
}

/// Run the steps in order.
#[tool]
fn run(steps: Vec<Step>, retries: Option<u32>) -> String {
    format!("{} {}", steps.len(), retries.unwrap_or(0))
}

fn main() {}

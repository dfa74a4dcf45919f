use tool_core::tool;

/// Sleep a while.
#[tool(blocking)]
async fn nap(ms: u64) -> u64 {
    ms
}

fn main() {}

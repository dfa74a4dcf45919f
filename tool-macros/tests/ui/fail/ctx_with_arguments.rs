use tool_core::{tool, context::ToolContext};

/// Show the call.
#[tool(read_only)]
fn show(#[ctx(required)] ctx: &ToolContext) -> String {
    ctx.call().call_id.clone()
}

fn main() {}

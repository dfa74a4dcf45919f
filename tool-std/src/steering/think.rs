//! `think`: a place for the model to reason between calls (Anthropic's "think" tool). Nothing
//! happens but the thought being noted; the answer is short, so the thought is not paid for
//! twice.

use tool_core::{ToolError, tool};

/// Think about something: reason through the results so far, check them against the rules
/// that apply, or plan the next calls. Nothing is fetched or changed; the thought is only
/// noted. Use it when a step needs careful reasoning before acting.
///
/// # Arguments
/// * `thought` - The reasoning to note.
#[tool(read_only, idempotent, closed_world, name = "think", tags("steering"))]
fn think(thought: String) -> Result<String, ToolError> {
    let words = thought.split_whitespace().count();
    if words == 0 {
        return Err(ToolError::failed(
            "`thought` is empty; write out the reasoning you want to note, or go on without calling think",
        ));
    }
    // An acknowledgement, never the thought itself: the model already has it in context.
    Ok(format!(
        "Thought noted ({words} word{}).",
        if words == 1 { "" } else { "s" }
    ))
}

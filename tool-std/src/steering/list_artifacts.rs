//! `list_artifacts`: the outputs this session kept whole when the output limit cut them (the
//! coordinator's [`Artifacts`] store), for the model to find one to page through with
//! `read_artifact`.

use std::fmt::Write as _;

use tool_core::middleware::Artifacts;
use tool_core::{State, tool};

/// List the outputs kept whole in this session because they were too long to show: each
/// artifact's id, the tool and call that produced it, and its size. Read one with
/// `read_artifact`.
#[tool(read_only, closed_world, name = "list_artifacts", tags("artifacts"))]
fn list_artifacts(artifacts: State<Artifacts>) -> String {
    let kept = artifacts.list();
    if kept.is_empty() {
        return "No outputs are kept in this session: an output is kept as an artifact only when it is too long to show whole."
            .to_owned();
    }
    let mut text = format!(
        "{} artifact{} kept, oldest first (id, tool, call id, lines, bytes):",
        kept.len(),
        if kept.len() == 1 { "" } else { "s" }
    );
    for artifact in &kept {
        let call_id = if artifact.call_id.is_empty() {
            "-"
        } else {
            &artifact.call_id
        };
        let _ = write!(
            text,
            "\n{}  {}  {call_id}  {} lines  {} bytes",
            artifact.id,
            artifact.tool,
            artifact.text.lines().count(),
            artifact.text.len()
        );
    }
    text
}

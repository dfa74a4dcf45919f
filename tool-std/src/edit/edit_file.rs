//! `edit_file`: one replacement in a file, found by the matching ladder, written back in the
//! file's own format.

use tool_core::context::ToolContext;
use tool_core::{ToolError, Workspace, WorkspacePath, tool};

use crate::edit::{self, report, with_staleness};
use crate::fs;

/// Replace text in a file: `old_string` must match one place exactly (or, failing that, one
/// place under a looser comparison: line endings, trailing whitespace, indentation, Unicode
/// punctuation, literal escapes; the reply says which). The file keeps its encoding, byte order
/// mark and line endings; nothing outside the replaced text changes.
///
/// # Arguments
/// * `path` - The file, relative to the workspace root (or absolute inside it).
/// * `old_string` - The text to replace, with enough surrounding lines to match one place.
/// * `new_string` - The text to put in its place.
/// * `replace_all` - Replace every occurrence (exact or line-ending-normalized matches only).
#[tool(
    closed_world,
    blocking(quick),
    name = "edit_file",
    aliases("Edit"),
    tags("fs")
)]
fn edit_file(
    ctx: &ToolContext,
    ws: &Workspace,
    #[serde(alias = "file_path", alias = "filePath", alias = "absolute_path")] path: WorkspacePath,
    #[serde(alias = "oldString")] old_string: String,
    #[serde(alias = "newString")] new_string: String,
    #[serde(alias = "replaceAll")]
    #[arg(default)]
    replace_all: bool,
) -> Result<String, ToolError> {
    let shown = path.sent().display().to_string();
    let (reply, stale) = fs::modify(ctx, ws, &path, |text| {
        let applied = edit::apply_edit(text, &old_string, &new_string, replace_all)
            .map_err(|error| ToolError::failed(format!("`{shown}`: {error}")))?;
        let reply = report(&shown, std::slice::from_ref(&applied));
        Ok((applied.text, reply))
    })?;
    Ok(with_staleness(reply, &shown, stale))
}

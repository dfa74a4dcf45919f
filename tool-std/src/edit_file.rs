//! `edit_file`: one replacement in a file, found by the matching ladder, written back in the
//! file's own format.

use tool_core::context::ToolContext;
use tool_core::{ToolError, Workspace, WorkspacePath, tool};

use crate::edit::{self, Applied};
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
    blocking,
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

/// The reply, with a note when the file had changed on disk since this session read it.
pub(crate) fn with_staleness(mut reply: String, shown: &str, stale: bool) -> String {
    if stale {
        let at = reply.find('\n').unwrap_or(reply.len());
        reply.insert_str(
            at,
            &format!(" `{shown}` had changed on disk since this session read it; the edit was made to it as it is now."),
        );
    }
    reply
}

/// The reply of an edit: what changed, how it was found when not exactly, the lines around it.
pub(crate) fn report(shown: &str, edits: &[Applied]) -> String {
    let mut text = String::new();
    let replacements: usize = edits.iter().map(|applied| applied.replacements).sum();
    text.push_str(&format!(
        "Edited `{shown}`: {replacements} replacement{}",
        if replacements == 1 { "" } else { "s" }
    ));
    let loose: Vec<&str> = edits
        .iter()
        .filter(|applied| applied.level != edit::MatchLevel::Exact)
        .map(|applied| applied.level.describe())
        .collect();
    if !loose.is_empty() {
        text.push_str(&format!(" ({})", loose.join("; ")));
    }
    text.push('.');
    if let Some(last) = edits.last() {
        text.push_str(&format!(
            "\nLines {}-{} now:\n{}",
            last.span.0,
            last.span.1,
            edit::snippet(&last.text, last.span, 3)
        ));
    }
    text
}

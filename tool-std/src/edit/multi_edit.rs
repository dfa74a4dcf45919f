//! `multi_edit`: several replacements in one file, in order, all or nothing.

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::context::ToolContext;
use tool_core::{ToolError, Workspace, WorkspacePath, tool};

use crate::edit::{self, Edit, report, with_staleness};
use crate::fs;

/// One replacement of a `multi_edit` call.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    /// The text to replace, with enough surrounding lines to match one place.
    #[serde(alias = "oldString")]
    pub old_string: String,
    /// The text to put in its place.
    #[serde(alias = "newString")]
    pub new_string: String,
    /// Replace every occurrence (exact or line-ending-normalized matches only).
    #[serde(default, alias = "replaceAll")]
    pub replace_all: bool,
}

/// Make several replacements in one file, each on the result of the one before, all or
/// nothing: if one does not apply, the file is left as it was. Each replacement is found as
/// `edit_file` finds it.
///
/// # Arguments
/// * `path` - The file, relative to the workspace root (or absolute inside it).
/// * `edits` - The replacements, in order.
#[tool(
    closed_world,
    blocking(quick),
    name = "multi_edit",
    aliases("MultiEdit"),
    tags("fs")
)]
fn multi_edit(
    ctx: &ToolContext,
    ws: &Workspace,
    #[serde(alias = "file_path", alias = "filePath", alias = "absolute_path")] path: WorkspacePath,
    edits: Vec<EditArgs>,
) -> Result<String, ToolError> {
    let shown = path.sent().display().to_string();
    if edits.is_empty() {
        return Err(ToolError::failed(
            "`edits` is empty: give at least one replacement",
        ));
    }
    let (reply, stale) = fs::modify(ctx, ws, &path, |text| {
        let edits: Vec<Edit<'_>> = edits
            .iter()
            .map(|args| Edit {
                old: &args.old_string,
                new: &args.new_string,
                replace_all: args.replace_all,
            })
            .collect();
        match edit::apply_edits(text, &edits) {
            Ok((text, applied)) => Ok((text, report(&shown, &applied))),
            Err((index, error)) => Err(ToolError::failed(format!(
                "`{shown}`: edit {} of {}: {error}\nNo edit was made: the file is as it was.",
                index + 1,
                edits.len()
            ))),
        }
    })?;
    Ok(with_staleness(reply, &shown, stale))
}

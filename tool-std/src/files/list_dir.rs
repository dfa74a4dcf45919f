//! `list_dir`: a directory as a sorted tree.

use std::path::{Path, PathBuf};

use tool_core::{ToolError, Workspace, WorkspacePath, tool};

use crate::search::walk;

/// List a directory as a sorted tree, `depth` levels deep: directories end in `/`, symbolic
/// links in `@` (never followed). Files `.gitignore`d or hidden are left out; a directory that
/// is ignored or hidden is shown once, with how many entries it holds, and not walked.
///
/// # Arguments
/// * `path` - The directory (default: the workspace root).
/// * `depth` - How many levels to show (default 2).
/// * `limit` - At most this many entries (default 200).
/// * `offset` - The first entry to show, counting from 1, to page on (default 1).
#[tool(
    read_only,
    closed_world,
    blocking(quick),
    name = "list_dir",
    aliases("LS"),
    tags("fs", "search")
)]
fn list_dir(
    ws: &Workspace,
    #[serde(alias = "dir_path", alias = "directory")] path: Option<WorkspacePath>,
    #[arg(default = 2)] depth: usize,
    #[arg(default = 200)] limit: usize,
    #[arg(default = 1)] offset: usize,
) -> Result<String, ToolError> {
    let (root, sent) = match &path {
        Some(path) => (path.in_workspace(ws), path.sent().display().to_string()),
        None => (ws.root().to_owned(), ".".to_owned()),
    };
    let root = walk::root(ws, &root, &sent)?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    if depth > 1 && (root == Path::new("/") || home.as_deref() == Some(root.as_path())) {
        return Err(ToolError::failed(format!(
            "`{sent}` is the file-system root or the home directory: listing it {depth} levels deep would flood the context; list it with depth=1, or a directory below it"
        )));
    }
    let depth = depth.max(1);
    let held_back = walk::HeldBack::default();
    let lines: Vec<String> = walk::rules::list(ws, &root, depth, &held_back)
        .into_iter()
        .map(|entry| {
            let note = if entry.shown {
                String::new()
            } else {
                let count = ws.read_entry_dir(&entry.path).map_or(0, Iterator::count);
                format!(" (ignored or hidden: {count} entries, not listed)")
            };
            line(&entry.path, entry.depth, entry.kind.suffix(), &note)
        })
        .collect();
    let total = lines.len();
    let note = held_back
        .note()
        .map(|note| format!("\n{note}"))
        .unwrap_or_default();
    if total == 0 {
        return Ok(format!("`{sent}` is empty{note}"));
    }
    let first = offset.max(1);
    let page: Vec<&str> = lines
        .iter()
        .skip(first - 1)
        .take(limit.max(1))
        .map(String::as_str)
        .collect();
    let last = first - 1 + page.len();
    let mut text = format!("{}/\n{}", walk::shown(ws, &root), page.join("\n"));
    if last < total {
        text.push_str(&format!(
            "\n(More than {limit} entries: {first}-{last} of {total} shown; continue with offset={})",
            last + 1
        ));
    }
    text.push_str(&note);
    Ok(text)
}

/// An entry's line: indented by its depth, its name, its suffix, a note.
fn line(path: &Path, depth: usize, suffix: &str, note: &str) -> String {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    );
    format!(
        "{}{name}{suffix}{note}",
        "  ".repeat(depth.saturating_sub(1) + 1)
    )
}

//! `glob`: files whose path matches a pattern, newest first.

use std::path::Path;
use std::time::SystemTime;

use globset::GlobBuilder;
use tool_core::{ToolError, Workspace, WorkspacePath, tool};

use crate::walk::{self, Visit};

/// Find files by name pattern (`**/*.rs`, `src/**/*.{ts,tsx}`, `*.md`), newest first, as paths
/// relative to the workspace root. `.gitignore`d and hidden files are left out, unless the
/// pattern names a dot-path (`.github/**`) or is an exact path with no wildcard, which is found
/// even when ignored.
///
/// # Arguments
/// * `pattern` - The glob, relative to `path`: `*` within one path component, `**` across them, `{a,b}` alternatives.
/// * `path` - The directory to search in (default: the workspace root).
/// * `limit` - At most this many paths (default 100).
/// * `offset` - Skip this many paths first, to page on (default 0).
#[tool(
    read_only,
    closed_world,
    blocking(quick),
    name = "glob",
    aliases("Glob"),
    tags("fs", "search")
)]
fn glob(
    ws: &Workspace,
    #[serde(alias = "glob")] pattern: String,
    #[serde(alias = "dir_path", alias = "directory")] path: Option<WorkspacePath>,
    #[arg(default = 100)] limit: usize,
    #[arg(default)] offset: usize,
) -> Result<String, ToolError> {
    let (root, sent) = match &path {
        Some(path) => (path.in_workspace(ws), path.sent().display().to_string()),
        None => (ws.root().to_owned(), ".".to_owned()),
    };
    let root = walk::root(ws, &root, &sent)?;
    // The pattern is relative to `path` and stays under it: an absolute pattern or a `..` would
    // reach outside the workspace (and say whether a file exists there).
    let escapes = Path::new(&pattern).components().any(|component| {
        !matches!(
            component,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    });
    if escapes {
        return Err(ToolError::failed(format!(
            "`{pattern}` leaves the search directory: a glob pattern is relative to `path` and cannot be absolute or contain `..`; to search elsewhere in the workspace, set `path` to that directory"
        )));
    }
    // An exact path finds its file whatever ignores it, but, like the walk, never through a
    // symlinked directory (which may point outside the workspace).
    if !pattern.contains(['*', '?', '[', '{']) {
        let exact = root.join(&pattern);
        return Ok(match std::fs::symlink_metadata(&exact) {
            Ok(_)
                if !through_symlink(&root, Path::new(&pattern))
                    && walk::shown(ws, &exact) != "." =>
            {
                walk::shown(ws, &exact)
            }
            _ => format!("no file matches `{pattern}` in `{sent}`"),
        });
    }
    let matcher = GlobBuilder::new(pattern.trim_start_matches("./"))
        .literal_separator(true)
        .build()
        .map_err(|error| {
            ToolError::failed(format!(
                "`{pattern}` is not a valid glob ({}); write one like `**/*.rs` or `src/*.{{ts,tsx}}`",
                error.kind()
            ))
        })?
        .compile_matcher();
    let names_dot_path = pattern.starts_with('.') || pattern.contains("/.");
    let walk = walk::builder(&root, None, names_dot_path);
    // Matched and stamped on the walking threads: the order is the sort's below.
    let mut found: Vec<(Option<SystemTime>, String)> = walk::parallel(&walk, || {
        |entry: ignore::DirEntry| {
            let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
            let matched = entry
                .path()
                .strip_prefix(&root)
                .is_ok_and(|relative| matcher.is_match(relative));
            if is_dir || !matched {
                return Visit::Skip;
            }
            Visit::Keep((modified(entry.path()), walk::shown(ws, entry.path())))
        }
    });
    let total = found.len();
    if total == 0 {
        return Ok(format!(
            "no file matches `{pattern}` in `{sent}` (files ignored by .gitignore or hidden are not searched; name a dot-path or an exact path to find one)"
        ));
    }
    // Newest first; the path breaks ties, so the order is the same on every run.
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let page: Vec<String> = found
        .into_iter()
        .skip(offset)
        .take(limit.max(1))
        .map(|(_, path)| path)
        .collect();
    let mut text = page.join("\n");
    let shown_to = offset + page.len();
    if shown_to < total || offset > 0 {
        text.push_str(&format!(
            "\n(paths {}-{shown_to} of {total}{})",
            offset + 1,
            if shown_to < total {
                format!("; continue with offset={shown_to}")
            } else {
                String::new()
            }
        ));
    }
    Ok(text)
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
}

/// Whether a directory on the way from `root` to `relative`'s file is a symlink.
fn through_symlink(root: &Path, relative: &Path) -> bool {
    let mut at = root.to_owned();
    let Some(parent) = relative.parent() else {
        return false;
    };
    parent.components().any(|component| {
        at.push(component);
        std::fs::symlink_metadata(&at).is_ok_and(|meta| meta.file_type().is_symlink())
    })
}

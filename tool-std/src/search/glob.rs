//! `glob`: files whose path matches a pattern, newest first.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use globset::{GlobBuilder, GlobMatcher};
use tool_core::{ToolError, Workspace, WorkspacePath, tool};

use crate::search::walk::{self, Visit};

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
    // symlinked directory (which may point outside the workspace), and not when a rule keeps
    // it from the tools.
    if !pattern.contains(['*', '?', '[', '{']) {
        let exact = root.join(&pattern);
        return match ws.entry_metadata(&exact) {
            Ok(_) if walk::shown(ws, &exact) != "." => Ok(walk::shown(ws, &exact)),
            Err(error) if is_denied(&error) => Err(ToolError::failed(error.to_string())),
            _ => Ok(format!("no file matches `{pattern}` in `{sent}`")),
        };
    }
    let matcher = compiled(&pattern)?;
    let names_dot_path = pattern.starts_with('.') || pattern.contains("/.");
    let (prefix, below_prefix) = reach(&pattern);
    let Some(start) = walk_start(ws, &root, &prefix) else {
        return Ok(format!("no file matches `{pattern}` in `{sent}`"));
    };
    // From the root, the prefix's own folders count in the depth.
    let max_depth = if start == root {
        below_prefix.map(|depth| depth + prefix.components().count())
    } else {
        below_prefix
    };
    let (walk, held_back) = walk::builder(ws, &start, max_depth, names_dot_path, false);
    // Matched and stamped on the walking threads: the order is the sort's below.
    let mut found: Vec<(Option<SystemTime>, String)> = walk::parallel(&walk, &held_back, || {
        |entry: ignore::DirEntry| {
            let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
            let matched = entry
                .path()
                .strip_prefix(&root)
                .is_ok_and(|relative| matcher.is_match(relative));
            if is_dir || !matched {
                return Visit::Skip;
            }
            // Stat'ed beneath the root with no link followed: a name the walk read through a
            // directory swapped for a link is not there, and is left out.
            let Ok(metadata) = ws.entry_metadata(entry.path()) else {
                return Visit::Skip;
            };
            Visit::Keep((
                metadata.modified().ok().map(|time| time.into_std()),
                walk::shown(ws, entry.path()),
            ))
        }
    });
    let total = found.len();
    let held_back = held_back
        .note()
        .map(|note| format!("\n{note}"))
        .unwrap_or_default();
    if total == 0 {
        return Ok(format!(
            "no file matches `{pattern}` in `{sent}` (files ignored by .gitignore or hidden are not searched; name a dot-path or an exact path to find one){held_back}"
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
    text.push_str(&held_back);
    Ok(text)
}

/// The matcher of `pattern`, compiled once per process: compiling one (a regular expression
/// under globset) costs more than a small walk, and a model globs the same patterns again
/// and again. At most 128 are kept; past that the cache starts afresh.
fn compiled(pattern: &str) -> Result<Arc<GlobMatcher>, ToolError> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<GlobMatcher>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(matcher) = cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(pattern)
    {
        return Ok(Arc::clone(matcher));
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
    let matcher = Arc::new(matcher);
    let mut cache = cache.lock().unwrap_or_else(PoisonError::into_inner);
    if cache.len() >= 128 {
        cache.clear();
    }
    cache.insert(pattern.to_owned(), Arc::clone(&matcher));
    Ok(matcher)
}

/// How far a pattern reaches: the leading components without a wildcard, a directory the walk
/// may start in (`src/app/**/*.ts` walks `src/app`, not the whole tree), and how deep below
/// it the rest can match (`*.md` looks at the top level alone; `**` or `{..}`, which may hold a
/// `/`, at any depth).
fn reach(pattern: &str) -> (PathBuf, Option<usize>) {
    let parts: Vec<&str> = pattern
        .trim_start_matches("./")
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    let literal = |part: &&&str| !part.contains(['*', '?', '[', '{', '\\']);
    // The last component names the files, never a directory to start in.
    let fixed = parts
        .iter()
        .take_while(literal)
        .count()
        .min(parts.len().saturating_sub(1));
    let rest = &parts[fixed..];
    let depth = (!rest
        .iter()
        .any(|part| part.contains("**") || part.contains('{')))
    .then_some(rest.len());
    (parts[..fixed].iter().collect(), depth)
}

/// Where the walk starts: `root`, or the directory `prefix` names below it when that is a
/// directory reached through no link (the walk follows none) that the rules let be walked
/// whole; `None` when it does not exist, so nothing can match. Anything else walks from
/// `root`, which finds what it found before this shortcut.
fn walk_start(ws: &Workspace, root: &Path, prefix: &Path) -> Option<PathBuf> {
    if prefix.as_os_str().is_empty() {
        return Some(root.to_owned());
    }
    let start = root.join(prefix);
    match ws.entry_metadata(&start) {
        Ok(metadata) if metadata.is_dir() && walk::check_walk(ws, &start).is_ok() => Some(start),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        _ => Some(root.to_owned()),
    }
}

/// Whether an I/O error is a rule's refusal.
fn is_denied(error: &std::io::Error) -> bool {
    error
        .get_ref()
        .is_some_and(|inner| inner.is::<tool_core::workspace::AccessDenied>())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::reach;

    #[test]
    fn a_literal_prefix_is_where_the_walk_starts_and_no_double_star_bounds_its_depth() {
        let cases: [(&str, &str, Option<usize>); 9] = [
            ("**/*.rs", "", None),
            ("*.md", "", Some(1)),
            ("src/*.rs", "src", Some(1)),
            ("./src/app/**/*.ts", "src/app", None),
            (
                "Userland/Libraries/LibGfx/**/*.h",
                "Userland/Libraries/LibGfx",
                None,
            ),
            ("src/*/mod.rs", "src", Some(2)),
            ("src/{a/b,c}/*.rs", "src", None),
            ("docs/READ?E.md", "docs", Some(1)),
            ("a\\*b/*.rs", "", Some(2)),
        ];
        for (pattern, prefix, depth) in cases {
            assert_eq!(reach(pattern), (PathBuf::from(prefix), depth), "{pattern}");
        }
    }
}

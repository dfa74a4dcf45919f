//! The walking engine under `glob`, `grep`, `repo_map` and `list_dir`: a tree walked as ripgrep walks it (its own
//! `ignore` crate: `.gitignore`, `.ignore` and hidden files respected, even outside a git
//! repository), never following a symbolic link, so a walk that starts inside the workspace
//! stays inside it; and paths shown relative to the workspace root. `list_dir` lists by the
//! same rules through [`rules`], which keeps them compiled between calls.

pub(crate) mod rules;

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use tool_core::{ToolError, Workspace};

/// One entry of a walk.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The absolute path.
    pub path: PathBuf,
    pub kind: Kind,
}

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    /// A symbolic link, never followed.
    Link,
}

impl Kind {
    /// The suffix a listing gives entries of this kind.
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Kind::File => "",
            Kind::Dir => "/",
            Kind::Link => "@",
        }
    }
}

/// A walk from `root` (an absolute path inside the workspace), sorted by file name.
pub(crate) fn builder(root: &Path, max_depth: Option<usize>, include_hidden: bool) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .follow_links(false)
        .hidden(!include_hidden)
        // `.gitignore` counts in a directory that is not a git repository too.
        .require_git(false)
        .max_depth(max_depth)
        .sort_by_file_name(|a, b| a.cmp(b));
    builder
}

/// Every entry below `root` the walk admits (the root itself left out).
pub(crate) fn entries(walk: &WalkBuilder) -> Vec<Entry> {
    walk.build()
        .filter_map(Result::ok)
        .filter(|entry| entry.depth() > 0)
        .map(|entry| {
            let kind = match entry.file_type() {
                Some(kind) if kind.is_symlink() => Kind::Link,
                Some(kind) if kind.is_dir() => Kind::Dir,
                _ => Kind::File,
            };
            Entry {
                path: entry.into_path(),
                kind,
            }
        })
        .collect()
}

/// What a [`parallel`] walk does with an entry.
pub(crate) enum Visit<T> {
    /// Nothing: go on.
    Skip,
    /// Keep this, and go on.
    Keep(T),
    /// Stop the walk (a time limit ran out).
    Stop,
}

/// Walks on every core, each thread making what it keeps of the entries it comes to with a
/// visitor of its own from `visitor` (the root itself left out), so that the work on each
/// entry overlaps the walk, as in ripgrep. What is kept comes in the threads' order: sort it.
pub(crate) fn parallel<T, F>(walk: &WalkBuilder, mut visitor: impl FnMut() -> F) -> Vec<T>
where
    T: Send,
    F: FnMut(ignore::DirEntry) -> Visit<T> + Send,
{
    use std::sync::{Mutex, PoisonError};
    let kept = Mutex::new(Vec::new());
    walk.build_parallel().run(|| {
        let mut visit = visitor();
        let kept = &kept;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return ignore::WalkState::Continue;
            };
            if entry.depth() == 0 {
                return ignore::WalkState::Continue;
            }
            match visit(entry) {
                Visit::Skip => ignore::WalkState::Continue,
                Visit::Keep(value) => {
                    kept.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(value);
                    ignore::WalkState::Continue
                }
                Visit::Stop => ignore::WalkState::Quit,
            }
        })
    });
    kept.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// `path` as the model should see it: relative to the workspace root it is under.
pub(crate) fn shown(ws: &Workspace, path: &Path) -> String {
    let relative = ws
        .roots()
        .iter()
        .find_map(|root| path.strip_prefix(root).ok())
        .unwrap_or(path);
    let text = relative.to_string_lossy();
    if text.is_empty() {
        ".".to_owned()
    } else {
        text.replace('\\', "/")
    }
}

/// The directory a search starts in: the path given, which must be a directory.
pub(crate) fn root(ws: &Workspace, path: &Path, sent: &str) -> Result<PathBuf, ToolError> {
    let metadata =
        std::fs::symlink_metadata(path).map_err(|error| crate::fs::io_error(ws, sent, &error))?;
    if !metadata.is_dir() {
        return Err(ToolError::failed(format!(
            "`{sent}` is not a directory; give the directory to search in"
        )));
    }
    Ok(path.to_owned())
}

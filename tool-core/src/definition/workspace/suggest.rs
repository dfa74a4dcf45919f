//! Similar existing paths for a path that does not exist ([`Workspace::suggest`]).
//!
//! The workspace is walked breadth first, each directory's entries in name order, so the same
//! tree always gives the same answer, with bounded effort: at most [`MAX_ENTRIES`] entries and
//! [`MAX_DEPTH`] levels, skipping `.git`, `target`, `node_modules` and every hidden directory,
//! and never following a symlinked directory (it may lead out of the workspace, or in a
//! circle). Each entry is scored and ranked by `crate::suggest`, as tool names are.

use super::access::Access;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use super::Workspace;
use crate::definition::suggest::{path_similarity, ranked};

/// The most entries one suggestion looks at.
pub(super) const MAX_ENTRIES: usize = 20_000;
/// The deepest directory level one suggestion looks into.
pub(super) const MAX_DEPTH: usize = 16;
/// Directories that hold build output or other people's code, never what a model means.
const SKIPPED: [&str; 3] = [".git", "target", "node_modules"];

impl Workspace {
    /// Existing paths similar to `path`, best first, at most `limit`: relative to the first
    /// root (absolute for paths under other roots), with `/` between components. Empty when
    /// nothing is close.
    ///
    /// ```
    /// use tool_core::Workspace;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir(dir.path().join("src")).unwrap();
    /// std::fs::write(dir.path().join("src/main.rs"), "").unwrap();
    /// let ws = Workspace::new(dir.path()).unwrap();
    ///
    /// assert_eq!(ws.suggest("src/mian.rs", 3), ["src/main.rs"]);
    /// assert!(ws.suggest("zzqx/wvut.bin", 3).is_empty());
    /// ```
    #[must_use]
    pub fn suggest(&self, path: &str, limit: usize) -> Vec<String> {
        if limit == 0 {
            return Vec::new();
        }
        let wanted = self.wanted(path);
        let mut scored: Vec<(f64, String)> = Vec::new();
        let mut budget = MAX_ENTRIES;
        for (index, root) in self.roots().iter().enumerate() {
            self.walk(root, &mut budget, &mut |relative| {
                let shown = if index == 0 {
                    relative.to_owned()
                } else {
                    format!("{}/{relative}", root.display())
                };
                if shown != wanted {
                    scored.push((path_similarity(&wanted, relative), shown));
                }
            });
        }
        ranked(scored, limit)
    }

    /// The path to compare with: relative to the root containing it when it is absolute,
    /// without a leading `./`, with `/` between components.
    fn wanted(&self, path: &str) -> String {
        let as_path = Path::new(path);
        let relative = self
            .roots()
            .iter()
            .find_map(|root| as_path.strip_prefix(root).ok())
            .unwrap_or(as_path);
        slash_separated(relative.components().collect::<PathBuf>().as_path())
    }
}

fn slash_separated(path: &Path) -> String {
    let mut out = String::new();
    for component in path.components() {
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(&component.as_os_str().to_string_lossy());
    }
    out
}

impl Workspace {
    /// Hands every entry under `root` (files and directories, root-relative with `/`) to `each`,
    /// breadth first in name order, while `budget` lasts. Listed as a walk's entries are (no link
    /// followed below the root) and leaving out what the access rules keep from reading, so a
    /// suggestion never names a file the tools may not see.
    fn walk(&self, root: &Path, budget: &mut usize, each: &mut dyn FnMut(&str)) {
        let mut queue = VecDeque::from([(root.to_path_buf(), String::new(), 0)]);
        while let Some((directory, relative, depth)) = queue.pop_front() {
            let Ok(entries) = self.read_entry_dir(&directory) else {
                continue;
            };
            let mut entries: Vec<_> = entries
                .filter_map(Result::ok)
                .filter_map(|entry| {
                    let name = entry.file_name().into_string().ok()?;
                    // `file_type` does not follow symlinks: a linked directory is not entered.
                    let is_dir = entry.file_type().ok()?.is_dir();
                    let denied = self
                        .check_access(Access::Read, &directory.join(&name))
                        .is_err();
                    (!denied).then_some((name, is_dir))
                })
                .collect();
            entries.sort_unstable();
            for (name, is_dir) in entries {
                if *budget == 0 {
                    return;
                }
                if is_dir && (name.starts_with('.') || SKIPPED.contains(&name.as_str())) {
                    continue;
                }
                *budget -= 1;
                let entry = if relative.is_empty() {
                    name.clone()
                } else {
                    format!("{relative}/{name}")
                };
                each(&entry);
                if is_dir && depth + 1 < MAX_DEPTH {
                    queue.push_back((directory.join(&name), entry, depth + 1));
                }
            }
        }
    }
}

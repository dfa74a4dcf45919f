//! Similar existing paths for a path that does not exist ([`Workspace::suggest`]).
//!
//! The workspace is walked breadth first, each directory's entries in name order, so the same
//! tree always gives the same answer, with bounded effort: at most [`MAX_ENTRIES`] entries and
//! [`MAX_DEPTH`] levels, skipping `.git`, `target`, `node_modules` and every hidden directory,
//! and never following a symlinked directory (it may lead out of the workspace, or in a
//! circle). Each entry is scored on its file name against the wanted one (Jaro-Winkler, as
//! tool names are in `crate::suggest`) and on its whole root-relative path (Damerau-Levenshtein,
//! so a swapped or wrong directory counts).

use std::collections::VecDeque;
use std::fs;
use std::path::{Path, PathBuf};

use super::Workspace;

/// The most entries one suggestion looks at.
pub(super) const MAX_ENTRIES: usize = 20_000;
/// The deepest directory level one suggestion looks into.
pub(super) const MAX_DEPTH: usize = 16;
/// Below this similarity nothing is suggested.
const THRESHOLD: f64 = 0.8;
/// A clearly best match stands alone; matches this close to the best are all offered.
const NEAR_TIE: f64 = 0.05;
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
        let wanted_name = file_name(&wanted).to_lowercase();
        let mut scored: Vec<(f64, String)> = Vec::new();
        let mut budget = MAX_ENTRIES;
        for (index, root) in self.roots().iter().enumerate() {
            walk(root, &mut budget, &mut |relative| {
                let shown = if index == 0 {
                    relative.to_owned()
                } else {
                    format!("{}/{relative}", root.display())
                };
                let score = similarity(&wanted, &wanted_name, relative);
                if score >= THRESHOLD && shown != wanted {
                    scored.push((score, shown));
                }
            });
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let best = scored.first().map_or(0.0, |(score, _)| *score);
        scored
            .into_iter()
            .take_while(|(score, _)| best - score <= NEAR_TIE)
            .take(limit)
            .map(|(_, path)| path)
            .collect()
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

/// How similar an existing root-relative path is to the wanted one, from 0 to 1: the better of
/// the whole paths' similarity and one that weighs the file names twice (so `main.rs` finds
/// `src/main.rs`).
fn similarity(wanted: &str, wanted_name: &str, candidate: &str) -> f64 {
    let whole =
        strsim::normalized_damerau_levenshtein(&wanted.to_lowercase(), &candidate.to_lowercase());
    let name = strsim::jaro_winkler(wanted_name, &file_name(candidate).to_lowercase());
    whole.max((2.0 * name + whole) / 3.0)
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
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

/// Hands every entry under `root` (files and directories, root-relative with `/`) to `each`,
/// breadth first in name order, while `budget` lasts.
fn walk(root: &Path, budget: &mut usize, each: &mut dyn FnMut(&str)) {
    let mut queue = VecDeque::from([(root.to_path_buf(), String::new(), 0)]);
    while let Some((directory, relative, depth)) = queue.pop_front() {
        let Ok(entries) = fs::read_dir(&directory) else {
            continue;
        };
        let mut entries: Vec<_> = entries
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                // `file_type` does not follow symlinks: a linked directory is not entered.
                let is_dir = entry.file_type().ok()?.is_dir();
                Some((name, is_dir))
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

#[cfg(test)]
mod tests {
    use super::similarity;

    #[test]
    fn a_transposed_file_name_is_close() {
        assert!(similarity("src/mian.rs", "mian.rs", "src/main.rs") > 0.9);
    }

    #[test]
    fn the_same_name_in_another_directory_is_close() {
        assert!(similarity("main.rs", "main.rs", "src/main.rs") > 0.8);
    }

    #[test]
    fn another_file_in_the_same_directory_is_not() {
        assert!(similarity("src/mian.rs", "mian.rs", "src/lib.rs") < 0.8);
    }
}

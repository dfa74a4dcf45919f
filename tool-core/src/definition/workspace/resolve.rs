//! Finding the file a model meant. First, always, `~` and `$VAR` / `${VAR}` are expanded as a
//! shell would ([`Normalization::Expanded`]): `~/notes.md` is the home directory's, even when
//! the workspace holds a directory named `~`, and the boundary then judges where that is. A
//! path with nothing to expand (or a variable that is not set) is tried as sent, then by the
//! normalizations of the seed's path resolver, in order, each tried only when the path as sent
//! does not exist:
//!
//! 1. a leading workspace root name dropped: `myproj/src/a.rs` in a root named `myproj`
//!    ([`Normalization::WorkspaceName`]);
//! 2. the first component dropped: `app/src/a.rs` when `src/a.rs` exists
//!    ([`Normalization::FirstComponent`]).
//!
//! Both apply only to relative paths and only when the result is inside the workspace, so a
//! normalization never carries a path into or out of it; an absolute path outside stays as it
//! is, for the boundary to deny. When nothing exists the error names similar paths that do.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use super::Workspace;
use super::expand::expand;
use crate::definition::suggest::DidYouMean;

/// How many similar paths a [`ResolveError::NotFound`] offers at most.
const SUGGESTIONS: usize = 3;

/// Where a model's path was found, and the normalization that found it, if one was needed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Resolution {
    /// Absolute: joined onto the root that the path (or its normalization) names.
    pub path: PathBuf,
    /// How the path as sent was changed to find it; `None` when it was used as sent.
    pub normalization: Option<Normalization>,
}

/// A change made to a path as sent, so that it names what exists. Its `Display` is a sentence
/// a tool can show the model, so the model learns the right path:
///
/// ```
/// use tool_core::Workspace;
///
/// let parent = tempfile::tempdir().unwrap();
/// let root = parent.path().join("myproj");
/// std::fs::create_dir_all(root.join("src")).unwrap();
/// std::fs::write(root.join("src/a.rs"), "").unwrap();
///
/// let ws = Workspace::new(&root).unwrap();
/// let found = ws.resolve("myproj/src/a.rs").unwrap();
/// assert_eq!(
///     found.normalization.unwrap().to_string(),
///     "resolved `myproj/src/a.rs` as `src/a.rs` (the workspace is `myproj`)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Normalization {
    /// `~` (the home directory) and environment variables were expanded.
    Expanded {
        /// The path as sent.
        sent: String,
        /// The path after expansion.
        expanded: String,
        /// `true` when a leading `~` was expanded.
        home: bool,
        /// The environment variables expanded, without `$`.
        variables: Vec<String>,
    },
    /// A leading component naming a workspace root was dropped.
    WorkspaceName {
        /// The path as sent.
        sent: String,
        /// The path without it, relative to that root.
        stripped: String,
        /// The root's directory name.
        name: String,
    },
    /// The first component was dropped, because the path without it exists.
    FirstComponent {
        /// The path as sent.
        sent: String,
        /// The path without it, relative to the first root.
        stripped: String,
        /// The component dropped.
        component: String,
    },
}

impl Normalization {
    /// The path as sent.
    #[must_use]
    pub fn sent(&self) -> &str {
        match self {
            Normalization::Expanded { sent, .. }
            | Normalization::WorkspaceName { sent, .. }
            | Normalization::FirstComponent { sent, .. } => sent,
        }
    }

    /// The path it was resolved as (relative ones to a root).
    #[must_use]
    pub fn resolved_as(&self) -> &str {
        match self {
            Normalization::Expanded { expanded, .. } => expanded,
            Normalization::WorkspaceName { stripped, .. }
            | Normalization::FirstComponent { stripped, .. } => stripped,
        }
    }
}

impl fmt::Display for Normalization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "resolved `{}` as `{}` (",
            self.sent(),
            self.resolved_as()
        )?;
        match self {
            Normalization::Expanded {
                home, variables, ..
            } => {
                f.write_str("expanded ")?;
                let mut names = home
                    .then_some("`~`".to_owned())
                    .into_iter()
                    .chain(variables.iter().map(|variable| format!("`${variable}`")));
                if let Some(first) = names.next() {
                    f.write_str(&first)?;
                }
                for name in names {
                    write!(f, ", {name}")?;
                }
            }
            Normalization::WorkspaceName { name, .. } => write!(f, "the workspace is `{name}`")?,
            Normalization::FirstComponent {
                sent, component, ..
            } => write!(
                f,
                "`{sent}` does not exist; dropped its first component `{component}`"
            )?,
        }
        f.write_str(")")
    }
}

/// Why a path could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// Nothing exists at the path, as sent or normalized.
    #[error(
        "`{path}` does not exist in the workspace (paths are relative to the workspace root, or \
         absolute){}",
        DidYouMean(suggestions)
    )]
    NotFound {
        /// The path as sent.
        path: String,
        /// Similar existing paths, best first (see [`Workspace::suggest`]); empty when none is
        /// close.
        suggestions: Vec<String>,
    },
}

/// A candidate for what the model meant.
struct Candidate {
    path: PathBuf,
    normalization: Normalization,
    /// Whether a new file may be created here when only its parent exists: not when the first
    /// component was dropped and the parent left is the root itself, which proves nothing.
    new_file_plausible: bool,
}

impl Workspace {
    /// Finds the existing file or directory a model's path names: expanded when it has `~`
    /// or `$VAR` in it, else as sent (relative to the first root, or absolute), else by the
    /// first normalization that leads to something that exists (see [`Normalization`]).
    ///
    /// # Errors
    /// [`ResolveError::NotFound`] when nothing exists there, with similar existing paths.
    ///
    /// ```
    /// use tool_core::{Workspace, workspace::ResolveError};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir(dir.path().join("src")).unwrap();
    /// std::fs::write(dir.path().join("src/main.rs"), "").unwrap();
    /// let ws = Workspace::new(dir.path()).unwrap();
    ///
    /// assert!(ws.resolve("src/main.rs").unwrap().normalization.is_none());
    /// let error = ws.resolve("src/mian.rs").unwrap_err();
    /// assert!(error.to_string().ends_with("did you mean `src/main.rs`?"));
    /// ```
    pub fn resolve(&self, path: &str) -> Result<Resolution, ResolveError> {
        let not_found = || ResolveError::NotFound {
            path: path.to_owned(),
            suggestions: self.suggest(path, SUGGESTIONS),
        };
        if let Some(expanded) = self.expanded(path) {
            return if expanded.path.exists() {
                Ok(expanded)
            } else {
                Err(not_found())
            };
        }
        let as_sent = self.join(Path::new(path));
        if as_sent.exists() {
            return Ok(Resolution {
                path: as_sent,
                normalization: None,
            });
        }
        self.candidates(path)
            .into_iter()
            .find(|candidate| candidate.path.exists())
            .map(Resolution::from)
            .ok_or_else(not_found)
    }

    /// Resolves a path that may not exist yet, such as a file being created: expanded when it
    /// has `~` or `$VAR` in it, wherever that leads (`~/new.md` is the home directory's, for
    /// the boundary to judge); else as sent when it or its parent directory exists; else by the
    /// first normalization that leads to an existing path or to an existing parent directory;
    /// else as sent, joined onto the first root.
    ///
    /// Dropping the first component for a new file needs more than the root as its parent
    /// (`docs/new.md` stays `docs/new.md`, for the tool to create `docs`), or every new
    /// directory would be flattened into the root.
    ///
    /// ```
    /// use tool_core::Workspace;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let ws = Workspace::new(dir.path()).unwrap();
    /// let new = ws.resolve_lenient("docs/new.md");
    /// assert_eq!(new.path, ws.root().join("docs/new.md"));
    /// assert!(new.normalization.is_none());
    /// ```
    #[must_use]
    pub fn resolve_lenient(&self, path: &str) -> Resolution {
        if let Some(expanded) = self.expanded(path) {
            return expanded;
        }
        let as_sent = self.join(Path::new(path));
        if as_sent.exists() || parent_exists(&as_sent) {
            return Resolution {
                path: as_sent,
                normalization: None,
            };
        }
        let mut candidates = self.candidates(path);
        let existing = candidates.iter().position(|c| c.path.exists());
        let new_in_existing_directory = || {
            candidates
                .iter()
                .position(|c| c.new_file_plausible && parent_exists(&c.path))
        };
        match existing.or_else(new_in_existing_directory) {
            Some(found) => candidates.swap_remove(found).into(),
            None => Resolution {
                path: as_sent,
                normalization: None,
            },
        }
    }

    /// `path` with `~` and environment variables expanded, joined onto the first root when
    /// still relative; `None` when there is nothing to expand, or something cannot be (an
    /// unset variable, no home directory).
    fn expanded(&self, path: &str) -> Option<Resolution> {
        let expanded = expand(path)?;
        Some(Resolution {
            path: self.join(Path::new(&expanded.path)),
            normalization: Some(Normalization::Expanded {
                sent: path.to_owned(),
                expanded: expanded.path,
                home: expanded.home,
                variables: expanded.variables,
            }),
        })
    }

    /// The normalizations that drop components of `path`, in the order they are tried; each
    /// keeps the path inside the workspace.
    fn candidates(&self, path: &str) -> Vec<Candidate> {
        let mut candidates = Vec::new();
        let Some((first, rest)) = split_first_component(path) else {
            return candidates;
        };
        let named_root = self
            .roots()
            .iter()
            .find(|root| root.file_name().is_some_and(|name| name == first));
        if let Some(root) = named_root {
            candidates.push(Candidate {
                path: root.join(rest).components().collect(),
                // The root's own name in front is evidence enough, even for a file at the top.
                new_file_plausible: true,
                normalization: Normalization::WorkspaceName {
                    sent: path.to_owned(),
                    stripped: rest.to_owned(),
                    name: first.to_owned(),
                },
            });
        }
        candidates.push(Candidate {
            path: self.join(Path::new(rest)),
            new_file_plausible: Path::new(rest).components().count() > 1,
            normalization: Normalization::FirstComponent {
                sent: path.to_owned(),
                stripped: rest.to_owned(),
                component: first.to_owned(),
            },
        });
        // Dropping a component must not lead out of the workspace (`a/../../x`, or through a
        // symlink).
        candidates.retain(|candidate| self.contains(&candidate.path));
        candidates
    }
}

impl Workspace {
    /// Where a tool that creates or removes a file acts for the path `sent`, when its lenient
    /// `resolution` dropped its first component and so landed on another path that exists
    /// (`docs/notes.txt`, with no `docs`, resolved as the existing `notes.txt`): the path as
    /// sent, joined onto the first root. Dropping a component is a guess at a file to read;
    /// creating, replacing or deleting on that guess would lose the file it found. `None` when
    /// the resolution is not such a guess.
    pub(crate) fn unrepaired(&self, sent: &str, resolution: &Resolution) -> Option<PathBuf> {
        match resolution.normalization {
            Some(Normalization::FirstComponent { .. })
                if resolution.path.symlink_metadata().is_ok() =>
            {
                Some(self.join(Path::new(sent)))
            }
            _ => None,
        }
    }
}

impl From<Candidate> for Resolution {
    fn from(candidate: Candidate) -> Self {
        Resolution {
            path: candidate.path,
            normalization: Some(candidate.normalization),
        }
    }
}

/// The first component of a relative path and the rest, when the first is a name and a rest
/// follows: `("myproj", "src/a.rs")`. `None` for absolute paths, `~`, `..` and `.` first.
fn split_first_component(path: &str) -> Option<(&str, &str)> {
    let path = path.trim_start_matches("./");
    let mut components = Path::new(path).components();
    let Some(Component::Normal(first)) = components.next() else {
        return None;
    };
    let first = first.to_str()?;
    if first.starts_with('~') || first.contains('$') {
        return None;
    }
    let rest = components.as_path().to_str()?;
    (!rest.is_empty()).then_some((first, rest))
}

fn parent_exists(path: &Path) -> bool {
    path.parent().is_some_and(Path::is_dir)
}

#[cfg(test)]
mod tests {
    use super::{Normalization, split_first_component};

    #[test]
    fn only_a_named_first_component_of_a_relative_path_is_split_off() {
        assert_eq!(
            split_first_component("myproj/src/a.rs"),
            Some(("myproj", "src/a.rs"))
        );
        assert_eq!(
            split_first_component("./myproj/a.rs"),
            Some(("myproj", "a.rs"))
        );
        assert_eq!(split_first_component("/etc/passwd"), None);
        assert_eq!(split_first_component("../x/y"), None);
        assert_eq!(split_first_component("~/x/y"), None);
        assert_eq!(split_first_component("a.rs"), None);
    }

    #[test]
    fn an_expansion_names_what_it_expanded() {
        let normalization = Normalization::Expanded {
            sent: "~/$DATA/x".to_owned(),
            expanded: "/home/ana/d/x".to_owned(),
            home: true,
            variables: vec!["DATA".to_owned()],
        };
        assert_eq!(
            normalization.to_string(),
            "resolved `~/$DATA/x` as `/home/ana/d/x` (expanded `~`, `$DATA`)"
        );
    }

    #[test]
    fn dropping_the_first_component_says_why() {
        let normalization = Normalization::FirstComponent {
            sent: "app/src/a.rs".to_owned(),
            stripped: "src/a.rs".to_owned(),
            component: "app".to_owned(),
        };
        assert_eq!(
            normalization.to_string(),
            "resolved `app/src/a.rs` as `src/a.rs` (`app/src/a.rs` does not exist; dropped its \
             first component `app`)"
        );
    }
}

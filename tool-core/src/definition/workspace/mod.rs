//! The workspace a coordinator's tools work in: its roots ([`Workspace`]), where a path argument
//! really points and whether that is inside ([`Workspace::confine`]), how a model's path is
//! found ([`Workspace::resolve`], with the normalizations of a [`Resolution`]), what exists
//! nearby ([`Workspace::suggest`]), and the argument types that name resources
//! ([`WorkspacePath`], [`WebUrl`]).
//!
//! The roots are canonical paths, fixed when the workspace is made. Each job has its module:
//! `boundary` (the hard boundary), `resolve` (normalizations), `suggest` (similar paths),
//! `expand` (`~` and environment variables), `scope` (the workspace a `WorkspacePath` is parsed
//! against) and `arguments` (the argument types).

mod arguments;
mod boundary;
mod expand;
mod resolve;
mod scope;
mod suggest;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use arguments::{WebUrl, WorkspacePath};
pub(crate) use boundary::quote_path;
pub use boundary::{BoundaryError, ResolvedPath};
pub(crate) use expand::expand_home;
pub use resolve::{Normalization, Resolution, ResolveError};
#[cfg(test)]
pub(crate) use scope::with_workspace;
pub(crate) use scope::{ParsedPath, with_workspace_recording};

/// Why a workspace could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// The root does not exist or cannot be read.
    #[error("workspace root `{}` cannot be used: {source}", path.display())]
    Unreadable {
        /// The root as given.
        path: PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// The root exists but is not a directory.
    #[error("workspace root `{}` is not a directory", path.display())]
    NotADirectory {
        /// The root as given.
        path: PathBuf,
    },
}

/// The directories a coordinator's tools may work in. Cheap to clone.
///
/// ```
/// use tool_core::Workspace;
///
/// let dir = std::env::temp_dir();
/// let ws = Workspace::new(&dir).unwrap();
/// assert_eq!(ws.root(), dir.canonicalize().unwrap());
/// assert!(Workspace::new(dir.join("no-such-dir-8f3a")).is_err());
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Workspace {
    roots: Arc<[PathBuf]>,
}

impl Workspace {
    /// A workspace with one root, which must be an existing directory; it is canonicalized
    /// (symlinks followed, `..` resolved).
    ///
    /// # Errors
    /// When the root does not exist, cannot be read, or is not a directory.
    pub fn new(root: impl AsRef<Path>) -> Result<Self, WorkspaceError> {
        Ok(Workspace {
            roots: Arc::from(vec![canonical_dir(root.as_ref())?]),
        })
    }

    /// Adds another root.
    ///
    /// # Errors
    /// As for [`Workspace::new`].
    pub fn with_root(self, root: impl AsRef<Path>) -> Result<Self, WorkspaceError> {
        let mut roots = self.roots.to_vec();
        let root = canonical_dir(root.as_ref())?;
        if !roots.contains(&root) {
            roots.push(root);
        }
        Ok(Workspace {
            roots: Arc::from(roots),
        })
    }

    /// The first root, against which relative paths are resolved.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.roots[0]
    }

    /// Every root, the first one first.
    #[must_use]
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// A path as the model sent it, joined onto the first root when relative, with `.`
    /// components dropped. `..` stays: only the file system knows what it means after a
    /// symlink, and the boundary follows it the same way.
    fn join(&self, path: &Path) -> PathBuf {
        self.root().join(path).components().collect()
    }
}

impl fmt::Debug for Workspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Workspace")
            .field("roots", &self.roots)
            .finish()
    }
}

fn canonical_dir(path: &Path) -> Result<PathBuf, WorkspaceError> {
    let canonical = path
        .canonicalize()
        .map_err(|source| WorkspaceError::Unreadable {
            path: path.to_owned(),
            source,
        })?;
    if canonical.is_dir() {
        Ok(canonical)
    } else {
        Err(WorkspaceError::NotADirectory {
            path: path.to_owned(),
        })
    }
}

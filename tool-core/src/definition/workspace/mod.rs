//! The workspace a coordinator's tools work in: its roots ([`Workspace`]), where a path argument
//! really points and whether that is inside ([`Workspace::confine`]), how a model's path is
//! found ([`Workspace::resolve`], with the normalizations of a [`Resolution`]), what exists
//! nearby ([`Workspace::suggest`]), the file I/O tools do beneath the roots
//! ([`Workspace::open`], [`Workspace::write`], ...), and the argument types that name
//! resources ([`WorkspacePath`], [`WebUrl`]).
//!
//! A tool does its file I/O through the [`Workspace`]'s handles, never `std::fs` with a path:
//! each resolves the path beneath a root held open, so the kernel refuses whatever leads out at
//! the moment of the I/O, with an [`EscapeError`] telling the model what was wrong (the
//! guide's policy page shows a tool doing so). [`Dir`], [`ReadDir`], [`DirEntry`] and
//! [`Metadata`] are cap-std's, each confined beneath its directory.
//!
//! The roots are canonical paths, fixed when the workspace is made, each held open as a
//! directory handle. Each job has its module: `boundary` (the hard boundary, checked when the
//! policy decides), `handles` (the same boundary held by the kernel during a tool's I/O),
//! `resolve` (normalizations), `suggest` (similar paths), `expand` (`~` and environment
//! variables), `scope` (the workspace a `WorkspacePath` is parsed against) and `arguments` (the
//! argument types), `access` (the rules handles apply at the I/O).

mod access;
mod arguments;
mod boundary;
mod expand;
mod handles;
mod resolve;
mod scope;
mod suggest;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use access::{Access, AccessDenied, AccessPath, AccessRules};
pub use arguments::{WebUrl, WorkspacePath};
pub(crate) use boundary::quote_path;
pub use boundary::{BoundaryError, ResolvedPath};
pub use cap_std::fs::{Dir, DirEntry, Metadata, ReadDir};
pub(crate) use expand::expand_home;
#[cfg(feature = "http-hooks")]
pub(crate) use expand::expand_variables;
#[cfg(unix)]
pub(crate) use handles::special_kind;
pub use handles::{EscapeError, NotAFile};
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
/// Tools do their file I/O through it ([`open`](Workspace::open),
/// [`write`](Workspace::write), [`read_dir`](Workspace::read_dir), ...), so the kernel keeps
/// them inside the roots: see the [module documentation](crate::workspace).
///
/// ```
/// use tool_core::Workspace;
///
/// let dir = std::env::temp_dir();
/// let ws = Workspace::new(&dir).unwrap();
/// assert_eq!(ws.root(), dir.canonicalize().unwrap());
/// assert!(Workspace::new(dir.join("no-such-dir-8f3a")).is_err());
/// ```
#[derive(Clone)]
pub struct Workspace {
    roots: Arc<[PathBuf]>,
    /// Each root held open, in the order of `roots`: the directories the handles resolve
    /// beneath. Opened once, so the boundary is the directory that was there when the
    /// workspace was made, whatever is later renamed or linked in its place.
    dirs: Arc<[Arc<Dir>]>,
    /// The rules every handle applies before its I/O ([`Workspace::with_access_rules`]).
    rules: Option<Arc<dyn AccessRules>>,
}

impl Workspace {
    /// A workspace with one root, which must be an existing directory; it is canonicalized
    /// (symlinks followed, `..` resolved).
    ///
    /// # Errors
    /// When the root does not exist, cannot be read, or is not a directory.
    pub fn new(root: impl AsRef<Path>) -> Result<Self, WorkspaceError> {
        let (root, dir) = open_root(root.as_ref())?;
        Ok(Workspace {
            roots: Arc::from(vec![root]),
            dirs: Arc::from(vec![Arc::new(dir)]),
            rules: None,
        })
    }

    /// Adds another root.
    ///
    /// # Errors
    /// As for [`Workspace::new`].
    pub fn with_root(self, root: impl AsRef<Path>) -> Result<Self, WorkspaceError> {
        let (root, dir) = open_root(root.as_ref())?;
        if self.roots.contains(&root) {
            return Ok(self);
        }
        let mut roots = self.roots.to_vec();
        roots.push(root);
        let mut dirs = self.dirs.to_vec();
        dirs.push(Arc::new(dir));
        Ok(Workspace {
            roots: Arc::from(roots),
            dirs: Arc::from(dirs),
            rules: self.rules,
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

/// Two workspaces are equal when they have the same roots, in the same order.
impl PartialEq for Workspace {
    fn eq(&self, other: &Self) -> bool {
        self.roots == other.roots
    }
}

impl Eq for Workspace {}

impl fmt::Debug for Workspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Workspace")
            .field("roots", &self.roots)
            .field("rules", &self.rules)
            .finish()
    }
}

/// A root's canonical path, and the root held open.
fn open_root(path: &Path) -> Result<(PathBuf, Dir), WorkspaceError> {
    let root = canonical_dir(path)?;
    // The one use of ambient authority: every handle afterwards resolves beneath this one.
    let dir = Dir::open_ambient_dir(&root, cap_std::ambient_authority()).map_err(|source| {
        WorkspaceError::Unreadable {
            path: path.to_owned(),
            source,
        }
    })?;
    Ok((root, dir))
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

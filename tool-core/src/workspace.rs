//! The workspace a coordinator's tools work in: its roots ([`Workspace`]) and the argument types
//! that name resources in it ([`WorkspacePath`], [`Url`]).
//!
//! The roots are canonical paths, fixed when the workspace is made. Resolution of model-supplied
//! paths (normalizations, suggestions) and the hard boundary the policy enforces build on this.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

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

/// A path argument resolved against the workspace: what was sent, where it points, and whether
/// that is inside the workspace. The coordinator makes one for every path argument of every call
/// (see [`Workspace::confine`]) before the policy decides; the safety layer denies calls with a
/// path outside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// The argument's name.
    pub arg: Cow<'static, str>,
    /// The path as the call sent it.
    pub sent: String,
    /// Absolute, with `..` resolved and the symlinks of its existing part followed.
    pub absolute: PathBuf,
    /// Relative to the root that contains it; `None` when the path is outside every root.
    pub relative: Option<PathBuf>,
}

impl ResolvedPath {
    /// `true` when the path is inside the workspace.
    #[must_use]
    pub fn is_inside(&self) -> bool {
        self.relative.is_some()
    }
}

/// A path argument, relative to the workspace root or absolute. Its type marks the argument as
/// a path resource, so policy rules on paths apply to it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WorkspacePath(PathBuf);

impl WorkspacePath {
    /// A path argument.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        WorkspacePath(path.into())
    }

    /// The path as the model sent it.
    #[must_use]
    pub fn as_path(&self) -> &Path {
        &self.0
    }

    /// The path joined onto the workspace's root when relative.
    #[must_use]
    pub fn in_workspace(&self, workspace: &Workspace) -> PathBuf {
        workspace.root().join(&self.0)
    }
}

impl AsRef<Path> for WorkspacePath {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl JsonSchema for WorkspacePath {
    fn schema_name() -> Cow<'static, str> {
        "WorkspacePath".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string" })
    }
}

/// A URL argument, parsed and checked when the arguments are. Its type marks the argument as a
/// URL resource.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Url(url::Url);

impl Url {
    /// Parses a URL.
    ///
    /// # Errors
    /// When the text is not an absolute URL.
    pub fn parse(text: &str) -> Result<Self, url::ParseError> {
        url::Url::parse(text).map(Url)
    }

    /// The parsed URL.
    #[must_use]
    pub fn as_url(&self) -> &url::Url {
        &self.0
    }

    /// The URL as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Url {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Url {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        Url::parse(&text).map_err(|error| {
            serde::de::Error::custom(format_args!(
                "{text:?} is not a valid URL ({error}); send an absolute URL such as \"https://example.com/page\""
            ))
        })
    }
}

impl JsonSchema for Url {
    fn schema_name() -> Cow<'static, str> {
        "Url".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "format": "uri" })
    }
}

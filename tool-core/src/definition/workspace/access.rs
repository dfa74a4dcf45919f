//! The rules the workspace's handles apply at the moment of the I/O: a path a rule keeps from
//! reading is never opened for reading, whichever tool reaches it (a read, a search's walk, a
//! nested call from code), and a path a rule keeps from changing is never written, renamed or
//! removed.
//!
//! The policy matches a call's path *arguments* when it decides; a tool that walks (`grep`
//! with no path, `glob`, `repo_map`) reaches files no argument named. So the rules go where
//! the effect happens: the coordinator gives the workspace its policy's path deny rules as
//! [`AccessRules`] ([`Workspace::with_access_rules`]), every handle asks them before the
//! operation and, for a read, again of the file actually opened (a symlink inside the
//! workspace leading into a denied folder is caught there), and walkers ask them of every
//! entry ([`Workspace::check_access`]) and skip what they deny, saying how many.
//!
//! The definition side does not know the rules' syntax: [`AccessRules`] is the seam, and the
//! runtime's policy implements it.

use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::Workspace;

/// What a tool does to a path, as the I/O layer sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Access {
    /// Opening, listing, reading metadata, or moving a file away (which reads it elsewhere).
    Read,
    /// Creating, writing, renaming or removing.
    Write,
}

impl Access {
    /// The gerund a message uses: `reading`, `changing`.
    #[must_use]
    pub fn gerund(self) -> &'static str {
        match self {
            Access::Read => "reading",
            Access::Write => "changing",
        }
    }
}

/// A path as [`AccessRules`] judge it: absolute, and relative to the workspace root it is
/// under.
#[derive(Debug, Clone, Copy)]
pub struct AccessPath<'a> {
    /// Relative to the root that contains it (empty for the root itself); `None` outside every
    /// root.
    pub relative: Option<&'a Path>,
    /// Absolute.
    pub absolute: &'a Path,
}

/// Rules on which paths may be read or changed, applied by the workspace's handles at the
/// I/O. The runtime's policy implements it from its `Read(..)` and `Edit(..)` deny rules and
/// its protected paths; a program may add its own.
///
/// ```
/// use std::path::{Path, PathBuf};
/// use tool_core::Workspace;
/// use tool_core::workspace::{Access, AccessPath, AccessRules};
///
/// #[derive(Debug)]
/// struct NoSecrets;
///
/// impl AccessRules for NoSecrets {
///     fn denying_rule(&self, _: Access, path: AccessPath<'_>) -> Option<String> {
///         let secret = path.relative.is_some_and(|relative| relative.starts_with("secrets"));
///         secret.then(|| "no secrets".to_owned())
///     }
///     fn governs(&self, _: Access) -> bool {
///         true
///     }
///     fn denied_paths(&self, _: Access) -> Vec<PathBuf> {
///         vec![PathBuf::from("secrets")]
///     }
/// }
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir(dir.path().join("secrets")).unwrap();
/// std::fs::write(dir.path().join("secrets/key.txt"), "hunter2").unwrap();
/// let ws = Workspace::new(dir.path()).unwrap().with_access_rules(NoSecrets);
///
/// let error = ws.read_to_string("secrets/key.txt").unwrap_err();
/// assert_eq!(error.kind(), std::io::ErrorKind::PermissionDenied);
/// assert!(error.to_string().contains("denied by the rule `no secrets`"), "{error}");
/// ```
pub trait AccessRules: Send + Sync + fmt::Debug + 'static {
    /// The rule, as written, that denies `access` of `path` (or of a directory containing it);
    /// `None` when none does.
    fn denying_rule(&self, access: Access, path: AccessPath<'_>) -> Option<String>;

    /// `false` when no rule is about `access` at all, so the handles skip the look-up.
    fn governs(&self, access: Access) -> bool;

    /// The paths every `access` is denied on, as far as the rules name concrete paths (a file,
    /// or a directory with everything beneath it): for a sandbox that can only hold paths, not
    /// patterns. Relative paths are relative to the workspace's first root.
    fn denied_paths(&self, access: Access) -> Vec<PathBuf>;
}

/// Why a file operation of a tool was refused: a rule denies it. Carried inside the
/// [`io::Error`] the handles return (of kind
/// [`PermissionDenied`](io::ErrorKind::PermissionDenied)); its `Display` is a sentence for the
/// model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} `{}` is denied by the rule `{rule}`: the user keeps it from the tools; do not try to reach it another way, and tell the user if the task needs it",
    access.gerund(),
    path.display()
)]
#[non_exhaustive]
pub struct AccessDenied {
    /// The path as given (or, in a walk, the entry).
    pub path: PathBuf,
    /// What was refused.
    pub access: Access,
    /// The rule that denies it, as written.
    pub rule: String,
}

impl From<AccessDenied> for io::Error {
    fn from(error: AccessDenied) -> Self {
        io::Error::new(io::ErrorKind::PermissionDenied, error)
    }
}

/// A name no pattern names literally, standing for "any entry of a directory": a rule that
/// denies it denies the whole inside of the directory (`secrets/**`, `secrets/*`).
const ANY_ENTRY: &str = "\u{1}any-entry\u{1}";

impl Workspace {
    /// The same workspace, with `rules` applied by every handle from now on (replacing any
    /// given before). The coordinator gives its workspace the policy's path deny rules.
    #[must_use]
    pub fn with_access_rules(mut self, rules: impl AccessRules) -> Self {
        self.rules = Some(Arc::new(rules));
        self
    }

    /// The same workspace with `rules` (shared) applied by every handle.
    #[must_use]
    pub fn with_shared_access_rules(mut self, rules: Arc<dyn AccessRules>) -> Self {
        self.rules = Some(rules);
        self
    }

    /// The rules the handles apply, if any: a sandbox reads the paths they deny from here.
    #[must_use]
    pub fn access_rules(&self) -> Option<&Arc<dyn AccessRules>> {
        self.rules.as_ref()
    }

    /// Whether the rules allow `access` of `path` (relative to the first root, or absolute),
    /// taken as written: `..` resolved lexically, no symlink followed. Walkers ask it of each
    /// entry, whose path has no symlink below the walk's root.
    ///
    /// # Errors
    /// [`AccessDenied`], naming the rule.
    pub fn check_access(&self, access: Access, path: &Path) -> Result<(), AccessDenied> {
        let Some(rules) = self.governing(access) else {
            return Ok(());
        };
        let absolute = lexical(&self.join(path));
        check_absolute(&**rules, self, access, path, &absolute)
    }

    /// Whether a walk of the directory `dir` may read it: refused when a rule denies the
    /// directory itself or every entry in it (`Read(./secrets/**)` for a search of `secrets`),
    /// so that such a search says so instead of finding nothing.
    ///
    /// # Errors
    /// [`AccessDenied`], naming the rule.
    pub fn check_walk(&self, dir: &Path) -> Result<(), AccessDenied> {
        self.check_access(Access::Read, dir)?;
        let Some(rules) = self.governing(Access::Read) else {
            return Ok(());
        };
        let absolute = lexical(&self.join(dir)).join(ANY_ENTRY);
        check_absolute(&**rules, self, Access::Read, dir, &absolute)
    }

    /// The rules when they are about `access`.
    pub(super) fn governing(&self, access: Access) -> Option<&Arc<dyn AccessRules>> {
        self.rules.as_ref().filter(|rules| rules.governs(access))
    }

    /// Checks `path` (as given) for each of `accesses`, both as written and as the boundary
    /// follows it, symlinks and all, so that a link inside the workspace cannot lead a handle
    /// into a denied path. The path is followed once, and checked a second time only where
    /// following it led somewhere else.
    pub(super) fn check_both_ways(&self, accesses: &[Access], path: &Path) -> io::Result<()> {
        let governed: Vec<(Access, &Arc<dyn AccessRules>)> = accesses
            .iter()
            .filter_map(|&access| Some((access, self.governing(access)?)))
            .collect();
        if governed.is_empty() {
            return Ok(());
        }
        let joined = self.join(path);
        let written = lexical(&joined);
        // Followed as the kernel follows it: `link/..` is where the link leads, then up.
        let followed = joined
            .to_str()
            .map(|text| self.confine("path", text).absolute)
            .filter(|followed| *followed != written);
        for (access, rules) in governed {
            check_absolute(&**rules, self, access, path, &written)?;
            if let Some(followed) = &followed {
                check_absolute(&**rules, self, access, path, followed)?;
            }
        }
        Ok(())
    }

    /// Checks the file or directory a handle has open, by the path the kernel knows it by
    /// now: what a read really reached, whatever links led there.
    #[cfg(target_os = "linux")]
    pub(super) fn check_opened(
        &self,
        access: Access,
        path: &Path,
        opened: &impl std::os::fd::AsRawFd,
    ) -> io::Result<()> {
        let Some(rules) = self.governing(access) else {
            return Ok(());
        };
        let link = format!("/proc/self/fd/{}", opened.as_raw_fd());
        // Without /proc the checks before the open stand alone.
        if let Ok(real) = std::fs::read_link(link) {
            check_absolute(&**rules, self, access, path, &real)?;
        }
        Ok(())
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn check_opened<T>(&self, _: Access, _: &Path, _: &T) -> io::Result<()> {
        Ok(())
    }
}

/// Asks `rules` about `absolute` (relative to the root containing it, when one does).
fn check_absolute(
    rules: &dyn AccessRules,
    ws: &Workspace,
    access: Access,
    shown: &Path,
    absolute: &Path,
) -> Result<(), AccessDenied> {
    let relative = ws
        .roots()
        .iter()
        .find_map(|root| absolute.strip_prefix(root).ok());
    match rules.denying_rule(access, AccessPath { relative, absolute }) {
        None => Ok(()),
        Some(rule) => Err(AccessDenied {
            path: shown.to_owned(),
            access,
            rule,
        }),
    }
}

/// `path` with `.` dropped and `..` taken as written.
pub(super) fn lexical(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal
}

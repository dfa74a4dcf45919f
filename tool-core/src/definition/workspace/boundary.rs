//! The hard boundary: where a path argument really points, and whether that is inside one of
//! the workspace's roots ([`Workspace::confine`]).
//!
//! The path is followed the way the operating system would follow it, one component at a time:
//! every symlink met on the way is read and followed (also a dangling one, whose target a write
//! would create), `..` goes up from where the path really is, and the part that does not exist
//! yet is appended as it is. So `link/../x` is checked where the kernel would open it, and a
//! not-yet-existing `new/../../x` cannot climb out. Whatever cannot be checked (a directory
//! that cannot be read, a symlink loop, no home directory for `~`) counts as outside.

use std::borrow::Cow;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::Workspace;
use super::expand::{expand, expands_home, home_dir};

/// How many symlinks one path may pass through, as Linux's `MAXSYMLINKS`.
const MAX_SYMLINKS: u32 = 40;

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

/// The path could not be followed to the end, so where it points is unknown.
struct Unchecked;

impl Workspace {
    /// Where `path` really points and whether that is inside the workspace: the hard boundary
    /// the policy enforces for every path argument of every call.
    ///
    /// `~` and environment variables are expanded first, as a shell would (`~/x` is the home
    /// directory's `x`; a variable that is not set leaves the path as sent), and a relative
    /// path is joined onto the first root. Symlinks are followed, `..` is resolved after them,
    /// and a part that does not exist yet is appended as it is. [`ResolvedPath::relative`] is
    /// the path relative to the first root that contains it, or `None` when no root does, or
    /// when the path could not be checked (a directory that cannot be read, a symlink loop).
    ///
    /// This is a check at decision time: a symlink swapped between the check and the tool's use
    /// is not seen (tools that need more can open with `O_NOFOLLOW`).
    ///
    /// ```
    /// use tool_core::Workspace;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let ws = Workspace::new(dir.path()).unwrap();
    /// assert!(ws.confine("path", "src/new.rs").is_inside());
    /// assert!(!ws.confine("path", "../elsewhere").is_inside());
    /// assert!(!ws.confine("path", "/etc/passwd").is_inside());
    /// assert_eq!(ws.confine("path", ".").relative.unwrap().as_os_str(), "");
    /// ```
    pub fn confine(&self, arg: impl Into<Cow<'static, str>>, path: &str) -> ResolvedPath {
        match expand(path) {
            Some(expanded) => self.confine_target(arg, path, Path::new(&expanded.path)),
            None => self.confine_target(arg, path, Path::new(path)),
        }
    }

    /// Confines `target`, which a call sent as `sent`, taking it as it is (no expansion): a
    /// path the workspace resolved already (a `WorkspacePath`), or a text as a tool that does
    /// not expand it would read it. Relative targets are joined onto the first root.
    pub(crate) fn confine_target(
        &self,
        arg: impl Into<Cow<'static, str>>,
        sent: &str,
        target: &Path,
    ) -> ResolvedPath {
        let arg = arg.into();
        if expands_home(sent) && home_dir().is_none() {
            // `~` with no home directory to put there: where it points is unknown.
            return ResolvedPath {
                arg,
                sent: sent.to_owned(),
                absolute: target.to_owned(),
                relative: None,
            };
        }
        let joined = self.join(target);
        let (absolute, relative) = match follow(&joined) {
            Ok(absolute) => {
                let relative = self.relative_to_root(&absolute);
                (absolute, relative)
            }
            Err(Unchecked) => (joined, None),
        };
        ResolvedPath {
            arg,
            sent: sent.to_owned(),
            absolute,
            relative,
        }
    }

    /// `path` (already followed) relative to the first root containing it.
    fn relative_to_root(&self, path: &Path) -> Option<PathBuf> {
        self.roots()
            .iter()
            .find_map(|root| path.strip_prefix(root).ok())
            .map(Path::to_path_buf)
    }

    /// `true` when `path` is inside the workspace; for the normalizations, which must not lead
    /// out of it.
    pub(super) fn contains(&self, path: &Path) -> bool {
        follow(path).is_ok_and(|followed| self.relative_to_root(&followed).is_some())
    }
}

/// Follows an absolute path as the kernel would, keeping the part that does not exist.
fn follow(path: &Path) -> Result<PathBuf, Unchecked> {
    let mut current = PathBuf::new();
    let mut symlinks = 0;
    follow_onto(&mut current, path, &mut symlinks)?;
    Ok(current)
}

/// Walks `path`'s components onto `current`, which is always followed already (no symlinks,
/// no `..` in it), so popping it for `..` is what the kernel would do.
fn follow_onto(current: &mut PathBuf, path: &Path, symlinks: &mut u32) -> Result<(), Unchecked> {
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => current.push(component),
            Component::CurDir => {}
            Component::ParentDir => {
                current.pop();
            }
            Component::Normal(name) => {
                let next = current.join(name);
                match next.symlink_metadata() {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        *symlinks += 1;
                        if *symlinks > MAX_SYMLINKS {
                            return Err(Unchecked);
                        }
                        let target = next.read_link().map_err(|_| Unchecked)?;
                        // A relative target is relative to the link's directory: `current`.
                        follow_onto(current, &target, symlinks)?;
                    }
                    Ok(_) => *current = next,
                    Err(error) if does_not_exist(&error) => *current = next,
                    Err(_) => return Err(Unchecked),
                }
            }
        }
    }
    Ok(())
}

/// Not found, or under a file (`a.txt/x`): nothing there, nothing to follow.
fn does_not_exist(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

//! The hard boundary: where a path argument really points, and whether that is inside one of
//! the workspace's roots ([`Workspace::confine`]).
//!
//! The path is followed the way the operating system would follow it, one component at a time:
//! every symlink met on the way is read and followed (also a dangling one, whose target a write
//! would create), `..` goes up from where the path really is, and the part that does not exist
//! yet is appended as it is. So `link/../x` is checked where the kernel would open it, and a
//! not-yet-existing `new/../../x` cannot climb out. Whatever cannot be checked counts as
//! outside, and [`ResolvedPath::problem`] says why ([`BoundaryError`]): a symlink loop, a name
//! too long, a NUL byte, no home directory for `~`, a directory that cannot be read; so the
//! denial ([`ResolvedPath::denial`]) names the real cause, quoting paths shortened.

use std::borrow::Cow;
use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::Workspace;
use super::expand::{expand, expands_home, home_dir};

/// How many symlinks one path may pass through, as Linux's `MAXSYMLINKS`.
const MAX_SYMLINKS: u32 = 40;

/// The longest file name (one component), in bytes, most file systems allow (`NAME_MAX`).
const NAME_MAX: usize = 255;

/// How many characters of a path a message quotes before it keeps only the head and the tail.
const QUOTE_MAX: usize = 200;

/// A path argument resolved against the workspace: what was sent, where it points, and whether
/// that is inside the workspace. The coordinator makes one for every path argument of every call
/// (see [`Workspace::confine`]) before the policy decides; the safety layer denies calls with a
/// path outside, with [`denial`](Self::denial) as the reason.
///
/// ```
/// use std::path::Path;
/// use tool_core::Workspace;
///
/// let dir = tempfile::tempdir().unwrap();
/// let ws = Workspace::new(dir.path()).unwrap();
///
/// let new_file = ws.confine("path", "docs/notes.md"); // need not exist yet
/// assert!(new_file.is_inside());
/// assert_eq!(new_file.relative.as_deref(), Some(Path::new("docs/notes.md")));
/// assert_eq!(new_file.absolute, ws.root().join("docs/notes.md"));
///
/// let escape = ws.confine("path", "../../etc/passwd");
/// assert!(!escape.is_inside());
/// assert_eq!(escape.sent, "../../etc/passwd");
///
/// // The size of the file a path names, for rules on file sizes (none for a new file).
/// std::fs::write(dir.path().join("notes.md"), "hello").unwrap();
/// assert_eq!(ws.confine("path", "notes.md").size, Some(5));
/// assert_eq!(new_file.size, None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// The argument's name.
    pub arg: Cow<'static, str>,
    /// The path as the call sent it.
    pub sent: String,
    /// Absolute, with `..` resolved and the symlinks of its existing part followed (as far as
    /// they could be followed).
    pub absolute: PathBuf,
    /// Relative to the root that contains it; `None` when the path is outside every root, or
    /// could not be checked.
    pub relative: Option<PathBuf>,
    /// Why the path is not inside (`None` when it is). A `ResolvedPath` made by hand with
    /// neither `relative` nor a problem counts as outside every root.
    pub problem: Option<BoundaryError>,
    /// The size in bytes of the regular file the path names (symlinks followed), as it was
    /// when the path was confined: read from the metadata following the path already fetched,
    /// so that policy rules on file sizes decide without I/O. `None` when nothing is there
    /// yet, when it is a directory or anything but a regular file, or when the path could not
    /// be followed.
    pub size: Option<u64>,
}

impl ResolvedPath {
    /// `true` when the path is inside the workspace.
    #[must_use]
    pub fn is_inside(&self) -> bool {
        self.relative.is_some()
    }

    /// The reason a call with this path is denied: what is wrong with it and what would be
    /// right, quoting paths shortened to their head and tail when long. `None` when the path is
    /// inside.
    ///
    /// ```
    /// use tool_core::Workspace;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let ws = Workspace::new(dir.path()).unwrap();
    /// let denial = ws.confine("path", "/etc/passwd").denial().unwrap();
    /// assert!(denial.starts_with("`/etc/passwd` is outside every workspace root"), "{denial}");
    /// let denial = ws.confine("path", &"a/".repeat(3000)).denial().unwrap();
    /// assert!(denial.contains("is too long for the file system"), "{denial}");
    /// assert!(denial.len() < 400, "the path is quoted shortened: {denial}");
    /// let denial = ws.confine("path", &"x".repeat(300)).denial().unwrap();
    /// assert!(denial.contains("longer than the 255 bytes"), "{denial}");
    /// ```
    #[must_use]
    pub fn denial(&self) -> Option<String> {
        if self.is_inside() {
            return None;
        }
        let sent = quote_path(&self.sent);
        let absolute = quote_path(&self.absolute.to_string_lossy());
        let fallback = BoundaryError::OutsideRoots { roots: Vec::new() };
        Some(match self.problem.as_ref().unwrap_or(&fallback) {
            BoundaryError::OutsideRoots { roots } => {
                let whereto = if sent == absolute {
                    format!("`{sent}` is outside")
                } else {
                    format!("`{sent}` resolves to `{absolute}`, which is outside")
                };
                match roots.as_slice() {
                    [] => format!(
                        "{whereto} the workspace; tools may only touch paths inside the workspace roots. Use a path inside the workspace."
                    ),
                    [first, ..] => format!(
                        "{whereto} every workspace root ({}); tools may only touch paths inside the workspace roots. Use a path relative to `{}`, or an absolute path under a root.",
                        roots
                            .iter()
                            .map(|root| format!("`{}`", quote_path(&root.to_string_lossy())))
                            .collect::<Vec<_>>()
                            .join(", "),
                        quote_path(&first.to_string_lossy()),
                    ),
                }
            }
            BoundaryError::SymlinkLoop { link } => format!(
                "`{sent}` cannot be followed: at `{}` it runs into a symlink loop (or through more than {MAX_SYMLINKS} symlinks), so where it points is unknown. Use a path that does not go through that link.",
                quote_path(&link.to_string_lossy())
            ),
            BoundaryError::NameTooLong { name, bytes } => {
                let what = if *name == self.sent {
                    format!("`{sent}` is a file name of {bytes} bytes")
                } else {
                    format!(
                        "`{sent}` has a file name of {bytes} bytes (`{}`)",
                        quote_path(name)
                    )
                };
                format!(
                    "{what}, longer than the {NAME_MAX} bytes a file name may have. Use a shorter name."
                )
            }
            BoundaryError::PathTooLong { bytes } => format!(
                "`{sent}` is too long for the file system ({bytes} bytes once resolved). Use a shorter path."
            ),
            BoundaryError::NulByte => format!(
                "`{sent}` contains a NUL byte (shown as `\\0`), which no path can hold. Send the path without it."
            ),
            BoundaryError::NoHome => format!(
                "`{sent}` starts with `~`, and there is no home directory to expand it to. Use a path relative to the workspace root, or an absolute path inside it."
            ),
            BoundaryError::Unreadable { at, error } => format!(
                "`{sent}` cannot be checked: `{}` cannot be read ({error}), so where it points is unknown. Use a path through directories that can be read.",
                quote_path(&at.to_string_lossy())
            ),
        })
    }
}

/// Why a path is not inside the workspace: outside every root, or not checkable at all.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BoundaryError {
    /// Followed to the end, it is outside every root.
    OutsideRoots {
        /// The workspace's roots, the first one first.
        roots: Vec<PathBuf>,
    },
    /// It runs into a symlink loop, or through more than 40 symlinks (`ELOOP`).
    SymlinkLoop {
        /// The link at which following stopped.
        link: PathBuf,
    },
    /// One of its file names is longer than 255 bytes (`ENAMETOOLONG`).
    NameTooLong {
        /// The name.
        name: String,
        /// Its length in bytes.
        bytes: usize,
    },
    /// The file system rejects it as too long (`ENAMETOOLONG`).
    PathTooLong {
        /// Its length in bytes, as far as it was followed.
        bytes: usize,
    },
    /// It contains a NUL byte, which no path can.
    NulByte,
    /// It starts with `~`, and there is no home directory.
    NoHome,
    /// A directory on the way, or a link, cannot be read.
    Unreadable {
        /// Where.
        at: PathBuf,
        /// What the file system said.
        error: String,
    },
}

impl fmt::Display for BoundaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoundaryError::OutsideRoots { .. } => f.write_str("outside every workspace root"),
            BoundaryError::SymlinkLoop { .. } => f.write_str("a symlink loop"),
            BoundaryError::NameTooLong { bytes, .. } => {
                write!(f, "a file name of {bytes} bytes, over {NAME_MAX}")
            }
            BoundaryError::PathTooLong { bytes } => write!(f, "a path of {bytes} bytes, too long"),
            BoundaryError::NulByte => f.write_str("a NUL byte"),
            BoundaryError::NoHome => f.write_str("`~` with no home directory"),
            BoundaryError::Unreadable { error, .. } => write!(f, "unreadable ({error})"),
        }
    }
}

impl std::error::Error for BoundaryError {}

/// `text` for a message: a NUL byte shown as `\0`, and only the head and the tail kept when it
/// is longer than [`QUOTE_MAX`] characters, so a 5,000-character path does not fill the
/// model's context.
pub(crate) fn quote_path(text: &str) -> String {
    let text = text.replace('\0', "\\0");
    let count = text.chars().count();
    if count <= QUOTE_MAX {
        return text;
    }
    let head: String = text.chars().take(QUOTE_MAX / 2).collect();
    let tail: String = text.chars().skip(count - QUOTE_MAX / 2).collect();
    format!("{head}…{tail}")
}

impl Workspace {
    /// Where `path` really points and whether that is inside the workspace: the hard boundary
    /// the policy enforces for every path argument of every call.
    ///
    /// `~` and environment variables are expanded first, as a shell would (`~/x` is the home
    /// directory's `x`; a variable that is not set leaves the path as sent), and a relative
    /// path is joined onto the first root. Symlinks are followed, `..` is resolved after them,
    /// and a part that does not exist yet is appended as it is. [`ResolvedPath::relative`] is
    /// the path relative to the first root that contains it, or `None` when no root does, or
    /// when the path could not be checked (a symlink loop, a name too long, a NUL byte, a
    /// directory that cannot be read); [`ResolvedPath::problem`] then says which, and
    /// [`ResolvedPath::denial`] says it to the model.
    ///
    /// This is a check at decision time: a symlink swapped between the check and the tool's use
    /// is not seen here. The handles ([`Workspace::open`], [`Workspace::write`], ...) see it:
    /// tools do their I/O through them.
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

    /// [`confine`](Self::confine) for a write that acts on a symbolic link itself rather
    /// than on what it points to (`rm link`, `mv link elsewhere`): when `path`'s last
    /// component is a symbolic link, its folder is confined (symlinks followed) and the link's
    /// name joined to it unresolved; otherwise, as `confine`. A path whose last part as written
    /// is empty, `.` or `..` (`link/`, `link/.`) goes through the link: as `confine`, whatever
    /// joining it to a root normalizes away.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    pub(crate) fn confine_link(
        &self,
        arg: impl Into<Cow<'static, str>>,
        path: &str,
    ) -> ResolvedPath {
        let expanded = expand(path).map_or_else(|| PathBuf::from(path), |e| PathBuf::from(e.path));
        let written_last = expanded
            .as_os_str()
            .as_encoded_bytes()
            .rsplit(|byte| *byte == b'/')
            .next()
            .unwrap_or_default();
        if matches!(written_last, b"" | b"." | b"..") {
            return self.confine(arg, path);
        }
        let joined = self.join(&expanded);
        let name = joined.file_name().map(std::ffi::OsStr::to_os_string);
        let is_link = std::fs::symlink_metadata(&joined).is_ok_and(|meta| meta.is_symlink());
        match (name, joined.parent()) {
            (Some(name), Some(folder)) if is_link && name != "." && name != ".." => {
                let mut confined = self.confine_target(arg, path, folder);
                confined.absolute.push(&name);
                if let Some(relative) = confined.relative.as_mut() {
                    relative.push(&name);
                }
                confined.size = None;
                confined
            }
            _ => self.confine(arg, path),
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
        let (absolute, relative, problem, size) = self.check(sent, target);
        ResolvedPath {
            arg: arg.into(),
            sent: sent.to_owned(),
            absolute,
            relative,
            problem,
            size,
        }
    }

    /// Where `target` (sent as `sent`) points, relative to the root containing it, or why it
    /// is not inside; and the size of the file it names.
    fn check(
        &self,
        sent: &str,
        target: &Path,
    ) -> (PathBuf, Option<PathBuf>, Option<BoundaryError>, Option<u64>) {
        if sent.contains('\0') || target.as_os_str().as_encoded_bytes().contains(&0) {
            return (target.to_owned(), None, Some(BoundaryError::NulByte), None);
        }
        if expands_home(sent) && home_dir().is_none() {
            return (target.to_owned(), None, Some(BoundaryError::NoHome), None);
        }
        let joined = self.join(target);
        match follow(&joined) {
            Ok(Followed { path, size }) => match self.relative_to_root(&path) {
                Some(relative) => (path, Some(relative), None, size),
                None => {
                    let roots = self.roots().to_vec();
                    let problem = BoundaryError::OutsideRoots { roots };
                    (path, None, Some(problem), size)
                }
            },
            Err(problem) => (joined, None, Some(problem), None),
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
        follow(path).is_ok_and(|followed| self.relative_to_root(&followed.path).is_some())
    }
}

/// A path followed to its end.
struct Followed {
    /// Absolute, symlinks followed, `..` resolved.
    path: PathBuf,
    /// The size of the regular file it names, if it names one.
    size: Option<u64>,
}

/// Follows an absolute path as the kernel would, keeping the part that does not exist.
fn follow(path: &Path) -> Result<Followed, BoundaryError> {
    let mut current = PathBuf::new();
    let mut symlinks = 0;
    let mut size = None;
    follow_onto(&mut current, path, &mut symlinks, &mut size)?;
    Ok(Followed {
        path: current,
        size,
    })
}

/// Walks `path`'s components onto `current`, which is always followed already (no symlinks,
/// no `..` in it), so popping it for `..` is what the kernel would do. `size` is kept as the
/// size of the regular file `current` names, from the metadata the walk reads anyway.
fn follow_onto(
    current: &mut PathBuf,
    path: &Path,
    symlinks: &mut u32,
    size: &mut Option<u64>,
) -> Result<(), BoundaryError> {
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => {
                current.push(component);
                *size = None;
            }
            Component::CurDir => {}
            Component::ParentDir => {
                current.pop();
                *size = None;
            }
            Component::Normal(name) => {
                let bytes = name.as_encoded_bytes().len();
                if bytes > NAME_MAX {
                    return Err(BoundaryError::NameTooLong {
                        name: name.to_string_lossy().into_owned(),
                        bytes,
                    });
                }
                let next = current.join(name);
                match next.symlink_metadata() {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        *symlinks += 1;
                        if *symlinks > MAX_SYMLINKS {
                            return Err(BoundaryError::SymlinkLoop { link: next });
                        }
                        let target = next
                            .read_link()
                            .map_err(|error| unreadable(&next, &error))?;
                        // A relative target is relative to the link's directory: `current`.
                        follow_onto(current, &target, symlinks, size)?;
                    }
                    Ok(meta) => {
                        *current = next;
                        *size = meta.is_file().then_some(meta.len());
                    }
                    Err(error) if does_not_exist(&error) => {
                        *current = next;
                        *size = None;
                    }
                    Err(error) => return Err(unreadable(&next, &error)),
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

/// What the file system's refusal at `at` means for the boundary.
fn unreadable(at: &Path, error: &io::Error) -> BoundaryError {
    match error.kind() {
        // `ENAMETOOLONG`: each name is short enough (checked above), the whole is not.
        io::ErrorKind::InvalidFilename => BoundaryError::PathTooLong {
            bytes: at.as_os_str().len(),
        },
        _ => BoundaryError::Unreadable {
            at: at.to_owned(),
            error: error.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::{BoundaryError, QUOTE_MAX, ResolvedPath, quote_path};

    fn denial(sent: &str, problem: Option<BoundaryError>) -> String {
        ResolvedPath {
            arg: "path".into(),
            sent: sent.to_owned(),
            absolute: PathBuf::from(sent),
            relative: None,
            problem,
            size: None,
        }
        .denial()
        .expect("outside")
    }

    #[test]
    fn causes_that_need_a_special_machine_have_their_own_message() {
        // No home directory, and a directory that cannot be read (the tests may run as root,
        // who reads everything): hard to make in a test.
        let cases = [
            (
                Some(BoundaryError::NoHome),
                "no home directory to expand it to",
            ),
            (
                Some(BoundaryError::Unreadable {
                    at: PathBuf::from("/srv/locked"),
                    error: "Permission denied (os error 13)".to_owned(),
                }),
                "`/srv/locked` cannot be read (Permission denied (os error 13))",
            ),
            // Made by hand without a cause: outside, as before causes were known.
            (
                None,
                "outside the workspace; tools may only touch paths inside",
            ),
        ];
        for (problem, expected) in cases {
            let text = denial("~/x", problem.clone());
            assert!(text.contains(expected), "{problem:?}: {text}");
        }
    }

    #[test]
    fn a_long_text_is_quoted_by_its_head_and_tail() {
        let long = format!("{}{}", "a".repeat(3000), "b".repeat(2000));
        let quoted = quote_path(&long);
        assert_eq!(quoted.chars().count(), QUOTE_MAX + 1);
        assert!(quoted.starts_with("aaa") && quoted.ends_with("bbb"));
        assert!(quoted.contains('…'));
        assert_eq!(quote_path("short/path"), "short/path");
        assert_eq!(quote_path("a\0b"), "a\\0b");
        // Characters, not bytes: never cut inside one.
        assert_eq!(quote_path(&"é".repeat(500)).chars().count(), QUOTE_MAX + 1);
    }
}

//! File I/O beneath the workspace's roots: the handles tools open, create, write, rename and
//! list files through ([`Workspace::open`], [`Workspace::create`], [`Workspace::write`],
//! [`Workspace::rename`], [`Workspace::read_dir`], ...), so that the kernel, not only the
//! policy, keeps them inside.
//!
//! The policy confines every path argument when it decides ([`Workspace::confine`]), but a
//! decision is a moment: between it and the I/O a directory on the path can be replaced by a
//! symlink leading out. So every root is held open as a [`cap_std`] directory from the moment
//! the workspace is made (opening it by name again would follow whatever is there now), and
//! every operation resolves its path *beneath* it at the moment of the I/O: `openat2(
//! RESOLVE_BENEATH)` on Linux, cap-std's checked walk elsewhere. A path that leaves its root as
//! written is followed as the boundary follows it and, when it ends inside a root, tried again
//! beneath that root; otherwise the answer is an [`EscapeError`]. So the handles allow what the
//! boundary allows, and nothing a later swap would add.
//!
//! Every operation also asks the workspace's [`AccessRules`](super::AccessRules) first (the
//! `access` module), as the path is written, as the boundary follows it, and for a read again
//! on the file the kernel opened; a file is opened without blocking and its type checked
//! through the handle ([`NotAFile`]: a FIFO, socket or device is refused). Walkers open what
//! they find with [`Workspace::open_entry`] and [`Workspace::entry_metadata`], which follow no
//! symlink at all below the root. The handles are synchronous, as `std::fs` is. What a tool
//! author meets: the guide's policy page (`docs/policy.md`, "The workspace").

use std::fs::File;
use std::io::{self, Read as _, Write as _};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, Metadata, OpenOptions, ReadDir};

use super::Workspace;
use super::access::Access;

/// Why a file operation of a tool was refused: its path leads out of the workspace. Carried
/// inside the [`io::Error`] the handles return (of kind
/// [`PermissionDenied`](io::ErrorKind::PermissionDenied)); its `Display` is a sentence for the
/// model, so `?` into a [`ToolError`](crate::ToolError) tells it what to do instead.
///
/// ```
/// use tool_core::{Workspace, workspace::EscapeError};
///
/// let dir = tempfile::tempdir().unwrap();
/// let ws = Workspace::new(dir.path()).unwrap();
/// let error = ws.write("../elsewhere.txt", "x").unwrap_err();
/// let escape = error.get_ref().and_then(|e| e.downcast_ref::<EscapeError>()).unwrap();
/// assert!(matches!(escape, EscapeError::OutsideRoots { .. }));
/// assert!(error.to_string().starts_with("`../elsewhere.txt` is outside the workspace"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EscapeError {
    /// The path is outside every root as written: absolute elsewhere, or a `..` climbing out.
    #[error(
        "`{}` is outside the workspace `{}`: use a path inside it, relative to the workspace \
         root or absolute beneath it",
        path.display(),
        root.display()
    )]
    OutsideRoots {
        /// The path as given.
        path: PathBuf,
        /// The first root of the workspace.
        root: PathBuf,
    },
    /// The path is inside as written, but a symlink on its way leads out.
    #[error(
        "`{}` leads out of the workspace through a symlink (it reaches `{}`): use a path whose \
         directories are inside the workspace",
        path.display(),
        reaches.display()
    )]
    ThroughSymlink {
        /// The path as given.
        path: PathBuf,
        /// Where following it leads.
        reaches: PathBuf,
    },
    /// The path led inside when it was followed, and out a moment later when it was used: a
    /// symlink leading out was swapped in meanwhile. Nothing outside was touched.
    #[error(
        "`{}` changed while it was being used: a symlink on its way now leads out of the \
         workspace, so nothing was done there; look at what is at that path now before trying \
         again",
        path.display()
    )]
    Changed {
        /// The path as given (for a rename, the file moved).
        path: PathBuf,
    },
}

impl From<EscapeError> for io::Error {
    fn from(error: EscapeError) -> Self {
        io::Error::new(io::ErrorKind::PermissionDenied, error)
    }
}

/// Why a file operation of a tool was refused: the path names a FIFO, a socket or a device,
/// which the file tools never open (opening a FIFO blocks until someone writes to it; a
/// device reaches outside the workspace). Carried inside the [`io::Error`] the handles return
/// (of kind [`InvalidInput`](io::ErrorKind::InvalidInput)).
///
/// ```
/// # #[cfg(unix)] {
/// use tool_core::{Workspace, workspace::NotAFile};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::process::Command::new("mkfifo").arg(dir.path().join("pipe")).status().unwrap();
/// let ws = Workspace::new(dir.path()).unwrap();
/// let error = ws.open("pipe").unwrap_err(); // at once: nothing blocks
/// let refused = error.get_ref().and_then(|e| e.downcast_ref::<NotAFile>()).unwrap();
/// assert_eq!(refused.kind, "a FIFO (named pipe)");
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{}` is {kind}, not a regular file: the file tools read and write regular files only",
    path.display()
)]
#[non_exhaustive]
pub struct NotAFile {
    /// The path as given.
    pub path: PathBuf,
    /// What it is, in words: `a FIFO (named pipe)`, `a socket`, `a character device`, `a block
    /// device`.
    pub kind: &'static str,
}

impl From<NotAFile> for io::Error {
    fn from(error: NotAFile) -> Self {
        io::Error::new(io::ErrorKind::InvalidInput, error)
    }
}

/// What a file of mode `mode` is in words, when it is one the file tools refuse.
#[cfg(unix)]
pub(crate) fn special_kind(mode: u32) -> Option<&'static str> {
    use rustix::fs::FileType;
    match FileType::from_raw_mode(mode) {
        FileType::Fifo => Some("a FIFO (named pipe)"),
        FileType::Socket => Some("a socket"),
        FileType::CharacterDevice => Some("a character device"),
        FileType::BlockDevice => Some("a block device"),
        _ => None,
    }
}

/// [`special_kind`] of what `metadata` describes.
#[cfg(unix)]
fn special_metadata(metadata: &Metadata) -> Option<&'static str> {
    special_kind(cap_std::fs::MetadataExt::mode(metadata))
}

#[cfg(not(unix))]
fn special_metadata(_: &Metadata) -> Option<&'static str> {
    None
}

/// Refuses an open file that is a FIFO, a socket or a device (judged through the handle, so
/// nothing swapped in after a look at the path can change the answer).
fn refuse_special(path: &Path, file: &File) -> io::Result<()> {
    #[cfg(unix)]
    if let Some(kind) = special_kind(rustix::fs::fstat(file)?.st_mode) {
        return Err(NotAFile {
            path: path.to_owned(),
            kind,
        }
        .into());
    }
    let _ = (path, file);
    Ok(())
}

/// Options that open without blocking: a FIFO's open would wait for a writer (or a reader),
/// and a terminal's would become the process's controlling terminal. Harmless on a regular
/// file, where `O_NONBLOCK` changes nothing.
fn options(configure: impl FnOnce(&mut OpenOptions)) -> OpenOptions {
    let mut options = OpenOptions::new();
    configure(&mut options);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt as _;
        let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY;
        options.custom_flags(flags.bits().cast_signed());
    }
    options
}

/// Which way a path is looked up: as written, or as the boundary follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lookup {
    AsWritten,
    Followed,
}

impl Workspace {
    /// Opens a file for reading.
    ///
    /// `path` is what the tool received: a [`WorkspacePath`](crate::WorkspacePath) or a raw
    /// path, relative to the first root or absolute beneath a root. Symlinks are followed as
    /// long as they stay inside the workspace.
    ///
    /// # Errors
    /// [`EscapeError`] (kind `PermissionDenied`) when the path leads out of the workspace, or
    /// what the file system says.
    ///
    /// ```
    /// use std::io::Read;
    /// use tool_core::Workspace;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("notes.md"), "hello").unwrap();
    /// let ws = Workspace::new(dir.path()).unwrap();
    ///
    /// let mut text = String::new();
    /// ws.open("notes.md").unwrap().read_to_string(&mut text).unwrap();
    /// assert_eq!(text, "hello");
    /// assert!(ws.open("/etc/passwd").is_err());
    /// ```
    pub fn open(&self, path: impl AsRef<Path>) -> io::Result<File> {
        let path = path.as_ref();
        self.check_both_ways(&[Access::Read], path)?;
        let read = options(|o| {
            o.read(true);
        });
        let file = self
            .beneath(path, |dir, relative| dir.open_with(relative, &read))
            .map(cap_std::fs::File::into_std)?;
        self.check_opened(Access::Read, path, &file)?;
        refuse_special(path, &file)?;
        Ok(file)
    }

    /// Reads a whole file as UTF-8 text; as [`open`](Self::open).
    ///
    /// # Errors
    /// As for [`open`](Self::open), and `InvalidData` when the file is not UTF-8.
    pub fn read_to_string(&self, path: impl AsRef<Path>) -> io::Result<String> {
        let mut text = String::new();
        self.open(path)?.read_to_string(&mut text)?;
        Ok(text)
    }

    /// Opens a file for writing, creating it or truncating it, and creating its missing parent
    /// directories. What is written lands as it is written: for a file that must never be
    /// seen half-written, use [`write`](Self::write).
    ///
    /// # Errors
    /// As for [`open`](Self::open).
    pub fn create(&self, path: impl AsRef<Path>) -> io::Result<File> {
        let path = path.as_ref();
        self.check_both_ways(&[Access::Write], path)?;
        let create = options(|o| {
            o.write(true).create(true);
        });
        let file = self
            .beneath(path, |dir, relative| {
                create_parents(dir, relative)?;
                dir.open_with(relative, &create)
            })
            .map(cap_std::fs::File::into_std)?;
        // Truncated only once known to be a regular file: a device is left as it was.
        refuse_special(path, &file)?;
        file.set_len(0)?;
        Ok(file)
    }

    /// Writes a whole file atomically: the contents go to a new file beside it, which then
    /// replaces it in one rename, so a reader sees the old file or the new one, never a part,
    /// and a failure leaves the old file as it was. Missing parent directories are created. An
    /// existing file keeps its permissions; a symlink at the path is followed (inside the
    /// workspace), so the file it points to is replaced, not the link.
    ///
    /// # Errors
    /// As for [`open`](Self::open), and `InvalidInput` when the path names no file (the root,
    /// or ends in `..`).
    ///
    /// ```
    /// use tool_core::Workspace;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let ws = Workspace::new(dir.path()).unwrap();
    /// ws.write("src/lib.rs", "pub fn answer() -> u32 { 42 }\n").unwrap();
    /// assert!(ws.read_to_string("src/lib.rs").unwrap().contains("42"));
    /// ```
    pub fn write(&self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> io::Result<()> {
        let (path, contents) = (path.as_ref(), contents.as_ref());
        self.check_both_ways(&[Access::Write], path)?;
        self.beneath(path, |dir, relative| {
            write_atomically(dir, relative, contents)
        })
    }

    /// Creates a directory and its missing parents; nothing when it exists.
    ///
    /// # Errors
    /// As for [`open`](Self::open).
    pub fn create_dir_all(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref();
        self.check_both_ways(&[Access::Write], path)?;
        self.beneath(path, create_dir_all)
    }

    /// Renames a file or directory, replacing `to` if it is a file, as [`std::fs::rename`]; the
    /// two may be under different roots of the same file system. A symlink at `from` or `to`
    /// is renamed or replaced itself, not followed.
    ///
    /// # Errors
    /// As for [`open`](Self::open), for either path.
    pub fn rename(&self, from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<()> {
        let (from, to) = (from.as_ref(), to.as_ref());
        // Moving a file out of a folder the rules keep from reading would read it elsewhere.
        self.check_both_ways(&[Access::Read, Access::Write], from)?;
        self.check_both_ways(&[Access::Write], to)?;
        self.attempt(from, |lookup| {
            let (from_dir, from_relative) = self.locate(from, lookup)?;
            let (to_dir, to_relative) = self.locate(to, lookup)?;
            from_dir.rename(&from_relative, to_dir, &to_relative)
        })
    }

    /// Removes a file (a symlink itself, not what it points to).
    ///
    /// # Errors
    /// As for [`open`](Self::open).
    pub fn remove_file(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref();
        self.check_both_ways(&[Access::Write], path)?;
        self.beneath(path, |dir, relative| dir.remove_file(relative))
    }

    /// The entries of a directory. Each entry opens, lists and stats beneath that directory
    /// too, so a walker built on them cannot leave it.
    ///
    /// # Errors
    /// As for [`open`](Self::open).
    ///
    /// ```
    /// use tool_core::Workspace;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "").unwrap();
    /// let ws = Workspace::new(dir.path()).unwrap();
    ///
    /// let names: Vec<_> = ws.read_dir(".").unwrap().map(|e| e.unwrap().file_name()).collect();
    /// assert_eq!(names, ["a.txt"]);
    /// ```
    pub fn read_dir(&self, path: impl AsRef<Path>) -> io::Result<ReadDir> {
        self.open_dir(path)?.entries()
    }

    /// What the file system knows about a file or directory; symlinks are followed (inside the
    /// workspace).
    ///
    /// # Errors
    /// As for [`open`](Self::open).
    pub fn metadata(&self, path: impl AsRef<Path>) -> io::Result<Metadata> {
        let path = path.as_ref();
        self.check_both_ways(&[Access::Read], path)?;
        self.beneath(path, |dir, relative| dir.metadata(relative))
    }

    /// Opens a directory as a handle of its own, for a tool that does more than these methods
    /// offer (a walker, a search): everything done through it stays beneath that directory.
    ///
    /// # Errors
    /// As for [`open`](Self::open).
    pub fn open_dir(&self, path: impl AsRef<Path>) -> io::Result<Dir> {
        let path = path.as_ref();
        self.check_both_ways(&[Access::Read], path)?;
        let dir = self.beneath(path, |dir, relative| dir.open_dir(relative))?;
        self.check_opened(Access::Read, path, &dir)?;
        Ok(dir)
    }

    /// Opens a regular file a walker found, for reading, following no symlink anywhere below
    /// its root: a walk never follows links, so a link on the way is a directory swapped for
    /// one since the walk passed, and the open fails (`ELOOP`) instead of reading where it
    /// leads. The rules are asked as for [`open`](Self::open); a FIFO, socket or device is
    /// refused without blocking.
    ///
    /// # Errors
    /// [`EscapeError`] when the path is under no root, [`AccessDenied`](super::AccessDenied),
    /// [`NotAFile`], or what the file system says (a link on the way: `ELOOP`).
    ///
    /// ```
    /// # #[cfg(unix)] {
    /// use std::io::Read;
    /// use tool_core::Workspace;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir(dir.path().join("src")).unwrap();
    /// std::fs::write(dir.path().join("src/lib.rs"), "fn f() {}").unwrap();
    /// std::os::unix::fs::symlink(dir.path().join("src"), dir.path().join("link")).unwrap();
    /// let ws = Workspace::new(dir.path()).unwrap();
    ///
    /// let mut text = String::new();
    /// ws.open_entry("src/lib.rs").unwrap().read_to_string(&mut text).unwrap();
    /// assert_eq!(text, "fn f() {}");
    /// assert!(ws.open_entry("link/lib.rs").is_err()); // `ws.open` would follow it
    /// # }
    /// ```
    pub fn open_entry(&self, path: impl AsRef<Path>) -> io::Result<File> {
        let path = path.as_ref();
        self.check_access(Access::Read, path)?;
        let (dir, relative) = self.as_written(path).ok_or_else(|| self.outside(path))?;
        let file = File::from(unfollowed::open(dir, &relative, unfollowed::Open::File)?);
        refuse_special(path, &file)?;
        Ok(file)
    }

    /// The metadata of an entry a walker found (a link itself, not what it points to),
    /// following no symlink on the way below its root, as [`open_entry`](Self::open_entry):
    /// an error, not what is there, when a directory on the way was swapped for a link. The
    /// rules are asked as for [`metadata`](Self::metadata).
    ///
    /// # Errors
    /// As for [`open_entry`](Self::open_entry).
    pub fn entry_metadata(&self, path: impl AsRef<Path>) -> io::Result<Metadata> {
        let path = path.as_ref();
        self.check_access(Access::Read, path)?;
        let (dir, relative) = self.as_written(path).ok_or_else(|| self.outside(path))?;
        // The entry itself (a link as a link), opened only as a path to stat it.
        let fd = unfollowed::open(dir, &relative, unfollowed::Open::Entry)?;
        cap_std::fs::File::from_std(File::from(fd)).metadata()
    }

    /// The entries of a directory a walker found, opened as [`open_entry`](Self::open_entry)
    /// opens a file: no link followed below the root, the rules asked.
    ///
    /// # Errors
    /// As for [`open_entry`](Self::open_entry).
    pub fn read_entry_dir(&self, path: impl AsRef<Path>) -> io::Result<ReadDir> {
        let path = path.as_ref();
        self.check_access(Access::Read, path)?;
        let (dir, relative) = self.as_written(path).ok_or_else(|| self.outside(path))?;
        let fd = unfollowed::open(dir, &relative, unfollowed::Open::Dir)?;
        Dir::from_std_file(File::from(fd)).entries()
    }

    /// The error for a path under no root as written.
    fn outside(&self, path: &Path) -> io::Error {
        EscapeError::OutsideRoots {
            path: path.to_owned(),
            root: self.root().to_owned(),
        }
        .into()
    }

    /// Runs `operation` on `path` beneath its root, as the module documentation says.
    fn beneath<T>(
        &self,
        path: &Path,
        operation: impl Fn(&Dir, &Path) -> io::Result<T>,
    ) -> io::Result<T> {
        self.attempt(path, |lookup| {
            let (dir, relative) = self.locate(path, lookup)?;
            operation(dir, &relative)
        })
    }

    /// Runs `attempt` on the paths as written; when that leads out of a root, again on the
    /// paths as followed. An escape on the second try is a path that changed in between.
    fn attempt<T>(&self, path: &Path, attempt: impl Fn(Lookup) -> io::Result<T>) -> io::Result<T> {
        match attempt(Lookup::AsWritten) {
            Err(error) if is_escape(&error) => {}
            other => return other,
        }
        attempt(Lookup::Followed).map_err(|error| {
            if is_escape(&error) {
                EscapeError::Changed {
                    path: path.to_owned(),
                }
                .into()
            } else {
                error
            }
        })
    }

    /// The root `path` is under, held open, and the path relative to it.
    fn locate(&self, path: &Path, lookup: Lookup) -> io::Result<(&Dir, PathBuf)> {
        match lookup {
            Lookup::AsWritten => self.as_written(path).ok_or_else(not_beneath),
            Lookup::Followed => self.followed(path),
        }
    }

    /// A relative path beneath the first root; an absolute one beneath the root it starts
    /// with. What it holds (`..`, symlinks) is for the walk beneath the root to judge.
    fn as_written(&self, path: &Path) -> Option<(&Dir, PathBuf)> {
        if path.is_relative() {
            return Some((&self.dirs[0], below(path)));
        }
        self.roots
            .iter()
            .zip(self.dirs.iter())
            .find_map(|(root, dir)| Some((&**dir, below(path.strip_prefix(root).ok()?))))
    }

    /// The path followed as the boundary follows it (symlinks, then `..`): the root where it
    /// ends and the path relative to it, or why it is outside.
    fn followed(&self, path: &Path) -> io::Result<(&Dir, PathBuf)> {
        let absolute = if path.is_relative() {
            self.root().join(path)
        } else {
            path.to_owned()
        };
        // JSON cannot send a path that is not UTF-8, and such a path cannot be followed here
        // without changing it: it stays outside.
        let followed = absolute
            .to_str()
            .map(|text| self.confine("path", text).absolute);
        if let Some(followed) = &followed {
            let inside = self
                .roots
                .iter()
                .zip(self.dirs.iter())
                .find_map(|(root, dir)| Some((&**dir, below(followed.strip_prefix(root).ok()?))));
            if let Some(inside) = inside {
                return Ok(inside);
            }
        }
        let error = match followed {
            Some(reaches) if self.lexically_inside(&absolute) => EscapeError::ThroughSymlink {
                path: path.to_owned(),
                reaches,
            },
            _ => EscapeError::OutsideRoots {
                path: path.to_owned(),
                root: self.root().to_owned(),
            },
        };
        Err(error.into())
    }

    /// `true` when `absolute`, with `..` taken as written (no symlink followed), is under a
    /// root.
    fn lexically_inside(&self, absolute: &Path) -> bool {
        let normal = super::access::lexical(absolute);
        self.roots.iter().any(|root| normal.starts_with(root))
    }
}

/// A path relative to a root, without `.` components; the root itself is `.`.
fn below(relative: &Path) -> PathBuf {
    let path: PathBuf = relative
        .components()
        .filter(|component| *component != Component::CurDir)
        .collect();
    if path.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        path
    }
}

/// An absolute path under no root as written: for [`Workspace::attempt`], like cap-std's
/// refusal, a reason to follow the path.
fn not_beneath() -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        "not beneath a workspace root",
    )
}

/// cap-std's refusal of a path leaving the directory it resolves beneath (an error of its
/// own, where the operating system's `PermissionDenied` has none), or [`not_beneath`]; not an
/// [`EscapeError`], which is already the answer.
fn is_escape(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::PermissionDenied
        && error.get_ref().is_some_and(|inner| {
            !inner.is::<EscapeError>() && !inner.is::<super::access::AccessDenied>()
        })
}

/// Opening beneath a root with no symlink followed anywhere on the way: what walkers use.
mod unfollowed {
    use std::io;
    use std::os::fd::OwnedFd;
    use std::path::{Component, Path};

    use cap_std::fs::Dir;

    /// What is opened.
    #[derive(Clone, Copy)]
    pub(super) enum Open {
        /// A file, for reading, without blocking.
        File,
        /// A directory, to list.
        Dir,
        /// Whatever is there (a link itself), as a path only: to stat it.
        Entry,
    }

    #[cfg(unix)]
    pub(super) fn open(dir: &Dir, relative: &Path, what: Open) -> io::Result<OwnedFd> {
        use rustix::fs::{Mode, OFlags};
        let last = match what {
            Open::File => OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::NOFOLLOW,
            Open::Dir => OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW,
            // With `O_PATH | O_NOFOLLOW` a trailing link is opened as the link, even under
            // `RESOLVE_NO_SYMLINKS` (openat2(2)); a link earlier on the way still fails.
            #[cfg(target_os = "linux")]
            Open::Entry => OFlags::PATH | OFlags::NOFOLLOW,
            // Elsewhere a trailing link cannot be opened, only refused (`ELOOP`).
            #[cfg(not(target_os = "linux"))]
            Open::Entry => OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW,
        } | OFlags::CLOEXEC;
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::ResolveFlags;
            let resolve =
                ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
            match rustix::fs::openat2(dir, relative, last, Mode::empty(), resolve) {
                // Before Linux 5.6: one component at a time instead.
                Err(rustix::io::Errno::NOSYS) => {}
                other => return other.map_err(io::Error::from),
            }
        }
        // Each step opened beneath the one before with `O_NOFOLLOW`: a link anywhere fails.
        let components: Vec<_> = relative
            .components()
            .filter(|c| *c != Component::CurDir)
            .collect();
        let mut current: Option<OwnedFd> = None;
        for (index, component) in components.iter().enumerate() {
            let Component::Normal(name) = component else {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    "a walk's entry names no parent directory",
                ));
            };
            let flags = if index + 1 == components.len() {
                last
            } else {
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
            };
            let opened = match &current {
                Some(fd) => rustix::fs::openat(fd, *name, flags, Mode::empty()),
                None => rustix::fs::openat(dir, *name, flags, Mode::empty()),
            }?;
            current = Some(opened);
        }
        match current {
            Some(fd) => Ok(fd),
            None => Ok(rustix::fs::openat(dir, ".", last, Mode::empty())?),
        }
    }

    #[cfg(not(unix))]
    pub(super) fn open(dir: &Dir, relative: &Path, what: Open) -> io::Result<OwnedFd> {
        match what {
            Open::File | Open::Entry => Ok(dir.open(relative)?.into_std().into()),
            Open::Dir => Ok(dir.open_dir(relative)?.into_std_file().into()),
        }
    }
}

fn create_parents(dir: &Dir, relative: &Path) -> io::Result<()> {
    match relative.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => create_dir_all(dir, parent),
        _ => Ok(()),
    }
}

/// As [`Dir::create_dir_all`], but a directory reached through a symlink that cap-std cannot
/// follow (an absolute one, into the workspace) is not mistaken for a file in the way: the
/// refusal goes back to [`Workspace::attempt`], which follows the link.
fn create_dir_all(dir: &Dir, path: &Path) -> io::Result<()> {
    match dir.metadata(path) {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Err(error) if is_escape(&error) => Err(error),
        _ => dir.create_dir_all(path),
    }
}

/// Writes `contents` to a new file beside `relative`, then renames it over `relative`.
fn write_atomically(dir: &Dir, relative: &Path, contents: &[u8]) -> io::Result<()> {
    create_parents(dir, relative)?;
    let target = match dir.symlink_metadata(relative) {
        // The file the link points to is the one meant. `canonicalize` resolves beneath the
        // root too: a link leading out is refused here, and followed by `attempt`.
        Ok(metadata) if metadata.is_symlink() => match dir.canonicalize(relative) {
            Ok(target) => below(&target),
            // A dangling link: replaced by the file.
            Err(error) if error.kind() == io::ErrorKind::NotFound => relative.to_owned(),
            Err(error) => return Err(error),
        },
        _ => relative.to_owned(),
    };
    let Some(name) = target.file_name() else {
        // Where it leads first: a path out of the workspace is refused as that.
        dir.metadata(relative)?;
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{}` names no file to write", relative.display()),
        ));
    };
    let existing = dir.metadata(&target).ok();
    if let Some(kind) = existing.as_ref().and_then(special_metadata) {
        return Err(NotAFile {
            path: relative.to_owned(),
            kind,
        }
        .into());
    }
    let permissions = existing.as_ref().map(cap_std::fs::Metadata::permissions);
    remove_stale_temps(dir, target.parent(), name);
    let (temp_path, mut temp) = create_temp(dir, target.parent(), name)?;
    let written = (|| {
        temp.write_all(contents)?;
        if let Some(permissions) = permissions {
            temp.set_permissions(permissions)?;
        }
        keep_owner(&temp, existing.as_ref());
        temp.sync_all()?;
        drop(temp);
        dir.rename(&temp_path, dir, &target)?;
        // The rename itself is durable only once the directory is: sync it too (where a
        // directory can be opened for that; a failure here loses no data, only the guarantee).
        let parent = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if let Ok(directory) = dir.open(parent) {
            let _ = directory.sync_all();
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = dir.remove_file(&temp_path);
    }
    written
}

/// Gives the new file the replaced file's owner and group, where this process may (root may
/// give any; others only a group they are in): a file is edited, not handed to someone else.
#[cfg(unix)]
fn keep_owner(file: &cap_std::fs::File, existing: Option<&cap_std::fs::Metadata>) {
    use cap_std::fs::MetadataExt as _;
    if let Some(existing) = existing {
        let _ = std::os::unix::fs::fchown(file, Some(existing.uid()), Some(existing.gid()));
    }
}

#[cfg(not(unix))]
fn keep_owner(_: &cap_std::fs::File, _: Option<&cap_std::fs::Metadata>) {}

/// Removes the temporary files a killed writer left beside `name`: `.{name}.{process}.{n}.tmp`
/// of a process that no longer runs. Best effort, and only where a process's liveness can be
/// read (`/proc`); a temporary file of a running writer is never touched.
fn remove_stale_temps(dir: &Dir, directory: Option<&Path>, name: &std::ffi::OsStr) {
    let proc = Path::new("/proc/self");
    if !proc.exists() {
        return;
    }
    let parent = directory
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Ok(entries) = dir.read_dir(parent) else {
        return;
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name
            .to_str()
            .and_then(|text| text.strip_prefix(&prefix))
            .and_then(|text| text.strip_suffix(".tmp"))
        else {
            continue;
        };
        let Some((pid, write)) = rest.split_once('.') else {
            continue;
        };
        let is_ours = pid.parse::<u32>().is_ok() && write.parse::<u64>().is_ok();
        let alive = Path::new("/proc").join(pid).exists();
        if is_ours && !alive {
            let _ = dir.remove_file(parent.join(&file_name));
        }
    }
}

/// A new, empty file in `directory` (beside the file `name`), named so that no other writer
/// picks the same name: `.{name}.{process}.{write}.tmp`.
fn create_temp(
    dir: &Dir,
    directory: Option<&Path>,
    name: &std::ffi::OsStr,
) -> io::Result<(PathBuf, cap_std::fs::File)> {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    let mut attempts = 0;
    loop {
        let write = WRITES.fetch_add(1, Ordering::Relaxed);
        let mut file_name = std::ffi::OsString::from(".");
        file_name.push(name);
        file_name.push(format!(".{}.{write}.tmp", std::process::id()));
        let path = match directory {
            Some(directory) => directory.join(file_name),
            None => PathBuf::from(file_name),
        };
        match dir.open_with(&path, &options) {
            Ok(file) => return Ok((path, file)),
            // Left behind by a process with the same id that died mid-write.
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && attempts < 8 => {
                attempts += 1;
            }
            Err(error) => return Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::io::{ErrorKind, Read as _, Write as _};
    use std::path::{Path, PathBuf};

    use super::EscapeError;
    use crate::Workspace;

    /// A workspace `ws` with `src/main.rs`, beside an `outside` directory with `secret.txt`.
    struct Fixture {
        dir: tempfile::TempDir,
        ws: Workspace,
    }

    impl Fixture {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            fs::create_dir_all(dir.path().join("ws/src")).unwrap();
            fs::create_dir_all(dir.path().join("outside")).unwrap();
            fs::write(dir.path().join("ws/src/main.rs"), "fn main() {}").unwrap();
            fs::write(dir.path().join("outside/secret.txt"), "secret").unwrap();
            let ws = Workspace::new(dir.path().join("ws")).unwrap();
            Fixture { dir, ws }
        }

        fn root(&self) -> &Path {
            self.ws.root()
        }

        fn outside(&self) -> PathBuf {
            self.dir.path().canonicalize().unwrap().join("outside")
        }

        /// Every file under `outside`, with its text.
        fn outside_files(&self) -> Vec<(String, String)> {
            let mut files: Vec<_> = fs::read_dir(self.outside())
                .unwrap()
                .map(|entry| {
                    let entry = entry.unwrap();
                    let text = fs::read_to_string(entry.path()).unwrap_or_default();
                    (entry.file_name().to_string_lossy().into_owned(), text)
                })
                .collect();
            files.sort();
            files
        }

        fn assert_outside_untouched(&self) {
            assert_eq!(
                self.outside_files(),
                [("secret.txt".to_owned(), "secret".to_owned())]
            );
        }
    }

    fn escape(error: &std::io::Error) -> &EscapeError {
        assert_eq!(error.kind(), ErrorKind::PermissionDenied, "{error}");
        error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<EscapeError>())
            .unwrap_or_else(|| panic!("not an escape: {error:?}"))
    }

    /// Tries every handle operation on `path` and expects each refused as `expected`.
    fn assert_every_operation_refused(
        fixture: &Fixture,
        path: &Path,
        expected: fn(&EscapeError) -> bool,
    ) {
        let ws = &fixture.ws;
        let errors = [
            ("open", ws.open(path).err()),
            ("read_to_string", ws.read_to_string(path).err()),
            ("create", ws.create(path).err()),
            ("write", ws.write(path, "pwned").err()),
            ("create_dir_all", ws.create_dir_all(path).err()),
            ("rename from", ws.rename(path, "src/moved").err()),
            ("rename to", ws.rename("src/main.rs", path).err()),
            ("remove_file", ws.remove_file(path).err()),
            ("read_dir", ws.read_dir(path).err()),
            ("metadata", ws.metadata(path).err()),
            ("open_dir", ws.open_dir(path).err()),
        ];
        for (operation, error) in errors {
            let error =
                error.unwrap_or_else(|| panic!("{operation} `{}` was allowed", path.display()));
            assert!(
                expected(escape(&error)),
                "{operation} `{}`: {error}",
                path.display()
            );
        }
        fixture.assert_outside_untouched();
        assert_eq!(
            fs::read_to_string(fixture.root().join("src/main.rs")).unwrap(),
            "fn main() {}"
        );
    }

    #[test]
    fn a_path_inside_is_opened_created_written_listed_and_renamed() {
        let fixture = Fixture::new();
        let ws = &fixture.ws;
        assert_eq!(ws.read_to_string("src/main.rs").unwrap(), "fn main() {}");
        let absolute = fixture.root().join("src/main.rs");
        assert_eq!(ws.read_to_string(&absolute).unwrap(), "fn main() {}");
        assert_eq!(
            ws.read_to_string("./src/../src/main.rs").unwrap(),
            "fn main() {}"
        );

        ws.create("new/deep/a.txt")
            .unwrap()
            .write_all(b"a")
            .unwrap();
        assert_eq!(
            fs::read_to_string(fixture.root().join("new/deep/a.txt")).unwrap(),
            "a"
        );
        ws.write("other/b.txt", "b").unwrap();
        assert_eq!(ws.read_to_string("other/b.txt").unwrap(), "b");
        ws.create_dir_all("made/here").unwrap();
        assert!(ws.metadata("made/here").unwrap().is_dir());

        ws.rename("other/b.txt", "made/here/c.txt").unwrap();
        assert!(!fixture.root().join("other/b.txt").exists());
        assert_eq!(ws.read_to_string("made/here/c.txt").unwrap(), "b");
        ws.remove_file("made/here/c.txt").unwrap();
        assert!(!fixture.root().join("made/here/c.txt").exists());

        let mut names: Vec<_> = ws
            .read_dir(".")
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["made", "new", "other", "src"]);
        assert_eq!(ws.metadata("src/main.rs").unwrap().len(), 12);
        assert!(ws.metadata(fixture.root()).unwrap().is_dir());
        let src = ws.open_dir("src").unwrap();
        assert!(src.exists("main.rs"));
        fixture.assert_outside_untouched();
    }

    #[test]
    fn a_missing_file_is_not_found() {
        let fixture = Fixture::new();
        let error = fixture.ws.open("src/nope.rs").unwrap_err();
        assert_eq!(error.kind(), ErrorKind::NotFound);
    }

    #[test]
    fn dot_dot_climbing_out_is_refused_by_every_operation() {
        let fixture = Fixture::new();
        for path in ["../outside/secret.txt", "src/../../outside/x", ".."] {
            assert_every_operation_refused(&fixture, Path::new(path), |e| {
                matches!(e, EscapeError::OutsideRoots { .. })
            });
        }
        let error = fixture.ws.write("../outside/x", "pwned").unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "`../outside/x` is outside the workspace `{}`: use a path inside it, relative \
                 to the workspace root or absolute beneath it",
                fixture.root().display()
            )
        );
    }

    #[test]
    fn an_absolute_path_outside_is_refused_by_every_operation() {
        let fixture = Fixture::new();
        let outside = fixture.outside().join("secret.txt");
        let climbing = fixture.root().join("../outside/x");
        for path in [outside.as_path(), climbing.as_path(), Path::new("/")] {
            assert_every_operation_refused(&fixture, path, |e| {
                matches!(e, EscapeError::OutsideRoots { .. })
            });
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_leading_out_is_refused_by_every_operation() {
        use std::os::unix::fs::symlink;
        let fixture = Fixture::new();
        symlink(fixture.outside(), fixture.root().join("out")).unwrap();
        symlink("../../outside", fixture.root().join("src/rel")).unwrap();
        symlink(
            fixture.outside().join("secret.txt"),
            fixture.root().join("secret"),
        )
        .unwrap();
        symlink(
            fixture.outside().join("new.txt"),
            fixture.root().join("dangling"),
        )
        .unwrap();
        for path in ["out/secret.txt", "out/new.txt", "src/rel/new.txt"] {
            assert_every_operation_refused(&fixture, Path::new(path), |e| {
                matches!(e, EscapeError::ThroughSymlink { .. })
            });
        }
        // A link at the end of the path is followed by what opens, creates or reads it; a
        // rename or a remove acts on the link itself, which is inside.
        let ws = &fixture.ws;
        for path in ["out", "secret", "dangling"] {
            let errors = [
                ("open", ws.open(path).err()),
                ("create", ws.create(path).err()),
                ("write", ws.write(path, "pwned").err()),
                ("metadata", ws.metadata(path).err()),
            ];
            for (operation, error) in errors {
                let error = error.unwrap_or_else(|| panic!("{operation} `{path}` was allowed"));
                assert!(
                    matches!(escape(&error), EscapeError::ThroughSymlink { .. }),
                    "{operation} `{path}`: {error}"
                );
            }
        }
        assert!(ws.read_dir("out").is_err());
        assert!(ws.open_dir("out").is_err());
        assert_eq!(
            ws.write("out/x.txt", "pwned").unwrap_err().to_string(),
            format!(
                "`out/x.txt` leads out of the workspace through a symlink (it reaches `{}`): \
                 use a path whose directories are inside the workspace",
                fixture.outside().join("x.txt").display()
            )
        );
        fixture.assert_outside_untouched();
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_within_the_workspace_is_followed() {
        use std::os::unix::fs::symlink;
        let fixture = Fixture::new();
        let ws = &fixture.ws;
        symlink("src", fixture.root().join("relative")).unwrap();
        symlink(fixture.root().join("src"), fixture.root().join("absolute")).unwrap();
        symlink("main.rs", fixture.root().join("src/link.rs")).unwrap();
        for path in ["relative/main.rs", "absolute/main.rs", "src/link.rs"] {
            assert_eq!(ws.read_to_string(path).unwrap(), "fn main() {}", "{path}");
            assert!(ws.metadata(path).unwrap().is_file(), "{path}");
        }
        ws.write("absolute/new.rs", "new").unwrap();
        assert_eq!(
            fs::read_to_string(fixture.root().join("src/new.rs")).unwrap(),
            "new"
        );
        ws.create("relative/other.rs")
            .unwrap()
            .write_all(b"other")
            .unwrap();
        assert_eq!(
            fs::read_to_string(fixture.root().join("src/other.rs")).unwrap(),
            "other"
        );
        assert_eq!(ws.read_dir("absolute").unwrap().count(), 4);
        ws.rename("absolute/new.rs", "relative/renamed.rs").unwrap();
        assert!(fixture.root().join("src/renamed.rs").exists());
        fixture.assert_outside_untouched();
    }

    #[cfg(unix)]
    #[test]
    fn writing_through_a_link_replaces_the_file_it_points_to_not_the_link() {
        use std::os::unix::fs::symlink;
        let fixture = Fixture::new();
        symlink("main.rs", fixture.root().join("src/link.rs")).unwrap();
        fixture.ws.write("src/link.rs", "fn main() { 1 }").unwrap();
        let link = fixture.root().join("src/link.rs");
        assert!(link.symlink_metadata().unwrap().is_symlink());
        assert_eq!(
            fs::read_to_string(fixture.root().join("src/main.rs")).unwrap(),
            "fn main() { 1 }"
        );
    }

    #[test]
    fn a_write_replaces_the_whole_file_and_leaves_nothing_beside_it() {
        let fixture = Fixture::new();
        let ws = &fixture.ws;
        let mut reader = ws.open("src/main.rs").unwrap();
        ws.write("src/main.rs", "fn main() { println!(\"new\") }")
            .unwrap();
        // A reader holding the old file still reads the old file whole.
        let mut old = String::new();
        reader.read_to_string(&mut old).unwrap();
        assert_eq!(old, "fn main() {}");
        assert_eq!(
            ws.read_to_string("src/main.rs").unwrap(),
            "fn main() { println!(\"new\") }"
        );
        let names: Vec<_> = fs::read_dir(fixture.root().join("src"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["main.rs"]);
    }

    #[test]
    fn a_write_to_a_path_naming_no_file_is_invalid_input() {
        let fixture = Fixture::new();
        for path in [".", "src/.."] {
            let error = fixture.ws.write(path, "x").unwrap_err();
            assert_eq!(error.kind(), ErrorKind::InvalidInput, "{path}: {error}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_write_keeps_the_permissions_of_the_file_it_replaces() {
        use std::os::unix::fs::PermissionsExt as _;
        let fixture = Fixture::new();
        let script = fixture.root().join("run.sh");
        fs::write(&script, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o750)).unwrap();
        fixture.ws.write("run.sh", "#!/bin/sh\necho hi\n").unwrap();
        let mode = fs::metadata(&script).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o750);
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_swapped_for_a_link_after_the_check_is_refused_at_the_io() {
        use std::os::unix::fs::symlink;
        let fixture = Fixture::new();
        let checked = fixture.ws.confine("path", "dir/file.txt");
        assert!(checked.is_inside());
        // After the check: `dir` appears, as a link out.
        symlink(fixture.outside(), fixture.root().join("dir")).unwrap();
        let error = fixture.ws.write("dir/file.txt", "pwned").unwrap_err();
        assert!(matches!(escape(&error), EscapeError::ThroughSymlink { .. }));
        let error = fixture.ws.create("dir/file.txt").unwrap_err();
        assert!(matches!(escape(&error), EscapeError::ThroughSymlink { .. }));
        fixture.assert_outside_untouched();
    }

    #[test]
    fn a_path_that_leads_out_again_when_retried_changed_in_between() {
        let fixture = Fixture::new();
        let mut lookups = Vec::new();
        let lookups = std::cell::RefCell::new(&mut lookups);
        let error = fixture
            .ws
            .attempt(Path::new("dir/file.txt"), |lookup| -> std::io::Result<()> {
                lookups.borrow_mut().push(lookup);
                // As cap-std refuses a walk that leaves the root, both times.
                Err(super::not_beneath())
            })
            .unwrap_err();
        assert_eq!(
            *lookups.borrow(),
            &[super::Lookup::AsWritten, super::Lookup::Followed]
        );
        assert_eq!(
            escape(&error),
            &EscapeError::Changed {
                path: PathBuf::from("dir/file.txt")
            }
        );
        assert!(error.to_string().contains("nothing was done there"));
    }

    #[cfg(unix)]
    #[test]
    fn a_path_under_another_root_is_handled_beneath_that_root() {
        use std::os::unix::fs::symlink;
        let fixture = Fixture::new();
        let second = fixture.dir.path().join("second");
        fs::create_dir(&second).unwrap();
        let ws = fixture.ws.clone().with_root(&second).unwrap();
        let second = second.canonicalize().unwrap();
        ws.write(second.join("notes.md"), "notes").unwrap();
        assert_eq!(
            fs::read_to_string(second.join("notes.md")).unwrap(),
            "notes"
        );
        // Moved from one root to the other.
        ws.rename(second.join("notes.md"), "notes.md").unwrap();
        assert_eq!(ws.read_to_string("notes.md").unwrap(), "notes");
        // A link from the first root into the second leads inside the workspace.
        symlink(&second, fixture.root().join("to-second")).unwrap();
        ws.write("to-second/linked.md", "linked").unwrap();
        assert_eq!(
            fs::read_to_string(second.join("linked.md")).unwrap(),
            "linked"
        );
        // The first workspace alone has no second root.
        let error = fixture.ws.write("to-second/x.md", "x").unwrap_err();
        assert!(matches!(escape(&error), EscapeError::ThroughSymlink { .. }));
        fixture.assert_outside_untouched();
    }

    #[cfg(unix)]
    #[test]
    fn the_root_is_the_directory_that_was_there_when_the_workspace_was_made() {
        use std::os::unix::fs::symlink;
        let fixture = Fixture::new();
        let root = fixture.root().to_owned();
        let moved = fixture.dir.path().join("moved");
        fs::rename(&root, &moved).unwrap();
        symlink(fixture.outside(), &root).unwrap();
        // The root's name now leads outside; the held root does not follow it.
        assert_eq!(
            fixture.ws.read_to_string("src/main.rs").unwrap(),
            "fn main() {}"
        );
        fixture.ws.write("written.txt", "here").unwrap();
        assert_eq!(
            fs::read_to_string(moved.join("written.txt")).unwrap(),
            "here"
        );
        fixture.assert_outside_untouched();
    }
}

//! The file system of a sandboxed command as bubblewrap (`bwrap`, the engine Claude Code's
//! sandbox uses on Linux) builds it: a mount namespace of its own in which the whole tree is a
//! read-only view of this one, the writable roots are bound writable again, every denied path
//! is covered (a file by an unreadable empty file, a directory by an empty unreadable
//! `tmpfs`), and `/dev` is a fresh one holding only `null`, `zero`, `full`, `random`,
//! `urandom`, `tty` and a private `shm`.
//!
//! What this holds beyond Landlock: nothing outside the writable roots changes, metadata
//! included (`chmod`, `chown`, `touch -d`, extended attributes fail with "Read-only file
//! system"); a denied file cannot be moved out from under its name (it is a mount point: "Device
//! or resource busy"), nor a denied folder's files reached at all; the paths of `Edit(..)` deny
//! rules are read-only even inside the workspace; and no device but the harmless ones is there
//! to open.
//!
//! Landlock still holds the network (its TCP rules) and the scopes (signals, abstract Unix
//! sockets), and the seccomp filter still holds devices and sockets: both are put on the thread
//! that starts `bwrap`, so `bwrap` and the command inherit them. Landlock's file rules cannot
//! come with them: a Landlock domain that handles file access forbids `mount`, which `bwrap`
//! needs; the mount namespace takes their place.
//!
//! The sandbox also runs in a user namespace of its own in which no further one can be made
//! (`--disable-userns`: the mounts cannot be rearranged from inside), with every capability
//! dropped (`--cap-drop ALL`, which matters when the agent runs as root).
//!
//! `bwrap` is used where it is installed (on the `PATH`, or `/usr/bin/bwrap`) and works: it is
//! tried once per process with the same options (user namespaces may be turned off, or
//! refused by AppArmor); where it does not, Landlock alone holds the files and
//! [`engine`](super::engine) says why.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

/// The options every sandboxed command starts with, before its own mounts.
const BASE: &[&str] = &[
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--unshare-user",
    "--disable-userns",
    "--cap-drop",
    "ALL",
];

/// A working `bwrap` program.
#[derive(Debug, Clone)]
pub(crate) struct Bubblewrap {
    /// Where it is.
    pub(crate) program: PathBuf,
    /// What `bwrap --version` says (`bubblewrap 0.8.0`).
    pub(crate) version: String,
}

/// The `bwrap` this process can use, or why there is none. Tried once per process.
pub(crate) fn find() -> Result<&'static Bubblewrap, &'static str> {
    static FOUND: OnceLock<Result<Bubblewrap, String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let program = locate().ok_or_else(|| {
                "bubblewrap is not installed (`bwrap` is on neither the PATH nor /usr/bin)"
                    .to_owned()
            })?;
            let version = Command::new(&program)
                .arg("--version")
                .stdin(Stdio::null())
                .output()
                .ok()
                .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
                .filter(|version| !version.is_empty())
                .unwrap_or_else(|| "bubblewrap (version unknown)".to_owned());
            try_it(&program).map_err(|why| format!("{version} at {}: {why}", program.display()))?;
            Ok(Bubblewrap { program, version })
        })
        .as_ref()
        .map_err(String::as_str)
}

fn locate() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    crate::shell::direct::find_on_path("bwrap", &path)
        .or_else(|| crate::shell::direct::find_on_path("bwrap", "/usr/bin".as_ref()))
}

/// Runs `/bin/sh -c :` under `program` with the options every command gets, on a thread with
/// `no_new_privs` set as a sandboxed command's is (a setuid `bwrap` would fail there).
fn try_it(program: &Path) -> Result<(), String> {
    let output = super::ruleset::on_a_thread_of_its_own("bwrap-probe", || {
        Command::new(program)
            .args(BASE)
            .args(["--", "/bin/sh", "-c", ":"])
            .stdin(Stdio::null())
            .output()
    })
    .map_err(|error| error.to_string())?;
    if output.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    Err(if said.is_empty() {
        format!("it failed ({})", output.status)
    } else {
        format!("it failed: {said}")
    })
}

/// What a command's mount namespace is made of, all paths resolved.
pub(crate) struct Mounts<'a> {
    /// Bound writable.
    pub(crate) writable: &'a [PathBuf],
    /// Bound read-only again, beneath a writable one (the `Edit(..)` deny rules).
    pub(crate) deny_write: &'a [PathBuf],
    /// Covered.
    pub(crate) deny_read: &'a [PathBuf],
    /// An empty file of mode 000 outside every writable path, laid over each denied file.
    pub(crate) unreadable: &'a Path,
}

impl Mounts<'_> {
    /// What is bound read-only for the denied write `path`: the path itself when it exists;
    /// else its nearest existing folder, when that lies beneath a writable path without
    /// being one (a command could otherwise make the denied file or folder: `mkdir -p
    /// config/deeper` under `Edit(./config/deeper/**)`), which keeps its other entries
    /// from being written too; else nothing. A folder missing right beneath a writable root
    /// (`Edit(./.claude/**)` with no `.claude`) cannot be held without making the whole root
    /// read-only or making the folder in the user's tree, and is not.
    fn read_only_for<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        if path.symlink_metadata().is_ok() {
            return Some(path);
        }
        let existing = path
            .ancestors()
            .skip(1)
            .find(|ancestor| ancestor.symlink_metadata().is_ok())?;
        let strictly_beneath_a_writable = self
            .writable
            .iter()
            .any(|root| existing.starts_with(root) && existing != root.as_path());
        strictly_beneath_a_writable.then_some(existing)
    }

    /// The mounts over the read-only tree, in order (the same for `bwrap` and for the
    /// sandbox's own namespaces).
    ///
    /// Later mounts cover earlier ones, so the order is: the writable roots, the folders on
    /// the way to a denied path beneath them (pinned), the read-only paths within them, the
    /// covers. A path beneath a covered folder is left out (the cover already hides it, and no
    /// mount point could be made in the read-only `tmpfs`); so is a denied path that no longer
    /// exists.
    pub(crate) fn steps(&self) -> Vec<Step<'_>> {
        let mut covered: Vec<&Path> = self.deny_read.iter().map(PathBuf::as_path).collect();
        covered.sort();
        covered.dedup();
        let covered: Vec<&Path> = covered
            .iter()
            .copied()
            .filter(|path| {
                !covered
                    .iter()
                    .any(|other| other != path && path.starts_with(other))
            })
            .collect();
        let hidden = |path: &Path| covered.iter().any(|cover| path.starts_with(cover));
        let mut steps = Vec::new();
        for path in self.writable.iter().filter(|path| !hidden(path)) {
            steps.push(Step::Writable(path));
        }
        let read_only: Vec<&Path> = self
            .deny_write
            .iter()
            .filter(|path| !hidden(path))
            .filter_map(|path| self.read_only_for(path))
            .collect();
        let covers: Vec<(&Path, bool)> = covered
            .iter()
            .filter_map(|path| Some((*path, path.symlink_metadata().ok()?.is_dir())))
            .collect();
        let denied = read_only.iter().chain(covers.iter().map(|(path, _)| path));
        for folder in self.on_the_way(denied.copied()) {
            if !hidden(folder) {
                steps.push(Step::Pin(folder));
            }
        }
        steps.extend(read_only.into_iter().map(Step::ReadOnly));
        for (path, is_dir) in covers {
            steps.push(if is_dir {
                Step::CoverFolder(path)
            } else {
                Step::CoverFile(path)
            });
        }
        steps
    }

    /// The folders strictly between a writable path and each `denied` path beneath it, parents
    /// first: a command could move one of them away, carrying the denied path's cover (or its
    /// read-only mount) with it, and the next view would find nothing at the denied path to
    /// hold. Each is bound to itself, and a mount point can be neither renamed nor removed
    /// (`Device or resource busy`), as Landlock alone grants no removal on the way.
    fn on_the_way<'p>(&self, denied: impl Iterator<Item = &'p Path>) -> Vec<&'p Path> {
        let mut folders: Vec<&Path> = Vec::new();
        for path in denied {
            let Some(root) = self
                .writable
                .iter()
                .filter(|root| path.starts_with(root) && path != root.as_path())
                .max_by_key(|root| root.as_os_str().len())
            else {
                continue;
            };
            for folder in path.ancestors().skip(1) {
                if folder == root.as_path() || !folder.starts_with(root) {
                    break;
                }
                let is_folder = folder
                    .symlink_metadata()
                    .is_ok_and(|metadata| metadata.is_dir());
                if is_folder && !folders.contains(&folder) {
                    folders.push(folder);
                }
            }
        }
        folders.sort();
        folders
    }

    /// The `bwrap` arguments for `steps`, up to and including the `--` before the command:
    /// everything read-only, then the steps (planned once by the caller, so that what a view
    /// is known by and what builds it cannot differ).
    pub(crate) fn render(&self, steps: &[Step<'_>]) -> Vec<OsString> {
        let mut arguments: Vec<OsString> = BASE.iter().map(OsString::from).collect();
        let mut push = |words: &[&std::ffi::OsStr]| {
            arguments.extend(words.iter().map(|word| word.to_os_string()));
        };
        for step in steps {
            match *step {
                Step::Writable(path) | Step::Pin(path) => {
                    push(&["--bind".as_ref(), path.as_os_str(), path.as_os_str()]);
                }
                Step::ReadOnly(path) => {
                    push(&["--ro-bind".as_ref(), path.as_os_str(), path.as_os_str()]);
                }
                Step::CoverFolder(path) => push(&[
                    "--perms".as_ref(),
                    "0000".as_ref(),
                    "--tmpfs".as_ref(),
                    path.as_os_str(),
                    "--remount-ro".as_ref(),
                    path.as_os_str(),
                ]),
                Step::CoverFile(path) => push(&[
                    "--ro-bind".as_ref(),
                    self.unreadable.as_os_str(),
                    path.as_os_str(),
                ]),
            }
        }
        arguments.push("--".into());
        arguments
    }
}

/// One mount over the read-only tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step<'a> {
    /// Bound writable again.
    Writable(&'a Path),
    /// A folder on the way to a denied path, bound to itself so that it cannot be moved.
    Pin(&'a Path),
    /// Bound read-only, beneath a writable one.
    ReadOnly(&'a Path),
    /// A denied folder, covered by an empty unreadable `tmpfs`.
    CoverFolder(&'a Path),
    /// A denied file, covered by the unreadable file.
    CoverFile(&'a Path),
}

impl Step<'_> {
    /// The path the step mounts onto.
    pub(crate) fn path(&self) -> &Path {
        match *self {
            Step::Writable(path)
            | Step::Pin(path)
            | Step::ReadOnly(path)
            | Step::CoverFolder(path)
            | Step::CoverFile(path) => path,
        }
    }
}

/// Starts `bwrap` at `program` with `arguments` around the holder of a kept view
/// (`kept::HOLDER`). On a thread with `no_new_privs`, as for the commands (a setuid `bwrap`
/// would behave differently).
pub(crate) fn spawn_holder(program: &Path, arguments: &[OsString]) -> std::io::Result<Child> {
    super::ruleset::on_a_thread_of_its_own("bwrap-view", || {
        let mut holder = super::kept::piped(Command::new(program));
        holder.args(arguments).args(super::kept::HOLDER).spawn()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(arguments: &[OsString]) -> Vec<String> {
        arguments
            .iter()
            .map(|argument| argument.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn writable_roots_come_after_the_read_only_root_and_covers_come_last() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("secrets/deeper")).unwrap();
        std::fs::write(root.join(".env"), "S=1").unwrap();
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        let unreadable = root.join("unreadable");
        let writable = [root.clone()];
        let deny_write = [root.join(".claude")];
        let deny_read = [
            root.join("secrets/deeper"),
            root.join("secrets"),
            root.join(".env"),
            root.join("gone"),
        ];
        let arguments = strings(&{
            let mounts = Mounts {
                writable: &writable,
                deny_write: &deny_write,
                deny_read: &deny_read,
                unreadable: &unreadable,
            };
            mounts.render(&mounts.steps())
        });
        let at = |word: &str| arguments.iter().position(|argument| argument == word);
        let root_text = root.display().to_string();
        let position_of = |path: &Path| {
            let text = path.display().to_string();
            arguments.iter().position(|argument| *argument == text)
        };
        assert_eq!(arguments[..3], ["--ro-bind", "/", "/"]);
        assert!(at("--bind") < position_of(&root.join(".claude")));
        assert_eq!(
            arguments.iter().filter(|a| **a == root_text).count(),
            2,
            "{arguments:?}"
        );
        assert!(position_of(&root.join("secrets/deeper")).is_none());
        assert!(position_of(&root.join("gone")).is_none());
        let cover = position_of(&root.join(".env")).unwrap();
        assert_eq!(arguments[cover - 1], unreadable.display().to_string());
        let tmpfs = position_of(&root.join("secrets")).unwrap();
        assert_eq!(arguments[tmpfs - 1], "--tmpfs");
        assert_eq!(arguments.last().map(String::as_str), Some("--"));
    }
}

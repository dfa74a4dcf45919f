//! Bubblewrap's view of the file system built by the sandbox itself, for machines without
//! `bwrap`: the same mounts ([`Mounts::steps`]), made with the kernel's own calls in a process
//! that then holds them for the `kept` module to open and every command to enter.
//!
//! The process is a shell that prints its pid and waits (the holder `kept` expects). Between
//! fork and exec it runs a script of system calls prepared beforehand (only system calls
//! there: no allocation between fork and exec):
//!
//! 1. a user and a mount namespace of its own (`unshare`), this user mapped to itself, and no
//!    further user namespace allowed in it (`/proc/sys/user/max_user_namespaces` set to 0,
//!    as `bwrap --disable-userns` does; where `/proc/sys` is read-only, as in some
//!    containers, this is skipped and the mounts stay locked all the same: a namespace made
//!    below cannot take them apart);
//! 2. no mount propagated in or out (`MS_PRIVATE`), and the whole tree read-only
//!    (`mount_setattr(2)` with `AT_RECURSIVE`, Linux 5.12);
//! 3. a fresh `/dev` (`tmpfs`) holding `null`, `zero`, `full`, `random`, `urandom` and `tty`
//!    (each the host's node, cloned with `open_tree(2)` before the `tmpfs` hides them), a
//!    private `shm`, a new `pts`, and the `fd`, `stdin`, `stdout` and `stderr` links; then
//!    `/dev` itself read-only;
//! 4. the steps of the plan in order: writable paths bound writable again, the folders on
//!    the way to a denied path bound to themselves (a mount point cannot be moved), `Edit(..)`
//!    deny paths bound read-only, denied folders covered by an empty `tmpfs` of mode 000 and
//!    denied files by the unreadable file, each cover read-only.
//!
//! Where a step cannot be made (no user namespaces, `mount_setattr` missing), the holder is
//! not started and Landlock alone holds the files, as it does where views cannot be kept.

use std::ffi::{CString, OsStr};
use std::io;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use super::bubblewrap::{Mounts, Step};

/// `mount_setattr(2)`'s attribute: read-only.
const MOUNT_ATTR_RDONLY: u64 = 0x1;
/// `open_tree(2)`'s flag: a copy of the mount, detached.
const OPEN_TREE_CLONE: libc::c_uint = 1;
/// `move_mount(2)`'s flag: the source is the descriptor itself.
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;

/// The devices a command's `/dev` holds, as bubblewrap's `--dev` gives them.
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom", "tty"];

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// One system call of the script, everything it names made before the fork.
#[derive(Debug)]
enum Call {
    /// `unshare(flags)`.
    Unshare(libc::c_int),
    /// Writes `text` to the file at `path` (which exists).
    Write { path: CString, text: Vec<u8> },
    /// `mount(source, target, fstype, flags, data)`.
    Mount {
        source: Option<CString>,
        target: CString,
        fstype: Option<CString>,
        flags: libc::c_ulong,
        data: Option<CString>,
    },
    /// `mount_setattr(target)` setting and clearing attributes, on the whole tree beneath it
    /// or on its own mount only.
    Attributes {
        target: CString,
        recursive: bool,
        set: u64,
        clear: u64,
    },
    /// `open_tree(source, OPEN_TREE_CLONE)`, the descriptor kept in `slot`.
    Clone { source: CString, slot: usize },
    /// `move_mount` of the clone in `slot` onto `target`.
    Place { slot: usize, target: CString },
    /// An empty file at `path`, a mount point.
    File(CString),
    /// A directory at `path`.
    Folder(CString),
    /// A symbolic link at `link` to `target`.
    Link { target: CString, link: CString },
}

/// A call and whether the view can do without it (a device the host lacks, `pts`).
#[derive(Debug)]
struct Line {
    call: Call,
    optional: bool,
}

/// The script that builds the view of `mounts` in a process of its own.
#[derive(Debug)]
pub(crate) struct Script {
    lines: Vec<Line>,
    /// The clones' descriptors, filled in the child (one per device).
    slots: Vec<libc::c_int>,
}

fn text(path: impl AsRef<OsStr>) -> io::Result<CString> {
    Ok(CString::new(path.as_ref().as_bytes())?)
}

impl Script {
    /// The calls that build the view `mounts` describes.
    pub(crate) fn new(mounts: &Mounts<'_>) -> io::Result<Script> {
        let mut lines = Vec::new();
        let mut push = |call: Call, optional: bool| lines.push(Line { call, optional });
        // SAFETY: getuid and getgid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        push(
            Call::Unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS),
            false,
        );
        for (path, line) in [
            ("/proc/self/setgroups", "deny".to_owned()),
            ("/proc/self/uid_map", format!("{uid} {uid} 1\n")),
            ("/proc/self/gid_map", format!("{gid} {gid} 1\n")),
        ] {
            let call = Call::Write {
                path: text(path)?,
                text: line.into_bytes(),
            };
            push(call, false);
        }
        let max_user_namespaces = Call::Write {
            path: text("/proc/sys/user/max_user_namespaces")?,
            text: b"0\n".to_vec(),
        };
        push(max_user_namespaces, true);
        let root = text("/")?;
        let mount = |target: &CString, flags: libc::c_ulong| Call::Mount {
            source: None,
            target: target.clone(),
            fstype: None,
            flags,
            data: None,
        };
        // Private, not a slave of this namespace: a mount made outside later never shows in
        // the view, not even in a job that outlives the view's use.
        push(mount(&root, libc::MS_REC | libc::MS_PRIVATE), false);
        let read_only = |target: CString, recursive: bool| Call::Attributes {
            target,
            recursive,
            set: MOUNT_ATTR_RDONLY,
            clear: 0,
        };
        push(read_only(root.clone(), true), false);
        Self::dev(&mut push)?;
        for step in mounts.steps() {
            match step {
                Step::Writable(path) | Step::Pin(path) => {
                    let path = text(path)?;
                    push(bind(&path, &path), false);
                    // A mount the host made read-only stays so (the kernel keeps it locked):
                    // the whole tree first, then the root's own mount where that is refused.
                    let writable = |recursive| Call::Attributes {
                        target: path.clone(),
                        recursive,
                        set: 0,
                        clear: MOUNT_ATTR_RDONLY,
                    };
                    push(writable(true), true);
                    push(writable(false), true);
                }
                Step::ReadOnly(path) => {
                    let path = text(path)?;
                    push(bind(&path, &path), false);
                    push(read_only(path, true), false);
                }
                Step::CoverFolder(path) => {
                    let path = text(path)?;
                    let cover = Call::Mount {
                        source: Some(text("tmpfs")?),
                        target: path.clone(),
                        fstype: Some(text("tmpfs")?),
                        flags: libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                        data: Some(text("mode=000")?),
                    };
                    push(cover, false);
                    push(read_only(path, false), false);
                }
                Step::CoverFile(path) => {
                    let path = text(path)?;
                    push(bind(&text(mounts.unreadable)?, &path), false);
                    push(read_only(path, false), false);
                }
            }
        }
        let slots = vec![-1; DEVICES.len()];
        Ok(Script { lines, slots })
    }

    /// The fresh `/dev`: the devices cloned from the host's before a `tmpfs` covers it.
    fn dev(push: &mut impl FnMut(Call, bool)) -> io::Result<()> {
        for (slot, device) in DEVICES.iter().enumerate() {
            let source = text(format!("/dev/{device}"))?;
            push(Call::Clone { source, slot }, true);
        }
        let dev = text("/dev")?;
        let tmpfs = |target: &CString, data: &str| -> io::Result<Call> {
            Ok(Call::Mount {
                source: Some(text("tmpfs")?),
                target: target.clone(),
                fstype: Some(text("tmpfs")?),
                flags: libc::MS_NOSUID | libc::MS_NODEV,
                data: Some(text(data)?),
            })
        };
        push(tmpfs(&dev, "mode=0755")?, false);
        for (slot, device) in DEVICES.iter().enumerate() {
            let target = text(format!("/dev/{device}"))?;
            push(Call::File(target.clone()), true);
            push(Call::Place { slot, target }, true);
        }
        let shm = text("/dev/shm")?;
        push(Call::Folder(shm.clone()), false);
        push(tmpfs(&shm, "mode=1777")?, false);
        let pts = text("/dev/pts")?;
        push(Call::Folder(pts.clone()), false);
        let devpts = Call::Mount {
            source: Some(text("devpts")?),
            target: pts,
            fstype: Some(text("devpts")?),
            flags: libc::MS_NOSUID | libc::MS_NOEXEC,
            data: Some(text("newinstance,ptmxmode=0666,mode=620")?),
        };
        push(devpts, true);
        for (target, link) in [
            ("pts/ptmx", "/dev/ptmx"),
            ("/proc/self/fd", "/dev/fd"),
            ("/proc/self/fd/0", "/dev/stdin"),
            ("/proc/self/fd/1", "/dev/stdout"),
            ("/proc/self/fd/2", "/dev/stderr"),
        ] {
            let (target, link) = (text(target)?, text(link)?);
            push(Call::Link { target, link }, false);
        }
        push(
            Call::Attributes {
                target: dev,
                recursive: false,
                set: MOUNT_ATTR_RDONLY,
                clear: 0,
            },
            false,
        );
        Ok(())
    }

    /// Runs every line in order; the first required one that fails ends it with its error.
    /// Async-signal-safe: system calls on what was made before the fork, nothing allocated.
    fn run(&mut self) -> io::Result<()> {
        for line in &self.lines {
            // SAFETY: each call takes NUL-terminated strings and buffers owned by the script,
            // alive across the call, and descriptors it made itself.
            let done = unsafe { line.call.make(&mut self.slots) };
            if !done && !line.optional {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// Starts the holder: a shell that prints its pid and waits for its stdin to close, in the
    /// view this script builds.
    pub(crate) fn spawn_holder(mut self) -> io::Result<Child> {
        let mut holder = Command::new("/bin/sh");
        holder
            .args(["-c", "echo $$; read -r line"])
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // SAFETY: the closure runs between fork and exec and only makes system calls on the
        // strings and buffers the script holds (see `Script::run`).
        unsafe {
            holder.pre_exec(move || self.run());
        }
        holder.spawn()
    }
}

fn bind(source: &CString, target: &CString) -> Call {
    Call::Mount {
        source: Some(source.clone()),
        target: target.clone(),
        fstype: None,
        flags: libc::MS_BIND | libc::MS_REC,
        data: None,
    }
}

impl Call {
    /// Makes the call; `false` when it failed (the reason in `errno`).
    ///
    /// # Safety
    /// Between fork and exec only: it changes the calling process's namespaces and mounts.
    unsafe fn make(&self, slots: &mut [libc::c_int]) -> bool {
        let pointer =
            |text: &Option<CString>| text.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
        // SAFETY (each arm): NUL-terminated strings and buffers owned by `self`; descriptors
        // from `slots`, made by `Clone` in this same process.
        unsafe {
            match self {
                Call::Unshare(flags) => libc::unshare(*flags) == 0,
                Call::Write { path, text } => {
                    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                    if fd < 0 {
                        return false;
                    }
                    let written = libc::write(fd, text.as_ptr().cast(), text.len());
                    libc::close(fd);
                    usize::try_from(written).is_ok_and(|written| written == text.len())
                }
                Call::Mount {
                    source,
                    target,
                    fstype,
                    flags,
                    data,
                } => {
                    libc::mount(
                        pointer(source),
                        target.as_ptr(),
                        pointer(fstype),
                        *flags,
                        pointer(data).cast(),
                    ) == 0
                }
                Call::Attributes {
                    target,
                    recursive,
                    set,
                    clear,
                } => {
                    let attributes = MountAttr {
                        attr_set: *set,
                        attr_clr: *clear,
                        propagation: 0,
                        userns_fd: 0,
                    };
                    let flags = if *recursive { libc::AT_RECURSIVE } else { 0 };
                    libc::syscall(
                        libc::SYS_mount_setattr,
                        libc::AT_FDCWD,
                        target.as_ptr(),
                        flags,
                        &raw const attributes,
                        size_of::<MountAttr>(),
                    ) == 0
                }
                Call::Clone { source, slot } => {
                    let fd = libc::syscall(
                        libc::SYS_open_tree,
                        libc::AT_FDCWD,
                        source.as_ptr(),
                        OPEN_TREE_CLONE | libc::O_CLOEXEC.cast_unsigned(),
                    );
                    match (libc::c_int::try_from(fd), slots.get_mut(*slot)) {
                        (Ok(fd), Some(kept)) if fd >= 0 => {
                            *kept = fd;
                            true
                        }
                        _ => false,
                    }
                }
                Call::Place { slot, target } => {
                    let fd = slots.get(*slot).copied().unwrap_or(-1);
                    fd >= 0
                        && libc::syscall(
                            libc::SYS_move_mount,
                            fd,
                            c"".as_ptr(),
                            libc::AT_FDCWD,
                            target.as_ptr(),
                            MOVE_MOUNT_F_EMPTY_PATH,
                        ) == 0
                }
                Call::File(path) => {
                    let fd = libc::open(
                        path.as_ptr(),
                        libc::O_WRONLY | libc::O_CREAT | libc::O_CLOEXEC,
                        0o666,
                    );
                    fd >= 0 && libc::close(fd) == 0
                }
                Call::Folder(path) => libc::mkdir(path.as_ptr(), 0o755) == 0,
                Call::Link { target, link } => libc::symlink(target.as_ptr(), link.as_ptr()) == 0,
            }
        }
    }
}

/// Whether the sandbox can build its own views here, or why not: asked once per process, by
/// building the view of nothing and starting `sh -c :` in it.
pub(crate) fn works() -> Result<(), &'static str> {
    static WORKS: OnceLock<Result<(), String>> = OnceLock::new();
    WORKS
        .get_or_init(|| {
            let unreadable = std::env::temp_dir();
            let mounts = Mounts {
                writable: &[],
                deny_write: &[],
                deny_read: &[],
                unreadable: &unreadable,
            };
            let script = Script::new(&mounts).map_err(|error| error.to_string())?;
            super::kept::try_view(&key(&mounts), || script.spawn_holder())
                .map(drop)
                .map_err(|error| format!("its own namespaces could not be made here: {error}"))
        })
        .as_ref()
        .map(|_| ())
        .map_err(String::as_str)
}

/// What tells one view of the sandbox's own from another (and from `bwrap`'s of the same
/// mounts): bubblewrap's arguments for it, after a word of its own.
pub(crate) fn key(mounts: &Mounts<'_>) -> Vec<std::ffi::OsString> {
    let mut key = vec![std::ffi::OsString::from("(the sandbox's own namespaces)")];
    key.extend(mounts.arguments());
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn described(script: &Script) -> Vec<String> {
        script
            .lines
            .iter()
            .map(|line| format!("{:?}", line.call))
            .collect()
    }

    #[test]
    fn the_tree_is_made_read_only_before_anything_is_bound_writable() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("secrets")).unwrap();
        std::fs::write(root.join(".env"), "S=1").unwrap();
        let writable = [root.clone()];
        let deny_read = [root.join("secrets"), root.join(".env")];
        let deny_write: [PathBuf; 0] = [];
        let unreadable = root.join("unreadable");
        let script = Script::new(&Mounts {
            writable: &writable,
            deny_write: &deny_write,
            deny_read: &deny_read,
            unreadable: &unreadable,
        })
        .unwrap();
        let lines = described(&script);
        let at = |needle: &str| {
            lines
                .iter()
                .position(|line| line.contains(needle))
                .unwrap_or_else(|| panic!("{needle} in {lines:#?}"))
        };
        assert!(lines[0].starts_with("Unshare"), "{lines:#?}");
        let read_only_root = at("Attributes { target: \"/\", recursive: true, set: 1");
        let dev = at("target: \"/dev\", fstype: Some(\"tmpfs\")");
        let bound = at(&format!("target: {:?}, fstype: None", text(&root).unwrap()));
        let covered = at(&format!("{:?}", text(root.join("secrets")).unwrap()));
        assert!(
            read_only_root < dev && dev < bound && bound < covered,
            "{lines:#?}"
        );
        // Each device is cloned before the tmpfs hides the host's.
        assert!(at("Clone { source: \"/dev/null\"") < dev, "{lines:#?}");
        assert!(
            at("Place { slot: 0, target: \"/dev/null\"") > dev,
            "{lines:#?}"
        );
        assert!(!script.lines.last().unwrap().optional);
    }
}

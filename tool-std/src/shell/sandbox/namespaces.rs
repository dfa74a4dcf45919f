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
//! 4. the steps of the plan in order, each made onto the descriptor of its target, opened with
//!    no link followed anywhere on its path and checked against the identity recorded when
//!    the view was planned (a folder a command swapped for a link or for another folder in
//!    between fails the build, rather than the cover landing elsewhere): writable paths bound
//!    writable again, the folders on the way to a denied path bound to themselves (a mount
//!    point cannot be moved), `Edit(..)` deny paths bound read-only, denied folders covered by an empty `tmpfs` of mode 000 and
//!    denied files by the unreadable file, each cover read-only.
//!
//! Where a step cannot be made (no user namespaces, `mount_setattr` missing), the holder is
//! not started and Landlock alone holds the files, as it does where views cannot be kept.

use std::ffi::{CString, OsStr};
use std::io;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, Command};
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
    /// Opens `path` (`O_PATH`, no link followed anywhere on it) into `slot`, and checks that
    /// it is the file `expect` names (device, inode), if any; `ESTALE` when it is not.
    Open {
        path: CString,
        expect: Option<(u64, u64)>,
        slot: usize,
    },
    /// A detached copy (`open_tree`) of the mount at the descriptor in `at` (with the mounts
    /// beneath it when `recursive`), into `slot`.
    Tree {
        at: usize,
        recursive: bool,
        slot: usize,
    },
    /// `mount_setattr` on the mount at the descriptor in `slot` (attached or detached), or on
    /// the whole tree beneath it when `recursive`: `set` and `clear` attributes.
    Attributes {
        slot: usize,
        recursive: bool,
        set: u64,
        clear: u64,
    },
    /// A new `tmpfs` of mode 000, read-only, detached, into `slot` (`fsopen`, `fsmount`).
    Tmpfs { slot: usize },
    /// `move_mount` of the detached tree in `tree` onto the descriptor in `onto`.
    Attach { tree: usize, onto: usize },
    /// An empty file at `path`, a mount point.
    File(CString),
    /// A directory at `path`.
    Folder(CString),
    /// A symbolic link at `link` to `target`.
    Link { target: CString, link: CString },
}

/// A call and whether the view can do without it.
#[derive(Debug)]
struct Line {
    call: Call,
    optional: bool,
}

/// The script that builds the view of `mounts` in a process of its own.
#[derive(Debug, Default)]
pub(crate) struct Script {
    lines: Vec<Line>,
    /// The descriptors the script opens, filled in the child, one slot each.
    slots: Vec<libc::c_int>,
}

fn text(path: impl AsRef<OsStr>) -> io::Result<CString> {
    Ok(CString::new(path.as_ref().as_bytes())?)
}

/// Whether the view can do without a line (a device the host lacks, `pts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Required,
    Optional,
}

impl Script {
    /// The calls that build the view of `steps` (planned from `mounts`), each mount's target
    /// checked against `recorded` (the device and inode recorded for a path when the view was
    /// planned; not for a path under `/dev`, which is the view's own).
    pub(crate) fn new(
        mounts: &Mounts<'_>,
        steps: &[Step<'_>],
        recorded: super::kept::Recorded<'_>,
    ) -> io::Result<Script> {
        use Need::{Optional, Required};
        let mut script = Script::default();
        // SAFETY: getuid and getgid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        script.push(
            Call::Unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS),
            Required,
        );
        for (path, line, need) in [
            ("/proc/self/setgroups", "deny".to_owned(), Required),
            ("/proc/self/uid_map", format!("{uid} {uid} 1\n"), Required),
            ("/proc/self/gid_map", format!("{gid} {gid} 1\n"), Required),
            (
                "/proc/sys/user/max_user_namespaces",
                "0\n".to_owned(),
                Optional,
            ),
        ] {
            let call = Call::Write {
                path: text(path)?,
                text: line.into_bytes(),
            };
            script.push(call, need);
        }
        // Private, not a slave of this namespace: a mount made outside later never shows in
        // the view, not even in a job that outlives the view's use.
        let private = Call::Mount {
            source: None,
            target: text("/")?,
            fstype: None,
            flags: libc::MS_REC | libc::MS_PRIVATE,
            data: None,
        };
        script.push(private, Required);
        let root = script.open("/", None, Required)?;
        script.read_only(root, true, Required);
        script.dev()?;
        // Each mount lands on the folder or file the view was planned for: its target is
        // opened without following a link anywhere on its path and checked against the
        // identity recorded for it, and the mount is made onto that descriptor, not onto a
        // path a command could swap in between (a folder for a link, or for another folder).
        let open = |script: &mut Script, path: &Path| -> io::Result<usize> {
            let expect = if path.starts_with("/dev") {
                None
            } else {
                Some(recorded(path).ok_or_else(|| {
                    io::Error::other(format!(
                        "{} was not there when the view was planned",
                        path.display()
                    ))
                })?)
            };
            script.open(path, expect, Required)
        };
        for step in steps {
            let onto = open(&mut script, step.path())?;
            let tree = match *step {
                Step::Writable(_) | Step::Pin(_) => {
                    let copy = script.tree(onto, true, Required);
                    // A mount the host made read-only stays so (the kernel keeps it locked):
                    // the whole tree first, then the root's own mount where that is refused.
                    for recursive in [true, false] {
                        let writable = Call::Attributes {
                            slot: copy,
                            recursive,
                            set: 0,
                            clear: MOUNT_ATTR_RDONLY,
                        };
                        script.push(writable, Optional);
                    }
                    copy
                }
                Step::ReadOnly(_) => {
                    let copy = script.tree(onto, true, Required);
                    script.read_only(copy, true, Required);
                    copy
                }
                Step::CoverFolder(_) => {
                    let cover = script.slot();
                    script.push(Call::Tmpfs { slot: cover }, Required);
                    cover
                }
                Step::CoverFile(_) => {
                    let unreadable = open(&mut script, mounts.unreadable)?;
                    let copy = script.tree(unreadable, false, Required);
                    script.read_only(copy, false, Required);
                    copy
                }
            };
            script.attach(tree, onto, Required);
        }
        Ok(script)
    }

    fn push(&mut self, call: Call, need: Need) {
        self.lines.push(Line {
            call,
            optional: need == Need::Optional,
        });
    }

    /// A new slot for a descriptor.
    fn slot(&mut self) -> usize {
        self.slots.push(-1);
        self.slots.len() - 1
    }

    /// Opens `path` into a new slot, checked against `expect` when given.
    fn open(
        &mut self,
        path: impl AsRef<Path>,
        expect: Option<(u64, u64)>,
        need: Need,
    ) -> io::Result<usize> {
        let slot = self.slot();
        let path = text(path.as_ref())?;
        self.push(Call::Open { path, expect, slot }, need);
        Ok(slot)
    }

    /// A detached copy of the mount at the descriptor in `at`, into a new slot.
    fn tree(&mut self, at: usize, recursive: bool, need: Need) -> usize {
        let slot = self.slot();
        self.push(
            Call::Tree {
                at,
                recursive,
                slot,
            },
            need,
        );
        slot
    }

    /// The mount at the descriptor in `slot` (and beneath it when `recursive`) read-only.
    fn read_only(&mut self, slot: usize, recursive: bool, need: Need) {
        let call = Call::Attributes {
            slot,
            recursive,
            set: MOUNT_ATTR_RDONLY,
            clear: 0,
        };
        self.push(call, need);
    }

    /// The detached tree in `tree` mounted onto the descriptor in `onto`.
    fn attach(&mut self, tree: usize, onto: usize, need: Need) {
        self.push(Call::Attach { tree, onto }, need);
    }

    /// The fresh `/dev`: the devices cloned from the host's before a `tmpfs` covers it, each
    /// mounted onto an empty file of the same name in it; then `/dev` read-only.
    fn dev(&mut self) -> io::Result<()> {
        use Need::{Optional, Required};
        let mut clones = Vec::new();
        for device in DEVICES {
            let at = self.open(format!("/dev/{device}"), None, Optional)?;
            clones.push(self.tree(at, false, Optional));
        }
        let tmpfs = |target: &str, data: &str| -> io::Result<Call> {
            Ok(Call::Mount {
                source: Some(text("tmpfs")?),
                target: text(target)?,
                fstype: Some(text("tmpfs")?),
                flags: libc::MS_NOSUID | libc::MS_NODEV,
                data: Some(text(data)?),
            })
        };
        self.push(tmpfs("/dev", "mode=0755")?, Required);
        for (device, clone) in DEVICES.iter().zip(clones) {
            let target = format!("/dev/{device}");
            self.push(Call::File(text(&target)?), Optional);
            let onto = self.open(target, None, Optional)?;
            self.attach(clone, onto, Optional);
        }
        self.push(Call::Folder(text("/dev/shm")?), Required);
        self.push(tmpfs("/dev/shm", "mode=1777")?, Required);
        self.push(Call::Folder(text("/dev/pts")?), Required);
        let devpts = Call::Mount {
            source: Some(text("devpts")?),
            target: text("/dev/pts")?,
            fstype: Some(text("devpts")?),
            flags: libc::MS_NOSUID | libc::MS_NOEXEC,
            data: Some(text("newinstance,ptmxmode=0666,mode=620")?),
        };
        self.push(devpts, Optional);
        for (target, link) in [
            ("pts/ptmx", "/dev/ptmx"),
            ("/proc/self/fd", "/dev/fd"),
            ("/proc/self/fd/0", "/dev/stdin"),
            ("/proc/self/fd/1", "/dev/stdout"),
            ("/proc/self/fd/2", "/dev/stderr"),
        ] {
            let (target, link) = (text(target)?, text(link)?);
            self.push(Call::Link { target, link }, Required);
        }
        let dev = self.open("/dev", None, Required)?;
        self.read_only(dev, false, Required);
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

    /// Starts the holder (`kept::HOLDER`) in the view this script builds.
    pub(crate) fn spawn_holder(mut self) -> io::Result<Child> {
        let [shell, arguments @ ..] = super::kept::HOLDER;
        let mut holder = super::kept::piped(Command::new(shell));
        holder.args(arguments).current_dir("/");
        // SAFETY: the closure runs between fork and exec and only makes system calls on the
        // strings and buffers the script holds (see `Script::run`).
        unsafe {
            holder.pre_exec(move || self.run());
        }
        holder.spawn()
    }
}

/// `struct open_how` of `openat2(2)`.
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

/// `openat2(2)`'s resolve flag: no symbolic link anywhere on the path.
const RESOLVE_NO_SYMLINKS: u64 = 0x04;
/// `fsconfig(2)` commands.
const FSCONFIG_SET_STRING: libc::c_uint = 1;
const FSCONFIG_CMD_CREATE: libc::c_uint = 6;
/// `mount_setattr(2)` attributes of a cover.
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;
const MOUNT_ATTR_NOEXEC: u64 = 0x8;
/// `move_mount(2)`'s flag: the target is the descriptor itself.
const MOVE_MOUNT_T_EMPTY_PATH: libc::c_uint = 0x40;

impl Call {
    /// Makes the call; `false` when it failed (the reason in `errno`).
    ///
    /// # Safety
    /// Between fork and exec only: it changes the calling process's namespaces and mounts.
    unsafe fn make(&self, slots: &mut [libc::c_int]) -> bool {
        let pointer =
            |text: &Option<CString>| text.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
        // SAFETY (each arm): NUL-terminated strings and buffers owned by `self`; descriptors
        // from `slots`, opened by this script in this same process.
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
                Call::Open { path, expect, slot } => {
                    let how = OpenHow {
                        flags: (libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC) as u64,
                        mode: 0,
                        resolve: RESOLVE_NO_SYMLINKS,
                    };
                    let fd = libc::syscall(
                        libc::SYS_openat2,
                        libc::AT_FDCWD,
                        path.as_ptr(),
                        &raw const how,
                        size_of::<OpenHow>(),
                    );
                    let Ok(fd) = libc::c_int::try_from(fd) else {
                        return false;
                    };
                    if fd < 0 {
                        return false;
                    }
                    let mut stat: libc::stat = std::mem::zeroed();
                    if libc::fstat(fd, &raw mut stat) != 0 {
                        return false;
                    }
                    if expect.is_some_and(|expect| (stat.st_dev, stat.st_ino) != expect) {
                        *libc::__errno_location() = libc::ESTALE;
                        return false;
                    }
                    keep(slots, *slot, fd)
                }
                Call::Tree {
                    at,
                    recursive,
                    slot,
                } => {
                    let recursive = if *recursive { libc::AT_RECURSIVE } else { 0 };
                    let flags = OPEN_TREE_CLONE
                        | libc::O_CLOEXEC.cast_unsigned()
                        | (libc::AT_EMPTY_PATH | recursive).cast_unsigned();
                    let fd = libc::syscall(
                        libc::SYS_open_tree,
                        descriptor(slots, *at),
                        c"".as_ptr(),
                        flags,
                    );
                    libc::c_int::try_from(fd).is_ok_and(|fd| fd >= 0 && keep(slots, *slot, fd))
                }
                Call::Attributes {
                    slot,
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
                    let recursive = if *recursive { libc::AT_RECURSIVE } else { 0 };
                    libc::syscall(
                        libc::SYS_mount_setattr,
                        descriptor(slots, *slot),
                        c"".as_ptr(),
                        libc::AT_EMPTY_PATH | recursive,
                        &raw const attributes,
                        size_of::<MountAttr>(),
                    ) == 0
                }
                Call::Tmpfs { slot } => {
                    let context = libc::syscall(libc::SYS_fsopen, c"tmpfs".as_ptr(), 1);
                    let Ok(context) = libc::c_int::try_from(context) else {
                        return false;
                    };
                    if context < 0 {
                        return false;
                    }
                    let made = libc::syscall(
                        libc::SYS_fsconfig,
                        context,
                        FSCONFIG_SET_STRING,
                        c"mode".as_ptr(),
                        c"000".as_ptr(),
                        0,
                    ) == 0
                        && libc::syscall(
                            libc::SYS_fsconfig,
                            context,
                            FSCONFIG_CMD_CREATE,
                            std::ptr::null::<libc::c_char>(),
                            std::ptr::null::<libc::c_void>(),
                            0,
                        ) == 0;
                    let mount = if made {
                        libc::syscall(
                            libc::SYS_fsmount,
                            context,
                            1,
                            MOUNT_ATTR_RDONLY
                                | MOUNT_ATTR_NOSUID
                                | MOUNT_ATTR_NODEV
                                | MOUNT_ATTR_NOEXEC,
                        )
                    } else {
                        -1
                    };
                    libc::close(context);
                    libc::c_int::try_from(mount).is_ok_and(|fd| fd >= 0 && keep(slots, *slot, fd))
                }
                Call::Attach { tree, onto } => {
                    libc::syscall(
                        libc::SYS_move_mount,
                        descriptor(slots, *tree),
                        c"".as_ptr(),
                        descriptor(slots, *onto),
                        c"".as_ptr(),
                        MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH,
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

/// Keeps `fd` in `slots[slot]`; `false` (and the descriptor closed) when there is no such
/// slot. Async-signal-safe.
fn keep(slots: &mut [libc::c_int], slot: usize, fd: libc::c_int) -> bool {
    match slots.get_mut(slot) {
        Some(kept) => {
            *kept = fd;
            true
        }
        None => {
            // SAFETY: `fd` was just opened by the caller and is owned by nobody else.
            unsafe { libc::close(fd) };
            false
        }
    }
}

/// The descriptor in `slots[slot]`, or -1 (which every call refuses with `EBADF`).
fn descriptor(slots: &[libc::c_int], slot: usize) -> libc::c_int {
    slots.get(slot).copied().unwrap_or(-1)
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
            let steps = mounts.steps();
            super::kept::try_view(&key(&mounts, &steps), |identity| {
                Script::new(&mounts, &steps, identity)?.spawn_holder()
            })
            .map(drop)
            .map_err(|error| format!("its own namespaces could not be made here: {error}"))
        })
        .as_ref()
        .map(|_| ())
        .map_err(String::as_str)
}

/// What tells one view of the sandbox's own from another (and from `bwrap`'s of the same
/// mounts): bubblewrap's arguments for it, after a word of its own.
pub(crate) fn key(mounts: &Mounts<'_>, steps: &[Step<'_>]) -> Vec<std::ffi::OsString> {
    let mut key = vec![std::ffi::OsString::from("(the sandbox's own namespaces)")];
    key.extend(mounts.render(steps));
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

    /// Identities as the plan records them (`kept` pins the same).
    fn planned(path: &std::path::Path) -> Option<(u64, u64)> {
        use std::os::unix::fs::MetadataExt as _;
        let metadata = path.symlink_metadata().ok()?;
        Some((metadata.dev(), metadata.ino()))
    }

    /// A workspace with `secrets/`, `.env`, `config/secret.txt` and a `decoy/`, and a cover
    /// file outside it; planned as a view with the workspace writable and `deny_read` (paths
    /// in it) covered.
    struct View {
        _dir: tempfile::TempDir,
        _private: tempfile::TempDir,
        root: PathBuf,
        writable: [PathBuf; 1],
        deny_read: Vec<PathBuf>,
        unreadable: PathBuf,
    }

    impl View {
        fn new(deny_read: &[&str]) -> Self {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().canonicalize().unwrap();
            std::fs::create_dir(root.join("secrets")).unwrap();
            std::fs::write(root.join(".env"), "S=1").unwrap();
            std::fs::create_dir_all(root.join("config")).unwrap();
            std::fs::write(root.join("config/secret.txt"), "S=2").unwrap();
            std::fs::create_dir_all(root.join("decoy")).unwrap();
            std::fs::write(root.join("decoy/secret.txt"), "decoy").unwrap();
            let private = tempfile::tempdir().unwrap();
            std::fs::write(private.path().join("unreadable"), "").unwrap();
            let unreadable = private.path().canonicalize().unwrap().join("unreadable");
            View {
                writable: [root.clone()],
                deny_read: deny_read.iter().map(|path| root.join(path)).collect(),
                root,
                unreadable,
                _dir: dir,
                _private: private,
            }
        }

        fn mounts(&self) -> Mounts<'_> {
            Mounts {
                writable: &self.writable,
                deny_write: &[],
                deny_read: &self.deny_read,
                unreadable: &self.unreadable,
            }
        }
    }

    #[test]
    fn the_tree_is_made_read_only_before_anything_is_bound_writable() {
        let view = View::new(&["secrets", ".env"]);
        let (root, mounts) = (&view.root, view.mounts());
        let script = Script::new(&mounts, &mounts.steps(), &planned).unwrap();
        let lines = described(&script);
        let at = |needle: &str| {
            lines
                .iter()
                .position(|line| line.contains(needle))
                .unwrap_or_else(|| panic!("{needle} in {lines:#?}"))
        };
        assert!(lines[0].starts_with("Unshare"), "{lines:#?}");
        let read_only_root = at("Attributes { slot: 0, recursive: true, set: 1");
        assert!(
            lines[read_only_root - 1].starts_with("Open { path: \"/\", expect: None, slot: 0"),
            "{lines:#?}"
        );
        let dev = at("target: \"/dev\", fstype: Some(\"tmpfs\")");
        let bound = at(&format!("Open {{ path: {:?}", text(root).unwrap()));
        let covered = at(&format!(
            "Open {{ path: {:?}",
            text(root.join("secrets")).unwrap()
        ));
        assert!(
            read_only_root < dev && dev < bound && bound < covered,
            "{lines:#?}"
        );
        // Each device is cloned before the tmpfs hides the host's, and mounted in it after.
        let null = |line: &String| line.starts_with("Open { path: \"/dev/null\"");
        let cloned = lines.iter().position(null).unwrap();
        let placed = lines.iter().rposition(null).unwrap();
        assert!(
            cloned < dev && lines[cloned + 1].starts_with("Tree"),
            "{lines:#?}"
        );
        assert!(
            placed > dev && lines[placed + 1].starts_with("Attach"),
            "{lines:#?}"
        );
        // Every mount of the plan is made onto a descriptor, never onto a path.
        assert!(
            lines[bound..].iter().all(|line| !line.starts_with("Mount")),
            "{lines:#?}"
        );
        assert!(!script.lines.last().unwrap().optional);
    }

    /// The holder started with `script` and let go; its error when it could not start.
    fn start(script: Script) -> io::Result<()> {
        let mut holder = script.spawn_holder()?;
        drop(holder.stdin.take());
        holder.wait()?;
        Ok(())
    }

    #[test]
    fn a_path_swapped_after_the_plan_fails_the_build_instead_of_covering_elsewhere() {
        if let Err(why) = works() {
            eprintln!("skipped: {why}");
            return;
        }
        /// A swap of the workspace at the given root.
        type Swap = fn(&std::path::Path);
        let swaps: [(&str, Swap); 2] = [
            ("a folder for a link", |root| {
                std::fs::rename(root.join("config"), root.join("real")).unwrap();
                std::os::unix::fs::symlink(root.join("decoy"), root.join("config")).unwrap();
            }),
            ("a folder for another folder", |root| {
                std::fs::rename(root.join("config"), root.join("real")).unwrap();
                std::fs::rename(root.join("decoy"), root.join("config")).unwrap();
            }),
        ];
        for (swap, make) in swaps {
            let view = View::new(&["config/secret.txt"]);
            let (root, mounts) = (&view.root, view.mounts());
            let unswapped = Script::new(&mounts, &mounts.steps(), &planned).unwrap();
            assert!(start(unswapped).is_ok(), "{swap}: the plan as made builds");
            let script = Script::new(&mounts, &mounts.steps(), &planned).unwrap();
            make(root);
            let error = start(script).expect_err(swap);
            // Told apart from a view that cannot be built here: the command is refused.
            assert!(super::super::ruleset::swapped(&error), "{swap}: {error}");
        }
    }
}

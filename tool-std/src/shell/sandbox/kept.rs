//! A view of the file system (bubblewrap's, or the sandbox's own built the same way) built
//! once and entered by each command, instead of a `bwrap` per command.
//!
//! Starting `bwrap` costs its own start, a user and a mount namespace, a new root, every bind
//! and a fresh `/dev` (about 6 ms here) before the shell it runs even starts. The view it
//! builds depends only on its arguments and on the files and mounts they name, so it is built
//! once: a holder (`bwrap` with the command's arguments around a shell, or a shell that built
//! the same view itself: the `namespaces` module) prints its pid and waits; the namespaces it
//! stands in are opened (`/proc/PID/ns/*`), and the holder is let go. The open descriptors
//! keep the namespaces alive with no process in them. A command then starts as it would
//! unsandboxed, and between fork and exec enters them with `setns(2)` (the user namespace that
//! owns the mount namespace, the mount namespace, then any nested user namespace
//! `--disable-userns` made, in which no further one can be made), moves to its working
//! directory, and drops every capability, as `bwrap --cap-drop ALL` does.
//!
//! A kept view is used only while it is the one a new holder would build: the arguments are
//! the same (the writable roots, the covers and the read-only paths, each of which depends on
//! what exists now), every path they name is the same file (a denied file deleted and made
//! again is a new file its old cover no longer hides), and this process's mount table has not
//! changed (a mount made since would show through). Otherwise it is built again. Where the
//! namespaces cannot be kept or entered (no `/proc`, `setns` refused), every command runs
//! under a `bwrap` of its own as before, or under Landlock alone where there is no `bwrap`.

use std::collections::VecDeque;
use std::ffi::{CString, OsString};
use std::io::{self, BufRead as _, BufReader};
use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// How many views are kept at once (one per session and configuration in use); the least
/// recently used goes first.
const KEPT_VIEWS: usize = 16;

/// The version of the `capset(2)` header whose data is two 32-bit words per set.
const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// One file a view's arguments name, as it was when the view was built.
type Identity = Option<(u64, u64)>;

/// The identity recorded for a path a view names, for a holder that checks what it mounts on
/// (the sandbox's own); `None` for a path it does not name or that did not exist.
pub(crate) type Recorded<'a> = &'a dyn Fn(&Path) -> Identity;

/// The holder's command line: a shell that prints its pid and waits for its stdin to close,
/// which `build` reads and then closes.
pub(crate) const HOLDER: [&str; 3] = ["/bin/sh", "-c", "echo $$; read -r line"];

/// `command` with the pipes `build` talks to a holder through.
pub(crate) fn piped(mut command: Command) -> Command {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// The namespaces of one view, open and ready to enter.
pub(crate) struct View {
    /// What it was built from (`bwrap`'s arguments up to the `--`, after a word naming the
    /// engine where it is not `bwrap`).
    arguments: Vec<OsString>,
    /// The device and inode of each absolute path among them, `None` where none existed.
    identities: Vec<Identity>,
    /// Each of those files, held open (`O_PATH`): a file removed since keeps its inode
    /// number while held, so a new file at its name cannot have the same one.
    _pins: Vec<OwnedFd>,
    /// `/proc/self/mountinfo` when it was built.
    mount_table: Vec<u8>,
    /// What to enter, in order: a namespace and its type (`CLONE_NEWUSER`, `CLONE_NEWNS`).
    steps: Vec<(OwnedFd, libc::c_int)>,
}

impl std::fmt::Debug for View {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("View")
            .field("arguments", &self.arguments)
            .field("steps", &self.steps.len())
            .finish_non_exhaustive()
    }
}

/// The view a holder started by `spawn` builds, known by `key` (the arguments that describe
/// it, every absolute path among them a file it depends on), kept; `None` where views cannot
/// be kept here (the caller then starts `bwrap` for each command, or holds files with
/// Landlock alone).
pub(crate) fn view(
    key: &[OsString],
    spawn: impl FnOnce(Recorded<'_>) -> io::Result<Child>,
) -> Option<Arc<View>> {
    try_view(key, spawn).ok()
}

/// [`view`], saying why not.
pub(crate) fn try_view(
    key: &[OsString],
    spawn: impl FnOnce(Recorded<'_>) -> io::Result<Child>,
) -> io::Result<Arc<View>> {
    static ENTERABLE: OnceLock<bool> = OnceLock::new();
    static VIEWS: Mutex<VecDeque<Arc<View>>> = Mutex::new(VecDeque::new());
    let not_enterable = || io::Error::other("a command could not enter a view (setns refused)");
    if ENTERABLE.get() == Some(&false) {
        return Err(not_enterable());
    }
    let now = identities(key);
    let mount_table = std::fs::read("/proc/self/mountinfo")?;
    {
        let mut views = VIEWS.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = views.iter().position(|view| view.arguments == key)
            && let Some(view) = views.remove(at)
            && view.identities == now
            && view.mount_table == mount_table
        {
            views.push_front(Arc::clone(&view));
            return Ok(view);
        }
    }
    let view = Arc::new(build(key, spawn, mount_table)?);
    // Where a command cannot enter it (`setns` refused), it never will: asked once.
    if !*ENTERABLE.get_or_init(|| probe(&view).is_ok()) {
        return Err(not_enterable());
    }
    let mut views = VIEWS.lock().unwrap_or_else(PoisonError::into_inner);
    views.push_front(Arc::clone(&view));
    views.truncate(KEPT_VIEWS);
    Ok(view)
}

impl View {
    /// Makes `command` enter this view between fork and exec: its namespaces, then its
    /// working directory again (entering a mount namespace moves to its root), then no
    /// capabilities.
    pub(crate) fn enter_on_start(self: &Arc<Self>, command: &mut Command) -> io::Result<()> {
        let workdir = command
            .get_current_dir()
            .map_or_else(std::env::current_dir, |dir| Ok(dir.to_owned()))?;
        let workdir = CString::new(workdir.as_os_str().as_bytes())?;
        let view = Arc::clone(self);
        // SAFETY: the closure runs in the child between fork and exec, where only
        // async-signal-safe calls are allowed: it makes system calls only (setns, chdir, prctl,
        // capset) on descriptors and a string made before the fork, and allocates nothing
        // (an `io::Error` from the OS's error number holds no allocation).
        unsafe {
            command.pre_exec(move || {
                for (namespace, kind) in &view.steps {
                    if libc::setns(namespace.as_raw_fd(), *kind) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                if libc::chdir(workdir.as_ptr()) != 0 {
                    return Err(io::Error::last_os_error());
                }
                drop_capabilities()
            });
        }
        Ok(())
    }
}

/// Drops every capability the command holds in the view's user namespace, from the bounding
/// set (so a program it runs as uid 0 gains none back) and from its own sets. Async-signal-safe.
fn drop_capabilities() -> io::Result<()> {
    // SAFETY: prctl and capset take integers and pointers to the local structures below.
    unsafe {
        for capability in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 {
                // EINVAL: past the last capability this kernel has.
                if io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
                    break;
                }
                return Err(io::Error::last_os_error());
            }
        }
        // EINVAL on kernels without ambient capabilities (before 4.3): there are none to clear.
        if libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        ) != 0
            && io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL)
        {
            return Err(io::Error::last_os_error());
        }
        let header = [LINUX_CAPABILITY_VERSION_3, 0];
        let data = [0u32; 6];
        if libc::syscall(libc::SYS_capset, header.as_ptr(), data.as_ptr()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The absolute paths in `arguments`: `/`, the writable roots, the covered and read-only
/// paths, the cover file.
fn paths(arguments: &[OsString]) -> impl Iterator<Item = &OsString> {
    arguments
        .iter()
        .filter(|argument| argument.as_bytes().starts_with(b"/"))
}

/// The device and inode of every path in `arguments`, `None` for one that does not exist.
fn identities(arguments: &[OsString]) -> Vec<Identity> {
    paths(arguments)
        .map(|path| {
            std::fs::symlink_metadata(path)
                .ok()
                .map(|metadata| (metadata.dev(), metadata.ino()))
        })
        .collect()
}

/// Every path in `arguments` opened without following it, and its identity through the open
/// descriptor.
fn pin(arguments: &[OsString]) -> (Vec<OwnedFd>, Vec<Identity>) {
    use rustix::fs::{Mode, OFlags};
    let mut pins = Vec::new();
    let identities = paths(arguments)
        .map(|path| {
            let fd = rustix::fs::open(
                path.as_os_str(),
                OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .ok()?;
            let stat = rustix::fs::fstat(&fd).ok()?;
            pins.push(fd);
            Some((stat.st_dev, stat.st_ino))
        })
        .collect();
    (pins, identities)
}

/// Starts the holder with `spawn`, opens the namespaces it stands in, and lets it go.
fn build(
    key: &[OsString],
    spawn: impl FnOnce(Recorded<'_>) -> io::Result<Child>,
    mount_table: Vec<u8>,
) -> io::Result<View> {
    // Pinned before the holder binds them: a file changed in between is not the one recorded,
    // and the next command builds anew; a holder that checks what it mounts on (the sandbox's
    // own) is given the identities to check against.
    let (pins, identities) = pin(key);
    let identity = |path: &Path| {
        paths(key)
            .zip(&identities)
            .find(|(named, _)| Path::new(named) == path)
            .and_then(|(_, identity)| *identity)
    };
    let mut holder = spawn(&identity)?;
    let opened = open_namespaces(&mut holder);
    // Closing its stdin lets the shell end, and `bwrap` with it.
    drop(holder.stdin.take());
    let status = holder.wait()?;
    let steps = opened.map_err(|error| {
        let mut said = String::new();
        if let Some(mut stderr) = holder.stderr.take() {
            let _ = io::Read::read_to_string(&mut stderr, &mut said);
        }
        match said.trim() {
            "" => io::Error::other(format!("{error} (the holder: {status})")),
            said => io::Error::other(format!("{error} (the holder: {said})")),
        }
    })?;
    Ok(View {
        arguments: key.to_vec(),
        identities,
        _pins: pins,
        mount_table,
        steps,
    })
}

/// The namespaces of the shell `holder` started, in the order to enter them.
fn open_namespaces(holder: &mut Child) -> io::Result<Vec<(OwnedFd, libc::c_int)>> {
    let stdout = holder
        .stdout
        .take()
        .ok_or_else(|| io::Error::other("no pipe from the holder"))?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let pid: u32 = line
        .trim()
        .parse()
        .map_err(|_| io::Error::other("the holder's shell did not say its pid"))?;
    // The shell waits on its stdin, held open here: the pid is still its own.
    let open = |kind: &str| -> io::Result<OwnedFd> {
        Ok(OwnedFd::from(std::fs::File::open(format!(
            "/proc/{pid}/ns/{kind}"
        ))?))
    };
    let mount = open("mnt")?;
    let inner = open("user")?;
    if same(&mount, &open_own("mnt")?)? {
        return Err(io::Error::other(
            "the holder's shell is in this process's mount namespace",
        ));
    }
    let owner = related(&mount, libc::NS_GET_USERNS)?;
    // From the shell's user namespace up to the one owning the mount namespace: `bwrap
    // --disable-userns` puts the command one level below the namespace its mounts belong to.
    let mut nested = Vec::new();
    let mut user = inner;
    while !same(&user, &owner)? {
        if nested.len() == 4 {
            return Err(io::Error::other(
                "the holder's user namespaces nest deeper than expected",
            ));
        }
        let parent = related(&user, libc::NS_GET_PARENT)?;
        nested.push(user);
        user = parent;
    }
    let mut steps = vec![(owner, libc::CLONE_NEWUSER), (mount, libc::CLONE_NEWNS)];
    steps.extend(
        nested
            .into_iter()
            .rev()
            .map(|user| (user, libc::CLONE_NEWUSER)),
    );
    Ok(steps)
}

fn open_own(kind: &str) -> io::Result<OwnedFd> {
    Ok(OwnedFd::from(std::fs::File::open(format!(
        "/proc/self/ns/{kind}"
    ))?))
}

/// The namespace `request` (`NS_GET_USERNS`, `NS_GET_PARENT`) names for `namespace`.
fn related(namespace: &OwnedFd, request: libc::Ioctl) -> io::Result<OwnedFd> {
    // SAFETY: the ioctl takes no argument and returns a new descriptor, owned from here on.
    let fd = unsafe { libc::ioctl(namespace.as_raw_fd(), request) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a descriptor just opened for this process and owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Whether two namespace descriptors are the same namespace.
fn same(one: &OwnedFd, other: &OwnedFd) -> io::Result<bool> {
    let stat = |fd: &OwnedFd| rustix::fs::fstat(fd).map(|stat| (stat.st_dev, stat.st_ino));
    Ok(stat(one)? == stat(other)?)
}

/// Starts `sh -c :` in `view` under the strictest seccomp filter the commands get: whether
/// commands can enter views on this machine.
fn probe(view: &Arc<View>) -> io::Result<()> {
    let mut command = Command::new("/bin/sh");
    command
        .args(["-c", ":"])
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    view.enter_on_start(&mut command)?;
    let status = super::ruleset::on_a_thread_of_its_own("bwrap-view-probe", || {
        super::filter::apply(&super::ruleset::filter_for(&super::Network::Off)?)?;
        command.status()
    })?;
    if status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "a command in it failed: {status}"
        )))
    }
}

//! The Landlock ruleset of one command: built in this process (every path opened, every rule
//! added), then enforced on a thread made to start the command and end, by
//! `prctl(PR_SET_NO_NEW_PRIVS)` and `landlock_restrict_self`, so that the command's whole
//! process tree inherits it and nothing else in this process does.
//!
//! Restricting in the child between fork and exec (`CommandExt::pre_exec`) would work too, but
//! forces std to fork instead of `posix_spawn`, whose cost grows with this process's size (see
//! [`Detach`](crate::shell::spawn::Detach)). The ruleset's descriptor is taken from the
//! `landlock` crate and restricted with the raw system call, as the crate's `restrict_self`
//! keeps compatibility bookkeeping a one-off thread does not need.

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::OnceLock;

use landlock::{
    ABI, Access as _, AccessFs, AccessNet, BitFlags, NetPort, PathBeneath, PathFd, Ruleset,
    RulesetAttr as _, RulesetCreated, RulesetCreatedAttr as _, Scope,
};

use super::{Bounds, Builder, Lasting, Network, Sandbox, SandboxConfig};

/// The newest ABI whose rights this module hands out. ABI 9 adds `ResolveUnix` (connecting to
/// Unix sockets by path), which would need rules of its own; until written, it is not handled.
const NEWEST_USED_ABI: i32 = 8;

/// Devices every command writes to (`> /dev/null`), opened for writing and truncation.
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];

/// The devices a view's `/dev` carries (bubblewrap's `--dev`, and the sandbox's own), read by
/// every command (`< /dev/null`, `/dev/urandom`).
const READABLE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// `landlock_create_ruleset`'s flag asking for the ABI version.
const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;

/// What the kernel holds, asked once.
pub(crate) fn kernel_status() -> Sandbox {
    static STATUS: OnceLock<Sandbox> = OnceLock::new();
    STATUS
        .get_or_init(|| {
            // SAFETY: with a null attribute pointer, size 0 and the VERSION flag the call only
            // returns the ABI version (or an error); it reads and writes no memory.
            let abi = unsafe {
                libc::syscall(
                    libc::SYS_landlock_create_ruleset,
                    std::ptr::null::<libc::c_void>(),
                    0usize,
                    LANDLOCK_CREATE_RULESET_VERSION,
                )
            };
            if abi < 1 {
                let error = io::Error::last_os_error();
                let why = match error.raw_os_error() {
                    Some(libc::ENOSYS) => "the kernel was built without Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)".to_owned(),
                    Some(libc::EOPNOTSUPP) => "Landlock is turned off at boot (add `landlock` to the kernel's `lsm=` parameter)".to_owned(),
                    _ => format!("Landlock could not be asked for its version ({error})"),
                };
                return Sandbox::Unsupported { why };
            }
            let abi = i32::try_from(abi).unwrap_or(i32::MAX);
            if abi < 4 {
                Sandbox::Partial {
                    abi,
                    why: "no TCP rules before ABI 4 (Linux 6.7): the network stays open".to_owned(),
                }
            } else {
                Sandbox::Enforced { abi }
            }
        })
        .clone()
}

/// A command's sandbox ready to start it under, and what it lets the command write.
pub(crate) struct Prepared {
    /// The Landlock ruleset: files, TCP ports and scopes with Landlock alone; in a mount
    /// namespace only TCP ports and scopes (none at all when the kernel has neither).
    ruleset: Option<OwnedFd>,
    /// In a mount namespace (bubblewrap's or the sandbox's own): how the command gets it.
    view: Option<Wrap>,
    /// The private temporary directory, given as `TMPDIR`.
    pub(crate) tmpdir: PathBuf,
    /// Every path the command may write beneath, resolved.
    pub(crate) writable: Vec<PathBuf>,
    /// The network as configured.
    pub(crate) network: Network,
    /// The paths it may not read, resolved.
    pub(crate) deny_read: Vec<PathBuf>,
    /// The paths it may not write though beneath a writable one, resolved (held in a mount
    /// namespace only).
    pub(crate) deny_write: Vec<PathBuf>,
    /// The seccomp filter for what Landlock does not cover (the `filter` module).
    filter: seccompiler::BpfProgram,
}

/// How a command gets its view of the file system.
enum Wrap {
    /// It enters the namespaces of a view built before (the `kept` module), by `bwrap` or by
    /// the sandbox itself (the `namespaces` module).
    Kept(std::sync::Arc<super::kept::View>),
    /// `bwrap` runs it: the program, and its arguments up to the `--` before the command.
    Each(PathBuf, Vec<OsString>),
}

/// Where a command's sandbox keeps its own files (the session's [`SandboxTemp`](super::SandboxTemp)).
pub(crate) struct Private<'a> {
    /// The command's `TMPDIR`.
    pub(crate) tmpdir: &'a Path,
    /// An empty file of mode 000 out of the command's reach.
    pub(crate) unreadable: &'a Path,
}

impl Prepared {
    /// Builds the sandbox of `config` for a command in a workspace with `roots`, on a kernel
    /// with Landlock `abi`: in a mount namespace where [`SandboxConfig::bubblewrap`] asks for
    /// one (bubblewrap's where it works here, else the sandbox's own where the kernel lets it
    /// make one), else under Landlock alone.
    pub(crate) fn new(
        config: &SandboxConfig,
        abi: i32,
        roots: &[PathBuf],
        private: &Private<'_>,
        lasting: Lasting,
    ) -> io::Result<Prepared> {
        // A denied path that does not exist has nothing to protect yet (the sandbox is built
        // anew for each command), and with Landlock alone denying it would cost its
        // directory's new files their reads (see `complement`).
        let resolve = |paths: &[PathBuf]| -> Vec<PathBuf> {
            paths
                .iter()
                .map(|path| roots.first().map_or(path.clone(), |root| root.join(path)))
                .filter_map(|path| std::fs::canonicalize(path).ok())
                .collect()
        };
        let deny_read = resolve(&config.deny_read);
        // A path not made yet is kept too: making it is the write its rule denies.
        let deny_write: Vec<PathBuf> = config
            .deny_write
            .iter()
            .map(|path| super::resolve(&roots.first().map_or(path.clone(), |root| root.join(path))))
            .collect();
        let mut writable: Vec<PathBuf> = roots.to_vec();
        writable.push(private.tmpdir.to_owned());
        writable.extend(config.writable.iter().cloned());
        let writable = resolve(&writable);

        // The cover file is held read-only too: a writable path above it (`/tmp` given as
        // `SandboxConfig::writable`) would let a command put a link in its place, and the
        // next view would lay the file the link names over each denied one, itself.
        let mut held_read_only = deny_write.clone();
        held_read_only.push(private.unreadable.to_owned());
        let mounts = super::bubblewrap::Mounts {
            writable: &writable,
            deny_write: &held_read_only,
            deny_read: &deny_read,
            unreadable: private.unreadable,
        };
        // Planned once: what a view is known by and what builds it are the same steps.
        let steps = mounts.steps();
        let view = match config.builder() {
            Builder::Bubblewrap(found) => {
                let arguments = mounts.render(&steps);
                let spawn = |_: super::kept::Recorded<'_>| {
                    super::bubblewrap::spawn_holder(&found.program, &arguments)
                };
                Some(match super::kept::view(&arguments, spawn) {
                    Some(view) => Wrap::Kept(view),
                    None => Wrap::Each(found.program.clone(), arguments),
                })
            }
            Builder::Namespaces(_) => {
                let key = super::namespaces::key(&mounts, &steps);
                let built = super::kept::try_view(&key, |recorded| {
                    super::namespaces::Script::new(&mounts, &steps, recorded)?.spawn_holder()
                });
                match built {
                    Ok(view) => Some(Wrap::Kept(view)),
                    // A path the view holds was swapped while it was built: Landlock's rules
                    // would be built from the same swapped tree, so the command is not run
                    // with less.
                    Err(error) if swapped(&error) => {
                        return Err(io::Error::other(format!(
                            "a path the sandbox holds changed while its view was built ({error}): a folder swapped for a link or for another folder; run the command again"
                        )));
                    }
                    // Where this view cannot be built, Landlock holds the files.
                    Err(_) => None,
                }
            }
            Builder::Landlock(..) => None,
        };
        // Landlock holds the files where no view does, and for a job in a kept view (see
        // `Lasting`); under a `bwrap` of its own it cannot (its domain would forbid the mounts).
        let landlock_files = match view {
            None => true,
            Some(Wrap::Kept(_)) => lasting == Lasting::Job,
            Some(Wrap::Each(..)) => false,
        };
        let ruleset = landlock_ruleset(
            &config.network,
            abi,
            landlock_files.then_some((&writable, &deny_read)),
        )?;
        Ok(Prepared {
            ruleset,
            view,
            tmpdir: private.tmpdir.to_owned(),
            writable,
            network: config.network.clone(),
            deny_read,
            deny_write,
            filter: filter_for(&config.network)?,
        })
    }

    /// `true` when the command runs under a `bwrap` of its own, so must be started through
    /// [`command`](Self::command) (and the process started is `bwrap`, not the command).
    pub(crate) fn wraps(&self) -> bool {
        matches!(self.view, Some(Wrap::Each(..)))
    }

    /// A command that runs `program` in the sandbox (under a `bwrap` of its own: `bwrap`, its
    /// arguments, then `program`), for the caller to add `program`'s own arguments to.
    pub(crate) fn command(&self, program: &Path) -> Command {
        match &self.view {
            Some(Wrap::Each(bwrap, arguments)) => {
                let mut command = Command::new(bwrap);
                command.args(arguments).arg(program);
                command
            }
            Some(Wrap::Kept(_)) | None => Command::new(program),
        }
    }

    /// What it lets a command started in `workdir` do, for explaining its refusals.
    pub(crate) fn bounds(&self, workdir: &Path) -> Bounds {
        Bounds {
            workdir: workdir.to_owned(),
            writable: self.writable.clone(),
            deny_read: self.deny_read.clone(),
            deny_write: self.deny_write.clone(),
            network_off: self.network.is_restricted(),
        }
    }

    /// Starts `command` (with `TMPDIR` set) confined by the ruleset.
    ///
    /// Landlock confines the thread that restricts itself and every process it starts after,
    /// and nothing else. So a thread made for this one start restricts itself, starts the
    /// command, and ends: the command's whole tree inherits the domain, the rest of this
    /// process is untouched, and std may still start it by `posix_spawn` (no code has to run
    /// in the child between fork and exec, where only async-signal-safe calls are allowed).
    ///
    /// In a kept view the command enters its namespaces between fork and exec (see the
    /// `kept` module), which std can only do by forking.
    pub(crate) fn spawn(&self, command: &mut Command) -> io::Result<Child> {
        command.env("TMPDIR", OsString::from(&self.tmpdir));
        if let Some(Wrap::Kept(view)) = &self.view {
            view.enter_on_start(command)?;
        }
        let ruleset = self.ruleset.as_ref().map(AsRawFd::as_raw_fd);
        let filter = &self.filter;
        let watch_listen = matches!(self.network, Network::Ports(_));
        if watch_listen {
            super::listen::start_supervisor()?;
        }
        on_a_thread_of_its_own("sandboxed-spawn", move || {
            restrict_this_thread(ruleset)?;
            super::filter::apply(filter)?;
            super::listen::apply(watch_listen)?;
            command.spawn()
        })
    }
}

/// Whether a view's build failed because a path it holds was not the one planned: a link
/// where a folder was (`ELOOP`, no link is followed), or another file (`ESTALE`, the identity
/// check of the `namespaces` module).
pub(super) fn swapped(error: &io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::ELOOP | libc::ESTALE))
}

/// Runs `start` on a thread made for it, with `no_new_privs` set, and returns what it
/// returned. What a thread restricts itself with (`no_new_privs`, Landlock, seccomp) holds for
/// it and for what it starts, for good: so each start that needs it gets a thread of its own,
/// which ends after it, and the rest of this process is untouched.
pub(super) fn on_a_thread_of_its_own<T: Send>(
    name: &str,
    start: impl FnOnce() -> io::Result<T> + Send,
) -> io::Result<T> {
    std::thread::scope(|scope| {
        // Builder, not `scope.spawn`: a thread the system refuses is an error, not a panic.
        std::thread::Builder::new()
            .name(name.to_owned())
            .spawn_scoped(scope, move || {
                // SAFETY: prctl(PR_SET_NO_NEW_PRIVS) takes integers only and changes this
                // thread. It is required of an unprivileged thread before it may restrict
                // itself or install a seccomp filter, and keeps a setuid program started from
                // here (or a setuid `bwrap`) from gaining what the sandbox withholds.
                if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
                    return Err(io::Error::last_os_error());
                }
                start()
            })?
            .join()
            .unwrap_or_else(|_| Err(io::Error::other(format!("the thread `{name}` panicked"))))
    })
}

/// The Landlock ruleset of `config` on a kernel with `abi`: TCP ports (ABI 4 on) and scopes
/// (ABI 6 on), and with `files` (Landlock alone: the resolved writable paths and denied reads)
/// the file rules too. `None` when there is nothing for Landlock to hold.
fn landlock_ruleset(
    network: &Network,
    abi: i32,
    files: Option<(&Vec<PathBuf>, &Vec<PathBuf>)>,
) -> io::Result<Option<OwnedFd>> {
    // TCP rules came with ABI 4, scopes with ABI 6; asking an older kernel for them would
    // only fail (no rights to handle), so they are left out there.
    let tcp = abi >= 4 && network.is_restricted();
    let scoped = abi >= 6;
    if files.is_none() && !tcp && !scoped {
        return Ok(None);
    }
    let abi = ABI::from(abi.min(NEWEST_USED_ABI));
    let mut ruleset = Ruleset::default();
    if files.is_some() {
        ruleset = ruleset
            .handle_access(AccessFs::from_all(abi))
            .map_err(landlock_error)?;
    }
    if tcp {
        // An ABI without TCP rules leaves the network open (`Sandbox::Partial`).
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(landlock_error)?;
    }
    if scoped {
        // ABI 6: no signal to a process outside the command's own domain (this agent, the
        // user's other programs) and no connection to an abstract Unix socket made
        // outside it (a desktop session's, a container runtime's).
        ruleset = ruleset
            .scope(Scope::from_all(abi))
            .map_err(landlock_error)?;
    }
    let mut created = ruleset.create().map_err(landlock_error)?;
    if let (true, Network::Ports(ports)) = (tcp, network) {
        for port in ports {
            created = created
                .add_rule(NetPort::new(*port, AccessNet::from_all(abi)))
                .map_err(landlock_error)?;
        }
    }
    if let Some((writable, deny_read)) = files {
        let read = AccessFs::from_read(abi);
        let write = AccessFs::from_write(abi);
        for (path, access) in read_grants(deny_read, read) {
            created = grant(created, &path, access, abi)?;
        }
        for (path, access) in write_grants(writable, deny_read, write) {
            created = grant(created, &path, access, abi)?;
        }
        let device = AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev;
        for path in WRITABLE_DEVICES {
            created = grant(created, Path::new(path), device & write, abi)?;
        }
        // In a mount namespace (a background job's rules over a kept view), `/dev` is a
        // fresh `tmpfs` holding the host's device nodes: the grant on the host's `/dev` is
        // hidden beneath it, so each node the view carries is granted its reads itself.
        for path in READABLE_DEVICES {
            created = grant(created, Path::new(path), read, abi)?;
        }
    }
    let ruleset: Option<OwnedFd> = created.into();
    ruleset
        .ok_or_else(|| {
            io::Error::other("the kernel gave no Landlock ruleset (Landlock is unsupported)")
        })
        .map(Some)
}

/// The seccomp filter for `network`, compiled once per setting (the ports of
/// [`Network::Ports`] do not change it).
pub(super) fn filter_for(network: &Network) -> io::Result<seccompiler::BpfProgram> {
    static FILTERS: OnceLock<[Result<seccompiler::BpfProgram, String>; 3]> = OnceLock::new();
    let filters = FILTERS.get_or_init(|| {
        [Network::Off, Network::Ports(Vec::new()), Network::All]
            .map(|network| super::filter::compile(&network).map_err(|error| error.to_string()))
    });
    let index = match network {
        Network::Off => 0,
        Network::Ports(_) => 1,
        Network::All => 2,
    };
    filters[index].clone().map_err(io::Error::other)
}

/// Puts the calling thread (and what it starts) under the Landlock ruleset `ruleset` when
/// there is one, for good: call it only on a thread of its own
/// ([`on_a_thread_of_its_own`], which has set `no_new_privs`).
fn restrict_this_thread(ruleset: Option<std::os::fd::RawFd>) -> io::Result<()> {
    let Some(ruleset) = ruleset else {
        return Ok(());
    };
    // SAFETY: landlock_restrict_self takes a descriptor, open for the caller's lifetime (it
    // belongs to the `Prepared` borrowed by `spawn`), and flags.
    if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Adds a rule granting `access` beneath `path` (only the rights a file can have when it is
/// not a directory). A path that cannot be opened is skipped: nothing beneath it is granted.
fn grant(
    created: RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
    abi: ABI,
) -> io::Result<RulesetCreated> {
    let Ok(metadata) = std::fs::metadata(path) else {
        return Ok(created);
    };
    let access = if metadata.is_dir() {
        access
    } else {
        access & AccessFs::from_file(abi)
    };
    if access.is_empty() {
        return Ok(created);
    }
    let Ok(fd) = PathFd::new(path) else {
        return Ok(created);
    };
    created
        .add_rule(PathBeneath::new(fd, access))
        .map_err(landlock_error)
}

/// The read rules: `/` whole when nothing is denied; otherwise the complement of the denied
/// paths. Along the way from `/` to each denied path, each directory is granted listing only
/// (which its subtree inherits: the names in a denied directory can be listed, its files not
/// read) and each sibling off the way is granted whole. Symbolic links among the siblings are
/// left out: one pointing at a denied file would grant it; what they point to is granted by
/// its own path.
///
/// The siblings are those that exist when the command starts: a file the command creates in a
/// directory on the way to a denied path cannot be read by it (the rest of the tree can).
///
/// A sibling that is a hard link of a denied file (made by an earlier command in the same
/// directory, where Landlock cannot refuse it) is left out too: it is the denied file under
/// another name.
fn read_grants(denied: &[PathBuf], read: BitFlags<AccessFs>) -> Vec<(PathBuf, BitFlags<AccessFs>)> {
    use std::os::unix::fs::MetadataExt as _;
    let mut grants = Vec::new();
    let denied_paths: Vec<&Path> = denied.iter().map(PathBuf::as_path).collect();
    complement(
        Path::new("/"),
        &denied_paths,
        (read, read & AccessFs::ReadDir),
        &mut grants,
    );
    let denied_files: Vec<(u64, u64)> = denied
        .iter()
        .filter_map(|path| std::fs::symlink_metadata(path).ok())
        .filter(|metadata| metadata.is_file())
        .map(|metadata| (metadata.dev(), metadata.ino()))
        .collect();
    if !denied_files.is_empty() {
        grants.retain(|(path, _)| {
            std::fs::symlink_metadata(path).map_or(true, |metadata| {
                !(metadata.is_file()
                    && metadata.nlink() > 1
                    && denied_files.contains(&(metadata.dev(), metadata.ino())))
            })
        });
    }
    grants
}

/// The write rules: each writable path whole, except around the denied reads beneath it.
/// There, as for reads, each sibling off the way is granted whole, and each directory on the
/// way everything but removing and re-linking (`RemoveFile`, `RemoveDir`, `Refer`), which its
/// subtree inherits: a denied file or folder cannot be moved out from under its rule and read
/// at its new name. The cost: an entry directly in a directory on the way (a file beside a
/// denied `.env` at the root) cannot be removed or renamed. Bubblewrap has no such cost.
fn write_grants(
    writable: &[PathBuf],
    denied: &[PathBuf],
    write: BitFlags<AccessFs>,
) -> Vec<(PathBuf, BitFlags<AccessFs>)> {
    let on_the_way = write & !(AccessFs::RemoveFile | AccessFs::RemoveDir | AccessFs::Refer);
    let denied: Vec<&Path> = denied.iter().map(PathBuf::as_path).collect();
    let mut grants = Vec::new();
    for path in writable {
        complement(path, &denied, (write, on_the_way), &mut grants);
    }
    grants
}

/// Grants `whole` beneath `dir` except on the `denied` paths beneath it: `on_the_way` on each
/// directory leading to one, `whole` on each sibling off the way, nothing on a denied path.
fn complement(
    dir: &Path,
    denied: &[&Path],
    (whole, on_the_way): (BitFlags<AccessFs>, BitFlags<AccessFs>),
    grants: &mut Vec<(PathBuf, BitFlags<AccessFs>)>,
) {
    if denied.contains(&dir) {
        return;
    }
    let beneath: Vec<&Path> = denied
        .iter()
        .copied()
        .filter(|path| path.starts_with(dir))
        .collect();
    if beneath.is_empty() {
        grants.push((dir.to_owned(), whole));
        return;
    }
    grants.push((dir.to_owned(), on_the_way));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            continue;
        }
        if kind.is_dir() && beneath.iter().any(|denied| denied.starts_with(&path)) {
            complement(&path, &beneath, (whole, on_the_way), grants);
        } else if !beneath.contains(&path.as_path()) {
            grants.push((path, whole));
        }
    }
}

fn landlock_error(error: landlock::RulesetError) -> io::Error {
    io::Error::other(format!("the Landlock ruleset could not be built: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ruleset_is_built_for_every_abi_up_to_the_kernels_with_the_network_held() {
        let (Sandbox::Enforced { abi: kernel } | Sandbox::Partial { abi: kernel, .. }) =
            kernel_status()
        else {
            return;
        };
        let workspace = tempfile::tempdir().unwrap();
        for abi in 1..=kernel {
            for network in [Network::Off, Network::Ports(vec![443])] {
                let config = SandboxConfig {
                    network,
                    ..SandboxConfig::default()
                };
                let built = Prepared::new(
                    &config,
                    abi,
                    &[workspace.path().to_owned()],
                    &Private {
                        tmpdir: workspace.path(),
                        unreadable: workspace.path(),
                    },
                    Lasting::Command,
                );
                assert!(built.is_ok(), "ABI {abi}: {:?}", built.err());
            }
        }
    }

    #[test]
    fn the_command_is_confined_and_the_thread_that_started_it_is_not() {
        let (Sandbox::Enforced { abi } | Sandbox::Partial { abi, .. }) = kernel_status() else {
            return;
        };
        let workspace = tempfile::tempdir().unwrap();
        let tmpdir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let unreadable = tmpdir.path().join("unreadable");
        std::fs::write(&unreadable, "").unwrap();
        let prepared = Prepared::new(
            &SandboxConfig::default(),
            abi,
            &[workspace.path().to_owned()],
            &Private {
                tmpdir: tmpdir.path(),
                unreadable: &unreadable,
            },
            Lasting::Command,
        )
        .unwrap();
        let target = outside.path().join("from_command");
        let mut touch = prepared.command(Path::new("touch"));
        let status = prepared.spawn(touch.arg(&target)).unwrap().wait().unwrap();
        assert!(!status.success());
        assert!(!target.exists());
        std::fs::write(outside.path().join("from_this_thread"), "x").unwrap();
    }

    #[test]
    fn reads_are_granted_around_a_denied_file_and_not_on_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join(".env"), "SECRET=1").unwrap();
        std::fs::write(root.join("main.rs"), "").unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        let read = AccessFs::from_read(ABI::V7);
        let grants = read_grants(&[root.join(".env")], read);
        let granted = |path: &Path| grants.iter().find(|(p, _)| p == path).map(|(_, a)| *a);
        assert_eq!(granted(&root.join("main.rs")), Some(read));
        assert_eq!(granted(&root.join("src")), Some(read));
        assert_eq!(granted(&root), Some(BitFlags::from(AccessFs::ReadDir)));
        assert_eq!(granted(&root.join(".env")), None);
        assert_eq!(
            granted(Path::new("/")),
            Some(BitFlags::from(AccessFs::ReadDir))
        );
        let listing_only = BitFlags::from(AccessFs::ReadDir);
        for (path, access) in &grants {
            if root.join(".env").starts_with(path) {
                assert_eq!(*access, listing_only, "{path:?} on the way lists only");
            }
        }
    }
}

//! The kernel sandbox of `run_shell` and its background jobs: what a command's whole process
//! tree may write, read and connect to, held by the kernel whatever the command runs. The
//! policy confines the paths a tool is *given*; a command the policy allowed (`make`,
//! `npm install`) could otherwise write anywhere this process can. What holds on which kernel
//! and engine, field by field, is in the guide's sandbox page (`docs/sandbox.md`).
//!
//! Under the sandbox (on by default where the kernel has Landlock) a command writes only
//! beneath the workspace roots, the session's private `TMPDIR` and [`SandboxConfig::writable`];
//! reads everything but [`SandboxConfig::deny_read`] and the concrete paths of the policy's
//! `Read(..)` deny rules; reaches TCP only as [`Network`] allows; makes no device; and signals
//! only its own tree. Its parts, one job each:
//!
//! - `ruleset`: the Landlock ruleset (files with Landlock alone, TCP ports, scopes), enforced
//!   on a thread made for the one start;
//! - `bubblewrap`, `namespaces` and `kept`: the command's file system as a read-only mount
//!   namespace with the writable paths bound and the denied ones covered, built by `bwrap`
//!   where it works, else by the sandbox itself where the kernel lets it ([`engine`]), once,
//!   and entered by each command while it is still the view a new build would give;
//! - `filter` and `listen`: seccomp, for devices, sockets Landlock does not see, x32 calls,
//!   and a `listen` on a socket never bound (a supervisor answers each `listen`);
//! - `denial`: the note naming what a failed command was refused and the field that allows it;
//! - `policy`: [`AutoAllowSandboxedShell`], Claude Code's `sandbox.autoAllowBashIfSandboxed`;
//! - `temp`: the session's private temporary directory.
//!
//! Where the kernel has no Landlock the command runs unsandboxed and its result says so
//! ([`status`] tells `toolbox check`).

#[cfg(target_os = "linux")]
mod bubblewrap;
mod denial;
#[cfg(target_os = "linux")]
mod filter;
#[cfg(target_os = "linux")]
mod kept;
#[cfg(target_os = "linux")]
mod listen;
#[cfg(target_os = "linux")]
mod namespaces;
mod policy;
#[cfg(target_os = "linux")]
pub(crate) mod ruleset;
mod temp;

use std::path::PathBuf;

pub(crate) use denial::{Bounds, denial_note, resolve};
pub use policy::AutoAllowSandboxedShell;
#[cfg(target_os = "linux")]
pub(crate) use ruleset::Prepared;
pub(crate) use temp::SandboxTemp;

/// What a sandboxed command may reach over the network. Landlock filters TCP by port, not by
/// host, so there is no allow-list of hosts: `fetch_url`'s address checks cannot be applied to
/// a command's connections.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Network {
    /// No TCP connection or listening socket, loopback included (UDP and Unix sockets stay
    /// open: Landlock does not cover them).
    #[default]
    Off,
    /// TCP connections to and listening on these ports only, on any host (`vec![443]` for
    /// HTTPS; a dev server's port to start it and reach it).
    Ports(Vec<u16>),
    /// The network as this process has it.
    All,
}

impl Network {
    /// `true` unless [`Network::All`].
    #[must_use]
    pub fn is_restricted(&self) -> bool {
        !matches!(self, Network::All)
    }
}

/// How `run_shell` sandboxes its commands. Give it to the coordinator as state
/// (`.state(SandboxConfig { .. })`); without one, [`SandboxConfig::default`] applies: on,
/// network off, nothing writable beyond the workspace and the temporary directory.
///
/// ```
/// use tool_core::{Coordinator, Toolset, Workspace};
/// use tool_std::shell::sandbox::{Network, SandboxConfig};
///
/// let dir = tempfile::tempdir().unwrap();
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["run_shell"]).unwrap())
///     .workspace(Workspace::new(dir.path()).unwrap())
///     .state(SandboxConfig {
///         network: Network::All,
///         writable: vec![dir.path().join("../build-cache")],
///         ..SandboxConfig::default()
///     })
///     .build()
///     .unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxConfig {
    /// Sandbox commands where the kernel can (default `true`). `false` runs every command
    /// unsandboxed, and the result says so.
    pub enabled: bool,
    /// TCP connections and listening sockets (default [`Network::Off`]).
    pub network: Network,
    /// Paths writable beyond the workspace roots and the temporary directory (a build cache,
    /// `~/.cargo`). A path that does not exist is skipped.
    pub writable: Vec<PathBuf>,
    /// Paths a command may not read (files, or directories with everything beneath): the
    /// concrete paths of the policy's `Read(...)` deny rules, the grants and settings files.
    /// Relative paths are taken from the workspace root. Glob rules (`Read(**/*.pem)`) cannot
    /// be expressed: Landlock grants by directory, so list the files they mean.
    pub deny_read: Vec<PathBuf>,
    /// Paths a command may not write even beneath a writable one (files, or directories with
    /// everything beneath): the concrete paths of the policy's `Edit(...)` deny rules. Held
    /// in a mount namespace (bound read-only); Landlock alone cannot take a right back beneath
    /// a directory that has it, so there they are held for the file tools only.
    pub deny_write: Vec<PathBuf>,
    /// Build the file system of a command as a read-only mount namespace (default `true`):
    /// bubblewrap's where it is installed and works, else the sandbox's own, made the same
    /// way with the kernel's calls, where user namespaces are allowed. It also holds metadata
    /// outside the writable roots and keeps a denied file from being moved away. `false`
    /// holds files with Landlock alone. See [`SandboxConfig::engine`].
    pub bubblewrap: bool,
    /// Behave as on a kernel without Landlock, to exercise the fallback.
    #[doc(hidden)]
    pub assume_unsupported: bool,
    /// Behave as where bubblewrap is not installed, to exercise the sandbox's own namespaces.
    #[doc(hidden)]
    pub assume_no_bubblewrap: bool,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            enabled: true,
            network: Network::Off,
            writable: Vec::new(),
            deny_read: Vec::new(),
            deny_write: Vec::new(),
            bubblewrap: true,
            assume_unsupported: false,
            assume_no_bubblewrap: false,
        }
    }
}

/// The path a `Read(...)` rule (or another `tool` given) names, when it names one path (or
/// one directory with `/**`); relative paths are taken from the workspace root.
fn concrete_path(rule: &str, tool: &str) -> Option<PathBuf> {
    let pattern = rule
        .trim()
        .strip_prefix(tool)?
        .strip_prefix('(')?
        .strip_suffix(')')?
        .trim();
    let pattern = pattern.strip_suffix("/**").unwrap_or(pattern);
    if pattern.is_empty() || pattern.contains(['*', '?', '[', ']', '{', '}']) {
        return None;
    }
    if let Some(absolute) = pattern.strip_prefix("//") {
        return Some(PathBuf::from(format!("/{absolute}")));
    }
    if let Some(home) = pattern.strip_prefix("~/") {
        return Some(PathBuf::from(std::env::var_os("HOME")?).join(home));
    }
    // `/x` in text settings is relative to the project (a loaded file's rules are already
    // written out from the root as `//...`), as is `./x` and `x`.
    let relative = pattern.trim_start_matches('/');
    let relative = relative.strip_prefix("./").unwrap_or(relative);
    Some(PathBuf::from(relative))
}

/// What this kernel lets the sandbox hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sandbox {
    /// Landlock with TCP rules: files and network both held.
    Enforced {
        /// The Landlock ABI version of the kernel.
        abi: i32,
    },
    /// Landlock without TCP rules (ABI 1 to 3): files held, the network open whatever the
    /// configuration says.
    Partial {
        /// The Landlock ABI version of the kernel.
        abi: i32,
        /// What is not held.
        why: String,
    },
    /// No Landlock: commands run unsandboxed.
    Unsupported {
        /// Why not, in words for `toolbox check`.
        why: String,
    },
}

impl Sandbox {
    /// `true` when files are held (enforced or partial).
    #[must_use]
    pub fn holds_files(&self) -> bool {
        !matches!(self, Sandbox::Unsupported { .. })
    }
}

impl std::fmt::Display for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sandbox::Enforced { abi } => {
                write!(f, "enforced (Landlock ABI {abi}: files and TCP)")
            }
            Sandbox::Partial { abi, why } => write!(f, "partial (Landlock ABI {abi}: {why})"),
            Sandbox::Unsupported { why } => write!(f, "unsupported ({why})"),
        }
    }
}

/// What this kernel lets `run_shell`'s sandbox hold, for `toolbox check`. Asked of the kernel
/// once per process.
///
/// ```
/// use tool_std::shell::sandbox::{Sandbox, status};
///
/// match status() {
///     Sandbox::Enforced { abi } => assert!(abi >= 4),
///     Sandbox::Partial { abi, .. } => assert!((1..4).contains(&abi)),
///     Sandbox::Unsupported { why } => assert!(!why.is_empty()),
/// }
/// ```
#[must_use]
pub fn status() -> Sandbox {
    #[cfg(target_os = "linux")]
    {
        ruleset::kernel_status()
    }
    #[cfg(not(target_os = "linux"))]
    {
        Sandbox::Unsupported {
            why: "Landlock is Linux only; macOS Seatbelt is not built yet".to_owned(),
        }
    }
}

/// What builds a sandboxed command's file system on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Engine {
    /// Bubblewrap: a read-only mount namespace with the writable paths bound writable and the
    /// denied ones covered; Landlock holds TCP and the scopes, the seccomp filter the rest.
    Bubblewrap {
        /// What `bwrap --version` says.
        version: String,
    },
    /// The same view as bubblewrap's, built by the sandbox itself (a user and a mount
    /// namespace made with the kernel's calls), where bubblewrap is not installed or not
    /// wanted.
    Namespaces {
        /// Why not bubblewrap, in words for `toolbox check`.
        why_not_bubblewrap: String,
    },
    /// Landlock alone (with the seccomp filter).
    Landlock {
        /// Why no mount namespace (neither bubblewrap's nor the sandbox's own), in words for
        /// `toolbox check`.
        why_not_bubblewrap: String,
    },
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const HOLDS: &str = "a read-only mount namespace: metadata outside the writable paths held, denied paths covered, Edit deny rules read-only";
        match self {
            Engine::Bubblewrap { version } => write!(f, "{version} ({HOLDS})"),
            Engine::Namespaces { why_not_bubblewrap } => write!(
                f,
                "the sandbox's own namespaces ({HOLDS}; not bubblewrap: {why_not_bubblewrap})"
            ),
            Engine::Landlock { why_not_bubblewrap } => write!(
                f,
                "Landlock alone ({why_not_bubblewrap}; not held: metadata of files outside the writable paths, SandboxConfig::deny_write)"
            ),
        }
    }
}

/// What builds a sandboxed command's file system here under the default configuration:
/// bubblewrap where it is installed and works (tried once per process), else the sandbox's
/// own namespaces where the kernel lets it make them (tried once), else Landlock alone.
/// [`SandboxConfig::engine`] says it for one configuration.
///
/// ```
/// use tool_std::shell::sandbox::{Engine, engine};
///
/// match engine() {
///     Engine::Bubblewrap { version } => assert!(version.contains("bubblewrap")),
///     Engine::Namespaces { why_not_bubblewrap } | Engine::Landlock { why_not_bubblewrap } => {
///         assert!(!why_not_bubblewrap.is_empty())
///     }
/// }
/// ```
#[must_use]
pub fn engine() -> Engine {
    SandboxConfig::default().engine()
}

/// What builds a command's file system (the engine, as the sandbox uses it), with the
/// reasons that [`Engine`] puts in words.
#[cfg(target_os = "linux")]
pub(crate) enum Builder {
    Bubblewrap(&'static bubblewrap::Bubblewrap),
    /// Why not bubblewrap.
    Namespaces(&'static str),
    /// Why not bubblewrap, and why not the sandbox's own namespaces (`None`: not asked for).
    Landlock(&'static str, Option<&'static str>),
}

impl SandboxConfig {
    /// What builds a sandboxed command's file system under this configuration on this
    /// machine ([`SandboxConfig::bubblewrap`] on: bubblewrap, else the sandbox's own
    /// namespaces, else Landlock alone; off: Landlock alone).
    ///
    /// ```
    /// use tool_std::shell::sandbox::{Engine, SandboxConfig};
    ///
    /// let landlock = SandboxConfig { bubblewrap: false, ..SandboxConfig::default() };
    /// assert!(matches!(landlock.engine(), Engine::Landlock { .. }));
    /// ```
    #[must_use]
    pub fn engine(&self) -> Engine {
        #[cfg(target_os = "linux")]
        {
            match self.builder() {
                Builder::Bubblewrap(found) => Engine::Bubblewrap {
                    version: found.version.clone(),
                },
                Builder::Namespaces(why) => Engine::Namespaces {
                    why_not_bubblewrap: why.to_owned(),
                },
                Builder::Landlock(why, None) => Engine::Landlock {
                    why_not_bubblewrap: why.to_owned(),
                },
                Builder::Landlock(why, Some(why_not_namespaces)) => Engine::Landlock {
                    why_not_bubblewrap: format!("{why}; {why_not_namespaces}"),
                },
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            Engine::Landlock {
                why_not_bubblewrap: "bubblewrap is Linux only".to_owned(),
            }
        }
    }

    /// What builds a command's file system under this configuration.
    #[cfg(target_os = "linux")]
    pub(crate) fn builder(&self) -> Builder {
        if !self.bubblewrap {
            return Builder::Landlock("SandboxConfig::bubblewrap is off", None);
        }
        let not_bubblewrap = match bubblewrap::find() {
            Ok(found) if !self.assume_no_bubblewrap => return Builder::Bubblewrap(found),
            Ok(_) => "bubblewrap is assumed not installed (SandboxConfig::assume_no_bubblewrap)",
            Err(why) => why,
        };
        match namespaces::works() {
            Ok(()) => Builder::Namespaces(not_bubblewrap),
            Err(why) => Builder::Landlock(not_bubblewrap, Some(why)),
        }
    }
}

/// A ruleset ready for a command: never made where there is no Landlock.
#[cfg(not(target_os = "linux"))]
pub(crate) enum Prepared {}

#[cfg(not(target_os = "linux"))]
impl Prepared {
    pub(crate) fn spawn(
        &self,
        _: &mut std::process::Command,
    ) -> std::io::Result<std::process::Child> {
        match *self {}
    }

    pub(crate) fn bounds(&self, _: &std::path::Path) -> Bounds {
        match *self {}
    }

    pub(crate) fn wraps(&self) -> bool {
        match *self {}
    }

    pub(crate) fn command(&self, _: &std::path::Path) -> std::process::Command {
        match *self {}
    }
}

/// How long what a call starts may run, which decides what holds its files in a mount
/// namespace. A command ends with its call, and the view it enters is checked before each
/// start; a background job keeps the view it started in while the files around it change
/// (a denied file the user replaces by renaming a new one into place, as editors save, is no
/// longer covered for it), so it carries Landlock's file rules as well, which name the files
/// they grant. Their cost is Landlock's, for jobs only: a file a job makes beside a denied
/// path is not readable by it, and nothing outside the writable paths is writable (`/dev/shm`
/// included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lasting {
    /// A command the call waits for.
    Command,
    /// A background job.
    Job,
}

/// The sandbox of one `run_shell` call: the ruleset to apply, or why there is none.
pub(crate) struct CallSandbox {
    pub(crate) prepared: Option<Prepared>,
    /// Why the command runs unsandboxed, for the result's note.
    pub(crate) unsandboxed: Option<String>,
}

impl CallSandbox {
    /// The sandbox the coordinator's [`SandboxConfig`] (or the default) gives a command in
    /// `ws`.
    ///
    /// # Errors
    /// An error for the model when the kernel has Landlock but the ruleset could not be built:
    /// the command is not run unconfined instead.
    pub(crate) fn for_call(
        ctx: &tool_core::context::ToolContext,
        ws: &tool_core::Workspace,
        lasting: Lasting,
    ) -> Result<CallSandbox, tool_core::ToolError> {
        let mut config = ctx
            .state::<SandboxConfig>()
            .map(|config| SandboxConfig::clone(config))
            .unwrap_or_default();
        // The session's "always" grants: a command that could read them could learn what it
        // may run unasked; the coordinator names the file as state.
        if let Some(grants) = ctx.state::<tool_core::approval::GrantsFile>() {
            config.deny_read.push(grants.path().to_owned());
        }
        // The coordinator's path rules, from settings or from code: what a `Read(..)` deny
        // rule keeps from the file tools, it keeps from commands too, as far as the rule names
        // concrete paths.
        if let Some(rules) = ws.access_rules() {
            use tool_core::workspace::Access;
            for path in rules.denied_paths(Access::Read) {
                if !config.deny_read.contains(&path) {
                    config.deny_read.push(path);
                }
            }
            for path in rules.denied_paths(Access::Write) {
                if !config.deny_write.contains(&path) {
                    config.deny_write.push(path);
                }
            }
            // A rule written as a bare name (the protected `.git`, `Read(.env)`) matches at
            // any depth, which no mount can hold; the entries it names at the roots, where a
            // repository's `.git` and a project's `.env` are, are held as paths. (Deeper ones
            // are the policy's and the file tools' to hold.)
            for root in ws.roots() {
                let Ok(entries) = std::fs::read_dir(root) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let (name, absolute) = (PathBuf::from(entry.file_name()), entry.path());
                    let path = tool_core::workspace::AccessPath {
                        relative: Some(&name),
                        absolute: &absolute,
                    };
                    for (access, held) in [
                        (Access::Read, &mut config.deny_read),
                        (Access::Write, &mut config.deny_write),
                    ] {
                        let covered = |held: &[PathBuf]| {
                            held.iter()
                                .any(|p| *p == absolute || root.join(p) == absolute)
                        };
                        if rules.governs(access)
                            && rules.denying_rule(access, path).is_some()
                            && !covered(held)
                        {
                            held.push(absolute.clone());
                        }
                    }
                }
            }
        }
        let sandbox = match config.effective() {
            Ok(sandbox) => sandbox,
            Err(why) => {
                return Ok(CallSandbox {
                    prepared: None,
                    unsandboxed: Some(format!(
                        "not sandboxed: {why}; the command could write anywhere this process can"
                    )),
                });
            }
        };
        Self::prepare(ctx, ws, &config, &sandbox, lasting)
    }

    #[cfg(target_os = "linux")]
    fn prepare(
        ctx: &tool_core::context::ToolContext,
        ws: &tool_core::Workspace,
        config: &SandboxConfig,
        sandbox: &Sandbox,
        lasting: Lasting,
    ) -> Result<CallSandbox, tool_core::ToolError> {
        let failed = |error: std::io::Error| {
            tool_core::ToolError::failed(format!(
                "the command was not run: its sandbox could not be set up ({error}); set SandboxConfig::enabled to false to run commands unsandboxed"
            ))
        };
        let temp = ctx.session_state::<SandboxTemp>();
        let tmpdir = temp.dir().map_err(failed)?;
        let unreadable = temp.unreadable().map_err(failed)?;
        let abi = match sandbox {
            Sandbox::Enforced { abi } | Sandbox::Partial { abi, .. } => *abi,
            Sandbox::Unsupported { .. } => 0,
        };
        let private = ruleset::Private {
            tmpdir: &tmpdir,
            unreadable: &unreadable,
        };
        let prepared = Prepared::new(config, abi, ws.roots(), &private, lasting).map_err(failed)?;
        let unsandboxed = match sandbox {
            Sandbox::Partial { why, .. } if config.network.is_restricted() => Some(format!(
                "the sandbox holds files but not the network: {why}"
            )),
            _ => None,
        };
        Ok(CallSandbox {
            prepared: Some(prepared),
            unsandboxed,
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn prepare(
        _: &tool_core::context::ToolContext,
        _: &tool_core::Workspace,
        _: &SandboxConfig,
        sandbox: &Sandbox,
        _: Lasting,
    ) -> Result<CallSandbox, tool_core::ToolError> {
        Ok(CallSandbox {
            prepared: None,
            unsandboxed: Some(format!("not sandboxed: {sandbox}")),
        })
    }

    /// The note for a failed command's `output` when the sandbox refused it something.
    pub(crate) fn denial(&self, output: &str, workdir: &std::path::Path) -> Option<String> {
        denial_note(output, &self.prepared.as_ref()?.bounds(workdir))
    }
}

impl SandboxConfig {
    /// The configuration Claude Code style settings give: `sandbox.enabled` (default on);
    /// [`deny_read`](Self::deny_read) from the `Read(...)` deny rules that name concrete paths
    /// (`Read(./.env)`, `Read(//etc/shadow)`, `Read(~/.ssh/**)`, `Read(/secrets/**)` from a
    /// settings file: a trailing `/**` is the directory) plus the settings files themselves.
    /// Rules with other glob characters cannot be expressed (Landlock grants by path) and are
    /// left to the policy, which still refuses them to the file tools.
    ///
    /// ```
    /// use tool_core::settings::Settings;
    /// use tool_std::shell::sandbox::SandboxConfig;
    ///
    /// let settings = Settings::from_json(r#"{
    ///     "permissions": {"deny": ["Read(./.env)", "Read(//etc/shadow)", "Read(**/*.pem)", "Bash(rm:*)"]},
    ///     "sandbox": {"enabled": true}
    /// }"#).unwrap();
    /// let config = SandboxConfig::from_settings(&settings);
    /// assert!(config.enabled);
    /// assert_eq!(config.deny_read, [std::path::PathBuf::from(".env"), "/etc/shadow".into()]);
    /// ```
    #[must_use]
    pub fn from_settings(settings: &tool_core::settings::Settings) -> SandboxConfig {
        let mut deny_read: Vec<PathBuf> = settings
            .permissions
            .deny
            .iter()
            .filter_map(|rule| concrete_path(rule, "Read"))
            .collect();
        deny_read.extend(settings.files.iter().cloned());
        let deny_write = settings
            .permissions
            .deny
            .iter()
            .filter_map(|rule| concrete_path(rule, "Edit").or_else(|| concrete_path(rule, "Write")))
            .collect();
        SandboxConfig {
            enabled: settings.sandbox.enabled.unwrap_or(true),
            deny_read,
            deny_write,
            ..SandboxConfig::default()
        }
    }

    /// The sandbox this configuration gives on this kernel, or why commands run unsandboxed.
    pub(crate) fn effective(&self) -> Result<Sandbox, String> {
        if !self.enabled {
            return Err("the sandbox is turned off (SandboxConfig::enabled)".to_owned());
        }
        if self.assume_unsupported {
            return Err("the kernel has no Landlock (assumed by the configuration)".to_owned());
        }
        match status() {
            Sandbox::Unsupported { why } => Err(why),
            held => Ok(held),
        }
    }
}

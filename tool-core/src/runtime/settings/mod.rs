//! Claude Code style `settings.json`: permission rules, the default mode, additional
//! directories, hooks, which of a project's `.mcp.json` servers may start, and our own
//! `toolkit` keys (approval conditions, trusted MCP servers). Every key, with examples, is in
//! the guide's settings page (`docs/settings.md`).
//!
//! This module reads one file or text ([`Settings::load`], [`Settings::from_json`]), finds and
//! merges the files Claude Code reads ([`Settings::discover`]; [`Settings::merge`]: later lists
//! append, a later `defaultMode` wins), and says what it read but does not run
//! ([`Settings::ignored`]) and what looks like a mistake ([`Settings::warnings`]). Rules stay
//! strings, each with where it came from ([`Settings::rule_sources`]): the policy parses them.
//! Hooks become a [`Hooks`].
//!
//! Two choices a reader might question: relative `additionalDirectories` belong to the
//! project the file belongs to (`<project>` for `<project>/.claude/settings.json`), not to the
//! working directory; and a misspelt key of Claude Code's is a warning (Claude Code ignores
//! keys it does not know) while a misspelt key under `toolkit` is an error (it could drop a
//! condition unnoticed). Each error names the file, the JSON location and what would be right.
//!
//! ```
//! use tool_core::{policy::Mode, settings::Settings};
//!
//! let settings = Settings::from_json(r#"{
//!     "permissions": {"deny": ["Read(./secrets/**)"], "defaultMode": "acceptEdits"},
//!     "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}
//! }"#).unwrap();
//! assert_eq!(settings.permissions.default_mode, Some(Mode::AcceptEdits));
//! assert_eq!(settings.ignored[0].location, "hooks.Stop"); // kept, not run
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

mod discover;
mod file;
mod keys;
mod read;

pub use discover::{McpJsonApproval, RuleSource, SettingsLocations, SettingsScope, SettingsSource};

use crate::definition::suggest::Backticked;
use crate::definition::workspace::expand_home;
use crate::runtime::config;
use crate::runtime::hooks::{HookEvent, Hooks, Matcher, MatcherError, ModelHookKind};
use crate::runtime::policy::{ConditionError, ConditionalRule, Mode};

/// Settings read from one or more Claude Code style `settings.json` files. Give them to the
/// coordinator with [`CoordinatorBuilder::settings`](crate::coordinator::CoordinatorBuilder::settings).
///
/// ```
/// use tool_core::{policy::Mode, settings::Settings};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let project = Settings::from_json(
///     r#"{"permissions": {"allow": ["Bash(cargo test:*)"], "defaultMode": "plan"}}"#,
/// )?;
/// let local = Settings::from_json(
///     r#"{"permissions": {"deny": ["Read(./.env)"], "defaultMode": "acceptEdits"}}"#,
/// )?;
/// let mut settings = Settings::default();
/// settings.merge(project);
/// settings.merge(local);
/// assert_eq!(settings.permissions.allow, ["Bash(cargo test:*)"]);
/// assert_eq!(settings.permissions.deny, ["Read(./.env)"]);
/// assert_eq!(settings.permissions.default_mode, Some(Mode::AcceptEdits)); // the later one wins
///
/// // Claude Code's files, lowest precedence first; those that do not exist are skipped.
/// let project_dir = tempfile::tempdir()?;
/// let paths = Settings::standard_paths(None, project_dir.path());
/// assert_eq!(paths, [
///     project_dir.path().join(".claude/settings.json"),
///     project_dir.path().join(".claude/settings.local.json"),
/// ]);
/// assert!(Settings::load_merged(&paths)?.files.is_empty());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Settings {
    /// The `permissions` section.
    pub permissions: Permissions,
    /// The command hooks of the events this framework runs.
    pub hooks: Hooks,
    /// The `sandbox` section.
    pub sandbox: SandboxSettings,
    /// `toolkit.conditions`, our extension: declarative rules on a call's arguments, file
    /// sizes and effect class (see the [module docs](self)). A coordinator adds them to its
    /// policy.
    pub conditions: Vec<ConditionalRule>,
    /// `toolkit.trustedMcpServers`, our extension: the MCP servers whose tool annotations
    /// (`readOnlyHint`, ...) are believed when their tools are imported, by name and, pinned,
    /// by what is started or reached (see the [module docs](self)). See
    /// `tool_core::mcp::client` (feature `mcp`).
    pub trusted_mcp_servers: Vec<TrustedMcpServer>,
    /// Entries understood but not run here, for a warning.
    pub ignored: Vec<IgnoredEntry>,
    /// Entries loaded that may not do what they seem to: an allow rule with a `*` before the
    /// end of its command allows more than it reads (`Bash(git * main)` also allows
    /// `git push --force origin main`).
    pub warnings: Vec<SettingsWarning>,
    /// The files these settings were read from. A coordinator protects them: a tool that could
    /// rewrite them could grant itself anything.
    pub files: Vec<std::path::PathBuf>,
    /// Where each permission rule came from, in the order the rules apply.
    pub rule_sources: Vec<RuleSource>,
    /// Which servers of the project's `.mcp.json` may start.
    pub mcp_json: McpJsonApproval,
    /// `prompt` and `agent` hooks: they need the program's model, so a coordinator registers
    /// them at `build()`, with [`hook_model`](crate::coordinator::CoordinatorBuilder::hook_model),
    /// and fails to build without one.
    pub model_hooks: Vec<ModelHookSpec>,
    /// `mcp_tool` hooks: they call a tool of an imported MCP server, so a coordinator
    /// registers them at `build()`, once its toolset holds `mcp__<server>__<tool>`.
    pub mcp_tool_hooks: Vec<McpToolHookSpec>,
}

/// An `mcp_tool` hook as the settings give it, waiting for the toolset that holds its tool.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct McpToolHookSpec {
    /// The event it runs for.
    pub event: HookEvent,
    /// The tools it applies to.
    pub matcher: Matcher,
    /// The MCP server's name.
    pub server: String,
    /// The server's tool.
    pub tool: String,
    /// The tool's arguments, `${path}` placeholders filled in from the event's input.
    pub input: Map<String, Value>,
    /// How long the tool may take.
    pub timeout: Duration,
    /// The file it came from, or `settings`.
    pub origin: String,
    /// Its JSON location.
    pub location: String,
}

/// A `prompt` or `agent` hook as the settings give it, waiting for the program's model.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ModelHookSpec {
    /// The event it runs for.
    pub event: HookEvent,
    /// The tools it applies to.
    pub matcher: Matcher,
    /// Prompt or agent.
    pub kind: ModelHookKind,
    /// The prompt (`$ARGUMENTS` is the event's input JSON).
    pub prompt: String,
    /// The model it names, if any.
    pub model: Option<String>,
    /// How long the model may take.
    pub timeout: Duration,
    /// The file it came from, or `settings`.
    pub origin: String,
    /// Its JSON location (`hooks.PreToolUse[0].hooks[1]`).
    pub location: String,
}

/// An MCP server the user trusts (`toolkit.trustedMcpServers`): a name, and, pinned, the
/// command line it must be started with or the URL it must be reached at.
///
/// A bare name trusts whatever a configuration calls by that name, a project's `.mcp.json`
/// included: a repository could name its own server after one the user trusts. A pinned entry
/// trusts that name only for that command line (after `${VAR}` expansion) or that URL.
///
/// ```
/// use tool_core::settings::{Settings, TrustedMcpServer};
///
/// let settings = Settings::from_json(r#"{"toolkit": {"trustedMcpServers": [
///     "notes",
///     {"name": "files", "command": ["mcp-files", "/srv"]},
///     {"name": "github", "url": "https://api.example.com/mcp"}
/// ]}}"#).unwrap();
/// let [notes, files, github] = settings.trusted_mcp_servers.as_slice() else { panic!() };
/// assert_eq!(notes, &TrustedMcpServer::named("notes"));
/// assert!(files.trusts("files", Some(&["mcp-files".to_owned(), "/srv".to_owned()]), None));
/// assert!(!files.trusts("files", Some(&["evil-files".to_owned()]), None));
/// assert!(github.trusts("github", None, Some("https://api.example.com/mcp")));
/// assert!(!notes.trusts("files", None, None));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TrustedMcpServer {
    /// The server's name in the MCP configuration; `"*"` for any name.
    pub name: String,
    /// The program and its arguments the server must be started with, when pinned.
    pub command: Option<Vec<String>>,
    /// The URL the server must be reached at, when pinned.
    pub url: Option<String>,
}

impl TrustedMcpServer {
    /// Trusts the server called `name` (`"*"`: every server), whatever it runs.
    #[must_use]
    pub fn named(name: impl Into<String>) -> Self {
        TrustedMcpServer {
            name: name.into(),
            command: None,
            url: None,
        }
    }

    /// Whether this entry trusts the server called `name`, started with `command` (the
    /// program, then its arguments) or reached at `url`.
    #[must_use]
    pub fn trusts(&self, name: &str, command: Option<&[String]>, url: Option<&str>) -> bool {
        (self.name == "*" || self.name == name)
            && self
                .command
                .as_deref()
                .is_none_or(|pinned| command == Some(pinned))
            && self.url.as_deref().is_none_or(|pinned| url == Some(pinned))
    }
}

impl From<&str> for TrustedMcpServer {
    fn from(name: &str) -> Self {
        TrustedMcpServer::named(name)
    }
}

/// The `sandbox` section: how the application's shell sandbox is set. tool-core runs no
/// sandbox itself; the shell tool that has one (tool-std's `run_shell`, under Landlock) reads
/// these. Claude Code's other `sandbox` keys (`excludedCommands`, `network`, ...) are kept in
/// [`Settings::ignored`].
///
/// ```
/// use tool_core::settings::Settings;
///
/// let settings = Settings::from_json(
///     r#"{"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true}}"#,
/// ).unwrap();
/// assert_eq!(settings.sandbox.enabled, Some(true));
/// assert_eq!(settings.sandbox.auto_allow_bash_if_sandboxed, Some(true));
///
/// let error = Settings::from_json(r#"{"sandbox": {"enabled": "yes"}}"#).unwrap_err();
/// assert!(error.to_string().contains("`sandbox.enabled`"), "{error}");
/// assert!(error.to_string().contains("true or false"), "{error}");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SandboxSettings {
    /// `enabled`: run shell commands in the sandbox where the system supports it.
    pub enabled: Option<bool>,
    /// `autoAllowBashIfSandboxed`: a shell command no rule denies or asks about runs without
    /// asking when the sandbox holds it.
    pub auto_allow_bash_if_sandboxed: Option<bool>,
}

/// The `permissions` section.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Permissions {
    /// `allow`: rules whose calls run without asking, as written.
    pub allow: Vec<String>,
    /// `ask`: rules whose calls ask first, as written.
    pub ask: Vec<String>,
    /// `deny`: rules whose calls never run, as written.
    pub deny: Vec<String>,
    /// `defaultMode`: the session's starting mode, if set.
    pub default_mode: Option<Mode>,
    /// `additionalDirectories`: directories besides the workspace root. Read from a file, each
    /// is absolute and canonical, resolved against the settings' project directory; read from
    /// text, as written (see the [module docs](self)).
    pub additional_directories: Vec<PathBuf>,
}

/// Something in the settings that is loaded but may not do what it seems to, and where it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsWarning {
    /// The file (or `settings` for text given directly).
    pub origin: String,
    /// The JSON location (`permissions.allow[3]`).
    pub location: String,
    /// What to know about it.
    pub message: String,
}

impl fmt::Display for SettingsWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: `{}`: {}", self.origin, self.location, self.message)
    }
}

/// Something in the settings that this framework does not run, and where it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredEntry {
    /// The file (or `settings` for text given directly).
    pub origin: String,
    /// The JSON location (`hooks.Stop`, `hooks.PreToolUse[0].hooks[1]`).
    pub location: String,
    /// Why it is ignored.
    pub reason: String,
}

impl fmt::Display for IgnoredEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: `{}` ignored: {}",
            self.origin, self.location, self.reason
        )
    }
}

/// Settings that could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// The file could not be read.
    #[error("could not read settings file `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The text is not JSON.
    #[error("{origin}: not valid JSON at line {line}, column {column}: {source}")]
    Syntax {
        /// The file.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser said.
        source: serde_json::Error,
    },
    /// A value of the wrong kind.
    #[error("{origin}: `{location}` should be {expected}, found {found}")]
    Invalid {
        /// The file.
        origin: String,
        /// The JSON location.
        location: String,
        /// What would be right.
        expected: String,
        /// What was there.
        found: String,
    },
    /// A `defaultMode` that is no mode.
    #[error(
        "{origin}: `{location}` is \"{value}\", not a permission mode; expected one of \"default\", \"acceptEdits\", \"plan\", \"bypassPermissions\""
    )]
    UnknownMode {
        /// The file.
        origin: String,
        /// The JSON location.
        location: String,
        /// What was written.
        value: String,
    },
    /// An `additionalDirectories` entry that names no usable directory.
    #[error(
        "{origin}: `{location}` is \"{entry}\", which names `{}`, and {problem}; create the directory, or correct or remove the entry",
        path.display()
    )]
    AdditionalDirectory {
        /// The file.
        origin: String,
        /// The JSON location.
        location: String,
        /// The entry as written.
        entry: String,
        /// The directory it names: a relative entry joined onto the project directory (or a
        /// coordinator's workspace root, for settings read from text).
        path: PathBuf,
        /// What is wrong with it: it does not exist, is not a directory, cannot be read.
        problem: String,
    },
    /// A permission rule that does not parse.
    #[error("{origin}: `{location}`: {source}")]
    Rule {
        /// The file.
        origin: String,
        /// The JSON location (`permissions.allow[0]`).
        location: String,
        /// What is wrong with the rule (boxed: it is large, and errors travel by value).
        source: Box<crate::runtime::policy::RuleSyntaxError>,
    },
    /// A hook matcher that does not compile.
    #[error("{origin}: `{location}`: {source}")]
    Matcher {
        /// The file.
        origin: String,
        /// The JSON location.
        location: String,
        /// The matcher's problem.
        source: MatcherError,
    },
    /// A key our own `toolkit` section does not have (a typo there could silently drop a
    /// condition, so it is an error, unlike keys of Claude Code's that we do not use).
    #[error(
        "{origin}: `{location}` is not a key of {what} (its keys are {}){}",
        backticked(.known),
        .suggestion.map(|key| format!("; did you mean `{key}`?")).unwrap_or_default()
    )]
    UnknownKey {
        /// The file.
        origin: String,
        /// The JSON location of the key.
        location: String,
        /// What the object around it is.
        what: &'static str,
        /// The keys it may have.
        known: &'static [&'static str],
        /// The known key closest to the one written, if one is close.
        suggestion: Option<&'static str>,
    },
    /// A conditional rule's tool, or a condition's regular expression, that cannot be used.
    #[error("{origin}: `{location}`: {source}")]
    Condition {
        /// The file.
        origin: String,
        /// The JSON location.
        location: String,
        /// What is wrong with it.
        source: ConditionError,
    },
}

impl Settings {
    /// What loaded but may not do what it seems: a key of Claude Code's that is none of its
    /// section's (with the key it likely misspells), an allow rule that allows more than it
    /// reads, an allow condition that allows everything. The [`warnings`](Settings::warnings)
    /// field, for a program to show its user (`toolbox` prints them).
    ///
    /// ```
    /// use tool_core::settings::Settings;
    ///
    /// let settings = Settings::from_json(r#"{"permisions": {"allow": ["Bash(ls)"]}}"#).unwrap();
    /// assert_eq!(
    ///     settings.warnings()[0].to_string(),
    ///     "settings: `permisions`: not a key of Claude Code's settings, so it has no effect; did you mean `permissions`?"
    /// );
    /// ```
    #[must_use]
    pub fn warnings(&self) -> &[SettingsWarning] {
        &self.warnings
    }

    /// Reads one settings file. Relative `additionalDirectories` entries are resolved against
    /// the file's [project directory](Settings::project_dir).
    ///
    /// # Errors
    ///
    /// [`SettingsError`] naming the file, the JSON location and what was expected; an
    /// `additionalDirectories` entry that is not an existing directory is one.
    pub fn load(path: impl AsRef<Path>) -> Result<Settings, SettingsError> {
        let path = path.as_ref();
        let text = config::read_file(path).map_err(|source| SettingsError::Read {
            path: path.to_owned(),
            source,
        })?;
        let project = Settings::project_dir(path);
        let mut settings = read::parse(&text, &path.display().to_string(), Some(&project))?;
        settings.files.push(path.to_owned());
        Ok(settings)
    }

    /// The project a settings file belongs to, against which its relative
    /// `additionalDirectories` resolve: `<project>` for `<project>/.claude/<file>`, else the
    /// file's own directory. Absolute (joined onto the current directory if `file` is
    /// relative).
    ///
    /// ```
    /// use std::path::Path;
    /// use tool_core::settings::Settings;
    ///
    /// let project = Settings::project_dir(Path::new("/work/app/.claude/settings.local.json"));
    /// assert_eq!(project, Path::new("/work/app"));
    /// assert_eq!(Settings::project_dir(Path::new("/etc/agent/settings.json")), Path::new("/etc/agent"));
    /// ```
    #[must_use]
    pub fn project_dir(file: &Path) -> PathBuf {
        let file = std::path::absolute(file).unwrap_or_else(|_| file.to_owned());
        let dir = file.parent().unwrap_or(Path::new("/"));
        match dir.file_name() {
            Some(name) if name == ".claude" => dir.parent().unwrap_or(dir).to_owned(),
            _ => dir.to_owned(),
        }
    }

    /// Reads settings files in order (user, then project, then local) and merges them; files
    /// that do not exist are skipped.
    ///
    /// # Errors
    ///
    /// The first file that exists and cannot be read or parsed.
    pub fn load_merged<P: AsRef<Path>>(
        paths: impl IntoIterator<Item = P>,
    ) -> Result<Settings, SettingsError> {
        let mut merged = Settings::default();
        for path in paths {
            let path = path.as_ref();
            if path.exists() {
                merged.merge(Settings::load(path)?);
            }
        }
        Ok(merged)
    }

    /// Claude Code's settings files, lowest precedence first: the user's
    /// (`~/.claude/settings.json`, if `home` is known), the project's
    /// (`.claude/settings.json`) and the local one (`.claude/settings.local.json`).
    #[must_use]
    pub fn standard_paths(home: Option<&Path>, project: &Path) -> Vec<PathBuf> {
        let mut paths = Vec::with_capacity(3);
        if let Some(home) = home {
            paths.push(home.join(".claude").join("settings.json"));
        }
        paths.push(project.join(".claude").join("settings.json"));
        paths.push(project.join(".claude").join("settings.local.json"));
        paths
    }

    /// Parses settings text; errors name it `settings`. Text belongs to no file, so
    /// `additionalDirectories` entries are kept as written: a coordinator built with these
    /// settings resolves relative ones against its workspace's first root.
    ///
    /// # Errors
    ///
    /// [`SettingsError`] naming the JSON location and what was expected.
    pub fn from_json(text: &str) -> Result<Settings, SettingsError> {
        read::parse(text, "settings", None)
    }

    /// Adds `later`'s settings after these: lists append, a later `defaultMode` wins, later
    /// hooks register after earlier ones, later conditions are added after earlier ones.
    pub fn merge(&mut self, later: Settings) {
        let permissions = later.permissions;
        self.permissions.allow.extend(permissions.allow);
        self.permissions.ask.extend(permissions.ask);
        self.permissions.deny.extend(permissions.deny);
        if permissions.default_mode.is_some() {
            self.permissions.default_mode = permissions.default_mode;
        }
        self.permissions
            .additional_directories
            .extend(permissions.additional_directories);
        self.hooks.extend(&later.hooks);
        if later.sandbox.enabled.is_some() {
            self.sandbox.enabled = later.sandbox.enabled;
        }
        if later.sandbox.auto_allow_bash_if_sandboxed.is_some() {
            self.sandbox.auto_allow_bash_if_sandboxed = later.sandbox.auto_allow_bash_if_sandboxed;
        }
        self.conditions.extend(later.conditions);
        self.trusted_mcp_servers.extend(later.trusted_mcp_servers);
        self.ignored.extend(later.ignored);
        self.warnings.extend(later.warnings);
        self.files.extend(later.files);
        self.rule_sources.extend(later.rule_sources);
        if later.mcp_json.enable_all.is_some() {
            self.mcp_json.enable_all = later.mcp_json.enable_all;
        }
        self.mcp_json.enabled.extend(later.mcp_json.enabled);
        self.mcp_json.disabled.extend(later.mcp_json.disabled);
        self.model_hooks.extend(later.model_hooks);
        self.mcp_tool_hooks.extend(later.mcp_tool_hooks);
    }

    /// Where these settings came from, for errors: their files, or `settings` for text.
    pub(crate) fn origin(&self) -> String {
        if self.files.is_empty() {
            return "settings".to_owned();
        }
        let files: Vec<String> = self.files.iter().map(|f| f.display().to_string()).collect();
        files.join(", ")
    }
}

/// Names in backticks, separated by commas: "`a`, `b`".
fn backticked(names: &[&str]) -> String {
    let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
    Backticked(&names).to_string()
}

/// An `additionalDirectories` entry as a directory: `~/` is the home directory, a relative
/// entry is joined onto `base`; the result must be an existing directory, and is canonical.
///
/// # Errors
/// [`SettingsError::AdditionalDirectory`] naming `origin`, `location` and the entry.
pub(crate) fn additional_directory(
    origin: &str,
    location: &str,
    entry: &Path,
    base: &Path,
) -> Result<PathBuf, SettingsError> {
    let text = entry.to_string_lossy();
    let path = expand_home(&text).unwrap_or_else(|| base.join(entry));
    let problem = match path.canonicalize() {
        Ok(canonical) if canonical.is_dir() => return Ok(canonical),
        Ok(_) => "it is not a directory".to_owned(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            "it does not exist".to_owned()
        }
        Err(error) => format!("it cannot be read ({error})"),
    };
    Err(SettingsError::AdditionalDirectory {
        origin: origin.to_owned(),
        location: location.to_owned(),
        entry: text.into_owned(),
        path,
        problem,
    })
}

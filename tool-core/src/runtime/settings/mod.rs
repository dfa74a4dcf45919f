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
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};

mod discover;
mod keys;

pub use discover::{McpJsonApproval, RuleSource, SettingsLocations, SettingsScope, SettingsSource};

use crate::definition::suggest::{Backticked, closest};
use crate::definition::workspace::expand_home;
use crate::runtime::config;
use crate::runtime::hooks::{
    BackgroundHook, CommandHook, DEFAULT_TIMEOUT, Hook, HookEvent, Hooks, Matcher, MatcherError,
    ModelHookKind,
};
use crate::runtime::policy::{
    Condition, ConditionError, ConditionalRule, EffectFilter, Mode, RulePattern, Verdict,
};

/// The keys of Claude Code's `permissions` object.
/// The keys of a hook group (`hooks.PreToolUse[0]`).
const GROUP_KEYS: &[&str] = &["matcher", "hooks"];

/// The keys of a hook of any of Claude Code's types (`hooks.PreToolUse[0].hooks[0]`).
const HANDLER_KEYS: &[&str] = &[
    "type",
    "command",
    "timeout",
    "async",
    "statusMessage",
    "once",
    "url",
    "headers",
    "allowedEnvVars",
    "prompt",
    "model",
    "server",
    "tool",
    "input",
];

const PERMISSION_KEYS: [&str; 6] = [
    "allow",
    "ask",
    "deny",
    "defaultMode",
    "additionalDirectories",
    "disableBypassPermissionsMode",
];

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
    /// Reads one settings file. Relative `additionalDirectories` entries are resolved against
    /// the file's [project directory](Settings::project_dir).
    ///
    /// # Errors
    ///
    /// [`SettingsError`] naming the file, the JSON location and what was expected; an
    /// `additionalDirectories` entry that is not an existing directory is one.
    pub fn load(path: impl AsRef<Path>) -> Result<Settings, SettingsError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| SettingsError::Read {
            path: path.to_owned(),
            source,
        })?;
        let project = Settings::project_dir(path);
        let mut settings = Settings::parse(&text, &path.display().to_string(), Some(&project))?;
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
        Settings::parse(text, "settings", None)
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

    fn parse(text: &str, origin: &str, project: Option<&Path>) -> Result<Settings, SettingsError> {
        let value: Value = serde_json::from_str(text).map_err(|error| SettingsError::Syntax {
            origin: origin.to_owned(),
            line: error.line(),
            column: error.column(),
            source: error,
        })?;
        let reader = Reader { origin, project };
        let root = reader.object(&value, "the settings")?;
        let mut settings = Settings::default();
        if let Some(permissions) = present(root, "permissions") {
            settings.permissions = reader.permissions(permissions)?;
            // A rule that does not parse is refused here, where its file and place are known,
            // rather than when the policy is built from the merged lists.
            let lists = [
                ("allow", &settings.permissions.allow),
                ("ask", &settings.permissions.ask),
                ("deny", &settings.permissions.deny),
            ];
            for (list, rules) in lists {
                for (index, rule) in rules.iter().enumerate() {
                    if let Err(source) = RulePattern::parse(rule) {
                        return Err(SettingsError::Rule {
                            origin: origin.to_owned(),
                            location: format!("permissions.{list}[{index}]"),
                            source: Box::new(source),
                        });
                    }
                    settings.rule_sources.push(RuleSource {
                        list,
                        rule: rule.clone(),
                        origin: origin.to_owned(),
                        scope: None,
                    });
                }
            }
            // A misspelt key (`allwo`) would leave its rules without effect, unsaid.
            let unknown = permissions.as_object().into_iter().flat_map(|object| {
                object
                    .keys()
                    .filter(|key| !PERMISSION_KEYS.contains(&key.as_str()))
            });
            for key in unknown {
                let suggestion = closest(key, PERMISSION_KEYS.iter().copied(), 1)
                    .first()
                    .map(|known| format!("; did you mean `{known}`?"))
                    .unwrap_or_default();
                settings.ignored.push(reader.ignored(
                    &format!("permissions.{key}"),
                    format!(
                        "`{key}` is not a key of `permissions` (its keys are {}){suggestion}",
                        backticked(&PERMISSION_KEYS)
                    ),
                ));
            }
            for (index, rule) in settings.permissions.allow.iter().enumerate() {
                let warning = RulePattern::parse(rule)
                    .ok()
                    .and_then(|rule| rule.allow_warning());
                if let Some(message) = warning {
                    settings.warnings.push(SettingsWarning {
                        origin: origin.to_owned(),
                        location: format!("permissions.allow[{index}]"),
                        message,
                    });
                }
            }
        }
        if let Some(hooks) = present(root, "hooks") {
            reader.hooks(hooks, &mut settings)?;
        }
        if let Some(toolkit) = present(root, "toolkit") {
            reader.toolkit(toolkit, &mut settings)?;
        }
        if let Some(sandbox) = present(root, "sandbox") {
            reader.sandbox(sandbox, &mut settings)?;
        }
        if let Some(all) = present(root, "enableAllProjectMcpServers") {
            settings.mcp_json.enable_all = Some(reader.flag(all, "enableAllProjectMcpServers")?);
        }
        if let Some(enabled) = present(root, "enabledMcpjsonServers") {
            settings.mcp_json.enabled = reader.strings(enabled, "enabledMcpjsonServers")?;
        }
        if let Some(disabled) = present(root, "disabledMcpjsonServers") {
            settings.mcp_json.disabled = reader.strings(disabled, "disabledMcpjsonServers")?;
        }
        settings.warnings.extend(keys::unknown(root, origin));
        Ok(settings)
    }
}

/// A path rule (`Read`, `Edit`, `Write`) whose pattern starts with one `/` is relative to the
/// settings file's project: written out from the file-system root (`//`), glob characters of
/// the project's path escaped. Every other rule is kept as written.
fn anchor_at_project(rule: String, project: &Path) -> String {
    let Some((tool, rest)) = rule.split_once('(') else {
        return rule;
    };
    let is_path_rule = matches!(tool.trim(), "Read" | "Edit" | "Write");
    let Some(pattern) = rest.strip_suffix(')').map(str::trim) else {
        return rule;
    };
    if !is_path_rule || !pattern.starts_with('/') || pattern.starts_with("//") {
        return rule;
    }
    let project = globset::escape(&project.to_string_lossy());
    format!(
        "{}(/{}/{})",
        tool.trim(),
        project.trim_end_matches('/'),
        pattern.trim_start_matches('/')
    )
}

/// Names in backticks, separated by commas: "`a`, `b`".
fn backticked(names: &[&str]) -> String {
    let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
    Backticked(&names).to_string()
}

/// A field that is there and not `null`.
fn present<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|value| !value.is_null())
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

/// Claude Code's `permissions` section, as far as it is read here (its rules are checked
/// and anchored after). A key not here is warned about where the file is parsed.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PermissionsEntry {
    allow: Option<Vec<String>>,
    ask: Option<Vec<String>>,
    deny: Option<Vec<String>>,
    default_mode: Option<String>,
    additional_directories: Option<Vec<String>>,
}

/// A setting that is on or off, which says so when it is something else ("should be true or
/// false").
struct Flag(bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OnOrOff;
        impl serde::de::Visitor<'_> for OnOrOff {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true or false")
            }
            fn visit_bool<E: serde::de::Error>(self, flag: bool) -> Result<Flag, E> {
                Ok(Flag(flag))
            }
        }
        deserializer.deserialize_bool(OnOrOff)
    }
}

/// A number of seconds (`timeout`), whole or not; whether it is positive is checked after.
struct Seconds(f64);

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Number;
        impl serde::de::Visitor<'_> for Number {
            type Value = Seconds;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a positive number of seconds")
            }
            #[expect(clippy::cast_precision_loss, reason = "seconds, not counts")]
            fn visit_u64<E: serde::de::Error>(self, seconds: u64) -> Result<Seconds, E> {
                Ok(Seconds(seconds as f64))
            }
            #[expect(clippy::cast_precision_loss, reason = "seconds, not counts")]
            fn visit_i64<E: serde::de::Error>(self, seconds: i64) -> Result<Seconds, E> {
                Ok(Seconds(seconds as f64))
            }
            fn visit_f64<E: serde::de::Error>(self, seconds: f64) -> Result<Seconds, E> {
                Ok(Seconds(seconds))
            }
        }
        deserializer.deserialize_f64(Number)
    }
}

/// The `toolkit` section: our own keys only.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ToolkitEntry {
    conditions: Option<Vec<Value>>,
    trusted_mcp_servers: Option<Value>,
}

/// A `toolkit.trustedMcpServers` entry written as an object (a bare string is a name).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustedEntry {
    name: Option<String>,
    command: Option<Vec<String>>,
    url: Option<String>,
}

/// One `toolkit.conditions` entry: our own keys only. `when` and `priority` are read by the
/// reader's own rules (one test per condition, a priority that fits).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConditionEntry {
    name: Option<String>,
    verdict: Option<String>,
    tool: Option<String>,
    effect: Option<String>,
    when: Option<Value>,
    priority: Option<Value>,
}

/// Typed reads of the settings' JSON, with errors that name the file and the location.
struct Reader<'o> {
    origin: &'o str,
    /// The project directory of a file's settings; `None` for text.
    project: Option<&'o Path>,
}

impl Reader<'_> {
    fn invalid(&self, location: &str, expected: &str, found: &Value) -> SettingsError {
        let found = match found {
            Value::String(text) => format!("the string \"{text}\""),
            other => crate::definition::args::json_kind(other).to_owned(),
        };
        SettingsError::Invalid {
            origin: self.origin.to_owned(),
            location: location.to_owned(),
            expected: expected.to_owned(),
            found,
        }
    }

    fn object<'v>(
        &self,
        value: &'v Value,
        location: &str,
    ) -> Result<&'v Map<String, Value>, SettingsError> {
        value
            .as_object()
            .ok_or_else(|| self.invalid(location, "an object", value))
    }

    fn array<'v>(&self, value: &'v Value, location: &str) -> Result<&'v [Value], SettingsError> {
        value
            .as_array()
            .map(Vec::as_slice)
            .ok_or_else(|| self.invalid(location, "an array", value))
    }

    /// `value`, at `location`, as a `T`, read by the crate's configuration reader.
    fn read<'v, T: Deserialize<'v>>(
        &self,
        value: &'v Value,
        location: &str,
    ) -> Result<T, SettingsError> {
        config::read(value, location).map_err(|error| self.invalid_read(&error))
    }

    /// An object of our own keys (`#[serde(deny_unknown_fields)]`), `what` it is named as
    /// when a key it has is none of them.
    fn read_entry<'v, T: Deserialize<'v>>(
        &self,
        value: &'v Value,
        location: &str,
        what: &'static str,
    ) -> Result<T, SettingsError> {
        config::read(value, location).map_err(|error| match error.unknown_field() {
            Some((key, known)) => SettingsError::UnknownKey {
                origin: self.origin.to_owned(),
                location: format!("{}.{key}", error.location()),
                what,
                known,
                suggestion: closest(key, known.iter().copied(), 1).first().copied(),
            },
            None => self.invalid_read(&error),
        })
    }

    fn invalid_read(&self, error: &config::ReadError) -> SettingsError {
        let (expected, found) = error.expected_and_found();
        SettingsError::Invalid {
            origin: self.origin.to_owned(),
            location: error.location().to_owned(),
            expected,
            found,
        }
    }

    fn string<'v>(&self, value: &'v Value, location: &str) -> Result<&'v str, SettingsError> {
        self.read(value, location)
    }

    fn strings(&self, value: &Value, location: &str) -> Result<Vec<String>, SettingsError> {
        self.read(value, location)
    }

    fn flag(&self, value: &Value, location: &str) -> Result<bool, SettingsError> {
        self.read(value, location).map(|Flag(flag)| flag)
    }

    fn permissions(&self, value: &Value) -> Result<Permissions, SettingsError> {
        let entry: PermissionsEntry = self.read(value, "permissions")?;
        let default_mode = match entry.default_mode {
            None => None,
            Some(name) => Some(
                name.parse::<Mode>()
                    .map_err(|_| SettingsError::UnknownMode {
                        origin: self.origin.to_owned(),
                        location: "permissions.defaultMode".to_owned(),
                        value: name,
                    })?,
            ),
        };
        let mut additional_directories = Vec::new();
        let directories = entry.additional_directories.unwrap_or_default();
        for (index, directory) in directories.into_iter().enumerate() {
            let directory = PathBuf::from(directory);
            additional_directories.push(match self.project {
                Some(project) => additional_directory(
                    self.origin,
                    &format!("permissions.additionalDirectories[{index}]"),
                    &directory,
                    project,
                )?,
                None => directory,
            });
        }
        // `Read(/x)` in a settings file means `x` in the file's project (Claude Code's
        // anchors): kept as `Read(//<project>/x)`, so the rule still means that once the lists
        // of several files are merged.
        let anchored = |rules: Vec<String>| -> Vec<String> {
            match self.project {
                Some(project) => rules
                    .into_iter()
                    .map(|rule| anchor_at_project(rule, project))
                    .collect(),
                None => rules,
            }
        };
        Ok(Permissions {
            allow: anchored(entry.allow.unwrap_or_default()),
            ask: anchored(entry.ask.unwrap_or_default()),
            deny: anchored(entry.deny.unwrap_or_default()),
            default_mode,
            additional_directories,
        })
    }

    fn hooks(&self, value: &Value, settings: &mut Settings) -> Result<(), SettingsError> {
        for (event_name, groups) in self.object(value, "hooks")? {
            let event_location = format!("hooks.{event_name}");
            let Ok(event) = event_name.parse::<HookEvent>() else {
                settings.ignored.push(self.ignored(
                    &event_location,
                    format!(
                        "the `{event_name}` event is not run here; hooks run for {}",
                        HookEvent::ALL.map(HookEvent::as_str).join(", ")
                    ),
                ));
                continue;
            };
            for (group_index, group) in self.array(groups, &event_location)?.iter().enumerate() {
                let group_location = format!("{event_location}[{group_index}]");
                self.group(event, group, &group_location, settings)?;
            }
        }
        Ok(())
    }

    fn group(
        &self,
        event: HookEvent,
        value: &Value,
        location: &str,
        settings: &mut Settings,
    ) -> Result<(), SettingsError> {
        let object = self.object(value, location)?;
        settings.warnings.extend(keys::unknown_in(
            object,
            GROUP_KEYS,
            location,
            self.origin,
            "a hook group",
        ));
        let matcher = match present(object, "matcher") {
            Some(value) => {
                let matcher_location = format!("{location}.matcher");
                let text = self.string(value, &matcher_location)?;
                Matcher::new(text).map_err(|source| SettingsError::Matcher {
                    origin: self.origin.to_owned(),
                    location: matcher_location,
                    source,
                })?
            }
            None => Matcher::every(),
        };
        let hooks_location = format!("{location}.hooks");
        let hooks = match present(object, "hooks") {
            Some(value) => self.array(value, &hooks_location)?,
            None => {
                return Err(self.missing_key(
                    object,
                    "hooks",
                    &hooks_location,
                    "an array of hooks",
                ));
            }
        };
        for (index, hook) in hooks.iter().enumerate() {
            let hook_location = format!("{hooks_location}[{index}]");
            let hook_object = self.object(hook, &hook_location)?;
            settings.warnings.extend(keys::unknown_in(
                hook_object,
                HANDLER_KEYS,
                &hook_location,
                self.origin,
                "a hook",
            ));
            let type_location = format!("{hook_location}.type");
            let kind = match present(hook_object, "type") {
                Some(value) => self.string(value, &type_location)?,
                None => return Err(self.missing(&type_location, "a hook type such as \"command\"")),
            };
            let timeout = match present(hook_object, "timeout") {
                Some(value) => self.timeout(value, &format!("{hook_location}.timeout"))?,
                None => DEFAULT_TIMEOUT,
            };
            let hook: Arc<dyn Hook> = match kind {
                "command" => {
                    let command_location = format!("{hook_location}.command");
                    let command = match present(hook_object, "command") {
                        Some(value) => self.string(value, &command_location)?,
                        None => {
                            return Err(self.missing_key(
                                hook_object,
                                "command",
                                &command_location,
                                "the command to run",
                            ));
                        }
                    };
                    Arc::new(CommandHook::new(command).timeout(timeout))
                }
                "prompt" | "agent" => {
                    let prompt_location = format!("{hook_location}.prompt");
                    let prompt = match present(hook_object, "prompt") {
                        Some(value) => self.string(value, &prompt_location)?,
                        None => {
                            return Err(self.missing_key(
                                hook_object,
                                "prompt",
                                &prompt_location,
                                "the prompt for the model",
                            ));
                        }
                    };
                    let model = match present(hook_object, "model") {
                        Some(value) => Some(self.string(value, &format!("{hook_location}.model"))?),
                        None => None,
                    };
                    settings.model_hooks.push(ModelHookSpec {
                        event,
                        matcher: matcher.clone(),
                        kind: if kind == "prompt" {
                            ModelHookKind::Prompt
                        } else {
                            ModelHookKind::Agent
                        },
                        prompt: prompt.to_owned(),
                        model: model.map(str::to_owned),
                        timeout,
                        origin: self.origin.to_owned(),
                        location: hook_location.clone(),
                    });
                    continue;
                }
                "mcp_tool" => {
                    let field = |key: &str, expected: &str| -> Result<String, SettingsError> {
                        let location = format!("{hook_location}.{key}");
                        match present(hook_object, key) {
                            Some(value) => self.string(value, &location).map(str::to_owned),
                            None => Err(self.missing_key(hook_object, key, &location, expected)),
                        }
                    };
                    let server = field("server", "the name of a configured MCP server")?;
                    let tool = field("tool", "the name of the server's tool")?;
                    let input = match present(hook_object, "input") {
                        Some(value) => self
                            .object(value, &format!("{hook_location}.input"))?
                            .clone(),
                        None => Map::new(),
                    };
                    settings.mcp_tool_hooks.push(McpToolHookSpec {
                        event,
                        matcher: matcher.clone(),
                        server,
                        tool,
                        input,
                        timeout,
                        origin: self.origin.to_owned(),
                        location: hook_location.clone(),
                    });
                    continue;
                }
                "http" => match self.http_hook(hook_object, &hook_location, timeout)? {
                    Some(hook) => hook,
                    None => {
                        settings.ignored.push(self.ignored(
                            &hook_location,
                            "hooks of type \"http\" need tool-core's `http-hooks` feature, which this program was built without".to_owned(),
                        ));
                        continue;
                    }
                },
                _ => {
                    settings.ignored.push(self.ignored(
                        &hook_location,
                        format!(
                            "hooks of type \"{kind}\" are not run here; \"command\", \"http\", \"mcp_tool\", \"prompt\" and \"agent\" hooks are"
                        ),
                    ));
                    continue;
                }
            };
            // `async: true`: started, not waited for; it cannot decide anything.
            let background = match present(hook_object, "async") {
                Some(value) => self.flag(value, &format!("{hook_location}.async"))?,
                None => false,
            };
            let hook = if background {
                Arc::new(BackgroundHook::new(hook)) as Arc<dyn Hook>
            } else {
                hook
            };
            settings.hooks.register_shared(event, matcher.clone(), hook);
        }
        Ok(())
    }

    /// An `"type": "http"` hook: `url`, `headers`, `allowedEnvVars`.
    #[cfg(feature = "http-hooks")]
    fn http_hook(
        &self,
        object: &Map<String, Value>,
        location: &str,
        timeout: Duration,
    ) -> Result<Option<Arc<dyn Hook>>, SettingsError> {
        let url_location = format!("{location}.url");
        let url = match present(object, "url") {
            Some(value) => self.string(value, &url_location)?,
            None => return Err(self.missing(&url_location, "the URL to POST the event to")),
        };
        let mut hook = crate::runtime::hooks::HttpHook::new(url)
            .map_err(|error| {
                self.invalid(
                    &url_location,
                    &format!("an http:// or https:// URL ({error})"),
                    &Value::String(url.to_owned()),
                )
            })?
            .timeout(timeout);
        if let Some(headers) = present(object, "headers") {
            let headers_location = format!("{location}.headers");
            for (name, value) in self.object(headers, &headers_location)? {
                let value = self.string(value, &format!("{headers_location}.{name}"))?;
                hook = hook.header(name.clone(), value);
            }
        }
        if let Some(allowed) = present(object, "allowedEnvVars") {
            for name in self.strings(allowed, &format!("{location}.allowedEnvVars"))? {
                hook = hook.allow_env_var(name);
            }
        }
        Ok(Some(Arc::new(hook)))
    }

    /// Without the `http-hooks` feature an http hook is kept in `ignored`.
    #[cfg(not(feature = "http-hooks"))]
    #[expect(
        clippy::unnecessary_wraps,
        reason = "the same shape as with the feature"
    )]
    fn http_hook(
        &self,
        _object: &Map<String, Value>,
        _location: &str,
        _timeout: Duration,
    ) -> Result<Option<Arc<dyn Hook>>, SettingsError> {
        Ok(None)
    }

    fn timeout(&self, value: &Value, location: &str) -> Result<Duration, SettingsError> {
        const EXPECTED: &str = "a positive number of seconds";
        let Seconds(seconds) = self.read(value, location)?;
        Duration::try_from_secs_f64(seconds)
            .ok()
            .filter(|duration| !duration.is_zero())
            .ok_or_else(|| SettingsError::Invalid {
                origin: self.origin.to_owned(),
                location: location.to_owned(),
                expected: EXPECTED.to_owned(),
                found: format!("{seconds}"),
            })
    }

    /// `sandbox`: the keys of Claude Code's that this framework's shell sandbox reads.
    fn sandbox(&self, value: &Value, settings: &mut Settings) -> Result<(), SettingsError> {
        for (key, value) in self.object(value, "sandbox")? {
            let location = format!("sandbox.{key}");
            let flag = match key.as_str() {
                "enabled" => &mut settings.sandbox.enabled,
                "autoAllowBashIfSandboxed" => &mut settings.sandbox.auto_allow_bash_if_sandboxed,
                _ => {
                    settings.ignored.push(self.ignored(
                        &location,
                        "this sandbox key is not read here (only `enabled` and `autoAllowBashIfSandboxed` are)".to_owned(),
                    ));
                    continue;
                }
            };
            if value.is_null() {
                continue;
            }
            *flag = Some(self.flag(value, &location)?);
        }
        Ok(())
    }

    fn toolkit(&self, value: &Value, settings: &mut Settings) -> Result<(), SettingsError> {
        let entry: ToolkitEntry = self.read_entry(value, "toolkit", "the `toolkit` settings")?;
        if let Some(trusted) = &entry.trusted_mcp_servers {
            settings.trusted_mcp_servers = self.trusted_mcp_servers(trusted)?;
        }
        for (index, rule) in entry.conditions.unwrap_or_default().iter().enumerate() {
            let location = format!("toolkit.conditions[{index}]");
            let rule = self.conditional_rule(rule, &location)?;
            if rule.allows_everything() {
                settings.warnings.push(SettingsWarning {
                    origin: self.origin.to_owned(),
                    location,
                    message: "this allow rule names no tool, effect or condition, so it allows every call that no deny or ask rule, mode or deny condition stops".to_owned(),
                });
            }
            settings.conditions.push(rule);
        }
        Ok(())
    }

    /// One `toolkit.conditions` entry.
    fn conditional_rule(
        &self,
        value: &Value,
        location: &str,
    ) -> Result<ConditionalRule, SettingsError> {
        let entry: ConditionEntry = self.read_entry(value, location, "a conditional rule")?;
        let name_location = format!("{location}.name");
        const NAME: &str = "a name for the rule, shown in its decisions and in `explain`";
        let name = match entry.name.as_deref() {
            Some(name) => name.trim(),
            None => return Err(self.missing(&name_location, NAME)),
        };
        if name.is_empty() {
            return Err(self.invalid(&name_location, NAME, &Value::from(name)));
        }
        let verdict_location = format!("{location}.verdict");
        const VERDICTS: &str = "one of \"allow\", \"ask\", \"deny\"";
        let verdict = match entry.verdict.as_deref() {
            None => return Err(self.missing(&verdict_location, VERDICTS)),
            Some("allow") => Verdict::Allow,
            Some("ask") => Verdict::Ask,
            Some("deny") => Verdict::Deny,
            Some(other) => {
                return Err(self.invalid(&verdict_location, VERDICTS, &Value::from(other)));
            }
        };
        let mut rule = ConditionalRule::new(verdict, name);
        if let Some(tool) = &entry.tool {
            let tool_location = format!("{location}.tool");
            rule = rule
                .tool(tool)
                .map_err(|source| self.condition_error(&tool_location, source))?;
        }
        if let Some(effect) = &entry.effect {
            let effect_location = format!("{location}.effect");
            let effect = effect.parse::<EffectFilter>().map_err(|_| {
                self.invalid(
                    &effect_location,
                    "one of \"read_only\", \"mutating\", \"destructive\", \"not_read_only\"",
                    &Value::from(effect.clone()),
                )
            })?;
            rule = rule.effect(effect);
        }
        if let Some(value) = &entry.when {
            let when_location = format!("{location}.when");
            for (index, condition) in self.array(value, &when_location)?.iter().enumerate() {
                let condition_location = format!("{when_location}[{index}]");
                rule = rule.when(self.condition(condition, &condition_location)?);
            }
        }
        if let Some(value) = &entry.priority {
            let priority = value
                .as_i64()
                .and_then(|priority| i32::try_from(priority).ok())
                .ok_or_else(|| {
                    self.invalid(
                        &format!("{location}.priority"),
                        "a whole number (lower runs first: deny rules run at 100, the modes at 300, ask rules at 400, allow rules at 500)",
                        value,
                    )
                })?;
            rule = rule.with_priority(priority);
        }
        Ok(rule)
    }

    /// One condition of a rule's `when`: a subject (`arg` or `file_size_of`) and one test.
    fn condition(&self, value: &Value, location: &str) -> Result<Condition, SettingsError> {
        // The subject first, then its tests.
        const TEXT_KEYS: &[&str] = &[
            "arg",
            "contains",
            "equals",
            "matches",
            "longer_than",
            "shorter_than",
        ];
        const SIZE_KEYS: &[&str] = &["file_size_of", "greater_than", "less_than"];
        let object = self.object(value, location)?;
        let subject = |key: &str| -> Result<Option<&str>, SettingsError> {
            present(object, key)
                .map(|value| self.string(value, &format!("{location}.{key}")))
                .transpose()
        };
        let (name, keys, what) = match (subject("arg")?, subject("file_size_of")?) {
            (Some(name), None) => (name, TEXT_KEYS, "a condition on an argument's text"),
            (None, Some(name)) => (
                name,
                SIZE_KEYS,
                "a condition on the size of the file a path argument names",
            ),
            (Some(_), Some(_)) => {
                return Err(SettingsError::Invalid {
                    origin: self.origin.to_owned(),
                    location: location.to_owned(),
                    expected: "a condition on one thing: `arg` (an argument's text) or `file_size_of` (the size of the file a path argument names)".to_owned(),
                    found: "both".to_owned(),
                });
            }
            (None, None) => {
                // A misspelled subject (`argument`) is named as such.
                const ALL_KEYS: &[&str] = &[
                    "arg",
                    "file_size_of",
                    "contains",
                    "equals",
                    "matches",
                    "longer_than",
                    "shorter_than",
                    "greater_than",
                    "less_than",
                ];
                self.known_keys(object, location, "a condition", ALL_KEYS)?;
                return Err(self.missing(
                    &format!("{location}.arg"),
                    "the argument the condition tests: `arg` for its text, or `file_size_of` for the size of the file it names, as in {\"arg\": \"url\", \"contains\": \"token=\"}",
                ));
            }
        };
        self.known_keys(object, location, what, keys)?;
        let tests = &keys[1..];
        let written: Vec<(&str, &Value)> = tests
            .iter()
            .filter_map(|key| present(object, key).map(|value| (*key, value)))
            .collect();
        let (key, value) = match written.as_slice() {
            [one] => *one,
            [] => {
                return Err(SettingsError::Invalid {
                    origin: self.origin.to_owned(),
                    location: location.to_owned(),
                    expected: format!("{what} with a test: one of {}", backticked(tests)),
                    found: "none".to_owned(),
                });
            }
            [first, second, ..] => {
                return Err(SettingsError::Invalid {
                    origin: self.origin.to_owned(),
                    location: location.to_owned(),
                    expected: "one test per condition (write the other as a condition of its own: all of a rule's conditions must hold)".to_owned(),
                    found: format!("`{}` and `{}`", first.0, second.0),
                });
            }
        };
        let test_location = format!("{location}.{key}");
        let count = |unit: &str| -> Result<u64, SettingsError> {
            value.as_u64().ok_or_else(|| {
                self.invalid(
                    &test_location,
                    &format!("a number of {unit} (a whole number, 0 or more)"),
                    value,
                )
            })
        };
        let characters = || -> Result<usize, SettingsError> {
            let count = count("characters")?;
            // Wider than `usize` only on 32-bit targets: longer than any text there.
            Ok(usize::try_from(count).unwrap_or(usize::MAX))
        };
        let text = || self.string(value, &test_location);
        let arg = Condition::arg(name);
        let file = Condition::file_size(name);
        Ok(match key {
            "contains" => arg.contains(text()?),
            "equals" => arg.equals(text()?),
            "matches" => arg
                .matches(text()?)
                .map_err(|source| self.condition_error(&test_location, source))?,
            "longer_than" => arg.longer_than(characters()?),
            "shorter_than" => arg.shorter_than(characters()?),
            "greater_than" => file.greater_than(count("bytes")?),
            _ => file.less_than(count("bytes")?),
        })
    }

    /// `toolkit.trustedMcpServers`: names, or objects pinning a name to a command or a URL.
    fn trusted_mcp_servers(&self, value: &Value) -> Result<Vec<TrustedMcpServer>, SettingsError> {
        const EXPECTED: &str =
            "a server name, or {\"name\", \"command\": [program, args...]} or {\"name\", \"url\"}";
        let location = "toolkit.trustedMcpServers";
        let mut servers = Vec::new();
        for (index, entry) in self.array(value, location)?.iter().enumerate() {
            let location = format!("{location}[{index}]");
            let server = match entry {
                Value::String(name) => TrustedMcpServer::named(name.as_str()),
                Value::Object(_) => {
                    let trusted: TrustedEntry =
                        self.read_entry(entry, &location, "a trusted MCP server")?;
                    let name = trusted
                        .name
                        .ok_or_else(|| self.missing(&format!("{location}.name"), "a string"))?;
                    if trusted.command.as_ref().is_some_and(Vec::is_empty) {
                        return Err(self.invalid(
                            &format!("{location}.command"),
                            "the program and its arguments",
                            &Value::Array(Vec::new()),
                        ));
                    }
                    if trusted.command.is_some() && trusted.url.is_some() {
                        return Err(self.invalid(
                            &location,
                            "a command or a URL, not both (a server is started or reached, not both)",
                            entry,
                        ));
                    }
                    TrustedMcpServer {
                        name,
                        command: trusted.command,
                        url: trusted.url,
                    }
                }
                other => return Err(self.invalid(&location, EXPECTED, other)),
            };
            servers.push(server);
        }
        Ok(servers)
    }

    /// An error for the first key of `object` that is not one of `known`.
    fn known_keys(
        &self,
        object: &Map<String, Value>,
        location: &str,
        what: &'static str,
        known: &'static [&'static str],
    ) -> Result<(), SettingsError> {
        let Some(unknown) = object.keys().find(|key| !known.contains(&key.as_str())) else {
            return Ok(());
        };
        Err(SettingsError::UnknownKey {
            origin: self.origin.to_owned(),
            location: format!("{location}.{unknown}"),
            what,
            known,
            suggestion: closest(unknown, known.iter().copied(), 1).first().copied(),
        })
    }

    fn condition_error(&self, location: &str, source: ConditionError) -> SettingsError {
        SettingsError::Condition {
            origin: self.origin.to_owned(),
            location: location.to_owned(),
            source,
        }
    }

    fn missing(&self, location: &str, expected: &str) -> SettingsError {
        SettingsError::Invalid {
            origin: self.origin.to_owned(),
            location: location.to_owned(),
            expected: expected.to_owned(),
            found: "nothing".to_owned(),
        }
    }

    /// [`missing`](Self::missing) for `key` of `object`, naming a key of `object` that
    /// misspells it (`comand` for `command`).
    fn missing_key(
        &self,
        object: &Map<String, Value>,
        key: &str,
        location: &str,
        expected: &str,
    ) -> SettingsError {
        let misspelt = object
            .keys()
            .find(|present| !closest(present, [key], 1).is_empty());
        let found = match misspelt {
            Some(present) => format!("missing, though `{present}` is there: did you mean `{key}`?"),
            None => "nothing".to_owned(),
        };
        SettingsError::Invalid {
            origin: self.origin.to_owned(),
            location: location.to_owned(),
            expected: expected.to_owned(),
            found,
        }
    }

    fn ignored(&self, location: &str, reason: String) -> IgnoredEntry {
        IgnoredEntry {
            origin: self.origin.to_owned(),
            location: location.to_owned(),
            reason,
        }
    }
}

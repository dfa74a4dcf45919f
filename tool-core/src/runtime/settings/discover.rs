//! Settings found where Claude Code finds them (issue 26), merged with its precedence, and
//! where each permission rule came from.
//!
//! Claude Code reads, lowest precedence first: the user's `~/.claude/settings.json`, the
//! project's `.claude/settings.json`, the project's `.claude/settings.local.json`, then
//! command-line settings, and above everything the managed settings an administrator deploys
//! (`/etc/claude-code/managed-settings.json` on Linux,
//! `/Library/Application Support/ClaudeCode/managed-settings.json` on macOS). Rules of every
//! file apply (a deny anywhere denies); for a single value such as `defaultMode` the file of
//! higher precedence wins.

use std::fmt;
use std::path::{Path, PathBuf};

use super::{Settings, SettingsError};

/// Which of Claude Code's settings files a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum SettingsScope {
    /// `~/.claude/settings.json`.
    User,
    /// `<project>/.claude/settings.json`, shared with the project.
    Project,
    /// `<project>/.claude/settings.local.json`, the user's own for the project.
    Local,
    /// Given on the command line or to the builder.
    CommandLine,
    /// Deployed by an administrator; nothing overrides it.
    Managed,
}

impl fmt::Display for SettingsScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SettingsScope::User => "user",
            SettingsScope::Project => "project",
            SettingsScope::Local => "local",
            SettingsScope::CommandLine => "command line",
            SettingsScope::Managed => "managed",
        })
    }
}

/// One place settings may come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsSource {
    /// Which file it is.
    pub scope: SettingsScope,
    /// Where.
    pub path: PathBuf,
}

/// Where Claude Code's settings files are, for a project: the user's home directory and the
/// managed settings file, each `None` where there is none.
///
/// ```
/// use std::path::Path;
/// use tool_core::settings::{SettingsLocations, SettingsScope};
///
/// let locations = SettingsLocations {
///     home: Some("/home/ada".into()),
///     managed: Some("/etc/claude-code/managed-settings.json".into()),
/// };
/// let sources = locations.sources(Path::new("/work/app"), &["/tmp/extra.json".into()]);
/// let scopes: Vec<SettingsScope> = sources.iter().map(|s| s.scope).collect();
/// assert_eq!(scopes, [
///     SettingsScope::User, SettingsScope::Project, SettingsScope::Local,
///     SettingsScope::CommandLine, SettingsScope::Managed,
/// ]);
/// assert_eq!(sources[2].path, Path::new("/work/app/.claude/settings.local.json"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingsLocations {
    /// The user's home directory, holding `.claude/settings.json`.
    pub home: Option<PathBuf>,
    /// The managed settings file.
    pub managed: Option<PathBuf>,
}

impl SettingsLocations {
    /// Names the variable that, when set, replaces the platform's managed settings file (an
    /// installation elsewhere, or a test).
    pub const MANAGED_ENV: &'static str = "TOOLKIT_MANAGED_SETTINGS";

    /// This machine's: `$HOME`, and the platform's managed settings file (or the file
    /// [`MANAGED_ENV`](Self::MANAGED_ENV) names).
    #[must_use]
    pub fn of_this_machine() -> Self {
        let managed = match std::env::var_os(Self::MANAGED_ENV) {
            Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
            _ if cfg!(target_os = "macos") => Some(PathBuf::from(
                "/Library/Application Support/ClaudeCode/managed-settings.json",
            )),
            _ if cfg!(windows) => Some(PathBuf::from(
                r"C:\Program Files\ClaudeCode\managed-settings.json",
            )),
            _ => Some(PathBuf::from("/etc/claude-code/managed-settings.json")),
        };
        SettingsLocations {
            home: std::env::var_os("HOME")
                .filter(|home| !home.is_empty())
                .map(PathBuf::from),
            managed,
        }
    }

    /// Every file settings come from for `project`, lowest precedence first, `command_line`
    /// files between the local file and the managed one. Files that do not exist are listed
    /// too: [`Settings::discover_in`] skips them.
    #[must_use]
    pub fn sources(&self, project: &Path, command_line: &[PathBuf]) -> Vec<SettingsSource> {
        let source = |scope, path: PathBuf| SettingsSource { scope, path };
        let claude = project.join(".claude");
        let mut sources = Vec::with_capacity(4 + command_line.len());
        if let Some(home) = &self.home {
            sources.push(source(
                SettingsScope::User,
                home.join(".claude").join("settings.json"),
            ));
        }
        sources.push(source(SettingsScope::Project, claude.join("settings.json")));
        sources.push(source(
            SettingsScope::Local,
            claude.join("settings.local.json"),
        ));
        sources.extend(
            command_line
                .iter()
                .map(|path| source(SettingsScope::CommandLine, path.clone())),
        );
        if let Some(managed) = &self.managed {
            sources.push(source(SettingsScope::Managed, managed.clone()));
        }
        sources
    }
}

impl Settings {
    /// The settings Claude Code would use in `project` on this machine: the user's, the
    /// project's, the local and the managed file, merged with Claude Code's precedence. Files
    /// that do not exist are skipped.
    ///
    /// # Errors
    ///
    /// The first file that exists and cannot be read or parsed, named with its JSON location.
    pub fn discover(project: impl AsRef<Path>) -> Result<Settings, SettingsError> {
        Settings::discover_in(&SettingsLocations::of_this_machine(), project.as_ref(), &[])
    }

    /// As [`discover`](Self::discover), in `locations`, with `command_line` files (`toolbox
    /// --settings`) above the local file and below the managed one.
    ///
    /// ```
    /// use tool_core::settings::{Settings, SettingsLocations};
    ///
    /// let home = tempfile::tempdir().unwrap();
    /// let project = tempfile::tempdir().unwrap();
    /// std::fs::create_dir(home.path().join(".claude")).unwrap();
    /// std::fs::create_dir(project.path().join(".claude")).unwrap();
    /// std::fs::write(home.path().join(".claude/settings.json"),
    ///     r#"{"permissions": {"defaultMode": "plan", "allow": ["Read"]}}"#).unwrap();
    /// std::fs::write(project.path().join(".claude/settings.json"),
    ///     r#"{"permissions": {"deny": ["Bash(rm *)"]}}"#).unwrap();
    /// std::fs::write(project.path().join(".claude/settings.local.json"),
    ///     r#"{"permissions": {"defaultMode": "acceptEdits"}}"#).unwrap();
    ///
    /// let locations = SettingsLocations { home: Some(home.path().into()), managed: None };
    /// let settings = Settings::discover_in(&locations, project.path(), &[]).unwrap();
    /// assert_eq!(settings.permissions.deny, ["Bash(rm *)"]);
    /// assert_eq!(settings.permissions.allow, ["Read"]);
    /// // The local file outranks the user's.
    /// assert_eq!(settings.permissions.default_mode, Some(tool_core::policy::Mode::AcceptEdits));
    /// assert_eq!(settings.rule_sources[0].to_string(),
    ///     format!("allow  Read  (user: {})", home.path().join(".claude/settings.json").display()));
    /// ```
    ///
    /// # Errors
    ///
    /// As [`discover`](Self::discover).
    pub fn discover_in(
        locations: &SettingsLocations,
        project: &Path,
        command_line: &[PathBuf],
    ) -> Result<Settings, SettingsError> {
        let mut merged = Settings::default();
        let mut read: Vec<PathBuf> = Vec::new();
        for source in locations.sources(project, command_line) {
            // A command-line file must exist: it was named on purpose.
            if source.scope != SettingsScope::CommandLine && !source.path.exists() {
                continue;
            }
            // A file named twice (`--settings .claude/settings.json`) is read once, where it
            // was found first.
            let identity = std::fs::canonicalize(&source.path).unwrap_or(source.path.clone());
            if read.contains(&identity) {
                continue;
            }
            read.push(identity);
            let mut settings = Settings::load(&source.path)?;
            for rule in &mut settings.rule_sources {
                rule.scope = Some(source.scope);
            }
            merged.merge(settings);
        }
        Ok(merged)
    }
}

/// Where one permission rule came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSource {
    /// `allow`, `ask` or `deny`.
    pub list: &'static str,
    /// The rule as written.
    pub rule: String,
    /// The file (or `settings` for text).
    pub origin: String,
    /// Which of Claude Code's files it is, when it was discovered.
    pub scope: Option<SettingsScope>,
}

impl fmt::Display for RuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.scope {
            Some(scope) => write!(
                f,
                "{}  {}  ({scope}: {})",
                self.list, self.rule, self.origin
            ),
            None => write!(f, "{}  {}  ({})", self.list, self.rule, self.origin),
        }
    }
}

/// Which servers of a project's `.mcp.json` the settings approve (Claude Code's
/// `enableAllProjectMcpServers`, `enabledMcpjsonServers`, `disabledMcpjsonServers`). A
/// project's file comes with its repository, so its servers start only once approved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpJsonApproval {
    /// `enableAllProjectMcpServers`.
    pub enable_all: Option<bool>,
    /// `enabledMcpjsonServers`.
    pub enabled: Vec<String>,
    /// `disabledMcpjsonServers`: never started, whatever else says.
    pub disabled: Vec<String>,
}

impl McpJsonApproval {
    /// Whether the server called `name` in the project's `.mcp.json` may start.
    ///
    /// ```
    /// use tool_core::settings::Settings;
    ///
    /// let settings = Settings::from_json(
    ///     r#"{"enabledMcpjsonServers": ["files"], "disabledMcpjsonServers": ["web"]}"#,
    /// ).unwrap();
    /// assert!(settings.mcp_json.approves("files"));
    /// assert!(!settings.mcp_json.approves("web"));
    /// assert!(!settings.mcp_json.approves("other"));
    /// ```
    #[must_use]
    pub fn approves(&self, name: &str) -> bool {
        !self.disabled.iter().any(|n| n == name)
            && (self.enable_all == Some(true) || self.enabled.iter().any(|n| n == name))
    }
}

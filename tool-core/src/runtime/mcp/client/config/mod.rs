//! Which servers to import: [`McpConfig`], read from a `.mcp.json` in Claude Code's format, and
//! one server's [`McpServerConfig`].
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/notes"],
//!                "env": { "LOG_LEVEL": "${LOG_LEVEL:-warn}" } },
//!     "web":   { "type": "http", "url": "${WEB_MCP_URL:-http://127.0.0.1:8080/mcp}",
//!                "headers": { "Authorization": "Bearer ${WEB_TOKEN}" } }
//!   }
//! }
//! ```
//!
//! - `type` is `"stdio"` (the default when there is a `command`) or `"http"` (the default when
//!   there is a `url`). `"sse"`, the protocol's old HTTP transport, is refused with a message:
//!   rmcp has no client for it.
//! - `${VAR}` and `${VAR:-default}` are expanded in `command`, `args`, `env`, `url` and
//!   `headers`, as Claude Code documents. A bare `$VAR` is left as written. `${VAR:-default}`
//!   takes the default when `VAR` is unset or empty (the shell's `:-`). A `${VAR}` whose
//!   variable is unset and that has no default is an error naming the server, the field and the
//!   variable, as Claude Code fails to parse such a file.
//! - Other clients' keys (`timeout`, `disabled`) are ignored. A misspelling of a key read here
//!   (`comand`, `arg`, `URL`: two edits or fewer, case aside), or a top-level key other than
//!   `mcpServers`, is a [warning](McpConfig::warnings) naming the key meant.
//! - A server's tools are trusted (their annotations believed) only when the user's settings
//!   say so: see [`McpConfig::trust`] and the [`client`](super) module docs. A `.mcp.json`
//!   comes with a project, so it cannot trust itself.

use std::path::{Path, PathBuf};

mod expand;
mod read;
#[cfg(test)]
mod tests;

use crate::settings::{SettingsWarning, TrustedMcpServer};

/// The MCP servers to import, by name, sorted by name.
///
/// ```
/// use tool_core::mcp::client::{McpConfig, McpTransport};
///
/// let config = McpConfig::from_json_with(
///     r#"{"mcpServers": {"files": {"command": "mcp-files", "args": ["${ROOT:-/srv}"]}}}"#,
///     |_variable| None, // no environment
/// ).unwrap();
/// let McpTransport::Stdio { command, args, .. } = &config.servers[0].transport else { panic!() };
/// assert_eq!((command.as_str(), args.as_slice()), ("mcp-files", &["/srv".to_owned()][..]));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpConfig {
    /// The servers, sorted by name.
    pub servers: Vec<McpServerConfig>,
    /// Keys read but without effect, each naming the key it likely misspells.
    pub warnings: Vec<SettingsWarning>,
}

/// One server to import.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpServerConfig {
    /// The server's name: the `<server>` of `mcp__<server>__<tool>`.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
    /// Whether its tools' annotations (`readOnlyHint`, ...) are believed. Untrusted, every tool
    /// is treated as mutating (destructive when it says so).
    pub trusted: bool,
    /// Whether to speak MCP 2025-11-25 at once (the `initialize` handshake), without first
    /// offering 2026-07-28 (`server/discover`). See [`legacy_protocol`](Self::legacy_protocol).
    pub legacy_protocol: bool,
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpTransport {
    /// A command started as a child process, speaking MCP on its stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the environment it inherits.
        env: Vec<(String, String)>,
        /// Its working directory; the current one when `None`.
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint's URL.
        url: String,
        /// Headers sent with every request (`Authorization`, ...).
        headers: Vec<(String, String)>,
    },
}

impl McpServerConfig {
    /// A server started from `command` with `args`, untrusted.
    #[must_use]
    pub fn stdio<I, S>(name: impl Into<String>, command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        McpServerConfig {
            name: name.into(),
            transport: McpTransport::Stdio {
                command: command.into(),
                args: args.into_iter().map(Into::into).collect(),
                env: Vec::new(),
                cwd: None,
            },
            trusted: false,
            legacy_protocol: false,
        }
    }

    /// A server at a streamable HTTP `url`, untrusted.
    #[must_use]
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        McpServerConfig {
            name: name.into(),
            transport: McpTransport::Http {
                url: url.into(),
                headers: Vec::new(),
            },
            trusted: false,
            legacy_protocol: false,
        }
    }

    /// Adds a header to an HTTP server's requests (ignored for a command).
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpTransport::Http { headers, .. } = &mut self.transport {
            headers.push((name.into(), value.into()));
        }
        self
    }

    /// Adds an environment variable for a command (ignored for an HTTP server).
    #[must_use]
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpTransport::Stdio { env, .. } = &mut self.transport {
            env.push((name.into(), value.into()));
        }
        self
    }

    /// Sets a command's working directory (ignored for an HTTP server).
    #[must_use]
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        if let McpTransport::Stdio { cwd, .. } = &mut self.transport {
            *cwd = Some(dir.into());
        }
        self
    }

    /// Trusts (or not) the server's annotations.
    #[must_use]
    pub fn trusted(mut self, trusted: bool) -> Self {
        self.trusted = trusted;
        self
    }

    /// Speaks MCP 2025-11-25 with the server from the start (the `initialize` handshake),
    /// instead of offering 2026-07-28 first and falling back: for a server whose 2026-07-28
    /// support misbehaves. Its tools' questions then come as requests while the call waits
    /// (`elicitation/create`), not as `input_required` results.
    #[must_use]
    pub fn legacy_protocol(mut self, legacy: bool) -> Self {
        self.legacy_protocol = legacy;
        self
    }

    /// What was started or reached, for messages: the command line or the URL.
    #[must_use]
    pub fn target(&self) -> String {
        match &self.transport {
            McpTransport::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            McpTransport::Http { url, .. } => url.clone(),
        }
    }
}

/// A `.mcp.json` that could not be used. Each names the file (or `.mcp.json` for text), the
/// JSON location and what would be right.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpConfigError {
    /// The file could not be read.
    #[error("cannot read the MCP configuration `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The text is not JSON.
    #[error("{origin} is not valid JSON (line {line}, column {column}): {source}")]
    Syntax {
        /// The file, or `.mcp.json`.
        origin: String,
        /// Where.
        line: usize,
        /// Where.
        column: usize,
        /// The parser's message.
        #[source]
        source: serde_json::Error,
    },
    /// A server name that would make its tools' names ambiguous.
    #[error(
        "{origin}: the server name `{name}` cannot be used: {reason}; rename it (letters, digits, `-`, single `_` between words)"
    )]
    ServerName {
        /// The file, or `.mcp.json`.
        origin: String,
        /// The name in `mcpServers`.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A value has the wrong shape.
    #[error("{origin}: `{location}` should be {expected}, but it is {found}")]
    Invalid {
        /// The file, or `.mcp.json`.
        origin: String,
        /// The JSON location, such as `mcpServers.web.url`.
        location: String,
        /// What would be right.
        expected: String,
        /// What is there.
        found: String,
    },
    /// A server without a `command` or a `url`, one of whose keys misspells the one missing.
    #[error(
        "{origin}: `{location}` is not a key of a server (its keys are `type`, `command`, `args`, `env`, `cwd`, `url`, `headers`); did you mean `{meant}`?"
    )]
    MisspeltKey {
        /// The file, or `.mcp.json`.
        origin: String,
        /// The JSON location, such as `mcpServers.web.comand`.
        location: String,
        /// The key it is closest to.
        meant: String,
    },
    /// A server's `cwd` lies outside the workspace it is started in.
    #[error(
        "the MCP server `{server}` cannot start in its `cwd`: {reason} (Without a `cwd` it starts at the workspace root.)"
    )]
    CwdOutside {
        /// The server's name.
        server: String,
        /// Its `cwd` as configured.
        cwd: String,
        /// Why it is not inside, and what would be right.
        reason: String,
    },
    /// A `${VAR}` names a variable that is not set, and gives no default.
    #[error(
        "{origin}: `{location}` uses `${{{variable}}}`, but the environment variable `{variable}` is not set; set it, or write `${{{variable}:-default}}`"
    )]
    UnsetVariable {
        /// The file, or `.mcp.json`.
        origin: String,
        /// The JSON location, such as `mcpServers.web.headers.Authorization`.
        location: String,
        /// The variable.
        variable: String,
    },
}

impl McpConfig {
    /// What in the file was read but has no effect: a misspelt key, a top-level key other
    /// than `mcpServers`. A program shows them to its user (`toolbox` prints them).
    ///
    /// ```
    /// use tool_core::mcp::client::McpConfig;
    ///
    /// let config = McpConfig::from_json(
    ///     r#"{"mcpServers": {"files": {"command": "mcp-files", "arg": ["/srv"]}}}"#,
    /// ).unwrap();
    /// assert_eq!(
    ///     config.warnings()[0].to_string(),
    ///     ".mcp.json: `mcpServers.files.arg`: not a key of a server, so it has no effect; did you mean `args`?"
    /// );
    /// ```
    #[must_use]
    pub fn warnings(&self) -> &[SettingsWarning] {
        &self.warnings
    }

    /// Reads a `.mcp.json`, expanding `${VAR}` from the process environment.
    ///
    /// # Errors
    /// [`McpConfigError`] naming the file, the server and the field.
    pub fn load(path: impl AsRef<Path>) -> Result<McpConfig, McpConfigError> {
        let path = path.as_ref();
        let text =
            crate::runtime::config::read_file(path).map_err(|source| McpConfigError::Read {
                path: path.to_owned(),
                source,
            })?;
        read::parse(&text, &path.display().to_string(), &|variable| {
            std::env::var(variable).ok()
        })
    }

    /// Parses `.mcp.json` text, expanding `${VAR}` from the process environment.
    ///
    /// # Errors
    /// [`McpConfigError`] naming the server and the field.
    pub fn from_json(text: &str) -> Result<McpConfig, McpConfigError> {
        read::parse(text, ".mcp.json", &|variable| std::env::var(variable).ok())
    }

    /// Parses `.mcp.json` text, looking variables up with `lookup` instead of the environment.
    ///
    /// # Errors
    /// [`McpConfigError`] naming the server and the field.
    pub fn from_json_with(
        text: &str,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<McpConfig, McpConfigError> {
        read::parse(text, ".mcp.json", &lookup)
    }

    /// Starts every stdio server in `workspace`: one without a `cwd` at its first root, one
    /// with a `cwd` there (a relative one joined onto the first root), confined like any path
    /// a tool is given. A server started in whatever directory the process happens to be in
    /// would see, and serve, files outside the workspace. Its MCP roots are the workspace's
    /// roots already (see the module docs).
    ///
    /// ```
    /// use tool_core::Workspace;
    /// use tool_core::mcp::client::{McpConfig, McpTransport};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = Workspace::new(dir.path()).unwrap();
    /// let mut config = McpConfig::from_json(r#"{"mcpServers": {"files": {"command": "mcp-files"}}}"#).unwrap();
    /// config.start_in(&workspace).unwrap();
    /// let McpTransport::Stdio { cwd, .. } = &config.servers[0].transport else { panic!() };
    /// assert_eq!(cwd.as_deref(), Some(workspace.root()));
    ///
    /// let mut config = McpConfig::from_json(
    ///     r#"{"mcpServers": {"files": {"command": "mcp-files", "cwd": "/"}}}"#,
    /// ).unwrap();
    /// assert!(config.start_in(&workspace).is_err());
    /// ```
    ///
    /// # Errors
    /// [`McpConfigError::CwdOutside`] for a `cwd` outside every root of the workspace.
    pub fn start_in(&mut self, workspace: &crate::Workspace) -> Result<(), McpConfigError> {
        for server in &mut self.servers {
            let McpTransport::Stdio { cwd, .. } = &mut server.transport else {
                continue;
            };
            let Some(given) = cwd.as_ref() else {
                *cwd = Some(workspace.root().to_owned());
                continue;
            };
            let shown = given.display().to_string();
            let confined = workspace.confine("cwd", &shown);
            if !confined.is_inside() {
                return Err(McpConfigError::CwdOutside {
                    server: server.name.clone(),
                    cwd: shown,
                    reason: confined.denial().unwrap_or_default(),
                });
            }
            *cwd = Some(confined.absolute);
        }
        Ok(())
    }

    /// Trusts the annotations of the servers that an entry of `trusted` (the user's settings,
    /// `toolkit.trustedMcpServers`) names and, where the entry is pinned, that run its command
    /// line or are reached at its URL; `"*"` names every server.
    pub fn trust<T: Into<TrustedMcpServer> + Clone>(&mut self, trusted: &[T]) {
        let trusted: Vec<TrustedMcpServer> = trusted.iter().cloned().map(Into::into).collect();
        for server in &mut self.servers {
            let (command, url) = match &server.transport {
                McpTransport::Stdio { command, args, .. } => (
                    Some(
                        std::iter::once(command)
                            .chain(args)
                            .cloned()
                            .collect::<Vec<_>>(),
                    ),
                    None,
                ),
                McpTransport::Http { url, .. } => (None, Some(url.as_str())),
            };
            if trusted
                .iter()
                .any(|entry| entry.trusts(&server.name, command.as_deref(), url))
            {
                server.trusted = true;
            }
        }
    }
}

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

use serde::Deserialize;
use serde::de::{SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::definition::suggest::did_you_mean;
use crate::runtime::config::{self, Pairs};
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
        let text = std::fs::read_to_string(path).map_err(|source| McpConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        parse(&text, &path.display().to_string(), &|variable| {
            std::env::var(variable).ok()
        })
    }

    /// Parses `.mcp.json` text, expanding `${VAR}` from the process environment.
    ///
    /// # Errors
    /// [`McpConfigError`] naming the server and the field.
    pub fn from_json(text: &str) -> Result<McpConfig, McpConfigError> {
        parse(text, ".mcp.json", &|variable| std::env::var(variable).ok())
    }

    /// Parses `.mcp.json` text, looking variables up with `lookup` instead of the environment.
    ///
    /// # Errors
    /// [`McpConfigError`] naming the server and the field.
    pub fn from_json_with(
        text: &str,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<McpConfig, McpConfigError> {
        parse(text, ".mcp.json", &lookup)
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

/// A `.mcp.json`, as far as this module reads it.
#[derive(Deserialize)]
#[serde(rename = "a `.mcp.json` file", rename_all = "camelCase")]
struct McpJson {
    mcp_servers: Option<Map<String, Value>>,
    /// A JSON schema's address, which editors use.
    #[serde(rename = "$schema")]
    _schema: Option<serde::de::IgnoredAny>,
}

/// One server's entry. Each field but `type` is read (and its `${VAR}`s expanded) by the
/// transport that uses it: a field a transport has no use for is left as it is.
#[derive(Deserialize)]
#[serde(rename = "a server")]
struct ServerEntry {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<Value>,
    args: Option<Value>,
    env: Option<Value>,
    cwd: Option<Value>,
    url: Option<Value>,
    headers: Option<Value>,
}

/// `args`: an array of strings.
struct Strings(Vec<String>);

impl<'de> Deserialize<'de> for Strings {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Items;
        impl<'de> Visitor<'de> for Items {
            type Value = Strings;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array of strings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Strings, A::Error> {
                let mut strings = Vec::new();
                while let Some(item) = items.next_element()? {
                    strings.push(item);
                }
                Ok(Strings(strings))
            }
        }
        deserializer.deserialize_seq(Items)
    }
}

/// Reads through the crate's configuration reader, with errors that name the origin.
struct Reader<'a> {
    origin: &'a str,
    lookup: &'a dyn Fn(&str) -> Option<String>,
}

fn parse(
    text: &str,
    origin: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<McpConfig, McpConfigError> {
    let value: Value = serde_json::from_str(text).map_err(|source| McpConfigError::Syntax {
        origin: origin.to_owned(),
        line: source.line(),
        column: source.column(),
        source,
    })?;
    let reader = Reader { origin, lookup };
    let (file, unknown) = reader.read_noting_unknown::<McpJson>(&value, "")?;
    let mut config = McpConfig::default();
    // A file in another client's format (VS Code's `servers`) would import nothing, unsaid.
    config.warnings.extend(
        unknown
            .iter()
            .map(|unknown| reader.warning(unknown, did_you_mean(&unknown.key, ["mcpServers"]))),
    );
    let Some(servers) = file.mcp_servers else {
        return Ok(config);
    };
    let mut parts: Vec<(String, &str)> = Vec::new();
    for (name, server) in &servers {
        let part = super::normalize(name);
        let problem = if part.contains("__") || part.ends_with('_') {
            Some(format!(
                "as the `<server>` of `mcp__<server>__<tool>` it is `{part}`, whose `__` or final `_` would let a rule for another server (`mcp__{}__*`) match its tools",
                part.split("__")
                    .next()
                    .unwrap_or_default()
                    .trim_end_matches('_')
            ))
        } else {
            parts
                .iter()
                .find(|(other, _)| *other == part)
                .map(|(_, other)| {
                    format!("it and `{other}` are both `{part}` in tool names, so their tools and rules would mix")
                })
        };
        if let Some(reason) = problem {
            return Err(McpConfigError::ServerName {
                origin: origin.to_owned(),
                name: name.clone(),
                reason,
            });
        }
        parts.push((part, name));
        config
            .servers
            .push(reader.server(name, server, &mut config.warnings)?);
    }
    config.servers.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(config)
}

impl Reader<'_> {
    /// A value that is not what `expected` says; `found` says what it is ("an object").
    fn invalid(&self, location: &str, expected: &str, found: &str) -> McpConfigError {
        McpConfigError::Invalid {
            origin: self.origin.to_owned(),
            location: location.to_owned(),
            expected: expected.to_owned(),
            found: found.to_owned(),
        }
    }

    /// `value`, at `location`, as a `T`.
    fn read<'v, T: Deserialize<'v>>(
        &self,
        value: &'v Value,
        location: &str,
    ) -> Result<T, McpConfigError> {
        config::read(value, location).map_err(|error| self.invalid_read(&error))
    }

    /// [`read`](Self::read), and the keys no field of `T` takes.
    fn read_noting_unknown<'v, T: Deserialize<'v>>(
        &self,
        value: &'v Value,
        location: &str,
    ) -> Result<(T, Vec<config::UnknownKey>), McpConfigError> {
        config::read_noting_unknown(value, location).map_err(|error| self.invalid_read(&error))
    }

    fn invalid_read(&self, error: &config::ReadError) -> McpConfigError {
        let (expected, found) = error.expected_and_found();
        let location = match error.location() {
            "" => "the configuration",
            location => location,
        };
        McpConfigError::Invalid {
            origin: self.origin.to_owned(),
            location: location.to_owned(),
            expected,
            found,
        }
    }

    /// The warning for a key without effect; `meant` ends it ("; did you mean `args`?").
    fn warning(&self, unknown: &config::UnknownKey, meant: String) -> SettingsWarning {
        SettingsWarning {
            origin: self.origin.to_owned(),
            location: unknown.path(),
            message: format!("not a key of {}, so it has no effect{meant}", unknown.of),
        }
    }

    /// A string field, expanded.
    fn string(&self, value: &Value, location: &str) -> Result<String, McpConfigError> {
        let text: String = self.read(value, location)?;
        self.expand(&text, location)
    }

    /// An object of strings (`env`, `headers`), expanded, in the file's key order.
    fn pairs(
        &self,
        value: &Value,
        location: &str,
    ) -> Result<Vec<(String, String)>, McpConfigError> {
        let Pairs(pairs) = self.read(value, location)?;
        pairs
            .into_iter()
            .map(|(key, value)| {
                let value = self.expand(&value, &format!("{location}.{key}"))?;
                Ok((key, value))
            })
            .collect()
    }

    /// One server's entry; a key of it that misspells one of [`SERVER_KEYS`] goes to
    /// `warnings`.
    fn server(
        &self,
        name: &str,
        value: &Value,
        warnings: &mut Vec<SettingsWarning>,
    ) -> Result<McpServerConfig, McpConfigError> {
        let at = format!("mcpServers.{name}");
        if name.is_empty() {
            return Err(self.invalid(
                "mcpServers",
                "servers with non-empty names",
                &config::described(value),
            ));
        }
        let (entry, unknown) = self.read_noting_unknown::<ServerEntry>(value, &at)?;
        // Other clients' keys (`timeout`, `envFile`) are far from ours, and quiet.
        let misspelt: Vec<(&config::UnknownKey, &str)> = unknown
            .iter()
            .filter_map(|unknown| Some((unknown, misspelt(&unknown.key)?)))
            .collect();
        for (unknown, meant) in &misspelt {
            warnings.push(self.warning(unknown, format!("; did you mean `{meant}`?")));
        }
        // A server missing what it needs, with a key that misspells it, is named by that key.
        let misspelling = |wanted: &[&str]| {
            let (unknown, meant) = misspelt.iter().find(|(_, meant)| wanted.contains(meant))?;
            Some(McpConfigError::MisspeltKey {
                origin: self.origin.to_owned(),
                location: unknown.path(),
                meant: (*meant).to_owned(),
            })
        };
        let kind = match (entry.kind.as_deref(), &entry.command, &entry.url) {
            (Some(kind), ..) => kind,
            (None, Some(_), _) => "stdio",
            (None, None, Some(_)) => "http",
            (None, None, None) => {
                return Err(misspelling(&["command", "url"]).unwrap_or_else(|| {
                    self.invalid(
                        &at,
                        "a server with a `command` (stdio) or a `url` (\"type\": \"http\")",
                        &config::described(value),
                    )
                }));
            }
        };
        let transport = match kind {
            "stdio" => {
                let command = entry.command.as_ref().ok_or_else(|| {
                    misspelling(&["command"]).unwrap_or_else(|| {
                        self.invalid(&format!("{at}.command"), "the program to start", "null")
                    })
                })?;
                let command = self.string(command, &format!("{at}.command"))?;
                if command.trim().is_empty() {
                    return Err(self.invalid(
                        &format!("{at}.command"),
                        "the program to start",
                        &config::quoted(&command),
                    ));
                }
                let args = match &entry.args {
                    Some(args) => {
                        let location = format!("{at}.args");
                        let Strings(list) = self.read(args, &location)?;
                        list.iter()
                            .enumerate()
                            .map(|(index, arg)| self.expand(arg, &format!("{location}[{index}]")))
                            .collect::<Result<_, _>>()?
                    }
                    None => Vec::new(),
                };
                let env = match &entry.env {
                    Some(env) => self.pairs(env, &format!("{at}.env"))?,
                    None => Vec::new(),
                };
                // Confined to the workspace when the server is started in one
                // (`McpConfig::start_in`).
                let cwd = match &entry.cwd {
                    Some(cwd) => Some(PathBuf::from(self.string(cwd, &format!("{at}.cwd"))?)),
                    None => None,
                };
                McpTransport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                }
            }
            "http" | "streamable-http" | "streamableHttp" => {
                let location = format!("{at}.url");
                let url = entry.url.as_ref().ok_or_else(|| {
                    misspelling(&["url"]).unwrap_or_else(|| {
                        self.invalid(&location, "the server's http:// or https:// URL", "null")
                    })
                })?;
                let url = self.string(url, &location)?;
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(self.invalid(
                        &location,
                        "an http:// or https:// URL",
                        &config::quoted(&url),
                    ));
                }
                let headers = match &entry.headers {
                    Some(headers) => self.pairs(headers, &format!("{at}.headers"))?,
                    None => Vec::new(),
                };
                for (header, _) in &headers {
                    if RESERVED_HEADERS
                        .iter()
                        .any(|reserved| header.eq_ignore_ascii_case(reserved))
                    {
                        return Err(self.invalid(
                            &format!("{at}.headers.{header}"),
                            "a header the client does not set itself (not Accept, Mcp-Session-Id, Mcp-Protocol-Version or Last-Event-Id)",
                            &config::quoted(header),
                        ));
                    }
                }
                McpTransport::Http { url, headers }
            }
            other => {
                return Err(self.invalid(
                    &format!("{at}.type"),
                    "\"stdio\" or \"http\" (the old \"sse\" transport is not supported: use the server's streamable HTTP endpoint)",
                    &config::quoted(other),
                ));
            }
        };
        Ok(McpServerConfig {
            name: name.to_owned(),
            transport,
            trusted: false,
            legacy_protocol: false,
        })
    }

    /// Expands `${VAR}` and `${VAR:-default}` in `text`.
    fn expand(&self, text: &str, location: &str) -> Result<String, McpConfigError> {
        expand(text, self.lookup).map_err(|unexpanded| match unexpanded {
            Unexpanded::Unset(variable) => McpConfigError::UnsetVariable {
                origin: self.origin.to_owned(),
                location: location.to_owned(),
                variable,
            },
            Unexpanded::Nested(reference) => McpConfigError::Invalid {
                origin: self.origin.to_owned(),
                location: location.to_owned(),
                expected: "a `${VAR:-default}` whose default is a value (a default may not hold another `${...}`)".to_owned(),
                found: format!("`{reference}`"),
            },
        })
    }
}

/// The keys of a server this module reads.
const SERVER_KEYS: [&str; 7] = ["type", "command", "args", "env", "cwd", "url", "headers"];

/// The server key that `key`, not one of them, misspells: within two edits of it, case aside
/// (one edit for the three-letter `env` and `url`, which two edits reach from most short
/// words). Other clients' keys (`envFile`, `headersHelper`, `timeout`) are further away.
fn misspelt(key: &str) -> Option<&'static str> {
    if SERVER_KEYS.contains(&key) {
        return None;
    }
    let lower = key.to_lowercase();
    SERVER_KEYS
        .into_iter()
        .map(|known| (strsim::damerau_levenshtein(&lower, known), known))
        .filter(|(distance, known)| *distance <= if known.len() <= 3 { 1 } else { 2 })
        .min()
        .map(|(_, known)| known)
}

/// Headers rmcp's HTTP client sets itself and refuses from a configuration.
const RESERVED_HEADERS: &[&str] = &[
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// Why a text could not be expanded.
#[derive(Debug, PartialEq)]
enum Unexpanded {
    /// This variable is unset, and its reference gives no default.
    Unset(String),
    /// This reference has another inside its default.
    Nested(String),
}

/// `${VAR}` and `${VAR:-default}` expanded with `lookup`. A `$` not followed by `{`, or a `${`
/// never closed, stays as written.
fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, Unexpanded> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (variable, default) = match inner.split_once(":-") {
            Some((variable, default)) => (variable, Some(default)),
            None => (inner, None),
        };
        let valid = !variable.is_empty()
            && variable
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if valid && default.is_some_and(|default| default.contains("${")) {
            // `${A:-${B}}`: the first `}` closes the inner reference, so the text cannot be
            // read as the writer meant it; say so rather than expand it wrongly.
            return Err(Unexpanded::Nested(format!("${{{inner}}}}}")));
        }
        if !valid {
            // Not a variable reference (`${}` or `${a b}`): kept as written.
            out.push_str(&rest[start..start + 2 + end + 1]);
        } else {
            match (
                lookup(variable).filter(|v| default.is_none() || !v.is_empty()),
                default,
            ) {
                (Some(value), _) => out.push_str(&value),
                (None, Some(default)) => out.push_str(default),
                (None, None) => return Err(Unexpanded::Unset(variable.to_owned())),
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(variable: &str) -> Option<String> {
        match variable {
            "HOME" => Some("/home/ada".to_owned()),
            "TOKEN" => Some("s3cret".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    fn parse(text: &str) -> Result<McpConfig, McpConfigError> {
        McpConfig::from_json_with(text, env)
    }

    #[test]
    /// Issue 25: unknown keys are treated alike in every file; a misspelt key of Claude
    /// Code's is a warning naming the key meant (it was an error here, a warning in settings).
    fn a_misspelt_server_key_is_a_warning_naming_the_key_meant() {
        for (key, meant) in [
            ("comand", "command"),
            ("arg", "args"),
            ("URL", "url"),
            ("Headers", "headers"),
        ] {
            let text = format!(
                r#"{{"mcpServers": {{"files": {{"command": "x", "url": "http://h", "{key}": 1}}}}}}"#
            );
            let config = parse(&text).unwrap();
            let warnings: Vec<String> = config.warnings().iter().map(ToString::to_string).collect();
            assert_eq!(
                warnings,
                [format!(
                    ".mcp.json: `mcpServers.files.{key}`: not a key of a server, so it has no effect; did you mean `{meant}`?"
                )]
            );
        }
    }

    #[test]
    fn a_server_whose_command_or_url_is_misspelt_is_an_error_naming_the_key_meant() {
        for (text, location, meant) in [
            (r#"{"comand": "x"}"#, "comand", "command"),
            (r#"{"type": "stdio", "comand": "x"}"#, "comand", "command"),
            (r#"{"URL": "http://h"}"#, "URL", "url"),
            (r#"{"type": "http", "ulr": "http://h"}"#, "ulr", "url"),
        ] {
            let text = format!(r#"{{"mcpServers": {{"files": {text}}}}}"#);
            let error = parse(&text).unwrap_err().to_string();
            assert!(
                error.contains(&format!(
                    "`mcpServers.files.{location}` is not a key of a server"
                )) && error.ends_with(&format!("did you mean `{meant}`?")),
                "{error}"
            );
        }
    }

    #[test]
    fn a_top_level_key_other_than_mcp_servers_is_a_warning() {
        let config =
            parse(r#"{"$schema": "s", "mcpServer": {"files": {"command": "x"}}}"#).unwrap();
        assert!(config.servers.is_empty());
        let warnings: Vec<String> = config.warnings().iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [
                ".mcp.json: `mcpServer`: not a key of a `.mcp.json` file, so it has no effect; did you mean `mcpServers`?"
            ]
        );
        let config = parse(r#"{"servers": {}, "inputs": []}"#).unwrap();
        assert_eq!(config.warnings().len(), 2, "{:?}", config.warnings());
    }

    #[test]
    fn other_clients_server_keys_are_ignored() {
        let config = parse(
            r#"{"mcpServers": {"files": {"command": "x", "timeout": 5, "disabled": false,
                "envFile": ".env", "headersHelper": "h", "cwd": "/srv", "alwaysAllow": [],
                "autoApprove": [], "transportType": "stdio", "description": "d"}}}"#,
        )
        .unwrap();
        assert_eq!(config.servers.len(), 1);
        assert!(config.warnings().is_empty(), "{:?}", config.warnings());
    }

    #[test]
    fn a_default_holding_another_reference_is_an_error_not_a_stray_brace() {
        assert_eq!(
            expand("${HOME:-${X:-/tmp}}", &env),
            Err(Unexpanded::Nested("${HOME:-${X:-/tmp}}".to_owned()))
        );
        let error =
            parse(r#"{"mcpServers": {"files": {"command": "x", "args": ["${HOME:-${X}}"]}}}"#)
                .unwrap_err()
                .to_string();
        assert!(
            error.contains("mcpServers.files.args[0]") && error.contains("may not hold another"),
            "{error}"
        );
    }

    #[test]
    fn a_variable_is_replaced_by_its_value() {
        assert_eq!(expand("${HOME}/notes", &env).unwrap(), "/home/ada/notes");
    }

    #[test]
    fn a_default_is_used_when_the_variable_is_unset_or_empty() {
        assert_eq!(expand("${NOPE:-warn}", &env).unwrap(), "warn");
        assert_eq!(expand("${EMPTY:-warn}", &env).unwrap(), "warn");
        assert_eq!(expand("${HOME:-/tmp}", &env).unwrap(), "/home/ada");
        assert_eq!(expand("${NOPE:-}", &env).unwrap(), "");
    }

    #[test]
    fn a_set_but_empty_variable_without_default_is_empty() {
        assert_eq!(expand("a${EMPTY}b", &env).unwrap(), "ab");
    }

    #[test]
    fn text_that_is_no_reference_stays_as_written() {
        assert_eq!(
            expand("$HOME and ${ and ${a b}", &env).unwrap(),
            "$HOME and ${ and ${a b}"
        );
        assert_eq!(expand("cost: $5", &env).unwrap(), "cost: $5");
    }

    #[test]
    fn an_unset_variable_without_default_is_an_error_naming_server_field_and_variable() {
        let error = parse(
            r#"{"mcpServers": {"web": {"type": "http", "url": "http://x/mcp",
            "headers": {"Authorization": "Bearer ${WEB_TOKEN}"}}}}"#,
        )
        .unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("`mcpServers.web.headers.Authorization`"),
            "{message}"
        );
        assert!(message.contains("`WEB_TOKEN` is not set"), "{message}");
    }

    #[test]
    fn command_args_env_url_and_headers_are_expanded() {
        let config = parse(
            r#"{"mcpServers": {
                "files": {"command": "${HOME}/bin/files", "args": ["--root", "${HOME}"],
                          "env": {"LEVEL": "${LEVEL:-warn}"}, "timeout": 5},
                "web": {"type": "http", "url": "${URL:-http://127.0.0.1:1/mcp}",
                        "headers": {"Authorization": "Bearer ${TOKEN}"}}
            }}"#,
        )
        .unwrap();
        assert_eq!(
            config.servers,
            [
                McpServerConfig::stdio("files", "/home/ada/bin/files", ["--root", "/home/ada"])
                    .env("LEVEL", "warn"),
                McpServerConfig::http("web", "http://127.0.0.1:1/mcp")
                    .header("Authorization", "Bearer s3cret"),
            ]
        );
    }

    #[test]
    fn a_url_without_type_is_http_and_unknown_fields_are_ignored() {
        let config =
            parse(r#"{"mcpServers": {"web": {"url": "https://x/mcp", "oauth": {}}}, "other": 1}"#)
                .unwrap();
        assert_eq!(
            config.servers,
            [McpServerConfig::http("web", "https://x/mcp")]
        );
    }

    #[test]
    fn each_field_is_read_by_the_transport_that_uses_it_and_named_by_its_path() {
        // A stdio server has no use for headers, nor an http server for args: left alone.
        let config = parse(
            r#"{"mcpServers": {"a": {"command": "x", "headers": 5}, "b": {"url": "http://h", "args": 5}}}"#,
        )
        .unwrap();
        assert_eq!(config.servers.len(), 2);
        for (text, message) in [
            (
                r#"{"mcpServers": {"files": {"command": "x", "args": ["-v", true]}}}"#,
                "`mcpServers.files.args[1]` should be a string, but it is a boolean",
            ),
            (
                r#"{"mcpServers": {"files": {"command": "x", "env": {"LEVEL": 3}}}}"#,
                "`mcpServers.files.env.LEVEL` should be a string, but it is a number",
            ),
            (
                r#"{"mcpServers": {"files": {"command": "x", "env": ["LEVEL=3"]}}}"#,
                "`mcpServers.files.env` should be an object, but it is an array",
            ),
            (
                r#"{"mcpServers": "files"}"#,
                "`mcpServers` should be an object, but it is the string \"files\"",
            ),
            (
                r#"{"mcpServers": {"files": {"type": 1, "command": "x"}}}"#,
                "`mcpServers.files.type` should be a string, but it is a number",
            ),
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.ends_with(message), "{text}: {error}");
        }
    }

    #[test]
    fn a_wrongly_typed_field_is_an_error_naming_server_and_field() {
        let error =
            parse(r#"{"mcpServers": {"files": {"command": "x", "args": "--root"}}}"#).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("`mcpServers.files.args`"), "{message}");
        assert!(message.contains("an array of strings"), "{message}");
    }

    #[test]
    fn a_server_with_neither_command_nor_url_is_an_error() {
        let error = parse(r#"{"mcpServers": {"odd": {"args": []}}}"#).unwrap_err();
        assert!(error.to_string().contains("`mcpServers.odd`"), "{error}");
    }

    #[test]
    fn the_sse_transport_is_refused_with_what_to_use_instead() {
        let error = parse(r#"{"mcpServers": {"old": {"type": "sse", "url": "http://x/sse"}}}"#)
            .unwrap_err();
        let message = error.to_string();
        assert!(message.contains("`mcpServers.old.type`"), "{message}");
        assert!(message.contains("streamable HTTP"), "{message}");
    }

    #[test]
    fn a_reserved_header_is_refused() {
        let error = parse(
            r#"{"mcpServers": {"web": {"type": "http", "url": "http://x", "headers": {"Mcp-Session-Id": "1"}}}}"#,
        )
        .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("`mcpServers.web.headers.Mcp-Session-Id`"),
            "{error}"
        );
    }

    #[test]
    fn a_syntax_error_gives_line_and_column() {
        let error = parse("{\n  \"mcpServers\": {,}\n}").unwrap_err();
        assert!(error.to_string().contains("line 2"), "{error}");
    }

    #[test]
    fn trust_marks_the_named_servers_only() {
        let mut config =
            parse(r#"{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}"#).unwrap();
        config.trust(&["b"]);
        let trusted: Vec<bool> = config.servers.iter().map(|s| s.trusted).collect();
        assert_eq!(trusted, [false, true]);
        config.trust(&["*"]);
        assert!(config.servers.iter().all(|s| s.trusted));
    }

    #[test]
    fn a_pinned_entry_trusts_its_name_only_with_its_command_or_url() {
        let mut config = McpConfig::from_json_with(
            r#"{"mcpServers": {
                "files": {"command": "mcp-files", "args": ["${ROOT}"]},
                "github": {"type": "http", "url": "https://evil.example/mcp"}
            }}"#,
            |name| (name == "ROOT").then(|| "/srv".to_owned()),
        )
        .unwrap();
        let settings = crate::settings::Settings::from_json(
            r#"{"toolkit": {"trustedMcpServers": [
                {"name": "files", "command": ["mcp-files", "/srv"]},
                {"name": "github", "url": "https://api.example.com/mcp"}
            ]}}"#,
        )
        .unwrap();
        config.trust(&settings.trusted_mcp_servers);
        let trusted: Vec<(&str, bool)> = config
            .servers
            .iter()
            .map(|server| (server.name.as_str(), server.trusted))
            .collect();
        assert_eq!(trusted, [("files", true), ("github", false)]);
    }

    #[test]
    fn server_names_that_would_blur_rules_between_servers_are_refused() {
        for (config, wanted) in [
            (r#"{"git__hub": {"command": "x"}}"#, "`git__hub`"),
            (r#"{"git_": {"command": "x"}}"#, "`mcp__git__*`"),
            (r#"{"git?": {"command": "x"}}"#, "`git_`"),
            (
                r#"{"my files": {"command": "x"}, "my_files": {"command": "y"}}"#,
                "both `my_files`",
            ),
        ] {
            let error = parse(&format!(r#"{{"mcpServers": {config}}}"#))
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(wanted) && error.contains("rename it"),
                "{config}: {error}"
            );
        }
        assert!(parse(r#"{"mcpServers": {"my-files_2": {"command": "x"}}}"#).is_ok());
    }
}

//! `.mcp.json` text to [`McpConfig`](super::McpConfig): the file and each server as serde
//! types read by the crate's configuration reader, then checked for what they mean (a
//! transport from the fields given, a URL's scheme, headers the client sets itself), each
//! string's `${VAR}`s expanded.

use std::path::PathBuf;

use serde::Deserialize;
use serde::de::{SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::expand::{Unexpanded, expand};
use super::{McpConfig, McpConfigError, McpServerConfig, McpTransport};
use crate::definition::suggest::did_you_mean;
use crate::runtime::config::{self, FileReader, Pairs};
use crate::settings::SettingsWarning;

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

pub(super) fn parse(
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
        let part = super::super::normalize(name);
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

impl FileReader for Reader<'_> {
    type Error = McpConfigError;

    fn error(&self, error: &config::ReadError) -> McpConfigError {
        let (expected, found) = error.expected_and_found();
        self.invalid(error.location_or("the configuration"), &expected, &found)
    }
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
                "a server named \"\"",
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
                        self.invalid(&format!("{at}.command"), "the program to start", "missing")
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
                        self.invalid(&location, "the server's http:// or https:// URL", "missing")
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

//! The settings file as types: each section's keys, and what each value takes, as serde reads
//! them through the crate's configuration reader. Claude Code's sections ignore keys they do
//! not have, which the reader notes for a warning; our own (`toolkit`) refuse them. A struct's
//! `#[serde(rename)]` is what it is called in a warning ("a hook group").

use std::fmt;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};

#[cfg(feature = "http-hooks")]
use crate::runtime::config;

/// The serde name of [`SettingsFile`], which says what its unknown keys are of.
pub(super) const SETTINGS: &str = "Claude Code's settings";
/// The serde name of [`PermissionsEntry`].
pub(super) const PERMISSIONS: &str = "`permissions`";
/// The serde name of [`SandboxEntry`].
pub(super) const SANDBOX: &str = "`sandbox`";

/// A settings file, as far as it is read here. Claude Code's other top-level keys are known
/// by name ([`KNOWN`](super::keys::KNOWN)) and skipped; a key that is neither is a warning.
#[derive(Deserialize)]
#[serde(rename = "Claude Code's settings", rename_all = "camelCase")]
pub(super) struct SettingsFile {
    pub(super) permissions: Option<PermissionsEntry>,
    pub(super) hooks: Option<Map<String, Value>>,
    pub(super) sandbox: Option<SandboxEntry>,
    /// Read on its own, so that its unknown keys are errors named for the part they are in.
    pub(super) toolkit: Option<Value>,
    pub(super) enable_all_project_mcp_servers: Option<Flag>,
    pub(super) enabled_mcpjson_servers: Option<Vec<String>>,
    pub(super) disabled_mcpjson_servers: Option<Vec<String>>,
}

/// Claude Code's `permissions` section, as far as it is read here (its rules are checked
/// and anchored after). A key not here is listed as ignored where the file is parsed.
#[derive(Deserialize)]
#[serde(rename = "`permissions`", rename_all = "camelCase")]
pub(super) struct PermissionsEntry {
    pub(super) allow: Option<Vec<String>>,
    pub(super) ask: Option<Vec<String>>,
    pub(super) deny: Option<Vec<String>>,
    pub(super) default_mode: Option<String>,
    pub(super) additional_directories: Option<Vec<String>>,
    /// Claude Code's; known, not used here.
    #[serde(rename = "disableBypassPermissionsMode")]
    pub(super) _disable_bypass_permissions_mode: Option<IgnoredAny>,
}

/// The keys of Claude Code's `sandbox` section that this framework's shell sandbox reads; the
/// others are listed as ignored.
#[derive(Deserialize)]
#[serde(rename = "`sandbox`", rename_all = "camelCase")]
pub(super) struct SandboxEntry {
    pub(super) enabled: Option<Flag>,
    pub(super) auto_allow_bash_if_sandboxed: Option<Flag>,
}

/// A hook group (`hooks.PreToolUse[0]`). Each hook is read by its `type`.
#[derive(Deserialize)]
#[serde(rename = "a hook group")]
pub(super) struct GroupEntry {
    pub(super) matcher: Option<String>,
    pub(super) hooks: Option<Vec<Value>>,
}

/// What every hook has (`hooks.PreToolUse[0].hooks[0]`): its `type` and `timeout`, and the
/// keys of each of Claude Code's types, so that a key of none of them is warned about. The
/// keys of its type are read after, by that type's own struct: a key one type has no use
/// for is not checked for another.
#[derive(Deserialize)]
#[serde(rename = "a hook", rename_all = "camelCase")]
#[expect(
    dead_code,
    reason = "the keys of each type are known here, and read by the type"
)]
pub(super) struct HandlerEntry {
    #[serde(rename = "type")]
    pub(super) kind: Option<String>,
    pub(super) timeout: Option<Seconds>,
    pub(super) command: Option<IgnoredAny>,
    pub(super) r#async: Option<IgnoredAny>,
    pub(super) status_message: Option<IgnoredAny>,
    pub(super) once: Option<IgnoredAny>,
    pub(super) url: Option<IgnoredAny>,
    pub(super) headers: Option<IgnoredAny>,
    pub(super) allowed_env_vars: Option<IgnoredAny>,
    pub(super) prompt: Option<IgnoredAny>,
    pub(super) model: Option<IgnoredAny>,
    pub(super) server: Option<IgnoredAny>,
    pub(super) tool: Option<IgnoredAny>,
    pub(super) input: Option<IgnoredAny>,
}

/// A `"type": "command"` hook.
#[derive(Deserialize)]
pub(super) struct CommandHandler {
    pub(super) command: Option<String>,
    /// `async: true`: started, not waited for; it cannot decide anything.
    pub(super) r#async: Option<Flag>,
}

/// A `"type": "prompt"` or `"type": "agent"` hook.
#[derive(Deserialize)]
pub(super) struct ModelHandler {
    pub(super) prompt: Option<String>,
    pub(super) model: Option<String>,
}

/// A `"type": "mcp_tool"` hook.
#[derive(Deserialize)]
pub(super) struct McpToolHandler {
    pub(super) server: Option<String>,
    pub(super) tool: Option<String>,
    pub(super) input: Option<Map<String, Value>>,
}

/// A `"type": "http"` hook.
#[cfg(feature = "http-hooks")]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct HttpHandler {
    pub(super) url: Option<String>,
    pub(super) headers: Option<config::Pairs>,
    pub(super) allowed_env_vars: Option<Vec<String>>,
    pub(super) r#async: Option<Flag>,
}

/// A setting that is on or off, which says so when it is something else ("should be true or
/// false").
pub(super) struct Flag(pub(super) bool);

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
pub(super) struct Seconds(pub(super) f64);

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
pub(super) struct ToolkitEntry {
    pub(super) conditions: Option<Vec<Value>>,
    pub(super) trusted_mcp_servers: Option<Vec<Value>>,
}

/// A `toolkit.trustedMcpServers` entry: a server's name, or an object pinning it.
pub(super) enum TrustedItem {
    Name(String),
    Pinned(TrustedEntry),
}

impl<'de> Deserialize<'de> for TrustedItem {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameOrObject;
        impl<'de> serde::de::Visitor<'de> for NameOrObject {
            type Value = TrustedItem;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a server name, or {\"name\", \"command\": [program, args...]} or {\"name\", \"url\"}",
                )
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<TrustedItem, E> {
                Ok(TrustedItem::Name(name.to_owned()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                object: A,
            ) -> Result<TrustedItem, A::Error> {
                // Read past the reader's noting of unknown keys, which is why `TrustedEntry`
                // refuses them instead.
                let deserializer = serde::de::value::MapAccessDeserializer::new(object);
                TrustedEntry::deserialize(deserializer).map(TrustedItem::Pinned)
            }
        }
        deserializer.deserialize_any(NameOrObject)
    }
}

/// A `toolkit.trustedMcpServers` entry written as an object.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TrustedEntry {
    pub(super) name: Option<String>,
    pub(super) command: Option<Vec<String>>,
    pub(super) url: Option<String>,
}

/// One `toolkit.conditions` entry: our own keys only. Each of `when` is read by what it
/// tests ([`ConditionSubject`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ConditionEntry {
    pub(super) name: Option<String>,
    pub(super) verdict: Option<String>,
    pub(super) tool: Option<String>,
    pub(super) effect: Option<String>,
    pub(super) when: Option<Vec<Value>>,
    pub(super) priority: Option<Priority>,
}

/// What a condition of a rule's `when` tests: an argument's text or the size of the file it
/// names. The condition is then read as a [`TextCondition`] or a [`SizeCondition`], whose
/// keys are the subject's.
#[derive(Deserialize)]
pub(super) struct ConditionSubject {
    pub(super) arg: Option<String>,
    pub(super) file_size_of: Option<String>,
}

/// A condition on an argument's text: `arg` and one test.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TextCondition {
    pub(super) arg: String,
    pub(super) contains: Option<String>,
    pub(super) equals: Option<String>,
    pub(super) matches: Option<String>,
    pub(super) longer_than: Option<Characters>,
    pub(super) shorter_than: Option<Characters>,
}

/// A condition on the size of the file a path argument names: `file_size_of` and one test.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SizeCondition {
    pub(super) file_size_of: String,
    pub(super) greater_than: Option<Bytes>,
    pub(super) less_than: Option<Bytes>,
}

/// A condition without a subject: its keys are checked against every condition's, so that a
/// misspelt subject (`argument`) is named as such.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[expect(dead_code, reason = "read for its keys only")]
pub(super) struct AnyCondition {
    pub(super) arg: Option<IgnoredAny>,
    pub(super) file_size_of: Option<IgnoredAny>,
    pub(super) contains: Option<IgnoredAny>,
    pub(super) equals: Option<IgnoredAny>,
    pub(super) matches: Option<IgnoredAny>,
    pub(super) longer_than: Option<IgnoredAny>,
    pub(super) shorter_than: Option<IgnoredAny>,
    pub(super) greater_than: Option<IgnoredAny>,
    pub(super) less_than: Option<IgnoredAny>,
}

/// One test of a condition, as written.
pub(super) enum Test {
    Contains(String),
    Equals(String),
    Matches(String),
    LongerThan(u64),
    ShorterThan(u64),
    GreaterThan(u64),
    LessThan(u64),
}

/// A whole number, 0 or more, of a unit ("a number of characters (a whole number, 0 or more)").
pub(super) struct WholeNumber(pub(super) &'static str);

impl serde::de::Visitor<'_> for WholeNumber {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a number of {} (a whole number, 0 or more)", self.0)
    }
    fn visit_u64<E: serde::de::Error>(self, count: u64) -> Result<u64, E> {
        Ok(count)
    }
}

/// `longer_than`, `shorter_than`: a number of characters.
pub(super) struct Characters(pub(super) u64);

impl<'de> Deserialize<'de> for Characters {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_u64(WholeNumber("characters"))
            .map(Characters)
    }
}

/// `greater_than`, `less_than`: a number of bytes.
pub(super) struct Bytes(pub(super) u64);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_u64(WholeNumber("bytes"))
            .map(Bytes)
    }
}

/// A conditional rule's `priority`: a whole number that fits an `i32`.
pub(super) struct Priority(pub(super) i32);

impl<'de> Deserialize<'de> for Priority {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fits;
        impl serde::de::Visitor<'_> for Fits {
            type Value = Priority;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a whole number (lower runs first: deny rules run at 100, the modes at 300, ask rules at 400, allow rules at 500)")
            }
            fn visit_i64<E: serde::de::Error>(self, priority: i64) -> Result<Priority, E> {
                i32::try_from(priority)
                    .map(Priority)
                    .map_err(|_| E::invalid_type(serde::de::Unexpected::Signed(priority), &self))
            }
            fn visit_u64<E: serde::de::Error>(self, priority: u64) -> Result<Priority, E> {
                i32::try_from(priority)
                    .map(Priority)
                    .map_err(|_| E::invalid_type(serde::de::Unexpected::Unsigned(priority), &self))
            }
        }
        deserializer.deserialize_i64(Fits)
    }
}

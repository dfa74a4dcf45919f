//! Settings text to [`Settings`]: the file is read as the types of [`file`](super::file),
//! then each value is checked for what it means (a rule that parses, a matcher that compiles,
//! a directory that exists) and turned into what the coordinator runs. Each error names the
//! file, the JSON location and what would be right.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};

#[cfg(feature = "http-hooks")]
use super::file::HttpHandler;
use super::file::{
    AnyCondition, Bytes, Characters, CommandHandler, ConditionEntry, ConditionSubject, Flag,
    GroupEntry, HandlerEntry, McpToolHandler, ModelHandler, PERMISSIONS, PermissionsEntry,
    Priority, SANDBOX, SETTINGS, Seconds, SettingsFile, SizeCondition, Test, TextCondition,
    ToolkitEntry, TrustedEntry, TrustedItem,
};
use super::{
    IgnoredEntry, McpToolHookSpec, ModelHookSpec, Permissions, RuleSource, SandboxSettings,
    Settings, SettingsError, SettingsWarning, TrustedMcpServer, additional_directory, backticked,
    keys,
};
use crate::definition::suggest::{closest, did_you_mean};
use crate::runtime::config::{self, FileReader};
use crate::runtime::hooks::{
    BackgroundHook, CommandHook, DEFAULT_TIMEOUT, Hook, HookEvent, Matcher, ModelHookKind,
};
use crate::runtime::policy::{
    Condition, ConditionError, ConditionalRule, EffectFilter, Mode, RulePattern, Verdict,
};

/// Reads settings `text` from `origin` (a file's name, or `settings`); `project` is the
/// project directory of a file's settings, `None` for text.
pub(super) fn parse(
    text: &str,
    origin: &str,
    project: Option<&Path>,
) -> Result<Settings, SettingsError> {
    let value: Value = serde_json::from_str(text).map_err(|error| SettingsError::Syntax {
        origin: origin.to_owned(),
        line: error.line(),
        column: error.column(),
        source: error,
    })?;
    let reader = Reader { origin, project };
    let (file, unknown) = reader.read_noting_unknown::<SettingsFile>(&value, "")?;
    // Keys no field takes, by the section they are in, each reported where the section is.
    let unknown_in = |section: &'static str| unknown.iter().filter(move |key| key.of == section);
    let mut settings = Settings::default();
    if let Some(permissions) = file.permissions {
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
        for unknown in unknown_in(PERMISSIONS) {
            settings.ignored.push(reader.ignored(
                &unknown.path(),
                format!(
                    "`{}` is not a key of `permissions` (its keys are {}){}",
                    unknown.key,
                    backticked(unknown.known),
                    did_you_mean(&unknown.key, unknown.known.iter().copied())
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
    if let Some(hooks) = &file.hooks {
        reader.hooks(hooks, &mut settings)?;
    }
    if let Some(toolkit) = &file.toolkit {
        reader.toolkit(toolkit, &mut settings)?;
    }
    if let Some(sandbox) = file.sandbox {
        settings.sandbox = SandboxSettings {
            enabled: sandbox.enabled.map(|Flag(flag)| flag),
            auto_allow_bash_if_sandboxed: sandbox
                .auto_allow_bash_if_sandboxed
                .map(|Flag(flag)| flag),
        };
        for unknown in unknown_in(SANDBOX) {
            settings.ignored.push(reader.ignored(
                &unknown.path(),
                "this sandbox key is not read here (only `enabled` and `autoAllowBashIfSandboxed` are)".to_owned(),
            ));
        }
    }
    settings.mcp_json.enable_all = file.enable_all_project_mcp_servers.map(|Flag(all)| all);
    settings.mcp_json.enabled = file.enabled_mcpjson_servers.unwrap_or_default();
    settings.mcp_json.disabled = file.disabled_mcpjson_servers.unwrap_or_default();
    // Claude Code's keys this framework does not read are known by name, and quiet.
    let misspelt = unknown_in(SETTINGS).filter(|key| !keys::KNOWN.contains(&key.key.as_str()));
    for unknown in misspelt {
        settings
            .warnings
            .push(keys::warning(origin, unknown, keys::KNOWN));
    }
    Ok(settings)
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

impl FileReader for Reader<'_> {
    type Error = SettingsError;

    fn error(&self, error: &config::ReadError) -> SettingsError {
        let (expected, found) = error.expected_and_found();
        self.invalid(error.location_or("the settings"), &expected, &found)
    }
}

/// A hook to register, and its `async` setting.
type HookToRegister = (Arc<dyn Hook>, Option<Flag>);

/// Typed reads of the settings' JSON, with errors that name the file and the location.
struct Reader<'o> {
    origin: &'o str,
    /// The project directory of a file's settings; `None` for text.
    project: Option<&'o Path>,
}

impl Reader<'_> {
    /// A value that is not what `expected` says; `found` says what it is ("an array").
    fn invalid(&self, location: &str, expected: &str, found: &str) -> SettingsError {
        SettingsError::Invalid {
            origin: self.origin.to_owned(),
            location: location.to_owned(),
            expected: expected.to_owned(),
            found: found.to_owned(),
        }
    }

    /// A warning for a key of Claude Code's that is none of `unknown.of`'s.
    fn warning(&self, unknown: &config::UnknownKey) -> SettingsWarning {
        keys::warning(self.origin, unknown, unknown.known)
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
            None => self.error(&error),
        })
    }

    fn permissions(&self, entry: PermissionsEntry) -> Result<Permissions, SettingsError> {
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

    fn hooks(
        &self,
        hooks: &Map<String, Value>,
        settings: &mut Settings,
    ) -> Result<(), SettingsError> {
        for (event_name, groups) in hooks {
            let event_location = format!("hooks.{event_name}");
            let Ok(event) = event_name.parse::<HookEvent>() else {
                let events = HookEvent::ALL.map(HookEvent::as_str);
                settings.ignored.push(self.ignored(
                    &event_location,
                    format!(
                        "the `{event_name}` event is not run here; hooks run for {}{}",
                        events.join(", "),
                        did_you_mean(event_name, events)
                    ),
                ));
                continue;
            };
            let (groups, unknown) =
                self.read_noting_unknown::<Option<Vec<GroupEntry>>>(groups, &event_location)?;
            // The unknown keys come in the file's order, each group's together: taken group by
            // group, in one pass (a file with many groups is read in time linear in it).
            let mut unknown = unknown.iter().peekable();
            for (index, group) in groups.into_iter().flatten().enumerate() {
                let location = format!("{event_location}[{index}]");
                let group_unknown: Vec<&config::UnknownKey> =
                    std::iter::from_fn(|| unknown.next_if(|key| key.location == location))
                        .collect();
                self.group(event, group, &location, &group_unknown, settings)?;
            }
        }
        Ok(())
    }

    /// One hook group: its matcher, and each of its hooks (`unknown`: the group's keys that
    /// are not a group's).
    fn group(
        &self,
        event: HookEvent,
        group: GroupEntry,
        location: &str,
        unknown: &[&config::UnknownKey],
        settings: &mut Settings,
    ) -> Result<(), SettingsError> {
        settings
            .warnings
            .extend(unknown.iter().map(|key| self.warning(key)));
        let matcher = match group.matcher {
            Some(text) => Matcher::new(&text).map_err(|source| SettingsError::Matcher {
                origin: self.origin.to_owned(),
                location: format!("{location}.matcher"),
                source,
            })?,
            None => Matcher::every(),
        };
        let hooks = self.required(group.hooks, unknown, location, "hooks", "an array of hooks")?;
        for (index, hook) in hooks.iter().enumerate() {
            let location = format!("{location}.hooks[{index}]");
            self.handler(event, &matcher, hook, &location, settings)?;
        }
        Ok(())
    }

    /// One hook, read by its `type`: registered, kept for `build()` (model and `mcp_tool`
    /// hooks), or listed as ignored.
    fn handler(
        &self,
        event: HookEvent,
        matcher: &Matcher,
        value: &Value,
        location: &str,
        settings: &mut Settings,
    ) -> Result<(), SettingsError> {
        let (entry, unknown) = self.read_noting_unknown::<HandlerEntry>(value, location)?;
        settings
            .warnings
            .extend(unknown.iter().map(|key| self.warning(key)));
        let unknown: Vec<&config::UnknownKey> = unknown.iter().collect();
        let required = |field: Option<String>, key: &str, expected: &str| {
            self.required(field, &unknown, location, key, expected)
        };
        let kind = required(entry.kind, "type", "a hook type such as \"command\"")?;
        let timeout = match entry.timeout {
            Some(seconds) => self.timeout(seconds, &format!("{location}.timeout"))?,
            None => DEFAULT_TIMEOUT,
        };
        let (hook, background): HookToRegister = match kind.as_str() {
            "command" => {
                let command: CommandHandler = self.read(value, location)?;
                let text = required(command.command, "command", "the command to run")?;
                (
                    Arc::new(CommandHook::new(text).timeout(timeout)),
                    command.r#async,
                )
            }
            "prompt" | "agent" => {
                let model: ModelHandler = self.read(value, location)?;
                let prompt = required(model.prompt, "prompt", "the prompt for the model")?;
                settings.model_hooks.push(ModelHookSpec {
                    event,
                    matcher: matcher.clone(),
                    kind: if kind == "prompt" {
                        ModelHookKind::Prompt
                    } else {
                        ModelHookKind::Agent
                    },
                    prompt,
                    model: model.model,
                    timeout,
                    origin: self.origin.to_owned(),
                    location: location.to_owned(),
                });
                return Ok(());
            }
            "mcp_tool" => {
                let call: McpToolHandler = self.read(value, location)?;
                let server =
                    required(call.server, "server", "the name of a configured MCP server")?;
                let tool = required(call.tool, "tool", "the name of the server's tool")?;
                settings.mcp_tool_hooks.push(McpToolHookSpec {
                    event,
                    matcher: matcher.clone(),
                    server,
                    tool,
                    input: call.input.unwrap_or_default(),
                    timeout,
                    origin: self.origin.to_owned(),
                    location: location.to_owned(),
                });
                return Ok(());
            }
            "http" => match self.http_hook(value, location, &unknown, timeout)? {
                Some(http) => http,
                None => {
                    settings.ignored.push(self.ignored(
                        location,
                        "hooks of type \"http\" need tool-core's `http-hooks` feature, which this program was built without".to_owned(),
                    ));
                    return Ok(());
                }
            },
            _ => {
                let kinds = ["command", "http", "mcp_tool", "prompt", "agent"];
                settings.ignored.push(self.ignored(
                    location,
                    format!(
                        "hooks of type \"{kind}\" are not run here; \"command\", \"http\", \"mcp_tool\", \"prompt\" and \"agent\" hooks are{}",
                        did_you_mean(&kind, kinds)
                    ),
                ));
                return Ok(());
            }
        };
        // `async: true`: started, not waited for; it cannot decide anything.
        let hook = match background {
            Some(Flag(true)) => Arc::new(BackgroundHook::new(hook)) as Arc<dyn Hook>,
            _ => hook,
        };
        settings.hooks.register_shared(event, matcher.clone(), hook);
        Ok(())
    }

    /// An `"type": "http"` hook (`url`, `headers`, `allowedEnvVars`), and whether it is `async`.
    #[cfg(feature = "http-hooks")]
    fn http_hook(
        &self,
        value: &Value,
        location: &str,
        unknown: &[&config::UnknownKey],
        timeout: Duration,
    ) -> Result<Option<HookToRegister>, SettingsError> {
        let entry: HttpHandler = self.read(value, location)?;
        let url = self.required(
            entry.url,
            unknown,
            location,
            "url",
            "the URL to POST the event to",
        )?;
        let url_location = format!("{location}.url");
        let mut hook = crate::runtime::hooks::HttpHook::new(&url)
            .map_err(|error| {
                self.invalid(
                    &url_location,
                    &format!("an http:// or https:// URL ({error})"),
                    &config::quoted(&url),
                )
            })?
            .timeout(timeout);
        for (name, value) in entry
            .headers
            .map(|config::Pairs(pairs)| pairs)
            .unwrap_or_default()
        {
            hook = hook.header(name, value);
        }
        for name in entry.allowed_env_vars.unwrap_or_default() {
            hook = hook.allow_env_var(name);
        }
        Ok(Some((Arc::new(hook), entry.r#async)))
    }

    /// Without the `http-hooks` feature an http hook is kept in `ignored`.
    #[cfg(not(feature = "http-hooks"))]
    #[expect(
        clippy::unnecessary_wraps,
        reason = "the same shape as with the feature"
    )]
    fn http_hook(
        &self,
        _value: &Value,
        _location: &str,
        _unknown: &[&config::UnknownKey],
        _timeout: Duration,
    ) -> Result<Option<HookToRegister>, SettingsError> {
        Ok(None)
    }

    fn timeout(
        &self,
        Seconds(seconds): Seconds,
        location: &str,
    ) -> Result<Duration, SettingsError> {
        Duration::try_from_secs_f64(seconds)
            .ok()
            .filter(|duration| !duration.is_zero())
            .ok_or_else(|| SettingsError::Invalid {
                origin: self.origin.to_owned(),
                location: location.to_owned(),
                expected: "a positive number of seconds".to_owned(),
                found: format!("{seconds}"),
            })
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
            return Err(self.invalid(&name_location, NAME, &config::quoted(name)));
        }
        let verdict_location = format!("{location}.verdict");
        const VERDICTS: &str = "one of \"allow\", \"ask\", \"deny\"";
        let verdict = match entry.verdict.as_deref() {
            None => return Err(self.missing(&verdict_location, VERDICTS)),
            Some("allow") => Verdict::Allow,
            Some("ask") => Verdict::Ask,
            Some("deny") => Verdict::Deny,
            Some(other) => {
                return Err(self.invalid(&verdict_location, VERDICTS, &config::quoted(other)));
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
                    &config::quoted(effect),
                )
            })?;
            rule = rule.effect(effect);
        }
        for (index, condition) in entry.when.iter().flatten().enumerate() {
            let condition_location = format!("{location}.when[{index}]");
            rule = rule.when(self.condition(condition, &condition_location)?);
        }
        if let Some(Priority(priority)) = entry.priority {
            rule = rule.with_priority(priority);
        }
        Ok(rule)
    }

    /// One condition of a rule's `when`: a subject (`arg` or `file_size_of`) and one test.
    fn condition(&self, value: &Value, location: &str) -> Result<Condition, SettingsError> {
        const TEXT: &str = "a condition on an argument's text";
        const SIZE: &str = "a condition on the size of the file a path argument names";
        let subject: ConditionSubject = self.read(value, location)?;
        // The subject first, then its tests, as written.
        let (name, (key, test)) = match (subject.arg, subject.file_size_of) {
            (Some(_), None) => {
                let entry: TextCondition = self.read_entry(value, location, TEXT)?;
                let written = [
                    ("contains", entry.contains.map(Test::Contains)),
                    ("equals", entry.equals.map(Test::Equals)),
                    ("matches", entry.matches.map(Test::Matches)),
                    (
                        "longer_than",
                        entry.longer_than.map(|Characters(n)| Test::LongerThan(n)),
                    ),
                    (
                        "shorter_than",
                        entry.shorter_than.map(|Characters(n)| Test::ShorterThan(n)),
                    ),
                ];
                (entry.arg, self.one_test(written, location, TEXT)?)
            }
            (None, Some(_)) => {
                let entry: SizeCondition = self.read_entry(value, location, SIZE)?;
                let written = [
                    (
                        "greater_than",
                        entry.greater_than.map(|Bytes(n)| Test::GreaterThan(n)),
                    ),
                    (
                        "less_than",
                        entry.less_than.map(|Bytes(n)| Test::LessThan(n)),
                    ),
                ];
                (entry.file_size_of, self.one_test(written, location, SIZE)?)
            }
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
                let _: AnyCondition = self.read_entry(value, location, "a condition")?;
                return Err(self.missing(
                    &format!("{location}.arg"),
                    "the argument the condition tests: `arg` for its text, or `file_size_of` for the size of the file it names, as in {\"arg\": \"url\", \"contains\": \"token=\"}",
                ));
            }
        };
        // Wider than `usize` only on 32-bit targets: longer than any text there.
        let characters = |count: u64| usize::try_from(count).unwrap_or(usize::MAX);
        Ok(match test {
            Test::Contains(text) => Condition::arg(name).contains(text),
            Test::Equals(text) => Condition::arg(name).equals(text),
            Test::Matches(pattern) => Condition::arg(name)
                .matches(&pattern)
                .map_err(|source| self.condition_error(&format!("{location}.{key}"), source))?,
            Test::LongerThan(count) => Condition::arg(name).longer_than(characters(count)),
            Test::ShorterThan(count) => Condition::arg(name).shorter_than(characters(count)),
            Test::GreaterThan(bytes) => Condition::file_size(name).greater_than(bytes),
            Test::LessThan(bytes) => Condition::file_size(name).less_than(bytes),
        })
    }

    /// The one test a condition (`what`) has, of those `written` (each test's key, and the
    /// test if it is there).
    fn one_test<const N: usize>(
        &self,
        written: [(&'static str, Option<Test>); N],
        location: &str,
        what: &str,
    ) -> Result<(&'static str, Test), SettingsError> {
        let keys = written.each_ref().map(|(key, _)| *key);
        let mut present = written
            .into_iter()
            .filter_map(|(key, test)| Some((key, test?)));
        match (present.next(), present.next()) {
            (Some(one), None) => Ok(one),
            (None, _) => Err(SettingsError::Invalid {
                origin: self.origin.to_owned(),
                location: location.to_owned(),
                expected: format!("{what} with a test: one of {}", backticked(&keys)),
                found: "none".to_owned(),
            }),
            (Some((first, _)), Some((second, _))) => Err(SettingsError::Invalid {
                origin: self.origin.to_owned(),
                location: location.to_owned(),
                expected: "one test per condition (write the other as a condition of its own: all of a rule's conditions must hold)".to_owned(),
                found: format!("`{first}` and `{second}`"),
            }),
        }
    }

    /// `toolkit.trustedMcpServers`: names, or objects pinning a name to a command or a URL.
    fn trusted_mcp_servers(
        &self,
        entries: &[Value],
    ) -> Result<Vec<TrustedMcpServer>, SettingsError> {
        let mut servers = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            let location = format!("toolkit.trustedMcpServers[{index}]");
            let server = match self.read_entry(entry, &location, "a trusted MCP server")? {
                TrustedItem::Name(name) => {
                    TrustedMcpServer::named(self.server_name(name, &location)?)
                }
                TrustedItem::Pinned(pinned) => self.pinned(pinned, &location)?,
            };
            servers.push(server);
        }
        Ok(servers)
    }

    /// A trusted server's name: an empty one would trust no server, unsaid.
    fn server_name(&self, name: String, location: &str) -> Result<String, SettingsError> {
        if name.trim().is_empty() {
            return Err(self.invalid(
                location,
                "a server's name as the MCP configuration gives it (or \"*\" for every server)",
                &config::quoted(&name),
            ));
        }
        Ok(name)
    }

    /// A trusted server written as an object: a name, and a command line or a URL.
    fn pinned(
        &self,
        pinned: TrustedEntry,
        location: &str,
    ) -> Result<TrustedMcpServer, SettingsError> {
        let name_location = format!("{location}.name");
        let name = pinned
            .name
            .ok_or_else(|| self.missing(&name_location, "a string"))?;
        let name = self.server_name(name, &name_location)?;
        if pinned.command.as_ref().is_some_and(Vec::is_empty) {
            return Err(self.invalid(
                &format!("{location}.command"),
                "the program and its arguments",
                "an array",
            ));
        }
        if pinned.command.is_some() && pinned.url.is_some() {
            return Err(self.invalid(
                location,
                "a command or a URL, not both (a server is started or reached, not both)",
                "an object",
            ));
        }
        Ok(TrustedMcpServer {
            name,
            command: pinned.command,
            url: pinned.url,
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

    /// The value of the key `key` of the object at `at`, which must be there; when it is not,
    /// an error naming a key of the object's that misspells it (`comand` for `command`): one
    /// of its `unknown` keys.
    fn required<T>(
        &self,
        value: Option<T>,
        unknown: &[&config::UnknownKey],
        at: &str,
        key: &str,
        expected: &str,
    ) -> Result<T, SettingsError> {
        let Some(missing) = value else {
            let misspelt = unknown
                .iter()
                .find(|unknown| !closest(&unknown.key, [key], 1).is_empty());
            let found = match misspelt {
                Some(unknown) => format!(
                    "missing, though `{}` is there: did you mean `{key}`?",
                    unknown.key
                ),
                None => "nothing".to_owned(),
            };
            return Err(self.invalid(&format!("{at}.{key}"), expected, &found));
        };
        Ok(missing)
    }

    fn ignored(&self, location: &str, reason: String) -> IgnoredEntry {
        IgnoredEntry {
            origin: self.origin.to_owned(),
            location: location.to_owned(),
            reason,
        }
    }
}

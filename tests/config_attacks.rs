//! Attacks on the typed readers of settings and `.mcp.json` (issue 25, item 4), from a
//! review of the change: hostile shapes name their JSON path and never panic, every key of
//! each hook type is known, warnings keep the file's order.

use tool_core::hooks::HookEvent;
use tool_core::mcp::client::McpConfig;
use tool_core::policy::{Condition, ConditionalRule, Verdict};
use tool_core::settings::Settings;

fn hook(h: &str) -> String {
    format!(r#"{{"hooks": {{"PreToolUse": [{{"hooks": [{h}]}}]}}}}"#)
}

fn error(text: &str) -> String {
    Settings::from_json(text).expect_err(text).to_string()
}

/// Every key of each of Claude Code's hook types loads without a warning (the list a hook
/// knows is each type's keys), `async` read from the JSON key `async`.
#[test]
fn every_key_of_each_hook_type_loads_without_a_warning() {
    for h in [
        r#"{"type": "command", "command": "x", "timeout": 5, "async": true, "statusMessage": "s", "once": true}"#,
        r#"{"type": "http", "url": "http://h", "headers": {"A": "b"}, "allowedEnvVars": ["X"], "async": false, "timeout": 1}"#,
        r#"{"type": "prompt", "prompt": "p", "model": "m", "timeout": 1, "statusMessage": "s"}"#,
        r#"{"type": "agent", "prompt": "p", "model": null}"#,
        r#"{"type": "mcp_tool", "server": "s", "tool": "t", "input": {"a": "${tool_input.x}"}}"#,
    ] {
        let settings = Settings::from_json(&hook(h)).expect(h);
        assert!(settings.warnings.is_empty(), "{h}: {:?}", settings.warnings);
        assert!(settings.ignored.is_empty(), "{h}: {:?}", settings.ignored);
    }
    // `async` is the JSON key of the raw-identifier field, for command and http hooks alike.
    for kind in [
        r#""command", "command": "x""#,
        r#""http", "url": "http://h""#,
    ] {
        let text = hook(&format!(r#"{{"type": {kind}, "async": "no"}}"#));
        assert!(
            error(&text).ends_with(
                "`hooks.PreToolUse[0].hooks[0].async` should be true or false, found the string \"no\""
            ),
            "{}",
            error(&text)
        );
    }
}

/// Another client's spelling of a hook key (snake_case) is a warning naming Claude Code's.
#[test]
fn a_snake_case_hook_key_is_a_warning_naming_the_camel_case_one() {
    let settings = Settings::from_json(&hook(
        r#"{"type": "http", "url": "http://h", "allowed_env_vars": ["X"]}"#,
    ))
    .unwrap();
    assert_eq!(
        settings.warnings[0].to_string(),
        "settings: `hooks.PreToolUse[0].hooks[0].allowed_env_vars`: not a key of a hook, so it has no effect; did you mean `allowedEnvVars`?"
    );
}

/// Each missing required key of a hook type names the unknown key that misspells it.
#[test]
fn each_missing_required_hook_key_names_its_misspelling() {
    for (h, key, written) in [
        (r#"{"type": "http", "URL": "http://h"}"#, "url", "URL"),
        (r#"{"type": "prompt", "promt": "p"}"#, "prompt", "promt"),
        (
            r#"{"type": "mcp_tool", "server": "s", "tools": "t"}"#,
            "tool",
            "tools",
        ),
        (
            r#"{"type": "mcp_tool", "servr": "s", "tool": "t"}"#,
            "server",
            "servr",
        ),
    ] {
        let message = error(&hook(h));
        assert!(
            message.contains(&format!("`hooks.PreToolUse[0].hooks[0].{key}` should be"))
                && message.ends_with(&format!(
                    "found missing, though `{written}` is there: did you mean `{key}`?"
                )),
            "{h}: {message}"
        );
    }
}

/// Hostile shapes: never a panic, always the JSON path of the value.
#[test]
fn hostile_shapes_name_their_path() {
    for (text, message) in [
        ("null".to_owned(), "`the settings` should be an object, found null"),
        (r#""x""#.to_owned(), "`the settings` should be an object, found the string \"x\""),
        (r#"{"hooks": {"PreToolUse": [null]}}"#.to_owned(), "`hooks.PreToolUse[0]` should be an object, found null"),
        (hook("null"), "`hooks.PreToolUse[0].hooks[0]` should be an object, found null"),
        (hook("[]"), "`hooks.PreToolUse[0].hooks[0]` should be an object, found an array"),
        (hook(r#"{"type": null, "command": "x"}"#), "`hooks.PreToolUse[0].hooks[0].type` should be a hook type such as \"command\", found nothing"),
        (hook(r#"{"type": "http", "url": "http://h", "headers": {"A": 1}}"#), "`hooks.PreToolUse[0].hooks[0].headers.A` should be a string, found a number"),
        (r#"{"enabledMcpjsonServers": ["a", null]}"#.to_owned(), "`enabledMcpjsonServers[1]` should be a string, found null"),
        (r#"{"toolkit": {"trustedMcpServers": [null]}}"#.to_owned(), "`toolkit.trustedMcpServers[0]` should be a server name, or {\"name\", \"command\": [program, args...]} or {\"name\", \"url\"}, found null"),
        (r#"{"toolkit": {"trustedMcpServers": [{"name": "n", "command": ["a", null]}]}}"#.to_owned(), "`toolkit.trustedMcpServers[0].command[1]` should be a string, found null"),
        (r#"{"toolkit": {"conditions": [{"name": "n", "verdict": "deny", "when": [null]}]}}"#.to_owned(), "`toolkit.conditions[0].when[0]` should be an object, found null"),
        (r#"{"toolkit": {"conditions": [{"name": "n", "verdict": "deny", "when": [["arg", "x"]]}]}}"#.to_owned(), "`toolkit.conditions[0].when[0]` should be an object, found an array"),
        (r#"{"toolkit": {"conditions": [{"name": "n", "verdict": "deny", "priority": 2147483648}]}}"#.to_owned(), "`toolkit.conditions[0].priority` should be a whole number (lower runs first: deny rules run at 100, the modes at 300, ask rules at 400, allow rules at 500), found a number"),
        (r#"{"toolkit": {"conditions": [{"name": "n", "verdict": "deny", "priority": "1"}]}}"#.to_owned(), "found the string \"1\""),
        (r#"{"toolkit": {"conditions": [{"name": "n", "verdict": "deny", "when": [{"arg": "a", "longer_than": 18446744073709551616}]}]}}"#.to_owned(), "`toolkit.conditions[0].when[0].longer_than` should be a number of characters (a whole number, 0 or more), found a number"),
    ] {
        let got = error(&text);
        assert!(got.ends_with(message), "{text}\n  got: {got}\n want: {message}");
    }
}

/// Warnings and ignored entries come out section by section, in the file's order within one.
#[test]
fn warnings_and_ignored_entries_keep_their_order() {
    let settings = Settings::from_json(
        r#"{"zz": 1,
            "permissions": {"alow": [], "allow": ["Bash(git * main)"]},
            "hooks": {"PreToolUse": [
                {"matchr": "x", "hooks": [{"type": "command", "command": "x", "timout": 1}, {"type": "foo"}]},
                {"hoks2": 1, "hooks": []}],
              "Nope": []},
            "sandbox": {"x": 1},
            "aa": 2,
            "toolkit": {"conditions": [{"name": "n", "verdict": "allow"}]}}"#,
    )
    .unwrap();
    let warnings: Vec<&str> = settings
        .warnings
        .iter()
        .map(|w| w.location.as_str())
        .collect();
    assert_eq!(
        warnings,
        [
            "permissions.allow[0]",
            "hooks.PreToolUse[0].matchr",
            "hooks.PreToolUse[0].hooks[0].timout",
            "hooks.PreToolUse[1].hoks2",
            "toolkit.conditions[0]",
            "zz",
            "aa",
        ]
    );
    let ignored: Vec<&str> = settings
        .ignored
        .iter()
        .map(|i| i.location.as_str())
        .collect();
    assert_eq!(
        ignored,
        [
            "permissions.alow",
            "hooks.PreToolUse[0].hooks[1]",
            "hooks.Nope",
            "sandbox.x"
        ]
    );
    assert!(settings.hooks.has(HookEvent::PreToolUse));
}

/// Non-ASCII keys are warned about by their text, with a suggestion where one is close.
#[test]
fn non_ascii_keys_are_warned_about_without_a_panic() {
    let settings = Settings::from_json(
        r#"{"permissiöns": {}, "sandbox": {"ënabled": true}, "hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "x", "cömmand": "y", "İ": 1}]}]}}"#,
    )
    .unwrap();
    let warnings: Vec<String> = settings.warnings.iter().map(ToString::to_string).collect();
    assert!(
        warnings.iter().any(|w| w.ends_with("`hooks.PreToolUse[0].hooks[0].cömmand`: not a key of a hook, so it has no effect; did you mean `command`?")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("`permissiöns`") && w.ends_with("did you mean `permissions`?")),
        "{warnings:?}"
    );
    assert_eq!(settings.ignored[0].location, "sandbox.ënabled");
}

/// Each test of a `when` condition is the condition built in code with that test.
#[test]
fn each_condition_test_from_settings_is_the_one_written() {
    let cases: [(&str, Condition); 7] = [
        (
            r#"{"arg": "a", "contains": "t"}"#,
            Condition::arg("a").contains("t"),
        ),
        (
            r#"{"arg": "a", "equals": "t"}"#,
            Condition::arg("a").equals("t"),
        ),
        (
            r#"{"arg": "a", "matches": "^t"}"#,
            Condition::arg("a").matches("^t").unwrap(),
        ),
        (
            r#"{"arg": "a", "longer_than": 3}"#,
            Condition::arg("a").longer_than(3),
        ),
        (
            r#"{"arg": "a", "shorter_than": 3}"#,
            Condition::arg("a").shorter_than(3),
        ),
        (
            r#"{"file_size_of": "p", "greater_than": 18446744073709551615}"#,
            Condition::file_size("p").greater_than(u64::MAX),
        ),
        (
            r#"{"file_size_of": "p", "less_than": 0}"#,
            Condition::file_size("p").less_than(0),
        ),
    ];
    for (when, condition) in cases {
        let text = format!(
            r#"{{"toolkit": {{"conditions": [{{"name": "n", "verdict": "deny", "priority": -2147483648, "when": [{when}]}}]}}}}"#
        );
        let settings = Settings::from_json(&text).expect(when);
        let built = ConditionalRule::new(Verdict::Deny, "n")
            .when(condition)
            .with_priority(i32::MIN);
        assert_eq!(
            settings.conditions[0].to_string(),
            built.to_string(),
            "{when}"
        );
    }
}

/// `.mcp.json`: hostile shapes are errors naming their path; misspellings warn, in order.
#[test]
fn hostile_mcp_json() {
    let parse = |text: &str| McpConfig::from_json_with(text, |_| None);
    for (text, message) in [
        (
            "null",
            "`the configuration` should be an object, but it is null",
        ),
        (
            "[]",
            "`the configuration` should be an object, but it is an array",
        ),
        (
            r#"{"mcpServers": []}"#,
            "`mcpServers` should be an object, but it is an array",
        ),
        (
            r#"{"mcpServers": {"a": null}}"#,
            "`mcpServers.a` should be an object, but it is null",
        ),
        (
            r#"{"mcpServers": {"a": {"type": 5, "command": "x"}}}"#,
            "`mcpServers.a.type` should be a string, but it is a number",
        ),
        (
            r#"{"mcpServers": {"a": {"type": "stdio", "command": null, "comand": "x"}}}"#,
            "`mcpServers.a.comand` is not a key of a server (its keys are `type`, `command`, `args`, `env`, `cwd`, `url`, `headers`); did you mean `command`?",
        ),
        (
            r#"{"mcpServers": {"a": {"comand": "x", "URL": "http://h"}}}"#,
            "did you mean `command`?",
        ),
    ] {
        let got = parse(text).expect_err(text).to_string();
        assert!(got.ends_with(message), "{text}\n  got: {got}");
    }
    let config = parse(
        r#"{"zz": 1, "mcpServers": {"b": {"command": "x", "arg": []}, "a": {"command": "x", "evn": {}}}, "servers": {}}"#,
    )
    .unwrap();
    let warnings: Vec<&str> = config
        .warnings()
        .iter()
        .map(|w| w.location.as_str())
        .collect();
    assert_eq!(
        warnings,
        ["zz", "servers", "mcpServers.b.arg", "mcpServers.a.evn"]
    );
    assert!(
        parse(r#"{"mcpServers": null, "$schema": 5}"#)
            .unwrap()
            .warnings()
            .is_empty()
    );
}

/// `null` for an event's groups is absent, as it is for the whole `hooks` section.
#[test]
fn a_null_event_is_absent() {
    let settings =
        Settings::from_json(r#"{"hooks": {"PreToolUse": null, "PostToolUse": []}}"#).unwrap();
    assert!(!settings.hooks.has(HookEvent::PreToolUse));
    assert!(settings.warnings.is_empty() && settings.ignored.is_empty());
}

/// An empty trusted server name would trust no server without a word; an empty server name
/// in `.mcp.json` is named as such; a missing command or URL says it is missing.
#[test]
fn empty_names_and_missing_fields_are_named_as_such() {
    for text in [
        r#"{"toolkit": {"trustedMcpServers": [""]}}"#,
        r#"{"toolkit": {"trustedMcpServers": [{"name": " "}]}}"#,
    ] {
        let message = error(text);
        assert!(
            message.contains("should be a server's name as the MCP configuration gives it"),
            "{text}: {message}"
        );
    }
    let parse = |text: &str| {
        McpConfig::from_json_with(text, |_| None)
            .unwrap_err()
            .to_string()
    };
    assert!(
        parse(r#"{"mcpServers": {"": {"command": "x"}}}"#).ends_with(
            "`mcpServers` should be servers with non-empty names, but it is a server named \"\""
        ),
    );
    assert!(
        parse(r#"{"mcpServers": {"a": {"type": "stdio", "url": "http://h"}}}"#)
            .ends_with("`mcpServers.a.command` should be the program to start, but it is missing"),
    );
    assert!(
        parse(r#"{"mcpServers": {"a": {"type": "http", "command": "x"}}}"#).ends_with(
            "`mcpServers.a.url` should be the server's http:// or https:// URL, but it is missing"
        ),
    );
}

/// Runs `read` on a thread of its own and gives back what it said, or panics naming `what`
/// when it is still waiting after ten seconds (the bug this guards against was a wait with no
/// end, not a slow read).
fn at_once(what: &str, read: impl FnOnce() -> String + Send + 'static) -> String {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || sender.send(read()).ok());
    receiver
        .recv_timeout(std::time::Duration::from_secs(10))
        .unwrap_or_else(|_| panic!("reading {what} still waits"))
}

fn mkfifo(path: &std::path::Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

/// A project's `.claude/settings.json` comes with its repository. Made a FIFO, discovering
/// the settings waited forever for a writer (found by a last attack on this change); made a
/// link to `/dev/zero`, a read would never end. Each is refused at once, naming the file and
/// what it is.
#[cfg(unix)]
#[test]
fn a_settings_file_that_is_not_a_regular_file_is_refused_at_once() {
    let project = tempfile::tempdir().unwrap();
    let claude = project.path().join(".claude");
    std::fs::create_dir(&claude).unwrap();
    let settings = claude.join("settings.json");
    for (make, kind) in [
        (0, "a FIFO (named pipe)"),
        (1, "a character device"),
        (2, "a directory"),
    ] {
        let _ = std::fs::remove_file(&settings);
        let _ = std::fs::remove_dir(&settings);
        match make {
            0 => mkfifo(&settings),
            1 => std::os::unix::fs::symlink("/dev/zero", &settings).unwrap(),
            _ => std::fs::create_dir(&settings).unwrap(),
        }
        let root = project.path().to_owned();
        let said = at_once(kind, move || {
            Settings::discover(&root).unwrap_err().to_string()
        });
        assert_eq!(
            said,
            format!(
                "could not read settings file `{}`: it is {kind}, not a regular file",
                settings.display()
            )
        );
    }
}

/// The same for `.mcp.json` and the grants file; and a regular file larger than any
/// configuration file is refused by its size, before it is read.
#[cfg(unix)]
#[test]
fn other_configuration_files_that_are_not_regular_files_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mcp = dir.path().join(".mcp.json");
    mkfifo(&mcp);
    let path = mcp.clone();
    let said = at_once(".mcp.json", move || {
        McpConfig::load(&path).unwrap_err().to_string()
    });
    assert!(
        said.ends_with("it is a FIFO (named pipe), not a regular file"),
        "{said}"
    );

    let grants = dir.path().join("grants.json");
    std::os::unix::fs::symlink("/dev/zero", &grants).unwrap();
    let path = grants.clone();
    let said = at_once("the grants file", move || {
        tool_core::approval::GrantsFile::new(&path)
            .load()
            .unwrap_err()
            .to_string()
    });
    assert!(
        said.ends_with("it is a character device, not a regular file"),
        "{said}"
    );

    let huge = dir.path().join("huge.json");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(17 * 1024 * 1024).unwrap(); // sparse: no disk written
    let said = Settings::load(&huge).unwrap_err().to_string();
    assert!(
        said.ends_with("it is larger than 16 MiB, more than a configuration file holds"),
        "{said}"
    );
    assert_eq!(std::fs::metadata(&huge).unwrap().len(), 17 * 1024 * 1024);
}

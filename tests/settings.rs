//! Settings: Claude Code style `settings.json` files, parsed, merged and turned into hooks.

use std::path::{Path, PathBuf};

use serde_json::json;
use tool_core::hooks::{HookEvent, HookInput};
use tool_core::{
    policy::Mode,
    settings::{Settings, SettingsError},
};

/// Claude Code's documented settings, with keys this framework does not use.
const CLAUDE_CODE_EXAMPLE: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "claude-sonnet",
  "env": { "FOO": "bar" },
  "permissions": {
    "allow": ["Bash(npm run lint)", "Bash(npm run test:*)", "Read(~/.zshrc)"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Bash(curl:*)", "Read(./.env)", "Read(./secrets/**)"],
    "defaultMode": "plan",
    "additionalDirectories": ["../docs/", "/srv/shared"],
    "disableBypassPermissionsMode": "disable"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check-bash.sh", "timeout": 30 }
        ]
      },
      {
        "matcher": "Edit|Write",
        "hooks": [ { "type": "command", "command": "./format.sh" } ]
      }
    ],
    "PostToolUse": [
      { "matcher": "mcp__.*", "hooks": [ { "type": "command", "command": "./audit.sh" } ] }
    ],
    "UserPromptSubmit": [
      { "hooks": [ { "type": "command", "command": "./inject-context.sh" } ] }
    ],
    "PermissionRequest": [
      { "hooks": [ { "type": "prompt", "prompt": "Is this safe?" } ] }
    ]
  }
}"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("settings written");
    path
}

#[test]
fn claude_code_example_parses_rules_mode_directories_and_hooks() {
    let settings = Settings::from_json(CLAUDE_CODE_EXAMPLE).expect("valid settings");
    let permissions = &settings.permissions;
    assert_eq!(
        permissions.allow,
        [
            "Bash(npm run lint)",
            "Bash(npm run test:*)",
            "Read(~/.zshrc)"
        ]
    );
    assert_eq!(permissions.ask, ["Bash(git push:*)"]);
    assert_eq!(
        permissions.deny,
        ["Bash(curl:*)", "Read(./.env)", "Read(./secrets/**)"]
    );
    assert_eq!(permissions.default_mode, Some(Mode::Plan));
    assert_eq!(
        permissions.additional_directories,
        [PathBuf::from("../docs/"), PathBuf::from("/srv/shared")]
    );

    let pre: Vec<(String, String)> = settings
        .hooks
        .registered(HookEvent::PreToolUse)
        .map(|(matcher, name)| (matcher.to_string(), name.into_owned()))
        .collect();
    assert_eq!(
        pre,
        [
            (
                "Bash".to_owned(),
                "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check-bash.sh".to_owned()
            ),
            ("Edit|Write".to_owned(), "./format.sh".to_owned()),
        ]
    );
    assert!(settings.hooks.has(HookEvent::PostToolUse));
    assert!(!settings.hooks.has(HookEvent::PostToolUseFailure));
}

#[test]
fn events_not_run_here_are_ignored_not_errors() {
    let settings = Settings::from_json(CLAUDE_CODE_EXAMPLE).expect("valid settings");
    let ignored = settings
        .ignored
        .iter()
        .find(|entry| entry.location == "hooks.UserPromptSubmit")
        .expect("the event is listed as ignored");
    assert!(
        ignored
            .reason
            .contains("`UserPromptSubmit` event is not run here")
    );
    // The reason lists the events that do run.
    assert!(
        ignored
            .reason
            .contains("PermissionDenied, Elicitation, ElicitationResult"),
        "{ignored}"
    );
}

#[test]
fn elicitation_hooks_load_matched_by_the_servers_name() {
    let settings = Settings::from_json(
        r#"{"hooks": {
            "Elicitation": [{"matcher": "github", "hooks": [{"type": "command", "command": "./answer.sh"}]}],
            "ElicitationResult": [{"hooks": [{"type": "command", "command": "./audit.sh"}]}]
        }}"#,
    )
    .expect("valid settings");
    assert!(settings.ignored.is_empty(), "{:?}", settings.ignored);
    let registered: Vec<(String, String)> = settings
        .hooks
        .registered(HookEvent::Elicitation)
        .map(|(matcher, name)| (matcher.to_string(), name.into_owned()))
        .collect();
    assert_eq!(
        registered,
        [("github".to_owned(), "./answer.sh".to_owned())]
    );
    assert!(settings.hooks.has(HookEvent::ElicitationResult));
}

/// Found by an exploratory run: `"allwo": [...]` in `permissions` was dropped without a word,
/// its rules without effect.
#[test]
fn a_misspelt_permissions_key_is_listed_as_ignored_with_the_closest_key() {
    let settings = Settings::from_json(
        r#"{"permissions": {"allwo": ["Bash(ls)"], "deny": [], "disableBypassPermissionsMode": "disable"}}"#,
    )
    .expect("valid settings");
    assert_eq!(settings.ignored.len(), 1, "{:?}", settings.ignored);
    let ignored = &settings.ignored[0];
    assert_eq!(ignored.location, "permissions.allwo");
    assert!(
        ignored.reason.ends_with("did you mean `allow`?"),
        "{ignored}"
    );
    assert!(settings.permissions.allow.is_empty());
}

/// Found by an exploratory run: a malformed rule was refused, but the error named neither the
/// file nor where in it the rule was.
#[test]
fn a_rule_that_does_not_parse_is_an_error_naming_its_file_and_place() {
    let error =
        Settings::from_json(r#"{"permissions": {"allow": ["read_file"], "deny": ["Bash("]}}"#)
            .unwrap_err()
            .to_string();
    assert!(
        error.starts_with("settings: `permissions.deny[0]`: "),
        "{error}"
    );
    assert!(error.contains("not closed"), "{error}");
}

/// A `prompt` hook waits for the program's model and an `mcp_tool` hook for its tool (issue
/// 26); a type this framework does not know is listed as ignored. None is an error.
#[test]
fn hook_types_not_run_here_are_ignored_and_others_wait_for_what_they_need() {
    let settings = Settings::from_json(CLAUDE_CODE_EXAMPLE).expect("valid settings");
    let prompt = settings
        .model_hooks
        .iter()
        .find(|spec| spec.location == "hooks.PermissionRequest[0].hooks[0]")
        .expect("the prompt hook waits for a model");
    assert_eq!(prompt.kind, tool_core::hooks::ModelHookKind::Prompt);
    assert!(!settings.hooks.has(HookEvent::PermissionRequest));

    let settings = Settings::from_json(
        r#"{"hooks": {"PreToolUse": [{"hooks": [
            {"type": "mcp_tool", "server": "audit", "tool": "check"},
            {"type": "websocket", "url": "ws://localhost"}
        ]}]}}"#,
    )
    .expect("valid settings");
    assert_eq!(settings.mcp_tool_hooks[0].server, "audit");
    assert_eq!(settings.mcp_tool_hooks[0].tool, "check");
    let ignored = &settings.ignored[0];
    assert_eq!(ignored.location, "hooks.PreToolUse[0].hooks[1]");
    assert!(ignored.reason.contains("\"websocket\""), "{ignored}");
    assert!(!settings.hooks.has(HookEvent::PreToolUse));
}

#[test]
fn later_files_append_their_lists_and_override_the_mode() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let user = write(
        dir.path(),
        "user.json",
        r#"{"permissions": {"allow": ["Read"], "defaultMode": "acceptEdits"},
            "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "user.sh"}]}]}}"#,
    );
    let project = write(
        dir.path(),
        "project.json",
        r#"{"permissions": {"allow": ["Grep"], "deny": ["Bash(rm:*)"]}}"#,
    );
    let local = write(
        dir.path(),
        "local.json",
        r#"{"permissions": {"defaultMode": "bypassPermissions", "additionalDirectories": ["/tmp"]},
            "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "local.sh"}]}]}}"#,
    );
    let missing = dir.path().join("absent.json");

    let settings = Settings::load_merged([&user, &missing, &project, &local]).expect("valid");
    assert_eq!(settings.permissions.allow, ["Read", "Grep"]);
    assert_eq!(settings.permissions.deny, ["Bash(rm:*)"]);
    assert_eq!(settings.permissions.default_mode, Some(Mode::Bypass));
    assert_eq!(
        settings.permissions.additional_directories,
        [PathBuf::from("/tmp")]
    );
    let hooks: Vec<String> = settings
        .hooks
        .registered(HookEvent::PreToolUse)
        .map(|(_, name)| name.into_owned())
        .collect();
    assert_eq!(hooks, ["user.sh", "local.sh"]);
}

#[test]
fn standard_paths_are_user_then_project_then_local() {
    let paths = Settings::standard_paths(Some(Path::new("/home/ada")), Path::new("/work/app"));
    assert_eq!(
        paths,
        [
            PathBuf::from("/home/ada/.claude/settings.json"),
            PathBuf::from("/work/app/.claude/settings.json"),
            PathBuf::from("/work/app/.claude/settings.local.json"),
        ]
    );
}

#[test]
fn a_value_of_the_wrong_type_names_the_file_the_location_and_the_expected_type() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = write(
        dir.path(),
        "settings.json",
        r#"{"permissions": {"deny": ["Read(./.env)", 42]}}"#,
    );
    let error = Settings::load(&path).expect_err("a number is no rule");
    let message = error.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(
        message.contains("`permissions.deny[1]` should be a string, found a number"),
        "{message}"
    );
}

#[test]
fn a_hook_without_a_command_names_its_location() {
    let error = Settings::from_json(
        r#"{"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "cmd": "x"}]}]}}"#,
    )
    .expect_err("no command");
    assert!(
        error
            .to_string()
            .contains("`hooks.PostToolUse[0].hooks[0].command` should be the command to run"),
        "{error}"
    );
}

#[test]
fn a_timeout_that_is_not_a_positive_number_is_an_error() {
    for timeout in [json!("30"), json!(0), json!(-5)] {
        let text = json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "x", "timeout": timeout}
        ]}]}})
        .to_string();
        let error = Settings::from_json(&text).expect_err("a bad timeout");
        assert!(
            error.to_string().contains(
                "`hooks.PreToolUse[0].hooks[0].timeout` should be a positive number of seconds"
            ),
            "{error}"
        );
    }
}

#[test]
fn a_bad_default_mode_lists_the_valid_ones() {
    let error = Settings::from_json(r#"{"permissions": {"defaultMode": "yolo"}}"#)
        .expect_err("no such mode");
    assert!(matches!(error, SettingsError::UnknownMode { .. }));
    let message = error.to_string();
    assert!(message.contains("\"yolo\""), "{message}");
    for mode in ["default", "acceptEdits", "plan", "bypassPermissions"] {
        assert!(message.contains(mode), "{message} should list {mode}");
    }
}

#[test]
fn an_invalid_matcher_names_its_location() {
    let error =
        Settings::from_json(r#"{"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": []}]}}"#)
            .expect_err("an invalid regex");
    let message = error.to_string();
    assert!(
        message.contains("`hooks.PreToolUse[0].matcher`"),
        "{message}"
    );
    assert!(message.contains("`Bash(`"), "{message}");
}

#[test]
fn invalid_json_reports_the_line_and_column() {
    let error = Settings::from_json("{\n  \"permissions\": {,\n}").expect_err("not JSON");
    assert!(
        matches!(error, SettingsError::Syntax { line: 2, .. }),
        "{error}"
    );
}

#[test]
fn relative_additional_directories_resolve_against_the_project_not_the_working_directory() {
    // <tmp>/app/.claude/settings.json belongs to <tmp>/app; <tmp>/etc/agent.json to <tmp>/etc.
    let dir = tempfile::tempdir().expect("a temporary directory");
    for sub in ["app/.claude", "app/shared", "docs", "etc/data"] {
        std::fs::create_dir_all(dir.path().join(sub)).expect("directory made");
    }
    let canonical = |sub: &str| dir.path().join(sub).canonicalize().expect("exists");
    let cases = [
        (
            "app/.claude/settings.json",
            "../docs",
            canonical("docs"),
            "a project file, `..`",
        ),
        (
            "app/.claude/settings.local.json",
            "shared",
            canonical("app/shared"),
            "a local file",
        ),
        (
            "app/.claude/settings.json",
            "./shared/",
            canonical("app/shared"),
            "`./` and a slash",
        ),
        (
            "etc/agent.json",
            "data",
            canonical("etc/data"),
            "a file outside `.claude`",
        ),
        (
            "app/.claude/settings.json",
            &dir.path().join("docs").display().to_string(),
            canonical("docs"),
            "an absolute entry",
        ),
    ];
    for (file, entry, expected, why) in cases {
        let text = json!({"permissions": {"additionalDirectories": [entry]}}).to_string();
        let path = write(dir.path(), file, &text);
        let settings = Settings::load(&path).unwrap_or_else(|e| panic!("{why}: {e}"));
        assert_eq!(
            settings.permissions.additional_directories,
            [expected],
            "{why}"
        );
    }
}

#[test]
fn the_project_of_a_settings_file_is_the_directory_holding_its_claude_directory() {
    let cases = [
        ("/work/app/.claude/settings.json", "/work/app"),
        ("/work/app/.claude/settings.local.json", "/work/app"),
        ("/home/ada/.claude/settings.json", "/home/ada"),
        ("/etc/agent/settings.json", "/etc/agent"),
    ];
    for (file, project) in cases {
        assert_eq!(
            Settings::project_dir(Path::new(file)),
            Path::new(project),
            "{file}"
        );
    }
}

#[test]
fn a_missing_additional_directory_is_an_error_naming_the_file_and_the_entry() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::create_dir_all(dir.path().join("app/.claude")).expect("directory made");
    std::fs::write(dir.path().join("app/notes.txt"), "").expect("file written");
    let cases = [
        ("../no-such-dir", "no-such-dir", "it does not exist"),
        ("notes.txt", "notes.txt", "it is not a directory"),
    ];
    for (entry, names, problem) in cases {
        let text = json!({"permissions": {"additionalDirectories": [".", entry]}}).to_string();
        let path = write(dir.path(), "app/.claude/settings.json", &text);
        let error = Settings::load(&path).expect_err("no such directory");
        assert!(
            matches!(error, SettingsError::AdditionalDirectory { .. }),
            "{error:?}"
        );
        let message = error.to_string();
        for part in [
            path.display().to_string(),
            "`permissions.additionalDirectories[1]`".to_owned(),
            format!("\"{entry}\""),
            names.to_owned(),
            problem.to_owned(),
            dir.path().join("app").display().to_string(),
        ] {
            assert!(
                message.contains(&part),
                "{entry}: `{part}` missing from: {message}"
            );
        }
    }
}

#[test]
fn text_settings_keep_their_directories_as_written() {
    let settings = Settings::from_json(
        r#"{"permissions": {"additionalDirectories": ["../docs", "~/notes"]}}"#,
    )
    .expect("valid settings");
    assert_eq!(
        settings.permissions.additional_directories,
        [PathBuf::from("../docs"), PathBuf::from("~/notes")]
    );
}

#[test]
fn a_missing_file_is_a_read_error_naming_it() {
    let error = Settings::load("/nonexistent/settings.json").expect_err("no file");
    assert!(
        error.to_string().contains("/nonexistent/settings.json"),
        "{error}"
    );
}

#[tokio::test]
async fn a_hook_from_settings_runs_with_its_timeout() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let script = dir.path().join("hang.sh");
    std::fs::write(&script, "#!/bin/sh\nsleep 600\n").expect("script written");
    let text = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("sh '{}'", script.display()), "timeout": 0.5}
    ]}]}})
    .to_string();
    let settings = Settings::from_json(&text).expect("valid settings");
    let input = HookInput::pre_tool_use("Bash", json!({"command": "ls"})).cwd(dir.path());
    let outcome = settings
        .hooks
        .run(HookEvent::PreToolUse, &["Bash"], &input)
        .await;
    assert!(
        outcome.errors[0].message.contains("timed out after 500 ms"),
        "{:?}",
        outcome.errors
    );
}

#[test]
fn an_allow_rule_with_a_star_before_the_end_is_loaded_with_a_warning_naming_it() {
    let settings = Settings::from_json(
        r#"{"permissions": {"allow": ["Bash(git status *)", "Bash(git * main)"], "deny": ["Bash(rm * x)"]}}"#,
    )
    .unwrap();
    assert_eq!(settings.permissions.allow.len(), 2, "the rule is loaded");
    assert_eq!(settings.warnings.len(), 1, "{:?}", settings.warnings);
    let warning = &settings.warnings[0];
    assert_eq!(warning.location, "permissions.allow[1]");
    assert!(warning.message.contains("Bash(git * main)"), "{warning}");
}

/// Reads a file; the path is checked against path rules.
#[tool_core::tool(read_only, name = "settings_read", aliases("Read"))]
fn settings_read(path: tool_core::WorkspacePath) -> String {
    path.as_path().display().to_string()
}

#[test]
fn path_rules_are_anchored_as_claude_code_documents() {
    let root = tempfile::tempdir().unwrap();
    let root_path = root.path().canonicalize().unwrap();
    let project = root_path.join("app");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::create_dir_all(project.join("secrets")).unwrap();
    std::fs::create_dir_all(root_path.join("secrets")).unwrap();
    let settings_file = project.join(".claude/settings.json");
    std::fs::write(
        &settings_file,
        json!({"permissions": {"deny": [
            "Read(/secrets/**)",
            "Read(./build/**)",
            "Read(*.pem)",
            format!("Read(/{}/outside.txt)", root_path.display()),
        ]}})
        .to_string(),
    )
    .unwrap();
    let settings = Settings::load(&settings_file).unwrap();
    assert!(
        settings.permissions.deny[0].starts_with("Read(//"),
        "a /path rule is anchored at the file's project: {}",
        settings.permissions.deny[0]
    );
    let coordinator = tool_core::Coordinator::builder()
        .toolset(tool_core::Toolset::named(["settings_read"]).unwrap())
        .workspace(tool_core::Workspace::new(&root_path).unwrap())
        .settings(settings)
        .build()
        .unwrap();
    for (path, denied, why) in [
        (
            "app/secrets/key",
            true,
            "/x: relative to the settings file's project",
        ),
        (
            "secrets/key",
            false,
            "/x is not relative to the workspace root",
        ),
        (
            "build/out.o",
            true,
            "./x: relative to the working directory (the workspace root)",
        ),
        (
            "app/build/out.o",
            false,
            "./x is anchored, not at any depth",
        ),
        (
            "deep/dir/cert.pem",
            true,
            "a name without a slash: at any depth",
        ),
        ("outside.txt", true, "//x: an absolute path"),
    ] {
        let call = tool_core::ToolCall::new("settings_read", json!({ "path": path }).to_string());
        let result = coordinator.call_blocking(call);
        assert_eq!(
            result.error().map(tool_core::ToolError::kind) == Some("denied"),
            denied,
            "{why}: `{path}`: {}",
            result.text()
        );
    }
}

/// Issue 26: unknown keys are reported in every part of a settings file, with the JSON path
/// and the likely key; a required key that is missing names the key that misspells it.
#[test]
fn misspelt_keys_in_hooks_are_reported_with_the_key_meant() {
    let settings = Settings::from_json(
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "./audit.sh", "timout": 5}
        ]}]}}"#,
    )
    .unwrap();
    let warnings: Vec<String> = settings.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "settings: `hooks.PreToolUse[0].hooks[0].timout`: not a key of a hook, so it has no effect; did you mean `timeout`?"
        ]
    );

    let error = Settings::from_json(
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "comand": "./audit.sh"}]}]}}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("`hooks.PreToolUse[0].hooks[0].command`")
            && error.contains("`comand` is there: did you mean `command`?"),
        "{error}"
    );
    let error =
        Settings::from_json(r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hoks": []}]}}"#)
            .unwrap_err()
            .to_string();
    assert!(error.contains("did you mean `hooks`?"), "{error}");
}

/// The `permissions` section is read through the crate's configuration reader; its errors
/// are the ones the hand-written reader gave.
#[test]
fn a_wrongly_shaped_permissions_section_is_named_by_its_path() {
    for (text, message) in [
        (
            r#"{"permissions": []}"#,
            "`permissions` should be an object, found an array",
        ),
        (
            r#"{"permissions": {"allow": "Bash(ls)"}}"#,
            "`permissions.allow` should be an array, found the string \"Bash(ls)\"",
        ),
        (
            r#"{"permissions": {"defaultMode": 1}}"#,
            "`permissions.defaultMode` should be a string, found a number",
        ),
    ] {
        let error = Settings::from_json(text).unwrap_err().to_string();
        assert!(error.ends_with(message), "{text}: {error}");
    }
    let settings =
        Settings::from_json(r#"{"permissions": {"allow": null, "defaultMode": null}}"#).unwrap();
    assert!(settings.permissions.allow.is_empty());
    assert_eq!(settings.permissions.default_mode, None);
}

/// On-off settings and timeouts are read through the crate's configuration reader, worded
/// as before.
#[test]
fn on_off_settings_and_timeouts_say_what_they_take() {
    for (text, message) in [
        (
            r#"{"enableAllProjectMcpServers": "yes"}"#,
            "`enableAllProjectMcpServers` should be true or false, found the string \"yes\"",
        ),
        (
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "async": 1}]}]}}"#,
            "`hooks.PreToolUse[0].hooks[0].async` should be true or false, found a number",
        ),
        (
            r#"{"sandbox": {"autoAllowBashIfSandboxed": [true]}}"#,
            "`sandbox.autoAllowBashIfSandboxed` should be true or false, found an array",
        ),
    ] {
        let error = Settings::from_json(text).unwrap_err().to_string();
        assert!(error.ends_with(message), "{text}: {error}");
    }
    let settings = Settings::from_json(
        r#"{"enableAllProjectMcpServers": true, "hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "x", "async": false, "timeout": 2.5}
        ]}]}}"#,
    )
    .unwrap();
    assert_eq!(settings.mcp_json.enable_all, Some(true));
    assert!(settings.ignored.is_empty(), "{:?}", settings.ignored);
}

/// `toolkit.trustedMcpServers` entries: a name, or an object of our own keys, read through the
/// crate's configuration reader and worded as before.
#[test]
fn trusted_mcp_server_entries_are_names_or_objects_of_their_own_keys() {
    let settings = Settings::from_json(
        r#"{"toolkit": {"trustedMcpServers": [
            "notes",
            {"name": "files", "command": ["npx", "server"]},
            {"name": "web", "url": "https://example.com/mcp"}
        ]}}"#,
    )
    .unwrap();
    let names: Vec<&str> = settings
        .trusted_mcp_servers
        .iter()
        .map(|server| server.name.as_str())
        .collect();
    assert_eq!(names, ["notes", "files", "web"]);
    assert_eq!(
        settings.trusted_mcp_servers[1].command.as_deref(),
        Some(&["npx".to_owned(), "server".to_owned()][..])
    );
    for (entry, message) in [
        (
            r#"{"name": "x", "comand": ["a"]}"#,
            "`toolkit.trustedMcpServers[0].comand` is not a key of a trusted MCP server (its keys are `name`, `command`, `url`); did you mean `command`?",
        ),
        (
            r#"{"command": ["a"]}"#,
            "`toolkit.trustedMcpServers[0].name` should be a string, found nothing",
        ),
        (
            r#"{"name": "x", "command": []}"#,
            "`toolkit.trustedMcpServers[0].command` should be the program and its arguments, found an array",
        ),
        (
            r#"{"name": "x", "command": "npx"}"#,
            "`toolkit.trustedMcpServers[0].command` should be an array, found the string \"npx\"",
        ),
        (
            r#"{"name": "x", "command": ["a"], "url": "https://h"}"#,
            "`toolkit.trustedMcpServers[0]` should be a command or a URL, not both (a server is started or reached, not both), found an object",
        ),
        (
            "3",
            "`toolkit.trustedMcpServers[0]` should be a server name, or {\"name\", \"command\": [program, args...]} or {\"name\", \"url\"}, found a number",
        ),
    ] {
        let text = format!(r#"{{"toolkit": {{"trustedMcpServers": [{entry}]}}}}"#);
        let error = Settings::from_json(&text).unwrap_err().to_string();
        assert!(error.ends_with(message), "{entry}: {error}");
    }
}

/// Timeouts at the edges of what a number can say are refused with the setting's message,
/// never a panic converting them.
#[test]
fn a_timeout_at_the_edges_of_a_number_is_refused_without_a_panic() {
    for timeout in [
        "18446744073709551615",
        "1e300",
        "-0.0",
        "-9223372036854775808",
        "0.0000000001",
    ] {
        let text = format!(
            r#"{{"hooks": {{"PreToolUse": [{{"hooks": [{{"type": "command", "command": "x", "timeout": {timeout}}}]}}]}}}}"#
        );
        let error = Settings::from_json(&text).expect_err(timeout).to_string();
        assert!(
            error.contains(
                "`hooks.PreToolUse[0].hooks[0].timeout` should be a positive number of seconds"
            ),
            "{timeout}: {error}"
        );
    }
    let text = r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": 0.5}]}]}}"#;
    assert!(Settings::from_json(text).is_ok());
}

/// Issue 25: a hook group is a type; a key it does not have is a warning naming the key meant,
/// and the group still loads (here without a matcher, so for every tool).
#[test]
fn a_misspelt_key_of_a_hook_group_is_a_warning_naming_the_key_meant() {
    let settings = Settings::from_json(
        r#"{"hooks": {"PreToolUse": [{"matchr": "Bash", "hooks": [
            {"type": "command", "command": "./audit.sh"}
        ]}]}}"#,
    )
    .unwrap();
    let warnings: Vec<String> = settings.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "settings: `hooks.PreToolUse[0].matchr`: not a key of a hook group, so it has no effect; did you mean `matcher`?"
        ]
    );
    assert!(settings.hooks.has(HookEvent::PreToolUse));
}

/// A hook's `type` that is missing names the key that misspells it, as `command` does.
#[test]
fn a_hook_without_its_type_names_the_key_that_misspells_it() {
    let error = Settings::from_json(
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"typ": "command", "command": "x"}]}]}}"#,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        error,
        "settings: `hooks.PreToolUse[0].hooks[0].type` should be a hook type such as \"command\", found missing, though `typ` is there: did you mean `type`?"
    );
}

/// `null` is absent in every part of a hook: no matcher (every tool), the default timeout,
/// not in the background.
#[test]
fn null_in_a_hook_reads_as_absent() {
    let settings = Settings::from_json(
        r#"{"hooks": {"PostToolUse": [{"matcher": null, "hooks": [
            {"type": "command", "command": "x", "timeout": null, "async": null, "statusMessage": null}
        ]}]}}"#,
    )
    .unwrap();
    assert!(settings.hooks.has(HookEvent::PostToolUse));
    assert!(settings.warnings.is_empty(), "{:?}", settings.warnings);
}

/// Each hook type reads its own keys: `async` is checked for a command hook, which runs in the
/// background, and not for a prompt hook, which has no use for it (as before the reader was
/// typed).
#[test]
fn a_hook_type_checks_its_own_keys_and_not_another_types() {
    let settings = Settings::from_json(
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "p", "async": "yes"}]}]}}"#,
    )
    .unwrap();
    assert_eq!(settings.model_hooks.len(), 1);
    assert!(settings.warnings.is_empty(), "{:?}", settings.warnings);
    let error = Settings::from_json(
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "async": "yes"}]}]}}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.ends_with(
            "`hooks.PreToolUse[0].hooks[0].async` should be true or false, found the string \"yes\""
        ),
        "{error}"
    );
}

/// Attacks on the shape of the hooks section: each is refused with the path of the value and
/// what it should be, never a panic, and nothing is registered.
#[test]
fn a_wrongly_shaped_hooks_section_is_named_by_its_path() {
    for (text, message) in [
        (
            r#"[]"#,
            "`the settings` should be an object, found an array",
        ),
        (
            r#"{"hooks": []}"#,
            "`hooks` should be an object, found an array",
        ),
        (
            r#"{"hooks": {"PreToolUse": {"hooks": []}}}"#,
            "`hooks.PreToolUse` should be an array, found an object",
        ),
        (
            r#"{"hooks": {"PreToolUse": [7]}}"#,
            "`hooks.PreToolUse[0]` should be an object, found a number",
        ),
        (
            r#"{"hooks": {"PreToolUse": [{"hooks": {"type": "command"}}]}}"#,
            "`hooks.PreToolUse[0].hooks` should be an array, found an object",
        ),
        (
            r#"{"hooks": {"PreToolUse": [{"hooks": ["./notify.sh"]}]}}"#,
            "`hooks.PreToolUse[0].hooks[0]` should be an object, found the string \"./notify.sh\"",
        ),
        (
            r#"{"hooks": {"PreToolUse": [{"matcher": 1, "hooks": []}]}}"#,
            "`hooks.PreToolUse[0].matcher` should be a string, found a number",
        ),
        (
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": ["command"]}]}]}}"#,
            "`hooks.PreToolUse[0].hooks[0].type` should be a string, found an array",
        ),
        (
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "mcp_tool", "server": "s", "tool": "t", "input": "x"}]}]}}"#,
            "`hooks.PreToolUse[0].hooks[0].input` should be an object, found the string \"x\"",
        ),
        (
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": {"text": "p"}}]}]}}"#,
            "`hooks.PreToolUse[0].hooks[0].prompt` should be a string, found an object",
        ),
        (
            r#"{"sandbox": {"autoAllowBashIfSandboxed": 1}}"#,
            "`sandbox.autoAllowBashIfSandboxed` should be true or false, found a number",
        ),
    ] {
        let error = Settings::from_json(text).unwrap_err().to_string();
        assert!(error.ends_with(message), "{text}: {error}");
    }
}

/// A settings file nested deeper than JSON allows is refused as JSON; one nested deep inside
/// a key this framework skips is read and its depth does not matter.
#[test]
fn deep_nesting_is_refused_as_json_or_skipped_unread() {
    let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
    let error = Settings::from_json(&format!(r#"{{"env": {deep}}}"#)).unwrap_err();
    assert!(matches!(error, SettingsError::Syntax { .. }), "{error}");
    let nested = format!("{}{}", "[".repeat(100), "]".repeat(100));
    let settings = Settings::from_json(&format!(r#"{{"statusLine": {nested}}}"#)).unwrap();
    assert!(settings.warnings.is_empty(), "{:?}", settings.warnings);
}

/// A hook event or type this framework does not run is kept in `ignored`, and when it is
/// close to one it runs (`PreToolUs`, `comand`), the reason names that one.
#[test]
fn an_event_or_hook_type_not_run_here_names_the_one_it_likely_misspells() {
    let settings = Settings::from_json(
        r#"{"hooks": {
            "PreToolUs": [{"hooks": [{"type": "command", "command": "x"}]}],
            "PostToolUse": [{"hooks": [{"type": "comand", "command": "x"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "x"}]}]
        }}"#,
    )
    .unwrap();
    let reasons: Vec<(&str, &str)> = settings
        .ignored
        .iter()
        .map(|entry| (entry.location.as_str(), entry.reason.as_str()))
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert_eq!(reasons[0].0, "hooks.PreToolUs");
    assert!(
        reasons[0].1.ends_with("; did you mean `PreToolUse`?"),
        "{reasons:?}"
    );
    assert_eq!(reasons[1].0, "hooks.PostToolUse[0].hooks[0]");
    assert!(
        reasons[1].1.ends_with("; did you mean `command`?"),
        "{reasons:?}"
    );
    assert_eq!(reasons[2].0, "hooks.Stop");
    assert!(!reasons[2].1.contains("did you mean"), "{reasons:?}");
    assert!(!settings.hooks.has(HookEvent::PreToolUse));
}

/// Claude Code's other `sandbox` keys are kept in `ignored`, each by its path, in the file's
/// order; the two read here are read.
#[test]
fn sandbox_keys_not_read_here_are_listed_as_ignored() {
    let settings = Settings::from_json(
        r#"{"sandbox": {"excludedCommands": ["docker"], "enabled": true,
            "network": {"allowUnixSockets": []}, "autoAllowBashIfSandboxed": null}}"#,
    )
    .unwrap();
    assert_eq!(settings.sandbox.enabled, Some(true));
    assert_eq!(settings.sandbox.auto_allow_bash_if_sandboxed, None);
    let locations: Vec<&str> = settings
        .ignored
        .iter()
        .map(|entry| entry.location.as_str())
        .collect();
    assert_eq!(locations, ["sandbox.excludedCommands", "sandbox.network"]);
    assert!(
        settings.ignored[0]
            .reason
            .contains("only `enabled` and `autoAllowBashIfSandboxed`"),
        "{:?}",
        settings.ignored
    );
    assert!(settings.warnings.is_empty(), "{:?}", settings.warnings);
}

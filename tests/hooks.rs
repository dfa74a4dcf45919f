//! Hooks: Claude Code's hook protocol, with real shell scripts in temporary directories.

#[path = "common/processes.rs"]
mod processes;
#[path = "common/scripts.rs"]
mod scripts;
use processes::process_is_running;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use tempfile::TempDir;
use tool_core::approval::{Answer, Question};
use tool_core::hooks::{
    CombinedOutput, CommandHook, HookEvent, HookInput, HookOutput, Hooks, Matcher, hook_fn,
};
use tool_core::policy::{Mode, Verdict};

/// A directory for one test's scripts, which is also the hooks' `cwd`.
struct Scripts {
    dir: TempDir,
}

impl Scripts {
    fn new() -> Self {
        Scripts {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes an executable `sh` script and returns the command that runs it.
    fn script(&self, name: &str, body: &str) -> String {
        let path = self.path().join(name);
        scripts::write_executable(&path, &format!("#!/bin/sh\n{body}\n"));
        format!("'{}'", path.display())
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path().join(name)).unwrap_or_default()
    }

    fn input(&self, event: HookEvent) -> HookInput {
        let arguments = json!({"command": "ls -la"});
        let input = match event {
            HookEvent::PreToolUse => HookInput::pre_tool_use("Bash", arguments),
            HookEvent::PermissionRequest => HookInput::permission_request("Bash", arguments),
            HookEvent::PostToolUse => HookInput::post_tool_use("Bash", arguments, json!("files")),
            HookEvent::PostToolUseFailure => {
                HookInput::post_tool_use_failure("Bash", arguments, "no such file")
            }
            HookEvent::PermissionDenied => {
                HookInput::permission_denied("Bash", arguments, "a deny rule")
            }
            HookEvent::Elicitation => HookInput::elicitation("github", "e1", &name_question()),
            HookEvent::ElicitationResult => {
                HookInput::elicitation_result("github", "e1", &Answer::Decline)
            }
            other => panic!("no input for {other}"),
        };
        input.session_id("session-1").cwd(self.path())
    }

    /// Runs one script as the only hook of `event` and returns the outcome.
    async fn run_one(&self, event: HookEvent, body: &str) -> CombinedOutput {
        let mut hooks = Hooks::new();
        hooks
            .register(event, "*", CommandHook::new(self.script("hook.sh", body)))
            .expect("valid matcher");
        hooks.run(event, &["Bash"], &self.input(event)).await
    }
}

/// A form asking for a name.
fn name_question() -> Question {
    Question::new(
        "Your name?",
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    )
    .expect("a valid form")
}

/// Polls `condition` every 20 ms for up to 10 s: long enough for a loaded machine, and the
/// test still ends if the condition never holds.
async fn eventually(mut condition: impl FnMut() -> bool) -> bool {
    for _ in 0..500 {
        if condition() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    condition()
}

fn read_pid(scripts: &Scripts, name: &str) -> Option<u32> {
    scripts.read(name).trim().parse().ok()
}

// ---- Exit codes and plain output ----

#[tokio::test]
async fn exit_zero_without_output_decides_nothing() {
    let scripts = Scripts::new();
    let outcome = scripts.run_one(HookEvent::PreToolUse, "exit 0").await;
    assert_eq!(outcome.hooks_run, 1);
    assert_eq!(outcome.decision(), None);
    assert!(outcome.errors.is_empty() && outcome.blocks.is_empty());
    assert_eq!(outcome.updated_input, None);
}

#[tokio::test]
async fn exit_two_blocks_with_stderr_as_the_message_on_every_event() {
    let cases = [
        (
            HookEvent::PreToolUse,
            "echo '{\"systemMessage\": \"ignored on exit 2\"}'\necho 'rm is not allowed here' >&2\nexit 2",
            "rm is not allowed here",
            "before a call: the call is denied, and stdout is ignored",
        ),
        (
            HookEvent::PostToolUse,
            "echo 'lint failed: fix line 3' >&2\nexit 2",
            "lint failed: fix line 3",
            "after a call: stderr is sent to the model",
        ),
        (
            HookEvent::PermissionRequest,
            "echo 'not on this branch' >&2\nexit 2",
            "not on this branch",
            "on a permission request: the request is denied",
        ),
    ];
    for (event, body, stderr, why) in cases {
        let scripts = Scripts::new();
        let outcome = scripts.run_one(event, body).await;
        assert!(outcome.is_blocked(), "{event}: {why}");
        assert_eq!(
            outcome.block_message().as_deref(),
            Some(stderr),
            "{event}: {why}"
        );
        let decision = outcome.decision().expect("a block decides");
        assert_eq!(decision.verdict, Verdict::Deny, "{event}: {why}");
        assert_eq!(decision.reason, stderr, "{event}: {why}");
        assert!(
            outcome.system_messages.is_empty(),
            "{event}: stdout is ignored on exit 2"
        );
    }
}

#[tokio::test]
async fn exit_one_is_a_non_blocking_error_keeping_stderr() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(
            HookEvent::PreToolUse,
            "echo 'jq: command not found' >&2\nexit 1",
        )
        .await;
    assert!(!outcome.is_blocked());
    assert_eq!(outcome.decision(), None);
    assert_eq!(outcome.errors.len(), 1);
    let error = outcome.errors[0].to_string();
    assert!(error.contains("hook.sh"), "names the hook: {error}");
    assert!(error.contains("exited with code 1"), "{error}");
    assert!(error.contains("jq: command not found"), "{error}");
}

#[tokio::test]
async fn a_hook_killed_by_a_signal_is_a_non_blocking_error() {
    let scripts = Scripts::new();
    let mut hooks = Hooks::new();
    // The hook's own shell kills itself.
    hooks
        .register(HookEvent::PreToolUse, "*", CommandHook::new("kill -9 $$"))
        .expect("valid matcher");
    let outcome = hooks
        .run(
            HookEvent::PreToolUse,
            &["Bash"],
            &scripts.input(HookEvent::PreToolUse),
        )
        .await;
    assert!(!outcome.is_blocked());
    assert!(
        outcome.errors[0].message.contains("ended by a signal"),
        "{:?}",
        outcome.errors
    );
}

#[tokio::test]
async fn a_hook_that_cannot_start_is_a_non_blocking_error() {
    let scripts = Scripts::new();
    let mut hooks = Hooks::new();
    hooks
        .register(HookEvent::PreToolUse, "*", CommandHook::new("true"))
        .expect("valid matcher");
    let input = scripts
        .input(HookEvent::PreToolUse)
        .cwd(scripts.path().join("missing"));
    let outcome = hooks.run(HookEvent::PreToolUse, &["Bash"], &input).await;
    assert!(
        outcome.errors[0].message.contains("could not be started"),
        "{:?}",
        outcome.errors
    );
}

#[tokio::test]
async fn garbage_stdout_is_ignored_for_decisions_and_kept_as_plain_output() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(HookEvent::PreToolUse, "echo 'checked 3 files, all fine'")
        .await;
    assert!(outcome.errors.is_empty());
    assert_eq!(outcome.decision(), None);
    assert_eq!(
        outcome.plain_outputs[0].message,
        "checked 3 files, all fine"
    );
}

#[tokio::test]
async fn an_answer_that_breaks_the_protocol_is_a_non_blocking_error_naming_the_problem() {
    let cases = [
        (
            r#"echo '{"decision": "block",'"#,
            "not valid JSON",
            "broken JSON starting with a brace",
        ),
        (
            r#"echo '{"hookSpecificOutput": {"permissionDecision": "deny", "additionalContext": 7}}'"#,
            "`hookSpecificOutput.additionalContext` should be a string, found a number",
            "a field of the wrong type, named; the whole answer is ignored",
        ),
        (
            r#"echo '{"hookSpecificOutput": {"permissionDecision": "maybe"}}'"#,
            "\"allow\", \"deny\", \"ask\" or \"defer\"",
            "an unknown permission decision",
        ),
        (
            r#"echo '{"hookSpecificOutput": {"updatedInput": "ls"}}'"#,
            "`hookSpecificOutput.updatedInput` should be an object",
            "updated input that is not an object",
        ),
        (
            r#"echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "deny"}}'"#,
            "hookEventName",
            "the hook event name of another event",
        ),
    ];
    for (body, problem, why) in cases {
        let scripts = Scripts::new();
        let outcome = scripts.run_one(HookEvent::PreToolUse, body).await;
        assert!(!outcome.is_blocked(), "{why}");
        assert_eq!(outcome.decision(), None, "{why}");
        assert_eq!(outcome.updated_input, None, "{why}");
        assert!(
            outcome.errors[0].message.contains(problem),
            "{why}: {:?}",
            outcome.errors
        );
    }
}

#[tokio::test]
async fn stdout_beyond_the_cap_is_dropped_with_a_note() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(
            HookEvent::PreToolUse,
            "head -c 1200000 /dev/zero | tr '\\000' a",
        )
        .await;
    let plain = &outcome.plain_outputs[0].message;
    assert!(plain.len() < 1_100_000);
    assert!(
        plain.contains("bytes dropped"),
        "{}",
        &plain[plain.len() - 100..]
    );
}

// ---- JSON output fields ----

#[tokio::test]
async fn continue_false_stops_with_the_stop_reason() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(
            HookEvent::PostToolUse,
            r#"echo '{"continue": false, "stopReason": "build is broken, stopping"}'"#,
        )
        .await;
    assert!(outcome.should_stop());
    assert_eq!(outcome.stops[0].message, "build is broken, stopping");
}

#[tokio::test]
async fn system_message_is_a_warning_for_the_user() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(
            HookEvent::PreToolUse,
            r#"echo '{"systemMessage": "this touches production", "suppressOutput": true}'"#,
        )
        .await;
    assert_eq!(
        outcome.system_messages[0].message,
        "this touches production"
    );
    assert!(outcome.suppress_output);
    assert_eq!(outcome.decision(), None);
}

#[tokio::test]
async fn decision_block_after_a_call_sends_the_reason_to_the_model() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(
            HookEvent::PostToolUse,
            r#"echo '{"decision": "block", "reason": "tests fail after this edit"}'"#,
        )
        .await;
    assert_eq!(
        outcome.block_message().as_deref(),
        Some("tests fail after this edit")
    );
}

#[tokio::test]
async fn legacy_decision_before_a_call_blocks_with_the_reason_or_approves() {
    let cases = [
        (
            r#"echo '{"decision": "block", "reason": "no force pushes"}'"#,
            Verdict::Deny,
            Some("no force pushes"),
            "block denies with the reason",
        ),
        (
            r#"echo '{"decision": "approve"}'"#,
            Verdict::Allow,
            None,
            "approve allows",
        ),
    ];
    for (body, verdict, reason, why) in cases {
        let scripts = Scripts::new();
        let outcome = scripts.run_one(HookEvent::PreToolUse, body).await;
        let decision = outcome.decision().expect("decided");
        assert_eq!(decision.verdict, verdict, "{why}");
        if let Some(reason) = reason {
            assert_eq!(decision.reason, reason, "{why}");
        }
    }
}

#[tokio::test]
async fn permission_decision_allow_deny_and_ask_become_verdicts_with_their_reason() {
    for (word, verdict) in [
        ("allow", Verdict::Allow),
        ("deny", Verdict::Deny),
        ("ask", Verdict::Ask),
    ] {
        let scripts = Scripts::new();
        let body = format!(
            r#"echo '{{"hookSpecificOutput": {{"hookEventName": "PreToolUse", "permissionDecision": "{word}", "permissionDecisionReason": "because {word}"}}}}'"#
        );
        let outcome = scripts.run_one(HookEvent::PreToolUse, &body).await;
        let decision = outcome.decision().expect("decided");
        assert_eq!(decision.verdict, verdict, "{word}");
        assert_eq!(decision.reason, format!("because {word}"), "{word}");
        assert_eq!(
            decision.source.layer,
            tool_core::policy::PolicyLayer::Hook,
            "{word}"
        );
    }
}

#[tokio::test]
async fn updated_input_replaces_the_tool_input() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(
            HookEvent::PreToolUse,
            r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls"}}}'"#,
        )
        .await;
    let updated = outcome.updated_input.expect("updated");
    assert_eq!(Value::Object(updated), json!({"command": "ls"}));
}

#[tokio::test]
async fn additional_context_is_added_for_the_model() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(
            HookEvent::PostToolUse,
            r#"echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "3 warnings in the build"}}'"#,
        )
        .await;
    assert_eq!(outcome.additional_context, ["3 warnings in the build"]);
}

#[tokio::test]
async fn updated_tool_output_replaces_what_the_model_reads() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(
            HookEvent::PostToolUse,
            r#"echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "[redacted]"}}'"#,
        )
        .await;
    assert_eq!(outcome.updated_tool_output, Some(json!("[redacted]")));
}

#[tokio::test]
async fn permission_request_decision_allow_with_updated_input() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(
            HookEvent::PermissionRequest,
            r#"echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "ls"}}}}'"#,
        )
        .await;
    assert_eq!(outcome.decision().expect("decided").verdict, Verdict::Allow);
    assert_eq!(
        outcome.updated_input.map(Value::Object),
        Some(json!({"command": "ls"}))
    );
}

#[tokio::test]
async fn permission_request_decision_deny_with_its_message() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(
            HookEvent::PermissionRequest,
            r#"echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "ask the on-call first"}}}'"#,
        )
        .await;
    let decision = outcome.decision().expect("decided");
    assert_eq!(decision.verdict, Verdict::Deny);
    assert_eq!(decision.reason, "ask the on-call first");
}

#[tokio::test]
async fn unknown_fields_are_ignored() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(
            HookEvent::PreToolUse,
            r#"echo '{"futureField": [1, 2], "hookSpecificOutput": {"permissionDecision": "ask", "somethingNew": true}}'"#,
        )
        .await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(outcome.decision().expect("decided").verdict, Verdict::Ask);
}

// ---- Input, environment, working directory ----

#[tokio::test]
async fn the_hook_receives_every_input_field_on_stdin() {
    let scripts = Scripts::new();
    let mut hooks = Hooks::new();
    hooks
        .register(
            HookEvent::PostToolUse,
            "*",
            CommandHook::new(scripts.script("copy.sh", "cat > input.json")),
        )
        .expect("valid matcher");
    let input =
        HookInput::post_tool_use("Bash", json!({"command": "ls"}), json!({"stdout": "a\nb"}))
            .session_id("session-7")
            .cwd(scripts.path())
            .tool_use_id("toolu_01")
            .permission_mode(Mode::AcceptEdits);
    let outcome = hooks.run(HookEvent::PostToolUse, &["Bash"], &input).await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);

    let received: Value = serde_json::from_str(&scripts.read("input.json")).expect("JSON on stdin");
    assert_eq!(
        received,
        json!({
            "session_id": "session-7",
            "cwd": scripts.path().display().to_string(),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_name_canonical": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "toolu_01",
            "tool_response": {"stdout": "a\nb"},
            "permission_mode": "acceptEdits",
        })
    );
}

#[tokio::test]
async fn absent_input_fields_are_omitted_not_null() {
    let scripts = Scripts::new();
    let mut hooks = Hooks::new();
    hooks
        .register(
            HookEvent::PreToolUse,
            "*",
            CommandHook::new(scripts.script("copy.sh", "cat > input.json")),
        )
        .expect("valid matcher");
    let input = scripts
        .input(HookEvent::PreToolUse)
        .permission_mode(Mode::Bypass);
    hooks.run(HookEvent::PreToolUse, &["Bash"], &input).await;

    let received: Value = serde_json::from_str(&scripts.read("input.json")).expect("JSON on stdin");
    let object = received.as_object().expect("an object");
    for absent in ["tool_use_id", "tool_response", "error"] {
        assert!(
            !object.contains_key(absent),
            "{absent} should be omitted: {received}"
        );
    }
    assert_eq!(received["permission_mode"], "bypassPermissions");
    assert_eq!(received["hook_event_name"], "PreToolUse");
}

#[tokio::test]
async fn a_failure_hook_receives_the_error() {
    let scripts = Scripts::new();
    let mut hooks = Hooks::new();
    hooks
        .register(
            HookEvent::PostToolUseFailure,
            "*",
            CommandHook::new(scripts.script("copy.sh", "cat > input.json")),
        )
        .expect("valid matcher");
    let input = scripts.input(HookEvent::PostToolUseFailure);
    hooks
        .run(HookEvent::PostToolUseFailure, &["Bash"], &input)
        .await;

    let received: Value = serde_json::from_str(&scripts.read("input.json")).expect("JSON on stdin");
    assert_eq!(received["error"], "no such file");
    assert!(received.get("tool_response").is_none());
}

#[tokio::test]
async fn the_hook_runs_in_cwd_with_claude_project_dir_set_to_it() {
    let scripts = Scripts::new();
    let outcome = scripts
        .run_one(
            HookEvent::PreToolUse,
            "pwd -P > where.txt\nprintf '%s' \"$CLAUDE_PROJECT_DIR\" > project.txt",
        )
        .await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let canonical = std::fs::canonicalize(scripts.path()).expect("the directory exists");
    assert_eq!(PathBuf::from(scripts.read("where.txt").trim()), canonical);
    assert_eq!(PathBuf::from(scripts.read("project.txt")), scripts.path());
}

// ---- Timeouts and process groups ----

/// A hook that starts a background grandchild (recording its pid) and then hangs.
const HANGING_WITH_GRANDCHILD: &str = "sleep 600 &\necho $! > grandchild.pid\nsleep 600";

#[tokio::test]
async fn a_hanging_hook_is_killed_at_its_timeout_with_its_background_children() {
    let scripts = Scripts::new();
    let command = scripts.script("hang.sh", HANGING_WITH_GRANDCHILD);
    let mut hooks = Hooks::new();
    hooks
        .register(
            HookEvent::PreToolUse,
            "*",
            CommandHook::new(command).timeout(Duration::from_millis(500)),
        )
        .expect("valid matcher");
    let outcome = hooks
        .run(
            HookEvent::PreToolUse,
            &["Bash"],
            &scripts.input(HookEvent::PreToolUse),
        )
        .await;

    assert!(!outcome.is_blocked(), "a timeout does not block");
    let error = outcome.errors[0].to_string();
    assert!(
        error.contains("hang.sh") && error.contains("timed out after 500 ms"),
        "{error}"
    );
    let pid = read_pid(&scripts, "grandchild.pid").expect("the hook recorded its grandchild");
    assert!(
        eventually(|| !process_is_running(pid)).await,
        "the background grandchild {pid} outlived the hook"
    );
}

#[tokio::test]
async fn dropping_a_running_hook_kills_its_process_group() {
    let scripts = Scripts::new();
    let command = scripts.script("hang.sh", HANGING_WITH_GRANDCHILD);
    let mut hooks = Hooks::new();
    hooks
        .register(HookEvent::PreToolUse, "*", CommandHook::new(command))
        .expect("valid matcher");
    let input = scripts.input(HookEvent::PreToolUse);
    let mut running = Box::pin(hooks.run(HookEvent::PreToolUse, &["Bash"], &input));

    let mut pid = None;
    for _ in 0..500 {
        tokio::select! {
            _ = &mut running => panic!("a hook sleeping 600 s finished"),
            () = tokio::time::sleep(Duration::from_millis(20)) => {}
        }
        pid = read_pid(&scripts, "grandchild.pid");
        if pid.is_some() {
            break;
        }
    }
    let pid = pid.expect("the hook recorded its grandchild");
    assert!(process_is_running(pid));
    drop(running);
    assert!(
        eventually(|| !process_is_running(pid)).await,
        "the background grandchild {pid} outlived the dropped hook"
    );
}

#[tokio::test]
async fn background_children_do_not_keep_a_finished_hook_waiting() {
    let scripts = Scripts::new();
    // The grandchild holds stdout open; the hook itself is done.
    let outcome = scripts
        .run_one(
            HookEvent::PreToolUse,
            "sleep 600 &\necho $! > grandchild.pid\necho '{\"systemMessage\": \"done\"}'",
        )
        .await;
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    assert_eq!(outcome.system_messages[0].message, "done");
    let pid = read_pid(&scripts, "grandchild.pid").expect("recorded");
    assert!(eventually(|| !process_is_running(pid)).await);
}

// ---- Matchers ----

#[test]
fn matchers_select_tools_like_claude_code() {
    let cases = [
        ("Bash", "Bash", true, "an exact matcher matches that name"),
        ("Bash", "BashOutput", false, "and no longer name"),
        ("Bash", "bash", false, "and not another case"),
        ("Edit|Write", "Edit", true, "each alternative matches"),
        ("Edit|Write", "Write", true, "each alternative matches"),
        (
            "Edit|Write",
            "MultiEdit",
            false,
            "alternatives match exactly",
        ),
        (
            "mcp__.*__write",
            "mcp__fs__write_file",
            true,
            "another matcher is an unanchored regex",
        ),
        (
            "mcp__.*__write",
            "mcp__fs__read",
            false,
            "a regex that does not match",
        ),
        (
            "^Notebook",
            "NotebookEdit",
            true,
            "a regex may anchor itself",
        ),
        ("*", "anything", true, "a star matches every tool"),
        ("", "anything", true, "an empty matcher matches every tool"),
    ];
    for (pattern, tool, matches, why) in cases {
        let matcher = Matcher::new(pattern).expect("valid");
        assert_eq!(
            matcher.matches(&[tool]),
            matches,
            "`{pattern}` on `{tool}`: {why}"
        );
    }
}

#[test]
fn an_invalid_regex_matcher_is_an_error_naming_it() {
    let mut hooks = Hooks::new();
    let error = hooks
        .register(HookEvent::PreToolUse, "Bash(", CommandHook::new("true"))
        .expect_err("an invalid regex");
    assert!(error.to_string().contains("`Bash(`"), "{error}");
    assert!(hooks.is_empty());
}

#[tokio::test]
async fn a_matcher_applies_to_a_tool_through_its_alias() {
    let scripts = Scripts::new();
    let mut hooks = Hooks::new();
    hooks
        .register(
            HookEvent::PreToolUse,
            "Bash",
            CommandHook::new(scripts.script("deny.sh", "echo 'no shell' >&2\nexit 2")),
        )
        .expect("valid matcher");
    let input = scripts.input(HookEvent::PreToolUse);
    let unrelated = hooks
        .run(HookEvent::PreToolUse, &["read_file", "Read"], &input)
        .await;
    assert_eq!(unrelated.hooks_run, 0);
    let aliased = hooks
        .run(HookEvent::PreToolUse, &["run_shell", "Bash"], &input)
        .await;
    assert!(aliased.is_blocked());
}

#[tokio::test]
async fn a_hook_receives_the_tool_name_its_matcher_matched_and_the_canonical_one() {
    // A tool `run_shell` aliased `Bash`: a script written for Claude Code tests `Bash`.
    let cases = [
        ("Bash", "Bash", "an alias named by the matcher"),
        ("Edit|Bash", "Bash", "an alias among plain names"),
        ("^Ba", "Bash", "a regex matching only the alias"),
        ("run_shell", "run_shell", "the canonical name"),
        (
            "Bash|run_shell",
            "run_shell",
            "names matching both: the canonical one",
        ),
        (
            "^(run|Ba)",
            "run_shell",
            "a regex matching both: the canonical one",
        ),
        ("*", "run_shell", "every tool: the canonical name"),
        ("", "run_shell", "an empty matcher: the canonical name"),
    ];
    for (matcher, expected, why) in cases {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = std::sync::Arc::clone(&seen);
        let mut hooks = Hooks::new();
        hooks
            .register(
                HookEvent::PreToolUse,
                matcher,
                hook_fn("record", move |input: &HookInput| {
                    record
                        .lock()
                        .unwrap()
                        .push((input.tool_name.clone(), input.tool_name_canonical.clone()));
                    async { HookOutput::default() }
                }),
            )
            .expect("valid matcher");
        let input = HookInput::pre_tool_use("run_shell", json!({"command": "ls"}));
        hooks
            .run(HookEvent::PreToolUse, &["run_shell", "Bash"], &input)
            .await;
        assert_eq!(
            *seen.lock().unwrap(),
            [(expected.to_owned(), "run_shell".to_owned())],
            "`{matcher}`: {why}"
        );
    }
}

#[tokio::test]
async fn hooks_matching_by_different_names_each_receive_their_own() {
    let scripts = Scripts::new();
    let mut hooks = Hooks::new();
    for (matcher, file) in [("Bash", "alias.json"), ("*", "every.json")] {
        hooks
            .register(
                HookEvent::PreToolUse,
                matcher,
                CommandHook::new(scripts.script(&format!("{file}.sh"), &format!("cat > {file}"))),
            )
            .expect("valid matcher");
    }
    let input = HookInput::pre_tool_use("run_shell", json!({"command": "ls"})).cwd(scripts.path());
    let outcome = hooks
        .run(HookEvent::PreToolUse, &["run_shell", "Bash"], &input)
        .await;
    assert_eq!(outcome.hooks_run, 2);
    for (file, tool_name) in [("alias.json", "Bash"), ("every.json", "run_shell")] {
        let received: Value = serde_json::from_str(&scripts.read(file)).expect("JSON on stdin");
        assert_eq!(received["tool_name"], tool_name, "{file}");
        assert_eq!(received["tool_name_canonical"], "run_shell", "{file}");
    }
}

// ---- The registry ----

#[test]
fn an_empty_registry_has_no_hooks_for_any_event() {
    let mut hooks = Hooks::new();
    assert!(hooks.is_empty());
    assert!(HookEvent::ALL.into_iter().all(|event| !hooks.has(event)));
    hooks
        .register(HookEvent::PostToolUse, "*", CommandHook::new("true"))
        .expect("valid matcher");
    assert!(!hooks.is_empty());
    assert!(hooks.has(HookEvent::PostToolUse));
    assert!(!hooks.has(HookEvent::PreToolUse));
}

#[test]
fn hook_events_have_claude_code_names() {
    let cases = [
        (HookEvent::PreToolUse, "PreToolUse"),
        (HookEvent::PermissionRequest, "PermissionRequest"),
        (HookEvent::PermissionDenied, "PermissionDenied"),
        (HookEvent::PostToolUse, "PostToolUse"),
        (HookEvent::PostToolUseFailure, "PostToolUseFailure"),
        (HookEvent::PostToolBatch, "PostToolBatch"),
        (HookEvent::Elicitation, "Elicitation"),
        (HookEvent::ElicitationResult, "ElicitationResult"),
    ];
    assert_eq!(HookEvent::ALL.len(), cases.len(), "every event has a row");
    for (event, name) in cases {
        assert_eq!(event.as_str(), name);
        assert_eq!(name.parse::<HookEvent>(), Ok(event), "{name}");
    }
    assert!("UserPromptSubmit".parse::<HookEvent>().is_err());
}

/// Waits (bounded) for the other script's marker after creating its own.
fn rendezvous(mine: &str, theirs: &str, answer: &str) -> String {
    format!(
        "touch {mine}\ni=0\nwhile [ ! -e {theirs} ]; do\n  i=$((i+1))\n  if [ $i -gt 200 ]; then echo 'never met {theirs}' >&2; exit 1; fi\n  sleep 0.05\ndone\necho '{answer}'"
    )
}

#[tokio::test]
async fn matching_hooks_run_in_parallel() {
    let scripts = Scripts::new();
    let mut hooks = Hooks::new();
    // Each waits for the other's marker: run one after the other, the first would give up.
    for (mine, theirs) in [("a", "b"), ("b", "a")] {
        let body = rendezvous(mine, theirs, "{}");
        hooks
            .register(
                HookEvent::PreToolUse,
                "*",
                CommandHook::new(scripts.script(&format!("{mine}.sh"), &body)),
            )
            .expect("valid matcher");
    }
    let outcome = hooks
        .run(
            HookEvent::PreToolUse,
            &["Bash"],
            &scripts.input(HookEvent::PreToolUse),
        )
        .await;
    assert_eq!(outcome.hooks_run, 2);
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
}

#[tokio::test]
async fn the_outcome_keeps_registration_order_whatever_the_finish_order() {
    let scripts = Scripts::new();
    let mut hooks = Hooks::new();
    // The first registered can only finish after the second has started.
    let first = rendezvous(
        "first-started",
        "second-started",
        r#"{"hookSpecificOutput": {"additionalContext": "from the first"}}"#,
    );
    let second = r#"touch second-started
echo '{"hookSpecificOutput": {"additionalContext": "from the second"}}'"#;
    hooks
        .register(
            HookEvent::PostToolUse,
            "*",
            CommandHook::new(scripts.script("first.sh", &first)),
        )
        .expect("valid matcher")
        .register(
            HookEvent::PostToolUse,
            "*",
            CommandHook::new(scripts.script("second.sh", second)),
        )
        .expect("valid matcher");
    let outcome = hooks
        .run(
            HookEvent::PostToolUse,
            &["Bash"],
            &scripts.input(HookEvent::PostToolUse),
        )
        .await;
    assert_eq!(
        outcome.additional_context,
        ["from the first", "from the second"]
    );
}

#[tokio::test]
async fn identical_commands_run_once() {
    let scripts = Scripts::new();
    let command = scripts.script("count.sh", "echo run >> counter.txt");
    let mut hooks = Hooks::new();
    hooks
        .register(
            HookEvent::PreToolUse,
            "Bash",
            CommandHook::new(command.clone()),
        )
        .expect("valid matcher")
        .register(HookEvent::PreToolUse, "*", CommandHook::new(command))
        .expect("valid matcher");
    let outcome = hooks
        .run(
            HookEvent::PreToolUse,
            &["Bash"],
            &scripts.input(HookEvent::PreToolUse),
        )
        .await;
    assert_eq!(outcome.hooks_run, 1);
    assert_eq!(scripts.read("counter.txt"), "run\n");
}

#[tokio::test]
async fn deny_beats_allow_across_two_hooks() {
    let scripts = Scripts::new();
    let mut hooks = Hooks::new();
    let answer = |word: &str| {
        format!(
            r#"echo '{{"hookSpecificOutput": {{"permissionDecision": "{word}", "permissionDecisionReason": "{word} from a hook"}}}}'"#
        )
    };
    hooks
        .register(
            HookEvent::PreToolUse,
            "*",
            CommandHook::new(scripts.script("allow.sh", &answer("allow"))),
        )
        .expect("valid matcher")
        .register(
            HookEvent::PreToolUse,
            "*",
            CommandHook::new(scripts.script("deny.sh", &answer("deny"))),
        )
        .expect("valid matcher")
        .register(
            HookEvent::PreToolUse,
            "*",
            CommandHook::new(scripts.script("ask.sh", &answer("ask"))),
        )
        .expect("valid matcher");
    let outcome = hooks
        .run(
            HookEvent::PreToolUse,
            &["Bash"],
            &scripts.input(HookEvent::PreToolUse),
        )
        .await;
    let decision = outcome.decision().expect("decided");
    assert_eq!(decision.verdict, Verdict::Deny);
    assert_eq!(decision.reason, "deny from a hook");
    assert!(decision.source.rule.contains("deny.sh"));
}

#[tokio::test]
async fn the_last_registered_updated_input_wins() {
    let mut hooks = Hooks::new();
    for value in ["first", "last"] {
        hooks
            .register(
                HookEvent::PreToolUse,
                "*",
                hook_fn(value, move |_: &HookInput| {
                    let mut input = serde_json::Map::new();
                    input.insert("command".to_owned(), json!(value));
                    std::future::ready(HookOutput::default().updated_input(input))
                }),
            )
            .expect("valid matcher");
    }
    let input = HookInput::pre_tool_use("Bash", json!({"command": "ls"}));
    let outcome = hooks.run(HookEvent::PreToolUse, &["Bash"], &input).await;
    assert_eq!(
        outcome.updated_input.map(Value::Object),
        Some(json!({"command": "last"}))
    );
}

// ---- In-process hooks ----

#[tokio::test]
async fn a_closure_hook_sees_the_input_and_answers() {
    let mut hooks = Hooks::new();
    hooks
        .register(
            HookEvent::PreToolUse,
            "Bash",
            hook_fn("no-sudo", |input: &HookInput| {
                let sudo = input.tool_input["command"]
                    .as_str()
                    .is_some_and(|command| command.starts_with("sudo "));
                async move {
                    if sudo {
                        HookOutput::default().permission(Verdict::Deny, "sudo is not allowed")
                    } else {
                        HookOutput::default()
                    }
                }
            }),
        )
        .expect("valid matcher");
    let sudo = HookInput::pre_tool_use("Bash", json!({"command": "sudo rm -rf /"}));
    let outcome = hooks.run(HookEvent::PreToolUse, &["Bash"], &sudo).await;
    let decision = outcome.decision().expect("decided");
    assert_eq!(decision.verdict, Verdict::Deny);
    assert_eq!(decision.source.rule, "no-sudo");

    let plain = HookInput::pre_tool_use("Bash", json!({"command": "ls"}));
    assert_eq!(
        hooks
            .run(HookEvent::PreToolUse, &["Bash"], &plain)
            .await
            .decision(),
        None
    );
}

#[tokio::test]
async fn a_panicking_hook_is_a_non_blocking_error_and_the_others_still_answer() {
    let mut hooks = Hooks::new();
    hooks
        .register(
            HookEvent::PostToolUse,
            "*",
            hook_fn("broken", |_: &HookInput| async {
                panic!("the hook fell over");
            }),
        )
        .expect("valid matcher")
        .register(
            HookEvent::PostToolUse,
            "*",
            hook_fn("fine", |_: &HookInput| {
                std::future::ready(HookOutput::default().additional_context("still here"))
            }),
        )
        .expect("valid matcher");
    let input = HookInput::post_tool_use("Bash", json!({}), json!("ok"));
    let outcome = hooks.run(HookEvent::PostToolUse, &["Bash"], &input).await;
    assert_eq!(
        outcome.errors[0].to_string(),
        "hook `broken`: panicked: the hook fell over"
    );
    assert_eq!(outcome.additional_context, ["still here"]);
}

// ---- Elicitation and ElicitationResult: answers to an MCP server's question ----

#[tokio::test]
async fn an_elicitation_hook_answers_with_action_and_content() {
    let cases = [
        (
            r#"{"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept", "content": {"name": "Ada"}}}"#,
            Answer::Accept(json!({"name": "Ada"}).as_object().unwrap().clone()),
        ),
        (
            r#"{"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept"}}"#,
            Answer::Accept(serde_json::Map::new()),
        ),
        (
            r#"{"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "decline"}}"#,
            Answer::Decline,
        ),
        (
            r#"{"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "cancel"}}"#,
            Answer::Cancel,
        ),
    ];
    for (stdout, answer) in cases {
        let scripts = Scripts::new();
        let outcome = scripts
            .run_one(HookEvent::Elicitation, &format!("echo '{stdout}'"))
            .await;
        assert_eq!(outcome.elicitation_answer(), Some(answer), "{stdout}");
        assert!(outcome.errors.is_empty(), "{stdout}: {:?}", outcome.errors);
    }
}

#[tokio::test]
async fn exit_two_or_decision_block_declines_a_servers_question() {
    for event in [HookEvent::Elicitation, HookEvent::ElicitationResult] {
        for body in [
            "echo 'no forms from this server' >&2; exit 2",
            r#"echo '{"decision": "block", "reason": "no forms"}'"#,
        ] {
            let outcome = Scripts::new().run_one(event, body).await;
            assert_eq!(
                outcome.elicitation_answer(),
                Some(Answer::Decline),
                "{event}: {body}"
            );
        }
    }
}

#[tokio::test]
async fn a_hook_saying_nothing_leaves_the_question_to_the_user() {
    let outcome = Scripts::new()
        .run_one(HookEvent::Elicitation, "echo '{}'")
        .await;
    assert_eq!(outcome.elicitation_answer(), None);
}

#[test]
fn a_malformed_elicitation_answer_is_ignored_whole_naming_the_field() {
    let cases = [
        (
            json!({"hookSpecificOutput": {"action": "maybe"}}),
            "`hookSpecificOutput.action` should be \"accept\", \"decline\" or \"cancel\", found \"maybe\"",
        ),
        (
            json!({"hookSpecificOutput": {"content": {"name": "Ada"}}}),
            "came without `hookSpecificOutput.action`",
        ),
        (
            json!({"hookSpecificOutput": {"action": "decline", "content": {"name": "Ada"}}}),
            "goes with `\"action\": \"accept\"` only",
        ),
        (
            json!({"hookSpecificOutput": {"action": "accept", "content": "Ada"}}),
            "`hookSpecificOutput.content` should be an object, found a string",
        ),
    ];
    for (answer, problem) in cases {
        let output = HookOutput::from_json(HookEvent::ElicitationResult, &answer);
        assert_eq!(output.answer, None, "{answer}");
        let error = output.error.expect("an error");
        assert!(error.contains(problem), "{answer}: {error}");
    }
    // Outside the elicitation events, `action` means nothing and is ignored like any
    // unknown field.
    let output = HookOutput::from_json(
        HookEvent::PreToolUse,
        &json!({"hookSpecificOutput": {"action": "accept"}}),
    );
    assert_eq!((output.answer, output.error), (None, None));
}

#[tokio::test]
async fn a_refusal_stands_over_an_accept_and_the_last_accept_wins() {
    let hook = |answer: Answer| {
        hook_fn("answer", move |_: &HookInput| {
            std::future::ready(HookOutput::default().answer(answer.clone()))
        })
    };
    let ada = Answer::Accept(json!({"name": "Ada"}).as_object().unwrap().clone());
    let grace = Answer::Accept(json!({"name": "Grace"}).as_object().unwrap().clone());
    let cases = [
        (vec![ada.clone(), grace.clone()], grace.clone()),
        (
            vec![ada.clone(), Answer::Cancel, grace.clone()],
            Answer::Cancel,
        ),
        (
            vec![Answer::Decline, Answer::Cancel, ada.clone()],
            Answer::Decline,
        ),
    ];
    let input = HookInput::elicitation("github", "e1", &name_question());
    for (answers, expected) in cases {
        let mut hooks = Hooks::new();
        for answer in &answers {
            hooks
                .register(HookEvent::Elicitation, "github", hook(answer.clone()))
                .unwrap();
        }
        let outcome = hooks.run(HookEvent::Elicitation, &["github"], &input).await;
        assert_eq!(outcome.elicitation_answer(), Some(expected), "{answers:?}");
    }
}

#[tokio::test]
async fn elicitation_hooks_receive_their_input_as_it_is_without_tool_names() {
    let scripts = Scripts::new();
    let body = "cat > input.json";
    let mut hooks = Hooks::new();
    hooks
        .register(
            HookEvent::ElicitationResult,
            "git.*",
            CommandHook::new(scripts.script("hook.sh", body)),
        )
        .unwrap();
    let content = json!({"name": "Ada"}).as_object().unwrap().clone();
    let input = HookInput::elicitation_result("github", "e7", &Answer::Accept(content))
        .session_id("s1")
        .cwd(scripts.path());
    hooks
        .run(HookEvent::ElicitationResult, &["github"], &input)
        .await;
    let received: Value = serde_json::from_str(&scripts.read("input.json")).unwrap();
    assert_eq!(
        received,
        json!({
            "session_id": "s1",
            "cwd": scripts.path(),
            "hook_event_name": "ElicitationResult",
            "mcp_server_name": "github",
            "elicitation_id": "e7",
            "mode": "form",
            "action": "accept",
            "content": {"name": "Ada"},
            "permission_mode": "default",
        })
    );
}

/// Hook answers read through the configuration reader keep the protocol's corners: `null`
/// is absent except where it is a value of its own, the elicitation fields are another
/// event's to use as it likes, and every wrongly typed field is named by its path.
#[test]
fn a_json_answer_keeps_the_protocols_corners() {
    let out = HookOutput::from_json(
        HookEvent::PostToolUse,
        &json!({"hookSpecificOutput": {"updatedToolOutput": null}}),
    );
    assert_eq!(out.error, None);
    assert_eq!(
        out.updated_tool_output,
        Some(Value::Null),
        "null replaces the output"
    );

    let out = HookOutput::from_json(
        HookEvent::PreToolUse,
        &json!({"systemMessage": null, "hookSpecificOutput": {"action": 3, "content": "x"}}),
    );
    assert_eq!(
        out.error, None,
        "not an elicitation: its fields are not read"
    );
    assert_eq!(out.system_message, None);

    for (answer, message) in [
        (
            json!({"hookSpecificOutput": []}),
            "`hookSpecificOutput` should be an object, found an array",
        ),
        (
            json!({"hookSpecificOutput": {"decision": {"behavior": 1}}}),
            "`hookSpecificOutput.decision.behavior` should be a string, found a number",
        ),
        (
            json!({"hookSpecificOutput": {"decision": "allow"}}),
            "`hookSpecificOutput.decision` should be an object, found a string",
        ),
        (
            json!({"continue": "no"}),
            "`continue` should be a boolean, found a string",
        ),
    ] {
        let out = HookOutput::from_json(HookEvent::PermissionRequest, &answer);
        let error = out.error.unwrap_or_default();
        assert!(error.contains(message), "{answer}: {error}");
        assert_eq!(out.permission, None, "{answer}: nothing of it applied");
    }

    let out = HookOutput::from_json(
        HookEvent::Elicitation,
        &json!({"hookSpecificOutput": {"action": "accept", "content": ["x"]}}),
    );
    let error = out.error.unwrap_or_default();
    assert!(
        error.contains("`hookSpecificOutput.content` should be an object, found an array"),
        "{error}"
    );
}

/// Attacks on the typed reading of a hook's answer: nesting as deep as the JSON parser allows
/// is read and kept; deeper is refused as invalid JSON, not a crash; other spellings of a
/// field are not the field; a repeated key counts once, as the parser keeps it.
#[test]
fn a_hostile_json_answer_is_read_or_refused_without_a_crash() {
    let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let deep = format!(
        r#"{{"hookSpecificOutput": {{"updatedToolOutput": {}}}}}"#,
        nested(120)
    );
    let out = HookOutput::from_command(HookEvent::PostToolUse, Some(0), &deep, "");
    assert_eq!(out.error, None);
    let mut kept = out.updated_tool_output.expect("kept");
    for _ in 0..120 {
        kept = kept.as_array().expect("an array")[0].clone();
    }
    assert_eq!(kept, json!(1));

    let deeper = format!(
        r#"{{"hookSpecificOutput": {{"updatedToolOutput": {}}}}}"#,
        nested(5_000)
    );
    let out = HookOutput::from_command(HookEvent::PostToolUse, Some(0), &deeper, "");
    assert!(out.error.unwrap_or_default().contains("not valid JSON"));
    assert_eq!(out.updated_tool_output, None);

    let out = HookOutput::from_json(
        HookEvent::PreToolUse,
        &json!({"Continue": false, "system_message": "x", "hookSpecificOutput": {"PermissionDecision": "deny"}}),
    );
    assert_eq!(out.error, None);
    assert_eq!(out.stop, None, "`Continue` is not `continue`");
    assert_eq!(out.system_message, None);
    assert_eq!(out.permission, None);

    let out = HookOutput::from_command(
        HookEvent::PreToolUse,
        Some(0),
        r#"{"hookSpecificOutput": {"permissionDecision": "allow", "permissionDecision": "deny"}}"#,
        "",
    );
    assert_eq!(
        out.permission.map(|permission| permission.verdict),
        Some(Verdict::Deny)
    );
}

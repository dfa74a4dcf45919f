//! Hooks as the coordinator runs them, configured from a Claude Code style settings.json with
//! real shell scripts: blocking, replacing the input (validated and decided again), settling
//! an ask, adding context, replacing the output, and answering permission requests. The hook
//! protocol on its own is tested in `tests/hooks.rs`.

#![cfg(unix)]

#[path = "common/processes.rs"]
mod processes;
#[path = "common/scripts.rs"]
mod scripts;
use processes::process_is_running;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tool_core::{
    BoxFuture, Coordinator, ToolCall, ToolError, Toolset, Workspace, WorkspacePath,
    approval::{ApprovalRequest, ApprovalResponse, Approver},
    settings::Settings,
    tool,
};

/// Write a file.
#[tool(name = "ch_write", aliases("Write"))]
fn write(ws: &Workspace, path: WorkspacePath, text: String) -> Result<String, ToolError> {
    std::fs::write(path.in_workspace(ws), text)?;
    Ok("written".into())
}

/// Read a file.
#[tool(read_only, name = "ch_read")]
fn read(ws: &Workspace, path: WorkspacePath) -> Result<String, ToolError> {
    Ok(std::fs::read_to_string(path.in_workspace(ws))?)
}

/// Fail.
#[tool(read_only, name = "ch_fail")]
fn fail() -> Result<String, ToolError> {
    Err(ToolError::failed("the disk is on fire"))
}

fn is_status(command: &str) -> bool {
    command == "git status"
}

/// Run a command (pretend): read-only for `git status` only.
#[tool(read_only_if = is_status, name = "ch_shell")]
fn shell(#[arg(command)] command: String) -> String {
    format!("ran {command}")
}

struct CountingApprover(Arc<AtomicUsize>);

impl Approver for CountingApprover {
    fn approve<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { ApprovalResponse::once() })
    }
}

struct Fixture {
    dir: tempfile::TempDir,
    asked: Arc<AtomicUsize>,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ws")).unwrap();
        std::fs::write(dir.path().join("ws/notes.txt"), "hello").unwrap();
        Fixture {
            dir,
            asked: Arc::new(AtomicUsize::new(0)),
        }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    /// A hook script in the fixture's directory (outside the workspace).
    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        scripts::write_executable(&path, &format!("#!/bin/sh\n{body}\n"));
        path
    }

    fn coordinator(&self, event: &str, matcher: &str, script: &Path) -> Coordinator {
        self.coordinator_with(event, matcher, script, serde_json::json!({}))
    }

    fn coordinator_with(
        &self,
        event: &str,
        matcher: &str,
        script: &Path,
        permissions: serde_json::Value,
    ) -> Coordinator {
        let settings = serde_json::json!({
            "permissions": permissions,
            "hooks": { event: [ { "matcher": matcher, "hooks": [
                { "type": "command", "command": script.to_string_lossy(), "timeout": 30 }
            ] } ] }
        });
        Coordinator::builder()
            .toolset(Toolset::named(["ch_write", "ch_read", "ch_fail"]).unwrap())
            .workspace(Workspace::new(self.root()).unwrap())
            .settings(Settings::from_json(&settings.to_string()).unwrap())
            .approver(CountingApprover(Arc::clone(&self.asked)))
            .build()
            .unwrap()
    }

    /// A coordinator with `hooks` as the settings' `hooks` section.
    fn coordinator_with_hooks(&self, hooks: serde_json::Value) -> Coordinator {
        let settings = serde_json::json!({ "hooks": hooks });
        Coordinator::builder()
            .toolset(Toolset::named(["ch_write", "ch_read", "ch_fail"]).unwrap())
            .workspace(Workspace::new(self.root()).unwrap())
            .settings(Settings::from_json(&settings.to_string()).unwrap())
            .approver(CountingApprover(Arc::clone(&self.asked)))
            .build()
            .unwrap()
    }

    fn asked(&self) -> usize {
        self.asked.load(Ordering::SeqCst)
    }
}

fn write_call(path: &str) -> ToolCall {
    ToolCall::new(
        "ch_write",
        format!(r#"{{"path": "{path}", "text": "new"}}"#),
    )
    .with_call_id("toolu_1")
}

#[test]
fn a_pre_tool_use_hook_exiting_2_blocks_the_call_and_the_model_reads_its_stderr() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "block.sh",
        "echo 'writes are frozen until Monday' >&2\nexit 2",
    );
    let coordinator = fixture.coordinator("PreToolUse", "ch_write", &hook);
    let result = coordinator.call_blocking(write_call("a.txt"));
    assert!(
        result.text().contains("writes are frozen until Monday"),
        "{}",
        result.text()
    );
    assert!(!fixture.root().join("a.txt").exists());
    assert_eq!(fixture.asked(), 0, "a blocked call is not asked about");
}

#[test]
fn a_hook_matcher_naming_an_alias_applies_to_the_tool() {
    let fixture = Fixture::new();
    let hook = fixture.script("block.sh", "echo 'no' >&2\nexit 2");
    let coordinator = fixture.coordinator("PreToolUse", "Edit|Write", &hook);
    assert!(coordinator.call_blocking(write_call("a.txt")).is_error());
    let read = coordinator.call_blocking(ToolCall::new("ch_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(read.text(), "hello");
}

#[test]
fn a_pre_tool_use_hook_receives_claude_codes_input() {
    let fixture = Fixture::new();
    let seen = fixture.dir.path().join("input.json");
    let hook = fixture.script("record.sh", &format!("cat > '{}'", seen.display()));
    let coordinator = fixture.coordinator("PreToolUse", "*", &hook);
    coordinator.call_blocking(write_call("a.txt"));
    let input: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "ch_write");
    assert_eq!(input["tool_input"]["path"], "a.txt");
    assert_eq!(input["tool_use_id"], "toolu_1");
    assert_eq!(input["permission_mode"], "default");
    assert_eq!(input["session_id"], coordinator.session_id());
    assert_eq!(
        Path::new(input["cwd"].as_str().unwrap()),
        fixture.root().canonicalize().unwrap()
    );
}

#[test]
fn a_hook_matched_through_an_alias_receives_the_alias_as_tool_name() {
    // `ch_write` is aliased `Write`. The script, as one written for Claude Code would, blocks
    // the calls whose `tool_name` is `Write`.
    let cases = [
        ("Write", "Write", true, "the alias named by the matcher"),
        ("Edit|Write", "Write", true, "the alias among plain names"),
        ("*", "ch_write", false, "every tool: the canonical name"),
        ("ch_write", "ch_write", false, "the canonical name"),
    ];
    for (matcher, tool_name, blocked, why) in cases {
        let fixture = Fixture::new();
        let seen = fixture.dir.path().join("input.json");
        let hook = fixture.script(
            "no-writes.sh",
            &format!(
                "cat > '{seen}'\nif grep -q '\"tool_name\":\"Write\"' '{seen}'; then echo 'no writes' >&2; exit 2; fi",
                seen = seen.display()
            ),
        );
        let coordinator = fixture.coordinator("PreToolUse", matcher, &hook);
        let result = coordinator.call_blocking(write_call("a.txt"));
        assert_eq!(
            result.is_error(),
            blocked,
            "`{matcher}`: {why}: {}",
            result.text()
        );
        let input: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
        assert_eq!(input["tool_name"], tool_name, "`{matcher}`: {why}");
        assert_eq!(
            input["tool_name_canonical"], "ch_write",
            "`{matcher}`: {why}"
        );
    }
}

#[test]
fn a_hook_allow_settles_an_ask_without_asking_the_user() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "allow.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "safe file"}}'"#,
    );
    let coordinator = fixture.coordinator("PreToolUse", "ch_write", &hook);
    assert_eq!(
        coordinator.call_blocking(write_call("a.txt")).text(),
        "written"
    );
    assert_eq!(fixture.asked(), 0);
}

#[test]
fn a_hook_allow_does_not_override_the_users_ask_rules() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "allow.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'"#,
    );
    let coordinator = fixture.coordinator_with(
        "PreToolUse",
        "ch_read",
        &hook,
        serde_json::json!({"ask": ["ch_read"]}),
    );
    let result = coordinator.call_blocking(ToolCall::new("ch_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(result.text(), "hello");
    assert_eq!(fixture.asked(), 1, "the user's ask rule still asks");
}

/// Issue 26, Claude Code's order ("How permissions are evaluated"): PreToolUse hooks run
/// first, for every call, so an audit hook sees the calls the rules deny.
#[test]
fn a_pre_tool_use_hook_sees_calls_the_deny_rules_and_the_boundary_refuse() {
    let fixture = Fixture::new();
    let log = fixture.dir.path().join("audit.log");
    let hook = fixture.script(
        "audit.sh",
        &format!("cat >> '{}'; echo >> '{}'", log.display(), log.display()),
    );
    let coordinator = fixture.coordinator_with(
        "PreToolUse",
        "ch_write",
        &hook,
        serde_json::json!({"deny": ["ch_write(path:denied.txt)"]}),
    );
    let denied = coordinator.call_blocking(write_call("denied.txt"));
    assert_eq!(denied.error().map(ToolError::kind), Some("denied"));
    let outside = coordinator.call_blocking(write_call("../outside.txt"));
    assert_eq!(outside.error().map(ToolError::kind), Some("denied"));
    let audit = std::fs::read_to_string(&log).unwrap();
    assert!(audit.contains("denied.txt"), "{audit}");
    assert!(audit.contains("../outside.txt"), "{audit}");
    assert!(!fixture.root().join("denied.txt").exists());
    assert!(!fixture.dir.path().join("outside.txt").exists());
}

/// The hook's own message reaches the model for a call the rules would deny too.
#[test]
fn a_hook_deny_is_the_answer_even_where_a_rule_denies() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "deny.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "audit: generated files are read-only"}}'"#,
    );
    let coordinator = fixture.coordinator_with(
        "PreToolUse",
        "ch_write",
        &hook,
        serde_json::json!({"deny": ["ch_write"]}),
    );
    let result = coordinator.call_blocking(write_call("a.txt"));
    assert!(
        result
            .text()
            .contains("audit: generated files are read-only"),
        "{}",
        result.text()
    );
}

/// A hook's allow never lifts a deny rule or the workspace boundary.
#[test]
fn a_hook_allow_does_not_override_a_deny_rule_or_the_boundary() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "allow.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'"#,
    );
    let coordinator = fixture.coordinator_with(
        "PreToolUse",
        "ch_write",
        &hook,
        serde_json::json!({"deny": ["ch_write(path:denied.txt)"]}),
    );
    for path in ["denied.txt", "../outside.txt"] {
        let result = coordinator.call_blocking(write_call(path));
        assert_eq!(
            result.error().map(ToolError::kind),
            Some("denied"),
            "{path}: {}",
            result.text()
        );
    }
    assert!(!fixture.root().join("denied.txt").exists());
    assert!(!fixture.dir.path().join("outside.txt").exists());
    assert_eq!(fixture.asked(), 0);
}

/// Claude Code's `defer`: the call is not decided now; it ends pending, for the embedding
/// program to settle, and nothing of it runs.
#[test]
fn a_hook_defer_leaves_the_call_pending_and_unrun() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "defer.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer", "permissionDecisionReason": "the release manager decides"}}'"#,
    );
    let coordinator = fixture.coordinator("PreToolUse", "ch_write", &hook);
    let result = coordinator.call_blocking(write_call("a.txt"));
    let error = result.error().expect("not run");
    assert!(error.is_pending(), "{error:?}");
    assert!(
        result.text().contains("the release manager decides"),
        "{}",
        result.text()
    );
    assert!(!fixture.root().join("a.txt").exists());
    assert_eq!(fixture.asked(), 0);
}

/// Claude Code's PermissionDenied: after the policy denies a call, the hook hears why, and
/// may tell the model it can retry.
#[test]
fn a_permission_denied_hook_hears_the_denial_and_may_offer_a_retry() {
    let fixture = Fixture::new();
    let log = fixture.dir.path().join("denied.log");
    let hook = fixture.script(
        "denied.sh",
        &format!(
            "cat > '{}'\necho '{{\"hookSpecificOutput\": {{\"hookEventName\": \"PermissionDenied\", \"retry\": true}}}}'",
            log.display()
        ),
    );
    let coordinator = fixture.coordinator_with(
        "PermissionDenied",
        "ch_write",
        &hook,
        serde_json::json!({"deny": ["ch_write(path:denied.txt)"]}),
    );
    let result = coordinator.call_blocking(write_call("denied.txt"));
    assert_eq!(result.error().map(ToolError::kind), Some("denied"));
    assert!(
        result.text().contains("may be retried"),
        "{}",
        result.text()
    );
    let input: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PermissionDenied");
    assert_eq!(input["tool_input"]["path"], "denied.txt");
    assert!(
        input["reason"].as_str().unwrap().contains("deny rule"),
        "{input}"
    );
    // A call that runs does not reach it.
    std::fs::remove_file(&log).unwrap();
    let allowed = coordinator.call_blocking(write_call("fine.txt"));
    assert_eq!(allowed.text(), "written");
    assert!(!log.exists());
}

#[test]
fn a_hook_deny_stops_the_call_with_its_reason() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "deny.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "a.txt is generated"}}'"#,
    );
    let coordinator = fixture.coordinator("PreToolUse", "ch_write", &hook);
    let result = coordinator.call_blocking(write_call("a.txt"));
    assert!(
        result.text().contains("a.txt is generated"),
        "{}",
        result.text()
    );
    assert!(!fixture.root().join("a.txt").exists());
}

#[test]
fn a_hook_ask_makes_a_read_only_call_ask() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "ask.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}'"#,
    );
    let coordinator = fixture.coordinator("PreToolUse", "ch_read", &hook);
    let result = coordinator.call_blocking(ToolCall::new("ch_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(result.text(), "hello");
    assert_eq!(fixture.asked(), 1);
}

#[test]
fn updated_input_from_a_hook_is_what_the_tool_receives() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "redirect.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"path": "redirected.txt", "text": "from hook"}}}'"#,
    );
    let coordinator = fixture.coordinator("PreToolUse", "ch_write", &hook);
    assert_eq!(
        coordinator.call_blocking(write_call("a.txt")).text(),
        "written"
    );
    assert!(!fixture.root().join("a.txt").exists());
    assert_eq!(
        std::fs::read_to_string(fixture.root().join("redirected.txt")).unwrap(),
        "from hook"
    );
}

#[test]
fn updated_input_is_validated_like_model_input() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "broken.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"path": 7}}}'"#,
    );
    let coordinator = fixture.coordinator("PreToolUse", "ch_write", &hook);
    let result = coordinator.call_blocking(write_call("a.txt"));
    let text = result.text();
    assert!(text.contains("PreToolUse hook replaced"), "{text}");
    assert!(text.contains("missing required argument `text`"), "{text}");
    assert!(!fixture.root().join("a.txt").exists());
}

#[test]
fn updated_input_cannot_leave_the_workspace() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "escape.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"path": "../escaped.txt", "text": "x"}}}'"#,
    );
    let coordinator = fixture.coordinator("PreToolUse", "ch_write", &hook);
    let result = coordinator.call_blocking(write_call("a.txt"));
    match result.error() {
        Some(ToolError::Denied { decided_by, .. }) => assert!(decided_by.starts_with("safety")),
        other => panic!("expected the safety layer to deny, got {other:?}"),
    }
    assert!(!fixture.dir.path().join("escaped.txt").exists());
}

#[test]
fn additional_context_from_a_hook_reaches_the_model() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "context.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "remember to run the tests"}}'"#,
    );
    let coordinator = fixture.coordinator("PostToolUse", "ch_read", &hook);
    let result = coordinator.call_blocking(ToolCall::new("ch_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(result.text(), "hello\nremember to run the tests");
}

#[test]
fn a_post_tool_use_hook_can_replace_what_the_model_reads() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "redact.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "[redacted]"}}'"#,
    );
    let coordinator = fixture.coordinator("PostToolUse", "ch_read", &hook);
    let result = coordinator.call_blocking(ToolCall::new("ch_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(result.text(), "[redacted]");
}

#[test]
fn a_post_tool_use_hook_exiting_2_gives_the_model_feedback() {
    let fixture = Fixture::new();
    let hook = fixture.script("lint.sh", "echo 'a.txt: trailing whitespace' >&2\nexit 2");
    let coordinator = fixture.coordinator("PostToolUse", "ch_write", &hook);
    let result = coordinator.call_blocking(write_call("a.txt"));
    assert!(!result.is_error(), "the tool ran");
    assert!(
        result.text().contains("a.txt: trailing whitespace"),
        "{}",
        result.text()
    );
}

#[test]
fn a_post_tool_use_failure_hook_sees_the_error() {
    let fixture = Fixture::new();
    let seen = fixture.dir.path().join("failure.json");
    let hook = fixture.script("record.sh", &format!("cat > '{}'", seen.display()));
    let coordinator = fixture.coordinator("PostToolUseFailure", "*", &hook);
    let result = coordinator.call_blocking(ToolCall::new("ch_fail", "{}"));
    assert!(result.is_error());
    let input: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PostToolUseFailure");
    assert_eq!(input["error"], "the disk is on fire");
}

#[test]
fn a_permission_request_hook_answers_instead_of_the_user() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "permit.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}'"#,
    );
    let coordinator = fixture.coordinator("PermissionRequest", "ch_write", &hook);
    assert_eq!(
        coordinator.call_blocking(write_call("a.txt")).text(),
        "written"
    );
    assert_eq!(fixture.asked(), 0);

    let hook = fixture.script("refuse.sh", "echo 'not on Fridays' >&2\nexit 2");
    let coordinator = fixture.coordinator("PermissionRequest", "ch_write", &hook);
    let result = coordinator.call_blocking(write_call("b.txt"));
    assert!(
        result.text().contains("not on Fridays"),
        "{}",
        result.text()
    );
    assert_eq!(fixture.asked(), 0);
}

#[test]
fn a_hook_saying_continue_false_before_a_call_denies_it_and_asks_the_turn_to_stop() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "stop.sh",
        r#"echo '{"continue": false, "stopReason": "the build is broken; fix it first"}'"#,
    );
    let coordinator = fixture.coordinator("PreToolUse", "ch_write", &hook);
    let result = coordinator.call_blocking(write_call("a.txt"));
    assert!(result.is_error());
    assert_eq!(
        result.stop.as_deref(),
        Some("the build is broken; fix it first")
    );
    assert!(!fixture.root().join("a.txt").exists());
}

#[test]
fn a_hook_saying_continue_false_after_a_call_keeps_the_result_and_asks_the_turn_to_stop() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "stop.sh",
        r#"echo '{"continue": false, "stopReason": "enough"}'"#,
    );
    let coordinator = fixture.coordinator("PostToolUse", "ch_read", &hook);
    let result = coordinator.call_blocking(ToolCall::new("ch_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(result.text(), "hello");
    assert_eq!(result.stop.as_deref(), Some("enough"));
}

#[test]
fn system_messages_and_hook_failures_reach_the_event_sink() {
    let fixture = Fixture::new();
    let hook = fixture.script(
        "warn.sh",
        r#"echo '{"systemMessage": "reading notes is logged"}'"#,
    );
    let broken = fixture.script("broken.sh", "echo 'cannot reach the audit log' >&2\nexit 1");
    let settings = serde_json::json!({ "hooks": { "PreToolUse": [
        { "matcher": "*", "hooks": [
            { "type": "command", "command": hook.to_string_lossy() },
            { "type": "command", "command": broken.to_string_lossy() }
        ] }
    ] } });
    let (events, mut received) = tokio::sync::mpsc::unbounded_channel();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["ch_read"]).unwrap())
        .workspace(Workspace::new(fixture.root()).unwrap())
        .settings(Settings::from_json(&settings.to_string()).unwrap())
        .events(events)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(
        ToolCall::new("ch_read", r#"{"path": "notes.txt"}"#).with_call_id("toolu_9"),
    );
    assert_eq!(result.text(), "hello");
    let mut notices = Vec::new();
    while let Ok(event) = received.try_recv() {
        if let tool_core::events::CallEvent::HookNotice {
            call_id,
            message,
            is_error,
            ..
        } = event
        {
            assert_eq!(call_id, "toolu_9");
            notices.push((message, is_error));
        }
    }
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert_eq!(notices[0], ("reading notes is logged".to_owned(), false));
    assert!(
        notices[1].1 && notices[1].0.contains("cannot reach the audit log"),
        "{notices:?}"
    );
}

#[test]
fn a_failing_hook_does_not_stop_the_call() {
    let fixture = Fixture::new();
    let hook = fixture.script("broken.sh", "echo 'oops' >&2\nexit 1");
    let coordinator = fixture.coordinator("PreToolUse", "*", &hook);
    let result = coordinator.call_blocking(ToolCall::new("ch_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(result.text(), "hello");
}

#[test]
fn updated_input_that_turns_a_read_into_a_write_draws_on_the_action_budget() {
    use tool_core::budget::{Budget, BudgetConfig, BudgetKind};
    use tool_core::policy::Mode;

    let fixture = Fixture::new();
    let hook = fixture.script(
        "rewrite.sh",
        r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "git push"}}}'"#,
    );
    let settings = serde_json::json!({
        "hooks": { "PreToolUse": [ { "matcher": "ch_shell", "hooks": [
            { "type": "command", "command": hook.to_string_lossy(), "timeout": 30 }
        ] } ] }
    });
    let budget = Arc::new(Budget::new(BudgetConfig {
        action: 1,
        build_multiplier: 1.0,
        ..BudgetConfig::default()
    }));
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["ch_shell"]).unwrap())
        .workspace(Workspace::new(fixture.root()).unwrap())
        .settings(Settings::from_json(&settings.to_string()).unwrap())
        .approver(CountingApprover(Arc::clone(&fixture.asked)))
        .budget(Arc::clone(&budget))
        .build()
        .unwrap();
    let status = ToolCall::new("ch_shell", r#"{"command": "git status"}"#);
    // Charged as a read, then moved to the action budget when the hook made it a push.
    assert_eq!(
        coordinator.call_blocking(status.clone()).text(),
        "ran git push"
    );
    let [calls, exploration, action] = budget.status(Mode::Default);
    assert_eq!(calls.used, 1);
    assert_eq!(
        (exploration.kind, exploration.used),
        (BudgetKind::Exploration, 0)
    );
    assert_eq!((action.kind, action.used), (BudgetKind::Action, 1));
    // The next one finds the action budget used up, and nobody is asked about it.
    let asked = fixture.asked();
    let result = coordinator.call_blocking(status);
    assert!(
        result.text().contains("action budget is used up"),
        "{}",
        result.text()
    );
    assert_eq!(fixture.asked(), asked);
}

/// Found by an exploratory run over MCP: a call cancelled while its PreToolUse hook ran still
/// ran its tool once the hook returned (the file was written), and the hook's process lived on.
#[test]
fn a_call_cancelled_while_its_pre_tool_use_hook_runs_never_runs_the_tool() {
    let fixture = Fixture::new();
    let pid_file = fixture.dir.path().join("hook.pid");
    let hook = fixture.script(
        "slow.sh",
        &format!("echo $$ > '{}'\nexec sleep 30", pid_file.display()),
    );
    let coordinator = fixture.coordinator("PreToolUse", "ch_write", &hook);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (result, hook_pid, took) = runtime.block_on(async {
        let stop = tool_core::context::CancellationToken::new();
        let call = coordinator.call_with(
            write_call("a.txt"),
            tool_core::coordinator::CallOptions::new().cancel(stop.clone()),
        );
        tokio::pin!(call);
        let started = std::time::Instant::now();
        // Cancel once the hook is running.
        let hook_pid = loop {
            tokio::select! {
                _ = &mut call => panic!("the call ended before the hook could be cancelled"),
                () = tokio::time::sleep(std::time::Duration::from_millis(20)) => {}
            }
            if let Some(pid) = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|text| text.trim().parse::<u32>().ok())
            {
                break pid;
            }
            assert!(started.elapsed().as_secs() < 20, "the hook never started");
        };
        stop.cancel();
        let result = call.await;
        (result, hook_pid, started.elapsed())
    });
    assert!(
        matches!(result.error(), Some(ToolError::Cancelled)),
        "{}",
        result.text()
    );
    assert!(!fixture.root().join("a.txt").exists(), "the tool ran");
    // Well before the hook's 30 s: the wait was dropped, not sat out.
    assert!(took.as_secs() < 20, "the call took {took:?}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while process_is_running(hook_pid) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!process_is_running(hook_pid), "the hook's process lives on");
}

/// One HTTP exchange on a loopback listener: the request as received, and the reply sent.
struct HookServer {
    url: String,
    request: std::sync::mpsc::Receiver<String>,
}

impl HookServer {
    /// Answers one request with `status` and `body`.
    fn answering(status: u16, body: &'static str) -> Self {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let (send, request) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap();
                }
                head.push_str(&line);
                if line == "\r\n" {
                    break;
                }
            }
            let mut received = vec![0; length];
            reader.read_exact(&mut received).unwrap();
            head.push_str(&String::from_utf8_lossy(&received));
            send.send(head).unwrap();
            let mut stream = stream;
            write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
        });
        HookServer { url, request }
    }
}

/// Claude Code's `"type": "http"` hook: the event POSTed as JSON, the reply read like a
/// command's stdout, header variables expanded only when allowed.
#[test]
fn an_http_hook_posts_the_event_and_its_answer_decides() {
    let fixture = Fixture::new();
    let server = HookServer::answering(
        200,
        r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "the audit service says no"}}"#,
    );
    // SAFETY: set before the hook reads it, and only this test names these variables.
    unsafe {
        std::env::set_var("CH_HOOK_TOKEN", "t0ken");
        std::env::set_var("CH_HOOK_SECRET", "s3cret");
    }
    let coordinator = fixture.coordinator_with_hooks(serde_json::json!({
        "PreToolUse": [{"matcher": "ch_write", "hooks": [{
            "type": "http", "url": server.url, "timeout": 10,
            "headers": {"Authorization": "Bearer $CH_HOOK_TOKEN", "X-Leak": "${CH_HOOK_SECRET}"},
            "allowedEnvVars": ["CH_HOOK_TOKEN"]
        }]}]
    }));
    let result = coordinator.call_blocking(write_call("a.txt"));
    assert!(
        result.text().contains("the audit service says no"),
        "{}",
        result.text()
    );
    assert!(!fixture.root().join("a.txt").exists());
    let request = server.request.recv().unwrap();
    assert!(request.starts_with("POST /hook HTTP/1.1\r\n"), "{request}");
    let lower = request.to_ascii_lowercase();
    assert!(
        lower.contains("content-type: application/json"),
        "{request}"
    );
    assert!(request.contains("Bearer t0ken"), "{request}");
    assert!(!request.contains("s3cret"), "{request}");
    assert!(
        request.contains(r#""hook_event_name":"PreToolUse""#),
        "{request}"
    );
    assert!(request.contains(r#""tool_name":"ch_write""#), "{request}");
}

/// A reply that is not 2xx is a non-blocking error, as a command's exit code 1 is: the call
/// goes on.
#[test]
fn an_http_hook_answering_an_error_status_does_not_block() {
    let fixture = Fixture::new();
    let server = HookServer::answering(
        500,
        r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}"#,
    );
    let coordinator = fixture.coordinator_with_hooks(serde_json::json!({
        "PreToolUse": [{"matcher": "ch_read", "hooks": [{"type": "http", "url": server.url}]}]
    }));
    let result = coordinator.call_blocking(ToolCall::new("ch_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(result.text(), "hello");
    server.request.recv().unwrap();
}

/// `"async": true`: the call does not wait for the hook, so the hook decides nothing.
#[test]
fn an_async_hook_cannot_decide_the_call() {
    let fixture = Fixture::new();
    let marker = fixture.dir.path().join("ran");
    let hook = fixture.script(
        "async.sh",
        &format!(
            "touch '{}'\necho '{{\"hookSpecificOutput\": {{\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\"}}}}'",
            marker.display()
        ),
    );
    let coordinator = fixture.coordinator_with_hooks(serde_json::json!({
        "PreToolUse": [{"matcher": "ch_read", "hooks": [
            {"type": "command", "command": hook.to_string_lossy(), "async": true}
        ]}]
    }));
    let result = coordinator.call_blocking(ToolCall::new("ch_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(result.text(), "hello");
    // It did run, beside the call.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !marker.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(marker.exists(), "the async hook never ran");
}

/// Claude Code's PostToolBatch: once per batch, every call and result together; what it adds
/// reaches the model with the last result, and its block stops the turn.
#[test]
fn a_post_tool_batch_hook_sees_the_whole_batch_once() {
    let fixture = Fixture::new();
    let log = fixture.dir.path().join("batch.log");
    let hook = fixture.script(
        "batch.sh",
        &format!(
            "cat >> '{}'\necho '{{\"decision\": \"block\", \"reason\": \"review the failure first\", \"hookSpecificOutput\": {{\"hookEventName\": \"PostToolBatch\", \"additionalContext\": \"2 calls seen\"}}}}'",
            log.display()
        ),
    );
    let coordinator = fixture.coordinator_with_hooks(serde_json::json!({
        "PostToolBatch": [{"hooks": [{"type": "command", "command": hook.to_string_lossy()}]}]
    }));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let results = runtime.block_on(coordinator.call_batch(vec![
        ToolCall::new("ch_read", r#"{"path": "notes.txt"}"#).with_call_id("a"),
        ToolCall::new("ch_fail", "{}").with_call_id("b"),
    ]));
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].text(), "hello");
    let input: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&log).unwrap().trim()).expect("one input");
    assert_eq!(input["hook_event_name"], "PostToolBatch");
    let calls = input["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["tool_name"], "ch_read");
    assert_eq!(calls[0]["tool_use_id"], "a");
    assert_eq!(calls[0]["tool_response"], "hello");
    assert!(calls[1]["error"].is_string(), "{input}");
    let last = &results[1];
    assert!(
        last.context.iter().any(|c| c == "2 calls seen"),
        "{:?}",
        last.context
    );
    assert_eq!(last.stop.as_deref(), Some("review the failure first"));
    assert!(results[0].stop.is_none());
}

/// A stand-in for the program's model: records the prompt, answers `answer`.
struct ScriptedModel {
    answer: &'static str,
    prompts: std::sync::Mutex<Vec<String>>,
}

impl tool_core::hooks::HookModel for ScriptedModel {
    fn answer<'a>(
        &'a self,
        request: &'a tool_core::hooks::ModelHookRequest,
    ) -> BoxFuture<'a, Result<String, String>> {
        self.prompts.lock().unwrap().push(request.prompt.clone());
        Box::pin(async { Ok(self.answer.to_owned()) })
    }
}

fn prompt_hook_settings() -> Settings {
    Settings::from_json(
        r#"{"hooks": {"PreToolUse": [{"matcher": "ch_write", "hooks": [
            {"type": "prompt", "prompt": "Is this write safe? $ARGUMENTS", "timeout": 30}
        ]}]}}"#,
    )
    .unwrap()
}

/// Claude Code's `"type": "prompt"`: the program's model answers; `{"ok": false}` blocks.
#[test]
fn a_prompt_hook_is_answered_by_the_programs_model() {
    let fixture = Fixture::new();
    let model = Arc::new(ScriptedModel {
        answer: r#"{"ok": false, "reason": "a.txt is generated"}"#,
        prompts: std::sync::Mutex::new(Vec::new()),
    });
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["ch_write"]).unwrap())
        .workspace(Workspace::new(fixture.root()).unwrap())
        .settings(prompt_hook_settings())
        .hook_model(Arc::clone(&model) as Arc<dyn tool_core::hooks::HookModel>)
        .approver(CountingApprover(Arc::clone(&fixture.asked)))
        .build()
        .unwrap();
    let result = coordinator.call_blocking(write_call("a.txt"));
    assert!(
        result.text().contains("a.txt is generated"),
        "{}",
        result.text()
    );
    assert!(!fixture.root().join("a.txt").exists());
    let prompts = model.prompts.lock().unwrap();
    assert!(
        prompts[0].starts_with("Is this write safe? {"),
        "{prompts:?}"
    );
    assert!(
        prompts[0].contains(r#""tool_name":"ch_write""#),
        "{prompts:?}"
    );
}

/// Without a model, settings naming a `prompt` hook do not build, and say which hook.
#[test]
fn a_prompt_hook_without_a_model_is_a_build_error_naming_it() {
    let Err(error) = Coordinator::builder()
        .toolset(Toolset::named(["ch_write"]).unwrap())
        .settings(prompt_hook_settings())
        .build()
    else {
        panic!("no model, no coordinator");
    };
    let error = error.to_string();
    assert!(
        error.contains("`hooks.PreToolUse[0].hooks[0]` is a \"prompt\" hook")
            && error.contains("hook_model"),
        "{error}"
    );
}

/// Stands in for a tool imported from an MCP server `audit`: denies writes to `secret.txt`.
#[tool(read_only, name = "mcp__audit__check")]
fn audit_check(file: String, event: String) -> String {
    if file == "secret.txt" && event == "PreToolUse" {
        r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "the audit server guards secret.txt"}}"#.to_owned()
    } else {
        String::new()
    }
}

fn mcp_tool_hook_settings() -> Settings {
    Settings::from_json(
        r#"{"hooks": {"PreToolUse": [{"matcher": "ch_write", "hooks": [
            {"type": "mcp_tool", "server": "audit", "tool": "check",
             "input": {"file": "${tool_input.path}", "event": "${hook_event_name}"}}
        ]}]}}"#,
    )
    .unwrap()
}

/// Claude Code's `"type": "mcp_tool"`: a tool of a connected server answers, with arguments
/// made from the event's input.
#[test]
fn an_mcp_tool_hook_calls_the_servers_tool_with_the_events_fields() {
    let fixture = Fixture::new();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["ch_write", "mcp__audit__check"]).unwrap())
        .workspace(Workspace::new(fixture.root()).unwrap())
        .settings(mcp_tool_hook_settings())
        .approver(CountingApprover(Arc::clone(&fixture.asked)))
        .build()
        .unwrap();
    let denied = coordinator.call_blocking(write_call("secret.txt"));
    assert!(
        denied.text().contains("the audit server guards secret.txt"),
        "{}",
        denied.text()
    );
    assert!(!fixture.root().join("secret.txt").exists());
    let allowed = coordinator.call_blocking(write_call("a.txt"));
    assert_eq!(allowed.text(), "written");
}

/// Naming a tool the toolset does not hold is a build error naming the hook.
#[test]
fn an_mcp_tool_hook_without_its_tool_is_a_build_error_naming_it() {
    let Err(error) = Coordinator::builder()
        .toolset(Toolset::named(["ch_write"]).unwrap())
        .settings(mcp_tool_hook_settings())
        .build()
    else {
        panic!("no tool, no coordinator");
    };
    let error = error.to_string();
    assert!(
        error.contains(
            "`hooks.PreToolUse[0].hooks[0]` is an \"mcp_tool\" hook calling `mcp__audit__check`"
        ),
        "{error}"
    );
}

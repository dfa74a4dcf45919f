//! Bypass mode runs what safety and deny rules do not stop, but still asks before changing the
//! directories that configure tools and editors, as Claude Code does.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tool_core::approval::{ApprovalRequest, ApprovalResponse, Approver};
use tool_core::policy::Mode;
use tool_core::{BoxFuture, Coordinator, ToolCall, Toolset, Workspace, WorkspacePath, tool};

/// Write a file (a stand-in that only says where).
#[tool(name = "bypass_write")]
fn write(path: WorkspacePath) -> String {
    format!("wrote {}", path.as_path().display())
}

/// Approves everything, remembering each path it was asked about.
#[derive(Clone, Default)]
struct Asked(Arc<Mutex<Vec<String>>>);

impl Approver for Asked {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        self.0.lock().unwrap().push(request.reason.to_string());
        Box::pin(async { ApprovalResponse::once() })
    }
}

#[test]
fn bypass_mode_still_asks_before_writes_under_tool_and_editor_directories() {
    let root = tempfile::tempdir().unwrap();
    let asked = Asked::default();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["bypass_write"]).unwrap())
        .workspace(Workspace::new(root.path()).unwrap())
        .mode(Mode::Bypass)
        .approver(asked.clone())
        .build()
        .unwrap();
    for (path, asks, why) in [
        ("src/main.rs", false, "an ordinary file runs without asking"),
        (".vscode/settings.json", true, "the editor's settings"),
        (".idea/workspace.xml", true, "the IDE's settings"),
        (".claude/settings.json", true, "the agent's own settings"),
        ("sub/.claude/hooks/x.sh", true, "a nested .claude directory"),
        (
            ".claude/commands/deploy.md",
            false,
            ".claude/commands is free",
        ),
        (
            ".claude/agents/reviewer.md",
            false,
            ".claude/agents is free",
        ),
        (".claude/skills/x/SKILL.md", false, ".claude/skills is free"),
    ] {
        let before = asked.0.lock().unwrap().len();
        let result = coordinator.call_blocking(ToolCall::new(
            "bypass_write",
            json!({ "path": path }).to_string(),
        ));
        assert!(!result.is_error(), "{why}: {}", result.text());
        let was_asked = asked.0.lock().unwrap().len() > before;
        assert_eq!(was_asked, asks, "{why}: `{path}`");
        if asks {
            let reason = asked.0.lock().unwrap().last().cloned().unwrap();
            assert!(reason.contains("bypass mode still asks"), "{reason}");
        }
    }
}

#[test]
fn writes_under_git_are_denied_in_bypass_mode_as_in_every_mode() {
    let root = tempfile::tempdir().unwrap();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["bypass_write"]).unwrap())
        .workspace(Workspace::new(root.path()).unwrap())
        .mode(Mode::Bypass)
        .approver(Asked::default())
        .build()
        .unwrap();
    let result =
        coordinator.call_blocking(ToolCall::new("bypass_write", r#"{"path": ".git/config"}"#));
    assert_eq!(
        result.error().map(tool_core::ToolError::kind),
        Some("denied"),
        "{}",
        result.text()
    );
}

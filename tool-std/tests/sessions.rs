//! Sessions of one coordinator (`Coordinator::new_session`, issue 27 item 3): what a server with
//! many clients gives each. The tools, policy and settings are shared; a session's grants,
//! files read, artifacts, background jobs and todo list are its own, and its jobs stop when it
//! is dropped. Over HTTP, `tests/mcp_http.rs` checks the same with two MCP clients.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use tool_core::approval::{ApprovalRequest, ApprovalResponse, ApprovalScope, Approver};
use tool_core::{BoxFuture, Coordinator, ToolCall, ToolResult, Toolset, Workspace};

#[path = "shell_support/mod.rs"]
mod shell_support;

/// Approves every request for the rest of the session, counting them.
struct ApprovesForTheSession(Arc<AtomicUsize>);

impl Approver for ApprovesForTheSession {
    fn approve<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { ApprovalResponse::Approve(ApprovalScope::Session) })
    }
}

struct Server {
    _dir: tempfile::TempDir,
    coordinator: Coordinator,
    asked: Arc<AtomicUsize>,
}

fn server() -> Server {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.txt"), "x".repeat(5_000)).unwrap();
    let asked = Arc::new(AtomicUsize::new(0));
    let coordinator = Coordinator::builder()
        .toolset(
            Toolset::named([
                "read_file",
                "write_file",
                "run_shell",
                "list_shells",
                "shell_output",
                "read_artifact",
                "list_artifacts",
                "todo_write",
            ])
            .unwrap(),
        )
        .workspace(Workspace::new(dir.path()).unwrap())
        .approver(ApprovesForTheSession(Arc::clone(&asked)))
        .output_limit(1_000)
        .build()
        .unwrap();
    Server {
        _dir: dir,
        coordinator,
        asked,
    }
}

impl Server {
    /// Two clients' sessions of this server.
    fn two_sessions(&self) -> [Coordinator; 2] {
        [
            self.coordinator.new_session(),
            self.coordinator.new_session(),
        ]
    }
}

fn call(coordinator: &Coordinator, tool: &str, arguments: serde_json::Value) -> ToolResult {
    coordinator.call_blocking(ToolCall::new(tool, arguments.to_string()))
}

#[test]
fn a_grant_for_the_session_holds_for_that_session_alone() {
    let server = server();
    let [a, b] = server.two_sessions();
    for name in ["a1.md", "a2.md"] {
        let result = call(&a, "write_file", json!({"path": name, "content": "a"}));
        assert!(!result.is_error(), "{}", result.text());
    }
    assert_eq!(
        server.asked.load(Ordering::SeqCst),
        1,
        "A's second write was asked"
    );
    let result = call(&b, "write_file", json!({"path": "b1.md", "content": "b"}));
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        server.asked.load(Ordering::SeqCst),
        2,
        "B's write ran on A's grant"
    );
}

#[test]
fn an_artifact_is_read_only_in_the_session_that_made_it() {
    let server = server();
    let [a, b] = server.two_sessions();
    let cut = call(&a, "read_file", json!({"path": "big.txt"}));
    assert!(cut.text().contains("art_1"), "{}", cut.text());
    let read = call(&a, "read_artifact", json!({"id": "art_1"}));
    assert!(!read.is_error(), "{}", read.text());
    let other = call(&b, "read_artifact", json!({"id": "art_1"}));
    assert!(other.is_error(), "{}", other.text());
    let listed = call(&b, "list_artifacts", json!({}));
    assert!(!listed.text().contains("art_1"), "{}", listed.text());
}

#[test]
fn a_background_job_is_listed_in_its_session_alone_and_stops_with_it() {
    let server = server();
    let [a, b] = server.two_sessions();
    let started = call(
        &a,
        "run_shell",
        json!({"command": "echo $$; exec sleep 30", "run_in_background": true}),
    );
    assert!(!started.is_error(), "{}", started.text());
    let job = started.structured().unwrap()["job_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(call(&a, "list_shells", json!({})).text().contains(&job));
    assert!(!call(&b, "list_shells", json!({})).text().contains(&job));
    let mut printed = String::new();
    for _ in 0..200 {
        let output = call(&a, "shell_output", json!({"bash_id": job}));
        printed = output.structured().unwrap()["output"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if printed.contains('\n') {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let pgid = shell_support::first_line_pgid(&printed);
    assert!(!shell_support::live_members(pgid).is_empty());
    drop(a);
    assert_eq!(
        shell_support::group_gone(pgid),
        Ok(()),
        "the job outlived its session"
    );
    drop(b);
}

#[test]
fn a_todo_list_is_its_sessions_own() {
    let server = server();
    let [a, b] = server.two_sessions();
    let todos = json!({"todos": [{"content": "Fix the parser", "status": "in_progress"}]});
    assert!(!call(&a, "todo_write", todos).is_error());
    assert_eq!(a.session_state::<tool_std::TodoList>().snapshot().len(), 1);
    assert!(
        b.session_state::<tool_std::TodoList>()
            .snapshot()
            .is_empty()
    );
}

#[test]
fn a_change_of_the_toolset_reaches_every_session() {
    let server = server();
    let session = server.coordinator.new_session();
    assert!(server.coordinator.remove_tool("todo_write").is_some());
    let result = call(&session, "todo_write", json!({"todos": []}));
    assert!(result.is_error(), "{}", result.text());
    assert!(session.toolset().get("todo_write").is_none());
}

//! Confinement the kernel enforces: a path the policy checked before a wait is checked again
//! after it, and a tool's own I/O through the workspace's handles cannot follow a symlink
//! swapped in at any moment. The handles on their own are unit-tested beside them
//! (`tool-core/src/definition/workspace/handles.rs`).

#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use tool_core::{
    BoxFuture, Coordinator, ToolCall, ToolError, ToolResult, Toolset, Workspace, WorkspacePath,
    approval::{ApprovalRequest, ApprovalResponse, Approver},
    coordinator::CoordinatorBuilder,
    hooks::{HookEvent, HookInput, HookOutput, Hooks, hook_fn},
    policy::{Mode, Verdict},
    tool,
};

/// Write a file, through the workspace's handles.
#[tool(name = "conf_write", blocking)]
fn write(ws: &Workspace, path: WorkspacePath, text: String) -> Result<String, ToolError> {
    ws.write(&path, &text)?;
    Ok("written".into())
}

/// Write a file with `std::fs`, as a tool written before the handles would.
#[tool(name = "conf_write_std")]
fn write_std(ws: &Workspace, path: WorkspacePath, text: String) -> Result<String, ToolError> {
    std::fs::write(path.in_workspace(ws), text)?;
    Ok("written".into())
}

/// Replace a directory of the workspace with a symlink to `target` (the directory itself is
/// kept beside it, as `<dir>.aside`).
#[tool(name = "conf_swap")]
fn swap(ws: &Workspace, dir: WorkspacePath, target: String) -> Result<String, ToolError> {
    swap_for_link(&dir.in_workspace(ws), Path::new(&target));
    Ok("swapped".into())
}

/// Swap `dir` for a link to `outside` itself, after the policy checked the call, then write
/// `dir/file.txt` through the handles.
#[tool(name = "conf_swap_then_write", blocking)]
fn swap_then_write(
    ws: &Workspace,
    path: WorkspacePath,
    outside: String,
) -> Result<String, ToolError> {
    let target = path.in_workspace(ws);
    swap_for_link(
        target.parent().expect("a file in a directory"),
        Path::new(&outside),
    );
    ws.write(&path, "pwned")?;
    Ok("written".into())
}

fn swap_for_link(dir: &Path, target: &Path) {
    let mut aside = dir.as_os_str().to_owned();
    aside.push(".aside");
    std::fs::rename(dir, aside).unwrap();
    symlink(target, dir).unwrap();
}

/// A workspace `ws` with an empty directory `dir`, beside an empty directory `outside`.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ws/dir")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        Fixture { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    fn outside(&self) -> PathBuf {
        self.dir.path().join("outside")
    }

    fn builder(&self) -> CoordinatorBuilder {
        Coordinator::builder()
            .toolset(
                Toolset::named([
                    "conf_write",
                    "conf_write_std",
                    "conf_swap",
                    "conf_swap_then_write",
                ])
                .unwrap(),
            )
            .workspace(Workspace::new(self.root()).unwrap())
    }

    /// The arguments of a call swapping `dir` for a link to `outside`.
    fn swap_arguments(&self) -> String {
        serde_json::json!({"dir": "dir", "target": self.outside()}).to_string()
    }

    /// Nothing was written outside, nor into the directory swapped away.
    fn assert_nothing_written(&self) {
        let outside: Vec<_> = std::fs::read_dir(self.outside()).unwrap().collect();
        assert!(outside.is_empty(), "written outside: {outside:?}");
        assert!(!self.root().join("dir.aside/file.txt").exists());
    }
}

fn denied_by(result: &ToolResult) -> String {
    match result.error() {
        Some(ToolError::Denied { decided_by, .. }) => decided_by.clone(),
        other => panic!("expected a denial, got {other:?}: {}", result.text()),
    }
}

const WRITE: &str = r#"{"path": "dir/file.txt", "text": "pwned"}"#;

/// Approves everything; while it is asked about a write, and `swap` is on, it first has another
/// call on the same coordinator (a sub-agent, say) replace `dir` with a link out.
struct SwappingApprover {
    coordinator: OnceLock<Coordinator>,
    swap: Option<String>,
}

/// The approver as the coordinator holds it, while the test keeps it too.
struct Shared(Arc<SwappingApprover>);

impl Approver for Shared {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        Box::pin(async move {
            if let Some(swap) = &self.0.swap
                && request.tool.starts_with("conf_write")
            {
                let coordinator = self.0.coordinator.get().expect("set after build");
                let swapped = coordinator.call(ToolCall::new("conf_swap", swap)).await;
                assert_eq!(swapped.text(), "swapped");
            }
            ApprovalResponse::once()
        })
    }
}

fn coordinator_with_approver(fixture: &Fixture, swap: bool) -> Coordinator {
    let approver = Arc::new(SwappingApprover {
        coordinator: OnceLock::new(),
        swap: swap.then(|| fixture.swap_arguments()),
    });
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .build()
        .unwrap();
    approver.coordinator.set(coordinator.clone()).unwrap();
    coordinator
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_waiting_for_approval_is_denied_when_its_directory_became_a_link_out_meanwhile() {
    // With the handles and without: the coordinator checks the path again after the wait.
    for tool in ["conf_write", "conf_write_std"] {
        let fixture = Fixture::new();
        let coordinator = coordinator_with_approver(&fixture, true);
        let result = coordinator.call(ToolCall::new(tool, WRITE)).await;
        assert!(
            denied_by(&result).starts_with("safety"),
            "{tool}: {:?}",
            result.error()
        );
        assert!(result.text().contains("outside"), "{}", result.text());
        fixture.assert_nothing_written();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_approved_with_nothing_changed_meanwhile_lands_inside() {
    let fixture = Fixture::new();
    let coordinator = coordinator_with_approver(&fixture, false);
    let result = coordinator.call(ToolCall::new("conf_write", WRITE)).await;
    assert_eq!(result.text(), "written");
    assert_eq!(
        std::fs::read_to_string(fixture.root().join("dir/file.txt")).unwrap(),
        "pwned"
    );
}

/// A hook for `event` that swaps `dir` for a link out while it runs, answering `answer`.
fn swapping_hook(fixture: &Fixture, event: HookEvent, answer: HookOutput) -> Hooks {
    let (dir, outside) = (fixture.root().join("dir"), fixture.outside());
    let mut hooks = Hooks::new();
    hooks
        .register(
            event,
            "conf_write",
            hook_fn("swap", move |_: &HookInput| {
                swap_for_link(&dir, &outside);
                std::future::ready(answer.clone())
            }),
        )
        .unwrap();
    hooks
}

#[test]
fn a_write_is_denied_when_its_directory_became_a_link_out_while_pre_tool_use_hooks_ran() {
    let fixture = Fixture::new();
    let hooks = swapping_hook(&fixture, HookEvent::PreToolUse, HookOutput::default());
    // Bypass: nobody is asked, so the hooks are the only wait.
    let coordinator = fixture
        .builder()
        .hooks(hooks)
        .mode(Mode::Bypass)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(ToolCall::new("conf_write", WRITE));
    assert!(
        denied_by(&result).starts_with("safety"),
        "{:?}",
        result.error()
    );
    fixture.assert_nothing_written();
}

#[test]
fn a_write_is_denied_when_its_directory_became_a_link_out_while_a_permission_hook_allowed_it() {
    let fixture = Fixture::new();
    let allow = HookOutput::default().permission(Verdict::Allow, "fine by the hook");
    let hooks = swapping_hook(&fixture, HookEvent::PermissionRequest, allow);
    let coordinator = fixture.builder().hooks(hooks).build().unwrap();
    let result = coordinator.call_blocking(ToolCall::new("conf_write", WRITE));
    assert!(
        denied_by(&result).starts_with("safety"),
        "{:?}",
        result.error()
    );
    fixture.assert_nothing_written();
}

#[test]
fn a_link_out_swapped_in_after_every_check_is_refused_by_the_handle_itself() {
    let fixture = Fixture::new();
    let coordinator = fixture.builder().mode(Mode::Bypass).build().unwrap();
    let arguments =
        serde_json::json!({"path": "dir/file.txt", "outside": fixture.outside()}).to_string();
    let result = coordinator.call_blocking(ToolCall::new("conf_swap_then_write", &arguments));
    match result.error() {
        Some(ToolError::Failed { message, .. }) => assert!(
            message.starts_with("`")
                && message.contains("leads out of the workspace through a symlink"),
            "{message}"
        ),
        other => panic!("expected the handle to refuse, got {other:?}"),
    }
    fixture.assert_nothing_written();
}

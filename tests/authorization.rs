//! Authorization through the coordinator: the policy's verdicts as a user meets them, approvals
//! and their scopes, modes, the workspace boundary, budgets and allow-lists. The policy's rules
//! on their own are in `tests/policy.rs`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tool_core::{
    Args, BoxFuture, Coordinator, ToolCall, ToolError, ToolResult, Toolset, Workspace,
    WorkspacePath,
    approval::{ApprovalRequest, ApprovalResponse, ApprovalScope, Approver, AutoApprove, DenyAll},
    budget::{Budget, BudgetConfig},
    coordinator::CoordinatorBuilder,
    events::CallEvent,
    policy::Mode,
    settings::Settings,
    tool,
};

/// Read a file.
#[tool(read_only, name = "auth_read")]
fn read(ws: &Workspace, path: WorkspacePath) -> Result<String, ToolError> {
    Ok(std::fs::read_to_string(path.in_workspace(ws))?)
}

/// Search a file.
#[tool(read_only, name = "auth_grep")]
fn grep(#[arg(path)] path: String, pattern: String) -> String {
    format!("searched {path} for {pattern}")
}

/// Write a file.
#[tool(name = "auth_write")]
fn write(ws: &Workspace, path: WorkspacePath, text: String) -> Result<String, ToolError> {
    std::fs::write(path.in_workspace(ws), text)?;
    Ok("written".into())
}

fn is_read_only(command: &str) -> bool {
    command == "git status" || command.starts_with("git log")
}

/// Run a command (pretend).
#[tool(read_only_if = is_read_only, name = "auth_shell", aliases("Bash"))]
fn shell(#[arg(command)] command: String) -> String {
    format!("ran {command}")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ReadArgs {
    /// The file.
    path: WorkspacePath,
}

/// Read a file, its arguments as one struct.
#[tool(read_only, name = "auth_read_args")]
fn read_args(ws: &Workspace, Args(args): Args<ReadArgs>) -> Result<String, ToolError> {
    Ok(std::fs::read_to_string(args.path.in_workspace(ws))?)
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Edit {
    /// The file.
    path: WorkspacePath,
    /// Its new text.
    text: String,
}

/// Write several files.
///
/// # Arguments
/// * `edits` - The files and their texts.
#[tool(name = "auth_write_many")]
fn write_many(edits: Vec<Edit>) -> Result<String, ToolError> {
    for edit in &edits {
        std::fs::write(edit.path.as_path(), &edit.text)?;
    }
    Ok(format!("wrote {} files", edits.len()))
}

/// Make a symlink `out` in the workspace pointing at `target`.
#[tool(name = "auth_make_link")]
fn make_link(ws: &Workspace, target: String) -> Result<String, ToolError> {
    #[cfg(unix)]
    std::os::unix::fs::symlink(target, ws.root().join("out"))?;
    Ok("linked".into())
}

/// Present a plan to the user.
#[tool(self_approving, name = "auth_present_plan")]
fn present_plan(plan: String) -> String {
    format!("presented: {plan}")
}

/// Answers every request the same way and counts them.
struct Counting {
    asked: AtomicUsize,
    requests: Mutex<Vec<ApprovalRequest>>,
    answer: ApprovalResponse,
}

impl Counting {
    fn new(answer: ApprovalResponse) -> Arc<Self> {
        Arc::new(Counting {
            asked: AtomicUsize::new(0),
            requests: Mutex::new(Vec::new()),
            answer,
        })
    }

    fn asked(&self) -> usize {
        self.asked.load(Ordering::SeqCst)
    }
}

struct Shared(Arc<Counting>);

impl Approver for Shared {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        self.0.asked.fetch_add(1, Ordering::SeqCst);
        self.0.requests.lock().unwrap().push(request.clone());
        let answer = self.0.answer.clone();
        Box::pin(async move { answer })
    }
}

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    /// A workspace named `myproj` with `notes.txt`, `secrets/key.pem` and `src/`.
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("myproj");
        std::fs::create_dir_all(root.join("secrets")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("notes.txt"), "hello notes").unwrap();
        std::fs::write(root.join("secrets/key.pem"), "KEY").unwrap();
        std::fs::write(dir.path().join("outside.txt"), "outside").unwrap();
        Fixture { dir }
    }

    fn root(&self) -> std::path::PathBuf {
        self.dir.path().join("myproj")
    }

    fn builder(&self) -> CoordinatorBuilder {
        Coordinator::builder()
            .toolset(
                Toolset::named([
                    "auth_read",
                    "auth_grep",
                    "auth_write",
                    "auth_shell",
                    "auth_present_plan",
                    "auth_read_args",
                    "auth_write_many",
                    "auth_make_link",
                ])
                .unwrap(),
            )
            .workspace(Workspace::new(self.root()).unwrap())
    }
}

/// The arguments of the write most tests try: `a.txt`, inside the workspace.
const WRITE_A: &str = r#"{"path": "a.txt", "text": "x"}"#;

fn call(name: &str, arguments: &str) -> ToolCall {
    ToolCall::new(name, arguments).with_call_id("call_1")
}

fn denied_by(result: &ToolResult) -> String {
    match result.error() {
        Some(ToolError::Denied { decided_by, .. }) => decided_by.clone(),
        other => panic!("expected a denial, got {other:?}: {}", result.text()),
    }
}

#[test]
fn read_only_calls_run_without_asking() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::once());
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .build()
        .unwrap();
    let result = coordinator.call_blocking(call("auth_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(result.text(), "hello notes");
    assert_eq!(approver.asked(), 0);
}

#[test]
fn a_mutating_call_asks_and_runs_once_approved() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::once());
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .build()
        .unwrap();
    let result = coordinator.call_blocking(call(
        "auth_write",
        r#"{"path": "src/new.rs", "text": "fn main() {}"}"#,
    ));
    assert_eq!(result.text(), "written");
    assert_eq!(approver.asked(), 1);
    let request = approver.requests.lock().unwrap()[0].clone();
    assert_eq!(request.tool, "auth_write");
    assert!(
        request.preview.contains("src/new.rs"),
        "{}",
        request.preview
    );
    assert_eq!(
        std::fs::read_to_string(fixture.root().join("src/new.rs")).unwrap(),
        "fn main() {}"
    );
}

#[test]
fn without_an_approver_a_call_that_needs_approval_is_denied_and_says_why() {
    let fixture = Fixture::new();
    let coordinator = fixture.builder().build().unwrap();
    let result = coordinator.call_blocking(call("auth_write", WRITE_A));
    assert!(result.is_error());
    assert!(
        result.text().contains("needs the user's approval"),
        "{}",
        result.text()
    );
    assert!(!fixture.root().join("a.txt").exists());
}

#[test]
fn a_rejection_tells_the_model_the_tool_did_not_run_and_passes_on_the_guidance() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::reject("write to docs/ instead"));
    let coordinator = fixture
        .builder()
        .approver(Shared(approver))
        .build()
        .unwrap();
    let result = coordinator.call_blocking(call("auth_write", WRITE_A));
    let text = result.text();
    assert!(text.contains("did not run"), "{text}");
    assert!(text.contains("do not assume it succeeded"), "{text}");
    assert!(text.contains("write to docs/ instead"), "{text}");
    assert_eq!(result.error().unwrap().kind(), "rejected");
    assert!(!fixture.root().join("a.txt").exists());
}

#[test]
fn deny_all_runs_nothing_that_needs_approval() {
    let fixture = Fixture::new();
    let coordinator = fixture.builder().approver(DenyAll).build().unwrap();
    let result = coordinator.call_blocking(call("auth_write", WRITE_A));
    assert_eq!(result.error().unwrap().kind(), "rejected");
    let result = coordinator.call_blocking(call("auth_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(result.text(), "hello notes");
}

#[test]
fn a_session_approval_stops_asking_about_that_tool() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::Approve(ApprovalScope::Session));
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .build()
        .unwrap();
    for file in ["a.txt", "b.txt", "c.txt"] {
        let arguments = format!(r#"{{"path": "{file}", "text": "x"}}"#);
        assert_eq!(
            coordinator
                .call_blocking(call("auth_write", &arguments))
                .text(),
            "written"
        );
    }
    assert_eq!(approver.asked(), 1);
    // Another tool still asks.
    coordinator.call_blocking(call("auth_shell", r#"{"command": "make"}"#));
    assert_eq!(approver.asked(), 2);
}

#[test]
fn a_pattern_approval_covers_matching_calls_only() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::Approve(ApprovalScope::Pattern {
        rule: "auth_shell(make:*)".into(),
        always: false,
    }));
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .build()
        .unwrap();
    coordinator.call_blocking(call("auth_shell", r#"{"command": "make build"}"#));
    coordinator.call_blocking(call("auth_shell", r#"{"command": "make test"}"#));
    assert_eq!(approver.asked(), 1);
    coordinator.call_blocking(call("auth_shell", r#"{"command": "cargo build"}"#));
    assert_eq!(approver.asked(), 2);
}

/// Approves with the pattern the request suggests, as a UI's "allow calls like this" button.
struct AcceptSuggestion(Arc<Counting>);

impl Approver for AcceptSuggestion {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        self.0.asked.fetch_add(1, Ordering::SeqCst);
        self.0.requests.lock().unwrap().push(request.clone());
        let rule = request.suggested_rule.clone().expect("a suggestion");
        Box::pin(async move {
            ApprovalResponse::Approve(ApprovalScope::Pattern {
                rule,
                always: false,
            })
        })
    }
}

#[test]
fn the_suggested_pattern_for_a_file_covers_that_file_and_no_other() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::once());
    let coordinator = fixture
        .builder()
        .approver(AcceptSuggestion(Arc::clone(&approver)))
        .build()
        .unwrap();
    let write = call("auth_write", r#"{"path": "src/[id].tsx", "text": "x"}"#);
    coordinator.call_blocking(write.clone());
    assert_eq!(
        approver.requests.lock().unwrap()[0]
            .suggested_rule
            .as_deref(),
        Some("auth_write(./src/[[]id[]].tsx)")
    );
    coordinator.call_blocking(write);
    assert_eq!(approver.asked(), 1, "the same file again is covered");
    coordinator.call_blocking(call("auth_write", r#"{"path": "src/i.tsx", "text": "x"}"#));
    assert_eq!(approver.asked(), 2, "another file is not");
}

#[test]
fn the_suggested_pattern_for_a_command_is_a_prefix_only_for_a_known_subcommand() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::once());
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .build()
        .unwrap();
    let cases = [
        (
            "cargo test -q",
            Some("auth_shell(cargo test *)"),
            "a known subcommand: its prefix, in the documented space-star form",
        ),
        (
            "ls *.rs",
            None,
            "a `*` in the command would be read as a wildcard: no suggestion",
        ),
        ("FOO=1 make", None, "an assignment in front: no narrow rule"),
        (
            "PATH=.:$PATH; make",
            None,
            "a variable set in the shell: a rule for `make` would not be this command",
        ),
        (
            "ls -la src",
            Some("auth_shell(ls -la src)"),
            "no known subcommand: the exact command",
        ),
        (
            "python -c 'import os'",
            None,
            "code given to an interpreter runs what only the run knows: no rule can cover it",
        ),
        (
            "make && rm -rf build",
            None,
            "a compound command: no suggestion",
        ),
    ];
    for (command, suggestion, why) in cases {
        let arguments = serde_json::json!({ "command": command }).to_string();
        coordinator.call_blocking(call("auth_shell", &arguments));
        let request = approver.requests.lock().unwrap().pop().expect("asked");
        assert_eq!(
            request.suggested_rule.as_deref(),
            suggestion,
            "{command}: {why}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_does_not_outrank_plan_mode_switched_on_while_asking() {
    let fixture = Fixture::new();
    let (approver, mut requests) = tool_core::approval::ChannelApprover::new(4);
    let coordinator = fixture.builder().approver(approver).build().unwrap();
    let user = {
        let coordinator = coordinator.clone();
        tokio::spawn(async move {
            let pending = requests.recv().await.unwrap();
            coordinator.set_mode(Mode::Plan);
            pending.respond(ApprovalResponse::once());
        })
    };
    let result = coordinator.call(call("auth_write", WRITE_A)).await;
    user.await.unwrap();
    assert!(result.text().contains("plan mode"), "{}", result.text());
    assert!(!fixture.root().join("a.txt").exists());
}

#[test]
fn a_channel_approver_nobody_listens_to_rejects_and_says_nobody_answered() {
    let fixture = Fixture::new();
    let (approver, requests) = tool_core::approval::ChannelApprover::new(1);
    drop(requests);
    let coordinator = fixture.builder().approver(approver).build().unwrap();
    let result = coordinator.call_blocking(call("auth_write", WRITE_A));
    assert_eq!(result.error().unwrap().kind(), "rejected");
    assert!(
        result.text().contains("nobody answered"),
        "{}",
        result.text()
    );
    assert!(!fixture.root().join("a.txt").exists());
}

/// Found by an exploratory run over MCP: a client that failed to ask was reported to the model
/// as "The user said: the MCP client could not ask the user (...)".
#[test]
fn an_approver_that_could_not_ask_denies_without_putting_words_in_the_users_mouth() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::not_asked(
        "the MCP client could not ask the user (it hung up)",
    ));
    let coordinator = fixture
        .builder()
        .approver(Shared(approver))
        .build()
        .unwrap();
    let result = coordinator.call_blocking(call("auth_write", WRITE_A));
    let text = result.text();
    assert_eq!(result.error().unwrap().kind(), "denied", "{text}");
    assert!(
        text.contains("could not ask the user (it hung up)"),
        "{text}"
    );
    assert!(
        !text.contains("The user said") && !text.contains("user rejected"),
        "{text}"
    );
    assert!(!fixture.root().join("a.txt").exists());
}

#[test]
fn a_grant_made_by_the_program_applies_to_later_calls() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::reject("never asked"));
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .build()
        .unwrap();
    coordinator.grant("auth_shell(make:*)").unwrap();
    let result = coordinator.call_blocking(call("auth_shell", r#"{"command": "make test"}"#));
    assert_eq!(result.text(), "ran make test");
    assert_eq!(approver.asked(), 0);
    assert!(
        coordinator.grant("auth_shell(make").is_err(),
        "a bad rule is refused"
    );
}

#[test]
fn an_always_approval_survives_a_new_coordinator() {
    let fixture = Fixture::new();
    let grants = fixture.dir.path().join("state/grants.json");
    let approver = Counting::new(ApprovalResponse::Approve(ApprovalScope::Always));
    let first = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .grants_file(&grants)
        .build()
        .unwrap();
    first.call_blocking(call("auth_write", WRITE_A));
    assert_eq!(approver.asked(), 1);
    drop(first);

    let later = Counting::new(ApprovalResponse::reject("should not be asked"));
    let second = fixture
        .builder()
        .approver(Shared(Arc::clone(&later)))
        .grants_file(&grants)
        .build()
        .unwrap();
    let result = second.call_blocking(call("auth_write", r#"{"path": "b.txt", "text": "x"}"#));
    assert_eq!(result.text(), "written");
    assert_eq!(later.asked(), 0);
}

#[test]
fn plan_mode_denies_changes_and_says_plan_mode_is_on() {
    let fixture = Fixture::new();
    let coordinator = fixture
        .builder()
        .approver(AutoApprove)
        .mode(Mode::Plan)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(call("auth_write", WRITE_A));
    assert!(result.text().contains("plan mode"), "{}", result.text());
    assert!(!fixture.root().join("a.txt").exists());
    // Reading and presenting the plan still work, and the plan tool never asks.
    let reads = coordinator.call_blocking(call("auth_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(reads.text(), "hello notes");
    let approver = Counting::new(ApprovalResponse::reject("never asked"));
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .mode(Mode::Plan)
        .build()
        .unwrap();
    let plan = coordinator.call_blocking(call("auth_present_plan", r#"{"plan": "step 1"}"#));
    assert_eq!(plan.text(), "presented: step 1");
    assert_eq!(approver.asked(), 0);
}

#[test]
fn the_mode_can_change_during_the_session() {
    let fixture = Fixture::new();
    let coordinator = fixture
        .builder()
        .approver(AutoApprove)
        .mode(Mode::Plan)
        .build()
        .unwrap();
    let write = call("auth_write", WRITE_A);
    assert!(coordinator.call_blocking(write.clone()).is_error());
    coordinator.set_mode(Mode::Default);
    assert_eq!(coordinator.mode(), Mode::Default);
    assert_eq!(coordinator.call_blocking(write).text(), "written");
}

#[test]
fn bypass_mode_runs_changes_without_asking() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::reject("never asked"));
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .mode(Mode::Bypass)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(call("auth_write", WRITE_A));
    assert_eq!(result.text(), "written");
    assert_eq!(approver.asked(), 0);
}

fn assert_outside_denied(coordinator: &Coordinator, arguments: &str) {
    let result = coordinator.call_blocking(call("auth_write", arguments));
    assert!(
        denied_by(&result).starts_with("safety"),
        "{:?}",
        result.error()
    );
}

#[test]
fn a_path_outside_the_workspace_is_denied_by_the_safety_layer_even_in_bypass_mode() {
    let fixture = Fixture::new();
    let outside = fixture.dir.path().join("outside.txt");
    let mut cases = vec![
        (
            "auth_write",
            r#"{"path": "../outside.txt", "text": "pwned"}"#.to_owned(),
            "escaping through `..`",
        ),
        (
            "auth_write",
            r#"{"path": "src/../../outside.txt", "text": "pwned"}"#.to_owned(),
            "escaping through `..` after a directory",
        ),
        (
            "auth_write",
            serde_json::json!({"path": outside, "text": "pwned"}).to_string(),
            "an absolute path outside",
        ),
        (
            "auth_read",
            r#"{"path": "/etc/passwd"}"#.to_owned(),
            "an absolute path outside, read",
        ),
        (
            "auth_read_args",
            r#"{"path": "../outside.txt"}"#.to_owned(),
            "a path inside an `Args` struct is confined like any other",
        ),
        (
            "auth_grep",
            // `$CARGO_MANIFEST_DIR` is set by cargo, and is outside the temporary workspace.
            r#"{"path": "$CARGO_MANIFEST_DIR/Cargo.toml", "pattern": "x"}"#.to_owned(),
            "a raw path argument is checked where the workspace would resolve it too",
        ),
    ];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(fixture.dir.path(), fixture.root().join("escape")).unwrap();
        cases.extend([
            (
                "auth_write",
                r#"{"path": "escape/outside.txt", "text": "pwned"}"#.to_owned(),
                "a symlink pointing outside, to an existing file",
            ),
            (
                "auth_write",
                r#"{"path": "escape/new.txt", "text": "pwned"}"#.to_owned(),
                "a symlink pointing outside, to a new file",
            ),
            (
                "auth_read",
                r#"{"path": "escape/outside.txt"}"#.to_owned(),
                "a symlink pointing outside, read",
            ),
        ]);
    }
    let coordinator = fixture.builder().mode(Mode::Bypass).build().unwrap();
    for (tool, arguments, why) in cases {
        let result = coordinator.call_blocking(call(tool, &arguments));
        assert!(
            denied_by(&result).starts_with("safety"),
            "{tool} {arguments}: {why}: {:?}",
            result.error()
        );
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside");
    assert!(!fixture.dir.path().join("new.txt").exists());
    let inside = coordinator.call_blocking(call("auth_read_args", r#"{"path": "notes.txt"}"#));
    assert_eq!(inside.text(), "hello notes");
}

#[test]
fn a_write_to_tilde_or_a_variable_is_expanded_and_denied_not_created_in_the_workspace() {
    let fixture = Fixture::new();
    let coordinator = fixture.builder().mode(Mode::Bypass).build().unwrap();
    let cases = [
        (
            "auth_write",
            r#"{"path": "~/x.txt", "text": "pwned"}"#,
            "`~/`",
        ),
        (
            "auth_write",
            r#"{"path": "~/new-dir/x.txt", "text": "pwned"}"#,
            "`~/`, a new directory",
        ),
        (
            "auth_write",
            r#"{"path": "$HOME/x.txt", "text": "pwned"}"#,
            "`$HOME`",
        ),
        (
            "auth_write",
            r#"{"path": "$HOME/new-dir/x.txt", "text": "pwned"}"#,
            "`$HOME`, a new directory",
        ),
        (
            "auth_write",
            r#"{"path": "${HOME}/new-dir/x.txt", "text": "pwned"}"#,
            "`${HOME}`",
        ),
        (
            "auth_write_many",
            r#"{"edits": [{"path": "$HOME/new-dir/x.txt", "text": "pwned"}]}"#,
            "nested",
        ),
        (
            "auth_grep",
            r#"{"path": "~/x.txt", "pattern": "x"}"#,
            "a raw path argument",
        ),
    ];
    for (tool, arguments, why) in cases {
        let result = coordinator.call_blocking(call(tool, arguments));
        assert!(
            denied_by(&result).starts_with("safety"),
            "{why}: {:?}",
            result.error()
        );
    }
    for literal in ["~", "$HOME", "${HOME}"] {
        assert!(
            !fixture.root().join(literal).exists(),
            "{literal} was created"
        );
    }
}

#[test]
fn a_workspace_path_with_a_variable_reaches_the_tool_where_the_policy_checked_it() {
    // The workspace is the crate's own directory, so `$CARGO_MANIFEST_DIR/Cargo.toml` is in it.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["auth_read"]).unwrap())
        .workspace(Workspace::new(&manifest).unwrap())
        .build()
        .unwrap();
    let result = coordinator.call_blocking(call(
        "auth_read",
        r#"{"path": "$CARGO_MANIFEST_DIR/Cargo.toml"}"#,
    ));
    let expected = std::fs::read_to_string(std::path::Path::new(&manifest).join("Cargo.toml"));
    assert_eq!(result.text(), expected.unwrap());
}

#[cfg(unix)]
#[test]
fn a_denial_names_the_real_cause_not_always_outside_the_workspace() {
    let fixture = Fixture::new();
    std::os::unix::fs::symlink("loop-b", fixture.root().join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", fixture.root().join("loop-b")).unwrap();
    let coordinator = fixture.builder().mode(Mode::Bypass).build().unwrap();
    let long_name = "n".repeat(5000);
    let cases = [
        ("loop-a/x.txt".to_owned(), "symlink loop"),
        (long_name.clone(), "a file name of 5000 bytes"),
        (r"a\u0000b.txt".to_owned(), "NUL byte"),
        ("../outside.txt".to_owned(), "outside every workspace root"),
    ];
    for (path, cause) in cases {
        let arguments = format!(r#"{{"path": "{path}", "text": "x"}}"#);
        let result = coordinator.call_blocking(call("auth_write", &arguments));
        assert!(denied_by(&result).starts_with("safety"), "{cause}");
        let text = result.text();
        assert!(text.contains(cause), "`{cause}` missing from: {text}");
        assert!(text.len() < 1000, "{cause}: the path quoted whole: {text}");
    }
}

#[test]
fn paths_nested_in_a_list_are_confined_and_shown_in_the_approval() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::once());
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .build()
        .unwrap();
    let escape = r#"{"edits": [{"path": "a.txt", "text": "x"}, {"path": "../outside.txt", "text": "pwned"}]}"#;
    let result = coordinator.call_blocking(call("auth_write_many", escape));
    assert!(
        denied_by(&result).starts_with("safety"),
        "{:?}",
        result.error()
    );
    assert_eq!(
        std::fs::read_to_string(fixture.dir.path().join("outside.txt")).unwrap(),
        "outside"
    );
    assert!(
        !fixture.root().join("a.txt").exists(),
        "nothing of a denied call runs"
    );

    let fine = r#"{"edits": [{"path": "a.txt", "text": "x"}, {"path": "src/b.txt", "text": "y"}]}"#;
    assert_eq!(
        coordinator
            .call_blocking(call("auth_write_many", fine))
            .text(),
        "wrote 2 files"
    );
    let preview = approver.requests.lock().unwrap()[0].preview.clone();
    assert!(
        preview.contains("a.txt") && preview.contains("b.txt"),
        "{preview}"
    );
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_checks_each_path_when_its_call_runs_not_when_the_batch_arrives() {
    let fixture = Fixture::new();
    let coordinator = fixture.builder().mode(Mode::Bypass).build().unwrap();
    let outside = fixture.dir.path().to_string_lossy().into_owned();
    let results = coordinator
        .call_batch(vec![
            call(
                "auth_make_link",
                &serde_json::json!({"target": outside}).to_string(),
            ),
            call("auth_read", r#"{"path": "out/outside.txt"}"#),
        ])
        .await;
    assert_eq!(results[0].text(), "linked");
    assert!(
        denied_by(&results[1]).starts_with("safety"),
        "{:?}",
        results[1].error()
    );
}

#[test]
fn an_allow_rule_cannot_open_the_workspace_boundary() {
    let fixture = Fixture::new();
    let settings = Settings::from_json(r#"{"permissions": {"allow": ["auth_write"]}}"#).unwrap();
    let coordinator = fixture.builder().settings(settings).build().unwrap();
    assert_outside_denied(
        &coordinator,
        r#"{"path": "../outside.txt", "text": "pwned"}"#,
    );
    let inside =
        coordinator.call_blocking(call("auth_write", r#"{"path": "in.txt", "text": "x"}"#));
    assert_eq!(inside.text(), "written");
}

#[test]
fn per_call_classification_lets_read_only_commands_run_without_asking() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::once());
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .build()
        .unwrap();
    let status = coordinator.call_blocking(call("auth_shell", r#"{"command": "git status"}"#));
    assert_eq!(status.text(), "ran git status");
    assert_eq!(approver.asked(), 0);
    coordinator.call_blocking(call("auth_shell", r#"{"command": "rm -rf build"}"#));
    assert_eq!(approver.asked(), 1);
}

#[test]
fn per_call_classification_decides_plan_mode_too() {
    let fixture = Fixture::new();
    let coordinator = fixture.builder().mode(Mode::Plan).build().unwrap();
    let log = coordinator.call_blocking(call("auth_shell", r#"{"command": "git log -3"}"#));
    assert_eq!(log.text(), "ran git log -3");
    let push = coordinator.call_blocking(call("auth_shell", r#"{"command": "git push"}"#));
    assert!(push.text().contains("plan mode"), "{}", push.text());
}

#[test]
fn workspace_path_arguments_arrive_resolved() {
    let fixture = Fixture::new();
    let coordinator = fixture.builder().build().unwrap();
    // The model prefixed the workspace's own name.
    let result = coordinator.call_blocking(call("auth_read", r#"{"path": "myproj/notes.txt"}"#));
    assert_eq!(result.text(), "hello notes");
}

#[test]
fn a_read_rule_from_settings_denies_the_same_path_for_every_reading_tool() {
    let fixture = Fixture::new();
    let settings =
        Settings::from_json(r#"{"permissions": {"deny": ["Read(./secrets/**)"]}}"#).unwrap();
    let coordinator = fixture.builder().settings(settings).build().unwrap();
    for (tool, arguments) in [
        ("auth_read", r#"{"path": "secrets/key.pem"}"#),
        (
            "auth_grep",
            r#"{"path": "secrets/key.pem", "pattern": "KEY"}"#,
        ),
    ] {
        let result = coordinator.call_blocking(call(tool, arguments));
        assert!(
            denied_by(&result).contains("Read(./secrets/**)"),
            "{tool}: {:?}",
            result.error()
        );
    }
    let fine = coordinator.call_blocking(call("auth_read", r#"{"path": "notes.txt"}"#));
    assert_eq!(fine.text(), "hello notes");
}

#[test]
fn rules_for_an_alias_apply_to_the_tool() {
    let fixture = Fixture::new();
    let settings =
        Settings::from_json(r#"{"permissions": {"allow": ["Bash(cargo test:*)"]}}"#).unwrap();
    let coordinator = fixture.builder().settings(settings).build().unwrap();
    let result = coordinator.call_blocking(call("auth_shell", r#"{"command": "cargo test -q"}"#));
    assert_eq!(result.text(), "ran cargo test -q");
    let result = coordinator.call_blocking(call(
        "auth_shell",
        r#"{"command": "cargo test && rm -rf /"}"#,
    ));
    assert!(
        result.is_error(),
        "a compound command needs every part allowed"
    );
}

#[test]
fn additional_directories_from_the_settings_widen_the_workspace() {
    let fixture = Fixture::new();
    let docs = fixture.dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("guide.md"), "the guide").unwrap();
    let read_guide = serde_json::json!({ "path": docs.join("guide.md") }).to_string();
    let narrow = fixture.builder().build().unwrap();
    let outside = narrow.call_blocking(call("auth_read", &read_guide));
    assert!(
        denied_by(&outside).starts_with("safety"),
        "{:?}",
        outside.error()
    );
    let settings = serde_json::json!({ "permissions": { "additionalDirectories": [docs] } });
    let wide = fixture
        .builder()
        .settings(Settings::from_json(&settings.to_string()).unwrap())
        .build()
        .unwrap();
    assert_eq!(
        wide.call_blocking(call("auth_read", &read_guide)).text(),
        "the guide"
    );
}

#[test]
fn relative_additional_directories_of_text_settings_resolve_against_the_workspace_root() {
    // The workspace is <tmp>/myproj; `../docs` is <tmp>/docs whatever the process's directory.
    let fixture = Fixture::new();
    let docs = fixture.dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("guide.md"), "the guide").unwrap();
    let settings =
        Settings::from_json(r#"{"permissions": {"additionalDirectories": ["../docs"]}}"#).unwrap();
    let coordinator = fixture.builder().settings(settings).build().unwrap();
    let read_guide = serde_json::json!({ "path": docs.join("guide.md") }).to_string();
    assert_eq!(
        coordinator
            .call_blocking(call("auth_read", &read_guide))
            .text(),
        "the guide"
    );
}

#[test]
fn a_missing_additional_directory_fails_the_build_naming_the_entry() {
    let fixture = Fixture::new();
    let settings =
        Settings::from_json(r#"{"permissions": {"additionalDirectories": ["../no-such-dir"]}}"#)
            .unwrap();
    let error = fixture
        .builder()
        .settings(settings)
        .build()
        .expect_err("no such directory");
    let message = error.to_string();
    for part in [
        "settings: `permissions.additionalDirectories[0]`",
        "\"../no-such-dir\"",
        "it does not exist",
    ] {
        assert!(message.contains(part), "`{part}` missing from: {message}");
    }
}

#[test]
fn the_default_mode_comes_from_the_settings() {
    let fixture = Fixture::new();
    let settings = Settings::from_json(r#"{"permissions": {"defaultMode": "plan"}}"#).unwrap();
    let coordinator = fixture.builder().settings(settings).build().unwrap();
    assert_eq!(coordinator.mode(), Mode::Plan);
}

#[test]
fn a_template_allow_list_runs_its_tools_without_asking() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::reject("never asked"));
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .allow_list(["auth_write"])
        .build()
        .unwrap();
    let result = coordinator.call_blocking(call("auth_write", WRITE_A));
    assert_eq!(result.text(), "written");
    assert_eq!(approver.asked(), 0);
}

#[test]
fn an_exhausted_budget_denies_with_a_message_to_wrap_up_and_asks_nobody() {
    let fixture = Fixture::new();
    let approver = Counting::new(ApprovalResponse::once());
    let budget = Arc::new(Budget::new(BudgetConfig {
        exploration: 2,
        action: 1,
        build_multiplier: 1.0,
        ..BudgetConfig::default()
    }));
    let coordinator = fixture
        .builder()
        .approver(Shared(Arc::clone(&approver)))
        .budget(Arc::clone(&budget))
        .build()
        .unwrap();
    let read = call("auth_read", r#"{"path": "notes.txt"}"#);
    assert!(!coordinator.call_blocking(read.clone()).is_error());
    assert!(!coordinator.call_blocking(read.clone()).is_error());
    let third = coordinator.call_blocking(read);
    assert!(
        third.text().contains("exploration budget is used up"),
        "{}",
        third.text()
    );
    assert!(third.text().contains("wrap up"));
    // Actions draw on their own budget.
    let write = call("auth_write", WRITE_A);
    assert_eq!(coordinator.call_blocking(write.clone()).text(), "written");
    assert_eq!(approver.asked(), 1);
    let again = coordinator.call_blocking(write);
    assert!(
        again.text().contains("action budget is used up"),
        "{}",
        again.text()
    );
    assert_eq!(
        approver.asked(),
        1,
        "nobody is asked about a call that cannot run"
    );
}

#[test]
fn events_follow_a_call_from_request_to_result() {
    let fixture = Fixture::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let coordinator = fixture
        .builder()
        .approver(AutoApprove)
        .events(move |event: CallEvent| {
            let step = match &event {
                CallEvent::Requested { .. } => "requested".to_owned(),
                CallEvent::Decided { decision, .. } => format!("decided {}", decision.verdict),
                CallEvent::AwaitingApproval { .. } => "awaiting approval".to_owned(),
                CallEvent::Started { .. } => "started".to_owned(),
                CallEvent::Finished { is_error, .. } => format!("finished error={is_error}"),
                _ => "other".to_owned(),
            };
            sink.lock()
                .unwrap()
                .push((event.call_id().to_owned(), step));
        })
        .build()
        .unwrap();
    coordinator.call_blocking(call("auth_write", WRITE_A));
    let steps: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|(_, s)| s.clone())
        .collect();
    assert_eq!(
        steps,
        [
            "requested",
            "decided ask",
            "awaiting approval",
            "started",
            "finished error=false"
        ]
    );
    assert!(seen.lock().unwrap().iter().all(|(id, _)| id == "call_1"));
}

#[test]
fn the_grants_file_is_protected_from_the_tools_themselves() {
    let fixture = Fixture::new();
    let grants = fixture.root().join(".toolkit/grants.json");
    let coordinator = fixture
        .builder()
        .grants_file(&grants)
        .mode(Mode::Bypass)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(call(
        "auth_write",
        r#"{"path": ".toolkit/grants.json", "text": "{\"allow\": [\"auth_shell\"]}"}"#,
    ));
    assert!(
        denied_by(&result).starts_with("safety"),
        "{:?}",
        result.error()
    );
    assert!(!grants.exists());
}

#[test]
fn the_settings_files_are_protected_from_the_tools_themselves() {
    let fixture = Fixture::new();
    let settings_path = fixture.root().join(".claude/settings.local.json");
    std::fs::create_dir_all(settings_path.parent().unwrap()).unwrap();
    std::fs::write(
        &settings_path,
        r#"{"permissions": {"defaultMode": "acceptEdits"}}"#,
    )
    .unwrap();
    let coordinator = fixture
        .builder()
        .settings(Settings::load(&settings_path).unwrap())
        .build()
        .unwrap();
    assert_eq!(coordinator.mode(), Mode::AcceptEdits);
    let result = coordinator.call_blocking(call(
        "auth_write",
        r#"{"path": ".claude/settings.local.json", "text": "{\"permissions\": {\"defaultMode\": \"bypassPermissions\"}}"}"#,
    ));
    assert!(
        denied_by(&result).starts_with("safety"),
        "{:?}",
        result.error()
    );
    // Other edits are still allowed in accept-edits mode.
    let other =
        coordinator.call_blocking(call("auth_write", r#"{"path": "src/a.rs", "text": "x"}"#));
    assert_eq!(other.text(), "written");
}

#[test]
fn a_grants_file_that_is_not_json_fails_the_build_with_its_path() {
    let fixture = Fixture::new();
    let grants = fixture.dir.path().join("grants.json");
    std::fs::write(&grants, "not json").unwrap();
    let error = fixture.builder().grants_file(&grants).build().unwrap_err();
    assert!(
        error.to_string().contains(&*grants.to_string_lossy()),
        "{error}"
    );
}

/// A key of the grants file that is not `allow` would be dropped by the next "always"
/// answer's write: it is refused, naming the key meant, and the file is left as it was.
#[test]
fn a_grants_file_with_a_misspelt_key_is_refused_and_left_as_it_was() {
    let fixture = Fixture::new();
    let path = fixture.dir.path().join("grants.json");
    let text = r#"{"alow": ["run_shell(git push:*)"], "allow": []}"#;
    std::fs::write(&path, text).unwrap();
    let error = fixture.builder().grants_file(&path).build().unwrap_err();
    assert!(
        error.to_string().contains(&format!(
            "grants file `{}`: `alow` is not a key of a grants file (its only key is `allow`); did you mean `allow`?",
            path.display()
        )),
        "{error}"
    );
    let grants = tool_core::approval::GrantsFile::new(&path);
    assert!(grants.add("read_file").is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

/// A grants file of the wrong shape names the value by its JSON path.
#[test]
fn a_grants_file_of_the_wrong_shape_names_the_value() {
    let fixture = Fixture::new();
    let path = fixture.dir.path().join("grants.json");
    for (text, says) in [
        (
            r#"{"allow": ["read_file", 7]}"#,
            "`allow[1]` should be a string, found a number",
        ),
        (
            r#"{"allow": "read_file"}"#,
            "`allow` should be an array, found the string \"read_file\"",
        ),
        (
            r#"["read_file"]"#,
            "`the file` should be an object, found an array",
        ),
    ] {
        std::fs::write(&path, text).unwrap();
        let error = tool_core::approval::GrantsFile::new(&path)
            .load()
            .unwrap_err();
        assert!(error.to_string().contains(says), "{text}: {error}");
    }
}

#[test]
fn a_bad_rule_in_the_settings_fails_the_build_naming_the_rule() {
    let fixture = Fixture::new();
    // Loaded from JSON such a rule is refused at once (tests/settings.rs); settings made in
    // code reach the build with it.
    let mut settings = Settings::default();
    settings.permissions.allow.push("Bash(npm test".to_owned());
    let error = fixture.builder().settings(settings).build().unwrap_err();
    assert!(error.to_string().contains("Bash(npm test"), "{error}");
}

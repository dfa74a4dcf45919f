//! Toolsets as sets, the workspace's roots, the MCP annotations' wire names, and calling a tool
//! directly with a detached context (as a unit test of one tool would); and tools written as
//! methods (`methods/`).

mod methods;

use tool_core::{
    Coordinator, Registry, ToolCall, Toolset, Workspace,
    context::{CallInfo, CancellationToken, ToolContext},
    tool,
    workspace::WorkspaceError,
};

/// First.
#[tool(read_only, name = "set_one", tags("set"))]
fn one() -> &'static str {
    "one"
}

/// Second.
#[tool(name = "set_two", aliases("Two"), tags("set"))]
fn two(token: &CancellationToken) -> String {
    format!("cancelled: {}", token.is_cancelled())
}

#[test]
fn a_union_keeps_each_tool_once() {
    let set = Toolset::named(["set_one"])
        .unwrap()
        .union(Toolset::tagged("set"))
        .unwrap();
    let names: Vec<_> = set
        .iter()
        .map(|tool| tool.spec().name.to_string())
        .collect();
    assert_eq!(names, ["set_one", "set_two"]);
}

#[test]
fn removing_by_alias_removes_the_tool_and_its_names() {
    let mut set = Toolset::tagged("set");
    let removed = set.remove("Two").expect("the alias finds the tool");
    assert_eq!(removed.spec().name, "set_two");
    assert!(!set.contains("set_two") && !set.contains("Two"));
    assert_eq!(set.len(), 1);
}

#[test]
fn an_unknown_name_in_a_selection_is_an_error_with_suggestions() {
    let error = Toolset::named(["set_on"]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "no linked tool is named `set_on`; did you mean `set_one`?"
    );
}

#[test]
fn a_workspace_keeps_every_distinct_root() {
    let first = std::env::temp_dir();
    let second = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ws = Workspace::new(&first)
        .unwrap()
        .with_root(&second)
        .unwrap()
        .with_root(&first)
        .unwrap();
    assert_eq!(
        ws.roots(),
        [
            first.canonicalize().unwrap(),
            second.canonicalize().unwrap()
        ]
    );
}

#[test]
fn a_workspace_root_must_be_an_existing_directory() {
    let missing = Workspace::new("/no/such/dir/7d1c").unwrap_err();
    assert!(matches!(missing, WorkspaceError::Unreadable { .. }));
    assert!(
        missing
            .to_string()
            .starts_with("workspace root `/no/such/dir/7d1c` cannot be used")
    );
    let file = Workspace::new(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap_err();
    assert!(
        matches!(file, WorkspaceError::NotADirectory { .. }),
        "{file}"
    );
}

#[test]
fn annotations_serialize_with_the_mcp_names() {
    let spec = Registry::global().get("set_one").unwrap().spec();
    let json = serde_json::to_value(spec.annotations()).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true})
    );
}

#[tokio::test]
async fn a_tool_can_be_called_directly_with_a_detached_context() {
    let tool = Registry::global().get("set_two").unwrap();
    let ctx = ToolContext::detached(CallInfo::new("test-1", "set_two", 0));
    let prepared = tool.prepare("{}").unwrap();
    let output = tool.invoke(prepared, &ctx).await.unwrap();
    assert_eq!(output.content[0].as_text(), Some("cancelled: false"));
}

/// Dropped when the session that made it ends.
#[derive(Default)]
struct DropsWithSession;

static SESSION_VALUES_DROPPED: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

impl Drop for DropsWithSession {
    fn drop(&mut self) {
        SESSION_VALUES_DROPPED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Touch this session's value.
#[tool(read_only, name = "ctx_touch_session_value")]
fn touch_session_value(ctx: &ToolContext) -> &'static str {
    let _value = ctx.session_state::<DropsWithSession>();
    "touched"
}

#[test]
fn a_session_value_is_dropped_with_its_coordinator() {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["ctx_touch_session_value"]).unwrap())
        .build()
        .unwrap();
    coordinator.call_blocking(ToolCall::new("ctx_touch_session_value", "{}"));
    coordinator.call_blocking(ToolCall::new("ctx_touch_session_value", "{}"));
    assert_eq!(
        SESSION_VALUES_DROPPED.load(std::sync::atomic::Ordering::SeqCst),
        0
    );
    drop(coordinator);
    assert_eq!(
        SESSION_VALUES_DROPPED.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "one value for the session, dropped when the coordinator is"
    );
}

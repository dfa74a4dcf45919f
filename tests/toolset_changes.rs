//! A coordinator whose toolset changes while it runs: calls decide on a snapshot, a removed
//! tool is unknown to the calls after it, and only real changes are announced.

use std::sync::{LazyLock, OnceLock};

use tokio::sync::Notify;
use tool_core::{
    Coordinator, Tool, ToolCall, ToolError, ToolOutput, Toolset,
    context::ToolContext,
    schema::Schema,
    spec::ToolSpec,
    tool,
    tool::{Prepared, ToolFuture, ToolHandle},
};

/// Where the gated call waits: `started` when it has begun, then until `release`.
#[derive(Default)]
struct Gate {
    started: Notify,
    release: Notify,
}

/// Only one test calls the gated tool.
static GATE: LazyLock<Gate> = LazyLock::new(Gate::default);

/// Wait at the gate, then finish.
#[tool(read_only, name = "changes_gated")]
async fn gated() -> &'static str {
    let gate = &*GATE;
    gate.started.notify_one();
    gate.release.notified().await;
    "finished"
}

/// Say hello.
#[tool(read_only, name = "changes_hello")]
fn hello() -> &'static str {
    "hello"
}

/// Say hello, in another way.
#[tool(read_only, name = "changes_hello_again")]
fn hello_again() -> &'static str {
    "hello again"
}

fn linked(name: &str) -> ToolHandle {
    Toolset::named([name])
        .unwrap()
        .iter()
        .next()
        .unwrap()
        .clone()
}

fn coordinator(names: &[&str]) -> Coordinator {
    Coordinator::builder()
        .toolset(Toolset::named(names).unwrap())
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_in_flight_keeps_the_tool_it_started_with() {
    let coordinator = coordinator(&["changes_gated", "changes_hello"]);
    let gate = &*GATE;
    let started = gate.started.notified();
    let running = tokio::spawn({
        let coordinator = coordinator.clone();
        async move { coordinator.call(ToolCall::new("changes_gated", "{}")).await }
    });
    started.await;
    assert!(coordinator.remove_tool("changes_gated").is_some());
    gate.release.notify_one();
    let result = running.await.unwrap();
    assert_eq!(result.text(), "finished", "{result:?}");
}

#[test]
fn a_removed_tool_is_unknown_to_the_next_call_with_the_closest_names() {
    let coordinator = coordinator(&["changes_hello", "changes_hello_again"]);
    assert_eq!(
        coordinator
            .call_blocking(ToolCall::new("changes_hello", "{}"))
            .text(),
        "hello"
    );
    coordinator.remove_tool("changes_hello").unwrap();
    let result = coordinator.call_blocking(ToolCall::new("changes_hello", "{}"));
    match result.error() {
        Some(ToolError::UnknownTool { name, suggestions }) => {
            assert_eq!(name, "changes_hello");
            assert_eq!(suggestions, &["changes_hello_again"]);
        }
        other => panic!("expected an unknown tool, got {other:?}"),
    }
}

#[test]
fn a_withheld_tool_is_unavailable_with_its_reason_until_added_again() {
    let mut toolset = Toolset::named(["changes_hello", "changes_hello_again"]).unwrap();
    toolset.withhold("changes_hello", "this server greets only once");
    let coordinator = Coordinator::builder().toolset(toolset).build().unwrap();
    let result = coordinator.call_blocking(ToolCall::new("changes_hello", "{}"));
    match result.error() {
        Some(ToolError::Unavailable { name, reason }) => {
            assert_eq!(name, "changes_hello");
            assert_eq!(reason, "this server greets only once");
        }
        other => panic!("expected an unavailable tool, got {other:?}"),
    }
    assert_eq!(
        result.text(),
        "`changes_hello` is not available here: this server greets only once"
    );
    coordinator.add_tool(linked("changes_hello")).unwrap();
    assert_eq!(
        coordinator
            .call_blocking(ToolCall::new("changes_hello", "{}"))
            .text(),
        "hello"
    );
}

#[test]
fn an_added_tool_is_callable_and_counted_as_a_change() {
    let coordinator = coordinator(&["changes_hello"]);
    let changes = coordinator.toolset_changes();
    coordinator.add_tool(linked("changes_hello_again")).unwrap();
    assert!(changes.has_changed());
    assert_eq!(changes.generation(), 1);
    assert_eq!(
        coordinator
            .call_blocking(ToolCall::new("changes_hello_again", "{}"))
            .text(),
        "hello again"
    );
}

#[test]
fn an_update_that_changes_nothing_is_not_a_change() {
    let coordinator = coordinator(&["changes_hello"]);
    let changes = coordinator.toolset_changes();
    // Nothing to remove; a tool put back as it was; a failed add.
    coordinator.update_toolset(|tools| tools.remove("changes_nothing"));
    coordinator.update_toolset(|tools| {
        let tool = tools.remove("changes_hello").unwrap();
        tools.add(tool).unwrap();
    });
    assert!(coordinator.add_tool(linked("changes_hello")).is_err());
    assert!(!changes.has_changed());
    assert_eq!(changes.generation(), 0);
}

/// A tool made at run time, under a fixed name.
struct Made(ToolSpec);

impl Made {
    fn new() -> Self {
        Made(ToolSpec::new("changes_made", "A tool made at run time.").read_only())
    }
}

impl Tool for Made {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn input_schema(&self) -> &Schema {
        static SCHEMA: OnceLock<Schema> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            serde_json::from_value(serde_json::json!({"type": "object", "properties": {}})).unwrap()
        })
    }
    fn prepare(&self, _arguments: &str) -> Result<Prepared, ToolError> {
        Ok(Prepared::new(()))
    }
    fn invoke<'a>(&'a self, _prepared: Prepared, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::ready(Ok(ToolOutput::text("made")))
    }
}

#[test]
fn a_tool_replaced_by_another_value_under_its_name_is_a_change() {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::empty().with(Made::new()).unwrap())
        .build()
        .unwrap();
    let changes = coordinator.toolset_changes();
    coordinator.update_toolset(|tools| {
        tools.remove("changes_made");
        tools.add(Made::new()).unwrap();
    });
    assert_eq!(changes.generation(), 1);
}

#[tokio::test]
async fn changes_in_a_burst_are_heard_once_with_the_latest_generation() {
    let coordinator = coordinator(&["changes_hello"]);
    let mut changes = coordinator.toolset_changes();
    coordinator.add_tool(linked("changes_hello_again")).unwrap();
    coordinator.remove_tool("changes_hello").unwrap();
    assert_eq!(changes.changed().await, Some(2));
    assert!(!changes.has_changed());
    drop(coordinator);
    assert_eq!(changes.changed().await, None, "the coordinator is gone");
}

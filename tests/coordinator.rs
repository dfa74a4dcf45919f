//! The call path: lookup, prepare, invoke, results — and a coordinator that survives its tools.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use tool_core::{
    Coordinator, Json, State, Tool, ToolCall, ToolError, ToolOutput, Toolset, Workspace,
    context::{CallInfo, Progress, ToolContext},
    output::Content,
    schema::Schema,
    spec::ToolSpec,
    tool,
    tool::{Prepared, ToolFuture},
    toolset::ToolsetError,
};

/// Add two integers.
#[tool(read_only, name = "co_add", tags("co"))]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Wait a moment, then answer.
#[tool(read_only, name = "co_async", tags("co"))]
async fn slow(text: String) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    format!("async {text}")
}

/// The two ends a blocking tool uses to learn whether the runtime went on while it blocked.
struct Rendezvous {
    started: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    go_on: Mutex<std::sync::mpsc::Receiver<()>>,
}

/// Block a thread until another task of the runtime answers.
#[tool(blocking, name = "co_blocking", tags("co"))]
fn blocking(rendezvous: State<Rendezvous>, text: String) -> String {
    if let Some(started) = rendezvous.started.lock().unwrap().take() {
        let _ = started.send(());
    }
    let go_on = rendezvous.go_on.lock().unwrap();
    match go_on.recv_timeout(std::time::Duration::from_secs(10)) {
        Ok(()) => format!("blocking {text}"),
        Err(_) => "stalled: no other task of the runtime ran while the tool blocked".to_owned(),
    }
}

/// Panic in a synchronous tool.
#[tool(name = "co_panic_sync", tags("co"))]
fn panic_sync() -> String {
    panic!("sync boom")
}

/// Panic in an async tool.
#[tool(name = "co_panic_async", tags("co"))]
async fn panic_async() -> String {
    tokio::task::yield_now().await;
    panic!("async boom")
}

/// Panic in a blocking tool.
#[tool(blocking, name = "co_panic_blocking", tags("co"))]
fn panic_blocking() -> String {
    panic!("blocking boom")
}

struct Visits(AtomicU32);

/// Count visits in shared state.
#[tool(name = "co_visit", tags("co"))]
fn visit(visits: State<Visits>, call: &CallInfo) -> String {
    let n = visits.0.fetch_add(1, Ordering::SeqCst) + 1;
    format!(
        "visit {n} by call {:?} at depth {}",
        call.call_id, call.depth
    )
}

/// Name the workspace root.
#[tool(read_only, name = "co_root", tags("co"))]
fn root(ws: &Workspace) -> String {
    ws.root().display().to_string()
}

/// Never finish.
#[tool(read_only, name = "co_hang", tags("co"))]
async fn hang() -> String {
    std::future::pending::<()>().await;
    unreachable!("a pending future never completes")
}

/// Report progress twice.
#[tool(read_only, name = "co_progress", tags("co"))]
fn progress(progress: Progress) -> &'static str {
    progress.report(1.0, Some(2.0), Some("half"));
    progress.report(2.0, Some(2.0), None);
    "done"
}

/// Fail with an io error.
#[tool(name = "co_io", tags("co"))]
fn io_failure() -> Result<String, std::io::Error> {
    Err(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        "no such file: notes.txt",
    ))
}

/// Fail with the tool's own message.
#[tool(name = "co_fail", tags("co"))]
fn fail() -> Result<(), ToolError> {
    Err(ToolError::failed("the disk is on fire"))
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    total: i64,
}

/// Structured sum.
#[tool(read_only, name = "co_json", tags("co"))]
fn json_sum(a: i64, b: i64) -> Json<Sum> {
    Json(Sum { total: a + b })
}

/// Several parts.
#[tool(read_only, name = "co_parts", tags("co"))]
fn parts() -> ToolOutput {
    ToolOutput::text("first").with_content(Content::text("second"))
}

/// Nothing to say.
#[tool(name = "co_unit", tags("co"))]
fn unit() {}

fn coordinator() -> Coordinator {
    Coordinator::builder()
        .approver(tool_core::approval::AutoApprove)
        .toolset(Toolset::tagged("co"))
        .state(Visits(AtomicU32::new(0)))
        .workspace(Workspace::new(env!("CARGO_MANIFEST_DIR")).unwrap())
        .build()
        .unwrap()
}

#[test]
fn a_sync_tool_runs() {
    assert_eq!(
        coordinator()
            .call_blocking(ToolCall::new("co_add", r#"{"a": 2, "b": 40}"#))
            .text(),
        "42"
    );
}

#[tokio::test]
async fn an_async_tool_runs() {
    assert_eq!(
        coordinator()
            .call(ToolCall::new("co_async", r#"{"text": "hi"}"#))
            .await
            .text(),
        "async hi"
    );
}

// A current-thread runtime: the test and every task it spawns share one thread, which a tool
// run in place would block.
#[tokio::test]
async fn a_blocking_tool_runs_on_the_blocking_pool() {
    let (started, has_started) = tokio::sync::oneshot::channel();
    let (go_on, wait) = std::sync::mpsc::channel();
    let coordinator = Coordinator::builder()
        .approver(tool_core::approval::AutoApprove)
        .toolset(Toolset::named(["co_blocking"]).unwrap())
        .state(Rendezvous {
            started: Mutex::new(Some(started)),
            go_on: Mutex::new(wait),
        })
        .build()
        .unwrap();
    // Answers once the tool has started: it can only run while the tool blocks if the tool
    // is not blocking the runtime's thread.
    let other_task = tokio::spawn(async move {
        has_started.await.expect("the tool started");
        go_on.send(()).expect("the tool is waiting");
    });
    let result = coordinator
        .call(ToolCall::new("co_blocking", r#"{"text": "hi"}"#))
        .await;
    assert_eq!(result.text(), "blocking hi");
    other_task.await.unwrap();
}

#[test]
fn an_unknown_tool_answers_with_the_closest_names() {
    let result = coordinator().call_blocking(ToolCall::new("co_ad", "{}").with_call_id("c1"));
    assert!(result.is_error());
    assert_eq!(result.call_id, "c1");
    assert!(
        matches!(result.error(), Some(ToolError::UnknownTool { suggestions, .. }) if suggestions[0] == "co_add")
    );
    assert!(
        result
            .text()
            .starts_with("unknown tool `co_ad`; did you mean"),
        "{}",
        result.text()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_panicking_tool_becomes_an_error_and_the_coordinator_keeps_working() {
    let coordinator = coordinator();
    for (name, message) in [
        ("co_panic_sync", "sync boom"),
        ("co_panic_async", "async boom"),
        ("co_panic_blocking", "blocking boom"),
    ] {
        let result = coordinator.call(ToolCall::new(name, "{}")).await;
        assert!(
            matches!(result.error(), Some(ToolError::Panicked { message: m }) if m == message),
            "{name}: {result:?}"
        );
        assert_eq!(
            coordinator
                .call(ToolCall::new("co_add", r#"{"a": 1, "b": 1}"#))
                .await
                .text(),
            "2"
        );
    }
}

#[test]
fn state_reaches_tools_and_call_info_carries_the_id() {
    let coordinator = coordinator();
    coordinator.call_blocking(ToolCall::new("co_visit", "{}"));
    let result = coordinator.call_blocking(ToolCall::new("co_visit", "{}").with_call_id("call_7"));
    assert_eq!(result.text(), r#"visit 2 by call "call_7" at depth 0"#);
}

#[test]
fn a_nested_call_is_one_level_deeper() {
    let parent = CallInfo::new("outer", "subtask", 1);
    let result = coordinator().call_blocking(ToolCall::new("co_visit", "{}").nested_in(&parent));
    assert!(result.text().ends_with("at depth 2"), "{}", result.text());
}

#[test]
fn a_missing_state_value_is_a_clear_error() {
    let coordinator = Coordinator::builder()
        .approver(tool_core::approval::AutoApprove)
        .toolset(Toolset::tagged("co"))
        .build()
        .unwrap();
    let result = coordinator.call_blocking(ToolCall::new("co_visit", "{}"));
    assert!(
        result.text().contains("needs `State<coordinator::Visits>`"),
        "{}",
        result.text()
    );
    let result = coordinator.call_blocking(ToolCall::new("co_root", "{}"));
    assert!(
        result.text().contains("needs a workspace"),
        "{}",
        result.text()
    );
}

#[test]
fn the_workspace_reaches_tools() {
    let result = coordinator().call_blocking(ToolCall::new("co_root", "{}"));
    let expected = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap();
    assert_eq!(result.text(), expected.display().to_string());
}

#[test]
fn progress_reports_reach_the_sink() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let coordinator = Coordinator::builder()
        .approver(tool_core::approval::AutoApprove)
        .toolset(Toolset::tagged("co"))
        .on_progress(move |update: tool_core::context::ProgressUpdate| {
            sink.lock().unwrap().push(update)
        })
        .build()
        .unwrap();
    coordinator.call_blocking(ToolCall::new("co_progress", "{}").with_call_id("p1"));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].call.call_id, "p1");
    assert_eq!(seen[0].message.as_deref(), Some("half"));
    assert_eq!(seen[1].progress, 2.0);
}

#[tokio::test]
async fn a_call_can_be_spawned_on_the_runtime() {
    let coordinator = coordinator();
    let task = tokio::spawn({
        let coordinator = coordinator.clone();
        async move {
            coordinator
                .call(ToolCall::new("co_async", r#"{"text": "x"}"#))
                .await
        }
    });
    assert_eq!(task.await.unwrap().text(), "async x");
}

#[tokio::test]
async fn a_call_given_up_on_is_still_reported_finished_as_cancelled() {
    let (events, mut received) = tokio::sync::mpsc::unbounded_channel();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::tagged("co"))
        .events(events)
        .build()
        .unwrap();
    let given_up = tokio::time::timeout(
        std::time::Duration::from_millis(1),
        coordinator.call(ToolCall::new("co_hang", "{}").with_call_id("h1")),
    )
    .await;
    assert!(given_up.is_err(), "the call was still running");
    let mut finished = None;
    while let Ok(event) = received.try_recv() {
        if let tool_core::events::CallEvent::Finished {
            call_id,
            error_kind,
            ..
        } = event
        {
            finished = Some((call_id, error_kind));
        }
    }
    assert_eq!(finished, Some(("h1".to_owned(), Some("cancelled"))));
}

#[test]
fn progress_reports_reach_the_event_sink_between_start_and_finish() {
    let (events, mut received) = tokio::sync::mpsc::unbounded_channel();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::tagged("co"))
        .events(events)
        .build()
        .unwrap();
    coordinator.call_blocking(ToolCall::new("co_progress", "{}").with_call_id("p1"));
    let mut steps = Vec::new();
    while let Ok(event) = received.try_recv() {
        assert_eq!(event.call_id(), "p1");
        steps.push(match event {
            tool_core::events::CallEvent::Requested { .. } => "requested".to_owned(),
            tool_core::events::CallEvent::Decided { .. } => "decided".to_owned(),
            tool_core::events::CallEvent::Started { .. } => "started".to_owned(),
            tool_core::events::CallEvent::Progress(update) => {
                format!("progress {}", update.progress)
            }
            tool_core::events::CallEvent::Finished { .. } => "finished".to_owned(),
            other => format!("{other:?}"),
        });
    }
    assert_eq!(
        steps,
        [
            "requested",
            "decided",
            "started",
            "progress 1",
            "progress 2",
            "finished"
        ]
    );
}

#[test]
fn a_tools_error_becomes_a_failed_result_with_its_message() {
    let coordinator = coordinator();
    let result = coordinator.call_blocking(ToolCall::new("co_io", "{}"));
    assert!(matches!(
        result.error(),
        Some(ToolError::Failed {
            source: Some(_),
            ..
        })
    ));
    assert_eq!(result.text(), "no such file: notes.txt");
    assert_eq!(
        coordinator
            .call_blocking(ToolCall::new("co_fail", "{}"))
            .text(),
        "the disk is on fire"
    );
}

#[test]
fn json_output_is_structured_and_text() {
    let result = coordinator().call_blocking(ToolCall::new("co_json", r#"{"a": 1, "b": 2}"#));
    assert_eq!(result.structured(), Some(&serde_json::json!({"total": 3})));
    assert_eq!(result.text(), r#"{"total":3}"#);
}

#[test]
fn several_content_parts_are_kept_in_order() {
    let result = coordinator().call_blocking(ToolCall::new("co_parts", "{}"));
    assert_eq!(result.content.len(), 2);
    assert_eq!(result.text(), "first\nsecond");
}

#[test]
fn a_unit_result_says_ok() {
    assert_eq!(
        coordinator()
            .call_blocking(ToolCall::new("co_unit", "{}"))
            .text(),
        "ok"
    );
}

#[test]
fn call_blocking_works_inside_a_current_thread_runtime() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let result = runtime.block_on(async {
        coordinator().call_blocking(ToolCall::new("co_async", r#"{"text": "x"}"#))
    });
    assert_eq!(result.text(), "async x");
}

#[tokio::test(flavor = "multi_thread")]
async fn call_blocking_works_inside_a_multi_thread_runtime() {
    let result = coordinator().call_blocking(ToolCall::new("co_async", r#"{"text": "y"}"#));
    assert_eq!(result.text(), "async y");
}

/// A hand-written tool, added at run time.
struct Shout {
    spec: ToolSpec,
    schema: Schema,
}

impl Tool for Shout {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn input_schema(&self) -> &Schema {
        &self.schema
    }
    fn prepare(&self, arguments: &str) -> Result<Prepared, ToolError> {
        let value: serde_json::Value = serde_json::from_str(arguments)?;
        let text = value["text"]
            .as_str()
            .ok_or_else(|| ToolError::failed("`text` must be a string"))?;
        Ok(Prepared::new(text.to_owned()))
    }
    fn invoke<'a>(&'a self, prepared: Prepared, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::ready(
            prepared
                .take::<String>()
                .map(|text| ToolOutput::text(text.to_uppercase())),
        )
    }
}

fn shout(name: &'static str) -> Shout {
    Shout {
        spec: ToolSpec::new(name, "Shout the text.").read_only(),
        schema: tool_core::schema::input_schema_for::<()>(),
    }
}

#[test]
fn a_hand_written_tool_added_at_run_time_runs_beside_macro_tools() {
    let toolset = Toolset::tagged("co").with(shout("co_shout")).unwrap();
    let coordinator = Coordinator::builder()
        .approver(tool_core::approval::AutoApprove)
        .toolset(toolset)
        .build()
        .unwrap();
    assert_eq!(
        coordinator
            .call_blocking(ToolCall::new("co_shout", r#"{"text": "hey"}"#))
            .text(),
        "HEY"
    );
    assert_eq!(
        coordinator
            .call_blocking(ToolCall::new("co_add", r#"{"a": 1, "b": 2}"#))
            .text(),
        "3"
    );
}

#[test]
fn a_run_time_tool_cannot_take_a_name_already_in_the_set() {
    let error = Toolset::tagged("co").with(shout("co_add")).unwrap_err();
    assert!(matches!(&error, ToolsetError::Duplicate { name, .. } if name == "co_add"));
    assert!(
        error.to_string().contains("tests/coordinator.rs"),
        "{error}"
    );
}

#[test]
fn a_run_time_tool_with_an_invalid_name_is_refused() {
    let error = Toolset::empty().with(shout("shout loudly")).unwrap_err();
    assert!(matches!(error, ToolsetError::InvalidName { .. }));
}

//! A running tool calls other tools through the coordinator that runs it (`ToolCaller`): one
//! level deeper, under the same policy, session, approver, hooks, budget and events, and
//! cancelled with its caller. No tool is a special case.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tool_core::approval::{ApprovalRequest, ApprovalResponse, Approver};
use tool_core::budget::{Budget, BudgetConfig};
use tool_core::context::{CallInfo, CancellationToken};
use tool_core::coordinator::{MAX_NESTING, ToolCaller};
use tool_core::events::CallEvent;
use tool_core::hooks::{HookEvent, HookOutput, Hooks, hook_fn};
use tool_core::policy::{Mode, PolicyBuilder};
use tool_core::{BoxFuture, Coordinator, State, ToolCall, ToolError, Toolset, tool};

/// Say where this call runs.
#[tool(read_only, name = "nest_where")]
fn where_am_i(info: &CallInfo) -> String {
    format!("depth {}", info.depth)
}

/// Change something.
#[tool(name = "nest_write")]
fn write(text: String) -> String {
    format!("wrote {text}")
}

/// Spin on the blocking pool until the call is cancelled, and say so in the shared flag.
#[tool(read_only, blocking, name = "nest_spin")]
fn spin(cancel: CancellationToken, seen: State<AtomicBool>) -> String {
    let started = std::time::Instant::now();
    while !cancel.is_cancelled() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(1));
    }
    seen.store(cancel.is_cancelled(), Ordering::SeqCst);
    "stopped".into()
}

/// Run one call of another tool and answer with its text, or its error.
#[tool(read_only, name = "nest_run", timeout_ms = 2_000)]
async fn run(
    tool: String,
    arguments: serde_json::Value,
    tools: ToolCaller,
) -> Result<String, ToolError> {
    let result = tools.call(ToolCall::new(tool, arguments.to_string())).await;
    match result.error() {
        Some(error) => Err(ToolError::failed(format!(
            "{}: {}",
            error.kind(),
            result.text()
        ))),
        None => Ok(result.text().into_owned()),
    }
}

/// Call itself, forever if it could.
#[tool(read_only, name = "nest_recurse")]
async fn recurse(tools: ToolCaller) -> String {
    let result = tools.call(ToolCall::new("nest_recurse", "{}")).await;
    result.text().into_owned()
}

/// Run `nest_spin` for its caller, but give up after 50 ms.
#[tool(read_only, name = "nest_impatient", timeout_ms = 50)]
async fn impatient(tools: ToolCaller) -> String {
    tools
        .call(ToolCall::new("nest_spin", "{}"))
        .await
        .text()
        .into_owned()
}

fn toolset() -> Toolset {
    Toolset::named([
        "nest_where",
        "nest_write",
        "nest_spin",
        "nest_run",
        "nest_recurse",
        "nest_impatient",
    ])
    .unwrap()
}

fn run_call(tool: &str, arguments: serde_json::Value) -> ToolCall {
    ToolCall::new(
        "nest_run",
        json!({ "tool": tool, "arguments": arguments }).to_string(),
    )
}

/// Approves every request, remembering which tools it was asked about.
#[derive(Clone, Default)]
struct Recording(Arc<Mutex<Vec<String>>>);

impl Approver for Recording {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        self.0.lock().unwrap().push(request.tool.to_string());
        Box::pin(async { ApprovalResponse::once() })
    }
}

#[test]
fn a_nested_call_runs_one_level_deeper() {
    let coordinator = Coordinator::builder().toolset(toolset()).build().unwrap();
    let result = coordinator.call_blocking(run_call("nest_where", json!({})));
    assert_eq!(result.text(), "depth 1");
}

#[test]
fn a_nested_call_runs_in_the_session_of_its_caller() {
    let server = Coordinator::builder().toolset(toolset()).build().unwrap();
    let alice = server.new_session();
    alice.set_mode(Mode::Plan);
    let written = alice.call_blocking(run_call("nest_write", json!({"text": "x"})));
    assert!(
        written.text().contains("plan mode"),
        "the nested call was judged in the caller's session, in plan mode: {}",
        written.text()
    );
    drop(alice);
    // The server's own session is not in plan mode, and a session dropped takes nothing with it.
    let written = server.call_blocking(run_call("nest_where", json!({})));
    assert_eq!(written.text(), "depth 1");
}

#[test]
fn a_nested_call_meets_the_same_policy() {
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .policy(PolicyBuilder::default().deny("nest_write"))
        .build()
        .unwrap();
    let result = coordinator.call_blocking(run_call("nest_write", json!({"text": "x"})));
    assert!(
        result.text().contains("denied") && result.text().contains("nest_write"),
        "{}",
        result.text()
    );

    let planning = Coordinator::builder()
        .toolset(toolset())
        .mode(Mode::Plan)
        .build()
        .unwrap();
    let result = planning.call_blocking(run_call("nest_write", json!({"text": "x"})));
    assert!(
        result.text().contains("plan mode"),
        "a read-only tool cannot write through another: {}",
        result.text()
    );
}

#[test]
fn a_nested_call_that_needs_approval_asks_the_same_approver() {
    let approver = Recording::default();
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .approver(approver.clone())
        .build()
        .unwrap();
    let result = coordinator.call_blocking(run_call("nest_write", json!({"text": "x"})));
    assert_eq!(result.text(), "wrote x");
    assert_eq!(*approver.0.lock().unwrap(), ["nest_write"]);
}

#[test]
fn hooks_events_and_the_budget_see_nested_calls() {
    let hooked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&hooked);
    let mut hooks = Hooks::default();
    hooks
        .register(
            HookEvent::PreToolUse,
            "nest_where",
            hook_fn("record", move |input: &tool_core::hooks::HookInput| {
                seen.lock().unwrap().push(input.tool_name.clone());
                std::future::ready(HookOutput::default())
            }),
        )
        .unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let budget = Arc::new(Budget::new(BudgetConfig {
        tool_calls: 10,
        build_multiplier: 1.0,
        ..BudgetConfig::default()
    }));
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .hooks(hooks)
        .budget(Arc::clone(&budget))
        .events(move |event: CallEvent| {
            if let CallEvent::Requested { tool, .. } = event {
                sink.lock().unwrap().push(tool);
            }
        })
        .build()
        .unwrap();
    assert_eq!(
        coordinator
            .call_blocking(run_call("nest_where", json!({})))
            .text(),
        "depth 1"
    );
    assert_eq!(
        *hooked.lock().unwrap(),
        ["nest_where"],
        "the hook ran for the nested call"
    );
    assert_eq!(*events.lock().unwrap(), ["nest_run", "nest_where"]);
    let used = budget.status(Mode::Default)[0].used;
    assert_eq!(used, 2, "both calls were charged");
}

#[tokio::test]
async fn cancelling_the_caller_cancels_its_nested_calls() {
    let seen = Arc::new(AtomicBool::new(false));
    let coordinator = Coordinator::builder()
        .toolset(toolset())
        .shared_state(Arc::clone(&seen))
        .build()
        .unwrap();
    let result = coordinator
        .call(ToolCall::new("nest_impatient", "{}"))
        .await;
    assert_eq!(result.error().map(ToolError::kind), Some("timed_out"));
    // The caller's timeout cancelled its token; the nested call's token is its child, so the
    // nested tool, still spinning on its thread, sees it.
    let waited = std::time::Instant::now();
    while !seen.load(Ordering::SeqCst) {
        assert!(
            waited.elapsed() < Duration::from_secs(5),
            "the nested call never saw its caller cancelled"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[test]
fn a_tool_that_calls_itself_stops_at_the_nesting_limit() {
    let coordinator = Coordinator::builder().toolset(toolset()).build().unwrap();
    let result = coordinator.call_blocking(ToolCall::new("nest_recurse", "{}"));
    assert!(
        result
            .text()
            .contains(&format!("more than the {MAX_NESTING} allowed")),
        "{}",
        result.text()
    );
}

#[test]
fn a_tool_called_without_a_coordinator_is_told_it_needs_one() {
    let tool = tool_core::Registry::global().get("nest_recurse").unwrap();
    let ctx = tool_core::context::ToolContext::detached(CallInfo::new("c1", "nest_recurse", 0));
    let prepared = tool.prepare("{}").unwrap();
    let error = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(tool.invoke(prepared, &ctx))
        .unwrap_err();
    assert!(
        error.to_string().contains("must run under a Coordinator"),
        "{error}"
    );
}

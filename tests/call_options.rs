//! One call's own options (`Coordinator::call_with`, `CallOptions`): its progress sink and
//! approver reach its nested calls and its own questions, and never another call.

use std::sync::{Arc, Mutex};

use tool_core::approval::{ApprovalRequest, ApprovalResponse, Approver, AutoApprove, DenyAll};
use tool_core::context::{CallInfo, Progress, ProgressUpdate};
use tool_core::coordinator::CallOptions;
use tool_core::coordinator::{Session, ToolCaller};
use tool_core::{BoxFuture, Coordinator, ToolCall, ToolError, Toolset, tool};

/// Change something.
#[tool(name = "opts_write")]
fn write(text: String, progress: Progress) -> String {
    progress.report(1.0, Some(1.0), Some("written"));
    format!("wrote {text}")
}

/// Write through a nested call.
#[tool(read_only, name = "opts_outer")]
async fn outer(text: String, tools: ToolCaller) -> Result<String, ToolError> {
    let arguments = serde_json::json!({ "text": text }).to_string();
    let result = tools.call(ToolCall::new("opts_write", arguments)).await;
    match result.error() {
        Some(_) => Err(ToolError::failed(result.text().into_owned())),
        None => Ok(result.text().into_owned()),
    }
}

/// Ask the user about a plan.
#[tool(self_approving, name = "opts_plan")]
async fn plan(#[ctx] session: Session, call: CallInfo) -> &'static str {
    match session.ask(ApprovalRequest::plan(&call, "1. Go")).await {
        ApprovalResponse::Approve(_) => "accepted",
        _ => "not accepted",
    }
}

/// Remembers the tools it was asked about, and approves.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Approver for Recorder {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        self.0.lock().unwrap().push(request.tool.to_string());
        Box::pin(async { ApprovalResponse::once() })
    }
}

fn coordinator() -> Coordinator {
    Coordinator::builder()
        .toolset(Toolset::named(["opts_write", "opts_outer", "opts_plan"]).unwrap())
        // The coordinator's own approver would refuse: only the call's may answer.
        .approver(DenyAll)
        .build()
        .unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().unwrap()
}

#[test]
fn a_nested_call_is_asked_about_through_the_calls_own_approver() {
    let asked = Recorder::default();
    let options = CallOptions::new().approver(asked.clone());
    let call = ToolCall::new("opts_outer", r#"{"text": "x"}"#);
    let result = runtime().block_on(coordinator().call_with(call, options));
    assert_eq!(result.text(), "wrote x");
    assert_eq!(*asked.0.lock().unwrap(), ["opts_write"]);
}

#[test]
fn a_nested_calls_progress_reaches_the_calls_own_sink() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options =
        CallOptions::new()
            .approver(AutoApprove)
            .progress(move |update: ProgressUpdate| {
                sink.lock()
                    .unwrap()
                    .push((update.call.tool.to_string(), update.message));
            });
    let call = ToolCall::new("opts_outer", r#"{"text": "x"}"#);
    runtime().block_on(coordinator().call_with(call, options));
    assert_eq!(
        *seen.lock().unwrap(),
        [("opts_write".to_owned(), Some("written".to_owned()))]
    );
}

#[test]
fn a_tools_own_question_goes_to_the_calls_own_approver() {
    let asked = Recorder::default();
    let options = CallOptions::new().approver(asked.clone());
    let result =
        runtime().block_on(coordinator().call_with(ToolCall::new("opts_plan", "{}"), options));
    assert_eq!(result.text(), "accepted");
    assert_eq!(*asked.0.lock().unwrap(), ["opts_plan"]);
}

#[test]
fn another_call_keeps_the_coordinators_approver() {
    let coordinator = coordinator();
    let asked = Recorder::default();
    let runtime = runtime();
    let with_own = ToolCall::new("opts_write", r#"{"text": "x"}"#);
    runtime.block_on(coordinator.call_with(with_own, CallOptions::new().approver(asked.clone())));
    let plain = runtime.block_on(coordinator.call(ToolCall::new("opts_write", r#"{"text": "y"}"#)));
    assert!(
        matches!(plain.error(), Some(ToolError::Rejected { .. })),
        "{}",
        plain.text()
    );
    assert_eq!(asked.0.lock().unwrap().len(), 1);
}

#[test]
fn nobody_to_ask_refuses_with_its_reason_and_leaves_a_tools_question_unanswered() {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["opts_write", "opts_plan"]).unwrap())
        .approver(AutoApprove)
        .build()
        .unwrap();
    let runtime = runtime();
    let options = || CallOptions::new().nobody_to_ask("the client has no screen");
    let write = ToolCall::new("opts_write", r#"{"text": "x"}"#);
    let result = runtime.block_on(coordinator.call_with(write, options()));
    assert!(matches!(result.error(), Some(ToolError::Denied { .. })));
    assert!(
        result.text().contains("the client has no screen"),
        "{}",
        result.text()
    );
    let plan = runtime.block_on(coordinator.call_with(ToolCall::new("opts_plan", "{}"), options()));
    assert_eq!(plan.text(), "not accepted");
}

//! Every kind of [`ToolError`], produced by a real call through a coordinator: the kind a log
//! or protocol field records, and the message the model reads.

use std::time::Duration;

use tool_core::{
    BoxFuture, Coordinator, ToolCall, ToolError, Toolset,
    approval::{ApprovalRequest, ApprovalResponse, Approver},
    policy::Policy,
    tool,
};

/// Echo the text.
#[tool(read_only, name = "err_echo")]
fn echo(text: String) -> String {
    text
}

/// Delete everything (denied by the policy below).
#[tool(name = "err_delete")]
fn delete() -> &'static str {
    "deleted"
}

/// Write a file (the user rejects it).
#[tool(name = "err_write")]
fn write() -> &'static str {
    "written"
}

/// Publish a release (the user aborts).
#[tool(name = "err_publish")]
fn publish() -> &'static str {
    "published"
}

/// Sleep far past its time limit.
#[tool(read_only, name = "err_sleep", timeout_ms = 20)]
async fn sleep() -> &'static str {
    tokio::time::sleep(Duration::from_secs(600)).await;
    "woke"
}

/// Fail with the tool's own message.
#[tool(read_only, name = "err_fail")]
fn fail() -> Result<String, ToolError> {
    Err(ToolError::failed("the disk is on fire"))
}

/// Panic.
#[tool(read_only, name = "err_panic")]
fn panics() -> String {
    panic!("the tool fell over")
}

/// The user: rejects writes with guidance, aborts a publish.
struct User;

impl Approver for User {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        let answer = if request.tool == "err_publish" {
            ApprovalResponse::Abort
        } else {
            ApprovalResponse::reject("write to docs/ instead")
        };
        Box::pin(async move { answer })
    }
}

#[tokio::test]
async fn every_error_kind_reaches_the_model_with_its_kind_and_message() {
    let coordinator = Coordinator::builder()
        .toolset(
            Toolset::named([
                "err_echo",
                "err_delete",
                "err_write",
                "err_publish",
                "err_sleep",
                "err_fail",
                "err_panic",
            ])
            .unwrap(),
        )
        .policy(Policy::builder().deny("err_delete"))
        .approver(User)
        .build()
        .unwrap();
    let cases = [
        (
            ToolCall::new("err_echo", r#"{"txt": "hi"}"#),
            "invalid_arguments",
            "invalid arguments for tool `err_echo`:\n\
             - $: unknown argument `txt`; did you mean `text`? (allowed: `text`)\n\
             - $: missing required argument `text` (a string)",
            "arguments that do not fit the schema: every problem, with a fix",
        ),
        (
            ToolCall::new("err_ech", "{}"),
            "unknown_tool",
            "unknown tool `err_ech`; did you mean `err_echo`?",
            "a name no tool has: the closest names",
        ),
        (
            ToolCall::new("err_delete", "{}"),
            "denied",
            "permission denied: `err_delete` is denied by the deny rule `err_delete`. Do not retry \
             it; do the task another way, or tell the user that this rule blocks it.",
            "a deny rule: which rule, and not to retry",
        ),
        (
            ToolCall::new("err_write", "{}"),
            "rejected",
            "the user rejected this tool call, so the tool did not run; do not assume it \
             succeeded. The user said: write to docs/ instead",
            "the user rejected the call: the tool did not run, and the user's guidance",
        ),
        (
            ToolCall::new("err_publish", "{}"),
            "cancelled",
            "the tool call was cancelled before it finished",
            "the user aborted instead of answering",
        ),
        (
            ToolCall::new("err_sleep", "{}"),
            "timed_out",
            "the tool call timed out after 20 ms",
            "the tool ran past its time limit: the limit",
        ),
        (
            ToolCall::new("err_fail", "{}"),
            "failed",
            "the disk is on fire",
            "the tool returned an error: its own message",
        ),
        (
            ToolCall::new("err_panic", "{}"),
            "panicked",
            "the tool failed unexpectedly (it panicked: the tool fell over)",
            "the tool panicked: the panic's message",
        ),
    ];
    for (call, kind, message, why) in cases {
        let result = coordinator.call(call).await;
        assert!(result.is_error(), "{kind}: {why}: {}", result.text());
        assert_eq!(
            result.error().map(ToolError::kind),
            Some(kind),
            "{why}: {}",
            result.text()
        );
        assert_eq!(result.text(), message, "{kind}: {why}");
    }
}

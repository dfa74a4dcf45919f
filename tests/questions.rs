//! A running tool's own questions (`Session::elicit` with a `Question`): answered through the
//! call's approver (`ChannelApprover::answering_questions`), checked against the question's
//! schema, and refused with a reason when nobody can answer, whatever PermissionRequest hooks
//! say.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use tool_core::BoxFuture;
use tool_core::approval::{
    Answer, ApprovalRequest, ApprovalResponse, Approver, ChannelApprover, DenyAll, Question,
    QuestionRequest, Unanswered,
};
use tool_core::coordinator::Session;
use tool_core::hooks::{HookEvent, HookInput, HookOutput, Hooks, hook_fn};
use tool_core::policy::Verdict;
use tool_core::{Coordinator, ToolCall, ToolError, Toolset, tool};

/// Ask the user for their name and greet them.
#[tool(read_only, name = "q_greet")]
async fn greet(#[ctx] session: Session) -> Result<String, ToolError> {
    let question = Question::new(
        "What is your name?",
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    )?;
    Ok(match session.elicit(question).await? {
        Answer::Accept(content) => format!("Hello, {}!", content["name"].as_str().unwrap_or("")),
        Answer::Decline => "declined".to_owned(),
        Answer::Cancel => "cancelled".to_owned(),
        _ => "unknown".to_owned(),
    })
}

/// Ask with a form no client can show.
#[tool(read_only, name = "q_bad_form")]
async fn bad_form(#[ctx] session: Session) -> Result<String, ToolError> {
    let question = Question::new(
        "Where?",
        json!({"type": "object", "properties": {"address": {"type": "object"}}}),
    )?;
    session.elicit(question).await?;
    Ok("asked".to_owned())
}

/// Ask, telling a pending answer apart from no answer at all.
#[tool(read_only, name = "q_careful")]
async fn careful(#[ctx] session: Session) -> Result<String, ToolError> {
    let question = Question::new(
        "Go?",
        json!({"type": "object", "properties": {"go": {"type": "boolean"}}}),
    )?;
    match session.elicit(question).await {
        Err(pending) if pending.is_pending() => Err(pending),
        Err(_) => Ok("no answer: carried on without one".to_owned()),
        Ok(_) => Ok("answered".to_owned()),
    }
}

/// An approver whose every answer is still on its way (as over MCP's round trip).
struct AnswerPending;

impl Approver for AnswerPending {
    fn approve<'a>(&'a self, _: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        Box::pin(std::future::ready(ApprovalResponse::reject("not asked")))
    }

    fn elicit<'a>(&'a self, _: &'a QuestionRequest) -> BoxFuture<'a, Result<Answer, Unanswered>> {
        Box::pin(std::future::ready(Err(Unanswered::pending(
            "the answer comes with the next run",
        ))))
    }
}

fn coordinator(approver: Option<ChannelApprover>, hooks: Option<Hooks>) -> Coordinator {
    let mut builder =
        Coordinator::builder().toolset(Toolset::named(["q_greet", "q_bad_form"]).unwrap());
    if let Some(approver) = approver {
        builder = builder.approver(approver);
    }
    if let Some(hooks) = hooks {
        builder = builder.hooks(hooks);
    }
    builder.build().unwrap()
}

/// A coordinator whose approver answers every question with `answer`, and the questions it saw.
fn answering(answer: Answer) -> (Coordinator, tokio::task::JoinHandle<Vec<(String, Value)>>) {
    let (approver, _approvals) = ChannelApprover::new(4);
    let (approver, mut questions) = approver.answering_questions(4);
    let seen = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some(pending) = questions.recv().await {
            let request = pending.request();
            seen.push((request.tool.to_string(), request.question.schema().clone()));
            pending.respond(answer.clone());
        }
        seen
    });
    (coordinator(Some(approver), None), seen)
}

fn content(value: Value) -> Answer {
    Answer::Accept(value.as_object().unwrap().clone())
}

#[tokio::test]
async fn a_channel_approver_answers_a_tools_question_with_the_users_content() {
    let (coordinator, seen) = answering(content(json!({"name": "Ada"})));
    let result = coordinator.call(ToolCall::new("q_greet", "{}")).await;
    assert_eq!(result.text(), "Hello, Ada!");
    drop(coordinator);
    let seen = seen.await.unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].0, "q_greet");
    assert_eq!(seen[0].1["required"][0], "name");
}

#[tokio::test]
async fn a_declined_question_reaches_the_tool_as_declined() {
    let (coordinator, _seen) = answering(Answer::Decline);
    let result = coordinator.call(ToolCall::new("q_greet", "{}")).await;
    assert_eq!(result.text(), "declined");
}

#[tokio::test]
async fn an_answer_that_does_not_fit_the_schema_is_an_error_for_the_tool() {
    let (coordinator, _seen) = answering(content(json!({"name": 42})));
    let result = coordinator.call(ToolCall::new("q_greet", "{}")).await;
    assert!(result.is_error());
    assert!(result.text().contains("did not fit"), "{}", result.text());
}

#[tokio::test]
async fn a_malformed_form_is_the_tools_error_naming_the_field() {
    let (coordinator, seen) = answering(Answer::Decline);
    let result = coordinator.call(ToolCall::new("q_bad_form", "{}")).await;
    assert!(result.is_error());
    assert!(result.text().contains("`address`"), "{}", result.text());
    drop(coordinator);
    assert!(
        seen.await.unwrap().is_empty(),
        "nobody is asked a malformed form"
    );
}

#[test]
fn a_pending_answer_reaches_the_tool_as_pending_and_no_answer_as_not() {
    let pending = Coordinator::builder()
        .toolset(Toolset::named(["q_careful"]).unwrap())
        .approver(AnswerPending)
        .build()
        .unwrap()
        .call_blocking(ToolCall::new("q_careful", "{}"));
    assert!(pending.is_error());
    assert!(
        pending.error().is_some_and(ToolError::is_pending),
        "{pending:?}"
    );
    let nobody = Coordinator::builder()
        .toolset(Toolset::named(["q_careful"]).unwrap())
        .approver(DenyAll)
        .build()
        .unwrap()
        .call_blocking(ToolCall::new("q_careful", "{}"));
    assert_eq!(nobody.text(), "no answer: carried on without one");
}

#[test]
fn an_approver_that_answers_approvals_only_says_so() {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["q_greet"]).unwrap())
        .approver(DenyAll)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(ToolCall::new("q_greet", "{}"));
    assert!(result.is_error());
    assert!(
        result.text().contains("approval requests only"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn a_channel_approver_without_a_question_channel_says_so() {
    let (approver, _approvals) = ChannelApprover::new(4);
    let result = coordinator(Some(approver), None)
        .call(ToolCall::new("q_greet", "{}"))
        .await;
    assert!(result.is_error());
    assert!(
        result.text().contains("answering_questions"),
        "{}",
        result.text()
    );
}

/// Hooks that allow every permission request, and how many times they were asked.
fn allowing_hooks() -> (Hooks, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&asked);
    let mut hooks = Hooks::default();
    hooks
        .register(
            HookEvent::PermissionRequest,
            "*",
            hook_fn("allow everything", move |_: &HookInput| {
                counted.fetch_add(1, Ordering::SeqCst);
                std::future::ready(HookOutput::default().permission(Verdict::Allow, "allowed"))
            }),
        )
        .unwrap();
    (hooks, asked)
}

#[test]
fn a_permission_request_hook_does_not_answer_a_question_nobody_can_answer() {
    let (hooks, asked) = allowing_hooks();
    let result = coordinator(None, Some(hooks)).call_blocking(ToolCall::new("q_greet", "{}"));
    assert!(result.is_error());
    assert!(result.text().contains("no approver"), "{}", result.text());
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn the_approver_answers_a_question_and_an_allowing_hook_is_never_asked() {
    let (hooks, asked) = allowing_hooks();
    let (approver, _approvals) = ChannelApprover::new(4);
    let (approver, mut questions) = approver.answering_questions(4);
    tokio::spawn(async move {
        while let Some(pending) = questions.recv().await {
            pending.respond(content(json!({"name": "Ada"})));
        }
    });
    let result = coordinator(Some(approver), Some(hooks))
        .call(ToolCall::new("q_greet", "{}"))
        .await;
    assert_eq!(result.text(), "Hello, Ada!");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "a question is not a permission request"
    );
}

#[tokio::test]
async fn a_call_cancelled_while_its_question_waits_stops_waiting() {
    let (approver, _approvals) = ChannelApprover::new(4);
    let (approver, mut questions) = approver.answering_questions(4);
    let coordinator = coordinator(Some(approver), None);
    let cancel = tool_core::context::CancellationToken::new();
    let call = {
        let (coordinator, cancel) = (coordinator.clone(), cancel.clone());
        tokio::spawn(async move {
            coordinator
                .call_with(
                    ToolCall::new("q_greet", "{}"),
                    tool_core::coordinator::CallOptions::new().cancel(cancel.clone()),
                )
                .await
        })
    };
    // The user is shown the question and never answers it.
    let unanswered = questions.recv().await.expect("the question was asked");
    cancel.cancel();
    // A bound on a hang, not a timing assertion.
    let result = tokio::time::timeout(std::time::Duration::from_secs(60), call)
        .await
        .expect("the call stopped waiting for the answer")
        .unwrap();
    assert!(result.is_error());
    assert!(
        matches!(result.error(), Some(ToolError::Cancelled)),
        "{}",
        result.text()
    );
    drop(unanswered);
}

//! The steering tools: `think` acknowledges, `todo_write` keeps the session's list under its
//! rule, `present_plan` is the way out of plan mode through the approver, and `subtask` runs a
//! sub-agent whose calls go through the same coordinator one level deeper.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use tool_core::approval::{
    ApprovalResponse, ApprovalScope, AutoApprove, ChannelApprover, PendingApproval, RequestKind,
};
use tool_core::context::{CallInfo, CancellationToken};
use tool_core::events::CallEvent;
use tool_core::policy::{Mode, PolicyBuilder};
use tool_core::{BoxFuture, Coordinator, ToolCall, ToolError, ToolResult, Toolset, tool};
use tool_std::{SubAgentRunner, SubAgentTask, Subagents, TodoList, TodoStatus};

mod common;
use common::{call, err, ok};

/// Say how deeply this call is nested.
#[tool(read_only, name = "steer_where")]
fn where_am_i(info: &CallInfo) -> String {
    format!("depth {}", info.depth)
}

/// Change something.
#[tool(name = "steer_write")]
fn write() -> &'static str {
    "written"
}

fn coordinator(tools: &[&str]) -> tool_core::coordinator::CoordinatorBuilder {
    Coordinator::builder().toolset(Toolset::named(tools.iter().copied()).unwrap())
}

// ---------------------------------------------------------------------------------------------
// think

#[test]
fn think_acknowledges_without_echoing_the_thought() {
    let coordinator = coordinator(&["think"]).build().unwrap();
    let thought = "The grep found three callers; the one in parser.rs passes a borrowed slice, \
                   so changing the signature to take ownership would force a clone there.";
    let text = ok(&call(&coordinator, "think", json!({ "thought": thought })));
    assert_eq!(text, "Thought noted (25 words).");
}

#[test]
fn an_empty_thought_is_refused_saying_what_to_write() {
    let coordinator = coordinator(&["think"]).build().unwrap();
    let text = err(&call(&coordinator, "think", json!({ "thought": "  \n" })));
    assert!(text.contains("`thought` is empty"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// todo_write

fn todos(items: &[(&str, &str)]) -> serde_json::Value {
    let items: Vec<_> = items
        .iter()
        .map(|(content, status)| json!({ "content": content, "status": status }))
        .collect();
    json!({ "todos": items })
}

#[test]
fn a_valid_list_is_kept_and_shown_back_with_its_boxes() {
    let coordinator = coordinator(&["todo_write"]).build().unwrap();
    let text = ok(&call(
        &coordinator,
        "todo_write",
        todos(&[
            ("Write the parser", "completed"),
            ("Test the parser", "in_progress"),
            ("Update the docs", "pending"),
        ]),
    ));
    assert_eq!(
        text,
        "Todo list updated (1 of 3 completed):\n[x] Write the parser\n[>] Test the parser\n[ ] Update the docs"
    );
}

#[test]
fn the_result_carries_the_list_as_data_for_a_client() {
    let coordinator = coordinator(&["todo_write"]).build().unwrap();
    let result = call(
        &coordinator,
        "todo_write",
        json!({"todos": [{"content": "Parse", "active_form": "Parsing", "status": "in_progress"}]}),
    );
    assert_eq!(
        result.structured(),
        Some(
            &json!({"todos": [{"content": "Parse", "active_form": "Parsing", "status": "in_progress"}]})
        )
    );
}

#[test]
fn the_list_is_kept_across_calls_and_each_coordinator_has_its_own() {
    let one = coordinator(&["todo_write"]).build().unwrap();
    let other = coordinator(&["todo_write"]).build().unwrap();
    ok(&call(
        &one,
        "todo_write",
        todos(&[("Parse", "in_progress")]),
    ));
    ok(&call(
        &one,
        "todo_write",
        todos(&[("Parse", "completed"), ("Test", "in_progress")]),
    ));
    let kept = one.session_state::<TodoList>().snapshot();
    assert_eq!(kept.len(), 2);
    assert_eq!(kept[0].status, TodoStatus::Completed);
    assert_eq!(kept[1].content, "Test");
    assert!(other.session_state::<TodoList>().snapshot().is_empty());
}

#[test]
fn pending_items_with_none_in_progress_are_refused() {
    let coordinator = coordinator(&["todo_write"]).build().unwrap();
    let text = err(&call(
        &coordinator,
        "todo_write",
        todos(&[("Parse", "pending"), ("Test", "pending")]),
    ));
    assert!(
        text.contains("no item is in_progress while 2 are pending"),
        "{text}"
    );
}

#[test]
fn two_items_in_progress_are_refused_naming_both() {
    let coordinator = coordinator(&["todo_write"]).build().unwrap();
    let text = err(&call(
        &coordinator,
        "todo_write",
        todos(&[
            ("Parse", "in_progress"),
            ("Lint", "pending"),
            ("Test", "in_progress"),
        ]),
    ));
    assert!(
        text.contains("2 items are in_progress (todos[0], todos[2]); exactly one may be"),
        "{text}"
    );
}

#[test]
fn an_item_with_empty_content_is_refused() {
    let coordinator = coordinator(&["todo_write"]).build().unwrap();
    let text = err(&call(
        &coordinator,
        "todo_write",
        todos(&[("Parse", "in_progress"), (" ", "pending")]),
    ));
    assert!(text.contains("todos[1] has empty content"), "{text}");
}

#[test]
fn a_duplicate_item_is_refused_ignoring_case_and_spaces() {
    let coordinator = coordinator(&["todo_write"]).build().unwrap();
    let text = err(&call(
        &coordinator,
        "todo_write",
        todos(&[
            ("Run the tests", "in_progress"),
            (" run the Tests", "pending"),
        ]),
    ));
    assert!(text.contains("todos[1] repeats todos[0]"), "{text}");
}

#[test]
fn every_problem_is_reported_at_once_and_the_list_stays_as_it_was() {
    let coordinator = coordinator(&["todo_write"]).build().unwrap();
    ok(&call(
        &coordinator,
        "todo_write",
        todos(&[("Parse", "in_progress")]),
    ));
    let text = err(&call(
        &coordinator,
        "todo_write",
        todos(&[("", "pending"), ("A", "in_progress"), ("a", "in_progress")]),
    ));
    assert!(
        text.starts_with("the todo list was not changed: "),
        "{text}"
    );
    assert!(text.contains("todos[0] has empty content"), "{text}");
    assert!(text.contains("todos[2] repeats todos[1]"), "{text}");
    assert!(text.contains("2 items are in_progress"), "{text}");
    let kept = coordinator.session_state::<TodoList>().snapshot();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].content, "Parse");
}

#[test]
fn a_finished_or_empty_list_needs_nothing_in_progress() {
    let coordinator = coordinator(&["todo_write"]).build().unwrap();
    let done = ok(&call(
        &coordinator,
        "todo_write",
        todos(&[("Parse", "completed"), ("Test", "completed")]),
    ));
    assert_eq!(
        done,
        "Todo list updated: all 2 items completed.\n[x] Parse\n[x] Test"
    );
    let empty = ok(&call(&coordinator, "todo_write", todos(&[])));
    assert_eq!(empty, "The todo list is now empty.");
}

#[test]
fn an_unknown_status_is_refused_naming_the_three() {
    let coordinator = coordinator(&["todo_write"]).build().unwrap();
    let text = err(&call(
        &coordinator,
        "todo_write",
        todos(&[("Parse", "doing")]),
    ));
    assert!(text.contains("in_progress"), "{text}");
    assert!(text.contains("completed"), "{text}");
}

/// Claude Code's call, with its tool name and `activeForm`.
#[test]
fn claude_codes_todowrite_call_is_accepted_and_its_active_form_kept() {
    let coordinator = coordinator(&["todo_write"]).build().unwrap();
    ok(&call(
        &coordinator,
        "TodoWrite",
        json!({"todos": [
            {"content": "Run the build", "activeForm": "Running the build", "status": "in_progress"}
        ]}),
    ));
    let kept = coordinator.session_state::<TodoList>().snapshot();
    assert_eq!(kept[0].active_form.as_deref(), Some("Running the build"));
    assert_eq!(kept[0].label(), "Running the build");
}

/// Codex's `update_plan` items say `step`, Gemini CLI's `write_todos` items `description`.
#[test]
fn codex_and_gemini_cli_item_names_are_accepted() {
    let coordinator = coordinator(&["todo_write"]).build().unwrap();
    ok(&call(
        &coordinator,
        "todo_write",
        json!({"todos": [
            {"step": "Parse", "status": "completed"},
            {"description": "Test", "status": "in_progress"}
        ]}),
    ));
    let kept = coordinator.session_state::<TodoList>().snapshot();
    assert_eq!(kept[0].content, "Parse");
    assert_eq!(kept[1].content, "Test");
}

#[test]
fn todo_write_runs_in_plan_mode_without_asking() {
    // No approver: anything that had to ask would be denied.
    let coordinator = coordinator(&["todo_write", "think"])
        .mode(Mode::Plan)
        .build()
        .unwrap();
    ok(&call(
        &coordinator,
        "todo_write",
        todos(&[("Plan", "in_progress")]),
    ));
    ok(&call(&coordinator, "think", json!({"thought": "fine"})));
}

// ---------------------------------------------------------------------------------------------
// present_plan

/// A coordinator in plan mode over `present_plan` and a mutating tool, its approver a channel
/// whose requests a UI task answers with `answer`; the requests it saw.
fn planning(
    answer: ApprovalResponse,
) -> (
    Coordinator,
    Arc<Mutex<Vec<tool_core::approval::ApprovalRequest>>>,
) {
    let (approver, mut requests) = ChannelApprover::new(4);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let ui_seen = Arc::clone(&seen);
    std::thread::spawn(move || {
        while let Some(pending) = requests.blocking_recv() {
            let pending: PendingApproval = pending;
            ui_seen.lock().unwrap().push(pending.request().clone());
            pending.respond(answer.clone());
        }
    });
    let coordinator = coordinator(&["present_plan", "steer_write"])
        .mode(Mode::Plan)
        .approver(approver)
        .build()
        .unwrap();
    (coordinator, seen)
}

const PLAN: &str = "1. Add `parse_header` to src/parse.rs\n2. Test it in tests/parse.rs";

#[test]
fn an_accepted_plan_leaves_plan_mode_and_a_mutating_tool_refused_before_runs_after() {
    let (coordinator, seen) = planning(ApprovalResponse::once());
    let write = ToolCall::new("steer_write", "{}");
    let refused = coordinator.call_blocking(write.clone());
    assert!(
        matches!(refused.error(), Some(ToolError::Denied { .. })),
        "{}",
        refused.text()
    );
    assert!(
        seen.lock().unwrap().is_empty(),
        "plan mode denies, it does not ask"
    );

    let text = ok(&call(&coordinator, "present_plan", json!({ "plan": PLAN })));
    assert!(
        text.starts_with("The user approved your plan. Plan mode is over (now in default mode)."),
        "{text}"
    );
    assert_eq!(coordinator.mode(), Mode::Default);

    let requests = seen.lock().unwrap().clone();
    assert_eq!(
        requests.len(),
        1,
        "present_plan asks once: the policy never asks for it"
    );
    assert_eq!(
        requests[0].kind,
        RequestKind::Plan {
            plan: PLAN.to_owned()
        }
    );
    // Out of plan mode the write is an ordinary call again: the policy asks, the user approves.
    assert_eq!(coordinator.call_blocking(write).text(), "written");
}

#[test]
fn a_rejected_plan_returns_the_guidance_and_stays_in_plan_mode() {
    let (coordinator, _) = planning(ApprovalResponse::reject("also handle empty headers"));
    let text = ok(&call(&coordinator, "present_plan", json!({ "plan": PLAN })));
    assert!(
        text.starts_with("The user did not approve the plan. Their guidance: also handle empty headers\nYou are still in plan mode"),
        "{text}"
    );
    assert!(text.contains("Do not start the work."), "{text}");
    assert_eq!(coordinator.mode(), Mode::Plan);
    assert!(
        coordinator
            .call_blocking(ToolCall::new("steer_write", "{}"))
            .is_error()
    );
}

#[test]
fn a_plan_rejected_without_a_word_asks_the_model_to_ask_the_user() {
    let (coordinator, _) = planning(ApprovalResponse::Reject { guidance: None });
    let text = ok(&call(&coordinator, "present_plan", json!({ "plan": PLAN })));
    assert!(text.contains("said nothing more"), "{text}");
    assert_eq!(coordinator.mode(), Mode::Plan);
}

#[test]
fn the_approver_chooses_the_mode_the_work_continues_in() {
    let (coordinator, _) = planning(ApprovalResponse::Approve(ApprovalScope::Mode(
        Mode::AcceptEdits,
    )));
    let text = ok(&call(&coordinator, "present_plan", json!({ "plan": PLAN })));
    assert!(text.contains("now in accept_edits mode"), "{text}");
    assert_eq!(coordinator.mode(), Mode::AcceptEdits);
}

#[test]
fn a_plan_approved_into_plan_mode_is_not_told_plan_mode_is_over() {
    let (coordinator, _) = planning(ApprovalResponse::Approve(ApprovalScope::Mode(Mode::Plan)));
    let text = ok(&call(&coordinator, "present_plan", json!({ "plan": PLAN })));
    assert!(!text.contains("Plan mode is over"), "{text}");
    assert!(!text.contains("Carry it out now"), "{text}");
    assert!(text.contains("still in plan mode"), "{text}");
    assert_eq!(coordinator.mode(), Mode::Plan);
}

#[test]
fn an_aborted_plan_is_a_cancelled_call() {
    let (coordinator, _) = planning(ApprovalResponse::Abort);
    let result = call(&coordinator, "present_plan", json!({ "plan": PLAN }));
    assert!(matches!(result.error(), Some(ToolError::Cancelled)));
    assert_eq!(coordinator.mode(), Mode::Plan);
}

/// Claude Code's name for the tool.
#[test]
fn claude_codes_exit_plan_mode_call_is_accepted() {
    let coordinator = coordinator(&["present_plan"])
        .mode(Mode::Plan)
        .approver(AutoApprove)
        .build()
        .unwrap();
    ok(&call(&coordinator, "ExitPlanMode", json!({ "plan": PLAN })));
    assert_eq!(coordinator.mode(), Mode::Default);
}

#[test]
fn without_an_approver_present_plan_says_nobody_can_approve() {
    let coordinator = coordinator(&["present_plan"])
        .mode(Mode::Plan)
        .build()
        .unwrap();
    let text = err(&call(&coordinator, "present_plan", json!({ "plan": PLAN })));
    assert!(text.contains("nobody can approve a plan"), "{text}");
    assert_eq!(coordinator.mode(), Mode::Plan);
}

#[test]
fn an_empty_plan_is_refused_before_anyone_is_asked() {
    let (coordinator, seen) = planning(ApprovalResponse::once());
    let text = err(&call(&coordinator, "present_plan", json!({ "plan": "" })));
    assert!(text.contains("`plan` is empty"), "{text}");
    assert!(seen.lock().unwrap().is_empty());
}

#[test]
fn an_accepted_plan_outside_plan_mode_leaves_the_mode_as_it_was() {
    let coordinator = coordinator(&["present_plan"])
        .mode(Mode::AcceptEdits)
        .approver(AutoApprove)
        .build()
        .unwrap();
    let text = ok(&call(&coordinator, "present_plan", json!({ "plan": PLAN })));
    assert_eq!(
        text,
        "The user approved your plan. Carry it out now, step by step; keep the todo list up to date if you have one."
    );
    assert_eq!(coordinator.mode(), Mode::AcceptEdits);
}

// ---------------------------------------------------------------------------------------------
// subtask

/// What the fake runner saw of its task.
#[derive(Debug, Clone)]
struct Seen {
    level: u32,
    deadline: Option<Instant>,
    tools: Option<Vec<String>>,
    subagent_type: Option<String>,
    description: String,
}

/// A stand-in for a model: each line of the prompt is a call, `tool {json}`, run through the
/// task; the report is each call's tool and text, one per line. A prompt of `wait` waits until
/// the task is cancelled.
#[derive(Clone, Default)]
struct Scripted {
    seen: Arc<Mutex<Vec<Seen>>>,
    tokens: Arc<Mutex<Vec<CancellationToken>>>,
}

impl SubAgentRunner for Scripted {
    fn run<'a>(&'a self, task: SubAgentTask) -> BoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            self.seen.lock().unwrap().push(Seen {
                level: task.level,
                deadline: task.deadline,
                tools: task.tools.clone(),
                subagent_type: task.subagent_type.clone(),
                description: task.description.clone(),
            });
            self.tokens.lock().unwrap().push(task.cancellation.clone());
            if task.prompt == "wait" {
                task.cancellation.cancelled().await;
                return Ok("stopped".to_owned());
            }
            let mut report = Vec::new();
            for (n, line) in task.prompt.lines().enumerate() {
                let (tool, arguments) = line.split_once(' ').unwrap_or((line, "{}"));
                let call =
                    ToolCall::new(tool, arguments).with_call_id(format!("sub_{}_{n}", task.level));
                let result: ToolResult = task.call(call).await;
                let kind = result.error().map_or("ok", ToolError::kind);
                report.push(format!("{tool} [{kind}]: {}", result.text()));
            }
            Ok(report.join("\n"))
        })
    }
}

fn with_subagents(subagents: Subagents) -> tool_core::coordinator::CoordinatorBuilder {
    coordinator(&["subtask", "steer_where", "steer_write"]).state(subagents)
}

fn subtask(prompt: &str) -> serde_json::Value {
    json!({ "description": "look around", "prompt": prompt })
}

#[test]
fn a_sub_agents_calls_run_one_level_deeper_through_the_same_coordinator() {
    let runner = Scripted::default();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let coordinator = with_subagents(Subagents::new(runner.clone()))
        .events(move |event: CallEvent| sink.lock().unwrap().push(event))
        .build()
        .unwrap();
    let text = ok(&call(&coordinator, "subtask", subtask("steer_where {}")));
    assert_eq!(text, "steer_where [ok]: depth 1");

    // The nested call is an ordinary call of the coordinator: watchers see it start and end,
    // inside the subtask's own call.
    let events = events.lock().unwrap();
    let order: Vec<String> = events
        .iter()
        .filter_map(|event| match event {
            CallEvent::Started { call_id, tool } => Some(format!("start {tool} {call_id}")),
            CallEvent::Finished { call_id, tool, .. } => Some(format!("end {tool} {call_id}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        order,
        [
            "start subtask ",
            "start steer_where sub_1_0",
            "end steer_where sub_1_0",
            "end subtask "
        ]
    );
    assert_eq!(runner.seen.lock().unwrap()[0].level, 1);
}

#[test]
fn the_policy_applies_to_a_sub_agents_calls() {
    let coordinator = with_subagents(Subagents::new(Scripted::default()))
        .policy(PolicyBuilder::default().deny("steer_write"))
        .build()
        .unwrap();
    let text = ok(&call(
        &coordinator,
        "subtask",
        subtask("steer_write {}\nsteer_where {}"),
    ));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("steer_write [denied]: "), "{text}");
    assert!(lines[0].contains("deny rule `steer_write`"), "{text}");
    assert_eq!(lines[1], "steer_where [ok]: depth 1");
}

#[test]
fn a_sub_agent_in_plan_mode_cannot_write() {
    let coordinator = with_subagents(Subagents::new(Scripted::default()))
        .mode(Mode::Plan)
        .approver(AutoApprove)
        .build()
        .unwrap();
    let text = ok(&call(&coordinator, "subtask", subtask("steer_write {}")));
    assert!(text.starts_with("steer_write [denied]"), "{text}");
}

#[test]
fn a_sub_agent_cannot_present_a_plan_to_leave_plan_mode() {
    let coordinator = coordinator(&["subtask", "present_plan", "steer_write"])
        .state(Subagents::new(Scripted::default()))
        .mode(Mode::Plan)
        .approver(AutoApprove)
        .build()
        .unwrap();
    let plan = json!({ "plan": "1. Write" }).to_string();
    let text = ok(&call(
        &coordinator,
        "subtask",
        subtask(&format!("present_plan {plan}\nsteer_write {{}}")),
    ));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("present_plan [denied]"), "{text}");
    assert!(lines[1].starts_with("steer_write [denied]"), "{text}");
    assert_eq!(coordinator.mode(), Mode::Plan);
}

#[test]
fn a_sub_agent_of_a_sub_agent_is_refused_past_the_default_depth() {
    let coordinator = with_subagents(Subagents::new(Scripted::default()))
        .build()
        .unwrap();
    let inner = json!({"description": "deeper", "prompt": "steer_where {}"}).to_string();
    let text = ok(&call(
        &coordinator,
        "subtask",
        subtask(&format!("subtask {inner}")),
    ));
    assert!(text.starts_with("subtask [denied]: "), "{text}");
    assert!(
        text.contains("a sub-agent here would run at level 2, and this session allows sub-agents of the main agent only"),
        "{text}"
    );
}

#[test]
fn a_higher_depth_limit_lets_a_sub_agent_start_its_own() {
    let runner = Scripted::default();
    let coordinator = with_subagents(Subagents::new(runner.clone()).max_depth(2))
        .build()
        .unwrap();
    let inner = json!({"description": "deeper", "prompt": "steer_where {}"}).to_string();
    let text = ok(&call(
        &coordinator,
        "subtask",
        subtask(&format!("subtask {inner}")),
    ));
    assert_eq!(text, "subtask [ok]: steer_where [ok]: depth 2");
    let levels: Vec<u32> = runner
        .seen
        .lock()
        .unwrap()
        .iter()
        .map(|s| s.level)
        .collect();
    assert_eq!(levels, [1, 2]);
}

#[test]
fn a_depth_limit_of_zero_refuses_every_subtask() {
    let coordinator = with_subagents(Subagents::new(Scripted::default()).max_depth(0))
        .build()
        .unwrap();
    let text = err(&call(&coordinator, "subtask", subtask("steer_where {}")));
    assert!(text.contains("allows no sub-agents at all"), "{text}");
}

#[test]
fn without_a_runner_subtask_says_none_is_configured_and_how_to_give_one() {
    let coordinator = coordinator(&["subtask"]).build().unwrap();
    let text = err(&call(&coordinator, "subtask", subtask("anything")));
    assert!(text.contains("no sub-agent runner is configured"), "{text}");
    assert!(
        text.contains(".state(tool_std::Subagents::new(runner))"),
        "{text}"
    );
}

/// Claude Code's call: `Task(description, prompt, subagent_type)`.
#[test]
fn claude_codes_task_call_is_accepted() {
    let runner = Scripted::default();
    let coordinator = with_subagents(Subagents::new(runner.clone()))
        .build()
        .unwrap();
    ok(&call(
        &coordinator,
        "Task",
        json!({"description": "Find callers", "prompt": "steer_where {}", "subagent_type": "Explore"}),
    ));
    let seen = runner.seen.lock().unwrap();
    assert_eq!(seen[0].subagent_type.as_deref(), Some("Explore"));
    assert_eq!(seen[0].description, "Find callers");
}

#[test]
fn a_sub_agent_given_some_tools_is_refused_the_others() {
    let runner = Scripted::default();
    let coordinator = with_subagents(Subagents::new(runner.clone()))
        .approver(AutoApprove)
        .build()
        .unwrap();
    let text = ok(&call(
        &coordinator,
        "subtask",
        json!({"description": "d", "prompt": "steer_write {}\nsteer_where {}", "tools": ["steer_where"]}),
    ));
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("steer_write [denied]: ")
            && lines[0].contains(
                "`steer_write` is not one of the tools this sub-agent was given (steer_where)"
            ),
        "{text}"
    );
    assert_eq!(lines[1], "steer_where [ok]: depth 1");
    assert_eq!(
        runner.seen.lock().unwrap()[0].tools.as_deref(),
        Some(&["steer_where".to_owned()][..])
    );
}

#[test]
fn a_sub_agent_given_execute_cannot_reach_the_tools_it_was_not_given() {
    let coordinator = coordinator(&["subtask", "execute", "steer_where", "steer_write"])
        .state(Subagents::new(Scripted::default()))
        .approver(AutoApprove)
        .build()
        .unwrap();
    let code = json!({ "code": "steer_write()" }).to_string();
    let result = call(
        &coordinator,
        "subtask",
        json!({"description": "d", "prompt": format!("execute {code}"), "tools": ["steer_where", "execute"]}),
    );
    // Refused outright, or run without reaching steer_write: never "written".
    assert!(!result.text().contains("written"), "{}", result.text());
    assert!(result.text().contains("execute"), "{}", result.text());
}

#[test]
fn tools_naming_no_tool_are_refused_with_the_closest_names() {
    let coordinator = with_subagents(Subagents::new(Scripted::default()))
        .build()
        .unwrap();
    let text = err(&call(
        &coordinator,
        "subtask",
        json!({"description": "d", "prompt": "p", "tools": ["steer_wher"]}),
    ));
    assert!(
        text.contains("`steer_wher` (did you mean `steer_where`?)"),
        "{text}"
    );
}

#[test]
fn the_sub_agent_is_given_the_calls_deadline() {
    let runner = Scripted::default();
    let coordinator = with_subagents(Subagents::new(runner.clone()))
        .default_timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let before = Instant::now();
    ok(&call(&coordinator, "subtask", subtask("steer_where {}")));
    let after = Instant::now();
    let deadline = runner.seen.lock().unwrap()[0].deadline.unwrap();
    let limit = Duration::from_secs(30);
    assert!(
        deadline >= before + limit && deadline <= after + limit,
        "the deadline is the 30 s default timeout from when the call started"
    );
}

#[test]
fn a_sub_agent_past_its_time_budget_is_cancelled_and_the_subtask_says_so() {
    let runner = Scripted::default();
    let coordinator =
        with_subagents(Subagents::new(runner.clone()).time_budget(Duration::from_millis(50)))
            .build()
            .unwrap();
    let text = err(&call(&coordinator, "subtask", subtask("wait")));
    assert!(
        text.contains("the sub-agent ran out of its time budget (50 ms)"),
        "{text}"
    );
    let deadline = runner.seen.lock().unwrap()[0].deadline;
    assert!(deadline.is_some(), "the budget is the sub-agent's deadline");
    assert!(runner.tokens.lock().unwrap()[0].is_cancelled());
}

#[test]
fn an_empty_prompt_is_refused_before_the_runner_starts() {
    let runner = Scripted::default();
    let coordinator = with_subagents(Subagents::new(runner.clone()))
        .build()
        .unwrap();
    let text = err(&call(&coordinator, "subtask", subtask(" ")));
    assert!(text.contains("`prompt` is empty"), "{text}");
    assert!(runner.seen.lock().unwrap().is_empty());
}

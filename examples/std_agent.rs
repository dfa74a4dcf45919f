//! An agent that links `tool-std` and talks to a model in Anthropic's Messages format: the
//! toolset is declared in Anthropic's dialect, each `tool_use` block the model sends is parsed
//! into a call, the calls of a turn run as one batch through the coordinator, and the results
//! go back as `tool_result` blocks. The model is scripted (its replies are the JSON the API
//! returns), so the example runs anywhere, with no network or API key.
//!
//! What to watch, turn by turn:
//! 1. the model plans with `todo_write` and looks around with `glob`, in one batch;
//! 2. code mode: one `execute` call runs Python that calls `grep` and `read_file`, a round
//!    trip instead of three;
//! 3. the session is in plan mode, so `edit_file` is refused;
//! 4. `present_plan` asks the user, who accepts and chooses "accept edits";
//! 5. the edit runs now, and a read-only `run_shell` checks it without asking;
//! 6. `rm -rf src` is asked about, and the user says no, with guidance the model reads;
//! 7. `fetch_url` of the cloud metadata address is refused before any connection is made.
//!
//! Run with `cargo run --example std_agent`.

use serde_json::{Value, json};
use tool_core::{
    BoxFuture, Coordinator, ToolResult, Toolset, Workspace,
    approval::{ApprovalRequest, ApprovalResponse, ApprovalScope, Approver, RequestKind},
    policy::Mode,
    provider::{Payload, anthropic},
    schema::Dialect,
};

// Linking tool-std puts its tools in the registry; nothing else is needed.
use tool_std as _;

/// The user at the keyboard, scripted: accepts plans (continuing with edits accepted) and
/// refuses to let anything be deleted.
struct ScriptedUser;

impl Approver for ScriptedUser {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        let response = match &request.kind {
            RequestKind::Plan { plan } => {
                println!("  [user reads the plan] {plan}");
                println!("  [user] accepts, and lets edits through from now on");
                ApprovalResponse::Approve(ApprovalScope::Mode(Mode::AcceptEdits))
            }
            _ => {
                println!("  [user is asked] {} ({})", request.preview, request.reason);
                println!("  [user] no");
                ApprovalResponse::reject("do not delete anything; the fix is done, stop here")
            }
        };
        Box::pin(async move { response })
    }
}

/// The model's replies, as the Messages API returns them: each a turn of `tool_use` blocks.
fn scripted_model() -> Vec<Value> {
    let turn = |id: &str, calls: Value| {
        let content: Vec<Value> = calls
            .as_array()
            .expect("a list of calls")
            .iter()
            .enumerate()
            .map(|(i, call)| {
                json!({"type": "tool_use", "id": format!("toolu_{id}_{i}"),
                       "name": call[0], "input": call[1]})
            })
            .collect();
        json!({"id": format!("msg_{id}"), "type": "message", "role": "assistant",
               "content": content, "stop_reason": "tool_use"})
    };
    vec![
        turn(
            "1",
            json!([
                ["todo_write", {"todos": [
                    {"content": "Find why add() is wrong", "activeForm": "Finding the bug", "status": "in_progress"},
                    {"content": "Fix it", "status": "pending"},
                    {"content": "Check the fix", "status": "pending"}
                ]}],
                ["glob", {"pattern": "**/*.rs"}]
            ]),
        ),
        turn(
            "2",
            json!([["execute", {"code":
                "hits = grep(pattern=\"a - b\", output_mode=\"content\")\n\
                 print(hits)\n\
                 source = read_file(\"src/lib.rs\")\n\
                 len(source.splitlines())"}]]),
        ),
        turn(
            "3",
            json!([["edit_file", {"file_path": "src/lib.rs", "old_string": "a - b", "new_string": "a + b"}]]),
        ),
        turn(
            "4",
            json!([["present_plan", {"plan": "In src/lib.rs, add() subtracts: change `a - b` to `a + b`, then grep to check."}]]),
        ),
        turn(
            "5",
            json!([
                ["edit_file", {"file_path": "src/lib.rs", "old_string": "a - b", "new_string": "a + b"}],
                ["run_shell", {"command": "grep -n 'a + b' src/lib.rs"}]
            ]),
        ),
        turn("6", json!([["run_shell", {"command": "rm -rf src"}]])),
        turn(
            "7",
            json!([["fetch_url", {"url": "http://169.254.169.254/latest/meta-data/"}]]),
        ),
    ]
}

/// A project to work on: a fresh directory with one buggy file.
fn project() -> std::io::Result<std::path::PathBuf> {
    let root = std::env::temp_dir().join(format!("toolkit-std-agent-{}", std::process::id()));
    std::fs::create_dir_all(root.join("src"))?;
    std::fs::write(
        root.join("src/lib.rs"),
        "/// The sum of two numbers.\npub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    )?;
    Ok(root)
}

/// The first line of a result, for the transcript.
fn headline(result: &ToolResult) -> String {
    let text = result.text();
    let first = text
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("");
    let mut shown: String = first.chars().take(110).collect();
    if shown.len() < first.len() {
        shown.push('…');
    }
    shown
}

/// An agent that runs code in-process counts its memory, so that a run is bounded in total.
#[global_allocator]
static ALLOCATOR: tool_std::code::CountingAllocator = tool_std::code::CountingAllocator;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = project()?;
    let toolset = Toolset::all();
    let export = toolset.export(Dialect::Anthropic { strict: false });
    println!(
        "{} tools declared in Anthropic's dialect, {} export problems",
        export.tools.len(),
        export.problems.len()
    );
    let coordinator = Coordinator::builder()
        .toolset(toolset)
        .workspace(Workspace::new(&root)?)
        .mode(Mode::Plan)
        .approver(ScriptedUser)
        .output_limit(4_000)
        .build()?;

    for (number, reply) in scripted_model().iter().enumerate() {
        let message = anthropic::Message::from_value(reply)?;
        let calls = anthropic::tool_calls(&message, &export);
        println!("\nturn {} ({:?} mode):", number + 1, coordinator.mode());
        let results = coordinator.call_batch(calls.clone()).await;
        for (call, result) in calls.iter().zip(&results) {
            let mark = if result.is_error() { "✗" } else { "✓" };
            println!("  {mark} {}: {}", call.name, headline(result));
        }
        // What goes back to the model: one user message of tool_result blocks.
        let answer = serde_json::to_value(anthropic::tool_results(&results))?;
        let errors = answer["content"].as_array().map_or(0, |blocks| {
            blocks
                .iter()
                .filter(|block| block["is_error"] == true)
                .count()
        });
        println!(
            "  → tool_result blocks: {} ({errors} with is_error)",
            results.len()
        );
    }

    let fixed = std::fs::read_to_string(root.join("src/lib.rs"))?;
    println!("\nsrc/lib.rs now:\n{fixed}");
    std::fs::remove_dir_all(&root)?;
    Ok(())
}

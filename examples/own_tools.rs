//! An agent loop: a model asks for tool calls, the coordinator runs them, the results go back to
//! the model. The model here is scripted — it replays the calls a real model typically makes,
//! mistakes included — so the example runs anywhere, with no network or API key.
//!
//! What to watch:
//! - turn 1 runs two reads as one batch, in parallel;
//! - turn 2 sends `file_path` instead of `path`, reads the error ("did you mean `path`?") and
//!   corrects itself;
//! - the session starts in plan mode: the write in turn 4 is denied ("plan mode is on"), the
//!   plan tool, which approves itself, runs, and the user leaves plan mode;
//! - the next write asks the user (here a scripted one, who approves for the session);
//! - a write to `../` is stopped by the safety layer, whatever anyone approved;
//! - a read-only shell command runs without asking (the classifier reads it with the policy's
//!   shell analysis), and `rm` disguised behind `cd`, `sudo`, an assignment and quotes is
//!   still caught by the deny rule `Bash(rm *)`.
//!
//! Run with `cargo run --example own_tools`.

use std::collections::VecDeque;

use tool_core::{
    BoxFuture, Coordinator, ToolCall, ToolError, ToolResult, Toolset, Workspace, WorkspacePath,
    approval::{ApprovalRequest, ApprovalResponse, ApprovalScope, Approver},
    events::CallEvent,
    policy::{Mode, PolicyBuilder, shell::CommandLine},
    tool,
};

/// List the entries of a directory in the workspace, directories marked with a trailing `/`.
///
/// # Arguments
/// * `path` - Directory, relative to the workspace root.
#[tool(
    read_only,
    closed_world,
    name = "agent_list_dir",
    aliases("LS"),
    tags("agent")
)]
fn list_dir(ws: &Workspace, path: WorkspacePath) -> Result<String, ToolError> {
    // The workspace's handles, not `std::fs`: the kernel keeps the I/O inside the workspace.
    let mut names: Vec<String> = ws
        .read_dir(&path)
        .map_err(|error| {
            ToolError::failed(format!("cannot list `{}`: {error}", path.sent().display()))
        })?
        .filter_map(Result::ok)
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    names.sort();
    Ok(names.join("\n"))
}

/// Read lines of a text file in the workspace.
///
/// # Arguments
/// * `path` - File path, relative to the workspace root.
/// * `limit` - At most this many lines, from the top.
#[tool(
    read_only,
    closed_world,
    blocking,
    name = "agent_read_file",
    aliases("Read"),
    tags("agent")
)]
fn read_file(
    ws: &Workspace,
    path: WorkspacePath,
    #[arg(default = 20)] limit: usize,
) -> Result<String, ToolError> {
    let text = ws.read_to_string(&path).map_err(|error| {
        ToolError::failed(format!("cannot read `{}`: {error}", path.sent().display()))
    })?;
    Ok(text.lines().take(limit).collect::<Vec<_>>().join("\n"))
}

/// Write a text file in the workspace, replacing it if it exists.
///
/// # Arguments
/// * `path` - File path, relative to the workspace root.
/// * `text` - The whole new content.
#[tool(
    closed_world,
    name = "agent_write_file",
    aliases("Write"),
    tags("agent")
)]
fn write_file(ws: &Workspace, path: WorkspacePath, text: String) -> Result<String, ToolError> {
    ws.write(&path, &text)?;
    Ok(format!(
        "wrote {} bytes to {}",
        text.len(),
        path.sent().display()
    ))
}

/// Present a plan to the user, who decides whether to leave plan mode and carry it out.
///
/// # Arguments
/// * `plan` - The steps, one per line.
#[tool(
    self_approving,
    closed_world,
    name = "agent_present_plan",
    tags("agent")
)]
fn present_plan(plan: String) -> String {
    format!("plan presented to the user:\n{plan}")
}

/// Count the lines, words and bytes of a text.
///
/// # Arguments
/// * `text` - The text to count.
#[tool(read_only, closed_world, name = "agent_count", tags("agent"))]
fn count(text: String) -> String {
    format!(
        "{} lines, {} words, {} bytes",
        text.lines().count(),
        text.split_whitespace().count(),
        text.len()
    )
}

/// Programs that only read, whatever their arguments.
const READ_ONLY_PROGRAMS: &[&str] = &["ls", "cat", "head", "tail", "wc", "grep", "pwd", "echo"];

/// A command is read-only when everything it runs is known, reads only, and it writes no file.
fn reads_only(command: &str) -> bool {
    let line = CommandLine::analyze(command);
    line.is_fully_known()
        && line.writes().is_empty()
        && line.runs().iter().all(|run| {
            run.program()
                .is_some_and(|program| READ_ONLY_PROGRAMS.contains(&program))
        })
}

/// Run a shell command in the workspace root and return what it printed.
///
/// # Arguments
/// * `command` - The command line, run with `sh -c`.
#[tool(
    read_only_if = reads_only,
    blocking,
    name = "agent_shell",
    aliases("Bash"),
    tags("agent")
)]
fn shell(ws: &Workspace, #[arg(command)] command: String) -> Result<String, ToolError> {
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(&command)
        .current_dir(ws.root())
        .output()?;
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    if output.status.success() {
        Ok(text)
    } else {
        Err(ToolError::failed(format!(
            "{} ({})",
            text.trim_end(),
            output.status
        )))
    }
}

/// A stand-in for a language model: each turn, it looks at the last results and answers with
/// tool calls or a final message.
struct ScriptedModel {
    turns: VecDeque<Vec<(&'static str, &'static str)>>,
}

enum Reply {
    Calls(Vec<ToolCall>),
    Final(String),
}

impl ScriptedModel {
    fn new() -> Self {
        ScriptedModel {
            turns: VecDeque::from([
                // Two reads at once: they run in parallel.
                vec![
                    ("agent_list_dir", r#"{"path": "."}"#),
                    ("agent_count", r#"{"text": "one two\nthree"}"#),
                ],
                // A typical slip: the wrong argument name.
                vec![("Read", r#"{"file_path": "notes.md", "limit": 5}"#)],
                vec![("Read", r#"{"path": "notes.md", "limit": 5}"#)],
                // Plan mode is on: this is denied, and the model presents its plan instead.
                vec![(
                    "Write",
                    r##"{"path": "summary.md", "text": "# Summary\n"}"##,
                )],
                vec![(
                    "agent_present_plan",
                    r#"{"plan": "1. write summary.md\n2. keep a copy outside the project"}"#,
                )],
                vec![(
                    "Write",
                    r##"{"path": "summary.md", "text": "# Summary\nTwo notes.\n"}"##,
                )],
                // The boundary holds whatever was approved.
                vec![(
                    "Write",
                    r##"{"path": "../summary-copy.md", "text": "# Summary\n"}"##,
                )],
                // A command that only reads runs without asking.
                vec![("Bash", r#"{"command": "ls src && wc -l notes.md"}"#)],
                // `rm`, however it is dressed, meets the deny rule.
                vec![("Bash", r#"{"command": "cd src && FOO=1 sudo 'rm' -rf .."}"#)],
            ]),
        }
    }

    fn reply(&mut self, turn: usize, last: &[ToolResult]) -> Reply {
        if let Some(error) = last.iter().find(|result| result.is_error()) {
            println!(
                "  (model reads the error and adjusts: {:?})",
                error.error().map(ToolError::kind)
            );
        }
        match self.turns.pop_front() {
            Some(calls) => Reply::Calls(
                calls
                    .into_iter()
                    .enumerate()
                    .map(|(i, (name, arguments))| {
                        ToolCall::new(name, arguments).with_call_id(format!("toolu_{turn}_{i}"))
                    })
                    .collect(),
            ),
            None => Reply::Final(
                "summary.md is written. I did not keep a copy outside the project \
                 (the workspace boundary does not allow it), nor clean up with rm (a deny \
                 rule forbids it)."
                    .into(),
            ),
        }
    }
}

/// The user at the keyboard, scripted: shows what is asked and approves it for the session.
struct ScriptedUser;

impl Approver for ScriptedUser {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        println!(
            "  [user is asked] {} ({}): approves for this session",
            request.preview, request.reason
        );
        Box::pin(async { ApprovalResponse::Approve(ApprovalScope::Session) })
    }
}

/// A project to work on: a fresh directory with two files.
fn project() -> std::io::Result<std::path::PathBuf> {
    let root = std::env::temp_dir().join(format!("toolkit-agent-{}", std::process::id()));
    std::fs::create_dir_all(root.join("src"))?;
    std::fs::write(
        root.join("notes.md"),
        "# Notes\n- tools are functions\n- the policy decides\n",
    )?;
    std::fs::write(root.join("src/lib.rs"), "pub fn answer() -> u32 { 42 }\n")?;
    Ok(root)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = project()?;
    let coordinator = Coordinator::builder()
        .toolset(Toolset::tagged("agent"))
        .workspace(Workspace::new(&root)?)
        .mode(Mode::Plan)
        .policy(PolicyBuilder::default().deny("Bash(rm *)"))
        .approver(ScriptedUser)
        .events(|event: CallEvent| {
            if let CallEvent::Decided { tool, decision, .. } = event {
                println!(
                    "  [policy] {tool}: {} ({})",
                    decision.verdict, decision.source
                );
            }
        })
        .build()?;
    println!("Workspace: {}", root.display());
    println!("Tools offered to the model:");
    for tool in coordinator.toolset().iter() {
        let spec = tool.spec();
        println!(
            "  {} ({}) {}",
            spec.name,
            spec.effect,
            serde_json::to_string(tool.input_schema())?
        );
    }

    let mut model = ScriptedModel::new();
    let mut last: Vec<ToolResult> = Vec::new();
    for turn in 1.. {
        match model.reply(turn, &last) {
            Reply::Final(message) => {
                println!("\nModel: {message}");
                break;
            }
            Reply::Calls(calls) => {
                println!("\nTurn {turn} (mode: {}):", coordinator.mode());
                for call in &calls {
                    println!("  model calls {}({})", call.name, call.arguments);
                }
                last = coordinator.call_batch(calls).await;
                for result in &last {
                    let marker = if result.is_error() { "error" } else { "result" };
                    for (i, line) in result.text().lines().take(8).enumerate() {
                        println!("  {} {line}", if i == 0 { marker } else { "     " });
                    }
                }
                if last.iter().any(|r| r.text().starts_with("plan presented")) {
                    println!("  [user accepts the plan and leaves plan mode]");
                    coordinator.set_mode(Mode::Default);
                }
            }
        }
    }
    std::fs::remove_dir_all(&root)?;
    Ok(())
}

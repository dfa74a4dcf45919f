//! The agent loop of `cargo run --example agent`: a model's turns, streamed in OpenAI's chat
//! completions format, parsed by tool-core's provider adapter into calls; each turn's calls run
//! as one batch through a coordinator over tool-std, in a copy of the sample project, under
//! its `.claude/settings.json`; the results go back as the `role: "tool"` messages the API
//! takes. What the model asked, what the policy decided and why, and what the model read are
//! written to `out` as they happen.
//!
//! The model is a [`Model`]: [`Replay`](super::replay::Replay) answers from the bundled
//! recording; a live endpoint would answer the same requests.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::wire::Wire;
use serde_json::{Value, json};
use tool_core::{
    BoxFuture, Coordinator, ToolCall, Toolset, Workspace,
    approval::{ApprovalRequest, ApprovalResponse, ApprovalScope, Approver, RequestKind},
    events::CallEvent,
    policy::{Mode, Verdict},
    settings::Settings,
};

// Linking tool-std puts its tools in the registry (`Toolset::all()` finds them).
use tool_std as _;

/// What answers the requests: the bundled recording, or a live endpoint.
pub trait Model {
    /// The server-sent events (`data:` lines) answering `request`, a request body in the
    /// model's [`wire`](Self::wire) format; `None` when the model has nothing more to say.
    fn answer<'a>(
        &'a mut self,
        request: &'a Value,
    ) -> BoxFuture<'a, Result<Option<String>, Failed>>;

    /// The wire format it speaks.
    fn wire(&self) -> Wire;
}

/// Why the model could not answer.
pub type Failed = Box<dyn std::error::Error + Send + Sync>;

/// What the model is told it is doing.
const SYSTEM: &str = "You are a coding agent working in a small Python package. The session starts in plan mode: explore with read-only tools, then present your plan with present_plan; once it is accepted, fix the code and run the tests with python3 -B -m unittest.";

/// The most turns a session takes: a live model that never stops is stopped here.
const MAX_TURNS: usize = 40;

/// How the transcript looks: plain, or coloured for a terminal.
#[derive(Clone, Copy)]
pub struct Style {
    pub colour: bool,
}

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

/// What the approver and the coordinator's events said about each call, by call id, in order.
#[derive(Clone, Default)]
pub struct Log {
    lines: Arc<Mutex<BTreeMap<String, Vec<Note>>>>,
}

/// One thing said about a call.
#[derive(Clone)]
pub enum Note {
    /// The policy's decision.
    Decided(Verdict, String),
    /// The user was asked, and answered.
    Asked(String),
    /// A hook's message.
    Hook(String),
}

impl Log {
    pub fn note(&self, call_id: &str, note: Note) {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(call_id.to_owned())
            .or_default()
            .push(note);
    }

    fn take(&self, call_id: &str) -> Vec<Note> {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(call_id)
            .unwrap_or_default()
    }
}

/// The user when nobody is at a terminal: accepts the plan with edits accepted from then on,
/// and approves the rest for the session; each answer noted in the transcript.
pub struct ScriptedUser {
    pub log: Log,
}

impl Approver for ScriptedUser {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        let response = match &request.kind {
            RequestKind::Plan { .. } => {
                ApprovalResponse::Approve(ApprovalScope::Mode(Mode::AcceptEdits))
            }
            _ => ApprovalResponse::Approve(ApprovalScope::Session),
        };
        self.log.note(
            &request.call_id,
            Note::Asked(answer_said(request, &response)),
        );
        Box::pin(async move { response })
    }
}

/// A user's answer as the transcript says it.
pub fn answer_said(request: &ApprovalRequest, response: &ApprovalResponse) -> String {
    match response {
        ApprovalResponse::Approve(ApprovalScope::Mode(mode)) => {
            format!(
                "accepts the plan; the session goes on in {} mode",
                mode.as_str()
            )
        }
        ApprovalResponse::Approve(ApprovalScope::Session) => {
            format!("approves `{}` for the session", request.tool)
        }
        ApprovalResponse::Approve(_) => "approves, this once".to_owned(),
        ApprovalResponse::Reject { .. } => "says no".to_owned(),
        _ => "does not answer".to_owned(),
    }
}

/// The sample project, copied where the agent may change it.
pub fn copy_sample(into: &Path) -> std::io::Result<PathBuf> {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agent/sample");
    let root = into.join("stats");
    copy_tree(&sample, &root)?;
    Ok(root)
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// How the session ended.
pub struct Outcome {
    /// The turns the model took.
    pub turns: usize,
    /// The request the model was last sent: the whole conversation, in OpenAI's format.
    pub last_request: Value,
    /// Whether the last test run the agent made passed.
    pub tests_pass: bool,
}

/// Runs the agent over the project at `root` until the model stops, writing the transcript to
/// `out`. `approver` answers what the policy asks; it should note its answers in `log`.
pub async fn run(
    root: &Path,
    model: &mut dyn Model,
    approver: impl Approver,
    log: Log,
    style: Style,
    out: &mut dyn Write,
) -> Result<Outcome, Failed> {
    let settings = Settings::load(root.join(".claude/settings.json"))?;
    let events = log.clone();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::all())
        .workspace(Workspace::new(root)?)
        .settings(settings)
        .mode(Mode::Plan)
        .approver(approver)
        .output_limit(6_000)
        .events(move |event: CallEvent| match event {
            CallEvent::Decided {
                call_id, decision, ..
            } => events.note(
                &call_id,
                Note::Decided(
                    decision.verdict,
                    format!("{} ({})", decision.reason, decision.source),
                ),
            ),
            CallEvent::HookNotice {
                call_id, message, ..
            } => events.note(&call_id, Note::Hook(message)),
            _ => {}
        })
        .build()?;
    let wire = model.wire();
    let export = coordinator.toolset().export(wire.dialect());
    writeln!(
        out,
        "{} tools declared to the model in the dialect of {}; the session starts in plan mode",
        export.tools.len(),
        export.dialect
    )?;
    let mut messages =
        vec![json!({"role": "user", "content": "The stats tests fail. Please fix the package."})];
    let mut turns = 0;
    let mut tests_pass = false;
    let mut mode = coordinator.mode();
    loop {
        let request = wire.request(SYSTEM, &messages, &export);
        if turns == MAX_TURNS {
            writeln!(out, "\nstopped after {MAX_TURNS} turns")?;
            break;
        }
        let Some(stream) = model.answer(&request).await? else {
            break;
        };
        turns += 1;
        let (text, calls) = wire.read_turn(&stream, &export)?;
        writeln!(
            out,
            "\n{}",
            style.paint("1", &format!("── turn {turns} ──"))
        )?;
        if !text.is_empty() {
            writeln!(out, "{} {text}", style.paint("36", "model "))?;
        }
        messages.push(wire.assistant(&text, &calls));
        if calls.is_empty() {
            break;
        }
        if calls.len() > 1 {
            writeln!(
                out,
                "       {} calls, run as one batch, in parallel",
                calls.len()
            )?;
        }
        let results = coordinator.call_batch(calls.clone()).await;
        for (call, result) in calls.iter().zip(&results) {
            show_call(
                call,
                &wire.reads(result),
                result.is_error(),
                &log,
                style,
                out,
            )?;
            if call.name == "run_shell" && !result.is_error() {
                tests_pass =
                    result.structured().and_then(|value| value.get("exit_code")) == Some(&json!(0));
            }
        }
        // What goes back: the provider's answer to each call.
        messages.extend(wire.answers(&results)?);
        if coordinator.mode() != mode {
            mode = coordinator.mode();
            writeln!(out, "       the session is now in {} mode", mode.as_str())?;
        }
    }
    let last_request = wire.request(SYSTEM, &messages, &export);
    Ok(Outcome {
        turns,
        last_request,
        tests_pass,
    })
}

/// One call: what was asked, what was decided, what the model reads back.
fn show_call(
    call: &ToolCall,
    text: &str,
    failed: bool,
    log: &Log,
    style: Style,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{} {} {}",
        style.paint("33", "  call "),
        call.name,
        shorten(&call.arguments, 110)
    )?;
    for note in log.take(&call.call_id) {
        let line = match note {
            Note::Decided(verdict, why) => {
                let (colour, word) = match verdict {
                    Verdict::Allow => ("32", "allow"),
                    Verdict::Ask => ("33", "ask"),
                    Verdict::Deny => ("31", "deny"),
                };
                format!("{} {}: {why}", style.paint(colour, "policy"), word)
            }
            Note::Asked(answer) => format!("{} {answer}", style.paint("35", "  user")),
            Note::Hook(message) => format!("{} {message}", style.paint("35", "  hook")),
        };
        writeln!(out, "       {line}")?;
    }
    let mark = if failed { "✗" } else { "✓" };
    let lines: Vec<&str> = text.lines().collect();
    let shown = 8;
    writeln!(
        out,
        "       {} {mark} the model reads:",
        style.paint("2", "result")
    )?;
    for line in lines.iter().take(shown) {
        writeln!(out, "         {}", style.paint("2", &shorten(line, 120)))?;
    }
    if lines.len() > shown {
        // The end too: where the output limit's note and a hook's added context go.
        writeln!(
            out,
            "         … {} more lines, ending:",
            lines.len() - shown
        )?;
        let last = lines.iter().rev().find(|line| !line.trim().is_empty());
        writeln!(
            out,
            "         {}",
            style.paint("2", &shorten(last.unwrap_or(&""), 120))
        )?;
    }
    Ok(())
}

fn shorten(text: &str, at: usize) -> String {
    match text.char_indices().nth(at) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

//! A coding agent over tool-std, the policy and a model conversation, end to end: the first
//! thing to run (`cargo run --example agent`).
//!
//! It works in a temporary copy of a small Python package whose tests fail
//! (`examples/agent/sample`), under the package's own `.claude/settings.json` (a deny rule for
//! `rm`, a hook that reminds the model to run the tests). The model is a recording
//! (`conversation.sse`): OpenAI chat completions, streamed, parsed by tool-core's provider
//! adapter, so the replay takes the path a live model's answers take, with no network and no
//! key. Watch for:
//!
//! 1. `repo_map` and `grep` as one parallel batch; `read_file`;
//! 2. plan mode refusing an edit, then `present_plan` accepted by the user;
//! 3. `run_shell` asking for approval (at a terminal you answer; otherwise a scripted user
//!    approves for the session) and the tests failing;
//! 4. an `edit_file` written with the wrong indentation, found by the edit ladder (the reply
//!    names the level), and the settings' hook adding its reminder;
//! 5. `apply_patch`, then the tests passing;
//! 6. `execute`: one Python snippet calling `grep` and `read_file`;
//! 7. a path outside the workspace refused, and `rm` disguised behind `cd` and `sudo` denied
//!    by the settings' rule.
//!
//! With `OPENAI_BASE_URL` (such as `https://api.openai.com/v1`), `OPENAI_API_KEY` and `MODEL`
//! set, a live model answers instead, through the same loop (`live.rs`); with
//! `ANTHROPIC_API_KEY`, Anthropic's Messages API (`wire.rs` holds both formats).

mod live;
mod replay;
mod session;
mod wire;

use std::io::{BufRead as _, IsTerminal as _, Write as _};

use tool_core::{
    BoxFuture,
    approval::{ApprovalRequest, ApprovalResponse, ApprovalScope, Approver, RequestKind},
    policy::Mode,
};

/// The user at the terminal, asked there.
struct TerminalUser {
    log: session::Log,
}

impl Approver for TerminalUser {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        let response = ask_at_terminal(request);
        self.log.note(
            &request.call_id,
            session::Note::Asked(session::answer_said(request, &response)),
        );
        Box::pin(async move { response })
    }
}

fn ask_at_terminal(request: &ApprovalRequest) -> ApprovalResponse {
    let question = match &request.kind {
        RequestKind::Plan { plan } => format!(
            "\nThe model's plan:\n{plan}\nAccept it (edits run without asking from then on)? [y/n] "
        ),
        _ => format!(
            "\nAllow {} ({})? [y]es once, [s]ession, [n]o: ",
            request.preview, request.reason
        ),
    };
    print!("{question}");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return ApprovalResponse::reject("the user did not answer");
    }
    match (&request.kind, answer.trim()) {
        (RequestKind::Plan { .. }, "y" | "yes") => {
            ApprovalResponse::Approve(ApprovalScope::Mode(Mode::AcceptEdits))
        }
        (_, "y" | "yes") => ApprovalResponse::Approve(ApprovalScope::Once),
        (_, "s" | "session") => ApprovalResponse::Approve(ApprovalScope::Session),
        _ => ApprovalResponse::reject("the user said no"),
    }
}

/// An agent that runs code in-process counts its memory, so that a run is bounded in total.
#[global_allocator]
static ALLOCATOR: tool_std::code::CountingAllocator = tool_std::code::CountingAllocator;

#[tokio::main]
async fn main() -> Result<(), session::Failed> {
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let at_terminal = std::io::stdin().is_terminal();
    let scratch = tempfile::tempdir()?;
    let root = session::copy_sample(scratch.path())?;
    println!(
        "A coding agent: tool-std, the policy and a replayed model conversation (OpenAI chat completions, streamed)"
    );
    println!(
        "working in {} (a copy of examples/agent/sample)",
        root.display()
    );
    let log = session::Log::default();
    let mut model: Box<dyn session::Model> = match live::Endpoint::from_env() {
        Some(endpoint) => {
            let endpoint = endpoint?;
            println!("the model: live, {}", endpoint.model());
            Box::new(endpoint)
        }
        None => {
            println!(
                "the model: the recording (set OPENAI_BASE_URL, OPENAI_API_KEY and MODEL, or ANTHROPIC_API_KEY, for a live one)"
            );
            Box::new(replay::Replay::bundled())
        }
    };
    let model = model.as_mut();
    let style = session::Style { colour };
    let mut out = std::io::stdout();
    let outcome = if at_terminal {
        let user = TerminalUser { log: log.clone() };
        session::run(&root, model, user, log, style, &mut out).await?
    } else {
        let user = session::ScriptedUser { log: log.clone() };
        session::run(&root, model, user, log, style, &mut out).await?
    };
    println!(
        "\n{} turns; {} messages sent back to the model in OpenAI's format; the sample's tests {}",
        outcome.turns,
        outcome.last_request["messages"]
            .as_array()
            .map_or(0, Vec::len),
        if outcome.tests_pass {
            "pass"
        } else {
            "still fail"
        }
    );
    Ok(())
}

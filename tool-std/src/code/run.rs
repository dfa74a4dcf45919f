//! The async side of a run: starts the interpreter's thread, runs each tool call it asks for
//! as a nested call through the [`ToolCaller`] (the coordinator's policy, hooks, approvals,
//! budget and events, one level deeper), and stops the run at the deadline or when the call
//! of `execute` is cancelled, without waiting for the interpreter to notice.

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;
use tool_core::ToolCall;
use tool_core::context::{CancellationToken, ToolCaller};

use super::functions::FunctionTable;
use super::interpreter::{self, Evaluated, Failure, Job, Request, RunState, Stop};
use super::limits::{CodeModeConfig, Limit};

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    /// What the code printed (up to the limit).
    pub printed: String,
    /// The tool calls it made.
    pub tool_calls: u32,
    pub result: Result<Evaluated, Failure>,
}

/// Runs `code`, its functions being the tools of `caller`'s toolset; `cancellation` is the
/// token of the call of `execute`.
///
/// When the run is stopped (cancelled, out of time), this returns at once: the interpreter's
/// thread ends at its next check (within [`STEPS_PER_CHECK`](super::STEPS_PER_CHECK)
/// instructions) or its next call, whichever comes first, and a nested call in flight is
/// dropped and its token cancelled (a blocking tool sees that when it next checks).
pub(crate) async fn run(
    code: String,
    caller: &ToolCaller,
    cancellation: &CancellationToken,
    config: CodeModeConfig,
) -> Outcome {
    let state = Arc::new(RunState::default());
    let started = Instant::now();
    // A limit too large to add is no limit: a century is as good.
    let deadline = started
        .checked_add(config.time_limit)
        .unwrap_or_else(|| started + std::time::Duration::from_secs(100 * 365 * 24 * 3600));
    let time_limit = Limit::Time(config.time_limit);
    let (requests, mut received) = mpsc::unbounded_channel();
    let job = Job {
        code,
        functions: Arc::new(FunctionTable::new(caller.toolset())),
        config,
        deadline,
        state: Arc::clone(&state),
        requests,
    };
    if let Err(error) = interpreter::spawn(job) {
        return Outcome {
            printed: String::new(),
            tool_calls: 0,
            result: Err(Failure::Crashed(format!(
                "could not start the interpreter's thread: {error}"
            ))),
        };
    }
    let parent = match caller.parent().call_id.as_str() {
        "" => "execute",
        id => id,
    }
    .to_owned();
    let out_of_time = tokio::time::sleep_until(deadline.into());
    tokio::pin!(out_of_time);
    let result = loop {
        let request = tokio::select! {
            biased;
            () = cancellation.cancelled() => break Err(state.stop(Stop::Cancelled).into()),
            () = &mut out_of_time => break Err(out_of_time_stop(&state, cancellation, time_limit.clone())),
            request = received.recv() => request,
        };
        match request {
            Some(Request::Call {
                tool,
                arguments,
                reply,
            }) => {
                // Nested calls are told apart from the model's in events and hooks by their
                // id: the parent's, then the call's number in the run.
                let call = ToolCall::new(tool, arguments)
                    .with_call_id(format!("{parent}.{}", state.tool_calls()));
                tokio::select! {
                    biased;
                    () = cancellation.cancelled() => break Err(state.stop(Stop::Cancelled).into()),
                    () = &mut out_of_time => break Err(out_of_time_stop(&state, cancellation, time_limit.clone())),
                    result = caller.call(call) => {
                        // The interpreter is gone only if it was stopped, which it will see.
                        let _ = reply.send(result);
                    }
                }
            }
            Some(Request::Finished(result)) => break result,
            None => {
                break Err(Failure::Crashed(
                    "the interpreter's thread ended without a result".to_owned(),
                ));
            }
        }
    };
    Outcome {
        printed: state.printed(),
        tool_calls: state.tool_calls(),
        result,
    }
}

/// Stops the run at its deadline, and cancels the call's token as a timeout does, so that a
/// nested call in flight (a child of that token) is told to stop too.
fn out_of_time_stop(
    state: &RunState,
    cancellation: &CancellationToken,
    time_limit: Limit,
) -> Failure {
    let failure = state.stop(Stop::Limit(time_limit)).into();
    cancellation.cancel();
    failure
}

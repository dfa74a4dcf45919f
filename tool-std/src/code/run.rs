//! The async side of a run: starts the interpreter's thread, runs each tool call it asks for
//! as a nested call through the [`ToolCaller`] (the coordinator's policy, hooks, approvals,
//! budget and events, one level deeper), and stops the run at the deadline or when the call
//! of `execute` is cancelled, without waiting for the interpreter to notice. Calls of code
//! that awaits are started as tasks of their own and run side by side; each await is answered
//! as soon as one of the calls it waits for is in. Dropping a run's future stops its
//! interpreter too.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;
use tokio::task::{JoinError, JoinSet};
use tool_core::context::CancellationToken;
use tool_core::coordinator::ToolCaller;
use tool_core::{ToolCall, ToolResult};

use super::functions::FunctionTable;
use super::interpreter::{self, AwaitReply, Evaluated, Failure, Job, Request, RunState, Stop};
use super::limits::{CodeModeConfig, Isolation, Limit};
use super::worker;

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
    if let Isolation::Worker {
        program,
        max_memory,
    } = &config.isolation
    {
        let (program, max_memory) = (program.clone(), *max_memory);
        return worker::run(code, caller, cancellation, config, &program, max_memory).await;
    }
    let state = Arc::new(RunState::default());
    // Dropped before the run ends (the coordinator's timeout drops the call's future before
    // it cancels the call's token; a client may drop it and cancel nothing), the interpreter
    // is told to stop at its next check instead of computing on to its own limits.
    let _stop_on_drop = StopOnDrop(Arc::clone(&state));
    let deadline = deadline(&config);
    let time_limit = Limit::Time(config.time_limit);
    let (requests, mut received) = mpsc::unbounded_channel();
    let job = Job {
        code,
        functions: Arc::new(FunctionTable::new(&caller.toolset())),
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
    let parent = parent_id(caller);
    let out_of_time = tokio::time::sleep_until(deadline.into());
    tokio::pin!(out_of_time);
    // Async code's calls, started and running side by side, and the results not yet awaited.
    let mut in_flight: JoinSet<(u32, ToolResult)> = JoinSet::new();
    let mut finished: HashMap<u32, ToolResult> = HashMap::new();
    let mut awaiting: Option<(Vec<u32>, AwaitReply)> = None;
    let result = loop {
        // An await is answered as soon as one of the calls it waits for is in.
        if awaiting
            .as_ref()
            .is_some_and(|(ids, _)| ids.iter().any(|id| finished.contains_key(id)))
            && let Some((ids, reply)) = awaiting.take()
        {
            let results = ids
                .iter()
                .filter_map(|id| finished.remove_entry(id))
                .collect();
            // The interpreter is gone only if it was stopped, which it will see.
            let _ = reply.send(results);
        }
        let event = tokio::select! {
            biased;
            () = cancellation.cancelled() => break Err(state.stop(Stop::Cancelled).into()),
            () = &mut out_of_time => break Err(out_of_time_stop(&state, cancellation, time_limit.clone())),
            request = received.recv() => Event::Request(request),
            Some(done) = in_flight.join_next(), if !in_flight.is_empty() => Event::Done(done),
        };
        let request = match event {
            Event::Request(Some(request)) => request,
            Event::Request(None) => {
                break Err(Failure::Crashed(
                    "the interpreter's thread ended without a result".to_owned(),
                ));
            }
            Event::Done(Ok((id, result))) => {
                finished.insert(id, result);
                continue;
            }
            Event::Done(Err(error)) => {
                break Err(Failure::Crashed(format!(
                    "a nested call's task failed: {error}"
                )));
            }
        };
        match request {
            Request::Call {
                number,
                tool,
                arguments,
                reply,
            } => {
                let call = nested_call(&parent, number, tool, arguments);
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
            Request::Start {
                id,
                number,
                tool,
                arguments,
            } => {
                let call = nested_call(&parent, number, tool, arguments);
                let caller = caller.clone();
                in_flight.spawn(async move { (id, caller.call(call).await) });
            }
            Request::Await { ids, reply } => awaiting = Some((ids, reply)),
            Request::Finished(result) => break result,
        }
    };
    Outcome {
        printed: state.printed(),
        tool_calls: state.tool_calls(),
        result,
    }
}

/// When a run that starts now must end: its time limit from now. A limit too large to add is
/// no limit: a century is as good.
pub(super) fn deadline(config: &CodeModeConfig) -> Instant {
    let started = Instant::now();
    started
        .checked_add(config.time_limit)
        .unwrap_or_else(|| started + std::time::Duration::from_secs(100 * 365 * 24 * 3600))
}

/// The id nested calls are numbered under: the call of `execute`'s own.
pub(super) fn parent_id(caller: &ToolCaller) -> String {
    match caller.parent().call_id.as_str() {
        "" => "execute",
        id => id,
    }
    .to_owned()
}

/// Tells the interpreter to stop when dropped; after a run's end, when its thread is done,
/// that changes nothing.
struct StopOnDrop(Arc<RunState>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop(Stop::Cancelled);
    }
}

/// What the async side waits for next.
enum Event {
    Request(Option<Request>),
    Done(Result<(u32, ToolResult), JoinError>),
}

/// A nested call, told apart from the model's calls in events and hooks by its id: the
/// parent's, then the call's number in the run.
pub(super) fn nested_call(parent: &str, number: u32, tool: String, arguments: String) -> ToolCall {
    ToolCall::new(tool, arguments).with_call_id(format!("{parent}.{number}"))
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

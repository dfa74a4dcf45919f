//! A run in a worker process of monty's own ([`Isolation::Worker`](super::Isolation)):
//! `monty-pool` starts the `monty` binary, the code runs there, and each suspension (a call of
//! a tool's function, a name to look up, futures to resolve, an OS call) comes back over the
//! worker's pipes to be answered here, as the in-process run answers them on its thread.
//!
//! What the process boundary changes: an abort inside the interpreter (a native stack
//! overflow, an allocator failure) ends the worker, and the run ends with
//! [`Failure::Crashed`] while this process goes on; the worker's allocator bounds the run's
//! whole memory; and a stop (a limit, a cancellation, the call's future dropped) kills the
//! worker at once instead of waiting for the interpreter's next check. The worker reports no
//! steps, so the step limit is not counted here: the time limit bounds a run that computes.

use std::collections::HashMap;
use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use monty_pool::{Pool, PoolConfig, PoolError, PrintFuture, ReplConfig, ResumeValue, TurnEvent};
use monty_types::{
    ExcType, ExtFunctionResult, MontyException, MontyObject, NameLookupResult, PrintStream,
    ResourceLimits,
};
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tool_core::ToolResult;
use tool_core::context::CancellationToken;
use tool_core::coordinator::ToolCaller;

use super::functions::FunctionTable;
use super::interpreter::{
    Evaluated, Failure, NO_HOST_ACCESS, SCRIPT_NAME, Stop, evaluated, is_out_of_time,
    python_failure, python_result, uses_await,
};
use super::limits::{CodeModeConfig, Limit};
use super::run::{Outcome, deadline, nested_call, parent_id};

/// How long past the run's own deadline the pool waits on a silent worker before killing it:
/// a backstop, since every wait here is bounded by the deadline already.
const WORKER_GRACE: Duration = Duration::from_secs(1);

/// Runs `code` in a worker started by `program`, with at most `max_memory` bytes; the tools of
/// `caller`'s toolset are its functions and `cancellation` is the token of the call of
/// `execute`.
pub(crate) async fn run(
    code: String,
    caller: &ToolCaller,
    cancellation: &CancellationToken,
    config: CodeModeConfig,
    program: &Path,
    max_memory: usize,
) -> Outcome {
    let deadline = deadline(&config);
    let printed = Arc::new(Printed::new(config.max_printed_bytes));
    let mut run = WorkerRun {
        caller,
        cancellation,
        functions: FunctionTable::new(&caller.toolset()),
        deadline,
        tool_calls: 0,
        asynchronous: uses_await(&code),
        printed: Arc::clone(&printed),
        parent: parent_id(caller),
        config,
    };
    let result = run.drive(&code, program, max_memory).await;
    Outcome {
        printed: printed.text(),
        tool_calls: run.tool_calls,
        result,
    }
}

/// One run's state on this side of the pipe.
struct WorkerRun<'a> {
    caller: &'a ToolCaller,
    cancellation: &'a CancellationToken,
    functions: FunctionTable,
    config: CodeModeConfig,
    deadline: Instant,
    tool_calls: u32,
    /// Whether the code awaits: its calls' values are then futures, run side by side.
    asynchronous: bool,
    printed: Arc<Printed>,
    /// The call id nested calls are numbered under.
    parent: String,
}

/// What the worker printed, capped; past the cap, the run is told to stop.
struct Printed {
    max_bytes: usize,
    text: Mutex<String>,
    /// Set when something did not fit; `over` wakes a run waiting on the worker.
    exceeded: AtomicBool,
    over: Notify,
}

impl Printed {
    fn new(max_bytes: usize) -> Self {
        Printed {
            max_bytes,
            text: Mutex::new(String::new()),
            exceeded: AtomicBool::new(false),
            over: Notify::new(),
        }
    }

    /// Keeps what fits of `fragment`; when something did not fit, wakes the run to stop it.
    fn push(&self, fragment: &str) {
        let mut text = self.text.lock().unwrap_or_else(PoisonError::into_inner);
        if text.len() + fragment.len() <= self.max_bytes {
            text.push_str(fragment);
            return;
        }
        let mut fits = self
            .max_bytes
            .saturating_sub(text.len())
            .min(fragment.len());
        while !fragment.is_char_boundary(fits) {
            fits -= 1;
        }
        text.push_str(&fragment[..fits]);
        self.exceeded.store(true, Ordering::Release);
        // A permit is kept when nobody waits yet, so the stop is never missed.
        self.over.notify_one();
    }

    fn text(&self) -> String {
        self.text
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// How a function call is answered.
enum Answer {
    Resume(ResumeValue),
    /// Start this nested call; its value is a future (async code).
    Start {
        number: u32,
        tool: String,
        arguments: String,
    },
    /// Run this nested call and answer with its result.
    Call {
        number: u32,
        tool: String,
        arguments: String,
        python_name: String,
        structured: bool,
    },
    Stop(Stop),
}

impl WorkerRun<'_> {
    async fn drive(
        &mut self,
        code: &str,
        program: &Path,
        max_memory: usize,
    ) -> Result<Evaluated, Failure> {
        let pool_config = PoolConfig {
            min_processes: 0,
            max_processes: 1,
            request_timeout: Some(self.config.time_limit.saturating_add(WORKER_GRACE)),
            ..PoolConfig::subprocess(program)
        };
        let repl = ReplConfig {
            script_name: SCRIPT_NAME.to_owned(),
            limits: Some(
                ResourceLimits::default()
                    .max_duration(self.remaining())
                    .max_recursion_depth(self.config.max_recursion_depth)
                    .max_memory(max_memory),
            ),
            // Each line as it is printed, so the printed-output limit stops the run promptly.
            print_flush_interval: Some(Duration::ZERO),
            ..ReplConfig::default()
        };
        // The pool and the checkout are dropped when this returns, however it returns: the
        // worker is killed (its `Child` is killed on drop), never returned to a pool.
        let pool = self
            .guard(Pool::new(pool_config))
            .await?
            .map_err(|error| self.pool_failure(error, program))?;
        let mut checkout = self
            .guard(pool.checkout(&repl))
            .await?
            .map_err(|error| self.pool_failure(error, program))?;
        let printed = Arc::clone(&self.printed);
        let mut on_print = move |_stream: PrintStream, text: &str| -> PrintFuture {
            printed.push(text);
            Box::pin(std::future::ready(()))
        };
        // Async code's calls, started and running side by side, the results not yet awaited,
        // and the function each started call was made through.
        let mut in_flight: JoinSet<(u32, ToolResult)> = JoinSet::new();
        let mut finished: HashMap<u32, ToolResult> = HashMap::new();
        let mut started: HashMap<u32, (String, bool)> = HashMap::new();
        let mut event = self
            .guard(checkout.feed(code, Vec::new(), Vec::new(), true, &mut on_print))
            .await?;
        loop {
            let turn = event.map_err(|error| self.pool_failure(error, program))?;
            let next = match turn {
                TurnEvent::Complete(value) => {
                    return match self.stopped() {
                        Some(stop) => Err(stop.into()),
                        None => Ok(evaluated(&value)),
                    };
                }
                TurnEvent::NameLookup { name, object_id } => {
                    let found = match (object_id, self.functions.get(&name)) {
                        (None, Some(function)) => NameLookupResult::Value(MontyObject::Function {
                            name: function.python_name.clone(),
                            docstring: Some(function.description.clone()),
                        }),
                        _ => NameLookupResult::Undefined,
                    };
                    self.guard(checkout.resume_name_lookup(found, &mut on_print))
                        .await?
                }
                TurnEvent::OsCall { .. } => {
                    let refused = MontyException::new(
                        ExcType::PermissionError,
                        Some(NO_HOST_ACCESS.to_owned()),
                    );
                    self.guard(checkout.resume(ResumeValue::Error(refused), &mut on_print))
                        .await?
                }
                TurnEvent::FunctionCall {
                    function_name,
                    args,
                    kwargs,
                    call_id,
                    object_id,
                } => {
                    let answer = self.answer(&function_name, &args, &kwargs, object_id.is_some());
                    let value = match answer {
                        Answer::Resume(value) => value,
                        Answer::Stop(stop) => return Err(stop.into()),
                        Answer::Start {
                            number,
                            tool,
                            arguments,
                        } => {
                            let function = self.functions.get(&function_name);
                            started.insert(
                                call_id,
                                (
                                    function_name.clone(),
                                    function.is_some_and(|function| function.structured),
                                ),
                            );
                            let call = nested_call(&self.parent, number, tool, arguments);
                            let caller = self.caller.clone();
                            in_flight.spawn(async move { (call_id, caller.call(call).await) });
                            ResumeValue::Future
                        }
                        Answer::Call {
                            number,
                            tool,
                            arguments,
                            python_name,
                            structured,
                        } => {
                            let call = nested_call(&self.parent, number, tool, arguments);
                            let result = self.guard(self.caller.call(call)).await?;
                            resume_value(python_result(&python_name, structured, &result))
                        }
                    };
                    // Answered while the call ran, the print limit may have been passed.
                    if let Some(stop) = self.stopped() {
                        return Err(stop.into());
                    }
                    self.guard(checkout.resume(value, &mut on_print)).await?
                }
                TurnEvent::ResolveFutures { pending_call_ids } => {
                    let results = self
                        .guard(wait_for(&pending_call_ids, &mut in_flight, &mut finished))
                        .await??;
                    let results = results
                        .into_iter()
                        .map(|(id, result)| {
                            let (function, structured) = started.remove(&id).unwrap_or_default();
                            (
                                id,
                                resume_value(python_result(&function, structured, &result)),
                            )
                        })
                        .collect();
                    self.guard(checkout.resume_futures(results, &mut on_print))
                        .await?
                }
            };
            event = next;
        }
    }

    /// Answers a call of `function_name`: a nested call to run or start, an exception, or a
    /// stop (the tool call limit).
    fn answer(
        &mut self,
        function_name: &str,
        args: &[MontyObject],
        kwargs: &[(MontyObject, MontyObject)],
        is_method: bool,
    ) -> Answer {
        let (function, arguments) =
            match self.functions.bind(function_name, is_method, args, kwargs) {
                Ok(bound) => bound,
                Err(raised) => return Answer::Resume(resume_value(raised)),
            };
        if self.tool_calls >= self.config.max_tool_calls {
            return Answer::Stop(Stop::Limit(Limit::ToolCalls(self.config.max_tool_calls)));
        }
        self.tool_calls += 1;
        let (number, tool) = (self.tool_calls, function.tool.clone());
        if self.asynchronous {
            Answer::Start {
                number,
                tool,
                arguments,
            }
        } else {
            Answer::Call {
                number,
                tool,
                arguments,
                python_name: function.python_name.clone(),
                structured: function.structured,
            }
        }
    }

    /// Awaits `work` unless the run must stop first: cancelled, out of time, or past the
    /// print limit. Out of time, the call's token is cancelled too, as a timeout does, so
    /// that a nested call in flight is told to stop.
    async fn guard<T>(&self, work: impl Future<Output = T>) -> Result<T, Failure> {
        if let Some(stop) = self.stopped() {
            return Err(stop.into());
        }
        tokio::select! {
            biased;
            () = self.cancellation.cancelled() => Err(Failure::Cancelled),
            () = tokio::time::sleep_until(self.deadline.into()) => {
                self.cancellation.cancel();
                Err(Failure::Limit(Limit::Time(self.config.time_limit)))
            }
            () = self.printed.over.notified() => {
                Err(Failure::Limit(Limit::Printed(self.config.max_printed_bytes)))
            }
            done = work => Ok(done),
        }
    }

    /// A stop already due: the print limit passed.
    fn stopped(&self) -> Option<Stop> {
        self.printed
            .exceeded
            .load(Ordering::Acquire)
            .then_some(Stop::Limit(Limit::Printed(self.config.max_printed_bytes)))
    }

    /// Why the pool ended the run.
    fn pool_failure(&self, error: PoolError, program: &Path) -> Failure {
        match error {
            PoolError::Runtime(exception) => {
                if is_out_of_time(&exception) || Instant::now() >= self.deadline {
                    Failure::Limit(Limit::Time(self.config.time_limit))
                } else {
                    python_failure(&exception)
                }
            }
            PoolError::Timeout { .. } => Failure::Limit(Limit::Time(self.config.time_limit)),
            PoolError::Spawn(reason) => Failure::Crashed(format!(
                "could not start the interpreter's worker `{}`: {reason}; it must be monty 0.0.23's `monty` binary (pip install pydantic-monty-runtime==0.0.23)",
                program.display()
            )),
            PoolError::Crashed { .. } => Failure::Crashed(format!(
                "{error}; only the worker process was lost, nothing else"
            )),
            other => Failure::Crashed(other.to_string()),
        }
    }

    fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }
}

/// The results of the started calls `ids`, as soon as one of them is in.
async fn wait_for(
    ids: &[u32],
    in_flight: &mut JoinSet<(u32, ToolResult)>,
    finished: &mut HashMap<u32, ToolResult>,
) -> Result<Vec<(u32, ToolResult)>, Failure> {
    loop {
        let ready: Vec<(u32, ToolResult)> = ids
            .iter()
            .filter_map(|id| finished.remove_entry(id))
            .collect();
        if !ready.is_empty() {
            return Ok(ready);
        }
        match in_flight.join_next().await {
            Some(Ok((id, result))) => {
                finished.insert(id, result);
            }
            Some(Err(error)) => {
                return Err(Failure::Crashed(format!(
                    "a nested call's task failed: {error}"
                )));
            }
            None => {
                return Err(Failure::Crashed(
                    "the code awaits calls that were never started".to_owned(),
                ));
            }
        }
    }
}

/// A function's result as the pool takes it.
fn resume_value(result: ExtFunctionResult) -> ResumeValue {
    match result {
        ExtFunctionResult::Return(value) => ResumeValue::Return(value),
        ExtFunctionResult::Error(exception) => ResumeValue::Error(exception),
        ExtFunctionResult::NotFound(_) => ResumeValue::NotFound,
        ExtFunctionResult::Future(_) => ResumeValue::Future,
    }
}

//! The interpreter's side of a run: monty on a thread of its own, driven from suspension to
//! suspension. A call of a tool's function suspends it; the call goes to the async side as a
//! [`Request`] and the thread waits for the result, which resumes the code with a value or an
//! exception. Here too are the parts of the limits that only the interpreter can see: steps
//! and printed bytes, counted by the print writer monty polls every [`STEPS_PER_CHECK`]
//! instructions, which is also where a stop (cancellation, the time limit) reaches code that
//! is computing without calling anything.
//!
//! This is the in-process run ([`Isolation::InProcess`](super::Isolation); `worker` is the
//! other): a panic inside monty is caught on this thread and becomes
//! [`Failure::Crashed`]; its own recursion limit keeps Python recursion off the native
//! stack, and the thread has a large stack for deeply nested source.

use std::borrow::Cow;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use monty::{FunctionCall, MontyRun, RunProgress};
use monty_types::{
    CompileOptions, ExcType, ExtFunctionResult, MontyException, MontyObject, NameLookupResult,
    PrintWriter, PrintWriterCallback, ResourceLimits, ResourceTracker,
};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tool_core::{ToolError, ToolResult};

use super::functions::FunctionTable;
use super::limits::{CodeModeConfig, Limit, STEPS_PER_CHECK};
use super::values::{to_json, to_python};

/// The file name tracebacks show for the code.
pub(super) const SCRIPT_NAME: &str = "main.py";
/// The interpreter thread's stack: the parser recurses over nested source.
const STACK_SIZE: usize = 16 * 1024 * 1024;
/// What code that reaches for files, the environment or the network is told.
pub(super) const NO_HOST_ACCESS: &str = "the sandbox has no filesystem, environment or network of its own; call the tools' functions (read_file, grep, ...) instead";

/// What the interpreter asks of the async side.
pub(crate) enum Request {
    /// Run this nested call and send back its result.
    Call {
        /// The call's number in the run, from 1.
        number: u32,
        tool: String,
        arguments: String,
        reply: oneshot::Sender<ToolResult>,
    },
    /// Start this nested call and keep its result for an [`Request::Await`] (async code:
    /// the call's value is a future the code awaits).
    Start {
        /// Monty's id of the call, which [`Request::Await`] names.
        id: u32,
        /// The call's number in the run, from 1.
        number: u32,
        tool: String,
        arguments: String,
    },
    /// The code awaits these started calls: send back the results of those that finished,
    /// at least one, as soon as there is one.
    Await { ids: Vec<u32>, reply: AwaitReply },
    /// The run ended.
    Finished(Result<Evaluated, Failure>),
}

/// Where the results of awaited calls go, each with Monty's id of its call.
pub(crate) type AwaitReply = oneshot::Sender<Vec<(u32, ToolResult)>>;

/// The value of the code's last expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Evaluated {
    /// As JSON, or its Python repr when it has no JSON form.
    pub value: Value,
    pub is_repr: bool,
}

/// Why a run did not end with a value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Failure {
    /// The code raised an exception it did not catch (a syntax error included): the
    /// traceback, and whether it was a `NameError` (the code called something that is not
    /// there).
    Python {
        traceback: String,
        unknown_name: bool,
    },
    /// A limit stopped it.
    Limit(Limit),
    /// The call of `execute` was cancelled.
    Cancelled,
    /// The interpreter failed (it panicked, or its thread could not start).
    Crashed(String),
}

/// Why a run was told to stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    Limit(Limit),
    Cancelled,
}

impl From<Stop> for Failure {
    fn from(stop: Stop) -> Self {
        match stop {
            Stop::Limit(limit) => Failure::Limit(limit),
            Stop::Cancelled => Failure::Cancelled,
        }
    }
}

/// What both sides of a run see: its printed output, its tool calls, and whether (and why)
/// it must stop. The first reason to stop is the one kept.
#[derive(Default)]
pub(crate) struct RunState {
    printed: Mutex<String>,
    tool_calls: AtomicU32,
    stopping: AtomicBool,
    stop: Mutex<Option<Stop>>,
}

impl RunState {
    /// Tells the run to stop, unless it was told already; the reason that holds.
    pub(crate) fn stop(&self, reason: Stop) -> Stop {
        let mut stop = self.stop.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = stop.get_or_insert(reason).clone();
        self.stopping.store(true, Ordering::Release);
        kept
    }

    /// Why the run must stop, if it must.
    pub(crate) fn stopped(&self) -> Option<Stop> {
        if !self.stopping.load(Ordering::Acquire) {
            return None;
        }
        self.stop
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// What the code printed so far.
    pub(crate) fn printed(&self) -> String {
        self.printed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The tool calls the code made so far.
    pub(crate) fn tool_calls(&self) -> u32 {
        self.tool_calls.load(Ordering::Acquire)
    }
}

/// One run, as the interpreter's thread holds it.
pub(crate) struct Job {
    pub code: String,
    pub functions: Arc<FunctionTable>,
    pub config: CodeModeConfig,
    pub deadline: Instant,
    pub state: Arc<RunState>,
    pub requests: mpsc::UnboundedSender<Request>,
}

/// Starts `job` on a thread of its own; its end comes as [`Request::Finished`].
pub(crate) fn spawn(job: Job) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("execute-python".to_owned())
        .stack_size(STACK_SIZE)
        .spawn(move || {
            let requests = job.requests.clone();
            let result = catch_unwind(AssertUnwindSafe(|| job.run())).unwrap_or_else(|payload| {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".to_owned());
                Err(Failure::Crashed(format!(
                    "the interpreter panicked: {message}"
                )))
            });
            // The async side may have stopped waiting already (cancelled, out of time).
            let _ = requests.send(Request::Finished(result));
        })?;
    Ok(())
}

/// How the interpreter goes on after a function call.
enum Answer {
    Resume(ExtFunctionResult),
    /// The call was started; its value is a future (async code).
    Pending,
    /// End the run with an exception the code cannot catch.
    Abort(MontyException),
}

impl Job {
    fn run(&self) -> Result<Evaluated, Failure> {
        // Code that awaits gets futures from its calls, which may run side by side; other
        // code gets values.
        let asynchronous = uses_await(&self.code);
        // The function of each call started and not yet answered: its Python name, for its
        // exception, and whether it declares a structured result.
        let mut started: HashMap<u32, (String, bool)> = HashMap::new();
        let mut printer = Printer {
            state: Arc::clone(&self.state),
            max_bytes: self.config.max_printed_bytes,
            max_steps: self.config.max_steps,
            checks: 0,
        };
        let runner = MontyRun::new(
            self.code.clone(),
            SCRIPT_NAME,
            Vec::new(),
            CompileOptions::default(),
        )
        .map_err(|exception| self.failure(&exception))?;
        // With a counting global allocator (see `memory`), monty bounds what the run adds to
        // the process; without one, each large allocation that monty checks before making
        // it: enough to turn `'x' * 10**12` into a `MemoryError` instead of an abort.
        let counted = super::memory::arm();
        let limit = if counted {
            self.config.max_memory
        } else {
            self.config.max_allocation
        };
        let limits = ResourceLimits::default()
            .max_duration(self.remaining())
            .max_recursion_depth(self.config.max_recursion_depth)
            .max_memory(limit);
        let mut progress = runner
            .start(
                Vec::new(),
                ResourceTracker::new(limits),
                PrintWriter::Callback(&mut printer),
            )
            .map_err(|exception| self.failure(&exception))?;
        loop {
            let print = PrintWriter::Callback(&mut printer);
            let next = match progress {
                RunProgress::Complete(value) => return self.finish(&value),
                RunProgress::NameLookup(lookup) => {
                    let found = self.functions.get(&lookup.name).map_or(
                        NameLookupResult::Undefined,
                        |function| {
                            NameLookupResult::Value(MontyObject::Function {
                                name: function.python_name.clone(),
                                docstring: Some(function.description.clone()),
                            })
                        },
                    );
                    lookup.resume(found, print)
                }
                RunProgress::FunctionCall(mut call) => {
                    let answer = self.answer(&call, asynchronous);
                    // Monty's own clock runs only while it executes: set to what is left of
                    // the wall time, it stops computing at the deadline too.
                    call.tracker_mut().set_max_duration(self.remaining());
                    match answer {
                        Answer::Resume(result) => call.resume(result, print),
                        Answer::Pending => {
                            let structured = self
                                .functions
                                .get(&call.function_name)
                                .is_some_and(|function| function.structured);
                            started.insert(call.call_id, (call.function_name.clone(), structured));
                            call.resume_pending(print)
                        }
                        Answer::Abort(exception) => call.abort(exception, print),
                    }
                }
                RunProgress::OsCall(os_call) => os_call.resume(
                    MontyException::new(ExcType::PermissionError, Some(NO_HOST_ACCESS.to_owned())),
                    print,
                ),
                RunProgress::ResolveFutures(futures) => {
                    match self.wait_for(futures.pending_call_ids(), &mut started) {
                        Ok(results) => futures.resume(results, print),
                        Err(exception) => futures.abort(exception, print),
                    }
                }
            };
            progress = next.map_err(|exception| self.failure(&exception))?;
        }
    }

    /// The results of the started calls `ids` the code awaits, as soon as one is in.
    fn wait_for(
        &self,
        ids: &[u32],
        started: &mut HashMap<u32, (String, bool)>,
    ) -> Result<Vec<(u32, ExtFunctionResult)>, MontyException> {
        if let Some(stop) = self.state.stopped() {
            return Err(interrupt(&stop));
        }
        let (reply, results) = oneshot::channel();
        let request = Request::Await {
            ids: ids.to_vec(),
            reply,
        };
        let results = match self.requests.send(request) {
            Ok(()) => results.blocking_recv().ok(),
            Err(_) => None,
        };
        let Some(results) = results else {
            return Err(interrupt(&self.state.stop(Stop::Cancelled)));
        };
        Ok(results
            .into_iter()
            .map(|(id, result)| {
                let (function, structured) = started.remove(&id).unwrap_or_default();
                (id, python_result(&function, structured, &result))
            })
            .collect())
    }

    /// Runs a function call as a nested tool call (in async code, starts it), or says why
    /// not.
    fn answer(&self, call: &FunctionCall, asynchronous: bool) -> Answer {
        if let Some(stop) = self.state.stopped() {
            return Answer::Abort(interrupt(&stop));
        }
        let (function, arguments) = match self.functions.bind(
            &call.function_name,
            call.object_id.is_some(),
            &call.args,
            &call.kwargs,
        ) {
            Ok(bound) => bound,
            Err(raised) => return Answer::Resume(raised),
        };
        if self.state.tool_calls() >= self.config.max_tool_calls {
            let stop = self
                .state
                .stop(Stop::Limit(Limit::ToolCalls(self.config.max_tool_calls)));
            return Answer::Abort(interrupt(&stop));
        }
        let number = self.state.tool_calls.fetch_add(1, Ordering::AcqRel) + 1;
        if asynchronous {
            let request = Request::Start {
                id: call.call_id,
                number,
                tool: function.tool.clone(),
                arguments,
            };
            return match self.requests.send(request) {
                Ok(()) => Answer::Pending,
                Err(_) => Answer::Abort(interrupt(&self.state.stop(Stop::Cancelled))),
            };
        }
        let (reply, result) = oneshot::channel();
        let request = Request::Call {
            number,
            tool: function.tool.clone(),
            arguments,
            reply,
        };
        if self.requests.send(request).is_err() {
            return Answer::Abort(interrupt(&self.state.stop(Stop::Cancelled)));
        }
        match result.blocking_recv() {
            Ok(result) => Answer::Resume(python_result(
                &function.python_name,
                function.structured,
                &result,
            )),
            // The async side stopped waiting, and said why before it did.
            Err(_) => Answer::Abort(interrupt(&self.state.stop(Stop::Cancelled))),
        }
    }

    /// The run's end, when the code finished: a stop it caught still ends it as stopped.
    fn finish(&self, value: &MontyObject) -> Result<Evaluated, Failure> {
        if let Some(stop) = self.state.stopped() {
            return Err(stop.into());
        }
        Ok(evaluated(value))
    }

    /// Why the run ended with `exception`: a stop if one was asked for, the time limit if
    /// monty's clock ran out, else the code's own exception.
    fn failure(&self, exception: &MontyException) -> Failure {
        if let Some(stop) = self.state.stopped() {
            return stop.into();
        }
        if is_out_of_time(exception) || Instant::now() >= self.deadline {
            return self
                .state
                .stop(Stop::Limit(Limit::Time(self.config.time_limit)))
                .into();
        }
        python_failure(exception)
    }

    fn remaining(&self) -> std::time::Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }
}

/// The value of the code's last expression: as JSON, else its repr.
pub(super) fn evaluated(value: &MontyObject) -> Evaluated {
    match to_json(value) {
        Ok(value) => Evaluated {
            value,
            is_repr: false,
        },
        Err(_) => Evaluated {
            value: Value::String(value.py_repr()),
            is_repr: true,
        },
    }
}

/// Whether `exception` is monty's own clock running out (its `max_duration`).
pub(super) fn is_out_of_time(exception: &MontyException) -> bool {
    exception.exc_type() == ExcType::TimeoutError
        && exception
            .message()
            .is_some_and(|message| message.starts_with("time limit exceeded"))
}

/// An exception the code did not catch, as the run's failure.
pub(super) fn python_failure(exception: &MontyException) -> Failure {
    Failure::Python {
        traceback: exception.to_string(),
        unknown_name: exception.exc_type() == ExcType::NameError,
    }
}

/// A tool's result as the value of a call of `function`, or the exception it raises: its
/// structured value when the tool declares one (`structured`: it has an output schema, and
/// its stub says `-> dict`), else its text (`-> str`), as the stubs promise, even when a tool
/// without an output schema attaches a structured copy of its text.
pub(super) fn python_result(
    function: &str,
    structured: bool,
    result: &ToolResult,
) -> ExtFunctionResult {
    match result.error() {
        None => ExtFunctionResult::Return(match result.structured().filter(|_| structured) {
            Some(value) => to_python(value),
            None => MontyObject::String(result.text().into_owned()),
        }),
        Some(error) => ExtFunctionResult::Error(MontyException::new(
            exception_type(error),
            Some(format!("{function}: {}", result.text())),
        )),
    }
}

/// The built-in exception a failed call raises (monty cannot define exception classes from
/// the host): every one is an `Exception`, so `except Exception` catches them all.
fn exception_type(error: &ToolError) -> ExcType {
    match error {
        ToolError::Denied { .. } | ToolError::Rejected { .. } => ExcType::PermissionError,
        ToolError::InvalidArguments { .. } => ExcType::ValueError,
        ToolError::UnknownTool { .. } | ToolError::Unavailable { .. } => ExcType::NameError,
        ToolError::TimedOut { .. } => ExcType::TimeoutError,
        _ => ExcType::RuntimeError,
    }
}

/// The exception that stops the code: a `KeyboardInterrupt`, which `except Exception` does
/// not catch (and if a bare `except` does, the run still ends as stopped, and every check
/// after raises it again).
pub(super) fn interrupt(stop: &Stop) -> MontyException {
    let reason = match stop {
        Stop::Limit(limit) => format!("stopped by {limit}"),
        Stop::Cancelled => "the call was cancelled".to_owned(),
    };
    MontyException::new(ExcType::KeyboardInterrupt, Some(reason))
}

/// Captures `print()` into the run's state, capped, and counts steps at monty's periodic
/// poll, where a stop also reaches code that calls nothing.
struct Printer {
    state: Arc<RunState>,
    max_bytes: usize,
    max_steps: u64,
    /// Polls so far: one per [`STEPS_PER_CHECK`] instructions.
    checks: u64,
}

impl Printer {
    fn check(&self) -> Result<(), MontyException> {
        match self.state.stopped() {
            Some(stop) => Err(interrupt(&stop)),
            None => Ok(()),
        }
    }

    fn print(&mut self, text: &str) -> Result<(), MontyException> {
        self.check()?;
        let mut printed = self
            .state
            .printed
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if printed.len() + text.len() <= self.max_bytes {
            printed.push_str(text);
            return Ok(());
        }
        // What fits is kept, to show with the error.
        let mut fits = self.max_bytes.saturating_sub(printed.len()).min(text.len());
        while !text.is_char_boundary(fits) {
            fits -= 1;
        }
        printed.push_str(&text[..fits]);
        drop(printed);
        let stop = self.state.stop(Stop::Limit(Limit::Printed(self.max_bytes)));
        Err(interrupt(&stop))
    }
}

impl PrintWriterCallback for Printer {
    fn stdout_write(&mut self, output: Cow<'_, str>) -> Result<(), MontyException> {
        self.print(&output)
    }

    fn stdout_push(&mut self, end: char) -> Result<(), MontyException> {
        self.print(end.encode_utf8(&mut [0; 4]))
    }

    fn poll_flush(&mut self) -> Result<(), MontyException> {
        self.checks += 1;
        if self.checks.saturating_mul(STEPS_PER_CHECK) > self.max_steps {
            let stop = self.state.stop(Stop::Limit(Limit::Steps(self.max_steps)));
            return Err(interrupt(&stop));
        }
        self.check()
    }
}

/// Whether `code` uses `await` (as a word outside strings and comments): such code runs with
/// its calls as futures, so that `asyncio.gather` can run them side by side.
pub(crate) fn uses_await(code: &str) -> bool {
    let mut chars = code.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        match c {
            '#' => while chars.next_if(|&(_, c)| c != '\n').is_some() {},
            '\'' | '"' => {
                let triple = code[start..].starts_with(&format!("{c}{c}{c}"));
                if triple {
                    chars.next();
                    chars.next();
                }
                let mut quotes = 0;
                while let Some((_, next)) = chars.next() {
                    match next {
                        '\\' => {
                            chars.next();
                            quotes = 0;
                        }
                        q if q == c => {
                            quotes += 1;
                            if !triple || quotes == 3 {
                                break;
                            }
                        }
                        '\n' if !triple => break,
                        _ => quotes = 0,
                    }
                }
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut end = start + c.len_utf8();
                while let Some((index, next)) =
                    chars.next_if(|&(_, c)| c.is_alphanumeric() || c == '_')
                {
                    end = index + next.len_utf8();
                }
                if &code[start..end] == "await" {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::uses_await;

    #[test]
    fn await_is_found_as_a_word_outside_strings_and_comments() {
        assert!(uses_await("x = await read_file('a')"));
        assert!(uses_await("a, b = await asyncio.gather(f(), g())"));
        assert!(!uses_await("awaited = 1\nprint(awaited)"));
        assert!(!uses_await("# await later\nx = 'await' + \"await\""));
        assert!(!uses_await("text = '''\nawait\n'''\nlen(text)"));
        assert!(uses_await("s = 'it\\'s'\nawait f()"));
    }
}

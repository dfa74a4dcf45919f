//! Code mode: the `execute` tool and the engine under it, which runs Python a model wrote in
//! [monty](https://github.com/pydantic/monty), pydantic's sandboxed interpreter for code
//! written by models, with the toolset's tools as its functions.
//!
//! Its parts, one job each: `functions` maps each tool to a Python function (names made valid
//! identifiers, reversibly) and binds a call's arguments to the tool's JSON arguments;
//! [`python_stubs`] writes those functions out for the model to read; `interpreter` runs
//! monty on a thread of its own, suspended at each function call; `run` makes each such call
//! a nested tool call through the coordinator and stops the run at its deadline or on
//! cancellation; `worker` does both for a run in a worker process; `values` carries values
//! across as JSON; [`CodeModeConfig`] bounds a run in wall time, interpreter steps, tool calls
//! and printed bytes, and a run one of them stops ends with the [`Limit`] that did.
//!
//! Code that uses `await` runs in async mode: each call's value is a future, and the calls
//! `asyncio.gather` awaits together run side by side (read-only ones in parallel, as far as
//! the policy and the tools allow). Other code gets values, one call after another. In
//! async mode a call that is not awaited is a future, not its result, and may not run to its
//! end: the run ends without waiting for it.
//!
//! The sandbox has no filesystem, environment or network: code reaches the world only through
//! the tools, each call judged by the policy on its own, as a call from the model would be.
//! Values cross as JSON: a tool's structured result (else its text) becomes a Python value,
//! and the code's last expression comes back as JSON (else as its repr).
//!
//! Where the interpreter runs is [`Isolation`]'s choice. In-process (the default), monty runs
//! on a thread of its own: a panic in it is caught and becomes an error, and an abort (a
//! native stack overflow) would take the process, which monty's recursion limit and the
//! thread's large stack exist to prevent. In a worker (`worker`: monty's `monty-pool` running
//! the `monty` binary of the same release), a crash ends only the worker and the run, the
//! worker's allocator bounds the run's whole memory, and a stop kills the worker at once.
//!
//! What monty lacks in-process, and what stands in for it, is said where it matters: no
//! host-defined exception classes (a failed call raises the closest built-in exception, see
//! [`exception types`](self#exceptions)), no step counter (steps are counted at the poll
//! monty makes every [`STEPS_PER_CHECK`] instructions; a worker reports none, so there the
//! time limit bounds a computation), and no limit on a run's total memory without a global
//! allocator that counts it, which a library cannot install but a program can in one line
//! ([`CountingAllocator`]; `toolbox` does): then [`CodeModeConfig::max_memory`] bounds what a
//! run adds to the process. Without it, what stands in is [`CodeModeConfig::max_allocation`],
//! a bound on each large allocation (`'x' * 10**12` raises `MemoryError` instead of aborting
//! the process), or a worker.
//!
//! # Exceptions
//!
//! A failed tool call raises, with the tool's message (`read_file: ...`):
//!
//! | the call | raises |
//! |---|---|
//! | denied by the policy, or rejected by the user | `PermissionError` |
//! | given arguments its schema refuses | `ValueError` |
//! | called with arguments the function does not take | `TypeError` |
//! | timed out | `TimeoutError` |
//! | failed otherwise | `RuntimeError` |
//!
//! A limit or a cancellation raises `KeyboardInterrupt`, which `except Exception` lets
//! through; a run that catches it anyway still ends as stopped.

pub(crate) mod execute;
mod functions;
mod interpreter;
mod limits;
mod memory;
mod run;
mod stubs;
mod values;
mod worker;

pub use functions::{NOT_CALLABLE_FROM_CODE, callable_from_code};
pub use limits::{CodeModeConfig, Isolation, Limit, STEPS_PER_CHECK};
pub use memory::{CountingAllocator, counts_memory};
pub use stubs::python_stubs;

pub(crate) use interpreter::{Evaluated, Failure};
pub(crate) use run::{Outcome, run};

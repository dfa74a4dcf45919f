//! Code mode: the `execute` tool and the engine under it, which runs Python a model wrote in
//! [monty](https://github.com/pydantic/monty), pydantic's sandboxed interpreter for code
//! written by models, with the toolset's tools as its functions. What the model and the user
//! meet (async code, values as JSON, the limits, memory, isolation, the exceptions a failed
//! call raises) is in the guide's tool-std page (`docs/tool-std.md`, "Code mode").
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
//! Where the interpreter runs is [`Isolation`]'s choice: in-process, on a thread of its own
//! (a panic is caught; monty's recursion limit and the thread's large stack keep a native
//! stack overflow away), or in a worker (`monty-pool` and the `monty` binary of the same
//! release), where a crash ends only the worker and the run. What monty lacks in-process has
//! stand-ins: steps are counted at the poll monty makes every [`STEPS_PER_CHECK`]
//! instructions, and a run's total memory is bounded only where a [`CountingAllocator`]
//! counts it ([`CodeModeConfig::max_memory`]); without one, [`CodeModeConfig::max_allocation`]
//! bounds each large allocation.

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

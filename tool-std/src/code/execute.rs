//! `execute`: code mode. The model writes Python that calls the toolset's tools as functions;
//! it runs in monty's sandbox (see [`code`](crate::code)), each call a nested call through
//! the coordinator, so one call of `execute` does what would take many round trips.
//!
//! # Plan mode and approval
//!
//! `execute` is `self_approving`: the policy never asks about `execute` itself, and plan mode
//! lets it run, because it has no effect of its own — every tool its code calls is a nested
//! call the policy judges on its own, with the session's mode, rules and approvals, as it
//! would a call from the model (a write from code in plan mode is refused, and the code sees
//! `PermissionError`). Its effect stays mutating (not `read_only`), since its code may call
//! tools that change things: clients are not told it is harmless, a deny rule on `execute`
//! still turns it off, and an ask rule on it has the user asked before each run.

use schemars::JsonSchema;
use serde::Serialize;
use tool_core::context::ToolContext;
use tool_core::coordinator::ToolCaller;
use tool_core::{Structured, ToolError, tool};

use crate::code::{self, CodeModeConfig, Evaluated, Failure, Outcome};

/// What `execute` answers with when the code ran to its end.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ExecuteOutput {
    /// What the code printed.
    pub printed: String,
    /// The value of the code's last expression, as JSON; its Python repr (a string) when it
    /// has no JSON form; `null` when the code ends with a statement.
    pub value: serde_json::Value,
    /// `value` is the repr of a value with no JSON form.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub value_is_repr: bool,
    /// How many tool calls the code made.
    pub tool_calls: u32,
}

/// What the model reads: what the code printed, the value of its last expression (its
/// Python repr when it has no JSON form), and how many tool calls it made.
impl std::fmt::Display for ExecuteOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.printed.is_empty() {
            writeln!(f, "Printed:")?;
            f.write_str(&self.printed)?;
            if !self.printed.ends_with('\n') {
                writeln!(f)?;
            }
        }
        match (&self.value, self.value_is_repr) {
            (serde_json::Value::String(repr), true) => writeln!(f, "Value: {repr}")?,
            (serde_json::Value::Null, _) => writeln!(f, "Value: None")?,
            (value, _) => writeln!(f, "Value: {value}")?,
        }
        writeln!(f, "Tool calls: {}", self.tool_calls)
    }
}

/// Run Python code that calls your tools as functions, to do in one step what would take
/// many calls: read and search several files, loop over results, combine them. Each tool is
/// a function of the same name (`-` in a name becomes `_`) taking the tool's arguments, by
/// keyword or in order; it returns the tool's result (a dict for tools with structured
/// results, else the text) or raises an exception when the call fails (PermissionError when
/// it is denied; catch it with try/except); calling a function that is not there answers with
/// the list of those that are. Calls you `await` run side by side when gathered
/// (`a, b = await asyncio.gather(read_file("a"), read_file("b"))`); in code that uses
/// `await`, await every call. The code runs in a sandbox with no filesystem,
/// network or imports beyond a small standard library: use the tools. The answer holds what
/// the code printed, the value of its last expression and how many tool calls it made. A run
/// is limited in time, steps, tool calls and printed output.
///
/// # Arguments
/// * `code` - Python source. End with an expression to return its value, e.g. `len(grep(pattern="TODO").splitlines())`.
#[tool(self_approving, name = "execute", tags("code"))]
async fn execute(
    ctx: ToolContext,
    tools: ToolCaller,
    code: String,
) -> Result<Structured<ExecuteOutput>, ToolError> {
    let mut config = ctx
        .state::<CodeModeConfig>()
        .map(|config| CodeModeConfig::clone(config))
        .unwrap_or_default();
    // The call's own time limit, when sooner, bounds the run too, a little before it: a run
    // its own limit stops reports what the code printed and called, a timeout only that it
    // timed out.
    if let Some(deadline) = ctx.deadline() {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        config.time_limit = config.time_limit.min(left.mul_f64(0.9));
    }
    let outcome = code::run(code, &tools, ctx.cancellation(), config).await;
    match outcome.result {
        Ok(Evaluated { value, is_repr }) => Ok(Structured(ExecuteOutput {
            printed: outcome.printed,
            value,
            value_is_repr: is_repr,
            tool_calls: outcome.tool_calls,
        })),
        Err(Failure::Cancelled) => Err(ToolError::Cancelled),
        Err(Failure::Python {
            ref traceback,
            unknown_name,
        }) => {
            let mut message = format!("the code raised an exception:\n{traceback}");
            message.push_str(&so_far(&outcome));
            if unknown_name {
                message.push_str("\n\nThe functions the code can call:\n");
                message.push_str(&code::python_stubs(&tools.toolset()));
            }
            Err(ToolError::failed(message))
        }
        Err(Failure::Limit(ref limit)) => Err(ToolError::failed(format!(
            "the code was stopped by {limit}.{}",
            so_far(&outcome)
        ))),
        Err(Failure::Crashed(ref reason)) => Err(ToolError::failed(format!(
            "the Python interpreter failed ({reason}), a fault in the sandbox rather than in the code; the run was abandoned.{}",
            so_far(&outcome)
        ))),
    }
}

/// What a run that failed did before it stopped: the tool calls it made (their effects
/// stand) and what it printed.
fn so_far(outcome: &Outcome) -> String {
    let calls = match outcome.tool_calls {
        0 => "It made no tool calls".to_owned(),
        1 => "It made 1 tool call, whose effect stands,".to_owned(),
        n => format!("It made {n} tool calls, whose effects stand,"),
    };
    if outcome.printed.is_empty() {
        format!("\n({calls} and printed nothing.)")
    } else {
        format!(
            "\n({calls} and printed before it stopped:)\n{}",
            outcome.printed
        )
    }
}

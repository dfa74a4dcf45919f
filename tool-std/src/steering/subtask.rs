//! `subtask`: hands a self-contained piece of work to a sub-agent and answers with its final
//! text. The sub-agent itself (a model loop) is the application's: a [`SubAgentRunner`] given
//! to the coordinator as state, inside [`Subagents`] with the limits that apply. The
//! sub-agent's tool calls go through the same coordinator, one level deeper
//! ([`SubAgentTask::call`]): the same policy, approvals, hooks, budget and events.
//!
//! Depth is counted in nested call levels ([`CallInfo::depth`](tool_core::context::CallInfo)):
//! a `subtask` called at depth `d` starts a sub-agent at level `d + 1`, refused past
//! [`Subagents::max_depth`] (default 1: sub-agents do not start sub-agents, as in Claude Code,
//! since each level multiplies the work). This is separate from tool-core's `MAX_NESTING`,
//! which stops any tool calling itself without end.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tool_core::context::{CancellationToken, ToolContext};
use tool_core::coordinator::ToolCaller;
use tool_core::{BoxFuture, ToolCall, ToolError, ToolResult, Toolset, tool};

/// Runs a sub-agent: the application's model loop, given a task and a way to call tools.
///
/// ```
/// use tool_core::{BoxFuture, Coordinator, ToolCall, ToolError, Toolset};
/// use tool_std::{SubAgentRunner, SubAgentTask, Subagents};
///
/// /// A stand-in for a model: thinks the prompt over with the `think` tool, then reports.
/// struct Ponder;
///
/// impl SubAgentRunner for Ponder {
///     fn run<'a>(&'a self, task: SubAgentTask) -> BoxFuture<'a, Result<String, ToolError>> {
///         Box::pin(async move {
///             let arguments = serde_json::json!({ "thought": task.prompt }).to_string();
///             let thought = task.call(ToolCall::new("think", arguments)).await;
///             if thought.is_error() {
///                 return Err(ToolError::failed(thought.text()));
///             }
///             Ok(format!("level {}: {}", task.level, thought.text()))
///         })
///     }
/// }
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["subtask", "think"]).unwrap())
///     .state(Subagents::new(Ponder))
///     .build()
///     .unwrap();
/// let call = ToolCall::new("subtask", r#"{"description": "ponder", "prompt": "is it safe"}"#);
/// assert_eq!(coordinator.call_blocking(call).text(), "level 1: Thought noted (3 words).");
/// ```
pub trait SubAgentRunner: Send + Sync + 'static {
    /// Runs the sub-agent to its final answer, which is what the model reads. It should call
    /// tools only through [`SubAgentTask::call`], stop when
    /// [`task.cancellation`](SubAgentTask::cancellation) is cancelled, and plan to finish
    /// before [`task.deadline`](SubAgentTask::deadline).
    ///
    /// # Errors
    /// A failure of the sub-agent, for the model to read.
    fn run<'a>(&'a self, task: SubAgentTask) -> BoxFuture<'a, Result<String, ToolError>>;
}

/// The sub-agent runner and the limits it runs under: give it to the coordinator as state.
///
/// ```
/// use std::time::Duration;
/// use tool_core::{BoxFuture, Coordinator, ToolCall, ToolError, Toolset};
/// use tool_std::{SubAgentRunner, SubAgentTask, Subagents};
///
/// /// Answers with the task's own prompt.
/// struct Echo;
///
/// impl SubAgentRunner for Echo {
///     fn run<'a>(&'a self, task: SubAgentTask) -> BoxFuture<'a, Result<String, ToolError>> {
///         Box::pin(async move { Ok(task.prompt) })
///     }
/// }
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["subtask"]).unwrap())
///     .state(Subagents::new(Echo).max_depth(2).time_budget(Duration::from_secs(600)))
///     .build()
///     .unwrap();
/// let call = ToolCall::new("subtask", r#"{"description": "echo", "prompt": "hello"}"#);
/// assert_eq!(coordinator.call_blocking(call).text(), "hello");
/// ```
#[derive(Clone)]
pub struct Subagents {
    runner: Arc<dyn SubAgentRunner>,
    max_depth: u32,
    time_budget: Option<Duration>,
}

impl Subagents {
    /// Sub-agents run by `runner`, at most one level deep, with no time budget of their own.
    pub fn new(runner: impl SubAgentRunner) -> Self {
        Subagents {
            runner: Arc::new(runner),
            max_depth: 1,
            time_budget: None,
        }
    }

    /// How many levels of sub-agents may nest: 1 (the default) lets the model's agent start
    /// sub-agents and no sub-agent start its own; 0 refuses every subtask.
    #[must_use]
    pub fn max_depth(mut self, levels: u32) -> Self {
        self.max_depth = levels;
        self
    }

    /// The longest one sub-agent may run; past it, it is cancelled and the subtask fails
    /// saying so. The call's own time limit, if sooner, still applies.
    #[must_use]
    pub fn time_budget(mut self, budget: Duration) -> Self {
        self.time_budget = Some(budget);
        self
    }
}

impl std::fmt::Debug for Subagents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subagents")
            .field("max_depth", &self.max_depth)
            .field("time_budget", &self.time_budget)
            .finish_non_exhaustive()
    }
}

/// One piece of work for a sub-agent, as a [`SubAgentRunner`] receives it.
#[derive(Debug)]
#[non_exhaustive]
pub struct SubAgentTask {
    /// A short (three to five word) description of the task, for a UI.
    pub description: String,
    /// The task, in full: what the sub-agent is to do and report.
    pub prompt: String,
    /// The kind of sub-agent the model asked for (Claude Code's `subagent_type`), if any.
    pub subagent_type: Option<String>,
    /// The tools the sub-agent may call (canonical names), when the model limited them;
    /// `None`: every tool of the coordinator. A limited list never holds `execute` or
    /// `subtask`, which would call the others for it.
    pub tools: Option<Vec<String>>,
    /// This sub-agent's level: 1 for a sub-agent of the model's own agent.
    pub level: u32,
    /// When the sub-agent must be done by: the sooner of the `subtask` call's time limit and
    /// the [time budget](Subagents::time_budget), if either applies.
    pub deadline: Option<Instant>,
    /// Cancelled when the sub-agent should stop (the call was cancelled or timed out, or the
    /// time budget ran out).
    pub cancellation: CancellationToken,
    caller: ToolCaller,
}

impl SubAgentTask {
    /// Runs one of the sub-agent's tool calls through the coordinator running `subtask`, one
    /// level deeper: the policy, approvals, hooks, budget and events apply to it as to any
    /// call. A tool outside [`tools`](Self::tools) is refused without running.
    pub async fn call(&self, call: ToolCall) -> ToolResult {
        if !self.allows(&call.name) {
            let allowed = self.tools.as_deref().unwrap_or_default().join(", ");
            return ToolResult::failure(
                call.call_id,
                ToolError::denied(
                    format!(
                        "`{}` is not one of the tools this sub-agent was given ({allowed}); do the task with those",
                        call.name
                    ),
                    "subtask tools",
                ),
            );
        }
        self.caller.call(call).await
    }

    /// Whether the sub-agent may call the tool named `name` (a name or an alias).
    #[must_use]
    pub fn allows(&self, name: &str) -> bool {
        let Some(tools) = &self.tools else {
            return true;
        };
        let toolset = self.caller.toolset();
        toolset
            .get(name)
            .is_some_and(|tool| tools.iter().any(|allowed| *allowed == tool.spec().name))
    }

    /// The coordinator's tools, to describe to the sub-agent's model those it
    /// [`allows`](Self::allows).
    #[must_use]
    pub fn toolset(&self) -> std::sync::Arc<Toolset> {
        self.caller.toolset()
    }
}

/// Hand a self-contained task to a sub-agent, which works on it with its own context and the
/// same tools, and answers with its final report. Use it for a search or investigation that
/// would take many calls, or for independent pieces of work; not for something one or two
/// calls would do. The sub-agent sees only the prompt: make it complete, and say what it
/// should report back.
///
/// # Arguments
/// * `description` - A short (three to five word) description of the task.
/// * `prompt` - The task in full, with everything the sub-agent needs to know.
/// * `tools` - Only these tools for the sub-agent (default: all of yours); not `execute` or `subtask`, which would reach the others.
/// * `subagent_type` - The kind of sub-agent to use, if the application offers several.
#[tool(read_only, name = "subtask", aliases("Task"), tags("steering"))]
async fn subtask(
    ctx: &ToolContext,
    caller: ToolCaller,
    description: String,
    prompt: String,
    tools: Option<Vec<String>>,
    #[serde(alias = "subagentType")] subagent_type: Option<String>,
) -> Result<String, ToolError> {
    let Some(subagents) = ctx.state::<Subagents>() else {
        return Err(ToolError::failed(
            "subtask is not available in this session: no sub-agent runner is configured (the application gives one with `.state(tool_std::Subagents::new(runner))` on the coordinator's builder); do the work yourself with your other tools",
        ));
    };
    if prompt.trim().is_empty() {
        return Err(ToolError::failed(
            "`prompt` is empty; write the task in full: what to do, what you know, and what to report back",
        ));
    }
    let level = ctx.call().depth + 1;
    if level > subagents.max_depth {
        let allowed = match subagents.max_depth {
            0 => "no sub-agents at all".to_owned(),
            1 => "sub-agents of the main agent only, not sub-agents of sub-agents".to_owned(),
            n => format!("{n} levels of sub-agents"),
        };
        return Err(ToolError::denied(
            format!(
                "a sub-agent here would run at level {level}, and this session allows {allowed}; do this task yourself with your other tools"
            ),
            "subtask depth limit",
        ));
    }
    let tools = tools
        .map(|names| canonical(&caller.toolset(), names))
        .transpose()?;
    let budget_ends = subagents
        .time_budget
        .and_then(|budget| Instant::now().checked_add(budget));
    let deadline = match (ctx.deadline(), budget_ends) {
        (Some(call), Some(budget)) => Some(call.min(budget)),
        (call, budget) => call.or(budget),
    };
    let cancellation = ctx.cancellation().child_token();
    let task = SubAgentTask {
        description,
        prompt,
        subagent_type,
        tools,
        level,
        deadline,
        cancellation: cancellation.clone(),
        caller,
    };
    let run = subagents.runner.run(task);
    let answer = match budget_ends {
        Some(ends) => match tokio::time::timeout_at(ends.into(), run).await {
            Ok(answer) => answer,
            Err(_) => {
                cancellation.cancel();
                let budget = subagents.time_budget.unwrap_or_default();
                let budget = if budget >= Duration::from_secs(1) {
                    format!("{} s", budget.as_secs())
                } else {
                    format!("{} ms", budget.as_millis())
                };
                return Err(ToolError::failed(format!(
                    "the sub-agent ran out of its time budget ({budget}) before it finished; split the task into smaller ones, or do it yourself"
                )));
            }
        },
        None => run.await,
    }?;
    if answer.trim().is_empty() {
        return Ok("The sub-agent finished without a report.".to_owned());
    }
    Ok(answer)
}

/// Tools that call the session's other tools on their own, whatever the sub-agent was given:
/// a limited sub-agent may not have them, or its limit would not hold.
const REACH_EVERY_TOOL: &[&str] = &["execute", "subtask"];

/// The canonical names of the tools the model named, or an error naming those that are no
/// tool of this coordinator, or one that would reach past the list ([`REACH_EVERY_TOOL`]).
fn canonical(toolset: &Toolset, names: Vec<String>) -> Result<Vec<String>, ToolError> {
    let mut tools = Vec::with_capacity(names.len());
    let mut unknown = Vec::new();
    for name in names {
        match toolset.get(&name) {
            Some(tool) => tools.push(tool.spec().name.to_string()),
            None => {
                let closest = toolset.suggest(&name);
                unknown.push(if closest.is_empty() {
                    format!("`{name}`")
                } else {
                    format!("`{name}` (did you mean `{}`?)", closest.join("`, `"))
                });
            }
        }
    }
    if let Some(gateway) = tools
        .iter()
        .find(|tool| REACH_EVERY_TOOL.contains(&tool.as_str()))
    {
        return Err(ToolError::failed(format!(
            "`tools` names `{gateway}`, which calls the session's other tools itself (code in `execute`, the sub-agent of a `subtask`), so it would give the sub-agent every tool, not only those named; leave `{gateway}` out, or leave `tools` out to give the sub-agent all of yours"
        )));
    }
    if unknown.is_empty() {
        Ok(tools)
    } else {
        Err(ToolError::failed(format!(
            "`tools` names no tool of this session: {}; leave `tools` out to give the sub-agent all of yours",
            unknown.join(", ")
        )))
    }
}

//! What wraps every invocation: the [`Middleware`] chain, built once when the coordinator is
//! built, and the built-in middlewares — [`Timeout`], [`OutputLimit`] (with the [`Artifacts`]
//! store the whole output is spilled to), [`Tracing`] (spans named by the OpenTelemetry GenAI
//! conventions) and [`BudgetGuard`].
//!
//! A middleware runs after the call was authorized (policy, hooks, approval) and around the
//! tool itself: it can time it, change its output, refuse it or record it. With no middleware
//! the coordinator invokes the tool directly, so the chain costs nothing unless used.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tracing::Instrument as _;

use crate::budget::Budget;
use crate::panic::{Guarded, guard};
use crate::policy::{Layer, Mode};
use crate::spec::{Effect, ToolSpec};
use crate::tool::{Prepared, Tool, ToolFuture};
use crate::{BoxFuture, Content, ToolContext, ToolError, ToolOutput};

/// The call a middleware wraps: the tool's spec, this call's effect, the mode it was decided
/// in, and its context (call id, cancellation, state).
#[derive(Debug)]
#[non_exhaustive]
pub struct Invocation<'a> {
    /// The tool's spec.
    pub spec: &'a ToolSpec,
    /// This call's effect.
    pub effect: Effect,
    /// The permission mode the call was authorized in.
    pub mode: Mode,
    /// The call's context.
    pub ctx: &'a ToolContext,
}

/// One link of the chain around every invocation.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use tool_core::{BoxFuture, Invocation, Middleware, Next, ToolError, ToolOutput};
///
/// /// Counts the calls that fail.
/// #[derive(Default)]
/// struct CountFailures(AtomicUsize);
///
/// impl Middleware for CountFailures {
///     fn handle<'a>(&'a self, _call: &'a Invocation<'a>, next: Next<'a>)
///         -> BoxFuture<'a, Result<ToolOutput, ToolError>>
///     {
///         Box::pin(async move {
///             let result = next.run().await;
///             if result.is_err() {
///                 self.0.fetch_add(1, Ordering::Relaxed);
///             }
///             result
///         })
///     }
/// }
/// ```
pub trait Middleware: Send + Sync + 'static {
    /// Handles one invocation; `next.run()` runs the rest of the chain and the tool.
    fn handle<'a>(
        &'a self,
        call: &'a Invocation<'a>,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// The rest of the chain, then the tool.
#[must_use = "the tool runs only when `next.run()` is awaited"]
pub struct Next<'a> {
    rest: &'a [Arc<dyn Middleware>],
    tool: &'a dyn Tool,
    prepared: Prepared,
    call: &'a Invocation<'a>,
}

impl<'a> Next<'a> {
    pub(crate) fn new(
        chain: &'a [Arc<dyn Middleware>],
        tool: &'a dyn Tool,
        prepared: Prepared,
        call: &'a Invocation<'a>,
    ) -> Self {
        Next {
            rest: chain,
            tool,
            prepared,
            call,
        }
    }

    /// Runs the rest of the chain and the tool.
    pub async fn run(self) -> Result<ToolOutput, ToolError> {
        match self.rest.split_first() {
            Some((first, rest)) => {
                let call = self.call;
                first
                    .handle(
                        call,
                        Next {
                            rest,
                            tool: self.tool,
                            prepared: self.prepared,
                            call,
                        },
                    )
                    .await
            }
            None => invoke(self.tool, self.prepared, self.call.ctx).await,
        }
    }
}

/// Runs the tool itself, catching its panics.
pub(crate) async fn invoke(
    tool: &dyn Tool,
    prepared: Prepared,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    match start(tool, prepared, ctx) {
        Started::Done(result) => result,
        Started::Running(pending) => pending.await,
    }
}

/// A tool invocation after its synchronous part.
pub(crate) enum Started<'a> {
    /// The tool was synchronous: here is its result.
    Done(Result<ToolOutput, ToolError>),
    /// The tool's future, still to be polled (its panics caught).
    Running(Guarded<ToolFuture<'a>>),
}

/// Starts the tool: a synchronous tool runs to its end here (its panic caught), an async one
/// hands back its future. The coordinator's common path calls this directly, so a synchronous
/// call is never wrapped in a future of its own.
pub(crate) fn start<'a>(
    tool: &'a dyn Tool,
    prepared: Prepared,
    ctx: &'a ToolContext,
) -> Started<'a> {
    match guard(|| Ok(tool.invoke(prepared, ctx))) {
        Err(panicked) => Started::Done(Err(panicked)),
        // A synchronous tool's result is already there: take it without polling.
        Ok(future) => match future.into_ready() {
            Ok(result) => Started::Done(result),
            // An async tool's panic happens while its future is polled, caught by `Guarded`.
            Err(pending) => Started::Running(Guarded(pending)),
        },
    }
}

/// Ends calls that run too long: the tool's own `timeout_ms`, else a default for every tool.
///
/// At the limit the call's cancellation token is cancelled (so a cooperative tool stops) and
/// the call ends with [`ToolError::TimedOut`]. A synchronous tool cannot be interrupted: it runs
/// to its end before the timer is looked at, so mark long synchronous tools `blocking` (they
/// run on the blocking pool, and the call ends at its limit while the thread finishes).
#[derive(Debug, Clone, Copy, Default)]
pub struct Timeout {
    default: Option<Duration>,
}

impl Timeout {
    /// Applies each tool's `timeout_ms`, and `default` to tools without one.
    #[must_use]
    pub fn new(default: Option<Duration>) -> Self {
        Timeout { default }
    }
}

impl Middleware for Timeout {
    fn handle<'a>(
        &'a self,
        call: &'a Invocation<'a>,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let Some(limit) = call.spec.timeout.or(self.default) else {
                return next.run().await;
            };
            if let Ok(result) = tokio::time::timeout(limit, next.run()).await {
                result
            } else {
                call.ctx.cancellation().cancel();
                Err(ToolError::TimedOut { after: limit })
            }
        })
    }
}

/// Keeps what the model reads short: output longer than the limit is cut to its head and tail,
/// and the whole of it is kept as an artifact the model can page through.
#[derive(Debug, Clone)]
pub struct OutputLimit {
    max_chars: usize,
    artifacts: Artifacts,
}

impl OutputLimit {
    /// At most `max_chars` characters of text reach the model; the rest goes to `artifacts`.
    #[must_use]
    pub fn new(max_chars: usize, artifacts: Artifacts) -> Self {
        OutputLimit {
            max_chars: max_chars.max(200),
            artifacts,
        }
    }

    /// The store the whole outputs go to.
    #[must_use]
    pub fn artifacts(&self) -> &Artifacts {
        &self.artifacts
    }

    fn limit(&self, call: &Invocation<'_>, mut output: ToolOutput) -> ToolOutput {
        let chars: usize = output
            .content
            .iter()
            .filter_map(Content::as_text)
            .map(|text| text.chars().count())
            .sum();
        if chars <= self.max_chars {
            return output;
        }
        let mut whole = String::new();
        for text in output.content.iter().filter_map(Content::as_text) {
            if !whole.is_empty() {
                whole.push('\n');
            }
            whole.push_str(text);
        }
        let text = self.cut(call, whole, chars);
        output.content.retain(|part| part.as_text().is_none());
        output.content.insert(0, Content::text(text));
        output
    }

    /// A failure's message is text the model reads too: cut it the same way.
    fn limit_error(&self, call: &Invocation<'_>, error: ToolError) -> ToolError {
        match error {
            ToolError::Failed { message, source } => {
                let chars = message.chars().count();
                if chars <= self.max_chars {
                    return ToolError::Failed { message, source };
                }
                ToolError::Failed {
                    message: self.cut(call, message, chars),
                    source,
                }
            }
            other => other,
        }
    }

    /// Keeps `whole` (of `chars` characters) as an artifact and returns its head and tail with
    /// a note saying where the rest is.
    fn cut(&self, call: &Invocation<'_>, whole: String, chars: usize) -> String {
        let head_chars = self.max_chars * 3 / 5;
        let tail_chars = self.max_chars - head_chars;
        let head: String = whole.chars().take(head_chars).collect();
        let tail_start = whole
            .char_indices()
            .rev()
            .nth(tail_chars.saturating_sub(1))
            .map_or(0, |(i, _)| i);
        let omitted = chars - head_chars - tail_chars;
        let lines = whole.lines().count();
        let tail = whole[tail_start..].to_owned();
        let id = self
            .artifacts
            .store(&call.spec.name, &call.ctx.call().id, whole);
        let mut text = head;
        let _ = write!(
            text,
            "\n\n[... {omitted} characters omitted. The whole output ({chars} characters, {lines} lines) \
             is artifact `{id}`: read it with read_artifact(id = \"{id}\", offset, limit) ...]\n\n"
        );
        text.push_str(&tail);
        text
    }
}

impl Middleware for OutputLimit {
    fn handle<'a>(
        &'a self,
        call: &'a Invocation<'a>,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            match next.run().await {
                Ok(output) => Ok(self.limit(call, output)),
                Err(error) => Err(self.limit_error(call, error)),
            }
        })
    }
}

/// Whole outputs kept when [`OutputLimit`] cuts them, for the model to page through (the
/// standard library's `read_artifact` and `list_artifacts` tools). Cheap to clone; clones share
/// the store. The oldest artifacts are dropped when the store passes its size cap.
///
/// ```
/// use tool_core::Artifacts;
///
/// let artifacts = Artifacts::new(1 << 20);
/// let id = artifacts.store("grep", "call_1", "a\nb\nc\nd".to_owned());
/// assert_eq!(artifacts.read(&id, 2, 2).unwrap(), "b\nc");
/// assert!(artifacts.read("art_99", 1, 10).unwrap_err().contains(&id));
/// ```
#[derive(Debug, Clone)]
pub struct Artifacts {
    inner: Arc<Mutex<ArtifactStore>>,
}

#[derive(Debug)]
struct ArtifactStore {
    next_id: u64,
    bytes: usize,
    max_bytes: usize,
    items: std::collections::VecDeque<Artifact>,
}

/// One kept output.
#[derive(Debug, Clone)]
pub struct Artifact {
    /// Its id (`art_1`, `art_2`, ...).
    pub id: String,
    /// The tool that produced it.
    pub tool: String,
    /// The call that produced it.
    pub call_id: String,
    /// The whole text.
    pub text: Arc<str>,
}

impl Default for Artifacts {
    fn default() -> Self {
        Artifacts::new(64 << 20)
    }
}

impl Artifacts {
    /// A store that keeps at most `max_bytes` of text (the newest artifact is always kept).
    #[must_use]
    pub fn new(max_bytes: usize) -> Self {
        Artifacts {
            inner: Arc::new(Mutex::new(ArtifactStore {
                next_id: 1,
                bytes: 0,
                max_bytes,
                items: std::collections::VecDeque::new(),
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ArtifactStore> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps a text; returns its id.
    pub fn store(&self, tool: &str, call_id: &str, text: String) -> String {
        let mut store = self.lock();
        let id = format!("art_{}", store.next_id);
        store.next_id += 1;
        store.bytes += text.len();
        store.items.push_back(Artifact {
            id: id.clone(),
            tool: tool.to_owned(),
            call_id: call_id.to_owned(),
            text: text.into(),
        });
        while store.bytes > store.max_bytes && store.items.len() > 1 {
            if let Some(old) = store.items.pop_front() {
                store.bytes -= old.text.len();
            }
        }
        id
    }

    /// The artifact with this id.
    #[must_use]
    pub fn get(&self, id: &str) -> Option<Artifact> {
        self.lock().items.iter().find(|a| a.id == id).cloned()
    }

    /// Every artifact kept, oldest first.
    #[must_use]
    pub fn list(&self) -> Vec<Artifact> {
        self.lock().items.iter().cloned().collect()
    }

    /// `limit` lines of an artifact from line `offset` (1-based).
    ///
    /// # Errors
    /// A message for the model when no artifact has that id, naming the ids there are.
    pub fn read(&self, id: &str, offset: usize, limit: usize) -> Result<String, String> {
        let Some(artifact) = self.get(id) else {
            let ids: Vec<String> = self.lock().items.iter().map(|a| a.id.clone()).collect();
            return Err(if ids.is_empty() {
                format!("no artifact `{id}`: no output has been kept in this session")
            } else {
                format!("no artifact `{id}`; the artifacts are: {}", ids.join(", "))
            });
        };
        let lines: Vec<&str> = artifact
            .text
            .lines()
            .skip(offset.saturating_sub(1))
            .take(limit)
            .collect();
        Ok(lines.join("\n"))
    }
}

/// A span per invocation, named and attributed by the OpenTelemetry GenAI semantic
/// conventions: `execute_tool` (with `otel.name` = `execute_tool {tool}`), and the attributes
/// `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`, and
/// `error.type` when the call fails.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tracing;

impl Middleware for Tracing {
    fn handle<'a>(
        &'a self,
        call: &'a Invocation<'a>,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let name: &str = &call.spec.name;
        let span = tracing::info_span!(
            "execute_tool",
            "otel.name" = format_args!("execute_tool {name}"),
            "gen_ai.operation.name" = "execute_tool",
            "gen_ai.tool.name" = name,
            "gen_ai.tool.call.id" = call.ctx.call().id.as_str(),
            "gen_ai.tool.type" = "function",
            "error.type" = tracing::field::Empty,
        );
        let recorder = span.clone();
        Box::pin(
            async move {
                let result = next.run().await;
                if let Err(error) = &result {
                    recorder.record("error.type", error.kind());
                }
                result
            }
            .instrument(span),
        )
    }
}

/// Charges each call to the session's [`Budget`] as it starts, and refuses it when the budget
/// it draws on is used up. (The coordinator also checks the budget before asking the user, so
/// nobody is asked about a call that could not run.)
#[derive(Debug, Clone)]
pub struct BudgetGuard {
    budget: Arc<Budget>,
}

impl BudgetGuard {
    /// Charges calls to `budget`.
    #[must_use]
    pub fn new(budget: Arc<Budget>) -> Self {
        BudgetGuard { budget }
    }
}

impl Middleware for BudgetGuard {
    fn handle<'a>(
        &'a self,
        call: &'a Invocation<'a>,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            match self.budget.charge(call.effect, call.mode) {
                Ok(()) => next.run().await,
                Err(exhausted) => Err(ToolError::denied(
                    exhausted.to_string(),
                    Layer::Budget.as_str(),
                )),
            }
        })
    }
}

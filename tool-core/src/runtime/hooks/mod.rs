//! Hooks: code that runs around tool calls and may block them, decide their permission,
//! rewrite their input, or add context for the model, speaking Claude Code's hook protocol
//! (the events, fields and order: the guide's hooks page, `docs/hooks.md`).
//!
//! [`HookEvent`] and [`HookInput`] are what a hook receives; [`HookOutput`] what one answers
//! (a command's exit code and JSON read into it); [`CombinedOutput`] what all of an event's
//! hooks answered together; [`Matcher`] which tools a hook applies to; [`Hooks`] (here) the
//! registry, running an event's matching hooks in parallel. The kinds: [`CommandHook`] (a
//! shell command: stdin, timeout, process-group kill), [`BackgroundHook`] (`async: true`),
//! [`ModelHook`] (`prompt`, `agent`: the program's [`HookModel`] answers), [`McpToolHook`]
//! (`mcp_tool`: an imported server's tool) and `HttpHook` (feature `http-hooks`: a POST).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use tool_core::hooks::{hook_fn, HookEvent, HookInput, HookOutput, Hooks};
//! use tool_core::policy::Verdict;
//! use serde_json::json;
//!
//! let mut hooks = Hooks::new();
//! hooks.register(HookEvent::PreToolUse, "Bash", hook_fn("no-sudo", |input: &HookInput| {
//!     let sudo = input.tool_input["command"].as_str().is_some_and(|c| c.starts_with("sudo"));
//!     async move { if sudo { HookOutput::default().permission(Verdict::Deny, "no sudo") } else { HookOutput::default() } }
//! }))?;
//! let input = HookInput::pre_tool_use("run_shell", json!({"command": "sudo ls"}));
//! let outcome = hooks.run(HookEvent::PreToolUse, &["run_shell", "Bash"], &input).await;
//! assert_eq!(outcome.decision().unwrap().verdict, Verdict::Deny);
//! # Ok::<(), tool_core::hooks::MatcherError>(())
//! # }).unwrap();
//! ```

mod background;
mod command;
mod event;
#[cfg(feature = "http-hooks")]
mod http;
mod matcher;
mod mcp_tool;
mod model;
mod outcome;
mod output;

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

pub use background::BackgroundHook;
pub use command::{CommandHook, DEFAULT_TIMEOUT, OUTPUT_CAP};
pub use event::{BatchCall, HookEvent, HookInput, UnknownHookEvent};
#[cfg(feature = "http-hooks")]
#[cfg_attr(docsrs, doc(cfg(feature = "http-hooks")))]
pub use http::{HttpHook, HttpHookError};
pub use matcher::{Matcher, MatcherError};
pub use mcp_tool::McpToolHook;
pub use model::{HookModel, ModelHook, ModelHookKind, ModelHookRequest};
pub use outcome::{CombinedOutput, HookAnswer, HookDecision, HookMessage};
pub use output::{HookOutput, HookPermission};

use crate::BoxFuture;
use crate::definition::panic::{CatchUnwind, catch};

/// A hook: given the input of an event, an answer.
///
/// Object-safe, so hooks of different kinds live in one [`Hooks`]. Make one from a closure with
/// [`hook_fn`]; [`CommandHook`] runs a shell command. Implement it for a hook with state of
/// its own:
///
/// ```
/// use std::borrow::Cow;
/// use tool_core::BoxFuture;
/// use tool_core::hooks::{Hook, HookEvent, HookInput, HookOutput, Hooks};
/// use serde_json::json;
///
/// /// Blocks writes under a directory frozen for a release.
/// struct Frozen { dir: String }
///
/// impl Hook for Frozen {
///     fn name(&self) -> Cow<'_, str> {
///         format!("frozen {}", self.dir).into()
///     }
///
///     fn run<'a>(&'a self, input: &'a HookInput) -> BoxFuture<'a, HookOutput> {
///         let path = input.tool_input["path"].as_str().unwrap_or_default();
///         let output = if path.starts_with(&self.dir) {
///             HookOutput::block(format!("`{path}` is frozen until the release"))
///         } else {
///             HookOutput::default()
///         };
///         Box::pin(async move { output })
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut hooks = Hooks::new();
/// hooks.register(HookEvent::PreToolUse, "Write", Frozen { dir: "release/".into() }).unwrap();
///
/// let input = HookInput::pre_tool_use("write_file", json!({"path": "release/notes.md"}));
/// let outcome = hooks.run(HookEvent::PreToolUse, &["write_file", "Write"], &input).await;
/// assert_eq!(outcome.block_message().unwrap(), "`release/notes.md` is frozen until the release");
/// # });
/// ```
pub trait Hook: Send + Sync {
    /// The hook's name in messages and logs.
    fn name(&self) -> Cow<'_, str>;

    /// Runs the hook. A panic inside is caught by [`Hooks::run`] and becomes a non-blocking
    /// error.
    fn run<'a>(&'a self, input: &'a HookInput) -> BoxFuture<'a, HookOutput>;

    /// Hooks of one event with the same identity run once per event, as Claude Code runs
    /// identical commands once. `None` (the default): the hook always runs.
    fn identity(&self) -> Option<&str> {
        None
    }
}

/// A hook made from a closure; see [`hook_fn`].
///
/// ```
/// use tool_core::hooks::{hook_fn, FnHook, Hook, HookInput, HookOutput};
/// use serde_json::json;
///
/// let remind: FnHook<_> = hook_fn("remind", |_: &HookInput| async {
///     HookOutput::default().additional_context("run the tests after editing")
/// });
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let input = HookInput::post_tool_use("write_file", json!({"path": "src/lib.rs"}), json!("ok"));
/// let output = remind.run(&input).await;
/// assert_eq!(output.additional_context.as_deref(), Some("run the tests after editing"));
/// # });
/// ```
pub struct FnHook<F> {
    name: String,
    function: F,
}

/// A hook from a name and a closure returning a future of its answer. The future may not
/// borrow the input: copy what it needs out of it first.
///
/// ```
/// use tool_core::hooks::{hook_fn, Hook, HookInput, HookOutput};
///
/// let hook = hook_fn("audit", |input: &HookInput| {
///     let tool = input.tool_name.clone();
///     async move { HookOutput::default().additional_context(format!("{tool} was audited")) }
/// });
/// assert_eq!(hook.name(), "audit");
/// ```
pub fn hook_fn<F, Fut>(name: impl Into<String>, function: F) -> FnHook<F>
where
    F: Fn(&HookInput) -> Fut + Send + Sync,
    Fut: Future<Output = HookOutput> + Send + 'static,
{
    FnHook {
        name: name.into(),
        function,
    }
}

impl<F, Fut> Hook for FnHook<F>
where
    F: Fn(&HookInput) -> Fut + Send + Sync,
    Fut: Future<Output = HookOutput> + Send + 'static,
{
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.name)
    }

    fn run<'a>(&'a self, input: &'a HookInput) -> BoxFuture<'a, HookOutput> {
        Box::pin((self.function)(input))
    }
}

impl<F> fmt::Debug for FnHook<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnHook").field("name", &self.name).finish()
    }
}

#[derive(Clone)]
struct Entry {
    matcher: Matcher,
    hook: Arc<dyn Hook>,
}

/// The registered hooks, by event, in registration order. Cheap to clone (shared inside).
///
/// [`Hooks::has`] is one load and one comparison, so a coordinator without hooks for an event
/// pays nothing for them.
///
/// ```
/// use tool_core::hooks::{hook_fn, CommandHook, HookEvent, HookInput, HookOutput, Hooks};
///
/// # fn main() -> Result<(), tool_core::hooks::MatcherError> {
/// let mut hooks = Hooks::new();
/// hooks
///     .register(HookEvent::PreToolUse, "Bash", CommandHook::new("./hooks/check-bash.sh"))?
///     .register(HookEvent::PostToolUse, "Edit|Write", hook_fn("remind", |_: &HookInput| async {
///         HookOutput::default().additional_context("run the tests after editing")
///     }))?;
/// assert!(hooks.has(HookEvent::PreToolUse));
/// assert!(!hooks.has(HookEvent::PermissionRequest));
///
/// let pre_tool_use: Vec<String> = hooks
///     .registered(HookEvent::PreToolUse)
///     .map(|(matcher, name)| format!("{matcher} => {name}"))
///     .collect();
/// assert_eq!(pre_tool_use, ["Bash => ./hooks/check-bash.sh"]);
///
/// // An invalid matcher is an error, not a hook that never runs.
/// assert!(hooks.register(HookEvent::PreToolUse, "Bash(", CommandHook::new("true")).is_err());
/// # Ok(())
/// # }
/// ```
///
/// Give them to the coordinator with
/// [`CoordinatorBuilder::hooks`](crate::coordinator::CoordinatorBuilder::hooks).
#[derive(Clone, Default)]
pub struct Hooks {
    by_event: Arc<[Vec<Entry>; HookEvent::ALL.len()]>,
}

impl Hooks {
    /// No hooks.
    #[must_use]
    pub fn new() -> Self {
        Hooks::default()
    }

    /// Registers `hook` for `event` on the tools `matcher` matches (see [`Matcher`]).
    ///
    /// # Errors
    ///
    /// [`MatcherError`] if the matcher is an invalid regular expression.
    pub fn register(
        &mut self,
        event: HookEvent,
        matcher: &str,
        hook: impl Hook + 'static,
    ) -> Result<&mut Self, MatcherError> {
        let matcher = Matcher::new(matcher)?;
        Ok(self.register_shared(event, matcher, Arc::new(hook)))
    }

    /// Registers a shared hook with a parsed matcher.
    pub fn register_shared(
        &mut self,
        event: HookEvent,
        matcher: Matcher,
        hook: Arc<dyn Hook>,
    ) -> &mut Self {
        Arc::make_mut(&mut self.by_event)[event.index()].push(Entry { matcher, hook });
        self
    }

    /// Appends every hook of `other`, after this one's (as a later settings file's hooks come
    /// after an earlier one's).
    pub fn extend(&mut self, other: &Hooks) {
        if other.is_empty() {
            return;
        }
        let by_event = Arc::make_mut(&mut self.by_event);
        for (mine, theirs) in by_event.iter_mut().zip(other.by_event.iter()) {
            mine.extend(theirs.iter().cloned());
        }
    }

    /// `true` if no hook is registered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_event.iter().all(Vec::is_empty)
    }

    /// `true` if some hook is registered for `event`.
    #[must_use]
    pub fn has(&self, event: HookEvent) -> bool {
        !self.by_event[event.index()].is_empty()
    }

    /// The registered hooks of `event`, in order: each one's matcher and name.
    pub fn registered(&self, event: HookEvent) -> impl Iterator<Item = (&Matcher, Cow<'_, str>)> {
        self.by_event[event.index()]
            .iter()
            .map(|entry| (&entry.matcher, entry.hook.name()))
    }

    /// Runs every hook of `event` whose matcher matches one of `tool_names` (the tool's name
    /// first, then its aliases, as [`ToolSpec::names`](crate::spec::ToolSpec::names) gives them),
    /// all at once, and aggregates their answers in registration order (see
    /// [`CombinedOutput`]). Hooks with the same [`Hook::identity`] (command hooks with the same
    /// command) run once, as the first registered.
    ///
    /// For one call's events ([`HookEvent::is_per_call`]) each hook receives `input` with
    /// `tool_name` set to the name its matcher matched (see [`Matcher::matched`]) and
    /// `tool_name_canonical` to the first of `tool_names`. Other events' names are what the
    /// matcher matches (every tool of a batch, an MCP server's name), and their hooks receive
    /// `input` as it is; so do hooks run with no names.
    ///
    /// `input` should be built for `event`. Hooks run concurrently in the calling task:
    /// command hooks are processes and run in parallel; an in-process hook that computes for
    /// long should move the work to a blocking thread. Nothing a hook does reaches the caller as
    /// a panic. Dropping the future cancels every hook (killing command hooks' processes).
    pub async fn run(
        &self,
        event: HookEvent,
        tool_names: &[&str],
        input: &HookInput,
    ) -> CombinedOutput {
        // Each selected hook with the name its matcher matched (`None`: no names to match).
        let mut selected: Vec<(&Arc<dyn Hook>, Option<&str>)> = Vec::new();
        for entry in &self.by_event[event.index()] {
            if !entry.matcher.matches(tool_names) {
                continue;
            }
            let matched = entry.matcher.matched(tool_names);
            let duplicate = entry.hook.identity().is_some_and(|identity| {
                selected
                    .iter()
                    .any(|(chosen, _)| chosen.identity() == Some(identity))
            });
            if !duplicate {
                selected.push((&entry.hook, matched));
            }
        }

        let mut outcome = CombinedOutput::default();
        if selected.is_empty() {
            return outcome;
        }
        // One input per name matched, so that a `Bash` hook reads `"tool_name": "Bash"`.
        let canonical = tool_names.first().copied().unwrap_or(&input.tool_name);
        let mut inputs: Vec<(&str, HookInput)> = Vec::new();
        for &(_, matched) in selected.iter().filter(|_| event.is_per_call()) {
            if let Some(name) = matched
                && !inputs.iter().any(|(seen, _)| *seen == name)
            {
                inputs.push((name, input.as_matched(name, canonical)));
            }
        }
        let futures = selected
            .iter()
            .map(|&(hook, matched)| {
                let input = matched
                    .and_then(|name| inputs.iter().find(|(seen, _)| *seen == name))
                    .map_or(input, |(_, input)| input);
                // Even building the future runs the hook's code.
                let future = catch(|| hook.run(input))
                    .unwrap_or_else(|message| Box::pin(std::future::ready(panicked(&message))));
                CatchUnwind::new(future)
            })
            .collect();
        let outputs = JoinAll::new(futures).await;
        for ((hook, _), output) in selected.iter().zip(outputs) {
            outcome.absorb(&hook.name(), output);
        }
        outcome
    }
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for event in HookEvent::ALL {
            let hooks: Vec<String> = self
                .registered(event)
                .map(|(matcher, name)| format!("{matcher} => {name}"))
                .collect();
            if !hooks.is_empty() {
                map.entry(&event.as_str(), &hooks);
            }
        }
        map.finish()
    }
}

/// Polls every hook's future in the calling task until all are done, keeping the answers in
/// the hooks' order; a panic while polling becomes that hook's non-blocking error.
struct JoinAll<'a> {
    pending: Vec<CatchUnwind<BoxFuture<'a, HookOutput>>>,
    done: Vec<Option<HookOutput>>,
}

impl<'a> JoinAll<'a> {
    fn new(futures: Vec<CatchUnwind<BoxFuture<'a, HookOutput>>>) -> Self {
        let done = futures.iter().map(|_| None).collect();
        JoinAll {
            pending: futures,
            done,
        }
    }
}

impl Future for JoinAll<'_> {
    type Output = Vec<HookOutput>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let mut all_done = true;
        for (future, answer) in this.pending.iter_mut().zip(this.done.iter_mut()) {
            if answer.is_some() {
                continue;
            }
            match Pin::new(future).poll(cx) {
                Poll::Pending => all_done = false,
                Poll::Ready(output) => {
                    *answer = Some(output.unwrap_or_else(|message| panicked(&message)));
                }
            }
        }
        if all_done {
            Poll::Ready(
                this.done
                    .iter_mut()
                    .map(|answer| answer.take().unwrap_or_default())
                    .collect(),
            )
        } else {
            Poll::Pending
        }
    }
}

/// A hook's time limit in a message: `60 s`, `500 ms`. One wording for every hook type.
fn describe(duration: std::time::Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} ms", duration.as_millis())
    }
}

/// The answer of a hook that panicked.
fn panicked(message: &str) -> HookOutput {
    HookOutput::error(format!("panicked: {message}"))
}

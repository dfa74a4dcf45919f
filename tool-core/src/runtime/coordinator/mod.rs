//! The [`Coordinator`]: runs a model's tool calls against a [`Toolset`]; configured once by a
//! [`CoordinatorBuilder`], and seen by a running tool through its [`ToolCaller`] (nested calls,
//! at most [`MAX_NESTING`] deep) and [`Session`] (mode and approver).
//!
//! One call goes through fixed stages, read top to bottom in `pipeline.rs`: look up, prepare
//! and classify (`prepare.rs`), authorize (`authorize.rs`), run through the middleware chain
//! to the tool (`context.rs` opens the call's context), the hooks after it (`authorize.rs`),
//! finish. Every failure is a [`ToolResult`] the model can read; nothing a tool does can crash
//! the coordinator.
//!
//! The other files: this one holds the coordinator and its public face
//! ([`Coordinator::call`], [`call_with`](Coordinator::call_with),
//! [`call_blocking`](Coordinator::call_blocking), [`explain`](Coordinator::explain));
//! `builder.rs` puts settings, policy, grants, hooks and middleware together once;
//! `options.rs` is what one call may bring ([`CallOptions`]); `batch.rs` and `schedule.rs`
//! run many calls ([`Coordinator::call_batch`]); `nested.rs` lets a running tool call others
//! ([`ToolCaller`]); `session.rs` lets it change the session's mode and ask the approver
//! ([`Session`]); `live.rs` changes the toolset while it runs.

mod authorize;
mod batch;
mod builder;
mod context;
mod live;
mod nested;
mod options;
mod pipeline;
mod prepare;
mod reach;
mod schedule;
mod session;

use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use tokio::runtime::{Handle, Runtime, RuntimeFlavor};

use crate::definition::context::SharedContext;
use crate::definition::tool::ToolHandle;
use crate::runtime::approval::{Approver, GrantsFile};
use crate::runtime::budget::Budget;
use crate::runtime::events::EventSink;
use crate::runtime::hooks::Hooks;
use crate::runtime::middleware::Middleware;
use crate::runtime::policy::{
    ClassifiedCall, Explanation, Mode, Policy, PolicyContext, RulePattern,
};
use crate::{ToolCall, ToolError, ToolResult, Toolset};

pub use batch::BatchOptions;
pub use builder::{BuildError, CoordinatorBuilder};
pub(crate) use live::LiveToolset;
pub use live::ToolsetChanges;
pub use nested::{MAX_NESTING, ToolCaller};
pub use options::CallOptions;
pub(crate) use options::CallScope;
pub(crate) use pipeline::Staged;
pub use session::Session;

/// Runs tool calls. Cheap to clone; clones share everything, including the session's mode and
/// grants.
///
/// ```
/// use tool_core::{tool, Coordinator, ToolCall, Toolset};
///
/// /// Add two integers.
/// #[tool(read_only, name = "doc_coordinator_add")]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_coordinator_add"]).unwrap())
///     .build().unwrap();
/// let result = coordinator.call_blocking(ToolCall::new("doc_coordinator_add", r#"{"a": 1, "b": 2}"#));
/// assert_eq!(result.text(), "3");
///
/// let result = coordinator.call_blocking(ToolCall::new("doc_coordinator_add", r#"{"a": 1}"#));
/// assert!(result.is_error());
/// assert!(result.text().contains("missing required argument `b` (an integer)"));
/// ```
#[derive(Clone)]
pub struct Coordinator {
    inner: Arc<Inner>,
}

struct Inner {
    /// The tools, replaced whole on a change ([`Coordinator::update_toolset`]); shared by
    /// every session of the coordinator ([`Coordinator::new_session`]).
    toolset: Arc<LiveToolset>,
    shared: Arc<SharedContext>,
    policy: Policy,
    /// What changes during a session (mode, grants, allow-list); each call decides on a
    /// snapshot, so a change never tears a decision in half.
    session: RwLock<Arc<PolicyContext>>,
    /// The session as built (mode, grants loaded from the grants file, allow-list): where a
    /// new session starts.
    initial_session: Arc<PolicyContext>,
    approver: Option<Arc<dyn Approver>>,
    grants_file: Option<GrantsFile>,
    hooks: Hooks,
    chain: Arc<[Arc<dyn Middleware>]>,
    budget: Option<Arc<Budget>>,
    events: Option<Arc<dyn EventSink>>,
    batch: BatchOptions,
    session_id: String,
    /// The time limit of calls whose tool declares none (the `Timeout` middleware enforces
    /// it; kept here too so each call's context can say when its limit runs out).
    default_timeout: Option<Duration>,
    /// The runtime `call_blocking` drives calls on when the caller has none.
    runtime: OnceLock<std::io::Result<Runtime>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The last clone may be dropped inside some other runtime, where a blocking shutdown
        // would panic; calls in flight on our runtime have ended by now.
        if let Some(Ok(runtime)) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// A [`Coordinator`] held weakly.
#[cfg_attr(not(feature = "mcp"), allow(dead_code))]
pub(crate) struct WeakCoordinator(std::sync::Weak<Inner>);

#[cfg_attr(not(feature = "mcp"), allow(dead_code))]
impl WeakCoordinator {
    pub(crate) fn upgrade(&self) -> Option<Coordinator> {
        self.0.upgrade().map(|inner| Coordinator { inner })
    }
}

impl Coordinator {
    /// Starts configuring a coordinator.
    pub fn builder() -> CoordinatorBuilder {
        CoordinatorBuilder::default()
    }

    /// The tools this coordinator offers now: a snapshot, which a later change does not
    /// touch (it derefs to the [`Toolset`]).
    #[must_use]
    pub fn toolset(&self) -> Arc<Toolset> {
        self.inner.toolset.snapshot()
    }

    /// Changes the toolset while the coordinator runs: `change` gets a copy of the current
    /// toolset, and the copy is put in place when `change` returns. Calls already running keep
    /// the tool they started with; a call that starts later sees the new set (a removed tool
    /// is an unknown tool, with the closest names). When a tool was added, removed or replaced,
    /// [`toolset_changes`](Self::toolset_changes) hears of it (an MCP server announces it);
    /// an update that changes nothing is not announced. Updates are serialized, so keep
    /// `change` quick.
    ///
    /// ```
    /// use tool_core::{tool, Coordinator, ToolCall, ToolError, Toolset};
    ///
    /// /// Say hello.
    /// #[tool(read_only, name = "doc_update_toolset_hello")]
    /// fn hello() -> &'static str { "hello" }
    ///
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::named(["doc_update_toolset_hello"]).unwrap())
    ///     .build()
    ///     .unwrap();
    /// let changes = coordinator.toolset_changes();
    /// // Nothing removed: nothing to announce.
    /// coordinator.update_toolset(|tools| tools.remove("no_such_tool"));
    /// assert!(!changes.has_changed());
    ///
    /// let removed = coordinator.update_toolset(|tools| tools.remove("doc_update_toolset_hello"));
    /// assert!(removed.is_some() && changes.has_changed());
    /// let result = coordinator.call_blocking(ToolCall::new("doc_update_toolset_hello", "{}"));
    /// assert!(matches!(result.error(), Some(ToolError::UnknownTool { .. })));
    /// ```
    pub fn update_toolset<R>(&self, change: impl FnOnce(&mut Toolset) -> R) -> R {
        self.inner.toolset.update(change)
    }

    /// Adds a tool while the coordinator runs ([`update_toolset`](Self::update_toolset) with
    /// [`Toolset::add`]).
    ///
    /// # Errors
    /// When its name or an alias is invalid or already taken.
    pub fn add_tool(
        &self,
        tool: impl Into<ToolHandle>,
    ) -> Result<(), crate::toolset::ToolsetError> {
        let tool = tool.into();
        self.update_toolset(|tools| tools.add(tool))
    }

    /// Removes the tool with this name or alias while the coordinator runs, returning it
    /// ([`update_toolset`](Self::update_toolset) with [`Toolset::remove`]).
    pub fn remove_tool(&self, name: &str) -> Option<ToolHandle> {
        self.update_toolset(|tools| tools.remove(name))
    }

    /// A handle that hears of every change of the toolset from now on (see
    /// [`ToolsetChanges`]).
    #[must_use]
    pub fn toolset_changes(&self) -> ToolsetChanges {
        self.inner.toolset.changes()
    }

    /// A handle that does not keep the coordinator alive (for a task that follows it).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn downgrade(&self) -> WeakCoordinator {
        WeakCoordinator(Arc::downgrade(&self.inner))
    }

    /// The policy.
    #[must_use]
    pub fn policy(&self) -> &Policy {
        &self.inner.policy
    }

    /// The session's current mode.
    #[must_use]
    pub fn mode(&self) -> Mode {
        self.snapshot().mode
    }

    /// Switches the permission mode; calls decided from now on see the new mode.
    pub fn set_mode(&self, mode: Mode) {
        self.update_session(|session| session.mode = mode);
    }

    /// Grants a permission rule for the rest of the session, as an approval with a pattern
    /// scope does.
    ///
    /// # Errors
    /// When the rule is not valid.
    pub fn grant(&self, rule: &str) -> Result<(), crate::runtime::policy::RuleSyntaxError> {
        let rule = RulePattern::parse(rule)?;
        self.update_session(|session| session.grants = session.grants.with(rule));
        Ok(())
    }

    /// The session's policy context: mode, grants and allow-list as they are now.
    #[must_use]
    pub fn snapshot(&self) -> Arc<PolicyContext> {
        let session = self.inner.session.read();
        Arc::clone(&session.unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    fn update_session(&self, change: impl FnOnce(&mut PolicyContext)) {
        let mut session = self
            .inner
            .session
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut next = PolicyContext::clone(&session);
        change(&mut next);
        *session = Arc::new(next);
    }

    /// The session id hooks receive.
    #[must_use]
    pub fn session_id(&self) -> &str {
        &self.inner.session_id
    }

    /// The budgets, if the coordinator has them.
    #[must_use]
    pub fn budget(&self) -> Option<&Budget> {
        self.inner.budget.as_deref()
    }

    /// Runs one call to its result: the whole call path, stage by stage.
    ///
    /// Async and `blocking` tools need a Tokio runtime (so do command hooks and timeouts);
    /// from synchronous code use [`call_blocking`](Self::call_blocking).
    pub async fn call(&self, call: ToolCall) -> ToolResult {
        let started = Instant::now();
        match self.stage(call, started) {
            Ok(staged) => self.run(staged, started, None).await,
            Err(result) => result,
        }
    }

    /// Runs one call with options of its own ([`CallOptions`]): a token that cancels it, a
    /// progress sink and an approver for it and its nested calls. What the options leave out
    /// is the coordinator's. An MCP server calls this way, so each client hears its own
    /// call's progress and is asked about its own calls.
    pub async fn call_with(&self, call: ToolCall, options: CallOptions) -> ToolResult {
        let started = Instant::now();
        let mut staged = match self.stage(call, started) {
            Ok(staged) => staged,
            Err(result) => return result,
        };
        staged.scope = options.scope;
        let Some(cancel) = options.cancel else {
            return self.run(staged, started, None).await;
        };
        let own = self.inner.shared.cancellation.child_token();
        staged.parent_cancellation = Some(own.clone());
        let run = self.run(staged, started, None);
        tokio::pin!(run);
        tokio::select! {
            result = &mut run => result,
            () = cancel.cancelled() => {
                own.cancel();
                run.await
            }
        }
    }

    /// How the policy would decide `call` now, rule by rule, without running it: nothing is
    /// asked and no hook runs. The arguments are parsed and the paths resolved as for a real
    /// call, so path rules and the workspace boundary see what the tool would.
    ///
    /// ```
    /// use tool_core::{tool, Coordinator, ToolCall, Toolset, policy::{PolicyBuilder, PolicyLayer, Verdict}};
    ///
    /// /// Run a command.
    /// #[tool(name = "doc_explain_shell")]
    /// fn shell(#[arg(command)] command: String) -> String { command }
    ///
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::named(["doc_explain_shell"]).unwrap())
    ///     .policy(PolicyBuilder::default().deny("doc_explain_shell(rm:*)"))
    ///     .build().unwrap();
    /// let explained = coordinator
    ///     .explain(&ToolCall::new("doc_explain_shell", r#"{"command": "rm -rf /"}"#))
    ///     .unwrap();
    /// assert_eq!(explained.decision.verdict, Verdict::Deny);
    /// assert_eq!(explained.decider().unwrap().layer, PolicyLayer::DenyRule);
    /// println!("{explained}"); // every rule considered, and which one decided
    /// ```
    ///
    /// # Errors
    /// An unknown tool or invalid arguments, as a call would get.
    pub fn explain(&self, call: &ToolCall) -> Result<Explanation, ToolError> {
        let tool = self.lookup(&call.name)?;
        let prepared = self.prepare(&tool, &call.arguments)?;
        let (effect, commands, paths) = self.classify(&tool, &prepared);
        let classified = ClassifiedCall::new(tool.spec())
            .with_effect(effect)
            .with_resources(prepared.resources())
            .with_commands(&commands)
            .with_paths(&paths)
            .with_arguments(&call.arguments);
        Ok(self.inner.policy.explain(&classified, &self.snapshot()))
    }

    /// Another session of this coordinator: the same tools (a change of the toolset reaches
    /// every session), policy, settings, hooks, middleware, approver, events, budget and state
    /// values, and a session of its own: the permission mode as built, no grants but those the
    /// grants file held when it was built, an artifact store of its own, and its own session
    /// values (the files read, background jobs, the todo list, the sandbox's temporary
    /// directory), dropped with it. For a server with many clients: one session each, so
    /// that a client's grant never allows another's call, and none sees another's artifacts or
    /// jobs. Cancelling this coordinator's calls as a whole (its shutdown) cancels the new
    /// session's too.
    ///
    /// ```
    /// use tool_core::{Coordinator, policy::Mode};
    ///
    /// let server = Coordinator::builder().mode(Mode::Plan).build().unwrap();
    /// let alice = server.new_session();
    /// alice.set_mode(Mode::AcceptEdits);
    /// let bob = server.new_session();
    /// assert_eq!(bob.mode(), Mode::Plan);
    /// assert_eq!(server.mode(), Mode::Plan);
    /// assert_ne!(alice.session_id(), bob.session_id());
    /// ```
    #[must_use]
    pub fn new_session(&self) -> Coordinator {
        let inner = &self.inner;
        let mut state = inner.shared.state.clone();
        if let Some(artifacts) = state.get::<crate::runtime::middleware::Artifacts>() {
            let empty = artifacts.empty_like();
            state.insert(Arc::new(empty));
        }
        let shared = crate::definition::context::SharedContext {
            workspace: inner.shared.workspace.clone(),
            state,
            cancellation: inner.shared.cancellation.child_token(),
            progress: inner.shared.progress.clone(),
            session: std::sync::Mutex::default(),
            owner: OnceLock::new(),
        };
        Coordinator::owning(Inner {
            toolset: Arc::clone(&inner.toolset),
            shared: Arc::new(shared),
            policy: inner.policy.clone(),
            session: RwLock::new(Arc::clone(&inner.initial_session)),
            initial_session: Arc::clone(&inner.initial_session),
            approver: inner.approver.clone(),
            grants_file: inner.grants_file.clone(),
            hooks: inner.hooks.clone(),
            chain: Arc::clone(&inner.chain),
            budget: inner.budget.clone(),
            events: inner.events.clone(),
            batch: inner.batch,
            session_id: builder::new_session_id(),
            default_timeout: inner.default_timeout,
            runtime: OnceLock::new(),
        })
    }

    /// The coordinator of `inner`, known to its calls' contexts as their owner: what
    /// [`of`](Self::of) finds for a tool that calls others.
    fn owning(inner: Inner) -> Coordinator {
        let inner = Arc::new(inner);
        let weak = Arc::downgrade(&inner);
        let owner: std::sync::Weak<dyn std::any::Any + Send + Sync> = weak;
        // Each `Inner` has a shared context of its own, so nothing set it before.
        let _ = inner.shared.owner.set(owner);
        Coordinator { inner }
    }

    /// The coordinator running the call of `ctx`, `None` for a detached context.
    pub(crate) fn of(ctx: &crate::definition::context::ToolContext) -> Option<Coordinator> {
        let inner = ctx.owner()?.downcast::<Inner>().ok()?;
        Some(Coordinator { inner })
    }

    /// The value of type `T` kept for this session, as tools reach it with
    /// [`ToolContext::session_state`](crate::context::ToolContext::session_state): made with `T::default()` by the first caller that asks,
    /// tool or application. For an application that shows what its tools keep (a todo list in
    /// an agent's UI, say).
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use tool_core::{tool, Coordinator, ToolCall, Toolset, context::ToolContext};
    ///
    /// #[derive(Default)]
    /// struct Notes(Mutex<Vec<String>>);
    ///
    /// /// Keep a note for the rest of the session.
    /// #[tool(read_only, name = "doc_coordinator_session_state_note")]
    /// fn note(text: String, ctx: &ToolContext) -> &'static str {
    ///     ctx.session_state::<Notes>().0.lock().unwrap().push(text);
    ///     "noted"
    /// }
    ///
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::named(["doc_coordinator_session_state_note"]).unwrap())
    ///     .build()
    ///     .unwrap();
    /// coordinator.call_blocking(ToolCall::new("doc_coordinator_session_state_note", r#"{"text": "call Ada"}"#));
    /// assert_eq!(*coordinator.session_state::<Notes>().0.lock().unwrap(), ["call Ada"]);
    /// ```
    #[must_use]
    pub fn session_state<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        self.inner.shared.session_value::<T>()
    }

    /// Runs one call from synchronous code and waits for its result.
    ///
    /// Outside any runtime it drives the call on a runtime of its own; inside a multi-threaded
    /// Tokio runtime it blocks in place; inside a current-thread runtime, which cannot block, it
    /// runs the call on a helper thread.
    pub fn call_blocking(&self, call: ToolCall) -> ToolResult {
        match Handle::try_current() {
            Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(|| handle.block_on(self.call(call)))
            }
            Ok(_) => {
                // Kept for the answer if the helper thread itself fails.
                let call_id = call.call_id.clone();
                std::thread::scope(|scope| {
                    scope
                        .spawn(|| self.call_on_own_runtime(call))
                        .join()
                        .unwrap_or_else(|payload| {
                            let message = crate::definition::panic::panic_message(payload.as_ref());
                            ToolResult::failure(
                                call_id,
                                ToolError::internal(format!(
                                    "the call's thread panicked: {message}"
                                )),
                            )
                        })
                })
            }
            Err(_) => self.call_on_own_runtime(call),
        }
    }

    fn call_on_own_runtime(&self, call: ToolCall) -> ToolResult {
        match self.own_runtime() {
            Ok(runtime) => runtime.block_on(self.call(call)),
            Err(error) => ToolResult::failure(
                call.call_id,
                ToolError::internal(format!("could not start a runtime for the call: {error}")),
            ),
        }
    }

    fn own_runtime(&self) -> Result<&Runtime, &std::io::Error> {
        self.inner
            .runtime
            .get_or_init(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
            })
            .as_ref()
    }
}

impl std::fmt::Debug for Coordinator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coordinator")
            .field("toolset", &self.toolset())
            .field("mode", &self.mode())
            .finish_non_exhaustive()
    }
}

//! The [`Coordinator`]: runs a model's tool calls against a [`Toolset`].
//!
//! One call goes through fixed stages, each in one place:
//!
//! 1. **look up** the tool (an unknown name answers with the closest names);
//! 2. **prepare**: parse and validate the arguments, with the workspace in scope so
//!    `WorkspacePath` arguments arrive resolved; classify the call (its effect, per call for
//!    `read_only_if` tools) and extract its resources; resolve every path argument against
//!    the workspace boundary;
//! 3. **authorize** (`authorize.rs`): the [`Policy`](crate::policy::Policy) decides from an
//!    immutable snapshot (mode, session grants, allow-list); the budget is charged; PreToolUse
//!    hooks may block, change the input (validated and decided again) or settle an ask; an ask
//!    goes to PermissionRequest hooks, then to the [`Approver`](crate::approval::Approver);
//!    after each of these waits the paths are confined again and the call decided again;
//! 4. **invoke** through the middleware chain (built once, at `build()`), which ends in
//!    `invoke` below: the one place a tool's code is called, its panics caught;
//! 5. **PostToolUse / PostToolUseFailure hooks**, then the result.
//!
//! PreToolUse hooks run after the policy and before the approver, not after it: a hook's
//! `permissionDecision` (Claude Code's protocol) settles whether to ask at all, and a hook
//! never overrides a deny from safety or the user's deny rules.
//!
//! Every failure is a [`ToolResult`] the model can read; nothing a tool does can crash the
//! coordinator.
//!
//! Files: this one holds the call path, top to bottom from [`Coordinator::call`] to `invoke`;
//! `builder.rs` puts settings, policy, grants, hooks and middleware together once;
//! `authorize.rs` is stage 3 and the hooks after the call; `batch.rs` and `schedule.rs` run
//! many calls ([`Coordinator::call_batch`]); `nested.rs` lets a running tool call others
//! ([`ToolCaller`]); `session.rs` lets it change the session's mode and ask the approver
//! ([`Session`]).

mod authorize;
mod batch;
mod builder;
mod live;
mod nested;
mod options;
mod schedule;
mod session;

use std::borrow::Cow;
use std::path::Path;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use tokio::runtime::{Handle, Runtime, RuntimeFlavor};

use crate::definition::context::{CallInfo, CancellationToken, SharedContext, ToolContext};
use crate::definition::panic::guard;
use crate::definition::spec::{Effect, ResourceKind};
use crate::definition::tool::{Prepared, Resource, ToolHandle};
use crate::definition::workspace::{
    Normalization, ParsedPath, ResolvedPath, with_workspace_recording,
};
use crate::runtime::approval::{Approver, GrantsFile};
use crate::runtime::budget::Budget;
use crate::runtime::events::{CallEvent, EventSink};
use crate::runtime::hooks::Hooks;
use crate::runtime::middleware::{Downstream, Invocation, Middleware};
use crate::runtime::policy::shell::CommandLine;
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
    /// The tools, replaced whole on a change ([`Coordinator::update_toolset`]).
    toolset: LiveToolset,
    shared: Arc<SharedContext>,
    policy: Policy,
    /// What changes during a session (mode, grants, allow-list); each call decides on a
    /// snapshot, so a change never tears a decision in half.
    session: RwLock<Arc<PolicyContext>>,
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

/// Sends a call's `Finished` event (as cancelled) if the call's future is dropped before the
/// call ends; disarmed when it ends. Nothing at all without an event sink.
struct Unfinished(Option<Armed>);

struct Armed {
    events: Arc<dyn EventSink>,
    call_id: String,
    tool: Cow<'static, str>,
    started: Instant,
}

impl Unfinished {
    fn arm(coordinator: &Coordinator, staged: &Staged, started: Instant) -> Self {
        Unfinished(coordinator.inner.events.as_ref().map(|events| Armed {
            events: Arc::clone(events),
            call_id: staged.call_id.clone(),
            tool: staged.tool.spec().name.clone(),
            started,
        }))
    }

    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        if let Some(armed) = self.0.take() {
            armed.events.send(CallEvent::Finished {
                call_id: armed.call_id,
                tool: armed.tool,
                is_error: true,
                error_kind: Some(ToolError::Cancelled.kind()),
                elapsed: armed.started.elapsed(),
            });
        }
    }
}

/// A call after lookup and preparation: everything later stages need.
pub(crate) struct Staged {
    pub(crate) call_id: String,
    pub(crate) tool: ToolHandle,
    pub(crate) arguments: String,
    pub(crate) depth: u32,
    pub(crate) prepared: Prepared,
    pub(crate) effect: Effect,
    /// Each command argument, analysed (in the order of the command resources).
    pub(crate) commands: Vec<CommandLine>,
    pub(crate) paths: Vec<ResolvedPath>,
    /// The calling tool's token, for a nested call: cancelling it cancels this call.
    pub(crate) parent_cancellation: Option<CancellationToken>,
    /// The calling tool's deadline, for a nested call: this call's is no later.
    pub(crate) parent_deadline: Option<Instant>,
    /// The call's own progress sink and approver ([`CallOptions`]), handed on to its nested
    /// calls.
    pub(crate) scope: CallScope,
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

    /// Stages 1 and 2: looks the tool up and prepares the call. A failure is the call's result.
    #[expect(
        clippy::result_large_err,
        reason = "the failure is the call's answer, moved once to the caller"
    )]
    pub(crate) fn stage(&self, call: ToolCall, started: Instant) -> Result<Staged, ToolResult> {
        let ToolCall {
            call_id,
            name,
            arguments,
            depth,
            // The provider's data is for the reply the caller formats, not for running the call.
            provider_data: _,
        } = call;
        if let Some(events) = &self.inner.events {
            events.send(CallEvent::Requested {
                call_id: call_id.clone(),
                tool: name.clone(),
            });
        }
        let tool = match self.lookup(&name) {
            Ok(tool) => tool,
            Err(error) => {
                return Err(self.finish(ToolResult::failure(call_id, error), name.into(), started));
            }
        };
        let prepared = match self.prepare(&tool, &arguments) {
            Ok(prepared) => prepared,
            Err(error) => {
                let name = tool.spec().name.clone();
                return Err(self.finish(ToolResult::failure(call_id, error), name, started));
            }
        };
        let (effect, commands, paths) = self.classify(&tool, &prepared);
        Ok(Staged {
            call_id,
            tool,
            arguments,
            depth,
            prepared,
            effect,
            commands,
            paths,
            parent_cancellation: None,
            parent_deadline: None,
            scope: CallScope::default(),
        })
    }

    /// Stages 3 to 5 of a staged call: authorize, invoke through the middleware chain, the
    /// hooks after it; then the result. `batch_abort` is cancelled when the user aborts.
    pub(crate) async fn run(
        &self,
        mut staged: Staged,
        started: Instant,
        batch_abort: Option<&CancellationToken>,
    ) -> ToolResult {
        // Should this future be dropped before the call ends (the caller gave up, a batch was
        // dropped), the event sink still hears that the call finished, as cancelled.
        let unfinished = Unfinished::arm(self, &staged, started);
        let snapshot = self.snapshot();
        // A call cancelled while it waits to be authorized (on a PreToolUse hook, a
        // PermissionRequest hook, the approver) ends there: the wait is dropped, which kills a
        // hook's processes, and the tool never runs.
        let cancelled = staged
            .parent_cancellation
            .clone()
            .unwrap_or_else(|| self.inner.shared.cancellation.clone());
        let authorized = tokio::select! {
            biased;
            () = cancelled.cancelled() => Err(authorize::Refusal::from(ToolError::Cancelled)),
            authorized = self.authorize(&mut staged, &snapshot, batch_abort) => authorized,
        };
        let context = match authorized {
            Ok(context) => context,
            Err(refusal) => {
                unfinished.disarm();
                let name = staged.tool.spec().name.clone();
                let mut result = ToolResult::failure(staged.call_id, refusal.error);
                result.stop = refusal.stop;
                return self.finish(result, name, started);
            }
        };

        let Staged {
            call_id,
            tool,
            arguments,
            depth,
            prepared,
            effect,
            commands: _,
            paths: _,
            parent_cancellation,
            parent_deadline,
            scope,
        } = staged;
        let mut ctx = self
            .open(call_id, &tool, depth, parent_cancellation)
            .with_deadline(self.deadline(&tool, parent_deadline));
        scope.attach(&mut ctx);
        let invocation = Invocation {
            spec: tool.spec(),
            effect,
            mode: snapshot.mode,
            ctx: &ctx,
        };
        // Cancelled between its authorization and now: the tool is not started at all.
        let outcome = if ctx.cancellation().is_cancelled() {
            Err(ToolError::Cancelled)
        } else {
            Downstream::new(&self.inner.chain, &*tool, prepared, &invocation)
                .run()
                .await
        };
        let mut result = ToolResult::from_outcome(ctx.into_call().call_id, outcome);
        result.context.extend(context);

        self.after_hooks(&tool, &arguments, &mut result, snapshot.mode)
            .await;
        unfinished.disarm();
        self.finish(result, tool.spec().name.clone(), started)
    }

    /// The tool answering to `name` now, or an error naming the closest names.
    fn lookup(&self, name: &str) -> Result<ToolHandle, ToolError> {
        let toolset = self.toolset();
        toolset
            .get(name)
            .cloned()
            .ok_or_else(|| match toolset.withheld(name) {
                Some(reason) => ToolError::Unavailable {
                    name: name.to_owned(),
                    reason: reason.to_owned(),
                },
                None => ToolError::UnknownTool {
                    name: name.to_owned(),
                    suggestions: toolset.suggest(name),
                },
            })
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

    /// Parses and validates arguments, with the workspace in scope so `WorkspacePath`
    /// arguments arrive resolved.
    pub(crate) fn prepare(
        &self,
        tool: &ToolHandle,
        arguments: &str,
    ) -> Result<Prepared, ToolError> {
        let Some(workspace) = self.inner.shared.workspace.as_ref() else {
            // Nothing to put in scope (and nothing can be in scope: scopes never outlive
            // `prepare`), so skip the thread-local.
            return guard(|| tool.prepare(arguments));
        };
        let (prepared, parsed) =
            with_workspace_recording(Some(workspace), || guard(|| tool.prepare(arguments)));
        let mut prepared = prepared?;
        // Every `WorkspacePath` parsed counts as a path of the call, also those the macro
        // cannot see (inside an `Args<T>` struct, a list of edits): each is confined and
        // matched by path rules like a top-level one.
        for ParsedPath { path, .. } in &parsed {
            let value = path.to_string_lossy();
            let known = prepared
                .resources()
                .iter()
                .any(|r| r.kind == ResourceKind::Path && r.value == value);
            if !known {
                let value = value.into_owned();
                prepared = prepared.with_resource(Resource {
                    arg: Cow::Borrowed("path"),
                    kind: ResourceKind::Path,
                    value,
                });
            }
        }
        Ok(prepared.with_parsed_paths(parsed))
    }

    /// What the policy judges of a prepared call besides its tool: its effect, its command
    /// arguments analysed, and its paths resolved against the workspace boundary.
    ///
    /// A command line that writes a file, or that runs something known only at run time, is
    /// never read-only, whatever the tool's own classifier said.
    pub(crate) fn classify(
        &self,
        tool: &ToolHandle,
        prepared: &Prepared,
    ) -> (Effect, Vec<CommandLine>, Vec<ResolvedPath>) {
        let commands = analyze_commands(prepared);
        let mut effect = prepared.effect(tool.spec());
        let writes_or_unknown =
            |line: &CommandLine| !line.writes().is_empty() || !line.is_fully_known();
        if effect.is_read_only() && commands.iter().any(writes_or_unknown) {
            effect = Effect::Mutating;
        }
        let paths = self.resolve_paths_of(prepared, &commands, effect);
        (effect, commands, paths)
    }

    /// Every path the call names, resolved against the workspace boundary (none without a
    /// workspace): its path arguments, and the files its commands write.
    ///
    /// A `WorkspacePath` is checked where it was resolved, which is where the tool will look;
    /// for a call that is not read-only, also as sent when the resolution guessed at another
    /// file that exists, since a tool that creates or deletes files acts there
    /// ([`WorkspacePath::to_create`](crate::WorkspacePath::to_create)).
    /// Any other path argument reaches the tool as text, as sent, so it is checked everywhere
    /// the tool might take it: where a shell would (`~` and `$VAR` expanded), as it reads
    /// literally when it has something to expand, and where the workspace would resolve it (a
    /// dropped first component).
    pub(crate) fn resolve_paths(&self, prepared: &Prepared, effect: Effect) -> Vec<ResolvedPath> {
        self.resolve_paths_of(prepared, &analyze_commands(prepared), effect)
    }

    fn resolve_paths_of(
        &self,
        prepared: &Prepared,
        commands: &[CommandLine],
        effect: Effect,
    ) -> Vec<ResolvedPath> {
        let Some(workspace) = &self.inner.shared.workspace else {
            return Vec::new();
        };
        let mut paths = Vec::new();
        let mut lines = commands.iter();
        for resource in prepared.resources() {
            match resource.kind {
                ResourceKind::Path => {
                    let (arg, value) = (&resource.arg, resource.value.as_str());
                    let parsed = prepared
                        .parsed_paths()
                        .iter()
                        .find(|parsed| parsed.path.as_os_str() == value);
                    if let Some(parsed) = parsed {
                        paths.push(workspace.confine_target(
                            arg.clone(),
                            &parsed.sent,
                            &parsed.path,
                        ));
                        if let Some(unrepaired) = parsed
                            .unrepaired
                            .as_ref()
                            .filter(|_| !effect.is_read_only())
                        {
                            paths.push(workspace.confine_target(
                                arg.clone(),
                                &parsed.sent,
                                unrepaired,
                            ));
                        }
                        continue;
                    }
                    paths.push(workspace.confine(arg.clone(), value));
                    let lenient = workspace.resolve_lenient(value);
                    match lenient.normalization {
                        None => {}
                        Some(Normalization::Expanded { .. }) => {
                            paths.push(workspace.confine_target(
                                arg.clone(),
                                value,
                                Path::new(value),
                            ));
                        }
                        Some(_) => {
                            paths.push(workspace.confine_target(arg.clone(), value, &lenient.path));
                        }
                    }
                }
                // A redirection writes a file, relative to the workspace root where commands
                // run: confined like a path argument. (A target known only at run time makes
                // the command unknown, which no allow rule covers.)
                ResourceKind::Command => {
                    let Some(line) = lines.next() else { continue };
                    for write in line.writes().iter().filter(|write| write.target.is_exact()) {
                        paths.push(workspace.confine(resource.arg.clone(), &write.target.text));
                    }
                }
                ResourceKind::Url => {}
            }
        }
        paths
    }

    /// The context of a call about to run, with its own cancellation token; tells the event
    /// sink the call started.
    pub(crate) fn open(
        &self,
        call_id: String,
        tool: &ToolHandle,
        depth: u32,
        parent_cancellation: Option<CancellationToken>,
    ) -> ToolContext {
        let spec = tool.spec();
        let mut ctx = ToolContext::new(
            CallInfo {
                call_id,
                tool: spec.name.clone(),
                depth,
            },
            Arc::clone(&self.inner.shared),
            parent_cancellation,
        );
        // Through which the tool may call other tools (`ToolCaller`).
        ctx.extensions_mut().insert(self.clone());
        if let Some(events) = &self.inner.events {
            events.send(CallEvent::Started {
                call_id: ctx.call().call_id.clone(),
                tool: spec.name.clone(),
            });
        }
        ctx
    }

    /// When a call of `tool` starting now must end: its time limit from now, and no later than
    /// its caller's deadline.
    fn deadline(&self, tool: &ToolHandle, parent: Option<Instant>) -> Option<Instant> {
        let own = tool
            .spec()
            .timeout
            .or(self.inner.default_timeout)
            .and_then(|limit| Instant::now().checked_add(limit));
        match (own, parent) {
            (Some(own), Some(parent)) => Some(own.min(parent)),
            (own, parent) => own.or(parent),
        }
    }

    /// The value of type `T` kept for this session, as tools reach it with
    /// [`ToolContext::session_state`]: made with `T::default()` by the first caller that asks,
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

    /// Tells the event sink the call finished; returns its result.
    pub(crate) fn finish(
        &self,
        result: ToolResult,
        tool: Cow<'static, str>,
        started: Instant,
    ) -> ToolResult {
        if let Some(events) = &self.inner.events {
            events.send(CallEvent::Finished {
                call_id: result.call_id.clone(),
                tool,
                is_error: result.is_error(),
                error_kind: result.error().map(ToolError::kind),
                elapsed: started.elapsed(),
            });
        }
        result
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

/// Each command argument of a prepared call, analysed, in order.
fn analyze_commands(prepared: &Prepared) -> Vec<CommandLine> {
    prepared
        .resources()
        .iter()
        .filter(|resource| resource.kind == ResourceKind::Command)
        .map(|resource| CommandLine::analyze(&resource.value))
        .collect()
}

impl std::fmt::Debug for Coordinator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coordinator")
            .field("toolset", &self.toolset())
            .field("mode", &self.mode())
            .finish_non_exhaustive()
    }
}

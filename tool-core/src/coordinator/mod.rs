//! The [`Coordinator`]: runs a model's tool calls against a [`Toolset`].
//!
//! One call goes through fixed stages, each in one place:
//!
//! 1. **look up** the tool (an unknown name answers with the closest names);
//! 2. **prepare**: parse and validate the arguments, with the workspace in scope so
//!    `WorkspacePath` arguments arrive resolved; classify the call (its effect, per call for
//!    `read_only_if` tools) and extract its resources; resolve every path argument against
//!    the workspace boundary;
//! 3. **authorize** (`authorize.rs`): the [`Policy`](crate::Policy) decides from an immutable
//!    snapshot (mode, session grants, allow-list); the budget is checked; PreToolUse hooks may
//!    block, change the input (validated and decided again) or settle an ask; an ask goes to
//!    PermissionRequest hooks, then to the [`Approver`](crate::Approver);
//! 4. **invoke** through the middleware chain (built once, at `build()`), panics caught;
//! 5. **PostToolUse / PostToolUseFailure hooks**, then the result.
//!
//! PreToolUse hooks run after the policy and before the approver, not after it: a hook's
//! `permissionDecision` (Claude Code's protocol) settles whether to ask at all, and a hook
//! never overrides a deny from safety or the user's deny rules.
//!
//! Every failure is a [`ToolResult`] the model can read; nothing a tool does can crash the
//! coordinator. [`Coordinator::call_batch`] schedules many calls (`batch.rs`).

mod authorize;
mod batch;
mod inline;
mod schedule;

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use tokio::runtime::{Handle, Runtime, RuntimeFlavor};

use crate::approval::{Approver, GrantsFile};
use crate::budget::Budget;
use crate::context::{ProgressSink, SharedContext};
use crate::events::{CallEvent, EventSink};
use crate::hooks::{HookEvent, Hooks};
use crate::middleware::{
    Artifacts, BudgetGuard, Invocation, Middleware, Next, OutputLimit, Started, Timeout, Tracing,
};
use crate::panic::guard;
use crate::policy::{
    ClassifiedCall, Explanation, Mode, PermissionRule, PermissionRules, PermissionSet, Policy,
    PolicyBuilder, PolicyContext,
};
use crate::settings::Settings;
use crate::spec::{Effect, ResourceKind};
use crate::tool::{Prepared, Resource, ToolHandle};
use crate::workspace::{ResolvedPath, with_workspace_recording};
use crate::{
    CallInfo, CancellationToken, ToolCall, ToolContext, ToolError, ToolResult, Toolset, Workspace,
};

pub use batch::BatchOptions;
pub use inline::CallFuture;

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
///     .build();
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
    toolset: Toolset,
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
    /// Each call gets its own cancellation token (a child of the coordinator's), so that a
    /// timeout stops only that call.
    per_call_cancellation: bool,
    batch: BatchOptions,
    session_id: String,
    /// The runtime `call_blocking` drives calls on when the caller has none.
    runtime: OnceLock<Result<Runtime, String>>,
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

/// Why a coordinator could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A permission rule (from settings or the builder) is not valid.
    #[error(transparent)]
    Rule(#[from] crate::policy::RuleSyntaxError),
    /// The grants file could not be read.
    #[error(transparent)]
    Grants(#[from] crate::approval::GrantsError),
    /// A workspace directory from the settings cannot be used.
    #[error(transparent)]
    Workspace(#[from] crate::WorkspaceError),
    /// The registry is invalid (two tools claim a name).
    #[error(transparent)]
    Registry(#[from] crate::RegistryError),
}

/// Configures a [`Coordinator`].
#[must_use = "a builder does nothing until `.build()`"]
#[derive(Default)]
pub struct CoordinatorBuilder {
    toolset: Option<Toolset>,
    shared: SharedContext,
    policy: Option<PolicyBuilder>,
    settings: Vec<Settings>,
    mode: Option<Mode>,
    allow_list: Option<Vec<String>>,
    approver: Option<Arc<dyn Approver>>,
    grants_file: Option<GrantsFile>,
    hooks: Option<Hooks>,
    middleware: Vec<Arc<dyn Middleware>>,
    default_timeout: Option<Duration>,
    output_limit: Option<OutputLimit>,
    tracing: bool,
    budget: Option<Arc<Budget>>,
    events: Option<Arc<dyn EventSink>>,
    batch: BatchOptions,
    session_id: Option<String>,
}

impl CoordinatorBuilder {
    /// The tools offered (default: every linked tool, [`Toolset::all`]).
    pub fn toolset(mut self, toolset: Toolset) -> Self {
        self.toolset = Some(toolset);
        self
    }

    /// A state value, reached by tools through a `State<T>` parameter. One value per type; a
    /// second value of the same type replaces the first.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.shared.state.insert(Arc::new(value));
        self
    }

    /// A state value already behind an `Arc`, shared with the caller.
    pub fn shared_state<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.shared.state.insert(value);
        self
    }

    /// The workspace tools work in: path arguments are resolved against it, and none may leave
    /// it.
    pub fn workspace(mut self, workspace: Workspace) -> Self {
        self.shared.workspace = Some(workspace);
        self
    }

    /// A token that cancels every running call when cancelled.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.shared.cancellation = token;
        self
    }

    /// Where tools' progress reports go.
    pub fn on_progress(mut self, sink: impl ProgressSink) -> Self {
        self.shared.progress = Some(Arc::new(sink));
        self
    }

    /// The policy's user rules, custom rules and protected paths (default: the built-in layers
    /// only, as [`Policy::default`]). It is built with the coordinator, after the rules of the
    /// [`settings`](Self::settings) are added to it.
    pub fn policy(mut self, policy: PolicyBuilder) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Claude Code style settings: permission rules, default mode, extra workspace
    /// directories and hooks. Several calls merge, later ones adding to earlier ones.
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings.push(settings);
        self
    }

    /// The permission mode the session starts in (default: the settings' `defaultMode`, else
    /// [`Mode::Default`]). Change it later with [`Coordinator::set_mode`].
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = Some(mode);
        self
    }

    /// A template's allow-list: these tools (names or permission rules) run without asking.
    pub fn allow_list<I, S>(mut self, rules: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow_list = Some(rules.into_iter().map(Into::into).collect());
        self
    }

    /// Who answers when the policy asks. Without one, a call that needs approval is denied
    /// with a message saying so.
    pub fn approver(mut self, approver: impl Approver) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// Where "always" approvals are kept; its grants are loaded at `build()`.
    pub fn grants_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.grants_file = Some(GrantsFile::new(path));
        self
    }

    /// In-process and command hooks (added to the hooks of the settings).
    pub fn hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// A middleware around every invocation; the first added is the outermost.
    pub fn middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware.push(Arc::new(middleware));
        self
    }

    /// The longest any call may run when its tool declares no `timeout_ms`.
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = Some(timeout);
        self
    }

    /// Cuts long outputs to `max_chars`, keeping head and tail; the whole output goes to an
    /// [`Artifacts`] store, which tools reach as `State<Artifacts>`.
    pub fn output_limit(mut self, max_chars: usize) -> Self {
        let artifacts = Artifacts::default();
        self.shared.state.insert(Arc::new(artifacts.clone()));
        self.output_limit = Some(OutputLimit::new(max_chars, artifacts));
        self
    }

    /// A tracing span per call, named by the OpenTelemetry GenAI conventions.
    pub fn tracing(mut self) -> Self {
        self.tracing = true;
        self
    }

    /// The session's budgets; shared, so the caller can read its status.
    pub fn budget(mut self, budget: Arc<Budget>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Who watches calls: a closure or a Tokio channel sender receiving [`CallEvent`]s.
    pub fn events(mut self, sink: impl EventSink) -> Self {
        self.events = Some(Arc::new(sink));
        self
    }

    /// How [`Coordinator::call_batch`] schedules.
    pub fn batch(mut self, options: BatchOptions) -> Self {
        self.batch = options;
        self
    }

    /// The session id hooks receive (default: made from the time and the process id).
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// Builds the coordinator.
    ///
    /// # Panics
    /// When [`try_build`](Self::try_build) fails: an invalid permission rule in the settings,
    /// an unreadable grants file, or an invalid registry.
    #[must_use]
    pub fn build(self) -> Coordinator {
        match self.try_build() {
            Ok(coordinator) => coordinator,
            Err(error) => panic!("cannot build the coordinator: {error}"),
        }
    }

    /// Builds the coordinator.
    ///
    /// # Errors
    /// An invalid permission rule in the settings, an unreadable grants file, a workspace
    /// directory that cannot be used, or an invalid registry (when no toolset was given).
    pub fn try_build(mut self) -> Result<Coordinator, BuildError> {
        let toolset = match self.toolset.take() {
            Some(toolset) => toolset,
            None => {
                crate::Registry::try_global().map_err(Clone::clone)?;
                Toolset::all()
            }
        };
        let mut policy = self.policy.take().unwrap_or_default();
        let mut mode = Mode::Default;
        let mut hooks = Hooks::default();
        for settings in &self.settings {
            policy = policy.permissions(PermissionRules {
                allow: settings.permissions.allow.clone(),
                ask: settings.permissions.ask.clone(),
                deny: settings.permissions.deny.clone(),
            });
            if let Some(default_mode) = settings.permissions.default_mode {
                mode = default_mode;
            }
            if let Some(workspace) = self.shared.workspace.take() {
                let mut workspace = workspace;
                for dir in &settings.permissions.additional_directories {
                    workspace = workspace.with_root(dir)?;
                }
                self.shared.workspace = Some(workspace);
            }
            hooks.extend(&settings.hooks);
        }
        if let Some(extra) = self.hooks.take() {
            hooks.extend(&extra);
        }
        // A tool that could write the grants file or the settings could grant itself anything.
        let granting = self.grants_file.iter().map(GrantsFile::path).chain(
            self.settings
                .iter()
                .flat_map(|s| s.files.iter().map(PathBuf::as_path)),
        );
        for file in granting {
            policy = policy.protect(absolute_pattern(file));
        }
        let policy = policy.build()?;
        let mode = self.mode.unwrap_or(mode);
        let mut session = PolicyContext {
            mode,
            ..PolicyContext::default()
        };
        if let Some(allow_list) = &self.allow_list {
            session.allow_list = Some(PermissionSet::parse(allow_list)?);
        }
        if let Some(grants_file) = &self.grants_file {
            for rule in grants_file.load()? {
                session.grants = session.grants.with(PermissionRule::parse(&rule)?);
            }
        }
        let any_timeout = self.default_timeout.is_some()
            || toolset.iter().any(|tool| tool.spec().timeout.is_some());
        // Outermost first: tracing sees everything, the budget is charged before the timer
        // starts, and the output limit cuts what the tool returned.
        let mut chain: Vec<Arc<dyn Middleware>> = Vec::new();
        if self.tracing {
            chain.push(Arc::new(Tracing));
        }
        if let Some(budget) = &self.budget {
            chain.push(Arc::new(BudgetGuard::new(Arc::clone(budget))));
        }
        chain.append(&mut self.middleware);
        if any_timeout {
            chain.push(Arc::new(Timeout::new(self.default_timeout)));
        }
        if let Some(limit) = self.output_limit.take() {
            chain.push(Arc::new(limit));
        }
        if let (Some(events), None) = (&self.events, &self.shared.progress) {
            let events = Arc::clone(events);
            self.shared.progress = Some(Arc::new(move |update| {
                events.send(CallEvent::Progress(update));
            }));
        }
        // A middleware (a timeout, the user's own) may cancel a call's token: it must be the
        // call's own, not the coordinator's.
        let per_call_cancellation = any_timeout || !chain.is_empty();
        Ok(Coordinator {
            inner: Arc::new(Inner {
                toolset,
                shared: Arc::new(self.shared),
                policy,
                session: RwLock::new(Arc::new(session)),
                approver: self.approver,
                grants_file: self.grants_file,
                hooks,
                chain: chain.into(),
                budget: self.budget,
                events: self.events,
                per_call_cancellation,
                batch: self.batch,
                session_id: self.session_id.unwrap_or_else(new_session_id),
                runtime: OnceLock::new(),
            }),
        })
    }
}

/// A protected-path pattern naming exactly `path`, absolute and with its directory's symlinks
/// followed (as the boundary resolves the paths it is compared with).
fn absolute_pattern(path: &std::path::Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    // The longest existing ancestor, canonical, then the part that does not exist yet.
    let resolved = absolute
        .ancestors()
        .find_map(|ancestor| {
            let canonical = ancestor.canonicalize().ok()?;
            let rest = absolute.strip_prefix(ancestor).ok()?;
            Some(canonical.join(rest))
        })
        .unwrap_or(absolute);
    // `//` anchors the pattern at the file-system root.
    format!("/{}", globset::escape(&resolved.to_string_lossy()))
}

fn new_session_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    format!("session-{}-{nanos:x}", std::process::id())
}

/// Sends a call's `Finished` event (as cancelled) if the call's future is dropped before the
/// call ends; disarmed when it ends. Nothing at all without an event sink.
struct Unfinished(Option<Armed>);

struct Armed {
    events: Arc<dyn EventSink>,
    call_id: String,
    tool: Cow<'static, str>,
    started: Option<Instant>,
}

impl Unfinished {
    fn arm(coordinator: &Coordinator, staged: &Staged, started: Option<Instant>) -> Self {
        Unfinished(coordinator.inner.events.as_ref().map(|events| Armed {
            events: Arc::clone(events),
            call_id: staged.id.clone(),
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
                elapsed: armed
                    .started
                    .map_or(Duration::ZERO, |started| started.elapsed()),
            });
        }
    }
}

/// A call after lookup and preparation: everything later stages need.
pub(crate) struct Staged {
    pub(crate) id: String,
    pub(crate) tool: ToolHandle,
    pub(crate) arguments: String,
    pub(crate) depth: u32,
    pub(crate) prepared: Prepared,
    pub(crate) effect: Effect,
    pub(crate) paths: Vec<ResolvedPath>,
}

impl Coordinator {
    /// Starts configuring a coordinator.
    pub fn builder() -> CoordinatorBuilder {
        CoordinatorBuilder::default()
    }

    /// The tools this coordinator offers.
    #[must_use]
    pub fn toolset(&self) -> &Toolset {
        &self.inner.toolset
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
    pub fn grant(&self, rule: &str) -> Result<(), crate::policy::RuleSyntaxError> {
        let rule = PermissionRule::parse(rule)?;
        self.update_session(|session| session.grants = session.grants.with(rule));
        Ok(())
    }

    /// The session's policy context: mode, grants and allow-list as they are now.
    #[must_use]
    pub fn snapshot(&self) -> Arc<PolicyContext> {
        Arc::clone(&self.session())
    }

    pub(crate) fn session(&self) -> std::sync::RwLockReadGuard<'_, Arc<PolicyContext>> {
        self.inner
            .session
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
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

    /// Runs one call to its result. Async and blocking tools need a Tokio runtime; synchronous
    /// tools run on any executor, as do calls that need no hooks and no approval.
    ///
    /// The future runs a plainly allowed call of a synchronous tool, in a coordinator without
    /// hooks or middleware, as an ordinary function when first polled; everything else goes
    /// through the staged path (authorize, middleware, hooks).
    pub fn call(&self, call: ToolCall) -> CallFuture<'_> {
        CallFuture::new(self, call)
    }

    /// Looks the tool up and prepares the call; a failure is the call's result (boxed: it is
    /// the rare path, and keeps the common one small).
    pub(crate) fn stage(&self, call: ToolCall) -> Result<Staged, Box<ToolResult>> {
        let ToolCall {
            id,
            name,
            arguments,
            depth,
        } = call;
        if let Some(events) = &self.inner.events {
            events.send(CallEvent::Requested {
                call_id: id.clone(),
                tool: name.clone(),
            });
        }
        let tool = match self.lookup(&name) {
            Ok(tool) => tool.clone(),
            Err(error) => {
                let result = ToolResult::failure(id, error);
                self.finished(&result, name.into(), None);
                return Err(Box::new(result));
            }
        };
        let prepared = match self.prepare(&tool, &arguments) {
            Ok(prepared) => prepared,
            Err(error) => {
                let result = ToolResult::failure(id, error);
                self.finished(&result, tool.spec().name.clone(), None);
                return Err(Box::new(result));
            }
        };
        let effect = prepared.effect(tool.spec());
        let paths = self.resolve_paths(&prepared);
        Ok(Staged {
            id,
            tool,
            arguments,
            depth,
            prepared,
            effect,
            paths,
        })
    }

    /// The tool answering to `name`, or an error naming the closest names.
    fn lookup(&self, name: &str) -> Result<&ToolHandle, ToolError> {
        self.inner
            .toolset
            .get(name)
            .ok_or_else(|| ToolError::UnknownTool {
                name: name.to_owned(),
                suggestions: self.inner.toolset.suggest(name),
            })
    }

    /// How the policy would decide `call` now, rule by rule, without running it: nothing is
    /// asked and no hook runs. The arguments are parsed and the paths resolved as for a real
    /// call, so path rules and the workspace boundary see what the tool would.
    ///
    /// ```
    /// use tool_core::{tool, Coordinator, Layer, PolicyBuilder, ToolCall, Toolset, Verdict};
    ///
    /// /// Run a command.
    /// #[tool(name = "doc_explain_shell")]
    /// fn shell(#[arg(command)] command: String) -> String { command }
    ///
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::named(["doc_explain_shell"]).unwrap())
    ///     .policy(PolicyBuilder::default().deny("doc_explain_shell(rm:*)"))
    ///     .build();
    /// let explained = coordinator
    ///     .explain(&ToolCall::new("doc_explain_shell", r#"{"command": "rm -rf /"}"#))
    ///     .unwrap();
    /// assert_eq!(explained.decision.verdict, Verdict::Deny);
    /// assert_eq!(explained.decider().unwrap().layer, Layer::DenyRule);
    /// println!("{explained}"); // every rule considered, and which one decided
    /// ```
    ///
    /// # Errors
    /// An unknown tool or invalid arguments, as a call would get.
    pub fn explain(&self, call: &ToolCall) -> Result<Explanation, ToolError> {
        let tool = self.lookup(&call.name)?;
        let prepared = self.prepare(tool, &call.arguments)?;
        let paths = self.resolve_paths(&prepared);
        let classified = ClassifiedCall::new(tool.spec())
            .with_effect(prepared.effect(tool.spec()))
            .with_resources(prepared.resources())
            .with_paths(&paths);
        Ok(self.inner.policy.explain(&classified, &self.session()))
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
        let (prepared, resolved) =
            with_workspace_recording(Some(workspace), || guard(|| tool.prepare(arguments)));
        let mut prepared = prepared?;
        // Every `WorkspacePath` parsed counts as a path of the call, also those the macro
        // cannot see (inside an `Args<T>` struct, a list of edits): each is confined and
        // matched by path rules like a top-level one.
        for path in resolved {
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
        Ok(prepared)
    }

    /// Every path argument, resolved against the workspace boundary (none without a
    /// workspace).
    pub(crate) fn resolve_paths(&self, prepared: &Prepared) -> Vec<ResolvedPath> {
        let Some(workspace) = &self.inner.shared.workspace else {
            return Vec::new();
        };
        let mut paths = Vec::new();
        for resource in prepared.resources() {
            if resource.kind != ResourceKind::Path {
                continue;
            }
            paths.push(workspace.confine(resource.arg.clone(), &resource.value));
            // A tool given the text may resolve it as the workspace does (`$VAR`, a dropped
            // first component): where that leads is checked too.
            let lenient = workspace.resolve_lenient(&resource.value);
            if lenient.normalization.is_some() {
                paths
                    .push(workspace.confine(resource.arg.clone(), &lenient.path.to_string_lossy()));
            }
        }
        paths
    }

    /// Authorizes, invokes and finishes a staged call.
    pub(crate) async fn run_staged(
        &self,
        mut staged: Staged,
        started: Option<Instant>,
        batch_abort: Option<&CancellationToken>,
    ) -> ToolResult {
        // Should this future be dropped before the call ends (the caller gave up, a batch was
        // dropped), the event sink still hears that the call finished, as cancelled.
        let unfinished = Unfinished::arm(self, &staged, started);
        // Decided under the read lock, without cloning the snapshot: the common call needs
        // nothing more from it than the mode. A call that goes on to hooks or approval keeps
        // the very snapshot it was decided on.
        let (decision, mode, snapshot) = {
            let session = self.session();
            let decision = self.decide(&staged, &session);
            let snapshot = self
                .needs_authorizing(&decision)
                .then(|| Arc::clone(&session));
            (decision, session.mode, snapshot)
        };
        let context = if let Some(snapshot) = snapshot {
            // Boxed: the slow path's state stays out of every call's future.
            match Box::pin(self.authorize(&mut staged, decision, &snapshot, batch_abort)).await {
                Ok(context) => context,
                Err(refusal) => {
                    let mut result = ToolResult::failure(refusal.id, *refusal.error);
                    result.stop = refusal.stop;
                    unfinished.disarm();
                    self.finished(&result, refusal.tool, started);
                    return result;
                }
            }
        } else {
            self.decided(&staged, &decision);
            Vec::new()
        };
        // Fields are moved out one by one, not destructured: the staged call is the future's
        // parameter, and a destructured copy would be stored beside it.
        let tool = staged.tool;
        let spec = tool.spec();
        let ctx = self.open(staged.id, &tool, staged.depth);
        let outcome = if self.inner.chain.is_empty() {
            match crate::middleware::start(&*tool, staged.prepared, &ctx) {
                Started::Done(result) => result,
                Started::Running(pending) => pending.await,
            }
        } else {
            let invocation = Invocation {
                spec,
                effect: staged.effect,
                mode,
                ctx: &ctx,
            };
            Box::pin(Next::new(&self.inner.chain, &*tool, staged.prepared, &invocation).run()).await
        };
        let mut result = ToolResult::from_outcome(ctx.into_call().id, outcome);
        result.context.extend(context);
        if !self.inner.hooks.is_empty() {
            Box::pin(self.after_hooks(&tool, &staged.arguments, &mut result, mode)).await;
        }
        unfinished.disarm();
        self.finished(&result, tool.spec().name.clone(), started);
        result
    }

    /// The context of a call about to run (its own cancellation token when a timeout or a
    /// middleware may cancel it); tells the event sink the call started.
    pub(crate) fn open(&self, id: String, tool: &ToolHandle, depth: u32) -> ToolContext {
        let spec = tool.spec();
        let cancellation = self
            .inner
            .per_call_cancellation
            .then(|| self.inner.shared.cancellation.child_token());
        let ctx = ToolContext::new(
            CallInfo {
                id,
                tool: spec.name.clone(),
                depth,
            },
            cancellation,
            Arc::clone(&self.inner.shared),
        );
        if let Some(events) = &self.inner.events {
            events.send(CallEvent::Started {
                call_id: ctx.call().id.clone(),
                tool: spec.name.clone(),
            });
        }
        ctx
    }

    pub(crate) fn finished(
        &self,
        result: &ToolResult,
        tool: std::borrow::Cow<'static, str>,
        started: Option<Instant>,
    ) {
        if let Some(events) = &self.inner.events {
            events.send(CallEvent::Finished {
                call_id: result.call_id.clone(),
                tool,
                is_error: result.is_error(),
                error_kind: result.error().map(ToolError::kind),
                elapsed: started.map_or(Duration::ZERO, |started| started.elapsed()),
            });
        }
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
                let id = call.id.clone();
                std::thread::scope(|scope| {
                    scope
                        .spawn(|| self.call_on_own_runtime(call))
                        .join()
                        .unwrap_or_else(|payload| {
                            ToolResult::failure(id, crate::panic::panicked(payload.as_ref()))
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
                call.id,
                ToolError::failed(format!("could not start a runtime for the call: {error}")),
            ),
        }
    }

    fn own_runtime(&self) -> Result<&Runtime, &String> {
        self.inner
            .runtime
            .get_or_init(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|error| error.to_string())
            })
            .as_ref()
    }

    pub(crate) fn has_hooks(&self, event: HookEvent) -> bool {
        self.inner.hooks.has(event)
    }
}

impl std::fmt::Debug for Coordinator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coordinator")
            .field("toolset", &self.inner.toolset)
            .field("mode", &self.mode())
            .finish_non_exhaustive()
    }
}

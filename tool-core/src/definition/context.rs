//! What a tool can receive besides its JSON arguments: the per-call [`ToolContext`] and the
//! [`FromContext`] extractor trait, with the built-in context types [`State<T>`], [`Progress`],
//! [`CallInfo`], [`CancellationToken`] and [`Workspace`](crate::Workspace).
//!
//! Injection lives here, in one runtime trait, not in the macro: the macro only recognizes a
//! context parameter (`#[ctx]`, or a built-in type name) and calls
//! `<Type as FromContext>::from_context(ctx)`. Any type implementing the trait can be a context
//! parameter, by value or — for the built-ins — by reference. What the runtime attaches (the
//! coordinator's `ToolCaller` and `Session`, in `tool_core::coordinator`) arrives through the
//! context's [`Extensions`], read by extractors that live with the runtime.

use std::any::{Any, TypeId, type_name};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::time::Instant;

/// The token a running call watches to know it should stop (re-exported from `tokio_util`).
/// Give the coordinator one with
/// [`CoordinatorBuilder::cancellation`](crate::coordinator::CoordinatorBuilder::cancellation)
/// to stop every running call at once; a tool takes it as a parameter.
///
/// ```
/// use tool_core::{tool, Coordinator, ToolCall, ToolError, Toolset, context::CancellationToken};
///
/// /// Count the words of a long text, stopping when asked to.
/// #[tool(read_only, name = "doc_cancellationtoken_count")]
/// fn count(text: String, stop: &CancellationToken) -> Result<usize, ToolError> {
///     let mut words = 0;
///     for line in text.lines() {
///         if stop.is_cancelled() {
///             return Err(ToolError::Cancelled);
///         }
///         words += line.split_whitespace().count();
///     }
///     Ok(words)
/// }
///
/// let shutdown = CancellationToken::new();
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_cancellationtoken_count"]).unwrap())
///     .cancellation(shutdown.clone())
///     .build()
///     .unwrap();
/// let call = ToolCall::new("doc_cancellationtoken_count", r#"{"text": "a b\nc"}"#);
/// assert_eq!(coordinator.call_blocking(call.clone()).text(), "3");
///
/// shutdown.cancel(); // the user pressed Ctrl-C, say
/// assert!(matches!(coordinator.call_blocking(call).error(), Some(ToolError::Cancelled)));
/// ```
pub use tokio_util::sync::CancellationToken;

use crate::{ToolError, Workspace};

/// Everything a call can draw on besides its arguments. Built by the coordinator for each call;
/// cheap to clone (clones share the call's cancellation token).
pub struct ToolContext {
    call: CallInfo,
    /// This call's own token, a child of the coordinator's (a timeout cancels this call only),
    /// made when first asked for: most calls never look at it.
    cancellation: OnceLock<CancellationToken>,
    /// The token this call's is made a child of: the calling tool's, for a nested call; else
    /// the coordinator's.
    parent_cancellation: Option<CancellationToken>,
    /// When this call's time limit runs out, if it has one.
    deadline: Option<Instant>,
    shared: Arc<SharedContext>,
    /// What the runtime attaches to this call (its own progress sink and approver, when the
    /// caller gave them), read by the `FromContext` impls that live with it.
    extensions: Extensions,
}

/// A map of values by type that the runtime (or a middleware) attaches to one call, as
/// axum's request extensions: the definition side never names what is in it, and the
/// [`FromContext`] impl of a type that needs one reads it from here.
///
/// ```
/// use tool_core::context::{CallInfo, Extensions, ToolContext};
///
/// #[derive(Clone, Debug, PartialEq)]
/// struct TenantId(u32);
///
/// let mut ctx = ToolContext::detached(CallInfo::new("call_1", "some_tool", 0));
/// assert_eq!(ctx.extensions().get::<TenantId>(), None);
/// ctx.extensions_mut().insert(TenantId(7));
/// assert_eq!(ctx.extensions().get::<TenantId>(), Some(&TenantId(7)));
/// assert_eq!(ctx.extensions_mut().insert(TenantId(8)), Some(TenantId(7))); // replaced
/// assert_eq!(ctx.extensions().get::<TenantId>(), Some(&TenantId(8)));
/// assert_eq!(ctx.clone().extensions().get::<TenantId>(), Some(&TenantId(8)));
/// ```
#[derive(Clone, Default)]
pub struct Extensions {
    /// A call holds a handful at most (a progress sink, an approver), most calls none: a list
    /// searched in order costs less per call than hashing into a map.
    values: Vec<(TypeId, Arc<dyn Any + Send + Sync>)>,
}

impl Extensions {
    /// Attaches `value`, replacing (and returning) the value of its type attached before.
    pub fn insert<T: Clone + Send + Sync + 'static>(&mut self, value: T) -> Option<T> {
        let id = TypeId::of::<T>();
        let value: Arc<dyn Any + Send + Sync> = Arc::new(value);
        match self.values.iter_mut().find(|(kept, _)| *kept == id) {
            Some((_, kept)) => std::mem::replace(kept, value).downcast_ref::<T>().cloned(),
            None => {
                self.values.push((id, value));
                None
            }
        }
    }

    /// The value of type `T` attached, if any.
    #[must_use]
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        let id = TypeId::of::<T>();
        self.values
            .iter()
            .find(|(kept, _)| *kept == id)
            .and_then(|(_, value)| value.downcast_ref::<T>())
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("values", &self.values.len())
            .finish()
    }
}

/// The progress sink a call's caller gave for this call alone
/// ([`CallOptions`](crate::coordinator::CallOptions)), attached as an extension: it takes the
/// place of the coordinator's.
#[derive(Clone)]
pub(crate) struct CallProgress(pub(crate) Arc<dyn ProgressSink>);

/// The context that is the same for every call of one coordinator.
#[derive(Default)]
pub(crate) struct SharedContext {
    pub(crate) workspace: Option<Workspace>,
    pub(crate) state: StateMap,
    pub(crate) cancellation: CancellationToken,
    pub(crate) progress: Option<Arc<dyn ProgressSink>>,
    /// Values made on first use by [`ToolContext::session_state`], one per type.
    pub(crate) session: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
    /// The runtime that runs the calls of this context (the coordinator a tool calls others
    /// through), set once when it is built: held weakly, as it holds this, and by a type the
    /// definition side does not name. Here rather than attached to each call, which cost an
    /// allocation or two per call for what a few tools ask for.
    pub(crate) owner: OnceLock<Weak<dyn Any + Send + Sync>>,
}

impl SharedContext {
    /// The session's value of type `T`, made with `T::default()` when first asked for.
    pub(crate) fn session_value<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let mut values = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        let value = values
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()));
        Arc::clone(value)
            .downcast::<T>()
            .expect("session values are keyed by their own type")
    }
}

impl Clone for ToolContext {
    fn clone(&self) -> Self {
        // The token is made now, so that the clone and this context share it.
        let cancellation = OnceLock::from(self.cancellation().clone());
        ToolContext {
            call: self.call.clone(),
            cancellation,
            parent_cancellation: self.parent_cancellation.clone(),
            deadline: self.deadline,
            shared: Arc::clone(&self.shared),
            extensions: self.extensions.clone(),
        }
    }
}

impl ToolContext {
    pub(crate) fn new(
        call: CallInfo,
        shared: Arc<SharedContext>,
        parent_cancellation: Option<CancellationToken>,
    ) -> Self {
        ToolContext {
            call,
            cancellation: OnceLock::new(),
            parent_cancellation,
            deadline: None,
            shared,
            extensions: Extensions::default(),
        }
    }

    /// This context, with the instant its call's time limit runs out.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    pub(crate) fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    pub(crate) fn into_call(self) -> CallInfo {
        self.call
    }

    /// A context with no workspace, no state and no progress sink, for calling a tool directly
    /// (in a test, say) without a coordinator.
    ///
    /// ```
    /// use tool_core::{tool, Registry, context::{CallInfo, ToolContext}};
    ///
    /// /// Say which call this is.
    /// #[tool(read_only, name = "doc_toolcontext_whoami")]
    /// fn whoami(ctx: &ToolContext) -> String {
    ///     format!("{} at depth {}", ctx.call().call_id, ctx.call().depth)
    /// }
    ///
    /// let ctx = ToolContext::detached(CallInfo::new("call_1", "doc_toolcontext_whoami", 0));
    /// assert!(ctx.workspace().is_none());
    ///
    /// let tool = Registry::global().get("doc_toolcontext_whoami").unwrap();
    /// let prepared = tool.prepare("{}").unwrap();
    /// let output = tokio::runtime::Builder::new_current_thread()
    ///     .build()
    ///     .unwrap()
    ///     .block_on(tool.invoke(prepared, &ctx))
    ///     .unwrap();
    /// assert_eq!(output.content[0].as_text(), Some("call_1 at depth 0"));
    /// ```
    #[must_use]
    pub fn detached(call: CallInfo) -> Self {
        ToolContext::new(call, Arc::default(), None)
    }

    /// The call being run.
    #[must_use]
    pub fn call(&self) -> &CallInfo {
        &self.call
    }

    /// The runtime that runs this call ([`SharedContext::owner`]), `None` for a detached
    /// context.
    #[cfg_attr(not(feature = "runtime"), allow(dead_code))]
    pub(crate) fn owner(&self) -> Option<Arc<dyn Any + Send + Sync>> {
        self.shared.owner.get()?.upgrade()
    }

    /// What the runtime or a middleware attached to this call.
    #[must_use]
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// What is attached to this call, to attach more (a middleware, before it hands the call
    /// on).
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        &mut self.extensions
    }

    /// The workspace, if the coordinator has one.
    #[must_use]
    pub fn workspace(&self) -> Option<&Workspace> {
        self.shared.workspace.as_ref()
    }

    /// The state value of type `T` given to the coordinator with `.state(..)`.
    #[must_use]
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<&State<T>> {
        self.shared.state.get::<T>()
    }

    /// The value of type `T` kept for this coordinator's session: made with `T::default()` by
    /// the first call that asks, shared by every call after it, dropped with the coordinator.
    /// For what a tool keeps between calls without the user having to give it as state (a todo
    /// list, background jobs that must not outlive the session). A detached context has a
    /// session of its own.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use tool_core::{tool, Coordinator, ToolCall, Toolset, context::ToolContext};
    ///
    /// #[derive(Default)]
    /// struct Visits(AtomicU32);
    ///
    /// /// Count this session's visits.
    /// #[tool(read_only, name = "doc_session_state_visit")]
    /// fn visit(ctx: &ToolContext) -> u32 {
    ///     ctx.session_state::<Visits>().0.fetch_add(1, Ordering::Relaxed) + 1
    /// }
    ///
    /// let toolset = || Toolset::named(["doc_session_state_visit"]).unwrap();
    /// let one = Coordinator::builder().toolset(toolset()).build().unwrap();
    /// let call = ToolCall::new("doc_session_state_visit", "{}");
    /// one.call_blocking(call.clone());
    /// assert_eq!(one.call_blocking(call.clone()).text(), "2");
    ///
    /// let other = Coordinator::builder().toolset(toolset()).build().unwrap();
    /// assert_eq!(other.call_blocking(call).text(), "1", "each session has its own");
    /// ```
    #[must_use]
    pub fn session_state<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        self.shared.session_value::<T>()
    }

    /// When this call's time limit runs out: the tool's `timeout_ms`, else the coordinator's
    /// [`default_timeout`](crate::coordinator::CoordinatorBuilder::default_timeout), counted
    /// from when the tool starts (after the policy and any approval, as the timeout is); for a
    /// nested call, no later than its caller's. `None` when
    /// no limit applies (and for a detached context). A tool that hands work on (a sub-agent)
    /// passes this on, so the work is planned to end in time rather than cut off.
    ///
    /// ```
    /// use std::time::Instant;
    /// use tool_core::{tool, Coordinator, ToolCall, Toolset, context::ToolContext};
    ///
    /// /// Say how much time this call has left, in whole seconds.
    /// #[tool(read_only, name = "doc_deadline_left", timeout_ms = 60_000)]
    /// fn left(ctx: &ToolContext) -> String {
    ///     match ctx.deadline() {
    ///         Some(deadline) => (deadline - Instant::now()).as_secs().to_string(),
    ///         None => "no limit".to_owned(),
    ///     }
    /// }
    ///
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::named(["doc_deadline_left"]).unwrap())
    ///     .build()
    ///     .unwrap();
    /// let left: u64 = coordinator
    ///     .call_blocking(ToolCall::new("doc_deadline_left", "{}"))
    ///     .text()
    ///     .parse()
    ///     .unwrap();
    /// assert!((55..60).contains(&left));
    /// ```
    #[must_use]
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The token that is cancelled when this call should stop.
    #[must_use]
    pub fn cancellation(&self) -> &CancellationToken {
        self.cancellation.get_or_init(|| {
            self.parent_cancellation
                .as_ref()
                .unwrap_or(&self.shared.cancellation)
                .child_token()
        })
    }

    /// Whether this call should stop, without making its token: a call that never asks for
    /// [`cancellation`](Self::cancellation) never registers a child with its parent's token.
    pub(crate) fn is_cancelled(&self) -> bool {
        match self.cancellation.get() {
            Some(token) => token.is_cancelled(),
            None => self
                .parent_cancellation
                .as_ref()
                .unwrap_or(&self.shared.cancellation)
                .is_cancelled(),
        }
    }

    /// A handle for reporting this call's progress.
    #[must_use]
    pub fn progress(&self) -> Progress {
        let sink = self
            .extensions
            .get::<CallProgress>()
            .map(|CallProgress(sink)| sink)
            .or(self.shared.progress.as_ref());
        Progress {
            sink: sink.map(|sink| (Arc::clone(sink), self.call.clone())),
        }
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call", &self.call)
            .field("workspace", &self.shared.workspace)
            .finish_non_exhaustive()
    }
}

/// Which call is running: its id, the tool's name and how deeply it is nested in other calls.
///
/// ```
/// use tool_core::{ToolCall, context::CallInfo};
///
/// // A tool running as call `call_1` of the model ...
/// let running = CallInfo::new("call_1", "run_agent", 0);
/// // ... makes a call of its own, one level deeper.
/// let nested = ToolCall::new("read_file", r#"{"path": "notes.md"}"#).nested_in(&running);
/// assert_eq!(nested.depth, 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallInfo {
    /// The call id the model gave (empty when it gave none).
    pub call_id: String,
    /// The tool's name (its canonical name, also when called by an alias).
    pub tool: Cow<'static, str>,
    /// 0 for a call from the model; one more for each tool that calls another.
    pub depth: u32,
}

impl CallInfo {
    /// Information about a call.
    pub fn new(call_id: impl Into<String>, tool: impl Into<Cow<'static, str>>, depth: u32) -> Self {
        CallInfo {
            call_id: call_id.into(),
            tool: tool.into(),
            depth,
        }
    }
}

/// Shared state given to the coordinator with `.state(value)` and received by tools as a
/// `State<T>` parameter. Derefs to `T`.
///
/// ```
/// use tool_core::{tool, Coordinator, State, ToolCall, Toolset, approval::AutoApprove};
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// struct Counter(AtomicU64);
///
/// /// Count one more visit.
/// #[tool(name = "doc_state_visit")]
/// fn visit(counter: State<Counter>) -> u64 {
///     counter.0.fetch_add(1, Ordering::SeqCst) + 1
/// }
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_state_visit"]).unwrap())
///     .approver(AutoApprove) // `visit` changes state: the policy asks before it runs
///     .state(Counter(AtomicU64::new(41)))
///     .build().unwrap();
/// let result = coordinator.call_blocking(ToolCall::new("doc_state_visit", "{}"));
/// assert_eq!(result.text(), "42");
/// ```
pub struct State<T: ?Sized>(Arc<T>);

impl<T: ?Sized> State<T> {
    /// The shared value, to keep beyond the call.
    #[must_use]
    pub fn into_arc(self) -> Arc<T> {
        self.0
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

/// State values by type, each kept as a `State<T>` so tools can borrow it. A clone shares
/// the values.
#[derive(Default, Clone)]
pub(crate) struct StateMap {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.values
            .insert(TypeId::of::<T>(), Arc::new(State(value)));
    }

    /// Whether a value a tool requires is there.
    pub(crate) fn meets(&self, required: &crate::definition::tool::RequiredState) -> bool {
        self.values.keys().any(|id| required.is_met_by(*id))
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<&State<T>> {
        self.values
            .get(&TypeId::of::<T>())?
            .downcast_ref::<State<T>>()
    }
}

/// Receives the progress reports of running tools (a UI, an MCP progress notification).
/// Closures taking a [`ProgressUpdate`] are sinks; give one to the coordinator with
/// [`on_progress`](crate::coordinator::CoordinatorBuilder::on_progress).
///
/// ```
/// use std::sync::mpsc;
/// use tool_core::context::{CallInfo, ProgressSink, ProgressUpdate};
///
/// /// Sends each call's progress, in percent, to a UI thread.
/// struct Percentages(mpsc::Sender<(String, u32)>);
///
/// impl ProgressSink for Percentages {
///     fn report(&self, update: ProgressUpdate) {
///         if let Some(total) = update.total.filter(|total| *total > 0.0) {
///             let percent = (update.progress / total * 100.0).round() as u32;
///             let _ = self.0.send((update.call.call_id, percent));
///         }
///     }
/// }
///
/// let (sender, ui) = mpsc::channel();
/// Percentages(sender).report(ProgressUpdate {
///     call: CallInfo::new("call_1", "index_files", 0),
///     progress: 1.0,
///     total: Some(4.0),
///     message: None,
/// });
/// assert_eq!(ui.recv().unwrap(), ("call_1".to_owned(), 25));
/// ```
pub trait ProgressSink: Send + Sync + 'static {
    /// Called for each report.
    fn report(&self, update: ProgressUpdate);
}

impl<F: Fn(ProgressUpdate) + Send + Sync + 'static> ProgressSink for F {
    fn report(&self, update: ProgressUpdate) {
        self(update);
    }
}

/// One progress report of a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressUpdate {
    /// The call that reported.
    pub call: CallInfo,
    /// How far along, in units of `total`.
    pub progress: f64,
    /// The amount of work, if known.
    pub total: Option<f64>,
    /// What is happening now.
    pub message: Option<String>,
}

/// Reports a call's progress to whoever watches the coordinator. Reporting when nobody watches
/// costs nothing.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use tool_core::{tool, Coordinator, ToolCall, Toolset, context::{Progress, ProgressUpdate}};
///
/// /// Index the project's files.
/// #[tool(read_only, name = "doc_progress_index")]
/// fn index(progress: Progress) -> &'static str {
///     for done in 1..=3 {
///         progress.report(f64::from(done), Some(3.0), Some("indexing"));
///     }
///     "indexed"
/// }
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink = Arc::clone(&seen);
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_progress_index"]).unwrap())
///     .on_progress(move |update: ProgressUpdate| sink.lock().unwrap().push(update.progress))
///     .build()
///     .unwrap();
/// coordinator.call_blocking(ToolCall::new("doc_progress_index", "{}"));
/// assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);
/// ```
#[derive(Clone, Default)]
pub struct Progress {
    sink: Option<(Arc<dyn ProgressSink>, CallInfo)>,
}

impl Progress {
    /// Reports that `progress` of `total` units are done.
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some((sink, call)) = &self.sink {
            sink.report(ProgressUpdate {
                call: call.clone(),
                progress,
                total,
                message: message.map(str::to_owned),
            });
        }
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress")
            .field("watched", &self.sink.is_some())
            .finish()
    }
}

/// A value a tool receives from the call context instead of from the model's arguments.
///
/// The `#[tool]` macro calls this for every parameter marked `#[ctx]` and for the built-in
/// context types (`ToolContext`, `Workspace`, `State`, `CancellationToken`, `Progress`,
/// `CallInfo`, by value or by reference; `Progress` by value). Implement it for your own types
/// to inject them:
///
/// ```
/// use tool_core::{tool, Coordinator, ToolCall, ToolError, Toolset, context::{FromContext, ToolContext}};
///
/// struct CallId(String);
///
/// impl FromContext<'_> for CallId {
///     fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
///         Ok(CallId(ctx.call().call_id.clone()))
///     }
/// }
///
/// /// Say which call this is.
/// #[tool(read_only, name = "doc_fromcontext_call_id")]
/// fn call_id(#[ctx] id: CallId) -> String {
///     id.0
/// }
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_fromcontext_call_id"]).unwrap())
///     .build()
///     .unwrap();
/// let call = ToolCall::new("doc_fromcontext_call_id", "{}").with_call_id("call_7");
/// assert_eq!(coordinator.call_blocking(call).text(), "call_7");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be taken from the tool context",
    label = "not a context type",
    note = "context parameters are `ToolContext`, `Workspace`, `State<T>`, `CancellationToken`, `CallInfo` (by value or by reference), `Progress` and `ToolCaller` (by value), `Option<&Workspace>`, or any type implementing `FromContext`"
)]
pub trait FromContext<'a>: Sized {
    /// Extracts the value.
    ///
    /// # Errors
    /// When the context lacks what the tool needs (no workspace, no state of that type).
    fn from_context(ctx: &'a ToolContext) -> Result<Self, ToolError>;
}

impl<'a> FromContext<'a> for &'a ToolContext {
    fn from_context(ctx: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(ctx)
    }
}

impl FromContext<'_> for ToolContext {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.clone())
    }
}

impl<'a> FromContext<'a> for &'a Workspace {
    fn from_context(ctx: &'a ToolContext) -> Result<Self, ToolError> {
        ctx.workspace().ok_or_else(no_workspace)
    }
}

impl FromContext<'_> for Workspace {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        ctx.workspace().cloned().ok_or_else(no_workspace)
    }
}

impl<'a> FromContext<'a> for Option<&'a Workspace> {
    fn from_context(ctx: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.workspace())
    }
}

fn no_workspace() -> ToolError {
    ToolError::failed(
        "this tool needs a workspace, but the coordinator has none \
         (build it with `.workspace(Workspace::new(root)?)`)",
    )
}

impl<'a, T: Send + Sync + 'static> FromContext<'a> for &'a State<T> {
    fn from_context(ctx: &'a ToolContext) -> Result<Self, ToolError> {
        ctx.state::<T>().ok_or_else(no_state::<T>)
    }
}

impl<T: Send + Sync + 'static> FromContext<'_> for State<T> {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        ctx.state::<T>().cloned().ok_or_else(no_state::<T>)
    }
}

pub(crate) fn no_state<T>() -> ToolError {
    ToolError::failed(format!(
        "this tool needs `State<{name}>`, but the coordinator has no state of that type \
         (build it with `.state(value)` where value is a `{name}`)",
        name = type_name::<T>()
    ))
}

impl<'a> FromContext<'a> for &'a CancellationToken {
    fn from_context(ctx: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.cancellation())
    }
}

impl FromContext<'_> for CancellationToken {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.cancellation().clone())
    }
}

impl FromContext<'_> for Progress {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.progress())
    }
}

impl<'a> FromContext<'a> for &'a CallInfo {
    fn from_context(ctx: &'a ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.call())
    }
}

impl FromContext<'_> for CallInfo {
    fn from_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        Ok(ctx.call().clone())
    }
}

macro_rules! tuple_from_context {
    ($($name:ident),+) => {
        impl<'a, $($name: FromContext<'a>),+> FromContext<'a> for ($($name,)+) {
            fn from_context(ctx: &'a ToolContext) -> Result<Self, ToolError> {
                Ok(($($name::from_context(ctx)?,)+))
            }
        }
    };
}

tuple_from_context!(A);
tuple_from_context!(A, B);
tuple_from_context!(A, B, C);
tuple_from_context!(A, B, C, D);
tuple_from_context!(A, B, C, D, E);
tuple_from_context!(A, B, C, D, E, F);

//! The [`Tool`] trait — one trait for the three sources of tools (`#[tool]` functions,
//! hand-written implementations, dynamic tools such as imported MCP tools) — and what one call
//! passes through it: its [`Prepared`] arguments, the [`Resource`]s it names, the
//! [`ToolFuture`] of its invocation, the [`RequiredState`] a method tool runs on; and the
//! [`ToolHandle`] a registry or toolset keeps a tool behind.

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use schemars::Schema;

use crate::definition::context::ToolContext;
use crate::definition::spec::{Effect, ResourceKind, ToolSpec};
use crate::definition::workspace::ParsedPath;
use crate::{ToolError, ToolOutput};

/// A tool a model can call.
///
/// `#[tool]` implements it for annotated functions. Implement it by hand for tools whose shape is
/// known only at run time:
///
/// ```
/// use tool_core::{Coordinator, Tool, ToolCall, ToolError, ToolOutput, Toolset};
/// use tool_core::{tool::{Prepared, ToolFuture}, schema::Schema, context::ToolContext, spec::ToolSpec};
///
/// struct Echo { spec: ToolSpec, schema: Schema }
///
/// impl Tool for Echo {
///     fn spec(&self) -> &ToolSpec { &self.spec }
///     fn input_schema(&self) -> &Schema { &self.schema }
///     fn prepare(&self, arguments: &str) -> Result<Prepared, ToolError> {
///         Ok(Prepared::new(arguments.to_owned()))
///     }
///     fn invoke<'a>(&'a self, prepared: Prepared, _ctx: &'a ToolContext) -> ToolFuture<'a> {
///         ToolFuture::ready(prepared.take::<String>().map(ToolOutput::text))
///     }
/// }
///
/// let echo = Echo {
///     spec: ToolSpec::new("doc_tool_echo", "Repeat the arguments.").read_only(),
///     schema: tool_core::schema::input_schema_for::<()>(),
/// };
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::empty().with(echo).unwrap())
///     .build()
///     .unwrap();
/// let result = coordinator.call_blocking(ToolCall::new("doc_tool_echo", "{}"));
/// assert_eq!(result.text(), "{}");
/// ```
pub trait Tool: Send + Sync + 'static {
    /// The tool's name, description and classifications.
    fn spec(&self) -> &ToolSpec;

    /// The JSON Schema (2020-12) of the arguments: always an object schema.
    fn input_schema(&self) -> &Schema;

    /// The JSON Schema of the structured output, for tools that return structured values.
    fn output_schema(&self) -> Option<&Schema> {
        None
    }

    /// Parses and validates the raw JSON arguments once, classifies the call and extracts the
    /// values of its resource arguments.
    ///
    /// # Errors
    /// [`ToolError::InvalidArguments`] describing every problem found.
    fn prepare(&self, arguments: &str) -> Result<Prepared, ToolError>;

    /// Runs the tool on prepared arguments.
    fn invoke<'a>(&'a self, prepared: Prepared, ctx: &'a ToolContext) -> ToolFuture<'a>;

    /// The state values the tool cannot run without, checked when a coordinator is built: a
    /// tool written as a method (`#[tools] impl Server { #[tool] fn .. (&self, ..) }`) needs
    /// its `Server`. By default, what its spec records: a method's value, written there by
    /// `#[tools]`; none for any other tool.
    fn required_state(&self) -> &'static [RequiredState] {
        self.spec().required_state
    }
}

/// A state value a tool cannot run without ([`Tool::required_state`]): a `T` given to the
/// coordinator (`.state(value)`), or an `Arc<T>`.
///
/// ```
/// use tool_core::tool::RequiredState;
///
/// struct Server;
/// let required = RequiredState::of::<Server>();
/// assert!(required.type_name().ends_with("Server"));
/// assert!(required.is_met_by(std::any::TypeId::of::<std::sync::Arc<Server>>()));
/// assert!(!required.is_met_by(std::any::TypeId::of::<String>()));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RequiredState {
    type_ids: fn() -> [std::any::TypeId; 2],
    type_name: fn() -> &'static str,
}

impl RequiredState {
    /// A `T` (or an `Arc<T>`).
    #[must_use]
    pub const fn of<T: Send + Sync + 'static>() -> Self {
        RequiredState {
            type_ids: || {
                [
                    std::any::TypeId::of::<T>(),
                    std::any::TypeId::of::<std::sync::Arc<T>>(),
                ]
            },
            type_name: std::any::type_name::<T>,
        }
    }

    /// The type's name, for messages.
    #[must_use]
    pub fn type_name(&self) -> &'static str {
        (self.type_name)()
    }

    /// Whether a state value of the type `given` is it.
    #[must_use]
    pub fn is_met_by(&self, given: std::any::TypeId) -> bool {
        (self.type_ids)().contains(&given)
    }
}

/// Runs `tool` on `prepared` arguments: the one place a tool's code is called (the end of the
/// coordinator's middleware chain). A panic, while the tool starts or while its future is
/// polled, becomes [`ToolError::Panicked`].
#[cfg_attr(not(feature = "runtime"), allow(dead_code))]
pub(crate) async fn invoke_guarded(
    tool: &dyn Tool,
    prepared: Prepared,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    use crate::definition::panic::{CatchUnwind, guard};
    let future = guard(|| Ok(tool.invoke(prepared, ctx)))?;
    CatchUnwind::new(future)
        .await
        .unwrap_or_else(|message| Err(ToolError::Panicked { message }))
}

/// A call's arguments after [`Tool::prepare`]: parsed, validated, classified, with the values of
/// resource arguments extracted for the policy. `Send + Sync`, so a call can be looked at from
/// anywhere while it waits (for an approval, a hook).
///
/// A hand-written tool makes one in [`Tool::prepare`] and takes its arguments back in
/// [`Tool::invoke`]:
///
/// ```
/// use tool_core::{spec::{Effect, ResourceKind, ToolSpec}, tool::{Prepared, Resource}};
///
/// // What a `run_shell` tool prepares for `{"command": "git status"}`.
/// let spec = ToolSpec::new("run_shell", "Run a command.");
/// let command = "git status".to_owned();
/// let prepared = Prepared::new(command.clone())
///     .with_effect(Effect::ReadOnly) // this command only reads
///     .with_resource(Resource { arg: "command".into(), kind: ResourceKind::Command, value: command });
/// assert_eq!(prepared.effect(&spec), Effect::ReadOnly);
/// assert_eq!(prepared.resources()[0].value, "git status");
/// assert_eq!(prepared.take::<String>().unwrap(), "git status");
///
/// // Taking the wrong type is an error, not a panic.
/// assert!(Prepared::new(7_u32).take::<String>().is_err());
/// ```
pub struct Prepared {
    args: Box<dyn Any + Send + Sync>,
    effect: Option<Effect>,
    resources: Vec<Resource>,
    /// The `WorkspacePath`s parsed with a workspace in scope: what each was sent as, and the
    /// path the tool receives.
    parsed_paths: Vec<ParsedPath>,
}

impl Prepared {
    /// Prepared arguments of any type; the tool gets them back with [`Prepared::take`].
    pub fn new<T: Send + Sync + 'static>(args: T) -> Self {
        Prepared {
            args: Box::new(args),
            effect: None,
            resources: Vec::new(),
            parsed_paths: Vec::new(),
        }
    }

    /// Classifies this call, overriding the spec's effect (for `read_only_if` tools).
    #[must_use]
    pub fn with_effect(mut self, effect: Effect) -> Self {
        self.effect = Some(effect);
        self
    }

    /// Records a resource this call names.
    #[must_use]
    pub fn with_resource(mut self, resource: Resource) -> Self {
        self.resources.push(resource);
        self
    }

    /// Records the resources this call names, replacing any recorded before.
    #[must_use]
    pub fn with_resources(mut self, resources: Vec<Resource>) -> Self {
        self.resources = resources;
        self
    }

    /// This call's effect: the per-call classification if there is one, else the spec's.
    #[must_use]
    pub fn effect(&self, spec: &ToolSpec) -> Effect {
        self.effect.unwrap_or(spec.effect)
    }

    /// The resources this call names, in argument order.
    #[must_use]
    pub fn resources(&self) -> &[Resource] {
        &self.resources
    }

    /// Records the `WorkspacePath`s parsed in a workspace scope.
    pub(crate) fn with_parsed_paths(mut self, parsed: Vec<ParsedPath>) -> Self {
        self.parsed_paths = parsed;
        self
    }

    /// The `WorkspacePath`s parsed in a workspace scope, in the order parsed.
    pub(crate) fn parsed_paths(&self) -> &[ParsedPath] {
        &self.parsed_paths
    }

    /// Takes the arguments back out.
    ///
    /// # Errors
    /// [`ToolError::Internal`] when they are not of type `T`: a bug in the tool, reported,
    /// never a panic.
    pub fn take<T: 'static>(self) -> Result<T, ToolError> {
        match self.args.downcast::<T>() {
            Ok(args) => Ok(*args),
            Err(_) => Err(ToolError::internal(format!(
                "the prepared arguments are not the `{}` this tool takes",
                std::any::type_name::<T>()
            ))),
        }
    }
}

impl fmt::Debug for Prepared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prepared")
            .field("effect", &self.effect)
            .field("resources", &self.resources)
            .finish_non_exhaustive()
    }
}

/// A resource a call names: which argument, what kind, and the value sent.
///
/// `#[tool]` extracts them in [`Tool::prepare`]; a hand-written tool records its own with
/// [`Prepared::with_resource`].
///
/// ```
/// use tool_core::{tool, Registry, spec::ResourceKind, tool::Resource};
///
/// /// Fetch a web page.
/// #[tool(read_only, name = "doc_resource_fetch")]
/// fn fetch(#[arg(url)] url: String) -> String {
///     url
/// }
///
/// let fetch = Registry::global().get("doc_resource_fetch").unwrap();
/// let prepared = fetch.prepare(r#"{"url": "https://example.com/a"}"#).unwrap();
/// assert_eq!(
///     prepared.resources(),
///     [Resource { arg: "url".into(), kind: ResourceKind::Url, value: "https://example.com/a".into() }]
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// The argument's name.
    pub arg: Cow<'static, str>,
    /// What kind of resource.
    pub kind: ResourceKind,
    /// The value, as text.
    pub value: String,
}

/// The future of one invocation. A synchronous tool's result is ready at once and costs no
/// allocation; an async tool's future is boxed.
///
/// ```
/// use tool_core::{ToolOutput, tool::ToolFuture};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// // What a synchronous tool's `invoke` returns.
/// let ready = ToolFuture::ready(Ok(ToolOutput::text("done")));
/// assert_eq!(ready.await.unwrap(), ToolOutput::text("done"));
///
/// // What an async tool's `invoke` returns.
/// let later = ToolFuture::new(async {
///     tokio::task::yield_now().await;
///     Ok(ToolOutput::text("done later"))
/// });
/// assert_eq!(later.await.unwrap(), ToolOutput::text("done later"));
/// # });
/// ```
#[must_use = "a tool future does nothing unless awaited"]
pub struct ToolFuture<'a>(FutureState<'a>);

type BoxedToolFuture<'a> = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>>;

enum FutureState<'a> {
    Ready(Option<Result<ToolOutput, ToolError>>),
    Boxed(BoxedToolFuture<'a>),
}

impl<'a> ToolFuture<'a> {
    /// A result that is already there.
    pub fn ready(result: Result<ToolOutput, ToolError>) -> Self {
        ToolFuture(FutureState::Ready(Some(result)))
    }

    /// A result still to be computed.
    pub fn new(future: impl Future<Output = Result<ToolOutput, ToolError>> + Send + 'a) -> Self {
        ToolFuture(FutureState::Boxed(Box::pin(future)))
    }
}

impl Future for ToolFuture<'_> {
    type Output = Result<ToolOutput, ToolError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.get_mut().0 {
            FutureState::Ready(result) => Poll::Ready(result.take().unwrap_or_else(|| {
                Err(ToolError::internal(
                    "a tool's future was polled after it finished",
                ))
            })),
            FutureState::Boxed(future) => future.as_mut().poll(cx),
        }
    }
}

impl fmt::Debug for ToolFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            FutureState::Ready(_) => "ToolFuture::Ready",
            FutureState::Boxed(_) => "ToolFuture::Pending",
        })
    }
}

/// A tool as stored in a [`Registry`](crate::Registry) or [`Toolset`](crate::Toolset): a
/// link-time tool by reference, or a run-time tool behind an `Arc`. Cheap to clone; derefs to
/// [`Tool`].
///
/// ```
/// use tool_core::{tool, Registry, Toolset, tool::ToolHandle};
/// # use tool_core::{Tool, ToolError, ToolOutput, context::ToolContext, schema::Schema, spec::ToolSpec, tool::{Prepared, ToolFuture}};
/// # struct Echo(ToolSpec, Schema);
/// # impl Tool for Echo {
/// #     fn spec(&self) -> &ToolSpec { &self.0 }
/// #     fn input_schema(&self) -> &Schema { &self.1 }
/// #     fn prepare(&self, arguments: &str) -> Result<Prepared, ToolError> { Ok(Prepared::new(arguments.to_owned())) }
/// #     fn invoke<'a>(&'a self, prepared: Prepared, _: &'a ToolContext) -> ToolFuture<'a> {
/// #         ToolFuture::ready(prepared.take::<String>().map(ToolOutput::text))
/// #     }
/// # }
/// # let echo = Echo(ToolSpec::new("doc_toolhandle_echo", "Repeat the arguments."), tool_core::schema::input_schema_for::<()>());
///
/// /// Say hello.
/// #[tool(read_only, name = "doc_toolhandle_hello")]
/// fn hello() -> &'static str {
///     "hello"
/// }
///
/// let linked = ToolHandle::Static(Registry::global().get("doc_toolhandle_hello").unwrap());
/// // Any `Tool` value (here `echo`, implemented by hand) goes behind an `Arc`.
/// let made_at_run_time = ToolHandle::from(echo);
/// assert!(matches!(made_at_run_time, ToolHandle::Shared(_)));
///
/// // Both deref to `dyn Tool`, and a toolset keeps either.
/// let toolset = Toolset::empty().with(linked).unwrap().with(made_at_run_time).unwrap();
/// let names: Vec<&str> = toolset.iter().map(|tool| tool.spec().name.as_ref()).collect();
/// assert_eq!(names, ["doc_toolhandle_echo", "doc_toolhandle_hello"]);
/// ```
#[derive(Clone)]
pub enum ToolHandle {
    /// A tool collected at link time.
    Static(&'static dyn Tool),
    /// A tool added at run time.
    Shared(Arc<dyn Tool>),
}

impl Deref for ToolHandle {
    type Target = dyn Tool;

    fn deref(&self) -> &(dyn Tool + 'static) {
        match self {
            ToolHandle::Static(tool) => *tool,
            ToolHandle::Shared(tool) => &**tool,
        }
    }
}

impl fmt::Debug for ToolHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ToolHandle")
            .field(&self.spec().name)
            .finish()
    }
}

impl<T: Tool> From<T> for ToolHandle {
    fn from(tool: T) -> Self {
        ToolHandle::Shared(Arc::new(tool))
    }
}

impl From<Arc<dyn Tool>> for ToolHandle {
    fn from(tool: Arc<dyn Tool>) -> Self {
        ToolHandle::Shared(tool)
    }
}

//! Turn ordinary Rust functions into tools a language model can call.
//!
//! Annotate a function with [`#[tool]`](macro@tool); linking the crate is enough for the tool
//! to exist, with its JSON Schema, argument validation with errors a model can act on, and an
//! entry in the link-time [`Registry`]. A [`Coordinator`] then runs model tool calls against a
//! [`Toolset`].
//!
//! ```
//! use tool_core::{tool, Coordinator, ToolCall, Toolset};
//!
//! /// Add two integers.
//! ///
//! /// # Arguments
//! /// * `a` - The first addend.
//! /// * `b` - The second addend.
//! #[tool(read_only, name = "doc_lib_add")]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let coordinator = Coordinator::builder()
//!     .toolset(Toolset::named(["doc_lib_add"])?)
//!     .build()?;
//! let result = coordinator.call_blocking(ToolCall::new("doc_lib_add", r#"{"a": 1, "b": 2}"#));
//! assert_eq!(result.text(), "3");
//!
//! let toolset = coordinator.toolset(); // a snapshot: the toolset can change while it runs
//! let schema = toolset.get("doc_lib_add").unwrap().input_schema();
//! assert_eq!(schema.as_value()["properties"]["a"]["description"], "The first addend.");
//! # Ok(())
//! # }
//! ```
//!
//! # The crate root, and modules by job
//!
//! The root holds what a first program names: the attribute [`tool`](macro@tool), [`Args`],
//! [`Json`], [`Structured`], [`State`], [`Tool`], [`ToolCall`], [`ToolResult`], [`ToolError`],
//! [`ToolOutput`], [`Toolset`], [`Registry`], [`Workspace`], [`WorkspacePath`], [`WebUrl`],
//! [`Coordinator`] and [`BoxFuture`]. Everything else lives in one module, reachable one way:
//!
//! - Defining tools: [`spec`] (a tool as data), [`tool`](mod@tool) (what a call passes through
//!   a tool), [`context`] (what a tool receives besides its arguments), [`output`], [`error`]
//!   (argument errors), [`schema`], [`registry`], [`toolset`], [`workspace`] (resolving and
//!   confining a model's paths, and the file I/O beneath the workspace every tool should use),
//!   [`provider`] (tool calls out of, and results into, each model provider's payloads).
//! - Running them (the default `runtime` feature): [`coordinator`], [`policy`], [`approval`],
//!   [`hooks`], [`settings`], [`middleware`], [`budget`], [`events`].
//!
//! # Features
//!
//! - `runtime` (default): the coordinator and everything around a call (policy, approvals,
//!   hooks, settings, middleware, budgets, events). A crate that only defines tools can turn it
//!   off (`default-features = false`): it then depends on neither process spawning nor the bash parser,
//!   and builds on any target the definition side builds on.

#![warn(missing_docs)]
// On docs.rs (`--cfg docsrs`, nightly) every item gated by a feature says which one.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod definition;
#[cfg(feature = "runtime")]
mod runtime;

#[doc(hidden)]
pub mod __private;

pub use definition::call::{ToolCall, ToolResult};
pub use definition::context::State;
pub use definition::error::ToolError;
pub use definition::output::{Json, Structured, ToolOutput};
pub use definition::registry::Registry;
pub use definition::tool::Tool;
pub use definition::toolset::Toolset;
pub use definition::workspace::{WebUrl, Workspace, WorkspacePath};
#[cfg(feature = "runtime")]
pub use runtime::coordinator::Coordinator;

/// Turns a function into a tool. See the [crate documentation](crate), and the attribute's
/// reference in the repository's guide (`docs/tools.md`).
pub use tool_macros::tool;

/// Turns the methods marked `#[tool(..)]` of an impl block into tools, each called on the
/// coordinator's value of the type (`.state(value)`, or `.shared_state(arc)`), as rmcp's
/// `#[tool_router]` users write them. A method gets everything a function does (schema,
/// extraction, effect, aliases, resources, docs); it takes `&self` (state a tool changes goes
/// behind a `Mutex` or an atomic: calls may run at once), or no receiver at all. A coordinator
/// whose toolset names a method tool and has no value of its type fails at `build()`
/// ([`BuildError::MissingState`](coordinator::BuildError::MissingState)); a selection of
/// tools (every linked tool, the default; a tag; a crate) leaves such a tool out, saying why
/// when it is called.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use tool_core::{tool, tools, Coordinator, ToolCall, Toolset};
///
/// struct Counter {
///     visits: AtomicU64,
/// }
///
/// #[tools]
/// impl Counter {
///     /// Count one more visit and say how many there were.
///     ///
///     /// # Arguments
///     /// * `by` - How many visits to count.
///     #[tool(idempotent, name = "doc_tools_visit")]
///     fn visit(&self, by: u64) -> u64 {
///         self.visits.fetch_add(by, Ordering::SeqCst) + by
///     }
///
///     /// Not a tool: an ordinary method.
///     fn reset(&self) {
///         self.visits.store(0, Ordering::SeqCst);
///     }
/// }
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_tools_visit"]).unwrap())
///     .policy(tool_core::policy::PolicyBuilder::default().allow("doc_tools_visit"))
///     .state(Counter { visits: AtomicU64::new(40) })
///     .build()
///     .unwrap();
/// let result = coordinator.call_blocking(ToolCall::new("doc_tools_visit", r#"{"by": 2}"#));
/// assert_eq!(result.text(), "42");
///
/// // Without its `Counter`, a coordinator naming the tool is not built.
/// let error = Coordinator::builder()
///     .toolset(Toolset::named(["doc_tools_visit"]).unwrap())
///     .build()
///     .unwrap_err();
/// assert!(error.to_string().contains("method of `"), "{error}");
/// ```
pub use tool_macros::tools;

/// A boxed, sendable future: what the object-safe async traits here (approvers, hooks,
/// middleware) return.
///
/// ```
/// use tool_core::BoxFuture;
///
/// fn count_words<'a>(text: &'a str) -> BoxFuture<'a, usize> {
///     Box::pin(async move { text.split_whitespace().count() })
/// }
///
/// let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// assert_eq!(runtime.block_on(count_words("three little words")), 3);
/// ```
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// What a tool is, as data: its [`ToolSpec`](spec::ToolSpec), [`Effect`](spec::Effect) and
/// resource arguments, and the MCP annotations derived from them.
pub mod spec {
    pub use crate::definition::spec::{
        ApprovalKind, Effect, ResourceArg, ResourceKind, SourceLocation, ToolAnnotations, ToolSpec,
        is_valid_tool_name,
    };
}

/// What one call passes through a [`Tool`]: its [`Prepared`](tool::Prepared)
/// arguments, the [`Resource`](tool::Resource)s it names, the [`ToolFuture`](tool::ToolFuture)
/// of its invocation; and the [`ToolHandle`](tool::ToolHandle) a registry or toolset keeps a
/// tool behind. For hand-written and dynamic tools.
pub mod tool {
    pub use crate::definition::tool::{Prepared, RequiredState, Resource, ToolFuture, ToolHandle};
}

/// What a tool can receive besides its JSON arguments: the per-call
/// [`ToolContext`](context::ToolContext), the [`FromContext`](context::FromContext) extractor
/// trait, and the built-in context types (besides [`State`] and
/// [`Workspace`] at the crate root); with the runtime, the handles on the coordinator running
/// the call: [`ToolCaller`](context::ToolCaller) (nested calls) and
/// [`Session`](context::Session) (mode and approver).
pub mod context {
    pub use crate::definition::context::{
        CallInfo, CancellationToken, Extensions, FromContext, Progress, ProgressSink,
        ProgressUpdate, ToolContext,
    };
    #[cfg(feature = "runtime")]
    pub use crate::runtime::coordinator::{MAX_NESTING, Session, ToolCaller};
}

/// What a tool may return: the conversions into a [`ToolOutput`] and its
/// [`Content`](output::Content) parts.
pub mod output {
    pub use crate::definition::output::{
        Content, IntoToolOutput, IntoToolResult, ResourceContents,
    };
}

/// Arguments a model got wrong: each [`ArgumentError`](error::ArgumentError) in a
/// [`ToolError::InvalidArguments`], with its JSON path.
pub mod error {
    pub use crate::definition::error::{ArgumentError, ArgumentProblem};
}

/// JSON Schemas of tool arguments and outputs, and their exports in each provider's
/// [`Dialect`](schema::Dialect) (see [`Toolset::export`]).
pub mod schema {
    pub use crate::definition::dialect::{
        Dialect, Export, ExportError, ExportProblem, ExportedTool, GeminiForm, OpenAiApi,
        ToolNames, check, export_tool,
    };
    pub use crate::definition::schema::input_schema_for;
    /// A JSON Schema (re-exported from `schemars`): what
    /// [`Tool::input_schema`](crate::Tool::input_schema) and
    /// [`Tool::output_schema`](crate::Tool::output_schema) return. A hand-written tool makes
    /// its input schema once, from its arguments type:
    ///
    /// ```
    /// use tool_core::schema::{Schema, input_schema_for};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Lookup {
    ///     /// The user's email address.
    ///     email: String,
    ///     /// Include closed accounts.
    ///     closed: Option<bool>,
    /// }
    ///
    /// let schema: Schema = input_schema_for::<Lookup>();
    /// let schema = schema.as_value();
    /// assert_eq!(schema["type"], "object");
    /// assert_eq!(schema["properties"]["email"]["description"], "The user's email address.");
    /// assert_eq!(schema["required"], serde_json::json!(["email"]));
    /// ```
    pub use schemars::Schema;
}

/// Why the link-time [`Registry`] is invalid.
pub mod registry {
    pub use crate::definition::registry::{Claim, RegistryError, RegistryProblem};
}

/// Why a [`Toolset`] could not be made.
pub mod toolset {
    pub use crate::definition::toolset::ToolsetError;
}

/// Resolving a model's paths against the [`Workspace`], the boundary no tool crosses, and the
/// file I/O beneath the workspace's roots that holds it.
///
/// # File I/O in a tool
///
/// The policy checks every path argument before a call runs, but the file system can change
/// between that check and the tool's I/O (while the user is asked, say): a directory on the
/// path can become a symlink leading out. So a tool does its file I/O through the
/// [`Workspace`]'s handles ([`open`](Workspace::open), [`read_to_string`](Workspace::read_to_string),
/// [`create`](Workspace::create), [`write`](Workspace::write) (atomic),
/// [`create_dir_all`](Workspace::create_dir_all), [`rename`](Workspace::rename),
/// [`remove_file`](Workspace::remove_file), [`read_dir`](Workspace::read_dir),
/// [`metadata`](Workspace::metadata), [`open_dir`](Workspace::open_dir)), never through
/// `std::fs` with a path: each resolves the path beneath a root held open (with cap-std:
/// `openat2(RESOLVE_BENEATH)` on Linux, a checked walk elsewhere), so the kernel refuses
/// whatever leads out, at the moment of the I/O; the refusal is an [`EscapeError`](workspace::EscapeError)
/// telling the model what was wrong.
///
/// A handle takes the path the tool received. A [`WorkspacePath`] arrives resolved (the
/// model's slips repaired); a raw `#[arg(path)] String` is checked, by the policy and by the
/// handles alike, as relative to the workspace's first root (or absolute).
///
/// ```
/// use tool_core::{tool, ToolError, Workspace, WorkspacePath};
///
/// /// Replace a file's text.
/// ///
/// /// # Arguments
/// /// * `path` - File path, relative to the workspace root.
/// /// * `text` - The whole new text.
/// #[tool(name = "doc_workspace_write", blocking)]
/// fn write_file(ws: &Workspace, path: WorkspacePath, text: String) -> Result<String, ToolError> {
///     ws.write(&path, &text)?; // `?`: an escape becomes a message the model can act on
///     Ok(format!("wrote {} bytes", text.len()))
/// }
/// ```
///
/// [`Dir`](workspace::Dir), [`ReadDir`](workspace::ReadDir),
/// [`DirEntry`](workspace::DirEntry) and [`Metadata`](workspace::Metadata) are cap-std's: a
/// directory handle and what it lists and stats, each confined beneath its directory.
pub mod workspace {
    pub use crate::definition::workspace::{
        Access, AccessDenied, AccessPath, AccessRules, BoundaryError, EscapeError, Normalization,
        NotAFile, Resolution, ResolveError, ResolvedPath, WorkspaceError,
    };
    pub use cap_std::fs::{Dir, DirEntry, Metadata, ReadDir};
}

/// Configuring a [`Coordinator`] and running batches of calls.
#[cfg(feature = "runtime")]
pub mod coordinator {
    pub use crate::runtime::coordinator::{
        BatchOptions, BuildError, CallOptions, CoordinatorBuilder, ToolsetChanges,
    };
}

pub use definition::provider;

#[cfg(feature = "mcp")]
pub use runtime::mcp;
#[cfg(feature = "runtime")]
pub use runtime::{approval, budget, events, hooks, middleware, policy, settings};

/// The whole input of a tool as one type: `Args(args): Args<T>` where
/// `T: Deserialize + JsonSchema`. Its fields are the tool's arguments; document them with doc
/// comments.
///
/// ```
/// use tool_core::{tool, Args};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(deny_unknown_fields)]
/// struct Search {
///     /// The text to look for.
///     query: String,
///     /// At most this many hits.
///     limit: Option<u32>,
/// }
///
/// /// Search the notes.
/// #[tool(read_only, name = "doc_args_search")]
/// fn search(Args(search): Args<Search>) -> String {
///     format!("{} (limit {:?})", search.query, search.limit)
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Args<T>(pub T);

//! Turn ordinary Rust functions into tools a language model can call.
//!
//! Annotate a function with [`#[tool]`](tool); linking the crate is enough for the tool to
//! exist, with its JSON Schema, argument validation with errors a model can act on, and an entry
//! in the link-time [`Registry`]. A [`Coordinator`] then runs model tool calls against a
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
//! let coordinator = Coordinator::builder()
//!     .toolset(Toolset::named(["doc_lib_add"]).unwrap())
//!     .build()
//!     .unwrap();
//! let result = coordinator.call_blocking(ToolCall::new("doc_lib_add", r#"{"a": 1, "b": 2}"#));
//! assert_eq!(result.text(), "3");
//!
//! let schema = Toolset::named(["doc_lib_add"]).unwrap().get("doc_lib_add").unwrap().input_schema().clone();
//! assert_eq!(schema.as_value()["properties"]["a"]["description"], "The first addend.");
//! ```
//!
//! # Modules by job
//!
//! - [`spec`](ToolSpec): what a tool is, as data ([`ToolSpec`], [`Effect`]).
//! - [`Tool`]: the one trait behind macro, hand-written and dynamic tools.
//! - [`Registry`] and [`Toolset`]: the tools linked in, and the selection a coordinator offers.
//! - Schemas and argument errors: [`Tool::input_schema`], [`ToolError::InvalidArguments`].
//! - Context: [`FromContext`] and the built-in context types.
//! - [`Coordinator`]: runs calls.
//! - [`Workspace`]: the roots tools work in, resolution of a model's paths
//!   ([`Workspace::resolve`]) and the hard boundary ([`Workspace::confine`]).
//! - [`hooks`]: code run around calls (Claude Code's hook protocol); [`Settings`]: Claude Code
//!   style `settings.json` (rules, mode, hooks).

#![warn(missing_docs)]

mod approval;
mod args;
mod budget;
mod call;
mod context;
mod coordinator;
mod error;
mod events;
pub mod hooks;
mod middleware;
mod names;
mod output;
mod panic;
pub mod policy;
mod registry;
mod schema;
mod settings;
mod spec;
mod suggest;
mod tool;
mod toolset;
mod workspace;

#[doc(hidden)]
pub mod __private;

/// A boxed, sendable future: what the object-safe async traits here (approvers, hooks,
/// middleware) return.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

pub use approval::{
    ApprovalRequest, ApprovalResponse, ApprovalScope, Approver, AutoApprove, ChannelApprover,
    DenyAll, GrantsError, GrantsFile, PendingApproval,
};
pub use args::parse_arguments;
pub use budget::{Budget, BudgetConfig, BudgetExhausted, BudgetKind, BudgetStatus};
pub use call::{ToolCall, ToolResult};
pub use context::{
    CallInfo, CancellationToken, FromContext, Progress, ProgressSink, ProgressUpdate, State,
    ToolContext,
};
pub use coordinator::{BatchOptions, BuildError, Coordinator, CoordinatorBuilder};
pub use error::{ArgumentError, ArgumentProblem, ToolError};
pub use events::{CallEvent, EventSink};
pub use hooks::{Hook, HookEvent, HookInput, HookOutcome, HookOutput, Hooks};
pub use middleware::{Artifact, Artifacts, Invocation, Middleware, Next};
pub use output::{Content, IntoToolOutput, IntoToolResult, Json, ToolOutput};
pub use policy::{
    ClassifiedCall, Decision, DecisionSource, Explanation, Layer, Mode, PermissionRule,
    PermissionRules, PermissionSet, Policy, PolicyBuilder, PolicyContext, Rule, RuleSyntaxError,
    Verdict,
};
pub use registry::{Claim, Registry, RegistryError, RegistryProblem};
pub use schema::input_schema_for;
pub use schemars::Schema;
pub use settings::{IgnoredEntry, PermissionSettings, Settings, SettingsError};
pub use spec::{
    ApprovalKind, Effect, ResourceArg, ResourceKind, SourceLocation, ToolAnnotations, ToolSpec,
    is_valid_tool_name,
};
pub use tool::{Prepared, Resource, Tool, ToolFuture, ToolHandle};
pub use toolset::{Toolset, ToolsetError};
pub use workspace::{
    Normalization, Resolution, ResolveError, ResolvedPath, Url, Workspace, WorkspaceError,
    WorkspacePath,
};

/// Turns a function into a tool. See the [crate documentation](crate) and the README's
/// attribute reference.
pub use tool_macros::tool;

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

//! Turn ordinary Rust functions into tools a language model can call.
//!
//! Annotate a function with [`#[tool]`](macro@tool): linking the crate is enough for the tool to
//! exist, with its JSON Schema, argument validation with errors a model can act on, and an
//! entry in the link-time [`Registry`]. A [`Coordinator`] runs model tool calls against a
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
//! fn add(a: i64, b: i64) -> i64 { a + b }
//!
//! let coordinator = Coordinator::builder().toolset(Toolset::named(["doc_lib_add"]).unwrap());
//! let result = coordinator.build().unwrap().call_blocking(ToolCall::new("doc_lib_add", r#"{"a": 1, "b": 2}"#));
//! assert_eq!(result.text(), "3");
//! ```
//!
//! The root holds what a first program names; everything else lives in the module of its job:
//! defining tools ([`spec`], [`tool`](mod@tool), [`context`], [`output`], [`error`],
//! [`schema`], [`registry`], [`toolset`], [`workspace`], [`provider`]), and running them
//! (feature `runtime`, on by default: [`coordinator`], [`policy`], [`approval`], [`hooks`],
//! [`settings`], [`middleware`], [`budget`], [`events`]; feature `mcp`: [`mcp`]); the guide
//! (`docs/`) says what each costs to build, and how a crate of tools leaves the runtime out.

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
#[cfg_attr(docsrs, doc(cfg(feature = "runtime")))]
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

pub use definition::{
    context, error, output, provider, registry, schema, spec, tool, toolset, workspace,
};

#[cfg(feature = "runtime")]
#[cfg_attr(docsrs, doc(cfg(feature = "runtime")))]
pub use runtime::{approval, budget, coordinator, events, hooks, middleware, policy, settings};

#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub use runtime::mcp;

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

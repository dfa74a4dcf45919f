//! Serving a toolset over the Model Context Protocol (feature `mcp`): [`McpServer`] puts a
//! [`Coordinator`](crate::Coordinator) behind rmcp's server handler, so an MCP client's `tools/call` is a call like
//! any other (policy, hooks, approvals, budget, events) and `tools/list` is the toolset in the
//! MCP dialect ([`Dialect::Mcp`](crate::schema::Dialect::Mcp)): names, descriptions, input and
//! output schemas, and annotations derived from the effect class.
//!
//! What reaches the client, and how:
//! - a tool's failure (including invalid arguments and a denied call) is a result with
//!   `isError: true`, so the model reads it and can correct itself;
//! - an unknown tool is the JSON-RPC error -32602 (invalid params), with the closest names;
//! - structured output (`Json<T>`) is `structuredContent`, mirrored as text for clients that
//!   read only `content`.
//!
//! - a client's `notifications/cancelled` cancels the call's token, so the tool stops (a
//!   shell command's process group is killed).
//!
//! Served so far: stdio ([`serve_stdio`]) and, with the feature `mcp-http`, streamable HTTP
//! (`serve_http`, `HttpServer`, `router`: stateless, Origin checked, optional bearer token; see
//! the `http` module's doc), protocol versions up to 2025-11-25 and 2026-07-28 as rmcp
//! negotiates them. Not yet: progress notifications, approval by elicitation (a call that needs
//! approval is refused with the reason), list-changed announcements, and importing tools from
//! other servers.

#[cfg(feature = "mcp-http")]
mod http;
mod server;

#[cfg(feature = "mcp-http")]
pub use http::{HttpError, HttpOptions, HttpServer, router, serve_http};
pub use server::{McpServer, ServeError, serve_stdio};

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
//! Served so far: stdio ([`serve_stdio`]), protocol versions up to 2025-11-25 and 2026-07-28
//! as rmcp negotiates them. Not yet: streamable HTTP, progress notifications, approval by
//! elicitation (a call that needs approval is refused with the reason), list-changed
//! announcements.
//!
//! The other way round, [`client`] imports the tools of any MCP server (a command over stdio,
//! or a streamable HTTP URL; configured from a `.mcp.json` in Claude Code's format) as dynamic
//! tools named `mcp__<server>__<tool>`, called through a coordinator like any tool.

pub mod client;
mod server;

pub use server::{McpServer, ServeError, serve_stdio};

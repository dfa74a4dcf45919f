//! Serving a toolset over the Model Context Protocol (feature `mcp`): [`McpServer`] puts a
//! [`Coordinator`](crate::Coordinator) behind rmcp's server handler, so an MCP client's
//! `tools/call` is a call like any other (policy, hooks, approvals, budget, events) and
//! `tools/list` is the toolset in the MCP dialect ([`Dialect::Mcp`](crate::schema::Dialect::Mcp)).
//! The other way round, [`client`] imports the tools of any MCP server as dynamic tools named
//! `mcp__<server>__<tool>`. What a client meets (errors, cancellation, progress, approvals and
//! questions at each protocol version, list changes, HTTP's options) is in the guide's MCP
//! page (`docs/mcp.md`).
//!
//! Each `tools/call` runs with options of its own
//! ([`Coordinator::call_with`](crate::Coordinator::call_with)): its cancellation, its progress
//! sink, its approver. Files, one job each: `server.rs` (the handler), `progress.rs` (progress
//! as notifications), `elicit.rs` (approval by elicitation and the sealed request state),
//! `subscriptions.rs` (the served list and its change announcements), `stdio.rs` (the line
//! transport: unreadable and oversized messages answered), `http.rs` (streamable HTTP),
//! `malformed.rs` (what a message that is no message gets), `client/` (importing).
//!
//! Served: stdio ([`serve_stdio`], [`McpServer::serve_stdio`]) and, with the feature
//! `mcp-http`, streamable HTTP (`serve_http`, `HttpServer`, `router`), protocol versions
//! 2024-11-05 to 2026-07-28 as rmcp negotiates them. Not yet here: an approval asked while a
//! tool runs ([`Session::ask`](crate::coordinator::Session::ask)) over the 2026-07-28 round trip,
//! which cannot carry it: such a question is refused, saying why.

pub mod client;
mod elicit;
#[cfg(feature = "mcp-http")]
mod http;
mod malformed;
mod progress;
mod server;
mod stdio;
mod subscriptions;

pub use elicit::StateKeyTooShort;
#[cfg(feature = "mcp-http")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp-http")))]
pub use http::{HttpError, HttpOptions, HttpServer, LEGACY_SESSION_IDLE, router, serve_http};
pub use server::{McpServer, ServeError, TOOLS_LIST_TTL, serve_stdio};
pub use stdio::DEFAULT_MAX_MESSAGE_BYTES;

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
//!   read only `content`;
//! - a client's `notifications/cancelled` cancels the call's token, so the tool stops (a
//!   shell command's process group is killed);
//! - a call whose request carries `_meta.progressToken` sends `notifications/progress` with
//!   that token for each [`Progress::report`](crate::context::Progress::report) of the call
//!   and of its nested calls (a report whose progress does not grow is left out, as the
//!   protocol wants it growing);
//! - the coordinator's policy applies on the server: a call it asks about asks the client's
//!   user by elicitation (`elicitation/create` on 2025-11-25; on 2026-07-28 the
//!   `input_required` round trip, its request state sealed with HMAC-SHA256 so a client
//!   cannot forge an approval or move it to another call), and a client without the
//!   elicitation capability is refused with that reason (see [`McpServer`]);
//! - a tool's own question ([`Session::elicit`](crate::context::Session::elicit), a form)
//!   asks the client's user the same way: `elicitation/create` on 2025-11-25, and on
//!   2026-07-28 an `input_required` round trip that runs the call again from the start with
//!   the answers (so a tool asks before it acts); a message from the client's model
//!   ([`Session::sample`](crate::context::Session::sample)) and the client's roots
//!   ([`Session::roots`](crate::context::Session::roots)) travel the same ways;
//! - on 2026-07-28, `tools/list` carries `ttlMs` ([`TOOLS_LIST_TTL`]) and `cacheScope:
//!   "public"`: the same for every caller;
//! - the toolset may change while served
//!   ([`Coordinator::update_toolset`](crate::Coordinator::update_toolset)): the server
//!   declares `listChanged` and announces each change, as `notifications/tools/list_changed`
//!   on a 2025-11-25 connection and on the `subscriptions/listen` stream of a 2026-07-28 client
//!   that asked for `toolsListChanged`.
//!
//! Each `tools/call` runs with options of its own
//! ([`Coordinator::call_with`](crate::Coordinator::call_with)): its cancellation, its progress
//! sink, its approver. Files: `server.rs` (the handler), `progress.rs` (progress as
//! notifications), `elicit.rs` (approval by elicitation and the sealed request state),
//! `subscriptions.rs` (the served list and its change announcements), `stdio.rs` (the line
//! transport: unreadable and oversized messages answered), `http.rs` (streamable HTTP).
//!
//! Served: stdio ([`serve_stdio`], [`McpServer::serve_stdio`]) and, with the feature
//! `mcp-http`, streamable HTTP (`serve_http`, `HttpServer`, `router`: stateless, Origin
//! checked, optional bearer token; see the `http` module's doc), protocol versions 2025-11-25
//! and 2026-07-28 as rmcp negotiates them. Not yet here: an approval asked while a tool runs
//! ([`Session::ask`](crate::context::Session::ask), a nested call that needs approval) over
//! the 2026-07-28 round trip, which cannot carry it: such a question is refused, saying why.
//!
//! The other way round, [`client`] imports the tools of any MCP server (a command over stdio,
//! or a streamable HTTP URL; configured from a `.mcp.json` in Claude Code's format) as dynamic
//! tools named `mcp__<server>__<tool>`, called through a coordinator like any tool.

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
pub use http::{HttpError, HttpOptions, HttpServer, LEGACY_SESSION_IDLE, router, serve_http};
pub use server::{McpServer, ServeError, TOOLS_LIST_TTL, serve_stdio};
pub use stdio::DEFAULT_MAX_MESSAGE_BYTES;

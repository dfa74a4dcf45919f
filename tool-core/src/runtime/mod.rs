//! The runtime side (the default `runtime` feature): running a model's calls. The
//! [`Coordinator`](crate::Coordinator) looks tools up and runs each call through the
//! [`policy`](crate::policy), [`approval`](crate::approval), [`hooks`](crate::hooks) (command
//! hooks spawn processes, so this half is where `tokio`'s process support comes in),
//! the [`middleware`](crate::middleware) chain, [`budget`](crate::budget)s and
//! [`events`](crate::events); [`settings`](crate::settings) reads Claude Code style
//! `settings.json`.

pub mod approval;
pub mod budget;
pub(crate) mod config;
pub mod coordinator;
pub mod events;
pub mod hooks;
#[cfg(any(feature = "mcp", feature = "http-hooks"))]
mod https;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;
pub mod middleware;
pub mod policy;
pub mod settings;

//! The definition side: what a crate that defines tools needs, and nothing that spawns a
//! process or needs a whole runtime. The `#[tool]` attribute expands to code that reaches only
//! this half (through `__private`), so a library of tools builds with the `runtime` feature
//! off.
//!
//! - `spec`, `tool`: what a tool is, as data and as the one trait;
//! - `registry`, `toolset`, `names`: the tools linked in, a selection of them, their names;
//! - `args`, `schema`, `error`, `suggest`: parsing arguments, their schemas (and `schema`'s
//!   `dialect`: the schemas in each provider's dialect, and what each export lost), and errors
//!   a model can act on;
//! - `context`, `output`, `call`: what a tool receives and returns, and a model's call and its
//!   result;
//! - `workspace`: resolving a model's paths and the boundary no tool crosses;
//! - `panic`: keeping a panic inside the code that raised it;
//! - `provider`: tool calls out of, and results into, each model provider's payloads.
//!
//! The public ones are the crate's modules of the same name (`tool_core::spec` is `spec.rs`).

// Some of this half is there for the runtime (the call's context, panic isolation, recording
// resolved paths): without it, that is unused.
#![cfg_attr(not(feature = "runtime"), allow(dead_code, unused_imports))]

pub(crate) mod args;
pub(crate) mod blocking;
pub(crate) mod call;
pub mod context;
pub mod error;
pub(crate) mod names;
pub mod output;
pub(crate) mod panic;
pub mod provider;
pub mod registry;
pub mod schema;
pub mod spec;
pub(crate) mod suggest;
pub mod tool;
pub mod toolset;
pub(crate) mod unanswered;
pub mod workspace;

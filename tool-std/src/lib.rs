//! The standard library of agent tools: link the crate and its tools are in the registry.
//!
//! Each tool is a `#[tool]` function in a small file, in the folder of its family beside the
//! engine the family shares: `files/`, `edit/` (with `edit/patch/`), `search/` (with
//! `search/walk/` and [`search::repo_map`]), [`shell`] (with [`shell::sandbox`]), [`web`]
//! (configured by a [`web::WebConfig`] given as state, searching through a
//! [`web::SearchProvider`]), [`code`] and `steering/` (plans, [`TodoList`]s, [`Subagents`],
//! kept outputs). [`fs`], the text-as-found engine, sits beside them because every family reads
//! and writes through it. Every file is read and written through the workspace's confined
//! handles, as found: its encoding, byte order mark and line endings are kept byte for byte.
//! The shell tools are built on Unix only (a command runs in a process group of its own,
//! stopped by signalling the group).
//!
//! The tools, with their aliases and what each does, are listed in the guide's tool-std page
//! (`docs/tool-std.md`), with what the model reads from each.

#![warn(missing_docs)]
// On docs.rs (`--cfg docsrs`, nightly) every item gated by a feature says which one.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod code;
mod edit;
mod files;
pub mod fs;
pub mod search;
#[cfg(unix)]
#[cfg_attr(docsrs, doc(cfg(unix)))]
pub mod shell;
mod steering;
pub mod web;

pub use code::execute::ExecuteOutput;
pub use edit::apply_patch::PatchText;
pub use edit::hashline_edit::{HashlineEditArgs, HashlineOp};
pub use edit::multi_edit::EditArgs;
pub use search::grep::OutputMode;
#[cfg(unix)]
#[cfg_attr(docsrs, doc(cfg(unix)))]
pub use shell::kill_shell::JobKilled;
#[cfg(unix)]
#[cfg_attr(docsrs, doc(cfg(unix)))]
pub use shell::list_shells::{JobSummary, ShellList};
#[cfg(unix)]
#[cfg_attr(docsrs, doc(cfg(unix)))]
pub use shell::run_shell::{
    DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, ShellJobStarted, ShellReply, ShellRun,
};
#[cfg(unix)]
#[cfg_attr(docsrs, doc(cfg(unix)))]
pub use shell::shell_output::JobOutput;
pub use steering::subtask::{SubAgentRunner, SubAgentTask, Subagents};
pub use steering::todo_write::{InvalidTodos, TodoItem, TodoList, TodoProblem, TodoStatus};

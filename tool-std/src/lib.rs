//! The standard library of agent tools: link the crate and its tools are in the registry.
//!
//! Each tool is a `#[tool]` function in a small file, in the folder of its family beside the
//! engine the family shares: `files/`, `edit/` (with `edit/patch/`), `search/` (with
//! `search/walk/` and [`search::repo_map`]), [`shell`], [`web`], [`code`] and `steering/`
//! (plans, todos, sub-agents, kept outputs). [`fs`], the text-as-found engine, sits beside them
//! because every family reads and writes through it. Every file is read and written through the
//! workspace's confined handles, as found: its encoding, byte order mark and line endings are
//! kept byte for byte. The shell tools are built on Unix only (a command runs in a process
//! group of its own, stopped by signalling the group).
//!
//! | tool | aliases | what it does |
//! |---|---|---|
//! | `read_file` | `Read` | a file's lines, numbered; a directory's listing; an image as an image |
//! | `write_file` | `Write` | a whole file, atomically, kept in the format it had |
//! | `edit_file` | `Edit` | one replacement, found by a ladder of comparisons, nothing else touched |
//! | `multi_edit` | `MultiEdit` | several replacements in one file, in order, all or nothing |
//! | `hashline_edit` | | edits addressed by the `LINE#HASH` anchors `read_file` shows |
//! | `apply_patch` | | Codex's patch format, every file changed or none |
//! | `grep` | `Grep` | a regular expression searched with ripgrep's crates, paged, what it left out said |
//! | `glob` | `Glob` | files by name pattern, newest first, `.gitignore` respected |
//! | `list_dir` | `LS` | a directory as a sorted tree; ignored directories shown once, not walked |
//! | `repo_map` | | files ranked by PageRank over tree-sitter definitions and references, signatures, to a token budget |
//! | `run_shell` | `Bash` | a bash command line without a terminal, its process group stopped at its time limit; or a background job |
//! | `shell_output` | `BashOutput` | a background job's new output, filtered, and its status |
//! | `kill_shell` | `KillShell` | a background job's whole process group stopped |
//! | `list_shells` | | the session's background jobs |
//! | (sandbox) | | not a tool: `run_shell` and its jobs under Landlock, writes held to the workspace and `TMPDIR`, TCP off ([`shell::sandbox`]) |
//! | `fetch_url` | `WebFetch` | a web page as markdown, text or raw; private addresses refused after DNS and on every redirect; cached 15 min |
//! | `web_search` | `WebSearch` | results from the configured [`web::SearchProvider`] (SearXNG shipped), filtered by domain |
//! | `think` | | a thought noted, answered with a short acknowledgement |
//! | `todo_write` | `TodoWrite` | the session's todo list, validated (one item in progress), kept ([`TodoList`]) and shown back |
//! | `present_plan` | `ExitPlanMode` | the plan to the approver; accepted, plan mode ends; rejected, the user's guidance |
//! | `subtask` | `Task` | a task for a sub-agent the application runs ([`Subagents`]), its calls one level deeper |
//! | `list_artifacts` | | the outputs kept whole when the output limit cut them |
//! | `read_artifact` | | a page of a kept output, numbered, under the output limit |
//! | `execute` | | code mode: Python in monty's sandbox calling the tools as functions, each a nested call, within limits ([`code`]) |
//!
//! The web tools run over [`web`]: address checks, the client, HTML conversion, the cache, and
//! the search providers; configure them with a [`web::WebConfig`] given as state.

#![warn(missing_docs)]
// On docs.rs (`--cfg docsrs`, nightly) every item gated by a feature says which one.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod code;
mod edit;
mod files;
pub mod fs;
pub mod search;
#[cfg(unix)]
pub mod shell;
mod steering;
pub mod web;

pub use code::execute::ExecuteOutput;
pub use edit::apply_patch::PatchText;
pub use edit::hashline_edit::{HashlineEditArgs, HashlineOp};
pub use edit::multi_edit::EditArgs;
pub use search::grep::OutputMode;
#[cfg(unix)]
pub use shell::kill_shell::JobKilled;
#[cfg(unix)]
pub use shell::list_shells::{JobSummary, ShellList};
#[cfg(unix)]
pub use shell::run_shell::{
    DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, ShellJobStarted, ShellReply, ShellRun,
};
#[cfg(unix)]
pub use shell::shell_output::JobOutput;
pub use steering::subtask::{SubAgentRunner, SubAgentTask, Subagents};
pub use steering::todo_write::{InvalidTodos, TodoItem, TodoList, TodoProblem, TodoStatus};

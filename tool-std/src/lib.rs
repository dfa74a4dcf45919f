//! The standard library of agent tools: link the crate and its tools are in the registry.
//!
//! Each tool is a `#[tool]` function in a small file over a shared engine: [`fs`] under the
//! file tools, [`shell`] under the shell tools. Every file is read and written through the
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

mod apply_patch;
pub mod code;
mod edit;
mod edit_file;
mod execute;
mod fetch_url;
pub mod fs;
mod glob;
mod grep;
mod hashline_edit;
#[cfg(unix)]
mod kill_shell;
mod list_artifacts;
mod list_dir;
#[cfg(unix)]
mod list_shells;
mod multi_edit;
mod patch;
mod present_plan;
mod read_artifact;
mod read_file;
pub mod repo_map;
#[cfg(unix)]
mod run_shell;
#[cfg(unix)]
pub mod shell;
#[cfg(unix)]
mod shell_output;
mod subtask;
mod think;
mod todo_write;
mod walk;
pub mod web;
mod web_search;
mod write_file;

pub use apply_patch::PatchText;
pub use execute::ExecuteOutput;
pub use grep::OutputMode;
pub use hashline_edit::{HashlineEditArgs, HashlineOp};
#[cfg(unix)]
pub use kill_shell::JobKilled;
#[cfg(unix)]
pub use list_shells::{JobSummary, ShellList};
pub use multi_edit::EditArgs;
#[cfg(unix)]
pub use run_shell::{DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, ShellJobStarted, ShellReply, ShellRun};
#[cfg(unix)]
pub use shell_output::JobOutput;
pub use subtask::{SubAgentRunner, SubAgentTask, Subagents};
pub use todo_write::{InvalidTodos, TodoItem, TodoList, TodoProblem, TodoStatus};

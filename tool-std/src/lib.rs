//! The standard library of agent tools: link the crate and its tools are in the registry.
//!
//! Each tool is a `#[tool]` function in a small file over a shared engine: [`fs`] under the
//! file tools. Every file is read and written through the workspace's confined handles, as
//! found: its encoding, byte order mark and line endings are kept byte for byte.
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
//! | `execute` | | code mode: Python in monty's sandbox calling the tools as functions, each a nested call, within limits ([`code`]) |

#![warn(missing_docs)]

mod apply_patch;
pub mod code;
mod edit;
mod edit_file;
mod execute;
pub mod fs;
mod glob;
mod grep;
mod hashline_edit;
mod list_dir;
mod multi_edit;
mod patch;
mod read_file;
pub mod repo_map;
mod walk;
mod write_file;

pub use apply_patch::PatchText;
pub use execute::ExecuteOutput;
pub use grep::OutputMode;
pub use hashline_edit::{HashlineEditArgs, HashlineOp};
pub use multi_edit::EditArgs;

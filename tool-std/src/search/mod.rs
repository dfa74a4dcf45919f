//! The search tools: `grep` (a regular expression through ripgrep's crates), `glob` (files by
//! name pattern, newest first) and `repo_map` ([`repo_map`]: files ranked by their symbols).
//! All three walk the workspace with `walk`, the one walker that honours ignore files, the
//! policy's Read rules and never follows a link out.

pub(crate) mod glob;
pub(crate) mod grep;
pub mod repo_map;
pub(crate) mod walk;

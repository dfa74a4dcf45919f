//! What went wrong, worded for the model: the file, the hunk and the patch line, and what
//! would have been right.

use thiserror::Error;

/// Why a patch was refused. Nothing is written when any of these comes back.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum PatchError {
    /// The patch does not follow the grammar at this (1-based) line of the patch as sent.
    #[error("line {line}: {message}")]
    Syntax { line: usize, message: String },
    /// The patch has no file operations.
    #[error(
        "the patch changes no files: add `*** Add File:`, `*** Update File:` or `*** Delete File:` sections between `*** Begin Patch` and `*** End Patch`"
    )]
    NoOperations,
    /// A hunk's `@@ context` line is not in the file (after the previous hunk).
    #[error(
        "could not find the context line `@@ {context}` in `{path}` (hunk {hunk}, patch line {line}){after}"
    )]
    ContextNotFound {
        path: String,
        hunk: usize,
        line: usize,
        context: String,
        /// Empty, or where the search started when that was not the top of the file.
        after: String,
    },
    /// A hunk's context and removed lines are not in the file.
    #[error(
        "could not find these lines in `{path}` (hunk {hunk}, patch line {line}):\n{expected}{closest}"
    )]
    NotFound {
        path: String,
        hunk: usize,
        line: usize,
        /// The lines looked for, indented.
        expected: String,
        /// Empty, or the closest block of the file with its line numbers.
        closest: String,
    },
    /// A file to update or delete does not exist (or was deleted earlier in the patch).
    #[error(
        "`{path}` does not exist (patch line {line}: `{operation}`); use `*** Add File:` to create it"
    )]
    Missing {
        path: String,
        line: usize,
        operation: &'static str,
    },
    /// The caller could not read a file as text.
    #[error("could not read `{path}` (patch line {line}): {message}")]
    Read {
        path: String,
        line: usize,
        message: String,
    },
}

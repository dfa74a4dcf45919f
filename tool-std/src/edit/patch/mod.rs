//! The text side of `apply_patch` (issue 7): Codex's `*** Begin Patch` format parsed, every
//! file's new text computed in memory, and Codex's success report. No file I/O: [`plan`] asks
//! the caller for each file's decoded text and returns the whole set of writes and deletions,
//! which the caller commits all or nothing (Codex keeps whatever it wrote before a failure; we
//! do not).
//!
//! The grammar, as Codex's parser reads it, including its lenient cases:
//!
//! ```text
//! *** Begin Patch                      (padding around every marker is ignored)
//! *** Add File: path                   then lines `+text`
//! *** Delete File: path
//! *** Update File: path
//! *** Move to: path                    (optional)
//! @@ optional context line             (the first hunk of a file may omit `@@`)
//!  context / -removed / +added
//! *** End of File                      (optional: the hunk sits at the end of the file)
//! *** End Patch
//! ```
//!
//! The whole patch may come wrapped in a heredoc (`<<'EOF'` … `EOF`, as in
//! `apply_patch <<'EOF'`). A hunk is found by its context and removed lines, from where the
//! previous hunk ended (after its `@@ context` line when it has one), by Codex's ladder: exact,
//! trailing whitespace ignored, trimmed, Unicode punctuation normalized. A hunk with no context
//! or removed lines appends at the end of the file, as Codex does.
//!
//! Bytes outside the changed lines are kept, context lines included (the file's own spelling,
//! not the patch's); new lines take the file's line break (LF or CRLF), and a file without a
//! final line break keeps it missing unless a new line ends it.

mod apply;
mod error;
mod parse;
mod plan;

#[cfg(test)]
mod tests;

pub(crate) use apply::apply_update;
pub(crate) use error::PatchError;
pub(crate) use parse::{Chunk, ChunkLine, Operation, Patch, parse};
pub(crate) use plan::{FileChange, plan};
// What the tests look into.
#[cfg(test)]
pub(crate) use plan::{Plan, summary};

//! The edit tools, `edit_file`, `multi_edit`, `hashline_edit` and `apply_patch` (Codex's
//! format, parsed and planned in `patch`), and the text engine the first three share: finding
//! `old_string` in a file's decoded text by a ladder of ever looser comparisons, replacing it,
//! and wording the reply (`reply`) or the error for the model. The engine does no file I/O:
//! each tool reads and decodes the file through [`crate::fs`], passes its text with its own
//! line ends (LF, CRLF or mixed), and writes the result back only on `Ok`.
//!
//! The ladder ([`MatchLevel`], strictest first; the first level that finds `old_string` at all
//! decides, and it must find it exactly once):
//!
//! 1. exact;
//! 2. line endings normalized (CRLF read as LF on both sides);
//! 3. trailing whitespace ignored, line by line;
//! 4. whole lines compared trimmed, the block at the indentation the model wrote;
//! 5. Unicode punctuation normalized (dashes, quotes, odd spaces, as Codex's `seek_sequence`);
//! 6. indentation-flexible: the block at another indentation, `new_string` re-indented step
//!    for step in the file's unit and character (tabs stay tabs), or refused when how the
//!    model's steps map onto the file's cannot be told;
//! 7. escapes the model wrote literally (`\n`, `\t`, `\"`) unescaped, then 1–6 again.
//!
//! Levels 3–7 compare every line of the block, never only its first and last ("no anchor-only
//! matching"). `replace_all` uses levels 1 and 2 only. The new text always takes the line ends
//! of the block it replaces (a model sends `\n`; a CRLF file gets CRLF), and the bytes outside
//! the replaced span are never touched.

mod apply;
pub(crate) mod apply_patch;
pub(crate) mod edit_file;
pub(crate) mod hashline_edit;
mod indent;
mod ladder;
pub(crate) mod multi_edit;
mod normalize;
mod patch;
mod reply;
mod report;
mod text;

#[cfg(test)]
mod tests;

pub(crate) use apply::{Applied, Edit, apply_edit, apply_edits};
pub(crate) use ladder::MatchLevel;
pub(crate) use normalize::ascii_punctuation;
pub(crate) use reply::{report, with_staleness};
pub(crate) use report::snippet;
// What the tests look into.
#[cfg(test)]
pub(crate) use normalize::visible;
#[cfg(test)]
pub(crate) use report::{Candidate, Difference, EditError};

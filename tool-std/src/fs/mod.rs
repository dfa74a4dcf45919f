//! The file engine under the file tools: text as found ([`TextFile`], [`Format`]), what a
//! session has read ([`FileSession`]), and the shared steps of reading and writing through the
//! workspace's confined handles.

mod session;
mod text;

pub use session::{FileSession, Seen};
pub use text::{
    DecodeError, EncodeError, Format, LineEnding, TextFile, binary_kind, detect, encode,
};

pub(crate) use session::fnv1a;
pub(crate) use text::{SNIFF, utf8_prefix};

use tool_core::context::ToolContext;
use tool_core::{ToolError, Workspace};

/// The session's file record: the coordinator's `State<FileSession>` when it has one.
pub(crate) fn session(ctx: &ToolContext) -> &FileSession {
    match ctx.state::<FileSession>() {
        Some(state) => state,
        None => FileSession::process_wide(),
    }
}

/// A line's anchor for `hashline_edit`: two letters from a hash of its text (without its line
/// break), so an edit can tell the line it was shown from a line that changed since.
///
/// ```
/// let anchor = tool_std::fs::anchor("fn main() {");
/// assert_eq!(anchor.len(), 2);
/// assert_eq!(anchor, tool_std::fs::anchor("fn main() {"));
/// ```
#[must_use]
pub fn anchor(line: &str) -> String {
    const LETTERS: &[u8; 32] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let hash = fnv1a(line.as_bytes());
    let first = LETTERS[(hash & 31) as usize];
    let second = LETTERS[((hash >> 5) & 31) as usize];
    String::from_utf8(vec![first, second]).unwrap_or_default()
}

/// An I/O error on `shown` as the model should read it: a missing file with the closest
/// existing paths, a path leading out of the workspace as the boundary says it, the rest as
/// the system says it.
pub(crate) fn io_error(ws: &Workspace, shown: &str, error: &std::io::Error) -> ToolError {
    match error.kind() {
        std::io::ErrorKind::NotFound => {
            let suggestions = ws.suggest(shown, 3);
            if suggestions.is_empty() {
                ToolError::failed(format!("`{shown}` does not exist"))
            } else {
                ToolError::failed(format!(
                    "`{shown}` does not exist; did you mean {}?",
                    suggestions
                        .iter()
                        .map(|path| format!("`{path}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ))
            }
        }
        _ => ToolError::failed(format!("`{shown}`: {error}")),
    }
}

//! The file engine under the file tools: text as found ([`TextFile`], [`Format`]), images
//! told by their header ([`check_image`]), what a session has read ([`FileSession`]), and the
//! shared steps of reading and writing through the workspace's confined handles.

mod image;
mod line_breaks;
mod session;
mod text;

pub use image::{BrokenImage, ImageHeader, check_image};
pub use session::{FileSession, KEPT_CONTENT, Seen};
pub use text::{
    DecodeError, EncodeError, Format, LineEnding, TextFile, binary_kind, detect, encode,
};

pub(crate) use line_breaks::keep_line_breaks;
pub(crate) use session::{Hasher, line_hash};
pub(crate) use text::{SNIFF, utf8_prefix};

use tool_core::context::ToolContext;
use tool_core::{ToolError, Workspace};

/// The session's file record: the coordinator's `State<FileSession>` when the application
/// gave one (to share it, deliberately), else the coordinator session's own.
pub(crate) fn session(ctx: &ToolContext) -> std::sync::Arc<FileSession> {
    match ctx.state::<FileSession>() {
        Some(state) => state.clone().into_arc(),
        None => ctx.session_state::<FileSession>(),
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
    anchor_of(line_hash(line.as_bytes()))
}

/// The anchor of a line whose [`line_hash`] is `hash`: for a line hashed in pieces, as
/// `read_file` does with a line longer than what it reads at a time.
pub(crate) fn anchor_of(hash: u64) -> String {
    const LETTERS: &[u8; 32] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let first = char::from(LETTERS[(hash & 31) as usize]);
    let second = char::from(LETTERS[((hash >> 5) & 31) as usize]);
    [first, second].into_iter().collect()
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

/// A text file changed in place, as the edit tools do: read through the workspace, decoded as
/// found, changed by `change` (given the text with the file's own line breaks), encoded back in
/// the same format and written atomically. Returns `change`'s answer and whether the file had
/// changed on disk since this session last read or wrote it (the change is made to the file as
/// it is now; the reply says so).
///
/// # Errors
/// The file cannot be read, is not text this engine can write back exactly, `change` refuses
/// (its error gets a note when the file had changed since it was read), or the new text has a
/// character the file's encoding cannot hold.
pub(crate) fn modify<R>(
    ctx: &ToolContext,
    ws: &Workspace,
    path: &tool_core::WorkspacePath,
    change: impl FnOnce(&str) -> Result<(String, R), ToolError>,
) -> Result<(R, bool), ToolError> {
    let shown = path.sent().display().to_string();
    let absolute = path.in_workspace(ws);
    let metadata = ws
        .metadata(path)
        .map_err(|error| io_error(ws, &shown, &error))?;
    if metadata.is_dir() {
        return Err(ToolError::failed(format!(
            "`{shown}` is a directory; give the path of a file in it"
        )));
    }
    let mut bytes = Vec::new();
    ws.open(path)
        .and_then(|mut file| std::io::Read::read_to_end(&mut file, &mut bytes))
        .map_err(|error| io_error(ws, &shown, &error))?;
    let session = session(ctx);
    let now = Seen::of(&bytes, metadata.modified().ok().map(|time| time.into_std()));
    let stale = session
        .seen(&absolute)
        .is_some_and(|seen| seen.hash != now.hash);
    let what_changed = if stale {
        session
            .content(&absolute)
            .map(|then| describe_change(&then, &bytes))
    } else {
        None
    };
    let file = TextFile::decode_owned(bytes)
        .map_err(|error| ToolError::failed(format!("`{shown}`: {error}")))?;
    let (text, answer) = change(&file.text).map_err(|error| {
        if stale {
            let what = what_changed.as_deref().unwrap_or("");
            ToolError::failed(format!(
                "{error}\n(`{shown}` changed on disk since this session last read it{what}: read it again to see it as it is)"
            ))
        } else {
            error
        }
    })?;
    let written = file
        .encode_owned(text)
        .map_err(|error| ToolError::failed(format!("`{shown}`: {error}")))?;
    ws.write(path, &written)
        .map_err(|error| io_error(ws, &shown, &error))?;
    let modified = ws
        .metadata(path)
        .ok()
        .and_then(|m| m.modified().ok())
        .map(|time| time.into_std());
    session.record_content(&absolute, &written, modified);
    Ok((answer, stale))
}

/// What changed between two versions of a file, in a clause for a message: where the first
/// difference is, and the line as it was and as it is.
pub(crate) fn describe_change(then: &[u8], now: &[u8]) -> String {
    let (then, now) = (String::from_utf8_lossy(then), String::from_utf8_lossy(now));
    let (old_lines, new_lines): (Vec<&str>, Vec<&str>) =
        (then.lines().collect(), now.lines().collect());
    let first = old_lines
        .iter()
        .zip(&new_lines)
        .position(|(old, new)| old != new)
        .unwrap_or(old_lines.len().min(new_lines.len()));
    let quote = |line: Option<&&str>| match line {
        Some(line) => format!("`{}`", line.chars().take(120).collect::<String>()),
        None => "absent".to_owned(),
    };
    format!(
        " ({} lines then, {} now; from line {}: it was {}, it is {})",
        old_lines.len(),
        new_lines.len(),
        first + 1,
        quote(old_lines.get(first)),
        quote(new_lines.get(first))
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn anchors_are_the_ones_earlier_versions_gave() {
        // As read_file gave them before the file hash went to four chains (0f08a9e): an anchor
        // a model holds from an older server, or another instance, must still find its line.
        assert_eq!(
            super::anchor("this line is longer than thirty-two bytes"),
            "EU"
        );
        assert_eq!(super::anchor(&"a".repeat(32)), "H4");
        assert_eq!(super::anchor(&"a".repeat(31)), "KK");
        assert_eq!(super::anchor(&"x".repeat(9_000)), "4Y");
    }
}

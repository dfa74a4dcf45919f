//! `write_file`: a whole file, written atomically and in the format it had.

use tool_core::context::ToolContext;
use tool_core::{ToolError, Workspace, WorkspacePath, tool};

use crate::fs::{self, DecodeError, Format, LineEnding, Seen, TextFile, io_error};

/// Write a whole file in the workspace, atomically: the file is either the old text or the
/// new, never a mix. A new file is created (with its directories) as given; an existing file
/// keeps its encoding, byte order mark and line endings. Replacing a file needs a read of it in
/// this session (so you know what you replace), or `overwrite`; so does emptying one.
///
/// # Arguments
/// * `path` - The file, relative to the workspace root (or absolute inside it).
/// * `content` - The whole new text.
/// * `overwrite` - Replace the file even if this session has not read it, it changed since, or the new text is empty.
#[tool(
    closed_world,
    blocking(quick),
    name = "write_file",
    aliases("Write"),
    tags("fs")
)]
fn write_file(
    ctx: &ToolContext,
    ws: &Workspace,
    #[serde(alias = "file_path", alias = "filePath", alias = "absolute_path")] path: WorkspacePath,
    #[serde(alias = "contents", alias = "text")] content: String,
    #[arg(default)] overwrite: bool,
) -> Result<String, ToolError> {
    // A new file is made where it was named, not on a guess at another that exists.
    let path = path.to_create();
    let shown = path.sent().display().to_string();
    let absolute = path.in_workspace(ws);
    let session = fs::session(ctx);
    let (bytes, verb) = match ws.metadata(&path) {
        // A new file gets LF line breaks, whatever the model sent.
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            (content.replace("\r\n", "\n").into_bytes(), "Created")
        }
        Err(error) => return Err(io_error(ws, &shown, &error)),
        Ok(metadata) if metadata.is_dir() => {
            return Err(ToolError::failed(format!(
                "`{shown}` is a directory; give the path of a file in it"
            )));
        }
        Ok(metadata) => {
            let mut old = Vec::new();
            ws.open(&path)
                .and_then(|mut file| std::io::Read::read_to_end(&mut file, &mut old))
                .map_err(|error| io_error(ws, &shown, &error))?;
            let now = Seen::of(&old, metadata.modified().ok().map(|time| time.into_std()));
            if !overwrite {
                check_replace(&shown, session.seen(&absolute), now, &old, &content)?;
            }
            (new_bytes(&shown, &old, &content, overwrite)?, "Wrote")
        }
    };
    ws.write(&path, &bytes)
        .map_err(|error| io_error(ws, &shown, &error))?;
    let modified = ws
        .metadata(&path)
        .ok()
        .and_then(|m| m.modified().ok())
        .map(|time| time.into_std());
    session.record_content(&absolute, &bytes, modified);
    let lines = content.lines().count();
    Ok(format!(
        "{verb} `{shown}` ({lines} line{}, {} bytes)",
        if lines == 1 { "" } else { "s" },
        bytes.len()
    ))
}

/// What must hold before an existing file is replaced without `overwrite`.
fn check_replace(
    shown: &str,
    seen: Option<Seen>,
    now: Seen,
    old: &[u8],
    content: &str,
) -> Result<(), ToolError> {
    match seen {
        None => {
            return Err(ToolError::failed(format!(
                "`{shown}` exists ({} bytes) and has not been read in this session; read it first so you know what you replace, or set overwrite=true",
                old.len()
            )));
        }
        Some(seen) if seen.hash != now.hash => {
            return Err(ToolError::failed(format!(
                "`{shown}` changed on disk since this session last read or wrote it ({} bytes then, {} now); read it again, or set overwrite=true to replace it anyway",
                seen.size, now.size
            )));
        }
        Some(_) => {}
    }
    if content.is_empty() && !old.is_empty() {
        return Err(ToolError::failed(format!(
            "writing empty content would wipe `{shown}` ({} bytes); if that is meant, set overwrite=true",
            old.len()
        )));
    }
    Ok(())
}

/// The new content's bytes in the existing file's format.
fn new_bytes(
    shown: &str,
    old: &[u8],
    content: &str,
    overwrite: bool,
) -> Result<Vec<u8>, ToolError> {
    let (format, old_text) = match TextFile::decode(old) {
        Ok(file) => (file.format, file.text),
        Err(error @ DecodeError::Binary { .. }) if !overwrite => {
            return Err(ToolError::failed(format!(
                "`{shown}`: {error}; set overwrite=true to replace it with text"
            )));
        }
        Err(error) if !overwrite => {
            return Err(ToolError::failed(format!(
                "`{shown}`: {error}; set overwrite=true to replace it with UTF-8 text"
            )));
        }
        Err(_) => (Format::NEW, String::new()),
    };
    let text = match format.line_ending {
        // A file of one line says nothing: the new text keeps its own breaks.
        LineEnding::None | LineEnding::Lf => content.to_owned(),
        LineEnding::Crlf => LineEnding::Crlf.apply(content),
        // Each line the new text keeps keeps its own break; a new line takes its neighbour's.
        LineEnding::Mixed { .. } => fs::keep_line_breaks(&old_text, content),
    };
    fs::encode(format, &text).map_err(|error| ToolError::failed(format!("`{shown}`: {error}")))
}

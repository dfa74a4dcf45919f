//! `read_file`: a file's lines, numbered like `cat -n`, streamed so that reading near the end
//! of a huge file keeps memory bounded; a directory's listing; an image as an image.

use std::fmt::Write as _;
use std::io::Read as _;

use base64::Engine as _;
use encoding_rs::{Encoding, UTF_8};
use tool_core::context::ToolContext;
use tool_core::output::Content;
use tool_core::{ToolError, ToolOutput, Workspace, WorkspacePath, tool};

use crate::fs::{self, Seen, anchor, io_error};

/// Lines longer than this are cut, with a marker saying how long they were.
const MAX_LINE_CHARS: usize = 2_000;
/// At most this much text goes back to the model from one read.
const OUTPUT_CAP: usize = 256 * 1024;
/// Images larger than this are refused rather than sent.
const IMAGE_CAP: u64 = 5 * 1024 * 1024;
/// Lines a read returns when no limit is given.
const DEFAULT_LIMIT: u64 = 2_000;
/// Bytes read and decoded at a time.
const CHUNK: usize = 64 * 1024;

/// Read a text file from the workspace: its lines numbered like `cat -n` (line number, a tab,
/// the line). A directory answers with its entries; an image (PNG, JPEG, GIF, WebP) comes back
/// as an image. Long files are paged: the reply says which lines it holds and how to read on.
///
/// # Arguments
/// * `path` - The file, relative to the workspace root (or absolute inside it).
/// * `offset` - The first line to return, counting from 1 (default 1).
/// * `limit` - How many lines to return (default 2000).
/// * `anchors` - Prefix each line with an anchor (`12#QK|text`) that `hashline_edit` addresses.
#[tool(read_only, blocking, name = "read_file", aliases("Read"), tags("fs"))]
fn read_file(
    ctx: &ToolContext,
    ws: &Workspace,
    #[serde(alias = "file_path", alias = "filePath", alias = "absolute_path")] path: WorkspacePath,
    offset: Option<u64>,
    limit: Option<u64>,
    #[arg(default)] anchors: bool,
) -> Result<ToolOutput, ToolError> {
    let shown = path.sent().display().to_string();
    let metadata = ws
        .metadata(&path)
        .map_err(|error| io_error(ws, &shown, &error))?;
    if metadata.is_dir() {
        return listing(ws, &path, &shown).map(ToolOutput::text);
    }
    let mut file = ws
        .open(&path)
        .map_err(|error| io_error(ws, &shown, &error))?;
    let mut head = vec![0u8; fs::SNIFF];
    let head_len = read_full(&mut file, &mut head).map_err(|error| io_error(ws, &shown, &error))?;
    head.truncate(head_len);
    if let Some(mime_type) = image_type(&head) {
        return image(file, head, metadata.len(), mime_type, &shown);
    }
    let (encoding, bom_len) = match Encoding::for_bom(&head) {
        Some(found) => found,
        None if head.contains(&0) => {
            let kind = fs::binary_kind(&head)
                .map(|kind| format!(", {kind}"))
                .unwrap_or_default();
            return Err(ToolError::failed(format!(
                "`{shown}` is a binary file ({} bytes{kind}), not text; read_file only reads text and images",
                metadata.len()
            )));
        }
        None if fs::utf8_prefix(&head) => (UTF_8, 0),
        None => (
            fs::detect(&head)
                .map_err(|error| ToolError::failed(format!("`{shown}`: {error}")))?
                .0,
            0,
        ),
    };
    let explicit = offset.is_some() || limit.is_some();
    let first = offset.unwrap_or(1).max(1);
    let wanted = limit.unwrap_or(DEFAULT_LIMIT).max(1);
    let mut page = Page::new(first, wanted, anchors);
    let mut hash = fs::Hasher::default().update(&head);
    // A small file is kept as read, so a later edit can say what changed under it.
    let mut kept = Some(head.clone());
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut decoded = String::new();
    let mut pending = head[bom_len..].to_vec();
    let mut total_bytes = head_len as u64;
    let mut buffer = vec![0u8; CHUNK];
    loop {
        let last = pending.is_empty() && {
            let read =
                read_full(&mut file, &mut buffer).map_err(|error| io_error(ws, &shown, &error))?;
            hash = std::mem::take(&mut hash).update(&buffer[..read]);
            if let Some(bytes) = kept.as_mut() {
                if bytes.len() + read <= fs::KEPT_CONTENT {
                    bytes.extend_from_slice(&buffer[..read]);
                } else {
                    kept = None;
                }
            }
            total_bytes += read as u64;
            pending.extend_from_slice(&buffer[..read]);
            read == 0
        };
        decoded.clear();
        decoded.reserve(
            decoder
                .max_utf8_buffer_length_without_replacement(pending.len())
                .unwrap_or(pending.len() * 3),
        );
        let (result, read) =
            decoder.decode_to_string_without_replacement(&pending, &mut decoded, last);
        if let encoding_rs::DecoderResult::Malformed(..) = result {
            return Err(ToolError::failed(format!(
                "`{shown}` is not valid {} text (around byte {}), so it is not shown rather than shown damaged",
                encoding.name(),
                total_bytes - (pending.len() - read) as u64
            )));
        }
        pending.drain(..read);
        page.feed(&decoded);
        if last {
            break;
        }
    }
    page.finish();
    let seen = Seen {
        size: total_bytes,
        modified: metadata.modified().ok().map(|time| time.into_std()),
        hash: hash.finish(),
    };
    let session = fs::session(ctx);
    match kept {
        Some(bytes) => session.record_content(&path.in_workspace(ws), &bytes, seen.modified),
        None => session.record(&path.in_workspace(ws), seen),
    }
    page.reply(&shown, explicit, first).map(ToolOutput::text)
}

/// Fills `buffer` as far as the file goes; the number of bytes read.
fn read_full(file: &mut std::fs::File, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..])? {
            0 => break,
            read => filled += read,
        }
    }
    Ok(filled)
}

/// The lines of a file, streamed: those of the page kept (formatted), the rest only counted.
struct Page {
    first: u64,
    wanted: u64,
    anchors: bool,
    /// The line being read, up to what can be shown of it.
    line: String,
    /// Its length in characters, all of it.
    line_chars: usize,
    /// Lines ended so far.
    lines: u64,
    out: String,
    /// The last line that fit in the output.
    last_shown: u64,
    /// The page's lines did not all fit under the cap.
    capped: bool,
}

impl Page {
    fn new(first: u64, wanted: u64, anchors: bool) -> Self {
        Page {
            first,
            wanted,
            anchors,
            line: String::new(),
            line_chars: 0,
            lines: 0,
            out: String::new(),
            last_shown: 0,
            capped: false,
        }
    }

    fn in_page(&self, number: u64) -> bool {
        number >= self.first && number < self.first.saturating_add(self.wanted)
    }

    fn feed(&mut self, text: &str) {
        let mut rest = text;
        while let Some(end) = rest.find('\n') {
            self.push_part(&rest[..end]);
            self.end_line();
            rest = &rest[end + 1..];
        }
        self.push_part(rest);
    }

    fn push_part(&mut self, part: &str) {
        let number = self.lines + 1;
        // Parts are kept whole while the line is under the cap, so what is kept so far is
        // exactly the line's characters before this part.
        let kept = self.line_chars;
        self.line_chars += part.chars().count();
        if self.in_page(number) && kept < MAX_LINE_CHARS + 1 {
            self.line.push_str(part);
        }
    }

    fn end_line(&mut self) {
        self.lines += 1;
        let number = self.lines;
        if self.in_page(number) && !self.capped {
            let line = self.line.strip_suffix('\r').unwrap_or(&self.line);
            let chars = self.line_chars - usize::from(self.line.ends_with('\r'));
            let shown = match line.char_indices().nth(MAX_LINE_CHARS) {
                Some((cut, _)) => &line[..cut],
                None => line,
            };
            // Written in place, and taken back if it does not fit: no string per line.
            let before = self.out.len();
            if self.anchors {
                let _ = write!(self.out, "{number}#{}|{shown}", anchor(line));
            } else {
                let _ = write!(self.out, "{number:>6}\t{shown}");
            }
            if chars > MAX_LINE_CHARS {
                let _ = write!(self.out, "… [line cut: {chars} characters]");
            }
            self.out.push('\n');
            if self.out.len() > OUTPUT_CAP {
                self.out.truncate(before);
                self.capped = true;
            } else {
                self.last_shown = number;
            }
        }
        self.line.clear();
        self.line_chars = 0;
    }

    /// The text after the last line break is a line too.
    fn finish(&mut self) {
        if self.line_chars > 0 {
            self.end_line();
        }
    }

    fn reply(self, shown: &str, explicit: bool, first: u64) -> Result<String, ToolError> {
        let total = self.lines;
        if total == 0 {
            return Ok(format!("(`{shown}` is empty)"));
        }
        if first > total {
            return Err(ToolError::failed(format!(
                "`{shown}` has {total} lines; offset {first} is past its end. Read from an offset between 1 and {total}"
            )));
        }
        if self.capped && explicit {
            let fits = (self.last_shown + 1).saturating_sub(first).max(1);
            return Err(ToolError::failed(format!(
                "lines {first}-{} of `{shown}` are more than the {} KB one read returns; ask for limit={fits} (or fewer lines) and read on from there",
                first.saturating_add(self.wanted - 1).min(total),
                OUTPUT_CAP / 1024
            )));
        }
        let mut text = self.out;
        let last = self.last_shown;
        if last < total {
            let _ = write!(
                text,
                "\n(lines {first}-{last} of {total}; continue with offset={})",
                last + 1
            );
        }
        Ok(text)
    }
}

/// A directory's entries, sorted, directories marked with a trailing `/`.
fn listing(ws: &Workspace, path: &WorkspacePath, shown: &str) -> Result<String, ToolError> {
    let mut entries: Vec<String> = ws
        .read_dir(path)
        .map_err(|error| io_error(ws, shown, &error))?
        .filter_map(Result::ok)
        .map(|entry| {
            let mut name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                name.push('/');
            }
            name
        })
        .collect();
    entries.sort();
    if entries.is_empty() {
        return Ok(format!("`{shown}` is an empty directory"));
    }
    Ok(format!(
        "`{shown}` is a directory; its entries:\n{}",
        entries.join("\n")
    ))
}

/// The MIME type of an image by its header, for the formats models read.
fn image_type(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

fn image(
    mut file: std::fs::File,
    mut bytes: Vec<u8>,
    size: u64,
    mime_type: &str,
    shown: &str,
) -> Result<ToolOutput, ToolError> {
    if size > IMAGE_CAP {
        return Err(ToolError::failed(format!(
            "`{shown}` is a {mime_type} image of {size} bytes, more than the {} MiB sent to a model",
            IMAGE_CAP >> 20
        )));
    }
    file.read_to_end(&mut bytes)?;
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Ok(ToolOutput::from_content(vec![
        Content::text(format!(
            "`{shown}`: a {mime_type} image, {} bytes",
            bytes.len()
        )),
        Content::Image {
            data,
            mime_type: mime_type.to_owned(),
        },
    ]))
}

//! `read_file`: a file's lines, numbered like `cat -n`, streamed so that reading near the end
//! of a huge file keeps memory bounded; a directory's listing; an image as an image.

use std::fmt::Write as _;
use std::io::Read as _;

use base64::Engine as _;
use encoding_rs::{Encoding, UTF_8};
use tool_core::context::ToolContext;
use tool_core::output::Content;
use tool_core::{ToolError, ToolOutput, Workspace, WorkspacePath, tool};

use crate::fs::{self, BrokenImage, ImageHeader, Seen, io_error};

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
#[tool(
    read_only,
    closed_world,
    blocking(quick),
    name = "read_file",
    aliases("Read"),
    tags("fs")
)]
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
    if let Some(header) = fs::check_image(&head) {
        return image(file, head, metadata.len(), header, &shown);
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
    // No bigger than what is left of the file (and one byte to see its end), so that reading
    // a small file does not clear 64 kB first; a file that grows meanwhile takes more reads.
    let left = usize::try_from(metadata.len().saturating_sub(head_len as u64)).unwrap_or(CHUNK);
    let mut buffer = vec![0u8; left.saturating_add(1).clamp(4096, CHUNK)];
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
        Some(bytes) => session.record_seen_content(&path.in_workspace(ws), &bytes, seen),
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
///
/// A line that arrives whole in one decoded chunk (nearly all of them) is formatted straight
/// from the chunk; only a line that goes on into the next chunk is gathered in `line` first.
struct Page {
    first: u64,
    wanted: u64,
    anchors: bool,
    /// The start of a page line that goes on into the next chunk, up to what can be shown of
    /// it.
    line: String,
    /// That line's length so far in characters, all of it.
    line_chars: usize,
    /// Whether it ends, so far, with a carriage return (dropped if the line ends there).
    line_cr: bool,
    /// Its anchor's hash so far (with `anchors`), without that carriage return: the whole
    /// line's, even where `line` keeps only its start, so that `hashline_edit` finds it.
    line_hash: fs::Hasher,
    /// Text came after the last line break: the line it begins counts even if no line
    /// break ends it.
    open: bool,
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
            line_cr: false,
            line_hash: fs::Hasher::one_chain(),
            open: false,
            lines: 0,
            out: String::new(),
            last_shown: 0,
            capped: false,
        }
    }

    fn in_page(&self, number: u64) -> bool {
        number >= self.first && number < self.first.saturating_add(self.wanted)
    }

    /// Whether the line being read is one the page shows (lines outside it are only counted).
    fn showing(&self) -> bool {
        !self.capped && self.in_page(self.lines + 1)
    }

    fn feed(&mut self, text: &str) {
        let mut rest = text;
        while !rest.is_empty() {
            if self.past_page() {
                // The lines after the page are only counted, all at once.
                self.lines += memchr::memchr_iter(b'\n', rest.as_bytes()).count() as u64;
                self.open = !rest.ends_with('\n');
                return;
            }
            match memchr::memchr(b'\n', rest.as_bytes()) {
                Some(end) => {
                    self.end_line(&rest[..end]);
                    rest = &rest[end + 1..];
                }
                None => {
                    self.open = true;
                    self.push_part(rest);
                    return;
                }
            }
        }
    }

    /// Whether no line from the next one on is shown: the page is full, or ended at the cap.
    fn past_page(&self) -> bool {
        self.capped || self.lines + 1 >= self.first.saturating_add(self.wanted)
    }

    /// A part of the line being read that goes on in the next chunk.
    fn push_part(&mut self, part: &str) {
        if !self.showing() || part.is_empty() {
            return;
        }
        // Parts are kept whole while the line is under the cap, so what is kept so far is
        // exactly the line's characters before this part.
        if self.line_chars <= MAX_LINE_CHARS {
            self.line.push_str(part);
        }
        self.line_chars += part.chars().count();
        if self.anchors {
            let mut hash = std::mem::replace(&mut self.line_hash, fs::Hasher::one_chain());
            if self.line_cr {
                hash = hash.update(b"\r");
            }
            let body = part.strip_suffix('\r').unwrap_or(part);
            self.line_hash = hash.update(body.as_bytes());
        }
        self.line_cr = part.ends_with('\r');
    }

    /// Ends the line being read with `tail`, its text up to the line break.
    fn end_line(&mut self, tail: &str) {
        if self.showing() {
            let number = self.lines + 1;
            if self.line_chars == 0 {
                // All of the line is in `tail`.
                let line = tail.strip_suffix('\r').unwrap_or(tail);
                let anchor = self.anchors.then(|| fs::anchor(line));
                self.write_line(number, line, None, anchor.as_deref());
            } else {
                self.push_part(tail);
                let kept = std::mem::take(&mut self.line);
                let line = match self.line_cr {
                    true => kept.strip_suffix('\r').unwrap_or(&kept),
                    false => &kept,
                };
                let chars = self.line_chars - usize::from(self.line_cr);
                let anchor = self.anchors.then(|| {
                    let hash = std::mem::replace(&mut self.line_hash, fs::Hasher::one_chain());
                    fs::anchor_of(hash.finish())
                });
                self.write_line(number, line, Some(chars), anchor.as_deref());
                self.line = kept;
                self.line.clear();
                self.line_chars = 0;
                self.line_cr = false;
            }
        }
        self.open = false;
        self.lines += 1;
    }

    /// Writes line `number` as the page shows it, `line` being its text without the line
    /// break (or the start of it, with the whole line's length in `chars`): numbered like
    /// `cat -n`, or anchored; cut at [`MAX_LINE_CHARS`] with a marker; taken back, ending the
    /// page, if it does not fit under the cap.
    fn write_line(&mut self, number: u64, line: &str, chars: Option<usize>, anchor: Option<&str>) {
        // A whole line of no more bytes than the cap has no more characters: counted only if
        // longer.
        let chars = chars.or_else(|| (line.len() > MAX_LINE_CHARS).then(|| line.chars().count()));
        let cut = chars.filter(|&chars| chars > MAX_LINE_CHARS);
        let shown = match cut.and_then(|_| line.char_indices().nth(MAX_LINE_CHARS)) {
            Some((end, _)) => &line[..end],
            None => line,
        };
        // Written in place, and taken back if it does not fit: no string per line.
        let before = self.out.len();
        let mut digits = itoa::Buffer::new();
        let digits = digits.format(number);
        match anchor {
            Some(anchor) => {
                self.out.push_str(digits);
                self.out.push('#');
                self.out.push_str(anchor);
                self.out.push('|');
            }
            None => {
                // `{number:>6}\t`, as `cat -n` pads it.
                for _ in digits.len()..6 {
                    self.out.push(' ');
                }
                self.out.push_str(digits);
                self.out.push('\t');
            }
        }
        self.out.push_str(shown);
        if let Some(chars) = cut {
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

    /// The text after the last line break is a line too.
    fn finish(&mut self) {
        if self.open {
            self.end_line("");
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

/// A file with an image's signature: sent as an image when its header holds together (checked
/// on the whole file, so a JPEG's frame header past the first bytes is found), refused as the
/// binary file it is otherwise.
fn image(
    mut file: std::fs::File,
    mut bytes: Vec<u8>,
    size: u64,
    from_head: Result<ImageHeader, BrokenImage>,
    shown: &str,
) -> Result<ToolOutput, ToolError> {
    let not_an_image = |broken: BrokenImage| {
        ToolError::failed(format!(
            "`{shown}` is a binary file ({size} bytes, {broken}), not text; read_file only reads text and images it can decode the header of"
        ))
    };
    if size > IMAGE_CAP {
        let kind = match from_head {
            Err(broken) if !broken.truncated => return Err(not_an_image(broken)),
            Ok(header) => header.mime_type,
            // A JPEG's frame header can lie past the bytes read so far.
            Err(broken) => broken.format,
        };
        return Err(ToolError::failed(format!(
            "`{shown}` is a {kind} image of {size} bytes, more than the {} MiB sent to a model",
            IMAGE_CAP >> 20
        )));
    }
    file.read_to_end(&mut bytes)?;
    let header = fs::check_image(&bytes)
        .unwrap_or(from_head)
        .map_err(not_an_image)?;
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Ok(ToolOutput::from_content(vec![
        Content::text(format!(
            "`{shown}`: a {} image, {}×{} pixels, {} bytes",
            header.mime_type,
            header.width,
            header.height,
            bytes.len()
        )),
        Content::Image {
            data,
            mime_type: header.mime_type.to_owned(),
        },
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a page holds, worked out from the whole text at once, the plainest way: lines
    /// split at `\n`, one carriage return dropped from each end, cut, numbered, capped.
    fn whole(text: &str, first: u64, wanted: u64, anchors: bool) -> (String, u64, u64, bool) {
        let mut lines: Vec<&str> = text.split('\n').collect();
        if lines.last() == Some(&"") {
            lines.pop();
        }
        let (mut out, mut last_shown, mut capped) = (String::new(), 0, false);
        for (number, raw) in (1..).zip(&lines) {
            if number < first || number >= first + wanted || capped {
                continue;
            }
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            let chars = line.chars().count();
            let shown: String = line.chars().take(MAX_LINE_CHARS).collect();
            let mut entry = match anchors {
                true => format!("{number}#{}|{shown}", fs::anchor(line)),
                false => format!("{number:>6}\t{shown}"),
            };
            if chars > MAX_LINE_CHARS {
                entry.push_str(&format!("… [line cut: {chars} characters]"));
            }
            entry.push('\n');
            if out.len() + entry.len() > OUTPUT_CAP {
                capped = true;
            } else {
                out.push_str(&entry);
                last_shown = number;
            }
        }
        (out, lines.len() as u64, last_shown, capped)
    }

    /// The page of `text` fed in chunks that end at the character boundaries `cuts` picks.
    fn streamed(
        text: &str,
        (first, wanted, anchors): (u64, u64, bool),
        mut cut: impl FnMut(usize) -> usize,
    ) -> (String, u64, u64, bool) {
        let mut page = Page::new(first, wanted, anchors);
        let mut rest = text;
        while !rest.is_empty() {
            let mut end = cut(rest.len()).clamp(1, rest.len());
            while !rest.is_char_boundary(end) {
                end += 1;
            }
            page.feed(&rest[..end]);
            rest = &rest[end..];
        }
        page.finish();
        (page.out, page.lines, page.last_shown, page.capped)
    }

    fn texts() -> Vec<String> {
        let long = "é".repeat(2_500);
        vec![
            String::new(),
            "\n".to_owned(),
            "no line break at the end".to_owned(),
            "a\r".to_owned(),
            format!("short\r\n{long}\nx\r\r\n\n\ttab\r\nmid\rline\n{long}\r\nlast"),
            format!("{}\n", "ab\r".repeat(900)),
            // 200 lines of 3 kB: more than the output cap.
            format!("{}\n", "ü".repeat(1_500)).repeat(200),
        ]
    }

    #[test]
    fn a_page_fed_in_any_chunks_is_the_page_of_the_whole_text() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut random = move |len: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            usize::try_from(seed % (len as u64).min(5_000)).unwrap_or(1)
        };
        for text in texts() {
            for options in [
                (1, 2_000, false),
                (1, 2_000, true),
                (2, 3, false),
                (3, 2, true),
            ] {
                let (first, wanted, anchors) = options;
                let expected = whole(&text, first, wanted, anchors);
                let at_once = streamed(&text, options, |len| len);
                assert_eq!(at_once, expected, "{options:?}, fed at once: {text:?}");
                for round in 0..20 {
                    let got = if round == 0 {
                        streamed(&text, options, |_| 1)
                    } else {
                        streamed(&text, options, &mut random)
                    };
                    assert_eq!(got, expected, "{options:?}, round {round}: {text:?}");
                }
            }
        }
    }

    #[test]
    fn a_long_line_split_across_reads_keeps_the_anchor_of_the_whole_line() {
        let line = format!("{}\r", "x".repeat(3_000));
        let mut page = Page::new(1, 10, true);
        // The second read takes the line past the cut, so the third is not kept; the carriage
        // return ends the third.
        page.feed(&line[..1_000]);
        page.feed(&line[1_000..2_500]);
        page.feed(&line[2_500..]);
        page.feed("\n");
        page.finish();
        assert!(
            page.out
                .starts_with(&format!("1#{}|", fs::anchor(&"x".repeat(3_000)))),
            "{}",
            &page.out[..10]
        );
    }
}

//! `read_artifact`: a page of lines of an output the output limit cut and kept whole (the
//! coordinator's [`Artifacts`] store), numbered like `read_file`'s, saying where to read on.
//!
//! A page is kept under the output limit itself ([`Artifacts::page_chars`]), so that it reaches
//! the model whole instead of being cut and kept again.

use std::fmt::Write as _;

use tool_core::middleware::Artifacts;
use tool_core::{State, ToolError, tool};

/// Lines a page holds when no limit is given.
const DEFAULT_LIMIT: usize = 2_000;
/// Room kept in a page for the note that ends it.
const NOTE_CHARS: usize = 160;
/// Bytes whose line breaks are counted at a time, looking for where a page starts.
const SCAN_CHUNK: usize = 64 * 1024;

/// Read part of an artifact: an output kept whole because it was too long to show (the cut
/// output names its id; `list_artifacts` lists them). Lines come numbered, and the reply says
/// how to read on; a line longer than a page comes a page at a time.
///
/// # Arguments
/// * `id` - The artifact's id, such as `art_1`.
/// * `offset` - The first line to return, counting from 1 (default 1).
/// * `limit` - How many lines to return at most (default 2000).
/// * `column` - The character of line `offset` to start at, counting from 1 (default 1): for a line longer than a page, as the reply says.
#[tool(
    read_only,
    idempotent,
    closed_world,
    name = "read_artifact",
    tags("artifacts")
)]
fn read_artifact(
    artifacts: State<Artifacts>,
    #[serde(alias = "artifact_id")] id: String,
    #[arg(default = 1)] offset: usize,
    #[arg(default = DEFAULT_LIMIT)] limit: usize,
    #[arg(default = 1)] column: usize,
) -> Result<String, ToolError> {
    let id = id.trim();
    let Some(artifact) = artifacts.get(id) else {
        // The store's own message names the ids there are.
        let error = artifacts
            .read(id, 1, 0)
            .err()
            .unwrap_or_else(|| format!("no artifact `{id}`"));
        return Err(ToolError::failed(format!(
            "{error}; list them with list_artifacts"
        )));
    };
    if offset == 0 {
        return Err(ToolError::failed(
            "`offset` counts lines from 1; use offset=1 for the first line",
        ));
    }
    if column == 0 {
        return Err(ToolError::failed(
            "`column` counts characters from 1; use column=1 for the start of the line",
        ));
    }
    if limit == 0 {
        return Err(ToolError::failed(
            "`limit` is 0, which reads nothing; give the number of lines to read (default 2000)",
        ));
    }
    let text = &*artifact.text;
    let total = line_count(text);
    if total == 0 {
        return Ok(format!("[artifact `{id}` is empty]"));
    }
    if offset > total {
        return Err(ToolError::failed(format!(
            "artifact `{id}` has {total} lines, so offset {offset} is past its end; read from an offset between 1 and {total}"
        )));
    }
    let page_chars = artifacts
        .page_chars()
        .map_or(usize::MAX, |chars| chars.saturating_sub(NOTE_CHARS).max(1));
    let mut page = String::new();
    let mut used = 0;
    let mut last = offset - 1;
    // Where the page stopped inside a line too long for it: the next column, the line's length.
    let mut within: Option<(usize, usize)> = None;
    let from = line_start(text, offset);
    for (number, line) in (offset..).zip(text[from..].lines().take(limit)) {
        let start = if number == offset { column } else { 1 };
        let line = if start > 1 {
            let length = line.chars().count();
            match line.char_indices().nth(start - 1) {
                Some((at, _)) => &line[at..],
                None => {
                    return Err(ToolError::failed(format!(
                        "line {number} of artifact `{id}` has {length} characters, so column {start} is past its end; read from a column between 1 and {length}, or leave `column` out"
                    )));
                }
            }
        } else {
            line
        };
        let entry = format!("{number:>6}\t{line}\n");
        let chars = entry.chars().count();
        if used + chars > page_chars {
            if number > offset {
                break;
            }
            // One line longer than a whole page: as much of it as fits, and where to go on.
            let room = page_chars.saturating_sub(20).max(1);
            let head: String = line.chars().take(room).collect();
            let length = start - 1 + line.chars().count();
            page.push_str(&format!("{number:>6}\t{head}\n"));
            last = number;
            within = Some((start + room, length));
            break;
        }
        used += chars;
        page.push_str(&entry);
        last = number;
    }
    if let Some((next, length)) = within {
        let _ = write!(
            page,
            "[line {last}, characters {column}-{} of its {length} characters, of artifact `{id}` ({total} lines); read on with offset={last} column={next}]",
            next - 1
        );
    } else if last < total {
        let _ = write!(
            page,
            "[lines {offset}-{last} of {total} of artifact `{id}`; read on with offset={}]",
            last + 1
        );
    } else {
        let _ = write!(
            page,
            "[lines {offset}-{last} of {total} of artifact `{id}`: the end]"
        );
    }
    Ok(page)
}

/// How many lines `text` has, as [`str::lines`] counts them (a last line without a line
/// break counts; a final line break does not start another).
fn line_count(text: &str) -> usize {
    let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    breaks + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// The byte where line `number` (from 1) of `text` starts; the end of `text` past its last.
/// Whole chunks are passed by counting their line breaks (memchr's vectorized count), and only
/// the chunk holding the line is searched break by break: a search per break would cost more
/// than the count when lines are short.
fn line_start(text: &str, number: usize) -> usize {
    let mut to_pass = number.saturating_sub(1);
    if to_pass == 0 {
        return 0;
    }
    let mut chunk_start = 0;
    for chunk in text.as_bytes().chunks(SCAN_CHUNK) {
        let breaks = memchr::memchr_iter(b'\n', chunk).count();
        if breaks < to_pass {
            to_pass -= breaks;
            chunk_start += chunk.len();
            continue;
        }
        if let Some(at) = memchr::memchr_iter(b'\n', chunk).nth(to_pass - 1) {
            return chunk_start + at + 1;
        }
    }
    text.len()
}

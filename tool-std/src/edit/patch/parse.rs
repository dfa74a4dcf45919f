//! Codex's patch grammar, read as leniently as Codex reads it: markers padded with whitespace,
//! a heredoc wrapper, a first hunk without `@@`, `*** End of File`. Line numbers are those of
//! the patch as sent (1-based), for the errors.

use super::PatchError;

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// A parsed patch: its file operations in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Patch {
    pub operations: Vec<Operation>,
}

/// One file section of the patch; `line` is its header's patch line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Operation {
    /// A new file (an existing one is overwritten, as Codex does); `contents` ends each line
    /// with `\n`.
    Add {
        path: String,
        contents: String,
        line: usize,
    },
    Delete {
        path: String,
        line: usize,
    },
    Update {
        path: String,
        move_to: Option<String>,
        chunks: Vec<Chunk>,
        line: usize,
    },
}

/// One hunk of an update: an optional `@@ context` line, then its lines in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The text after `@@ `: a line (a `fn` or `class` header, usually) found before the hunk.
    pub context: Option<String>,
    pub lines: Vec<ChunkLine>,
    /// `*** End of File`: the hunk's old lines end the file.
    pub end_of_file: bool,
    /// The patch line of the hunk's `@@` (or of its first line when it has none).
    pub line: usize,
}

/// A line of a hunk, without its prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ChunkLine {
    /// ` text` (or an empty line): in the file before and after.
    Context(String),
    /// `-text`: in the file before only.
    Remove(String),
    /// `+text`: in the file after only.
    Add(String),
}

impl Chunk {
    /// The lines the file must have: context and removed.
    pub fn old_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                ChunkLine::Context(s) | ChunkLine::Remove(s) => Some(s.as_str()),
                ChunkLine::Add(_) => None,
            })
            .collect()
    }
}

/// A line of the patch with its 1-based number.
type Numbered<'a> = (usize, &'a str);

fn syntax(line: usize, message: String) -> PatchError {
    PatchError::Syntax { line, message }
}

/// Parses a patch in Codex's format.
pub(crate) fn parse(patch: &str) -> Result<Patch, PatchError> {
    let all: Vec<Numbered> = patch.lines().enumerate().map(|(i, l)| (i + 1, l)).collect();
    // Blank lines around the patch are dropped, as Codex trims the whole text.
    let first = all.iter().position(|(_, l)| !l.trim().is_empty());
    let last = all.iter().rposition(|(_, l)| !l.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return Err(syntax(
            1,
            format!("the patch is empty; expected `{BEGIN}`, the file sections, then `{END}`"),
        ));
    };
    let lines = &all[first..=last];
    let body = match boundaries(lines) {
        Ok(body) => body,
        Err(error) => match heredoc_inner(lines) {
            Some(inner) => boundaries(inner)?,
            None => return Err(error),
        },
    };
    let mut operations = Vec::new();
    let mut rest = body;
    while let Some(&(number, raw)) = rest.first() {
        let (operation, used) = parse_operation(rest, number, raw.trim())?;
        operations.push(operation);
        rest = &rest[used..];
    }
    Ok(Patch { operations })
}

/// The lines between `*** Begin Patch` and `*** End Patch` (each compared trimmed).
fn boundaries<'a, 'b>(lines: &'b [Numbered<'a>]) -> Result<&'b [Numbered<'a>], PatchError> {
    let (first_number, first) = lines[0];
    if first.trim() != BEGIN {
        return Err(syntax(
            first_number,
            format!("expected `{BEGIN}` as the first line, found `{first}`"),
        ));
    }
    let (last_number, last) = lines[lines.len() - 1];
    if lines.len() < 2 || last.trim() != END {
        return Err(syntax(
            last_number,
            format!("expected `{END}` as the last line, found `{last}`"),
        ));
    }
    Ok(&lines[1..lines.len() - 1])
}

/// The lines inside a heredoc wrapper (`<<'EOF'` … `EOF`, optionally after `apply_patch`),
/// when the patch has one.
fn heredoc_inner<'a, 'b>(lines: &'b [Numbered<'a>]) -> Option<&'b [Numbered<'a>]> {
    if lines.len() < 4 {
        return None;
    }
    let opener = lines[0].1.trim();
    let opener = ["apply_patch", "applypatch"]
        .iter()
        .find_map(|cmd| opener.strip_prefix(cmd))
        .map_or(opener, str::trim_start);
    let word = opener.strip_prefix("<<")?;
    let word = word.strip_prefix('-').unwrap_or(word);
    let word = ["'", "\""]
        .iter()
        .find_map(|q| word.strip_prefix(q)?.strip_suffix(q))
        .unwrap_or(word);
    if word.is_empty() || !word.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let closer = lines[lines.len() - 1].1.trim_end();
    // Codex accepts a last line that merely ends with `EOF`.
    closer.ends_with(word).then(|| &lines[1..lines.len() - 1])
}

/// One file section from the start of `lines`, and how many lines it used.
fn parse_operation(
    lines: &[Numbered],
    number: usize,
    header: &str,
) -> Result<(Operation, usize), PatchError> {
    if let Some(path) = header.strip_prefix(ADD) {
        let mut contents = String::new();
        let mut used = 1;
        for (_, line) in &lines[1..] {
            let Some(text) = line.strip_prefix('+') else {
                break;
            };
            contents.push_str(text);
            contents.push('\n');
            used += 1;
        }
        let path = path.to_owned();
        return Ok((
            Operation::Add {
                path,
                contents,
                line: number,
            },
            used,
        ));
    }
    if let Some(path) = header.strip_prefix(DELETE) {
        let path = path.to_owned();
        return Ok((Operation::Delete { path, line: number }, 1));
    }
    let Some(path) = header.strip_prefix(UPDATE) else {
        return Err(syntax(
            number,
            format!(
                "expected `{ADD}<path>`, `{UPDATE}<path>` or `{DELETE}<path>`, found `{header}`"
            ),
        ));
    };
    let mut used = 1;
    let move_to = lines
        .get(1)
        .and_then(|(_, l)| l.trim().strip_prefix(MOVE))
        .map(str::to_owned);
    if move_to.is_some() {
        used += 1;
    }
    let mut chunks = Vec::new();
    while let Some(&(line_number, line)) = lines.get(used) {
        if line.trim().is_empty() {
            used += 1;
            continue;
        }
        if line.starts_with('*') {
            break;
        }
        let (chunk, chunk_used) = parse_chunk(&lines[used..], path, chunks.len() + 1)?;
        debug_assert_eq!(chunk.line, line_number);
        chunks.push(chunk);
        used += chunk_used;
    }
    if chunks.is_empty() {
        return Err(syntax(
            number,
            format!(
                "`{UPDATE}{path}` has no hunks; expected `@@` then lines starting with ` ` \
                 (context), `-` (removed) or `+` (added)"
            ),
        ));
    }
    Ok((
        Operation::Update {
            path: path.to_owned(),
            move_to,
            chunks,
            line: number,
        },
        used,
    ))
}

/// One hunk (`hunk` is its 1-based number in the file section), and how many lines it used.
fn parse_chunk(lines: &[Numbered], path: &str, hunk: usize) -> Result<(Chunk, usize), PatchError> {
    let (number, first) = lines[0];
    let (context, start) = if first == "@@" {
        (None, 1)
    } else if let Some(context) = first.strip_prefix("@@ ") {
        // `@@ ` with only spaces after it names no context line.
        let context = (!context.trim().is_empty()).then(|| context.to_owned());
        (context, 1)
    } else if hunk == 1 {
        (None, 0)
    } else {
        return Err(syntax(
            number,
            format!(
                "expected `@@` (or `@@ <a line of the file>`) to start hunk {hunk} of `{path}`, \
                 found `{first}`"
            ),
        ));
    };
    let no_lines = |line: usize| {
        syntax(
            line,
            format!(
                "hunk {hunk} of `{path}` has no lines; expected lines starting with ` ` \
                 (context), `-` (removed) or `+` (added)"
            ),
        )
    };
    let Some(&(body_number, _)) = lines.get(start) else {
        return Err(no_lines(number + 1));
    };
    let mut chunk = Chunk {
        context,
        lines: Vec::new(),
        end_of_file: false,
        line: number,
    };
    let mut used = 0;
    for &(line_number, line) in &lines[start..] {
        if line == END_OF_FILE {
            if used == 0 {
                return Err(no_lines(body_number));
            }
            chunk.end_of_file = true;
            used += 1;
            break;
        }
        let parsed = match line.chars().next() {
            None => ChunkLine::Context(String::new()),
            Some(' ') => ChunkLine::Context(line[1..].to_owned()),
            Some('-') => ChunkLine::Remove(line[1..].to_owned()),
            Some('+') => ChunkLine::Add(line[1..].to_owned()),
            Some(_) if used == 0 => {
                return Err(syntax(
                    line_number,
                    format!(
                        "hunk {hunk} of `{path}`: expected a line starting with ` ` (context), \
                         `-` (removed) or `+` (added), found `{line}`"
                    ),
                ));
            }
            // The start of the next section.
            Some(_) => break,
        };
        chunk.lines.push(parsed);
        used += 1;
    }
    Ok((chunk, used + start))
}

//! `hashline_edit`: edits addressed by the `LINE#HASH` anchors `read_file` shows with
//! `anchors = true`, so a model names the lines it saw instead of retyping them.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::context::ToolContext;
use tool_core::{ToolError, Workspace, WorkspacePath, tool};

use crate::edit::with_staleness;
use crate::fs::{self, LineEnding, anchor};

/// How far from its line number an anchor's line is looked for when the file moved under it.
const RELOCATE_WITHIN: usize = 20;

/// What an edit does at its anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HashlineOp {
    /// Replace the anchored line (or the lines from `anchor` through `end`) with `text`.
    Replace,
    /// Insert `text` after the anchored line.
    InsertAfter,
    /// Insert `text` before the anchored line.
    InsertBefore,
}

/// One edit of a `hashline_edit` call.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HashlineEditArgs {
    /// What to do.
    pub op: HashlineOp,
    /// The line, as `read_file` showed it with anchors: `12#QK`.
    pub anchor: String,
    /// For `replace`, the last line of the range (`14#ZP`); the anchored line alone without it.
    pub end: Option<String>,
    /// The new lines (empty with `replace` deletes the lines).
    pub text: String,
}

/// Edit a file by line anchors: each edit names lines by the `LINE#HASH` anchors `read_file`
/// shows with `anchors = true`, and replaces them or inserts before or after them. Every anchor
/// is checked against the file before anything changes; a line that moved is found nearby by
/// its hash, and an anchor that no longer matches rejects the whole call with the current
/// anchors of its neighbourhood. The file keeps its encoding, byte order mark and line endings.
///
/// # Arguments
/// * `path` - The file, relative to the workspace root (or absolute inside it).
/// * `edits` - The edits, all referring to the file as it was read.
#[tool(closed_world, blocking, name = "hashline_edit", tags("fs"))]
fn hashline_edit(
    ctx: &ToolContext,
    ws: &Workspace,
    #[serde(alias = "file_path", alias = "filePath", alias = "absolute_path")] path: WorkspacePath,
    edits: Vec<HashlineEditArgs>,
) -> Result<String, ToolError> {
    let shown = path.sent().display().to_string();
    if edits.is_empty() {
        return Err(ToolError::failed(
            "`edits` is empty: give at least one edit",
        ));
    }
    let (reply, stale) = fs::modify(ctx, ws, &path, |text| apply(&shown, text, &edits))?;
    Ok(with_staleness(reply, &shown, stale))
}

/// A line of the file: its text (without its break) and its break.
struct Line<'a> {
    text: &'a str,
    ending: &'a str,
}

fn split(text: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (line, after) = match rest.find('\n') {
            Some(end) => (&rest[..=end], &rest[end + 1..]),
            None => (rest, ""),
        };
        let (body, ending) = if let Some(body) = line.strip_suffix("\r\n") {
            (body, "\r\n")
        } else if let Some(body) = line.strip_suffix('\n') {
            (body, "\n")
        } else {
            (line, "")
        };
        lines.push(Line { text: body, ending });
        rest = after;
    }
    lines
}

/// An edit with its anchors resolved to 0-based line indexes.
struct Resolved<'a> {
    op: HashlineOp,
    first: usize,
    last: usize,
    text: &'a str,
}

fn apply(
    shown: &str,
    text: &str,
    edits: &[HashlineEditArgs],
) -> Result<(String, String), ToolError> {
    let lines = split(text);
    let mut notes = Vec::new();
    let mut resolved = Vec::new();
    for (index, edit) in edits.iter().enumerate() {
        let mut at = |anchor: &str| resolve(shown, &lines, anchor, index, edits.len(), &mut notes);
        let first = at(&edit.anchor)?;
        let last = match (&edit.end, edit.op) {
            (Some(end), HashlineOp::Replace) => at(end)?,
            (Some(_), _) => {
                return Err(ToolError::failed(format!(
                    "edit {} of {}: `end` goes only with `replace`; `{:?}` takes one anchor",
                    index + 1,
                    edits.len(),
                    edit.op
                )));
            }
            (None, _) => first,
        };
        if last < first {
            return Err(ToolError::failed(format!(
                "edit {} of {}: `end` ({}) comes before `anchor` ({}); give the range first line first",
                index + 1,
                edits.len(),
                edit.end.as_deref().unwrap_or_default(),
                edit.anchor
            )));
        }
        resolved.push(Resolved {
            op: edit.op,
            first,
            last,
            text: &edit.text,
        });
    }
    // Bottom-up, so that each edit's lines are where the model saw them; at one line, what goes
    // after it first, then the line itself, then what goes before it.
    let rank = |op: HashlineOp| match op {
        HashlineOp::InsertAfter => 2,
        HashlineOp::Replace => 1,
        HashlineOp::InsertBefore => 0,
    };
    resolved.sort_by_key(|edit| std::cmp::Reverse((edit.first, rank(edit.op))));
    check_overlaps(&resolved)?;
    let newline = LineEnding::of(text).for_new_lines();
    let mut out: Vec<String> = lines
        .iter()
        .map(|line| format!("{}{}", line.text, line.ending))
        .collect();
    for edit in &resolved {
        let mut new_lines: Vec<String> = edit
            .text
            .split_inclusive('\n')
            .map(|line| {
                let body = line.trim_end_matches('\n').trim_end_matches('\r');
                format!("{body}{newline}")
            })
            .collect();
        match edit.op {
            HashlineOp::Replace => {
                // The last replaced line's break goes with the last new line (a file without
                // a final break keeps none).
                if let (Some(last_new), Some(old_last)) =
                    (new_lines.last_mut(), lines.get(edit.last))
                {
                    let body = last_new
                        .trim_end_matches('\n')
                        .trim_end_matches('\r')
                        .to_owned();
                    *last_new = format!("{body}{}", old_last.ending);
                }
                out.splice(edit.first..=edit.last, new_lines);
            }
            HashlineOp::InsertAfter => {
                if lines[edit.first].ending.is_empty() {
                    // The anchored line was the last and had no break: it gets one.
                    out[edit.first].push_str(newline);
                    if let Some(last_new) = new_lines.last_mut() {
                        let body = last_new
                            .trim_end_matches('\n')
                            .trim_end_matches('\r')
                            .to_owned();
                        *last_new = body;
                    }
                }
                out.splice(edit.first + 1..edit.first + 1, new_lines);
            }
            HashlineOp::InsertBefore => {
                out.splice(edit.first..edit.first, new_lines);
            }
        }
    }
    let new_text: String = out.concat();
    let mut reply = format!(
        "Edited `{shown}`: {} edit{}.",
        edits.len(),
        if edits.len() == 1 { "" } else { "s" }
    );
    for note in notes {
        let _ = write!(reply, " {note}");
    }
    Ok((new_text, reply))
}

/// Refuses edits that collide with a `replace` range, comparing every pair (edits are few): two
/// replaced ranges that share a line, or an insertion anchored inside a replaced range. An
/// insertion exactly at a boundary of the range is well-defined and allowed: `insert_before` its
/// first line, `insert_after` its last line (the text lands just outside what is replaced).
fn check_overlaps(resolved: &[Resolved<'_>]) -> Result<(), ToolError> {
    let lines = |edit: &Resolved<'_>| {
        if edit.first == edit.last {
            format!("line {}", edit.first + 1)
        } else {
            format!("lines {}-{}", edit.first + 1, edit.last + 1)
        }
    };
    let name = |op: HashlineOp| match op {
        HashlineOp::Replace => "replace",
        HashlineOp::InsertAfter => "insert_after",
        HashlineOp::InsertBefore => "insert_before",
    };
    for (i, replace) in resolved.iter().enumerate() {
        if replace.op != HashlineOp::Replace {
            continue;
        }
        for (j, other) in resolved.iter().enumerate() {
            if i == j {
                continue;
            }
            match other.op {
                HashlineOp::Replace => {
                    if i < j && other.first <= replace.last && replace.first <= other.last {
                        return Err(ToolError::failed(format!(
                            "two edits replace overlapping lines ({} and {}); merge them into one replace",
                            lines(replace),
                            lines(other)
                        )));
                    }
                }
                HashlineOp::InsertAfter | HashlineOp::InsertBefore => {
                    let at = other.first;
                    let inside = at >= replace.first && at <= replace.last;
                    let at_boundary = (other.op == HashlineOp::InsertBefore && at == replace.first)
                        || (other.op == HashlineOp::InsertAfter && at == replace.last);
                    if inside && !at_boundary {
                        return Err(ToolError::failed(format!(
                            "an `{}` at line {} falls inside an edit that replaces {} (overlapping edits); put its text into that replace's `text` instead, or anchor it on the range's first line with `insert_before` or its last line with `insert_after`",
                            name(other.op),
                            at + 1,
                            lines(replace)
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The 0-based line an anchor names: the line at its number when the hash matches there, else
/// the one line within [`RELOCATE_WITHIN`] lines whose hash matches (noted in the reply).
fn resolve(
    shown: &str,
    lines: &[Line<'_>],
    anchor_text: &str,
    index: usize,
    count: usize,
    notes: &mut Vec<String>,
) -> Result<usize, ToolError> {
    let which = format!("edit {} of {}", index + 1, count);
    let Some((number, hash)) = anchor_text
        .split_once('#')
        .and_then(|(number, hash)| Some((number.trim().parse::<usize>().ok()?, hash.trim())))
        .filter(|(number, hash)| *number >= 1 && hash.len() == 2)
    else {
        return Err(ToolError::failed(format!(
            "{which}: `{anchor_text}` is not an anchor; anchors look like `12#QK`, as read_file shows them with anchors=true"
        )));
    };
    let at = number - 1;
    if lines.get(at).is_some_and(|line| anchor(line.text) == hash) {
        return Ok(at);
    }
    let low = at.saturating_sub(RELOCATE_WITHIN);
    let high = (at + RELOCATE_WITHIN).min(lines.len().saturating_sub(1));
    let matches: Vec<usize> = (low..=high.max(low))
        .filter(|&i| lines.get(i).is_some_and(|line| anchor(line.text) == hash))
        .collect();
    if let [moved] = matches.as_slice() {
        notes.push(format!(
            "The line of `{anchor_text}` had moved to line {}; the edit was made there.",
            moved + 1
        ));
        return Ok(*moved);
    }
    let around_low = at.saturating_sub(3).min(lines.len().saturating_sub(1));
    let around_high = (at + 3).min(lines.len().saturating_sub(1));
    let mut current = String::new();
    for i in around_low..=around_high {
        if let Some(line) = lines.get(i) {
            let _ = writeln!(current, "{}#{}|{}", i + 1, anchor(line.text), line.text);
        }
    }
    Err(ToolError::failed(format!(
        "{which}: `{anchor_text}` no longer matches `{shown}` (it has {} lines; the line changed, or the file did), so no edit was made. The lines around line {number} now:\n{current}Use these anchors, or read the file again.",
        lines.len()
    )))
}

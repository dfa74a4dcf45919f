//! Applying one edit or a sequence of them to the file's decoded text: the bytes outside the
//! replaced span stay as they were, and the new text takes the line ends of what it replaces.

use super::ladder::{self, Found, Hit, MatchLevel};
use super::normalize::unescape;
use super::report::{self, EditError};
use super::text::{eol_for, line_of, split_lines, with_eol};

/// A successful edit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Applied {
    /// The whole text after the edit, line ends as the file has them.
    pub text: String,
    /// How `old_string` was found.
    pub level: MatchLevel,
    /// 1-based first and last line of the new text (for `replace_all`, from the first
    /// replacement to the last). A deletion spans the one line now where the text was.
    pub span: (usize, usize),
    /// How many places were replaced (1 unless `replace_all`).
    pub replacements: usize,
}

/// One edit of a `multi_edit` call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Edit<'a> {
    pub old: &'a str,
    pub new: &'a str,
    pub replace_all: bool,
}

/// Replaces `old` by `new` in `text`, climbing the ladder (see [`MatchLevel`]); `replace_all`
/// replaces every occurrence and only at the first two levels.
pub(crate) fn apply_edit(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<Applied, EditError> {
    if old == new {
        return Err(EditError::Identical);
    }
    if old.is_empty() {
        if !text.is_empty() {
            return Err(EditError::Empty);
        }
        // An empty file takes the new text as sent: it has no line ends of its own to follow.
        let span = (1, split_lines(new).len().max(1));
        return Ok(Applied {
            text: new.to_owned(),
            level: MatchLevel::Exact,
            span,
            replacements: 1,
        });
    }
    let lines = split_lines(text);
    let Some(found) = ladder::find(text, &lines, old, replace_all) else {
        // A one-line old_string full of literal `\n`s is compared as the lines it stands for.
        let unescaped = unescape(old);
        let like = if !old.contains('\n') && unescaped.contains('\n') {
            &unescaped
        } else {
            old
        };
        let closest = report::closest(text, &lines, like);
        return Err(EditError::NotFound {
            closest,
            exact_only: replace_all,
        });
    };
    if found.hits.len() > 1 && !replace_all {
        let lines = found
            .hits
            .iter()
            .map(|h| line_of(text, h.range.start))
            .collect();
        return Err(EditError::Ambiguous {
            level: found.level,
            lines,
        });
    }
    // A model that escaped old_string escaped new_string too, unless new_string has real line
    // breaks, which shows it was written as meant.
    let new = if found.level == MatchLevel::Unescaped && !new.contains('\n') {
        unescape(new)
    } else {
        new.to_owned()
    };
    let applied = replace(text, &found, &new)?;
    if applied.text == text {
        return Err(EditError::Unchanged { level: found.level });
    }
    Ok(applied)
}

/// Applies `edits` in order, each to the result of the one before; the first failure stops
/// everything and names its index, so the caller writes only on `Ok`. Each `Applied` carries
/// the text and span as they were right after that edit.
pub(crate) fn apply_edits(
    text: &str,
    edits: &[Edit<'_>],
) -> Result<(String, Vec<Applied>), (usize, EditError)> {
    let mut current = text.to_owned();
    let mut applied = Vec::with_capacity(edits.len());
    for (i, edit) in edits.iter().enumerate() {
        let step =
            apply_edit(&current, edit.old, edit.new, edit.replace_all).map_err(|e| (i, e))?;
        current.clone_from(&step.text);
        applied.push(step);
    }
    Ok((current, applied))
}

fn replace(text: &str, found: &Found, new: &str) -> Result<Applied, EditError> {
    let mut out = String::with_capacity(text.len() + new.len());
    let mut copied = 0;
    let mut first_start = 0;
    for (i, hit) in found.hits.iter().enumerate() {
        out.push_str(&text[copied..hit.range.start]);
        if i == 0 {
            first_start = out.len();
        }
        out.push_str(&render(text, hit, found, new)?);
        copied = hit.range.end;
    }
    let last_end = out.len();
    out.push_str(&text[copied..]);
    let start = line_of(&out, first_start);
    let end = if last_end > first_start {
        line_of(&out, last_end - 1)
    } else {
        start
    };
    Ok(Applied {
        text: out,
        level: found.level,
        span: (start, end),
        replacements: found.hits.len(),
    })
}

/// The new text as it goes in at `hit`: re-indented if the block moved, then with the line
/// ends of what it replaces.
fn render(text: &str, hit: &Hit, found: &Found, new: &str) -> Result<String, EditError> {
    let lf = new.replace("\r\n", "\n");
    let mut shaped =
        match &hit.shift {
            Some(shift) => shift.apply(&lf, &found.block.lines).map_err(|unclear| {
                EditError::UnclearIndent {
                    line: line_of(text, hit.range.start),
                    file_unit: unclear.file_unit,
                    model_unit: unclear.model_unit,
                }
            })?,
            None => lf,
        };
    if hit.drop_final_newline && shaped.ends_with('\n') {
        shaped.pop();
    }
    Ok(with_eol(&shaped, eol_for(text, hit.range.clone())))
}

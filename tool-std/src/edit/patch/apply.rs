//! One file's update: each hunk found by Codex's ladder, from where the previous one ended,
//! and the new text built from the file's own bytes wherever the patch does not change them.

use super::{Chunk, ChunkLine, PatchError};

/// A line of the file: its content and its line break (`\n`, `\r\n`, or none at the end).
#[derive(Debug, Clone, Copy)]
struct Line<'t> {
    content: &'t str,
    eol: &'t str,
}

/// Splits on `\n`; a `\r` right before it belongs to the line break, a lone `\r` is content.
fn split_lines(text: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (line, next) = match rest.find('\n') {
            Some(i) => (&rest[..=i], &rest[i + 1..]),
            None => (rest, ""),
        };
        let body = line.strip_suffix('\n').unwrap_or(line);
        let content = body.strip_suffix('\r').filter(|_| line.ends_with('\n'));
        let content = content.unwrap_or(body);
        lines.push(Line {
            content,
            eol: &line[content.len()..],
        });
        rest = next;
    }
    lines
}

/// Codex's `seek_sequence` punctuation (typographic dashes, quotes and odd spaces as ASCII),
/// on the trimmed line: the edit ladder's mapping, shared.
fn ascii_punctuation(s: &str) -> String {
    crate::edit::ascii_punctuation(s.trim())
}

/// Where `pattern` starts in `lines` at or after `from`, by the first rung of the ladder that
/// finds it anywhere: exact, trailing whitespace ignored, trimmed, punctuation normalized. With
/// `end_of_file`, only the position that ends the file is tried.
pub(super) fn seek(
    lines: &[&str],
    pattern: &[&str],
    from: usize,
    end_of_file: bool,
) -> Option<usize> {
    if pattern.is_empty() {
        return Some(from);
    }
    if pattern.len() > lines.len() {
        return None;
    }
    let last = lines.len() - pattern.len();
    let from = if end_of_file { last.max(from) } else { from };
    let find = |same: &dyn Fn(&str, &str) -> bool| {
        (from..=last).find(|&i| pattern.iter().zip(&lines[i..]).all(|(p, l)| same(l, p)))
    };
    find(&|a, b| a == b)
        .or_else(|| find(&|a, b| a.trim_end() == b.trim_end()))
        .or_else(|| find(&|a, b| a.trim() == b.trim()))
        .or_else(|| find(&|a, b| ascii_punctuation(a) == ascii_punctuation(b)))
}

/// A located hunk: it replaces `len` file lines from `start` by walking `ops`.
struct Replacement {
    start: usize,
    len: usize,
    ops: Vec<ChunkLine>,
}

/// Applies an update's hunks to a file's decoded text (`path` only names it in errors).
pub(crate) fn apply_update(path: &str, text: &str, chunks: &[Chunk]) -> Result<String, PatchError> {
    let lines = split_lines(text);
    let contents: Vec<&str> = lines.iter().map(|l| l.content).collect();
    let mut replacements = Vec::new();
    let mut at = 0;
    for (i, chunk) in chunks.iter().enumerate() {
        let hunk = i + 1;
        if let Some(context) = &chunk.context {
            match seek(&contents, &[context.as_str()], at, false) {
                Some(k) => at = k + 1,
                None => {
                    let after = if at == 0 {
                        String::new()
                    } else {
                        format!(" after line {at}, where hunk {} ended", hunk - 1)
                    };
                    return Err(PatchError::ContextNotFound {
                        path: path.to_owned(),
                        hunk,
                        line: chunk.line,
                        context: context.clone(),
                        after,
                    });
                }
            }
        }
        let mut ops = chunk.lines.clone();
        let mut old = chunk.old_lines();
        if old.is_empty() {
            // Codex appends a hunk of added lines only at the end of the file.
            replacements.push(Replacement {
                start: lines.len(),
                len: 0,
                ops,
            });
            continue;
        }
        let mut found = seek(&contents, &old, at, chunk.end_of_file);
        if found.is_none() && old.last() == Some(&"") {
            // As Codex: a last empty line may stand for the file's final line break; retry
            // without it.
            old.pop();
            found = seek(&contents, &old, at, chunk.end_of_file);
            if found.is_some() {
                let k = ops
                    .iter()
                    .rposition(|op| !matches!(op, ChunkLine::Add(_)))
                    .expect("the old lines come from the ops");
                ops.remove(k);
            }
        }
        let Some(start) = found else {
            return Err(not_found(path, hunk, chunk, &contents));
        };
        replacements.push(Replacement {
            start,
            len: old.len(),
            ops,
        });
        at = start + old.len();
    }
    replacements.sort_by_key(|r| r.start);
    Ok(build(&lines, &replacements, text))
}

/// The line break new lines take: the majority among the file lines a hunk replaces, else the
/// file's majority (LF when it has none).
fn eol_of(lines: &[Line]) -> &'static str {
    let crlf = lines.iter().filter(|l| l.eol == "\r\n").count();
    let lf = lines.iter().filter(|l| l.eol == "\n").count();
    if crlf > lf { "\r\n" } else { "\n" }
}

fn build(lines: &[Line], replacements: &[Replacement], text: &str) -> String {
    let file_eol = eol_of(lines);
    // (content, line break, whether the line is the file's own).
    let mut out: Vec<(&str, &str, bool)> = Vec::with_capacity(lines.len());
    let mut next = 0;
    for r in replacements {
        out.extend(
            lines[next..r.start]
                .iter()
                .map(|l| (l.content, l.eol, true)),
        );
        let covered = &lines[r.start..r.start + r.len];
        let eol = if covered.iter().any(|l| !l.eol.is_empty()) {
            eol_of(covered)
        } else {
            file_eol
        };
        let mut j = r.start;
        for op in &r.ops {
            match op {
                ChunkLine::Context(_) => {
                    out.push((lines[j].content, lines[j].eol, true));
                    j += 1;
                }
                ChunkLine::Remove(_) => j += 1,
                ChunkLine::Add(s) => out.push((s, eol, false)),
            }
        }
        next = r.start + r.len;
    }
    out.extend(lines[next..].iter().map(|l| (l.content, l.eol, true)));
    let mut result = String::with_capacity(text.len() + 64);
    let count = out.len();
    for (i, (content, eol, _)) in out.iter().enumerate() {
        result.push_str(content);
        // A line that lost its place at the end of the file gets a line break.
        if eol.is_empty() && i + 1 < count {
            result.push_str(file_eol);
        } else {
            result.push_str(eol);
        }
    }
    result
}

/// The not-found error, with the closest block of the file when there is a fair one.
fn not_found(path: &str, hunk: usize, chunk: &Chunk, contents: &[&str]) -> PatchError {
    let old = chunk.old_lines();
    let expected: String = old.iter().map(|l| format!("  {l}\n")).collect();
    let closest = closest(contents, &old)
        .map(|start| {
            let end = (start + old.len()).min(contents.len());
            let block: String = (start..end)
                .map(|i| format!("  {:>4} | {}\n", i + 1, contents[i]))
                .collect();
            format!(
                "the closest is at line {}:\n{block}Re-read the file and resend the hunk with \
                 its context and `-` lines as the file has them.",
                start + 1
            )
        })
        .unwrap_or_else(|| {
            "nothing in the file is close; re-read it and resend the hunk with its context and \
             `-` lines as the file has them."
                .to_owned()
        });
    PatchError::NotFound {
        path: path.to_owned(),
        hunk,
        line: chunk.line,
        expected,
        closest,
    }
}

/// The start of the block of the file most like `pattern`, line by line (trimmed), when it is
/// at least half alike. Large files compare the first line only.
fn closest(contents: &[&str], pattern: &[&str]) -> Option<usize> {
    if contents.is_empty() || pattern.is_empty() {
        return None;
    }
    let pattern = if contents.len() * pattern.len() > 20_000 {
        &pattern[..1]
    } else {
        pattern
    };
    let score = |start: usize| -> f64 {
        let sum: f64 = pattern
            .iter()
            .zip(&contents[start..])
            .map(|(p, l)| strsim::normalized_levenshtein(p.trim(), l.trim()))
            .sum();
        sum / pattern.len() as f64
    };
    let (best, value) = (0..contents.len())
        .map(|start| (start, score(start)))
        .fold((0, f64::MIN), |acc, x| if x.1 > acc.1 { x } else { acc });
    (value >= 0.5).then_some(best)
}

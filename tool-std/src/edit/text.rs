//! The file's text as lines with their byte ranges and line endings, so the ladder can compare
//! lines while the replacement works on the original bytes.

use std::ops::Range;

/// One line of the file: where its content and its terminator (`\n`, `\r\n` or none) lie.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Line {
    pub start: usize,
    /// End of the content, before any `\r\n` or `\n`.
    pub content_end: usize,
    /// End of the line including its terminator.
    pub end: usize,
}

impl Line {
    pub fn content<'t>(&self, text: &'t str) -> &'t str {
        &text[self.start..self.content_end]
    }
}

/// Splits on `\n`; a `\r` right before it belongs to the terminator, a lone `\r` stays content.
/// A text ending in a line end has no empty last line; an empty text has no lines.
pub(super) fn split_lines(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            let content_end = if i > start && text.as_bytes()[i - 1] == b'\r' {
                i - 1
            } else {
                i
            };
            lines.push(Line {
                start,
                content_end,
                end: i + 1,
            });
            start = i + 1;
        }
    }
    if start < text.len() {
        lines.push(Line {
            start,
            content_end: text.len(),
            end: text.len(),
        });
    }
    lines
}

/// The 1-based line number holding byte `offset`.
pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Counts `\r\n` and lone `\n` line ends.
fn count_line_ends(text: &str) -> (usize, usize) {
    let crlf = text.matches("\r\n").count();
    let all = text.bytes().filter(|&b| b == b'\n').count();
    (crlf, all - crlf)
}

/// The file's usual line end: CRLF when most of its line ends are CRLF, LF otherwise (and for
/// a file without any).
pub(super) fn dominant_eol(text: &str) -> &'static str {
    let (crlf, lf) = count_line_ends(text);
    if crlf > lf { "\r\n" } else { "\n" }
}

/// The line end the new text takes where it replaces `range`: the majority inside the
/// replaced block; for a block without line ends, the end of the line it sits on; for the last
/// line, the file's usual one.
pub(super) fn eol_for(text: &str, range: Range<usize>) -> &'static str {
    let (crlf, lf) = count_line_ends(&text[range.clone()]);
    if crlf > lf {
        return "\r\n";
    }
    if lf > crlf {
        return "\n";
    }
    if crlf == 0 {
        let rest = &text[range.end..];
        if let Some(i) = rest.find('\n') {
            return if rest[..i].ends_with('\r') {
                "\r\n"
            } else {
                "\n"
            };
        }
    }
    dominant_eol(text)
}

/// Rewrites every line end of `s` (LF or CRLF) as `eol`.
pub(super) fn with_eol(s: &str, eol: &str) -> String {
    let lf = s.replace("\r\n", "\n");
    if eol == "\n" {
        lf
    } else {
        lf.replace('\n', eol)
    }
}

/// The model's `old_string` as lines: line ends normalized, and a final line end remembered
/// instead of producing an empty last line.
#[derive(Debug, Clone)]
pub(super) struct Block {
    pub lines: Vec<String>,
    pub ends_with_newline: bool,
}

impl Block {
    pub fn new(old: &str) -> Self {
        let lf = old.replace("\r\n", "\n");
        let ends_with_newline = lf.ends_with('\n');
        let body = if ends_with_newline {
            &lf[..lf.len() - 1]
        } else {
            &lf[..]
        };
        Block {
            lines: body.split('\n').map(str::to_owned).collect(),
            ends_with_newline,
        }
    }
}

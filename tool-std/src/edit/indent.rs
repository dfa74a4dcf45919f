//! Re-indenting the new text when the block was found at another indentation than the model
//! wrote: every line moves by the difference between the file's and the model's indentation
//! of the block's first non-blank line, in the file's own indent character. A file indented
//! with tabs keeps tabs even when the model wrote spaces (claude-code#9163, "edits fail on
//! tabs").

use super::normalize::indentation;

/// How the model's indentation maps onto the file's for one matched block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shift {
    /// Indentation of the block's first non-blank line as the model wrote it.
    model: String,
    /// The same line's indentation in the file.
    file: String,
    /// The file indents this block with tabs.
    file_tabs: bool,
}

impl Shift {
    /// `file_lines` are the matched lines of the file, `model_lines` the model's; `None` when
    /// the first non-blank lines already agree, so the new text goes in as written.
    pub fn between(file_lines: &[&str], model_lines: &[String]) -> Option<Shift> {
        let first = model_lines.iter().position(|l| !l.trim().is_empty())?;
        let model = indentation(&model_lines[first]);
        let file = indentation(file_lines[first]);
        if model == file {
            return None;
        }
        let file_tabs = if file.is_empty() {
            file_lines.iter().any(|l| l.starts_with('\t'))
        } else {
            file.contains('\t')
        };
        Some(Shift {
            model: model.to_owned(),
            file: file.to_owned(),
            file_tabs,
        })
    }

    /// Re-indents `new` (line ends already `\n`). `old_lines` help guess how many columns the
    /// model's indent step is, to turn its spaces into the file's tabs.
    pub fn apply(&self, new: &str, old_lines: &[String]) -> String {
        let unit = indent_unit(old_lines.iter().map(String::as_str).chain(new.split('\n')));
        let width = |s: &str| -> i64 {
            s.chars()
                .map(|c| if c == '\t' { unit as i64 } else { 1 })
                .sum()
        };
        let offset = width(&self.file) - width(&self.model);
        let lines: Vec<String> = new
            .split('\n')
            .map(|line| {
                if line.trim().is_empty() {
                    return line.to_owned();
                }
                let indent = indentation(line);
                let cols = (width(indent) + offset).max(0) as usize;
                let prefix = if self.file_tabs {
                    "\t".repeat(cols / unit) + &" ".repeat(cols % unit)
                } else {
                    " ".repeat(cols)
                };
                prefix + &line[indent.len()..]
            })
            .collect();
        lines.join("\n")
    }
}

/// The model's indent step in columns: the greatest common divisor of its space-only
/// indentation widths, or 4 when that says nothing (no such lines, or a step of 1).
fn indent_unit<'a>(lines: impl Iterator<Item = &'a str>) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let step = lines
        .filter(|l| !l.trim().is_empty())
        .map(indentation)
        .filter(|i| !i.is_empty() && i.bytes().all(|b| b == b' '))
        .fold(0, |g, i| gcd(g, i.len()));
    if step < 2 { 4 } else { step }
}

//! What the model reads back: the errors, the closest candidate when nothing matched, and the
//! numbered lines around an edit.

use super::ladder::MatchLevel;
use super::normalize::visible;
use super::text::{Block, Line, split_lines};

/// Below this similarity a "closest" block is noise, and the model is better told to re-read.
const MIN_SIMILARITY: f64 = 0.5;

/// Why an edit was not applied, worded for the model that asked for it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum EditError {
    /// `old_string == new_string`.
    #[error(
        "old_string and new_string are identical, so there is nothing to change; put the text \
         as it should read after the edit in new_string"
    )]
    Identical,
    /// An empty `old_string` on a file that has content.
    #[error(
        "old_string is empty but the file is not; to replace the whole file use write_file, \
         otherwise put the text to change, with a line or two around it, in old_string"
    )]
    Empty,
    /// Found more than once at the first level that found it at all.
    #[error("{}", ambiguous(.level, .lines))]
    Ambiguous {
        /// The level that found the occurrences.
        level: MatchLevel,
        /// 1-based line where each occurrence starts.
        lines: Vec<usize>,
    },
    /// No level found it.
    #[error("{}", not_found(.closest.as_ref(), *.exact_only))]
    NotFound {
        /// The most similar block of the file, when one is similar enough to help.
        closest: Option<Candidate>,
        /// Only the exact levels were tried (`replace_all`).
        exact_only: bool,
    },
    /// It matched, but replacing it leaves the file as it was.
    #[error(
        "old_string was found ({}) but the edit would not change the file: new_string differs \
         from old_string only in what that match ignores",
        .level.describe()
    )]
    Unchanged {
        /// The level that found it.
        level: MatchLevel,
    },
    /// It matched at another indentation, `new_string` nests its lines, and nothing shows
    /// how the model's indent steps map onto the file's.
    #[error("{}", unclear_indent(*.line, *.file_unit, *.model_unit))]
    UnclearIndent {
        /// 1-based line where the block starts.
        line: usize,
        /// The file's indent unit in columns, when one could be told.
        file_unit: Option<usize>,
        /// The model's, likewise.
        model_unit: Option<usize>,
    },
}

fn unclear_indent(line: usize, file: Option<usize>, model: Option<usize>) -> String {
    let unit = |u: Option<usize>| match u {
        Some(n) => format!("{n} columns"),
        None => "unclear (two step sizes are equally common)".to_owned(),
    };
    format!(
        "old_string was found at line {line} at another indentation than it was written with, \
         and new_string nests lines deeper or shallower than its first line, but how one \
         indent step of yours maps onto the file's cannot be told (the file's step: {}; yours: \
         {}), so nothing was changed; write old_string and new_string with the file's own \
         indentation, as read_file shows it",
        unit(file),
        unit(model)
    )
}

/// The block of the file most like `old_string`, offered when nothing matched.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    /// 1-based first and last line.
    pub lines: (usize, usize),
    /// 0 to 1: mean similarity of its lines to the model's, ignoring surrounding whitespace.
    pub similarity: f64,
    /// The first line that differs, both ways, whitespace made visible.
    pub first_difference: Difference,
}

/// One line where `old_string` and the file part, rendered with [`visible`] whitespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Difference {
    /// 1-based line of the file.
    pub line: usize,
    /// The model's line.
    pub expected: String,
    /// The file's line (`(end of file)` past the last one).
    pub found: String,
}

fn ambiguous(level: &MatchLevel, lines: &[usize]) -> String {
    let how = match level {
        MatchLevel::Exact => String::new(),
        other => format!(" ({})", other.describe()),
    };
    let fix = if MatchLevel::EXACT_ONLY.contains(level) {
        "add surrounding lines to old_string so it matches once, or set replace_all to change \
         every occurrence"
    } else {
        "add surrounding lines to old_string so it matches once (replace_all only takes exact \
         matches)"
    };
    format!(
        "old_string was found {} times{how}, at lines {}; {fix}",
        lines.len(),
        list(lines)
    )
}

fn not_found(closest: Option<&Candidate>, exact_only: bool) -> String {
    let tried = if exact_only {
        "old_string was not found in the file (with replace_all only exact matches count, line \
         endings aside)"
    } else {
        "old_string was not found in the file, not even ignoring whitespace, indentation, \
         Unicode punctuation or literal escapes"
    };
    let Some(c) = closest else {
        return format!(
            "{tried}, and no part of the file is similar; read the file again and copy the text \
             to change exactly"
        );
    };
    let d = &c.first_difference;
    format!(
        "{tried}.\nThe closest text is at lines {}-{} ({}% similar); the first difference is on \
         line {}:\n  old_string: {}\n  file:       {}\n(whitespace shown as · space, → tab, ⍽ \
         other space) Read those lines again and copy them into old_string exactly.",
        c.lines.0,
        c.lines.1,
        (c.similarity * 100.0).floor(),
        d.line,
        d.expected,
        d.found,
    )
}

/// "3", "3 and 9", "3, 9 and 12"; long lists end in "…".
fn list(lines: &[usize]) -> String {
    const SHOWN: usize = 10;
    let shown: Vec<String> = lines.iter().take(SHOWN).map(usize::to_string).collect();
    match shown.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] if lines.len() <= SHOWN => format!("{} and {last}", init.join(", ")),
        all => format!("{}, …", all.join(", ")),
    }
}

/// The block of the file most similar to `old_string`, comparing line by line with surrounding
/// whitespace trimmed; `None` below [`MIN_SIMILARITY`]. Windows that cannot beat the best so
/// far (by line lengths alone) are skipped, so a large file stays cheap.
pub(super) fn closest(text: &str, lines: &[Line], old: &str) -> Option<Candidate> {
    let block = Block::new(old);
    let (n, k) = (lines.len(), block.lines.len());
    if n == 0 {
        return None;
    }
    let file: Vec<&str> = lines.iter().map(|l| l.content(text).trim()).collect();
    let model: Vec<&str> = block.lines.iter().map(|l| l.trim()).collect();
    let file_len: Vec<usize> = file.iter().map(|l| l.chars().count()).collect();
    let model_len: Vec<usize> = model.iter().map(|l| l.chars().count()).collect();
    let bound = |a: usize, b: usize| match a.max(b) {
        0 => 1.0,
        max => a.min(b) as f64 / max as f64,
    };

    let mut best: Option<(usize, f64)> = None;
    for s in 0..=n.saturating_sub(k) {
        let best_sum = best.map_or(MIN_SIMILARITY * k as f64, |(_, sim)| sim * k as f64);
        let bounds: Vec<f64> = (0..k)
            .map(|j| file_len.get(s + j).map_or(0.0, |&f| bound(f, model_len[j])))
            .collect();
        let mut remaining: f64 = bounds.iter().sum();
        if remaining < best_sum {
            continue;
        }
        let mut sum = 0.0;
        for j in 0..k {
            remaining -= bounds[j];
            if let Some(line) = file.get(s + j) {
                sum += strsim::normalized_levenshtein(line, model[j]);
            }
            if sum + remaining < best_sum {
                break;
            }
        }
        if sum >= best_sum && best.is_none_or(|(_, sim)| sum > sim * k as f64) {
            best = Some((s, sum / k as f64));
        }
    }
    let (s, similarity) = best?;
    let count = k.min(n - s);
    Some(Candidate {
        lines: (s + 1, s + count),
        similarity,
        first_difference: first_difference(text, &lines[s..s + count], &block, s),
    })
}

/// The first line whose content differs from the model's, whitespace included.
fn first_difference(text: &str, file: &[Line], block: &Block, start: usize) -> Difference {
    let at = (0..block.lines.len())
        .find(|&j| {
            file.get(j)
                .is_none_or(|l| l.content(text) != block.lines[j])
        })
        .unwrap_or(block.lines.len() - 1);
    Difference {
        line: start + at + 1,
        expected: visible(&block.lines[at]),
        found: file
            .get(at)
            .map_or_else(|| "(end of file)".to_owned(), |l| visible(l.content(text))),
    }
}

/// The lines `span` (1-based, inclusive) of `text` with `context` lines either side, numbered
/// like `cat -n`; a span longer than 20 lines shows its first and last 10 around a `⋮`.
pub(crate) fn snippet(text: &str, span: (usize, usize), context: usize) -> String {
    const HALF: usize = 10;
    let lines = split_lines(text);
    if lines.is_empty() {
        return String::new();
    }
    let from = span.0.saturating_sub(context).max(1);
    let to = (span.1 + context).min(lines.len());
    let mut out = String::new();
    let mut n = from;
    while n <= to {
        if span.1.saturating_sub(span.0) >= 2 * HALF && n == span.0 + HALF {
            out.push_str("     ⋮\n");
            n = span.1 - HALF + 1;
            continue;
        }
        out.push_str(&format!("{n:>6}\t{}\n", lines[n - 1].content(text)));
        n += 1;
    }
    out
}

//! The matching ladder: where `old_string` lies in the file, at the strictest level that finds
//! it at all. Each level is a small function returning every hit; the first level with any hit
//! decides (the caller accepts one hit and reports several as ambiguous, never trying a looser
//! level that might pick one of them). Line levels compare every line of the block under their
//! normalization, never only its first and last lines.

use std::borrow::Cow;
use std::ops::Range;

use super::indent::{Shift, Unit};
use super::normalize::{LfText, ascii_punctuation, unescape};
use super::text::{Block, Line};

/// How `old_string` was found, strictest first; the order the ladder tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum MatchLevel {
    /// Byte for byte.
    Exact,
    /// After turning CRLF into LF in both the file and `old_string`.
    LineEndings,
    /// Whole lines, equal once trailing whitespace is removed.
    TrailingWhitespace,
    /// Whole lines, equal once trimmed at both ends; the block's first line has the
    /// indentation the model wrote, so `new_string` goes in as written.
    TrimmedLines,
    /// As `TrimmedLines`, after mapping typographic dashes, quotes and spaces to ASCII.
    Punctuation,
    /// As `Punctuation`, with the block at another indentation than the model wrote;
    /// `new_string` is re-indented step for step in the file's unit and indent character.
    Indentation,
    /// After unescaping `\n`, `\t`, `\"` and the like that the model wrote literally, at any
    /// of the levels above.
    Unescaped,
}

impl MatchLevel {
    /// The levels `replace_all` may use: a blanket replacement needs the text as written.
    pub(crate) const EXACT_ONLY: &'static [MatchLevel] =
        &[MatchLevel::Exact, MatchLevel::LineEndings];

    /// Every level but `Unescaped`, which reruns these on the unescaped text.
    const DIRECT: &'static [MatchLevel] = &[
        MatchLevel::Exact,
        MatchLevel::LineEndings,
        MatchLevel::TrailingWhitespace,
        MatchLevel::TrimmedLines,
        MatchLevel::Punctuation,
        MatchLevel::Indentation,
    ];

    /// How the match was made, for the tool's reply.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            MatchLevel::Exact => "exact match",
            MatchLevel::LineEndings => "matched after normalizing line endings",
            MatchLevel::TrailingWhitespace => "matched after ignoring trailing whitespace",
            MatchLevel::TrimmedLines => {
                "matched comparing whole lines with leading and trailing whitespace trimmed"
            }
            MatchLevel::Punctuation => {
                "matched after normalizing Unicode punctuation (dashes, quotes, spaces)"
            }
            MatchLevel::Indentation => {
                "matched at a different indentation; new_string was re-indented to match the file"
            }
            MatchLevel::Unescaped => {
                "matched after unescaping \\n, \\t and \\\" that were written literally"
            }
        }
    }
}

/// One place `old_string` matched.
#[derive(Debug, Clone)]
pub(super) struct Hit {
    /// The bytes of the file to replace.
    pub range: Range<usize>,
    /// Set when the block sits at another indentation than the model wrote.
    pub shift: Option<Shift>,
    /// `old_string` ended in a line end that the file's last line lacks.
    pub drop_final_newline: bool,
}

impl Hit {
    fn bytes(range: Range<usize>) -> Self {
        Hit {
            range,
            shift: None,
            drop_final_newline: false,
        }
    }
}

/// The outcome of climbing the ladder.
#[derive(Debug)]
pub(super) struct Found {
    pub level: MatchLevel,
    pub hits: Vec<Hit>,
    /// The `old_string` that matched as lines (unescaped at `Unescaped`).
    pub block: Block,
}

/// Climbs the ladder; `exact_only` stops after `EXACT_ONLY`. `None` when no level finds it.
pub(super) fn find(text: &str, lines: &[Line], old: &str, exact_only: bool) -> Option<Found> {
    let levels = if exact_only {
        MatchLevel::EXACT_ONLY
    } else {
        MatchLevel::DIRECT
    };
    if let Some((level, hits)) = first_level(text, lines, old, levels) {
        return Some(Found {
            level,
            hits,
            block: Block::new(old),
        });
    }
    if exact_only {
        return None;
    }
    let unescaped = unescape(old);
    if unescaped == old || unescaped.is_empty() {
        return None;
    }
    let (_, hits) = first_level(text, lines, &unescaped, levels)?;
    Some(Found {
        level: MatchLevel::Unescaped,
        hits,
        block: Block::new(&unescaped),
    })
}

fn first_level(
    text: &str,
    lines: &[Line],
    old: &str,
    levels: &[MatchLevel],
) -> Option<(MatchLevel, Vec<Hit>)> {
    let block = Block::new(old);
    levels.iter().find_map(|&level| {
        let hits = match level {
            MatchLevel::Exact => exact(text, old),
            MatchLevel::LineEndings => line_endings(text, old),
            MatchLevel::TrailingWhitespace => trailing_whitespace(text, lines, &block),
            MatchLevel::TrimmedLines => trimmed_lines(text, lines, &block),
            MatchLevel::Punctuation => punctuation(text, lines, &block),
            MatchLevel::Indentation => indentation(text, lines, &block),
            MatchLevel::Unescaped => Vec::new(),
        };
        (!hits.is_empty()).then_some((level, hits))
    })
}

/// Every non-overlapping occurrence of `old`, byte for byte.
fn exact(text: &str, old: &str) -> Vec<Hit> {
    text.match_indices(old)
        .map(|(i, _)| Hit::bytes(i..i + old.len()))
        .collect()
}

/// As `exact`, with CRLF read as LF on both sides; hits map back to the file's bytes.
fn line_endings(text: &str, old: &str) -> Vec<Hit> {
    if !text.contains("\r\n") && !old.contains("\r\n") {
        return Vec::new(); // nothing to normalize: `exact` already gave the answer
    }
    let file = LfText::new(text);
    let old = old.replace("\r\n", "\n");
    file.text
        .match_indices(&old)
        .map(|(i, _)| Hit::bytes(file.original(i)..file.original(i + old.len())))
        .collect()
}

fn trailing_whitespace(text: &str, lines: &[Line], block: &Block) -> Vec<Hit> {
    scan(
        text,
        lines,
        block,
        |l| Cow::Borrowed(l.trim_end()),
        same_first_indent,
    )
}

fn trimmed_lines(text: &str, lines: &[Line], block: &Block) -> Vec<Hit> {
    scan(
        text,
        lines,
        block,
        |l| Cow::Borrowed(l.trim()),
        same_first_indent,
    )
}

fn punctuation(text: &str, lines: &[Line], block: &Block) -> Vec<Hit> {
    scan(text, lines, block, punctuation_key, same_first_indent)
}

fn indentation(text: &str, lines: &[Line], block: &Block) -> Vec<Hit> {
    let mut hits = scan(text, lines, block, punctuation_key, |_, _| true);
    let file_unit = std::cell::OnceCell::new();
    let file_unit = || *file_unit.get_or_init(|| Unit::of([lines.iter().map(|l| l.content(text))]));
    for hit in &mut hits {
        let first = lines.partition_point(|l| l.start < hit.range.start);
        let file: Vec<&str> = lines[first..first + block.lines.len()]
            .iter()
            .map(|l| l.content(text))
            .collect();
        hit.shift = Shift::between(&file, &block.lines, file_unit);
    }
    hits
}

fn punctuation_key(line: &str) -> Cow<'_, str> {
    Cow::Owned(ascii_punctuation(line).trim().to_owned())
}

/// The block starts at the indentation the model wrote (so nothing needs re-indenting).
fn same_first_indent(file: &[&str], block: &Block) -> bool {
    !Shift::needed(file, &block.lines)
}

/// Every run of whole lines equal to `block` line by line under `key`, that `accept` takes.
fn scan(
    text: &str,
    lines: &[Line],
    block: &Block,
    key: impl for<'a> Fn(&'a str) -> Cow<'a, str>,
    accept: impl Fn(&[&str], &Block) -> bool,
) -> Vec<Hit> {
    let k = block.lines.len();
    if k > lines.len() {
        return Vec::new();
    }
    let file: Vec<&str> = lines.iter().map(|l| l.content(text)).collect();
    let file_keys: Vec<Cow<'_, str>> = file.iter().map(|l| key(l)).collect();
    let old_keys: Vec<Cow<'_, str>> = block.lines.iter().map(|l| key(l)).collect();
    let mut hits = Vec::new();
    for s in 0..=lines.len() - k {
        let equal = (0..k).all(|j| file_keys[s + j] == old_keys[j]);
        if !equal || !accept(&file[s..s + k], block) {
            continue;
        }
        let last = lines[s + k - 1];
        let end = if block.ends_with_newline {
            last.end
        } else {
            last.content_end
        };
        hits.push(Hit {
            range: lines[s].start..end,
            shift: None,
            drop_final_newline: block.ends_with_newline && last.end == last.content_end,
        });
    }
    hits
}

//! The normalizations the ladder compares under: line ends, Unicode punctuation, escapes
//! written literally, and the visible form of whitespace used in error reports.

/// Text with every `\r\n` turned into `\n`, remembering where each removed `\r` was so a
/// match in the normalized text maps back to the original bytes.
pub(super) struct LfText {
    pub text: String,
    /// Normalized offsets of the `\n`s that lost their `\r`, ascending.
    removed: Vec<usize>,
}

impl LfText {
    pub fn new(original: &str) -> Self {
        let mut text = String::with_capacity(original.len());
        let mut removed = Vec::new();
        let mut rest = original;
        while let Some(i) = rest.find("\r\n") {
            text.push_str(&rest[..i]);
            removed.push(text.len());
            text.push('\n');
            rest = &rest[i + 2..];
        }
        text.push_str(rest);
        LfText { text, removed }
    }

    /// The original offset of normalized offset `i`. An offset at a `\n` that lost its `\r`
    /// maps before the `\r`, so a match ending just before a line end leaves the `\r\n` whole.
    pub fn original(&self, i: usize) -> usize {
        i + self.removed.partition_point(|&q| q < i)
    }
}

/// Maps typographic dashes, quotes and odd spaces to ASCII, the set Codex's `seek_sequence`
/// normalizes, so a model writing ASCII matches a file with `–`, `’`, `“` or no-break spaces
/// (and the reverse).
pub(crate) fn ascii_punctuation(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
            | '\u{2212}' => '-',
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
            '\u{00A0}' | '\u{2002}' | '\u{2003}' | '\u{2004}' | '\u{2005}' | '\u{2006}'
            | '\u{2007}' | '\u{2008}' | '\u{2009}' | '\u{200A}' | '\u{202F}' | '\u{205F}'
            | '\u{3000}' => ' ',
            other => other,
        })
        .collect()
}

/// Undoes escapes a model wrote literally: `\n`, `\r`, `\t`, `\"`, `\'`, `` \` `` and `\\`.
/// Any other backslash is kept as it is.
pub(super) fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let replacement = match chars.peek() {
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some(&q @ ('"' | '\'' | '`' | '\\')) => q,
            _ => {
                out.push('\\');
                continue;
            }
        };
        chars.next();
        out.push(replacement);
    }
    out
}

/// Whitespace made visible for the not-found report: `·` space, `→` tab, `␍` carriage
/// return, `⏎` line feed, `⍽` any other whitespace (no-break and typographic spaces).
pub(crate) fn visible(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            ' ' => '·',
            '\t' => '→',
            '\r' => '␍',
            '\n' => '⏎',
            c if c.is_whitespace() => '⍽',
            c => c,
        })
        .collect()
}

/// The leading whitespace of a line.
pub(super) fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

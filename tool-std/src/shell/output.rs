//! What a command printed, from raw bytes to what the model reads: the capped buffer a
//! process's output collects in ([`OutputBuffer`]), the cleaning of terminal control codes
//! ([`clean`]), the head-and-tail cut with the whole kept as an artifact ([`fit`]), and the
//! shell tools' replies written out as text ([`duration`], [`write_output`]): a status and
//! then the output as it came, as Codex and Claude Code give it, not the output inside JSON
//! with every line break and quote escaped.

use std::fmt::Write as _;

use tool_core::context::ToolContext;
use tool_core::middleware::Artifacts;

/// A process keeps at most this many bytes of output: past it, the oldest bytes are dropped
/// (and the reply says how many), so a command that prints without end cannot exhaust memory.
pub(crate) const OUTPUT_CAP: usize = 8 * 1024 * 1024;
/// What the model reads of one output, at most, in characters: its head and tail.
pub(crate) const SHOWN_CHARS: usize = 30_000;

/// The bytes a process wrote to its one output pipe (stdout and stderr together), the newest
/// [`OUTPUT_CAP`] of them. Positions are counted from the process's first byte, so a reader
/// can ask for what came after the last byte it saw even when older bytes have been dropped.
#[derive(Debug)]
pub(crate) struct OutputBuffer {
    bytes: Vec<u8>,
    /// Bytes dropped from the front: the position of `bytes[0]`.
    dropped: u64,
    cap: usize,
}

impl OutputBuffer {
    pub(crate) fn new(cap: usize) -> Self {
        OutputBuffer {
            bytes: Vec::new(),
            dropped: 0,
            cap,
        }
    }

    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        // Trimmed in steps of a quarter of the cap, so the copy is paid once per quarter cap
        // written, not on every chunk.
        if self.bytes.len() > self.cap + self.cap / 4 {
            let excess = self.bytes.len() - self.cap;
            self.bytes.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    /// The position after the last byte written.
    pub(crate) fn end(&self) -> u64 {
        self.dropped + self.bytes.len() as u64
    }

    /// The bytes from position `from` on (at most the newest `cap`), and how many bytes at or
    /// after `from` were dropped before them.
    pub(crate) fn since(&self, from: u64) -> (&[u8], u64) {
        // Bytes past the cap that wait for the next trim count as dropped already, so what a
        // reader sees does not depend on when the buffer was last trimmed.
        let over_cap = self.bytes.len().saturating_sub(self.cap);
        let first_kept = self.dropped + over_cap as u64;
        let lost = first_kept.saturating_sub(from);
        let start = usize::try_from(from.saturating_sub(self.dropped))
            .unwrap_or(usize::MAX)
            .max(over_cap);
        (self.bytes.get(start..).unwrap_or_default(), lost)
    }
}

/// Output as the model should read it: decoded as UTF-8 (invalid bytes replaced), terminal
/// escape sequences removed (CSI such as colours and cursor moves, OSC such as titles and
/// hyperlinks, the other `ESC` sequences), a line redrawn with `\r` (a progress bar) reduced to
/// what was drawn last, a `\r\n` line ending read as `\n`, and other control characters but
/// the tab dropped.
pub(crate) fn clean(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let stripped = strip_escapes(&text);
    let mut out = String::with_capacity(stripped.len());
    for (index, line) in stripped.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        let last_drawn = line.rsplit('\r').next().unwrap_or(line);
        out.push_str(last_drawn);
    }
    out
}

/// Where [`strip_escapes`] is within an escape sequence.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sequence {
    /// Plain text.
    None,
    /// After `ESC`.
    Start,
    /// In `ESC [ ...`, until a final byte in `@`..=`~`.
    Csi,
    /// In `ESC ] ...`, `ESC P ...` and the like, until `BEL` or `ESC \`.
    Text,
    /// `ESC` seen inside a string sequence: `\` ends it.
    TextEnding,
    /// After `ESC` and intermediate bytes (`ESC ( B`), until a final byte.
    Intermediate,
}

fn strip_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut state = Sequence::None;
    for c in text.chars() {
        state = match (state, c) {
            (Sequence::None, '\x1b') => Sequence::Start,
            (Sequence::None, '\n' | '\t' | '\r') => {
                out.push(c);
                Sequence::None
            }
            (Sequence::None, c) if c.is_control() => Sequence::None,
            (Sequence::None, c) => {
                out.push(c);
                Sequence::None
            }
            (Sequence::Start, '[') => Sequence::Csi,
            (Sequence::Start, ']' | 'P' | 'X' | '^' | '_') => Sequence::Text,
            (Sequence::Start | Sequence::Intermediate, ' '..='/') => Sequence::Intermediate,
            // A two-character sequence (`ESC 7`, `ESC M`), or the final byte: over.
            (Sequence::Start | Sequence::Intermediate, _) | (Sequence::Csi, '@'..='~') => {
                Sequence::None
            }
            (Sequence::Csi, _) => Sequence::Csi,
            (Sequence::Text | Sequence::TextEnding, '\x07') => Sequence::None,
            (Sequence::Text | Sequence::TextEnding, '\x1b') => Sequence::TextEnding,
            (Sequence::TextEnding, '\\') => Sequence::None,
            (Sequence::Text | Sequence::TextEnding, _) => Sequence::Text,
        };
    }
    out
}

/// Text cut to what the model reads, and where the whole of it went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fitted {
    pub(crate) text: String,
    /// The artifact holding the whole text, when it was cut and kept.
    pub(crate) artifact: Option<String>,
}

/// Room left in the coordinator's output limit for the rest of an answer: its other fields
/// and the cut's marker.
const ANSWER_ROOM: usize = 1_000;

/// `text` as the model reads it: whole when it fits, else its head and tail around a
/// `... [omitted N lines] ...` marker, the whole kept in the coordinator's [`Artifacts`] (the
/// marker names the artifact).
///
/// It fits when it has at most [`SHOWN_CHARS`] characters and, under a coordinator's output
/// limit, when the answer it goes into (a JSON value, where a line break takes two characters
/// and a quote two) stays within that limit. Otherwise the output limit would cut the answer a
/// second time: its JSON broken, its count of what was left out wrong, and the artifact named
/// one holding only the first cut.
pub(crate) fn fit(ctx: &ToolContext, text: String) -> Fitted {
    let artifacts = ctx.state::<Artifacts>();
    let budget = artifacts
        .and_then(|store| store.page_chars())
        .map_or(SHOWN_CHARS, |limit| {
            SHOWN_CHARS.min(limit.saturating_sub(ANSWER_ROOM).max(200))
        });
    let Some(cut) = cut_to_escaped(&text, budget) else {
        return Fitted {
            text,
            artifact: None,
        };
    };
    let artifact = artifacts.map(|store| store.store(&ctx.call().tool, &ctx.call().call_id, text));
    let mut shown = cut.head;
    let _ = write!(
        shown,
        "\n... [omitted {} lines, {} characters",
        cut.omitted_lines, cut.omitted_chars
    );
    match &artifact {
        Some(id) => {
            let _ = write!(shown, "; the whole output is artifact {id}");
        }
        None => shown.push_str("; the whole output was not kept"),
    }
    shown.push_str("] ...\n");
    shown.push_str(&cut.tail);
    Fitted {
        text: shown,
        artifact,
    }
}

/// [`head_and_tail`] of `text` whose JSON string form has at most `budget` characters, or
/// `None` when the whole does. Escaping adds about as much as the text has line breaks and
/// quotes, so the cut is tightened in proportion until it fits (a few rounds at most).
fn cut_to_escaped(text: &str, budget: usize) -> Option<Cut> {
    if escaped_chars(text) <= budget {
        return None;
    }
    let mut max_chars = budget;
    loop {
        let cut = head_and_tail(text, max_chars)?;
        let escaped = escaped_chars(&cut.head) + escaped_chars(&cut.tail);
        if escaped <= budget || max_chars <= 100 {
            return Some(cut);
        }
        max_chars = (max_chars * budget / escaped).min(max_chars - 1).max(100);
    }
}

/// The characters `text` takes inside a JSON string.
fn escaped_chars(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if c < ' ' => 6,
            _ => 1,
        })
        .sum()
}

/// The head and tail of a text too long to show whole.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Cut {
    pub(crate) head: String,
    pub(crate) tail: String,
    /// Line breaks in the part left out.
    pub(crate) omitted_lines: usize,
    pub(crate) omitted_chars: usize,
}

/// The first and last lines of `text` within `max_chars` characters (three fifths head, the
/// rest tail: how a command starts and how it ended both matter, the end a little less),
/// or `None` when the whole fits. A cut falls at a line break when one lies in the kept part,
/// else mid-line.
pub(crate) fn head_and_tail(text: &str, max_chars: usize) -> Option<Cut> {
    let total = text.chars().count();
    if total <= max_chars {
        return None;
    }
    let head_chars = max_chars * 3 / 5;
    let tail_chars = max_chars - head_chars;
    let head_end = text
        .char_indices()
        .nth(head_chars)
        .map_or(text.len(), |(i, _)| i);
    // Back to the last line break in the head, so the head ends with a whole line, unless
    // that would give up more than half of it (one very long line).
    let head_end = match text[..head_end].rfind('\n') {
        Some(i) if i + 1 >= head_end / 2 => i + 1,
        _ => head_end,
    };
    let tail_start = text
        .char_indices()
        .rev()
        .nth(tail_chars.saturating_sub(1))
        .map_or(0, |(i, _)| i)
        .max(head_end);
    // On to the next line break in the tail, so the tail starts with a whole line, unless
    // that would give up more than half of it.
    let tail_start = match text[tail_start..].find('\n') {
        Some(i) if i < (text.len() - tail_start) / 2 => tail_start + i + 1,
        _ => tail_start,
    };
    let omitted = &text[head_end..tail_start];
    Some(Cut {
        head: text[..head_end].trim_end_matches('\n').to_owned(),
        tail: text[tail_start..].to_owned(),
        omitted_lines: omitted.matches('\n').count(),
        omitted_chars: omitted.chars().count(),
    })
}

/// A duration as a person reads it: `12 ms`, `3.4 s`, `2 min 5 s`.
pub(crate) fn duration(ms: u64) -> String {
    match ms {
        0..1_000 => format!("{ms} ms"),
        1_000..60_000 => format!("{}.{} s", ms / 1_000, ms % 1_000 / 100),
        _ => {
            let seconds = ms / 1_000;
            format!("{} min {} s", seconds / 60, seconds % 60)
        }
    }
}

/// Writes a reply's notes (`Note: ...`) and then its output after an `Output:` line, as it
/// came (`(none)` when there was none), ending with a line break.
pub(crate) fn write_output(
    f: &mut std::fmt::Formatter<'_>,
    note: Option<&str>,
    output: &str,
) -> std::fmt::Result {
    if let Some(note) = note {
        writeln!(f, "Note: {note}")?;
    }
    if output.is_empty() {
        return writeln!(f, "Output: (none)");
    }
    writeln!(f, "Output:")?;
    f.write_str(output)?;
    if !output.ends_with('\n') {
        f.write_str("\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_cursor_moves_and_titles_are_removed() {
        let raw = "\x1b[1;31merror\x1b[0m: \x1b]0;title\x07bad\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1b(Bok\x1b[2K";
        assert_eq!(clean(raw.as_bytes()), "error: badlink ok");
    }

    #[test]
    fn a_line_redrawn_with_carriage_returns_keeps_what_was_drawn_last() {
        assert_eq!(
            clean(b"10%\r50%\r100%\ndone\r\nnext\r\n"),
            "100%\ndone\nnext\n"
        );
    }

    #[test]
    fn invalid_utf8_is_replaced_and_other_controls_dropped() {
        assert_eq!(clean(b"a\xffb\x07c\td\x08"), "a\u{fffd}bc\td");
    }

    #[test]
    fn the_buffer_keeps_the_newest_bytes_and_counts_the_dropped() {
        let mut buffer = OutputBuffer::new(8);
        buffer.push(b"0123456789");
        assert_eq!(buffer.since(0), (&b"23456789"[..], 2));
        buffer.push(b"abcdef");
        assert_eq!(buffer.end(), 16);
        let (kept, lost) = buffer.since(0);
        assert_eq!((kept, lost), (&b"89abcdef"[..], 8));
        assert_eq!(buffer.since(12), (&b"cdef"[..], 0));
        assert_eq!(buffer.since(16), (&b""[..], 0));
    }

    #[test]
    fn a_long_text_keeps_whole_lines_at_both_ends() {
        let text: String = (1..=1000).map(|n| format!("line {n}\n")).collect();
        let cut = head_and_tail(&text, 1000).unwrap();
        assert!(
            cut.head.starts_with("line 1\n") && cut.head.ends_with(|c: char| c.is_ascii_digit())
        );
        assert!(cut.tail.ends_with("line 1000\n"));
        assert!(cut.tail.starts_with("line "));
        let kept = cut.head.lines().count() + cut.tail.lines().count();
        assert_eq!(kept + cut.omitted_lines, 1000);
        assert!(head_and_tail("short", 1000).is_none());
    }

    #[test]
    fn one_huge_line_is_cut_mid_line() {
        let text = "x".repeat(5000);
        let cut = head_and_tail(&text, 1000).unwrap();
        assert_eq!(cut.head.len() + cut.tail.len() + cut.omitted_chars, 5000);
        assert_eq!(cut.omitted_lines, 0);
    }

    #[test]
    fn durations_read_as_a_person_would_say_them() {
        assert_eq!(super::duration(12), "12 ms");
        assert_eq!(super::duration(1_250), "1.2 s");
        assert_eq!(super::duration(59_999), "59.9 s");
        assert_eq!(super::duration(125_000), "2 min 5 s");
    }
}

//! Words as the shell sees them after quote removal: [`Word`], and how a word is shown again
//! in a command's canonical text.

use std::fmt::Write as _;

/// One word of a command after quote removal.
///
/// A word is *literal* when the shell would pass exactly this text, whatever the environment:
/// no expansion (`$X`, `$(..)`, `${..}`, arithmetic) in it. Unquoted glob characters
/// (`*`, `?`, `[`) and brace expansion leave a word literal as an argument, but make it unfit
/// to name a program: what it names is only known once the shell has expanded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The text after quote removal; for a word with expansions, its source text as written.
    pub text: String,
    /// The word holds an expansion: its value is only known at run time.
    pub dynamic: bool,
    /// The word holds unquoted glob or brace characters, which the shell may expand.
    pub pattern: bool,
}

impl Word {
    /// A literal word.
    #[must_use]
    pub fn literal(text: impl Into<String>) -> Self {
        Word {
            text: text.into(),
            dynamic: false,
            pattern: false,
        }
    }

    /// `true` when the word's value is known now and is exactly [`text`](Self::text) (no
    /// expansion, no unquoted glob or brace characters): what a program name must be to be
    /// matched by an allow rule.
    #[must_use]
    pub fn is_exact(&self) -> bool {
        !self.dynamic && !self.pattern
    }

    /// Writes the word as it appears in a canonical command text: a literal word that the shell
    /// would split or expand is single-quoted; a dynamic word is shown as written.
    pub(crate) fn render(&self, out: &mut String) {
        // A dynamic word, or an unquoted glob or brace pattern, is shown as written; a literal
        // word with glob characters was quoted, and is shown quoted (`rm '*'` is not `rm *`).
        if self.dynamic || self.pattern || !needs_quotes(&self.text) {
            out.push_str(&self.text);
            return;
        }
        out.push('\'');
        for c in self.text.chars() {
            if c == '\'' {
                out.push_str("'\\''");
            } else {
                out.push(c);
            }
        }
        out.push('\'');
    }
}

fn needs_quotes(text: &str) -> bool {
    text.is_empty()
        || text
            .chars()
            .any(|c| c.is_whitespace() || "'\"\\$`;&|<>(){}#*?[".contains(c))
}

/// The text of an unquoted `word` node after quote removal: each backslash escapes the next
/// character (`\rm` is `rm`), and a backslash before a newline joins the lines.
pub(crate) fn unescape_unquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `true` when an unquoted word's source text holds characters the shell expands as a pattern
/// (an unescaped `*`, `?` or `[`, or a brace expansion `{a,b}` / `{1..3}`).
pub(crate) fn has_unquoted_pattern(source: &str) -> bool {
    let mut escaped = false;
    let mut brace = false;
    for c in source.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '*' | '?' | '[' => return true,
            '{' => brace = true,
            ',' | '.' if brace => return true,
            _ => {}
        }
    }
    false
}

/// The content of a double-quoted string's literal part: a backslash escapes only `$`, `` ` ``,
/// `"`, `\` and a newline.
pub(crate) fn unescape_double_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => out.extend(chars.next()),
                Some('\n') => {
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The value of an ANSI-C quoted string `$'...'` (without the `$'` and `'`): `\n`, `\t` and
/// the other letter escapes, `\xHH`, `\NNN` (octal), `\uHHHH`, `\UHHHHHHHH`, `\cX`. `None` for
/// an escape it cannot read, so the caller treats the word as unknown.
pub(crate) fn decode_ansi_c(body: &str) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let escape = chars.next()?;
        match escape {
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'e' | 'E' => out.push('\x1b'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '\\' | '\'' | '"' | '?' => out.push(escape),
            'x' => out.push(char::from_u32(read_digits(&mut chars, 16, 2)?)?),
            'u' => out.push(char::from_u32(read_digits(&mut chars, 16, 4)?)?),
            'U' => out.push(char::from_u32(read_digits(&mut chars, 16, 8)?)?),
            'c' => {
                let control = chars.next()?;
                out.push(char::from_u32(u32::from(control) & 0x1f)?);
            }
            '0'..='7' => {
                let mut value = escape.to_digit(8)?;
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(digit) => {
                            value = value * 8 + digit;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value & 0xff)?);
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Some(out)
}

fn read_digits(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    radix: u32,
    at_most: usize,
) -> Option<u32> {
    let mut value = 0u32;
    let mut read = 0;
    while read < at_most {
        let Some(digit) = chars.peek().and_then(|d| d.to_digit(radix)) else {
            break;
        };
        value = value.checked_mul(radix)?.checked_add(digit)?;
        chars.next();
        read += 1;
    }
    (read > 0).then_some(value)
}

/// Words joined into a canonical command text: each rendered by [`Word::render`], one space
/// between them.
pub(crate) fn join(words: &[Word]) -> String {
    let mut out = String::new();
    for (index, word) in words.iter().enumerate() {
        if index > 0 {
            out.push(' ');
        }
        word.render(&mut out);
    }
    out
}

/// Assignments and words joined: `FOO=1 BAR=2 cmd args`.
pub(crate) fn join_with_assignments(assignments: &[String], words: &[Word]) -> String {
    let mut out = String::new();
    for assignment in assignments {
        let _ = write!(out, "{assignment} ");
    }
    out.push_str(&join(words));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backslashes_outside_quotes_escape_the_next_character() {
        assert_eq!(unescape_unquoted(r"\rm"), "rm");
        assert_eq!(unescape_unquoted(r"a\ b"), "a b");
        assert_eq!(unescape_unquoted(r"a\\b"), r"a\b");
    }

    #[test]
    fn ansi_c_strings_decode_their_escapes() {
        assert_eq!(decode_ansi_c(r"\x72\x6d").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"\162\155").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"r\u006d").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"a\tb\n").as_deref(), Some("a\tb\n"));
    }

    #[test]
    fn unquoted_globs_and_braces_are_patterns() {
        assert!(has_unquoted_pattern("r*"));
        assert!(has_unquoted_pattern("/bin/r?"));
        assert!(has_unquoted_pattern("{rm,ls}"));
        assert!(!has_unquoted_pattern(r"a\*b"));
        assert!(!has_unquoted_pattern("--flag={x}"));
    }

    #[test]
    fn rendering_quotes_what_the_shell_would_split() {
        assert_eq!(
            join(&[
                Word::literal("git"),
                Word::literal("commit"),
                Word::literal("-m"),
                Word::literal("a b")
            ]),
            "git commit -m 'a b'"
        );
        assert_eq!(
            join(&[Word::literal("echo"), Word::literal("it's")]),
            r"echo 'it'\''s'"
        );
    }
}

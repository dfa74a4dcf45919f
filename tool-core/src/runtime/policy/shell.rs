//! Splitting a shell command line into the commands it runs, so that permission rules judge
//! each of them: `git status && rm -rf ~` is two commands, and an allow rule for `git status`
//! must not let the second one through.
//!
//! The splitter is lexical, not a shell: it knows quotes (single, double, backslash escapes),
//! the separators `&&`, `||`, `;`, `|`, `|&`, `&` and newlines, and the substitutions that run a
//! command of their own (`$(..)`, backticks, `<(..)`, `>(..)`; `$(..)` and backticks run inside
//! double quotes too). Each substitution is a part of its own, in addition to the part that
//! contains it. Anything it does not understand (subshell parentheses, `case` arms) errs on the
//! side of more, smaller parts, which allow rules are less likely to cover, so the user is asked.

/// Deeper nesting than this is not split further: the rest is one part, which no ordinary rule
/// allows. It bounds the recursion on input that comes from a model.
const MAX_DEPTH: usize = 32;

/// The commands a shell command line runs, trimmed, in order: each part of a compound command,
/// and after each part the commands its substitutions run.
///
/// ```
/// use tool_core::policy::shell::split_commands;
///
/// assert_eq!(split_commands("git status && rm -rf build"), ["git status", "rm -rf build"]);
/// assert_eq!(split_commands("echo \"$(whoami)\" | wc -c"), ["echo \"$(whoami)\"", "whoami", "wc -c"]);
/// assert_eq!(split_commands("echo 'a && b'"), ["echo 'a && b'"]);
/// ```
#[must_use]
pub fn split_commands(command: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for_each_command(command, &mut |part| {
        parts.push(part.to_owned());
        true
    });
    parts
}

/// Calls `visit` with every command [`split_commands`] would return, without allocating; stops
/// early (and returns `false`) when `visit` returns `false`.
pub(crate) fn for_each_command(command: &str, visit: &mut dyn FnMut(&str) -> bool) -> bool {
    visit_commands(command, visit, 0)
}

/// `true` when the command writes a file through an output redirection (`>`, `>>`, `>|`, `&>`,
/// `2>`), other than to `/dev/null` or to another file descriptor (`2>&1`). Only redirections of
/// this command count, not those inside its substitutions (those are parts of their own).
#[must_use]
pub fn has_output_redirection(command: &str) -> bool {
    let bytes = command.as_bytes();
    if !bytes.contains(&b'>') {
        return false;
    }
    let mut found = false;
    scan(command, &mut |event| {
        if let Event::Redirect { at } = event
            && redirects_to_file(bytes, at)
        {
            found = true;
            return false;
        }
        true
    });
    found
}

fn redirects_to_file(bytes: &[u8], at: usize) -> bool {
    let mut i = at + 1;
    if matches!(bytes.get(i), Some(b'>' | b'|')) {
        i += 1;
    }
    if bytes.get(i) == Some(&b'&') {
        // `>&2`, `>&-`: a duplicated descriptor, not a file.
        let rest = &bytes[i + 1..];
        let word_len = rest
            .iter()
            .position(|b| b.is_ascii_whitespace() || b";|&<>)".contains(b))
            .unwrap_or(rest.len());
        let word = &rest[..word_len];
        if !word.is_empty() && (word == b"-" || word.iter().all(u8::is_ascii_digit)) {
            return false;
        }
        i += 1;
    }
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    let rest = &bytes[i.min(bytes.len())..];
    let target_len = rest
        .iter()
        .position(|b| b.is_ascii_whitespace() || b";|&<>()".contains(b))
        .unwrap_or(rest.len());
    &rest[..target_len] != b"/dev/null"
}

fn visit_commands(text: &str, visit: &mut dyn FnMut(&str) -> bool, depth: usize) -> bool {
    if depth >= MAX_DEPTH {
        return visit_part(text, visit, depth);
    }
    let mut start = 0;
    let mut keep_going = true;
    scan(text, &mut |event| {
        if let Event::Separator { at, len } = event {
            keep_going = visit_part(&text[start..at], visit, depth);
            start = at + len;
        }
        keep_going
    });
    keep_going && visit_part(&text[start..], visit, depth)
}

fn visit_part(part: &str, visit: &mut dyn FnMut(&str) -> bool, depth: usize) -> bool {
    let part = part.trim();
    if part.is_empty() {
        return true;
    }
    if !visit(part) {
        return false;
    }
    // Most parts run no substitution: skip the second pass over them.
    if depth >= MAX_DEPTH || !part.bytes().any(|b| matches!(b, b'$' | b'`' | b'(')) {
        return true;
    }
    let mut keep_going = true;
    scan(part, &mut |event| {
        if let Event::Substitution { start, end } = event {
            keep_going = visit_commands(&part[start..end], visit, depth + 1);
        }
        keep_going
    });
    keep_going
}

/// What the scanner finds at the top level of a text (outside quotes and substitutions).
#[derive(Debug, Clone, Copy)]
enum Event {
    /// A command separator of `len` bytes at `at`.
    Separator { at: usize, len: usize },
    /// A command substitution whose inner text is `start..end`.
    Substitution { start: usize, end: usize },
    /// A `>` that starts an output redirection.
    Redirect { at: usize },
}

/// Walks `text` once, reporting separators, substitutions and redirections at its top level;
/// stops when `on` returns `false`.
fn scan(text: &str, on: &mut dyn FnMut(Event) -> bool) {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut in_double = false;
    while i < bytes.len() {
        let byte = bytes[i];
        if in_double {
            match byte {
                b'\\' => i += 1,
                b'"' => in_double = false,
                b'$' if bytes.get(i + 1) == Some(&b'(') => {
                    let (end, next, arithmetic) = substitution_end(bytes, i + 2);
                    if !arithmetic && !on(Event::Substitution { start: i + 2, end }) {
                        return;
                    }
                    i = next;
                    continue;
                }
                b'`' => {
                    let end = backtick_end(bytes, i + 1);
                    if !on(Event::Substitution { start: i + 1, end }) {
                        return;
                    }
                    i = end + 1;
                    continue;
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        let next = bytes.get(i + 1).copied();
        let (event, advance) = match byte {
            b'\\' => (None, 2),
            b'\'' => {
                let close = bytes[i + 1..]
                    .iter()
                    .position(|&b| b == b'\'')
                    .map_or(bytes.len(), |offset| i + 1 + offset);
                (None, close + 1 - i)
            }
            b'"' => {
                in_double = true;
                (None, 1)
            }
            b'$' | b'<' | b'>' if next == Some(b'(') => {
                let (end, after, arithmetic) = substitution_end(bytes, i + 2);
                let event = (!arithmetic || byte != b'$')
                    .then_some(Event::Substitution { start: i + 2, end });
                (event, after - i)
            }
            b'`' => {
                let end = backtick_end(bytes, i + 1);
                (Some(Event::Substitution { start: i + 1, end }), end + 1 - i)
            }
            b'>' => (Some(Event::Redirect { at: i }), 1),
            b';' | b'\n' => (Some(Event::Separator { at: i, len: 1 }), 1),
            b'|' => {
                let len = if matches!(next, Some(b'|' | b'&')) {
                    2
                } else {
                    1
                };
                (Some(Event::Separator { at: i, len }), len)
            }
            b'&' => {
                let after_redirect = i > 0 && matches!(bytes[i - 1], b'>' | b'<');
                if after_redirect || next == Some(b'>') {
                    (None, 1)
                } else {
                    let len = if next == Some(b'&') { 2 } else { 1 };
                    (Some(Event::Separator { at: i, len }), len)
                }
            }
            _ => (None, 1),
        };
        if let Some(event) = event
            && !on(event)
        {
            return;
        }
        i += advance;
    }
}

/// For a substitution whose text starts at `start` (just after `$(`), returns the end of its
/// inner text, the index after its closing `)`, and whether it is arithmetic (`$((..))`), which
/// runs no command. An unclosed substitution runs to the end of the text.
fn substitution_end(bytes: &[u8], start: usize) -> (usize, usize, bool) {
    let arithmetic = bytes.get(start) == Some(&b'(');
    let mut depth = 1usize;
    let mut i = start;
    let mut in_double = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'"' => in_double = !in_double,
            b'\'' if !in_double => {
                i = bytes[i + 1..]
                    .iter()
                    .position(|&b| b == b'\'')
                    .map_or(bytes.len(), |offset| i + 1 + offset);
            }
            b'(' if !in_double => depth += 1,
            b')' if !in_double => {
                depth -= 1;
                if depth == 0 {
                    return (i, i + 1, arithmetic);
                }
            }
            _ => {}
        }
        i += 1;
    }
    (bytes.len(), bytes.len(), arithmetic)
}

/// The index of the backtick closing one opened just before `start` (or the text's end).
fn backtick_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'`' => return i,
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_every_separator() {
        assert_eq!(
            split_commands("a && b || c; d | e & f\ng |& h"),
            ["a", "b", "c", "d", "e", "f", "g", "h"]
        );
    }

    #[test]
    fn a_single_command_is_one_part() {
        assert_eq!(
            split_commands("  git status --short  "),
            ["git status --short"]
        );
        assert!(split_commands("   ").is_empty());
    }

    #[test]
    fn quotes_hide_separators() {
        assert_eq!(
            split_commands(r#"echo 'a; b' "c && d" e\;f"#),
            [r#"echo 'a; b' "c && d" e\;f"#]
        );
    }

    #[test]
    fn substitutions_are_parts_of_their_own() {
        assert_eq!(
            split_commands("echo $(rm -rf x; ls) `whoami` && cat <(curl evil)"),
            [
                "echo $(rm -rf x; ls) `whoami`",
                "rm -rf x",
                "ls",
                "whoami",
                "cat <(curl evil)",
                "curl evil"
            ]
        );
    }

    #[test]
    fn substitutions_run_inside_double_quotes_but_not_single_quotes() {
        assert_eq!(
            split_commands(r#"echo "$(id)" '$(not run)' "`date`""#),
            [r#"echo "$(id)" '$(not run)' "`date`""#, "id", "date"]
        );
    }

    #[test]
    fn nested_substitutions_are_found() {
        assert_eq!(
            split_commands("echo $(cat $(ls))"),
            ["echo $(cat $(ls))", "cat $(ls)", "ls"]
        );
    }

    #[test]
    fn arithmetic_is_not_a_command() {
        assert_eq!(split_commands("echo $((1 + 2))"), ["echo $((1 + 2))"]);
    }

    #[test]
    fn redirection_ampersands_do_not_split() {
        assert_eq!(
            split_commands("make 2>&1 | tee log &> out"),
            ["make 2>&1", "tee log &> out"]
        );
    }

    #[test]
    fn deep_nesting_stops_splitting_without_overflowing() {
        let deep = "$(".repeat(10_000) + "ls";
        assert!(!split_commands(&deep).is_empty());
    }

    #[test]
    fn unclosed_quotes_and_substitutions_do_not_panic() {
        for text in [
            "echo 'open",
            "echo \"open",
            "echo $(open",
            "echo `open",
            "\\",
            "a &&",
        ] {
            let _ = split_commands(text);
            let _ = has_output_redirection(text);
        }
    }

    #[test]
    fn output_redirections_are_found() {
        assert!(has_output_redirection("git status > ~/.bashrc"));
        assert!(has_output_redirection("echo hi >> log"));
        assert!(has_output_redirection("make &> log"));
        assert!(has_output_redirection("make 2>errors.txt"));
        assert!(has_output_redirection("echo x >| file"));
    }

    #[test]
    fn dev_null_descriptors_and_quoted_arrows_are_not_output_redirections() {
        assert!(!has_output_redirection("git status > /dev/null 2>&1"));
        assert!(!has_output_redirection("make 2>/dev/null"));
        assert!(!has_output_redirection("echo 'a > b' \"c > d\""));
        assert!(!has_output_redirection("diff <(ls a) >(cat)"));
        assert!(!has_output_redirection("echo done >&2"));
    }
}

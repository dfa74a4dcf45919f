//! Which tools a hook applies to: Claude Code's matcher syntax.
//!
//! - empty or `*`: every tool;
//! - a plain name, or plain names joined by `|` (`Edit|Write`): exact matches;
//! - anything else: a regular expression, unanchored like JavaScript's `RegExp.test`
//!   (`mcp__github__.*`, `^Notebook`).
//!
//! "Plain" means letters, digits, `_` and `-`: Claude Code's plain names have no `-`, but our
//! tool names may (`read-file`), and a name with `-` read as an unanchored regex would also
//! match longer names.
//!
//! A matcher is tested against every name of the tool (its name and its aliases), so a `Bash`
//! hook applies to a tool aliased `Bash`. [`Matcher::matched`] says by which name: the
//! canonical name when the matcher matches it (always for `*`), else the first alias it matches.
//! A hook receives that name as `tool_name`, so a script written for Claude Code that tests
//! `tool_name == "Bash"` sees `Bash`.

use std::fmt;

use regex::Regex;

/// A parsed matcher.
///
/// ```
/// use tool_core::hooks::Matcher;
///
/// let edits = Matcher::new("Edit|Write").unwrap();
/// assert!(edits.matches(&["write_file", "Write"]));
/// assert!(!edits.matches(&["WriteAll"]));
///
/// let mcp = Matcher::new("mcp__github__.*").unwrap();
/// assert!(mcp.matches(&["mcp__github__create_issue"]));
///
/// assert!(Matcher::new("*").unwrap().matches(&["anything"]));
///
/// // By which name: the canonical one (first) when it matches, else the first alias.
/// assert_eq!(edits.matched(&["write_file", "Write"]), Some("Write"));
/// assert_eq!(Matcher::new("write_.*|Write").unwrap().matched(&["write_file", "Write"]), Some("write_file"));
/// assert_eq!(Matcher::every().matched(&["write_file", "Write"]), Some("write_file"));
/// assert!(Matcher::new("Bash(").unwrap_err().to_string().contains("`Bash(`"));
/// ```
#[derive(Debug, Clone)]
pub struct Matcher {
    source: String,
    kind: MatcherKind,
}

#[derive(Debug, Clone)]
enum MatcherKind {
    Every,
    Names(Vec<String>),
    Pattern(Regex),
}

/// A matcher that is neither plain names nor a valid regular expression.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "hook matcher `{matcher}` is not a valid regular expression ({source}); write `*` for every tool, `Name` or `A|B` for exact names, or a valid regex"
)]
pub struct MatcherError {
    /// The matcher as written.
    pub matcher: String,
    /// What the regex parser said.
    pub source: regex::Error,
}

impl Matcher {
    /// Parses a matcher.
    ///
    /// # Errors
    ///
    /// [`MatcherError`] if the matcher is read as a regex and does not compile.
    pub fn new(matcher: &str) -> Result<Self, MatcherError> {
        let trimmed = matcher.trim();
        let kind = if trimmed.is_empty() || trimmed == "*" {
            MatcherKind::Every
        } else if trimmed
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|'))
        {
            MatcherKind::Names(
                trimmed
                    .split('|')
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned)
                    .collect(),
            )
        } else {
            MatcherKind::Pattern(Regex::new(trimmed).map_err(|error| MatcherError {
                matcher: matcher.to_owned(),
                source: error,
            })?)
        };
        Ok(Matcher {
            source: matcher.to_owned(),
            kind,
        })
    }

    /// A matcher for every tool.
    #[must_use]
    pub fn every() -> Self {
        Matcher {
            source: String::new(),
            kind: MatcherKind::Every,
        }
    }

    /// `true` if any of the tool's names matches (every matcher matches a tool given no names
    /// only if it is `*`).
    #[must_use]
    pub fn matches(&self, tool_names: &[&str]) -> bool {
        matches!(self.kind, MatcherKind::Every) || self.matched(tool_names).is_some()
    }

    /// The first of `tool_names` this matcher matches: with the canonical name first, as
    /// [`ToolSpec::names`](crate::spec::ToolSpec::names) gives them, that is the canonical name
    /// when it matches (`*` matches it always), else the first alias that matches. `None` when
    /// no name matches.
    #[must_use]
    pub fn matched<'n>(&self, tool_names: &[&'n str]) -> Option<&'n str> {
        tool_names.iter().copied().find(|tool| match &self.kind {
            MatcherKind::Every => true,
            MatcherKind::Names(names) => names.iter().any(|name| name == tool),
            MatcherKind::Pattern(pattern) => pattern.is_match(tool),
        })
    }

    /// The matcher as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.source
    }
}

impl fmt::Display for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.source.is_empty() {
            f.write_str("*")
        } else {
            f.write_str(&self.source)
        }
    }
}

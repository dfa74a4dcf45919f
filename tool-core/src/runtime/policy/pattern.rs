//! Permission rules as users write them (Claude Code's settings syntax), parsed once and
//! compiled into [`PatternSet`]s that answer "does a rule cover this call?" quickly.
//!
//! | Rule                              | Covers                                                  |
//! |-----------------------------------|---------------------------------------------------------|
//! | `read_file`                       | every call of the tool (or of a tool aliased so)        |
//! | `run_shell(git status *)`, `run_shell(git status:*)` | `git status` and commands starting with `git status ` (a word boundary: not `git statusx`) |
//! | `run_shell(npm test)`             | exactly the command `npm test`; as a path glob on a tool with path arguments |
//! | `run_shell(git * main)`, `run_shell(* --version)` | `*` anywhere: any run of characters, spaces included |
//! | `run_shell(ls*)`                  | no space before `*`: `ls`, `ls -la` and `lsof` alike     |
//! | `Tool(param:value)`               | calls whose top-level argument `param` has this value (`*` wildcards); a tool without that argument reads the text as above |
//! | `Read(./secrets/**)`              | the paths of every read-only call                       |
//! | `Edit(src/**)`, `Write(src/**)`   | the paths of every call that is not read-only           |
//! | `fetch_url(domain:example.com)`   | URLs on that host (`*.example.com`: its subdomains)     |
//! | `mcp__server__*`, `mcp__server`   | every tool of the MCP server `server`                   |
//!
//! A rule with a specifier judges the call's resources of the fitting kind (commands for
//! command patterns, paths for globs, URLs for domains); when the call has none of them, the
//! rule does not apply. Commands are analysed first ([`shell`](super::shell)): every simple
//! command that would run is judged, after quote removal, wrappers peeled, scripts of `sh -c`
//! and `eval` read. A deny or ask rule applies when it matches any of them (a program named by
//! a path, `/bin/rm`, also by its name); allow rules cover a command line only when each of
//! them (with the assignments written in front of it) is covered by some allow rule, and never
//! one whose program is only known at run time.
//!
//! **Redirections:** an allow rule does not cover a command that writes a file through an
//! output redirection (`>`, `>>`, `&>`; `/dev/null` excepted) unless the rule's text contains
//! it: `run_shell(git status:*)` does not allow `git status > ~/.bashrc`. The file written is
//! a path of the call, confined and matched by `Edit(..)` rules like any other.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde_json::Value;

use super::ClassifiedCall;
use super::paths::{PathCandidate, PathPattern, PathPatternError};
use super::shell::{CommandLine, Run};
use crate::definition::spec::{ResourceKind, ToolSpec};

pub(super) const EXAMPLES: &str = "valid rules look like `read_file`, `run_shell(git status *)`, `run_shell(npm test)`, `Read(./secrets/**)`, `Edit(src/**)`, `fetch_url(domain:example.com)` or `mcp__server__*`";

/// A permission rule that could not be parsed. Each message names the rule, says what is
/// wrong, and shows what valid rules look like.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleSyntaxError {
    /// Nothing was written.
    #[error("a permission rule is empty; {EXAMPLES}")]
    Empty,
    /// The tool name has characters tool names cannot have.
    #[error(
        "permission rule `{rule}`: `{name}` is not a tool name (letters, digits, `_`, `-`, `.`, and `*` as a wildcard); {EXAMPLES}"
    )]
    InvalidToolName {
        /// The rule as written.
        rule: String,
        /// The tool-name part.
        name: String,
    },
    /// A `(` without a closing `)` at the end.
    #[error(
        "permission rule `{rule}`: the specifier is not closed; write `tool(specifier)` with the `)` last; {EXAMPLES}"
    )]
    UnclosedSpecifier {
        /// The rule as written.
        rule: String,
    },
    /// `tool()`.
    #[error(
        "permission rule `{rule}`: the parentheses are empty; write the tool name alone to cover every call, or put a command, path or `domain:` inside; {EXAMPLES}"
    )]
    EmptySpecifier {
        /// The rule as written.
        rule: String,
    },
    /// `tool(:*)`.
    #[error(
        "permission rule `{rule}`: the command prefix before `:*` is empty; write the tool name alone to cover every command, or a prefix such as `run_shell(git status *)`"
    )]
    EmptyCommandPrefix {
        /// The rule as written.
        rule: String,
    },
    /// `tool(domain:)` or a domain with characters hosts cannot have.
    #[error(
        "permission rule `{rule}`: `{domain}` is not a domain; write a host such as `fetch_url(domain:example.com)`, or `fetch_url(domain:*.example.com)` for its subdomains"
    )]
    InvalidDomain {
        /// The rule as written.
        rule: String,
        /// The domain part.
        domain: String,
    },
    /// A path pattern that is not a valid glob.
    #[error(
        "permission rule `{rule}`: `{pattern}` is not a valid path pattern ({problem}); write a gitignore-style glob such as `Read(./secrets/**)`, `Edit(src/**/*.rs)` or `Read(*.env)`"
    )]
    InvalidPathPattern {
        /// The rule as written.
        rule: String,
        /// The pattern.
        pattern: String,
        /// What is wrong with it.
        problem: PathPatternError,
    },
}

/// Which tools a rule is about.
#[derive(Debug, Clone)]
pub(super) enum ToolMatcher {
    /// A tool answering to this name (its name or an alias).
    Name(String),
    /// Tool names matching a pattern with `*` wildcards, split at the wildcards.
    Wildcard(Vec<String>),
    /// `mcp__server`: that tool and every `mcp__server__...` tool.
    Server(String),
    /// `Read(glob)`: the paths of every read-only call.
    ReadPaths,
    /// `Edit(glob)`, `Write(glob)`: the paths of every call that is not read-only.
    EditPaths,
}

impl ToolMatcher {
    /// `true` when the tool answers to a name (its own or an alias) this matcher names.
    pub(super) fn names_tool(&self, spec: &ToolSpec) -> bool {
        let mut names = spec.names();
        match self {
            ToolMatcher::Name(wanted) => names.any(|name| name == wanted),
            ToolMatcher::Wildcard(pieces) => names.any(|name| wildcard_matches(pieces, name)),
            ToolMatcher::Server(server) => names.any(|name| {
                name.strip_prefix(server.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with("__"))
            }),
            ToolMatcher::ReadPaths | ToolMatcher::EditPaths => false,
        }
    }
}

/// `true` for the tool part of a rule: letters, digits, `_`, `-`, `.`, and `*` wildcards.
pub(super) fn is_tool_name_pattern(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.*".contains(&b))
}

/// Which of a tool's resources a rule is about.
#[derive(Debug, Clone)]
pub(super) enum Specifier {
    /// Every call.
    Whole,
    /// Commands matching this pattern; or, for path arguments, the same text as a glob (when
    /// it is one).
    Command {
        pattern: CommandPattern,
        glob: Option<PathPattern>,
    },
    /// Paths matching this glob.
    Glob(PathPattern),
    /// URLs on this host.
    Domain { domain: String, subdomains: bool },
    /// `param:value`: calls whose top-level argument `name` matches `value` (split at its
    /// `*` wildcards); for a call without that argument, `otherwise`.
    Param {
        name: String,
        value: Vec<String>,
        otherwise: Box<Specifier>,
    },
}

/// A command pattern: `*` matches any run of characters; a trailing ` *` or `:*` also matches
/// nothing at all, so `git status *` covers `git status` itself.
#[derive(Debug, Clone)]
pub(super) struct CommandPattern {
    /// The pattern as written, less a trailing ` *` or `:*`.
    pub(super) text: String,
    /// `text` split at its `*`s.
    core: Vec<String>,
    /// For a word prefix: `text`, a space and anything, split at the `*`s.
    then_more: Option<Vec<String>>,
}

impl CommandPattern {
    fn new(text: &str, word_prefix: bool) -> Self {
        let core: Vec<String> = text.split('*').map(str::to_owned).collect();
        let then_more = word_prefix.then(|| {
            let mut pieces = core.clone();
            if let Some(last) = pieces.last_mut() {
                last.push(' ');
            }
            pieces.push(String::new());
            pieces
        });
        CommandPattern {
            text: text.to_owned(),
            core,
            then_more,
        }
    }

    pub(super) fn matches(&self, command: &str) -> bool {
        wildcard_matches(&self.core, command)
            || self
                .then_more
                .as_ref()
                .is_some_and(|pieces| wildcard_matches(pieces, command))
    }

    /// The first word of the pattern when it is literal (no `*` in it): rules are indexed by
    /// it.
    pub(super) fn first_word(&self) -> Option<&str> {
        let word = self.text.split(' ').next().unwrap_or(&self.text);
        (!word.contains('*') && !word.is_empty()).then_some(word)
    }

    /// A `*` before the end (other than the word-prefix tail): such an allow rule allows more
    /// than it seems to (`git * main` also covers `git push --force origin main`).
    pub(super) fn has_inner_wildcard(&self) -> bool {
        self.text.contains('*')
    }
}

/// One permission rule, parsed.
///
/// ```
/// use tool_core::policy::RulePattern;
///
/// let rule: RulePattern = "run_shell(git status:*)".parse().unwrap();
/// assert_eq!(rule.as_str(), "run_shell(git status:*)");
/// let error = RulePattern::parse("run_shell(git status").unwrap_err();
/// assert!(error.to_string().contains("not closed"));
/// ```
#[derive(Debug, Clone)]
pub struct RulePattern {
    pub(super) text: String,
    pub(super) tool: ToolMatcher,
    pub(super) specifier: Specifier,
}

impl RulePattern {
    /// Parses a rule.
    ///
    /// # Errors
    /// When the rule is empty, its tool name has characters tool names cannot have, its
    /// parentheses are not closed or empty, or its path glob or domain is invalid.
    pub fn parse(text: &str) -> Result<Self, RuleSyntaxError> {
        let rule = text.trim();
        if rule.is_empty() {
            return Err(RuleSyntaxError::Empty);
        }
        let (name, inner) = match rule.split_once('(') {
            None => (rule, None),
            Some((name, rest)) => {
                let inner =
                    rest.strip_suffix(')')
                        .ok_or_else(|| RuleSyntaxError::UnclosedSpecifier {
                            rule: rule.to_owned(),
                        })?;
                (name.trim_end(), Some(inner.trim()))
            }
        };
        if !is_tool_name_pattern(name) {
            return Err(RuleSyntaxError::InvalidToolName {
                rule: rule.to_owned(),
                name: name.to_owned(),
            });
        }
        let path_rule = match name {
            "Read" => Some(ToolMatcher::ReadPaths),
            "Edit" | "Write" => Some(ToolMatcher::EditPaths),
            _ => None,
        };
        let glob = |pattern: &str| {
            PathPattern::parse(pattern).map_err(|problem| RuleSyntaxError::InvalidPathPattern {
                rule: rule.to_owned(),
                pattern: pattern.to_owned(),
                problem,
            })
        };
        let (tool, specifier) = match (inner, path_rule) {
            (Some(""), _) => {
                return Err(RuleSyntaxError::EmptySpecifier {
                    rule: rule.to_owned(),
                });
            }
            (Some(pattern), Some(matcher)) => (matcher, Specifier::Glob(glob(pattern)?)),
            (inner, _) => {
                let specifier = match inner {
                    None | Some("*") => Specifier::Whole,
                    Some(inner) => parse_specifier(rule, inner)?,
                };
                (tool_matcher(name), specifier)
            }
        };
        Ok(RulePattern {
            text: rule.to_owned(),
            tool,
            specifier,
        })
    }

    /// The rule as written (trimmed).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// `true` when the rule covers every call of the tools it names (no specifier).
    #[must_use]
    pub fn is_whole_tool(&self) -> bool {
        matches!(self.specifier, Specifier::Whole)
    }

    /// Why this rule, as an allow rule, allows more than it reads, if it does: a `*` before the
    /// end of a command pattern (`run_shell(git * main)` also allows
    /// `git push --force origin main`).
    ///
    /// ```
    /// use tool_core::policy::RulePattern;
    ///
    /// assert!(RulePattern::parse("Bash(git * main)").unwrap().allow_warning().is_some());
    /// assert!(RulePattern::parse("Bash(git status *)").unwrap().allow_warning().is_none());
    /// ```
    #[must_use]
    pub fn allow_warning(&self) -> Option<String> {
        let pattern = match &self.specifier {
            Specifier::Command { pattern, .. } => pattern,
            Specifier::Param { otherwise, .. } => match otherwise.as_ref() {
                Specifier::Command { pattern, .. } => pattern,
                _ => return None,
            },
            _ => return None,
        };
        pattern.has_inner_wildcard().then(|| {
            format!(
                "the allow rule `{}` has a `*` before the end of its command, so it allows any text there, options and other commands' arguments included; prefer a rule that ends in ` *`",
                self.text
            )
        })
    }

    /// For a `param:value` rule and a call that has the argument `param`: whether its value
    /// matches. `None` for other rules, and for calls without that argument.
    pub(super) fn param_match(&self, call: &ClassifiedCall<'_>) -> Option<bool> {
        let Specifier::Param { name, value, .. } = &self.specifier else {
            return None;
        };
        let arguments: serde_json::Map<String, Value> =
            serde_json::from_str(call.arguments).ok()?;
        let text = match arguments.get(name)? {
            Value::String(text) => text.clone(),
            Value::Null => return None,
            other => other.to_string(),
        };
        Some(wildcard_matches(value, &text))
    }

    /// The command pattern of a rule for commands (also a `param:value` rule's fallback).
    pub(super) fn command_pattern(&self) -> Option<&CommandPattern> {
        match self.item_specifier() {
            Specifier::Command { pattern, .. } => Some(pattern),
            _ => None,
        }
    }

    /// The specifier items are matched with: a `param:value` rule's fallback.
    fn item_specifier(&self) -> &Specifier {
        match &self.specifier {
            Specifier::Param { otherwise, .. } => otherwise,
            other => other,
        }
    }

    pub(super) fn names_tool(&self, spec: &ToolSpec) -> bool {
        self.tool.names_tool(spec)
    }

    /// `true` when the rule's specifier matches this one resource. `for_allow` turns on the
    /// redirection guard of command prefixes.
    pub(super) fn matches_item(
        &self,
        item: &Item<'_>,
        home: Option<&Path>,
        for_allow: bool,
    ) -> bool {
        match (self.item_specifier(), item) {
            (Specifier::Whole, _) => true,
            (Specifier::Command { pattern, .. }, Item::Command(run)) => {
                if for_allow {
                    // A rule covers a command that writes a file only if it names the
                    // redirection itself.
                    let text = if pattern.text.contains('>') {
                        run.text_with_redirects()
                    } else if run.writes_output {
                        return false;
                    } else {
                        run.text_with_assignments()
                    };
                    run.program().is_some() && pattern.matches(&text)
                } else {
                    run.deny_texts().iter().any(|text| pattern.matches(text))
                }
            }
            (
                Specifier::Command {
                    glob: Some(glob), ..
                }
                | Specifier::Glob(glob),
                Item::Path(path),
            ) => glob.matches(path, home),
            (Specifier::Domain { domain, subdomains }, Item::Url(url)) => {
                host_matches(url_host(url), domain, *subdomains)
            }
            _ => false,
        }
    }
}

impl FromStr for RulePattern {
    type Err = RuleSyntaxError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        RulePattern::parse(text)
    }
}

impl fmt::Display for RulePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

pub(super) fn tool_matcher(name: &str) -> ToolMatcher {
    if name.contains('*') {
        ToolMatcher::Wildcard(name.split('*').map(str::to_owned).collect())
    } else if name
        .strip_prefix("mcp__")
        .is_some_and(|server| !server.is_empty() && !server.contains("__"))
    {
        ToolMatcher::Server(name.to_owned())
    } else {
        ToolMatcher::Name(name.to_owned())
    }
}

pub(super) fn parse_specifier(rule: &str, inner: &str) -> Result<Specifier, RuleSyntaxError> {
    if let Some(domain) = inner.strip_prefix("domain:") {
        let domain = domain.trim().to_ascii_lowercase();
        let (host, subdomains) = match domain.strip_prefix("*.") {
            Some(host) => (host.to_owned(), true),
            None => (domain.clone(), false),
        };
        let valid = !host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._:[]".contains(&b));
        if !valid {
            return Err(RuleSyntaxError::InvalidDomain {
                rule: rule.to_owned(),
                domain,
            });
        }
        return Ok(Specifier::Domain {
            domain: host,
            subdomains,
        });
    }
    // `git status:*` (the older form) and `git status *` (the documented one) are the same
    // word-bounded prefix.
    let (core, word_prefix) = if let Some(core) = inner.strip_suffix(":*") {
        (core.trim_end(), true)
    } else if let Some(core) = inner.strip_suffix(" *") {
        (core.trim_end(), true)
    } else {
        (inner, false)
    };
    if word_prefix && core.is_empty() {
        return Err(RuleSyntaxError::EmptyCommandPrefix {
            rule: rule.to_owned(),
        });
    }
    let command = command_specifier(rule, inner, core, word_prefix)?;
    // `param:value`: an argument's name, a colon, a value (not the `:*` prefix form).
    if !word_prefix
        && let Some((name, value)) = inner.split_once(':')
        && !value.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && name.bytes().next().is_some_and(|b| !b.is_ascii_digit())
    {
        return Ok(Specifier::Param {
            name: name.to_owned(),
            value: value.split('*').map(str::to_owned).collect(),
            otherwise: Box::new(command),
        });
    }
    Ok(command)
}

/// A command pattern, and the same text as a glob for path arguments.
fn command_specifier(
    rule: &str,
    inner: &str,
    core: &str,
    word_prefix: bool,
) -> Result<Specifier, RuleSyntaxError> {
    // Text with spaces is almost surely a command, so only a glob without spaces must compile.
    let glob = if word_prefix {
        None
    } else {
        match PathPattern::parse(inner) {
            Ok(glob) => Some(glob),
            Err(_) if inner.contains(char::is_whitespace) => None,
            Err(problem) => {
                return Err(RuleSyntaxError::InvalidPathPattern {
                    rule: rule.to_owned(),
                    pattern: inner.to_owned(),
                    problem,
                });
            }
        }
    };
    Ok(Specifier::Command {
        pattern: CommandPattern::new(core, word_prefix),
        glob,
    })
}

/// `pieces` is a pattern split at its `*`s, each of which matches any run of characters.
pub(super) fn wildcard_matches(pieces: &[String], name: &str) -> bool {
    let Some((first, rest_pieces)) = pieces.split_first() else {
        return name.is_empty();
    };
    let Some(mut rest) = name.strip_prefix(first.as_str()) else {
        return false;
    };
    let Some((last, middle)) = rest_pieces.split_last() else {
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece.as_str()) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last.as_str())
}

/// The host of a URL, lexically (`https://user@Example.com:8080/x` → `Example.com`); the whole
/// text when it has no scheme.
pub(super) fn url_host(url: &str) -> &str {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority_end = after_scheme
        .find(['/', '?', '#'])
        .unwrap_or(after_scheme.len());
    let authority = &after_scheme[..authority_end];
    let host_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = if host_port.starts_with('[') {
        host_port
            .find(']')
            .map_or(host_port, |end| &host_port[..=end])
    } else {
        host_port.split(':').next().unwrap_or(host_port)
    };
    host.trim_end_matches('.')
}

pub(super) fn host_matches(host: &str, domain: &str, subdomains: bool) -> bool {
    if subdomains {
        host.len() > domain.len() + 1
            && host.as_bytes()[host.len() - domain.len() - 1] == b'.'
            && host[host.len() - domain.len()..].eq_ignore_ascii_case(domain)
    } else {
        host.eq_ignore_ascii_case(domain)
    }
}

/// One resource of a call, as rules see it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Item<'a> {
    /// One command a command line would run.
    Command(&'a Run),
    /// A part of a command line that could not be read (it does not parse, it writes to a
    /// file named at run time, it sets a variable in its shell): no rule for commands covers it.
    Unreadable,
    /// A path argument.
    Path(PathCandidate<'a>),
    /// A URL argument.
    Url(&'a str),
}

/// Calls `visit` with every resource of the call: each command each command argument would
/// run, each path (resolved when the call has resolved paths, else read lexically), each URL.
/// Stops (and returns `false`) when `visit` does.
pub(crate) fn for_each_item(
    call: &ClassifiedCall<'_>,
    visit: &mut dyn FnMut(Item<'_>) -> bool,
) -> bool {
    let mut analysed = call.commands.iter();
    for resource in call.resources {
        let keep_going = match resource.kind {
            ResourceKind::Command => match analysed.next() {
                Some(line) => visit_command_line(line, visit),
                // Not analysed by the caller: analysed here.
                None => visit_command_line(&CommandLine::analyze(&resource.value), visit),
            },
            ResourceKind::Url => visit(Item::Url(&resource.value)),
            ResourceKind::Path if call.paths.is_empty() => {
                visit(Item::Path(PathCandidate::lexical(&resource.value)))
            }
            ResourceKind::Path => true,
        };
        if !keep_going {
            return false;
        }
    }
    call.paths.iter().all(|path| {
        visit(Item::Path(PathCandidate {
            relative: path.relative.as_deref(),
            absolute: Some(&path.absolute),
        }))
    })
}

fn visit_command_line(line: &CommandLine, visit: &mut dyn FnMut(Item<'_>) -> bool) -> bool {
    // A variable set in the shell reaches the commands after it: `PATH=.; ls` runs `./ls`,
    // `HOME=/tmp/x; git status` reads `/tmp/x/.gitconfig`. Only the locale's and `TZ` are
    // known to change nothing but how output looks.
    let sets_variables = line
        .assigned_variables()
        .iter()
        .any(|name| !(name == "LANG" || name == "TZ" || name.starts_with("LC_")));
    let unreadable = !line.problems().is_empty()
        || sets_variables
        || line.writes().iter().any(|write| !write.target.is_exact());
    (!unreadable || visit(Item::Unreadable))
        && line.runs().iter().all(|run| visit(Item::Command(run)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wildcard(pattern: &str, name: &str) -> bool {
        let pieces: Vec<String> = pattern.split('*').map(str::to_owned).collect();
        wildcard_matches(&pieces, name)
    }

    #[test]
    fn wildcards_match_any_run_of_characters() {
        assert!(wildcard("mcp__github__*", "mcp__github__create_issue"));
        assert!(!wildcard("mcp__github__*", "mcp__gitlab__create_issue"));
        assert!(wildcard("*_file", "read_file"));
        assert!(wildcard("a*b*c", "a-x-b-y-c"));
        assert!(!wildcard("a*b*c", "a-x-c"));
        assert!(!wildcard("ab*ba", "aba"));
    }

    #[test]
    fn command_prefixes_end_on_a_word_boundary() {
        let prefix = CommandPattern::new("git status", true);
        assert!(prefix.matches("git status"));
        assert!(prefix.matches("git status --short"));
        assert!(!prefix.matches("git statusx"));
        let anywhere = CommandPattern::new("git * main", false);
        assert!(anywhere.matches("git push origin main"));
        assert!(!anywhere.matches("git push origin main2"));
        let both = CommandPattern::new("npm run *", true);
        assert!(both.matches("npm run build --watch"));
    }

    #[test]
    fn hosts_are_read_from_urls() {
        assert_eq!(
            url_host("https://user:pw@Docs.Example.com:8443/a?b#c"),
            "Docs.Example.com"
        );
        assert_eq!(url_host("example.com/path"), "example.com");
        assert_eq!(url_host("http://[::1]:80/"), "[::1]");
        assert!(host_matches("docs.example.com", "example.com", true));
        assert!(!host_matches("example.com", "example.com", true));
        assert!(!host_matches("badexample.com", "example.com", true));
        assert!(host_matches("EXAMPLE.com", "example.com", false));
    }

    #[test]
    fn rules_parse_into_their_kinds() {
        let kinds = |text: &str| {
            let rule = RulePattern::parse(text).unwrap();
            (format!("{:?}", rule.tool), format!("{:?}", rule.specifier))
        };
        assert!(kinds("Read(./secrets/**)").0.contains("ReadPaths"));
        assert!(kinds("Write(src/**)").0.contains("EditPaths"));
        assert!(kinds("mcp__server").0.contains("Server"));
        assert!(kinds("mcp__server__*").0.contains("Wildcard"));
        assert!(kinds("run_shell(*)").1.contains("Whole"));
        assert!(
            kinds("run_shell(git status:*)")
                .1
                .contains("then_more: Some")
        );
        assert!(
            kinds("run_shell(git status *)")
                .1
                .contains("then_more: Some")
        );
        assert!(kinds("run_shell(npm test)").1.contains("then_more: None"));
        assert!(kinds("Tool(path:src/*)").1.contains("Param"));
        assert!(
            kinds("fetch_url(domain:*.example.com)")
                .1
                .contains("subdomains: true")
        );
    }
}

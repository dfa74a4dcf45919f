//! Permission rules as users write them (Claude Code's settings syntax), parsed once and
//! compiled into [`PermissionSet`]s that answer "does a rule cover this call?" quickly.
//!
//! | Rule                              | Covers                                                  |
//! |-----------------------------------|---------------------------------------------------------|
//! | `read_file`                       | every call of the tool (or of a tool aliased so)        |
//! | `run_shell(git status:*)`         | commands starting with `git status`, on a word boundary |
//! | `run_shell(npm test)`             | exactly the command `npm test`; as a path glob on a tool with path arguments |
//! | `Read(./secrets/**)`              | the paths of every read-only call                       |
//! | `Edit(src/**)`, `Write(src/**)`   | the paths of every call that is not read-only           |
//! | `fetch_url(domain:example.com)`   | URLs on that host (`*.example.com`: its subdomains)     |
//! | `mcp__server__*`, `mcp__server`   | every tool of the MCP server `server`                   |
//!
//! A rule with a specifier judges the call's resources of the fitting kind (commands for
//! prefixes and exact commands, paths for globs, URLs for domains); when the call has none of
//! them, the rule does not apply. Commands are split first ([`shell`](super::shell)): a deny
//! or ask rule applies when it matches any part, and allow rules cover a compound command only
//! when every part is covered by some allow rule.
//!
//! **Redirections:** an allow rule with a command prefix does not cover a command that writes
//! a file through an output redirection (`>`, `>>`, `&>`; `/dev/null` excepted) unless the
//! rule's own text contains the redirection: `run_shell(git status:*)` does not allow
//! `git status > ~/.bashrc`.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::ClassifiedCall;
use super::paths::{PathCandidate, PathPattern, PathPatternError, PathPatternSet};
use super::shell::{for_each_command, has_output_redirection};
use crate::spec::{ResourceKind, ToolSpec};

const EXAMPLES: &str = "valid rules look like `read_file`, `run_shell(git status:*)`, `run_shell(npm test)`, `Read(./secrets/**)`, `Edit(src/**)`, `fetch_url(domain:example.com)` or `mcp__server__*`";

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
        "permission rule `{rule}`: the command prefix before `:*` is empty; write the tool name alone to cover every command, or a prefix such as `run_shell(git status:*)`"
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
enum ToolMatcher {
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

/// Which of a tool's resources a rule is about.
#[derive(Debug, Clone)]
enum Specifier {
    /// Every call.
    Whole,
    /// Commands starting with this, on a word boundary.
    Prefix(String),
    /// Exactly this command; or, for path arguments, this glob (when it is one).
    Literal {
        command: String,
        glob: Option<PathPattern>,
    },
    /// Paths matching this glob.
    Glob(PathPattern),
    /// URLs on this host.
    Domain { domain: String, subdomains: bool },
}

/// One permission rule, parsed.
///
/// ```
/// use tool_core::policy::PermissionRule;
///
/// let rule: PermissionRule = "run_shell(git status:*)".parse().unwrap();
/// assert_eq!(rule.as_str(), "run_shell(git status:*)");
/// let error = PermissionRule::parse("run_shell(git status").unwrap_err();
/// assert!(error.to_string().contains("not closed"));
/// ```
#[derive(Debug, Clone)]
pub struct PermissionRule {
    text: String,
    tool: ToolMatcher,
    specifier: Specifier,
}

impl PermissionRule {
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
        let valid_name = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_-.*".contains(&b));
        if !valid_name {
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
        Ok(PermissionRule {
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

    fn names_tool(&self, spec: &ToolSpec) -> bool {
        let mut names = spec.names();
        match &self.tool {
            ToolMatcher::Name(wanted) => names.any(|name| name == wanted),
            ToolMatcher::Wildcard(pieces) => names.any(|name| wildcard_matches(pieces, name)),
            ToolMatcher::Server(server) => names.any(|name| {
                name.strip_prefix(server.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with("__"))
            }),
            ToolMatcher::ReadPaths | ToolMatcher::EditPaths => false,
        }
    }

    /// `true` when the rule's specifier matches this one resource. `for_allow` turns on the
    /// redirection guard of command prefixes.
    fn matches_item(&self, item: &Item<'_>, home: Option<&Path>, for_allow: bool) -> bool {
        match (&self.specifier, item) {
            (Specifier::Whole, _) => true,
            (Specifier::Prefix(prefix), Item::Command(command)) => {
                prefix_matches(prefix, command)
                    && !(for_allow && !prefix.contains('>') && has_output_redirection(command))
            }
            (Specifier::Literal { command: text, .. }, Item::Command(command)) => text == command,
            (
                Specifier::Literal {
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

impl FromStr for PermissionRule {
    type Err = RuleSyntaxError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        PermissionRule::parse(text)
    }
}

impl fmt::Display for PermissionRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn tool_matcher(name: &str) -> ToolMatcher {
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

fn parse_specifier(rule: &str, inner: &str) -> Result<Specifier, RuleSyntaxError> {
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
    if let Some(prefix) = inner.strip_suffix(":*") {
        let prefix = prefix.trim();
        if prefix.is_empty() {
            return Err(RuleSyntaxError::EmptyCommandPrefix {
                rule: rule.to_owned(),
            });
        }
        return Ok(Specifier::Prefix(prefix.to_owned()));
    }
    // Without a marker the text is an exact command for command arguments and a glob for path
    // arguments. Text with spaces is almost surely a command, so only a glob without spaces
    // must compile.
    let glob = match PathPattern::parse(inner) {
        Ok(glob) => Some(glob),
        Err(_) if inner.contains(char::is_whitespace) => None,
        Err(problem) => {
            return Err(RuleSyntaxError::InvalidPathPattern {
                rule: rule.to_owned(),
                pattern: inner.to_owned(),
                problem,
            });
        }
    };
    Ok(Specifier::Literal {
        command: inner.to_owned(),
        glob,
    })
}

fn prefix_matches(prefix: &str, command: &str) -> bool {
    command
        .strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
}

/// `pieces` is a pattern split at its `*`s, each of which matches any run of characters.
fn wildcard_matches(pieces: &[String], name: &str) -> bool {
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
fn url_host(url: &str) -> &str {
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

fn host_matches(host: &str, domain: &str, subdomains: bool) -> bool {
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
    /// One command of a (possibly compound) command line.
    Command(&'a str),
    /// A path argument.
    Path(PathCandidate<'a>),
    /// A URL argument.
    Url(&'a str),
}

/// Calls `visit` with every resource of the call: each command of each command argument, each
/// path (resolved when the call has resolved paths, else read lexically), each URL. Stops (and
/// returns `false`) when `visit` does.
pub(crate) fn for_each_item(
    call: &ClassifiedCall<'_>,
    visit: &mut dyn FnMut(Item<'_>) -> bool,
) -> bool {
    for resource in call.resources {
        let keep_going = match resource.kind {
            ResourceKind::Command => {
                for_each_command(&resource.value, &mut |part| visit(Item::Command(part)))
            }
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

/// The three lists of a settings file's `permissions`: rules as text.
///
/// ```
/// let rules: tool_core::policy::PermissionRules = serde_json::from_str(
///     r#"{"allow": ["run_shell(git status:*)"], "deny": ["Read(./.env)"]}"#,
/// ).unwrap();
/// assert_eq!(rules.deny, ["Read(./.env)"]);
/// assert!(rules.ask.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionRules {
    /// Rules whose calls run without asking.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Rules whose calls ask the user first.
    #[serde(default)]
    pub ask: Vec<String>,
    /// Rules whose calls never run.
    #[serde(default)]
    pub deny: Vec<String>,
}

/// A compiled set of permission rules: indexed by tool name, path globs combined, so that most
/// rules are not even looked at for a call. Cheap to clone; [`with`](Self::with) makes a new
/// set with one more rule (a session grant, say) and leaves this one as it is.
///
/// ```
/// use tool_core::policy::{PermissionRule, PermissionSet};
///
/// let grants = PermissionSet::default();
/// let more = grants.with(PermissionRule::parse("write_file").unwrap());
/// assert!(grants.is_empty());
/// assert_eq!(more.len(), 1);
/// ```
#[derive(Clone, Default)]
pub struct PermissionSet {
    inner: Arc<SetInner>,
}

#[derive(Default)]
struct SetInner {
    rules: Vec<PermissionRule>,
    /// Rules for one tool name, by that name.
    by_name: FxHashMap<Box<str>, ToolRules>,
    /// Rules whose tool part is a wildcard or an MCP server.
    by_pattern: Vec<usize>,
    /// `Read(..)` rules, tested together against the paths of read-only calls.
    read_paths: PathPatternSet,
    /// `Edit(..)`/`Write(..)` rules, tested together against the paths of other calls.
    edit_paths: PathPatternSet,
}

/// The rules naming one tool.
#[derive(Default)]
struct ToolRules {
    /// Every one, in the order given.
    all: Vec<usize>,
    /// Command rules (prefixes, exact commands) by the first word of their command: a command
    /// is only compared with the rules that start with its own first word.
    by_first_word: FxHashMap<Box<str>, Vec<usize>>,
}

/// How many of a tool's names are looked up once per call; a tool with more names looks the
/// others up per resource.
const CACHED_NAMES: usize = 4;

/// A set's rules for one call's tool, looked up once.
struct Lookup<'s> {
    tools: [Option<&'s ToolRules>; CACHED_NAMES],
    /// Some wildcard or server rule names the tool.
    any_pattern_rule: bool,
}

fn first_word(command: &str) -> &str {
    command.split(char::is_whitespace).next().unwrap_or(command)
}

impl PermissionSet {
    /// A set of these rules.
    pub fn new(rules: impl IntoIterator<Item = PermissionRule>) -> Self {
        let rules: Vec<PermissionRule> = rules.into_iter().collect();
        let mut by_name: FxHashMap<Box<str>, ToolRules> = FxHashMap::default();
        let mut by_pattern = Vec::new();
        for (index, rule) in rules.iter().enumerate() {
            match &rule.tool {
                ToolMatcher::Name(name) => {
                    let tool = by_name.entry(name.as_str().into()).or_default();
                    tool.all.push(index);
                    if let Specifier::Prefix(command) | Specifier::Literal { command, .. } =
                        &rule.specifier
                    {
                        tool.by_first_word
                            .entry(first_word(command).into())
                            .or_default()
                            .push(index);
                    }
                }
                ToolMatcher::Wildcard(_) | ToolMatcher::Server(_) => by_pattern.push(index),
                ToolMatcher::ReadPaths | ToolMatcher::EditPaths => {}
            }
        }
        let globs = |wanted: fn(&ToolMatcher) -> bool| {
            PathPatternSet::new(rules.iter().enumerate().filter_map(|(index, rule)| {
                match &rule.specifier {
                    Specifier::Glob(glob) if wanted(&rule.tool) => Some((index, glob)),
                    _ => None,
                }
            }))
        };
        let read_paths = globs(|tool| matches!(tool, ToolMatcher::ReadPaths));
        let edit_paths = globs(|tool| matches!(tool, ToolMatcher::EditPaths));
        PermissionSet {
            inner: Arc::new(SetInner {
                rules,
                by_name,
                by_pattern,
                read_paths,
                edit_paths,
            }),
        }
    }

    /// Parses and compiles rules written as text.
    ///
    /// # Errors
    /// The first rule that does not parse.
    pub fn parse<I, S>(rules: I) -> Result<Self, RuleSyntaxError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let rules = rules
            .into_iter()
            .map(|rule| PermissionRule::parse(rule.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(PermissionSet::new(rules))
    }

    /// A new set with every rule of this one and `rule`.
    #[must_use]
    pub fn with(&self, rule: PermissionRule) -> Self {
        let mut rules = self.inner.rules.clone();
        rules.push(rule);
        PermissionSet::new(rules)
    }

    /// The rules, in the order given.
    #[must_use]
    pub fn rules(&self) -> &[PermissionRule] {
        &self.inner.rules
    }

    /// How many rules.
    #[must_use]
    pub fn len(&self) -> usize {
        self.inner.rules.len()
    }

    /// `true` with no rules.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.inner.rules.is_empty()
    }

    /// The first rule (in the order given) that applies to any resource of the call, or to the
    /// whole call: how deny and ask rules match.
    #[must_use]
    pub fn first_match(
        &self,
        call: &ClassifiedCall<'_>,
        home: Option<&Path>,
    ) -> Option<&PermissionRule> {
        // Most sets are empty (no ask rules, no grants yet): answer before looking anything up.
        if self.is_empty() {
            return None;
        }
        let (lookup, mut first, has_specific) = self.tool_rules(call);
        if has_specific || !self.path_rules(call).is_empty() {
            for_each_item(call, &mut |item| {
                if let Some(index) = self.first_covering(call, &lookup, &item, home, false) {
                    first = Some(first.map_or(index, |f| f.min(index)));
                }
                true
            });
        }
        first.map(|index| &self.inner.rules[index])
    }

    /// The rule that lets the call run, when the rules cover all of it: a rule for the whole
    /// tool, or, for each resource of the call (each part of a compound command), some rule
    /// whose specifier covers it. How allow rules, grants and allow-lists match.
    #[must_use]
    pub fn covering_rule(
        &self,
        call: &ClassifiedCall<'_>,
        home: Option<&Path>,
    ) -> Option<&PermissionRule> {
        // Most sets are empty (no ask rules, no grants yet): answer before looking anything up.
        if self.is_empty() {
            return None;
        }
        let (lookup, whole, has_specific) = self.tool_rules(call);
        if let Some(index) = whole {
            return Some(&self.inner.rules[index]);
        }
        if !has_specific && self.path_rules(call).is_empty() {
            return None;
        }
        let mut first: Option<usize> = None;
        let mut items = 0usize;
        let all_covered = for_each_item(call, &mut |item| {
            items += 1;
            match self.first_covering(call, &lookup, &item, home, true) {
                Some(index) => {
                    first.get_or_insert(index);
                    true
                }
                None => false,
            }
        });
        if all_covered && items > 0 {
            first.map(|index| &self.inner.rules[index])
        } else {
            None
        }
    }

    /// The rules naming the call's tool: its lookup, the first (in the order given) that covers
    /// the whole tool, and whether any has a specifier to test against the call's resources.
    fn tool_rules(&self, call: &ClassifiedCall<'_>) -> (Lookup<'_>, Option<usize>, bool) {
        let lookup = self.lookup(call);
        let mut whole: Option<usize> = None;
        let mut has_specific = false;
        self.for_each_tool_rule(call, &lookup, &mut |index, rule| {
            if rule.is_whole_tool() {
                whole = Some(whole.map_or(index, |f| f.min(index)));
            } else {
                has_specific = true;
            }
        });
        (lookup, whole, has_specific)
    }

    fn lookup(&self, call: &ClassifiedCall<'_>) -> Lookup<'_> {
        let mut tools = [None; CACHED_NAMES];
        if !self.inner.by_name.is_empty() {
            for (slot, name) in tools.iter_mut().zip(call.spec.names()) {
                *slot = self.inner.by_name.get(name);
            }
        }
        let any_pattern_rule = self
            .inner
            .by_pattern
            .iter()
            .any(|&index| self.inner.rules[index].names_tool(call.spec));
        Lookup {
            tools,
            any_pattern_rule,
        }
    }

    /// Visits the rule lists of the call's tool names: the cached ones, then any others.
    fn for_each_tool_list<'s>(
        &'s self,
        call: &ClassifiedCall<'_>,
        lookup: &Lookup<'s>,
        visit: &mut dyn FnMut(&'s ToolRules),
    ) {
        lookup.tools.iter().flatten().for_each(|tool| visit(tool));
        for name in call.spec.names().skip(CACHED_NAMES) {
            if let Some(tool) = self.inner.by_name.get(name) {
                visit(tool);
            }
        }
    }

    /// Visits the rules naming the call's tool (by name, alias, wildcard or server).
    fn for_each_tool_rule(
        &self,
        call: &ClassifiedCall<'_>,
        lookup: &Lookup<'_>,
        visit: &mut dyn FnMut(usize, &PermissionRule),
    ) {
        let rules = &self.inner.rules;
        self.for_each_tool_list(call, lookup, &mut |tool| {
            for &index in &tool.all {
                visit(index, &rules[index]);
            }
        });
        self.for_each_pattern_rule(call, lookup, visit);
    }

    fn for_each_pattern_rule(
        &self,
        call: &ClassifiedCall<'_>,
        lookup: &Lookup<'_>,
        visit: &mut dyn FnMut(usize, &PermissionRule),
    ) {
        if !lookup.any_pattern_rule {
            return;
        }
        for &index in &self.inner.by_pattern {
            let rule = &self.inner.rules[index];
            if rule.names_tool(call.spec) {
                visit(index, rule);
            }
        }
    }

    /// The first rule covering one resource of the call.
    fn first_covering(
        &self,
        call: &ClassifiedCall<'_>,
        lookup: &Lookup<'_>,
        item: &Item<'_>,
        home: Option<&Path>,
        for_allow: bool,
    ) -> Option<usize> {
        let rules = &self.inner.rules;
        let mut first: Option<usize> = None;
        let mut consider = |index: usize, rule: &PermissionRule| {
            if !rule.is_whole_tool()
                && first.is_none_or(|f| index < f)
                && rule.matches_item(item, home, for_allow)
            {
                first = Some(index);
            }
        };
        match item {
            Item::Command(command) => {
                let word = first_word(command);
                self.for_each_tool_list(call, lookup, &mut |tool| {
                    for &index in tool.by_first_word.get(word).into_iter().flatten() {
                        consider(index, &rules[index]);
                    }
                });
            }
            _ => self.for_each_tool_list(call, lookup, &mut |tool| {
                for &index in &tool.all {
                    consider(index, &rules[index]);
                }
            }),
        }
        self.for_each_pattern_rule(call, lookup, &mut consider);
        if let Item::Path(path) = item
            && let Some(index) = self.path_rules(call).first_match(path, home)
        {
            first = Some(first.map_or(index, |f| f.min(index)));
        }
        first
    }

    /// The path rules that apply to calls of this effect.
    fn path_rules(&self, call: &ClassifiedCall<'_>) -> &PathPatternSet {
        if call.is_read_only() {
            &self.inner.read_paths
        } else {
            &self.inner.edit_paths
        }
    }
}

impl fmt::Debug for PermissionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.inner.rules.iter().map(PermissionRule::as_str))
            .finish()
    }
}

impl FromIterator<PermissionRule> for PermissionSet {
    fn from_iter<I: IntoIterator<Item = PermissionRule>>(rules: I) -> Self {
        PermissionSet::new(rules)
    }
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
        assert!(prefix_matches("git status", "git status"));
        assert!(prefix_matches("git status", "git status --short"));
        assert!(!prefix_matches("git status", "git statusx"));
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
            let rule = PermissionRule::parse(text).unwrap();
            (format!("{:?}", rule.tool), format!("{:?}", rule.specifier))
        };
        assert!(kinds("Read(./secrets/**)").0.contains("ReadPaths"));
        assert!(kinds("Write(src/**)").0.contains("EditPaths"));
        assert!(kinds("mcp__server").0.contains("Server"));
        assert!(kinds("mcp__server__*").0.contains("Wildcard"));
        assert!(kinds("run_shell(*)").1.contains("Whole"));
        assert!(kinds("run_shell(git status:*)").1.contains("Prefix"));
        assert!(kinds("run_shell(npm test)").1.contains("Literal"));
        assert!(
            kinds("fetch_url(domain:*.example.com)")
                .1
                .contains("subdomains: true")
        );
    }
}

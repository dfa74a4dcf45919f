//! [`ConditionalRule`]: declarative rules that look inside a call (what an argument says, how
//! long it is, how large the file a path names is, the call's effect class) and allow it, ask
//! about it or deny it at a priority. Built in code, or loaded from a settings file's
//! `toolkit.conditions` (our extension, read by [`settings`](crate::settings)).

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use regex::Regex;
use serde_json::{Map, Value};

use super::pattern::{ToolMatcher, is_tool_name_pattern, tool_matcher};
use super::rule::{Rule, priority};
use super::shell::shorten;
use super::{ClassifiedCall, Decision, DecisionSource, PolicyContext, PolicyLayer, Verdict};
use crate::definition::spec::Effect;
use crate::definition::workspace::{ResolvedPath, quote_path};

/// A declarative rule: calls of a tool (or of any tool), of an effect class, whose arguments
/// meet every one of its [`Condition`]s are allowed, asked about or denied.
///
/// The seed's auto-approval policies with conditions, as a [`Rule`]: give it to
/// [`PolicyBuilder::rule`](super::PolicyBuilder::rule), or write it in a settings file under
/// `toolkit.conditions` (see [`settings`](crate::settings)).
///
/// # What it matches
///
/// A rule applies to a call when all of these hold:
///
/// - its **tool**, if it names one ([`tool`](Self::tool)): the tool's name or one of its
///   aliases, with `*` wildcards (`mcp__github__*`), or `mcp__server` for every tool of an MCP
///   server, as in permission rules;
/// - its **effect class**, if it names one ([`effect`](Self::effect), an [`EffectFilter`]);
/// - every one of its **conditions** ([`when`](Self::when)); a rule without any applies to
///   every call its tool and effect class select.
///
/// | condition | holds when |
/// |---|---|
/// | `Condition::arg("url").contains("token=")` | the argument's text contains the text (case-sensitive) |
/// | `Condition::arg("method").equals("DELETE")` | the argument's text is exactly the text |
/// | `Condition::arg("url").matches(r"[?&]token=")?` | the regular expression (the `regex` crate's syntax; `(?i)` for any case) matches somewhere in the text; anchor it with `^…$` to match all of it |
/// | `Condition::arg("content").longer_than(1_000_000)` | the text has more than this many characters |
/// | `Condition::arg("content").shorter_than(10)` | the text has fewer than this many characters |
/// | `Condition::file_size("path").greater_than(1 << 20)` | the file the path argument names has more than this many bytes |
/// | `Condition::file_size("path").less_than(4096)` | the file the path argument names has fewer than this many bytes |
///
/// An argument is a top-level argument of the call, by the name the tool's schema gives it.
/// Its text is the string the model sent, or for any other JSON value its compact JSON
/// (`42`, `true`, `["a","b"]`); lengths count characters (Unicode scalar values), not bytes. A
/// condition on an argument the call does not have, or sends as `null`, does not hold.
///
/// A file's size is the one the coordinator saw when it confined the path, just before the
/// policy decided ([`ResolvedPath::size`]): deciding does no I/O. A path that names no regular
/// file (one not created yet, a directory) has no size, and no size condition holds for it;
/// without a workspace paths are not resolved, so none holds either. One argument can resolve
/// to several paths (a path sent with a slip is checked as sent and as repaired; a command
/// argument names the files its redirections write): for a deny or ask rule a size condition
/// holds when it holds for any of them, for an allow rule only when it holds for all.
///
/// # Precedence
///
/// The rule runs at its priority among the [built-in layers](super::priority), and the first
/// rule with an opinion decides. By default ([`default_priority`](Self::default_priority)) it
/// runs just after the user's permission rules of its verdict:
///
/// | verdict | default priority | after | before |
/// |---|---|---|---|
/// | deny | `DENY_RULES + 50` (150) | safety, deny rules | self-approving tools, the modes, every ask and allow |
/// | ask | `ASK_RULES + 50` (450) | the modes, ask rules | allow rules, session grants, the allow-list, the default |
/// | allow | `ALLOW_RULES + 50` (550) | the modes, ask and allow rules | session grants, the allow-list, the default |
///
/// So a **deny** condition holds in every mode, bypass included, and no allow rule, grant or
/// mode overrides it (only safety comes first, and it denies too). An **ask** condition is an
/// ask rule: no allow rule, session grant or allow-list silences it, but the modes decide
/// before it, as before ask rules (plan mode denies what is not read-only, bypass runs it,
/// accept_edits runs edits inside the workspace); in dontAsk mode it ends as a deny, as every
/// ask does. An **allow** condition is an allow rule: deny and ask rules, and plan mode, still
/// stop the call. [`with_priority`](Self::with_priority) moves a rule; rules of equal priority
/// run in the order they were added, after the built-in one. An ask or allow condition moved
/// before the modes (below [`priority::MODE`]) decides in plan mode too: it would let through
/// what plan mode denies.
///
/// # Decisions
///
/// A decision names the rule and what matched, in its reason ("the argument `url` contains
/// `token=` (rule `no tokens in URLs`)") and its source ([`PolicyLayer::Condition`] and the
/// rule's name). [`Policy::explain`](super::Policy::explain) lists the rule, described in full
/// (its [`Display`](fmt::Display)), with the others.
///
/// # Examples
///
/// Deny `fetch_url` whose URL contains `token=`, whatever the allow rules say:
///
/// ```
/// use tool_core::policy::{ClassifiedCall, Condition, ConditionalRule, Policy, PolicyContext, PolicyLayer, Verdict};
/// use tool_core::spec::ToolSpec;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let no_tokens = ConditionalRule::deny("no tokens in URLs")
///     .tool("fetch_url")?
///     .when(Condition::arg("url").contains("token="));
/// let policy = Policy::builder().allow("fetch_url").rule(no_tokens).build()?;
/// let fetch = ToolSpec::new("fetch_url", "Fetch a web page.");
/// let session = PolicyContext::default();
///
/// let leaky = r#"{"url": "https://api.example.com/v1?token=s3cr3t"}"#;
/// let decision = policy.decide(&ClassifiedCall::new(&fetch).with_arguments(leaky), &session);
/// assert_eq!(decision.verdict, Verdict::Deny);
/// assert!(decision.reason.contains("the argument `url` contains `token=` (rule `no tokens in URLs`)"));
/// assert_eq!(decision.source.to_string(), "condition: no tokens in URLs");
///
/// // Without a token, the allow rule decides as before.
/// let clean = r#"{"url": "https://docs.rs/regex"}"#;
/// let decision = policy.decide(&ClassifiedCall::new(&fetch).with_arguments(clean), &session);
/// assert_eq!((decision.verdict, decision.source.layer), (Verdict::Allow, PolicyLayer::AllowRule));
/// # Ok(())
/// # }
/// ```
///
/// Ask before any write over 1 MB, whether the tool takes the text as an argument or the
/// file it overwrites is that large, even where an allow rule lets writes run:
///
/// ```
/// use tool_core::Workspace;
/// use tool_core::policy::{ClassifiedCall, Condition, ConditionalRule, EffectFilter, Policy, PolicyContext, Verdict};
/// use tool_core::spec::ToolSpec;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// const MB: usize = 1_000_000;
/// let policy = Policy::builder()
///     .allow("write_file")
///     .rule(ConditionalRule::ask("large writes")
///         .effect(EffectFilter::NotReadOnly)
///         .when(Condition::arg("content").longer_than(MB)))
///     .rule(ConditionalRule::ask("large files")
///         .effect(EffectFilter::NotReadOnly)
///         .when(Condition::file_size("path").greater_than(MB as u64)))
///     .build()?;
/// let write = ToolSpec::new("write_file", "Write a file.");
/// let session = PolicyContext::default();
///
/// let small = r#"{"path": "notes.md", "content": "hello"}"#;
/// let call = ClassifiedCall::new(&write).with_arguments(small);
/// assert_eq!(policy.decide(&call, &session).verdict, Verdict::Allow);
///
/// let large = serde_json::json!({"path": "notes.md", "content": "x".repeat(2 * MB)}).to_string();
/// let call = ClassifiedCall::new(&write).with_arguments(&large);
/// let decision = policy.decide(&call, &session);
/// assert_eq!(decision.verdict, Verdict::Ask);
/// assert!(decision.reason.contains("the argument `content` is longer than 1000000 characters (2000000)"));
///
/// // The size of a file comes from where the coordinator confined its path.
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("big.bin"), vec![0u8; 2 * MB])?;
/// let paths = [Workspace::new(dir.path())?.confine("path", "big.bin")];
/// let call = ClassifiedCall::new(&write).with_arguments(small).with_paths(&paths);
/// assert_eq!(policy.decide(&call, &session).verdict, Verdict::Ask);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct ConditionalRule {
    name: String,
    verdict: Verdict,
    priority: i32,
    tool: Option<ToolFilter>,
    effect: Option<EffectFilter>,
    conditions: Vec<Condition>,
}

/// The tool a rule names: as written, and compiled.
#[derive(Debug, Clone)]
struct ToolFilter {
    text: String,
    matcher: ToolMatcher,
}

impl ConditionalRule {
    /// A rule with this verdict, named `name` in its decisions and in `explain`, at the
    /// verdict's [default priority](Self::default_priority), for every call until
    /// [`tool`](Self::tool), [`effect`](Self::effect) and [`when`](Self::when) narrow it.
    pub fn new(verdict: Verdict, name: impl Into<String>) -> Self {
        ConditionalRule {
            name: name.into(),
            verdict,
            priority: ConditionalRule::default_priority(verdict),
            tool: None,
            effect: None,
            conditions: Vec::new(),
        }
    }

    /// A rule that lets the calls it matches run without asking.
    pub fn allow(name: impl Into<String>) -> Self {
        ConditionalRule::new(Verdict::Allow, name)
    }

    /// A rule that asks the user before the calls it matches run.
    pub fn ask(name: impl Into<String>) -> Self {
        ConditionalRule::new(Verdict::Ask, name)
    }

    /// A rule that denies the calls it matches.
    pub fn deny(name: impl Into<String>) -> Self {
        ConditionalRule::new(Verdict::Deny, name)
    }

    /// Where a rule of this verdict runs unless [moved](Self::with_priority): just after the
    /// user's permission rules of the same verdict.
    ///
    /// ```
    /// use tool_core::policy::{priority, ConditionalRule, Verdict};
    ///
    /// assert_eq!(ConditionalRule::default_priority(Verdict::Deny), priority::DENY_RULES + 50);
    /// assert_eq!(ConditionalRule::default_priority(Verdict::Ask), priority::ASK_RULES + 50);
    /// assert_eq!(ConditionalRule::default_priority(Verdict::Allow), priority::ALLOW_RULES + 50);
    /// ```
    #[must_use]
    pub const fn default_priority(verdict: Verdict) -> i32 {
        match verdict {
            Verdict::Deny => priority::DENY_RULES + 50,
            Verdict::Ask => priority::ASK_RULES + 50,
            Verdict::Allow => priority::ALLOW_RULES + 50,
        }
    }

    /// Only calls of this tool: its name or an alias, with `*` wildcards (`mcp__github__*`),
    /// or `mcp__server` for every tool of an MCP server.
    ///
    /// # Errors
    /// A name with characters tool names cannot have (a permission rule such as
    /// `run_shell(git push:*)` is one: test arguments with conditions instead).
    pub fn tool(mut self, name: &str) -> Result<Self, ConditionError> {
        let name = name.trim();
        if !is_tool_name_pattern(name) {
            return Err(ConditionError::InvalidToolName {
                name: name.to_owned(),
            });
        }
        self.tool = Some(ToolFilter {
            text: name.to_owned(),
            matcher: tool_matcher(name),
        });
        Ok(self)
    }

    /// Only calls of this effect class (the call's own, per-call classification applied).
    pub fn effect(mut self, effect: EffectFilter) -> Self {
        self.effect = Some(effect);
        self
    }

    /// One more condition; the rule applies only when all of them hold.
    pub fn when(mut self, condition: Condition) -> Self {
        self.conditions.push(condition);
        self
    }

    /// Runs the rule at this priority instead of its verdict's default (lower numbers run
    /// first; see [`priority`] for the built-in layers).
    pub fn with_priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }

    /// What the rule decides when it applies.
    #[must_use]
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    /// `true` for an allow rule that names no tool, effect class or condition: it allows
    /// every call no earlier rule stops.
    pub(crate) fn allows_everything(&self) -> bool {
        self.verdict == Verdict::Allow
            && self.tool.is_none()
            && self.effect.is_none()
            && self.conditions.is_empty()
    }

    /// The calls the rule selects before its conditions: "every call", "`fetch_url` calls",
    /// "mutating `write_file` calls", "calls that are not read-only".
    fn subject(&self) -> String {
        let tool = self
            .tool
            .as_ref()
            .map(|tool| format!("`{}` ", tool.text))
            .unwrap_or_default();
        match self.effect {
            None if tool.is_empty() => "every call".to_owned(),
            None => format!("{tool}calls"),
            Some(EffectFilter::NotReadOnly) => format!("{tool}calls that are not read-only"),
            Some(effect) => format!("{} {tool}calls", effect.adjective()),
        }
    }

    fn decision(&self, call: &ClassifiedCall<'_>, matched: &[String]) -> Decision {
        let rule = &self.name;
        let what = if matched.is_empty() {
            format!("the rule `{rule}` covers {}", self.subject())
        } else {
            format!("{} (rule `{rule}`)", matched.join(" and "))
        };
        let tool = &call.spec.name;
        let source = DecisionSource::new(PolicyLayer::Condition, self.name.clone());
        match self.verdict {
            Verdict::Deny => Decision::deny(
                format!(
                    "`{tool}` is denied: {what}. Do not retry it; do the task another way, or tell the user that this rule blocks it."
                ),
                source,
            ),
            Verdict::Ask => Decision::ask(
                format!("{what}, so the user is asked before `{tool}` runs"),
                source,
            ),
            Verdict::Allow => Decision::allow(format!("allowed: {what}"), source),
        }
    }
}

impl fmt::Display for ConditionalRule {
    /// The rule in a line: `no tokens in URLs: denies `fetch_url` calls when the argument
    /// `url` contains `token=``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = match self.verdict {
            Verdict::Allow => "allows",
            Verdict::Ask => "asks before",
            Verdict::Deny => "denies",
        };
        write!(f, "{}: {verb} {}", self.name, self.subject())?;
        for (index, condition) in self.conditions.iter().enumerate() {
            f.write_str(if index == 0 { " when " } else { " and " })?;
            write!(f, "{condition}")?;
        }
        Ok(())
    }
}

impl Rule for ConditionalRule {
    fn name(&self) -> Cow<'_, str> {
        self.to_string().into()
    }

    fn priority(&self) -> i32 {
        self.priority
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::Condition
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, _: &PolicyContext) -> Option<Decision> {
        if let Some(tool) = &self.tool
            && !tool.matcher.names_tool(call.spec)
        {
            return None;
        }
        if let Some(effect) = self.effect
            && !effect.matches(call.effect)
        {
            return None;
        }
        let mut arguments = Arguments::new(call.arguments);
        let every_path = self.verdict == Verdict::Allow;
        let matched = self
            .conditions
            .iter()
            .map(|condition| condition.check(call, &mut arguments, every_path))
            .collect::<Option<Vec<String>>>()?;
        Some(self.decision(call, &matched))
    }
}

/// The effect classes a [`ConditionalRule`] can select. `mutating` is the class alone; for
/// every call that changes something, destructive ones included, use `not_read_only`.
///
/// ```
/// use tool_core::policy::EffectFilter;
/// use tool_core::spec::Effect;
///
/// let changes: EffectFilter = "not_read_only".parse().unwrap();
/// assert!(changes.matches(Effect::Mutating) && changes.matches(Effect::Destructive));
/// assert!(!EffectFilter::Mutating.matches(Effect::Destructive));
/// assert!("writes".parse::<EffectFilter>().unwrap_err().to_string().contains("`not_read_only`"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EffectFilter {
    /// Calls that only read (`read_only`).
    ReadOnly,
    /// Calls that change state but can be redone or undone (`mutating`).
    Mutating,
    /// Calls that may destroy data (`destructive`).
    Destructive,
    /// Every call that is not read-only: mutating and destructive ones (`not_read_only`).
    NotReadOnly,
}

impl EffectFilter {
    /// The name settings use: `read_only`, `mutating`, `destructive`, `not_read_only`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            EffectFilter::ReadOnly => "read_only",
            EffectFilter::Mutating => "mutating",
            EffectFilter::Destructive => "destructive",
            EffectFilter::NotReadOnly => "not_read_only",
        }
    }

    /// `true` when a call of this effect is selected.
    #[must_use]
    pub const fn matches(self, effect: Effect) -> bool {
        match self {
            EffectFilter::ReadOnly => matches!(effect, Effect::ReadOnly),
            EffectFilter::Mutating => matches!(effect, Effect::Mutating),
            EffectFilter::Destructive => matches!(effect, Effect::Destructive),
            EffectFilter::NotReadOnly => !effect.is_read_only(),
        }
    }

    fn adjective(self) -> &'static str {
        match self {
            EffectFilter::ReadOnly => "read-only",
            EffectFilter::Mutating => "mutating",
            EffectFilter::Destructive => "destructive",
            EffectFilter::NotReadOnly => "not read-only",
        }
    }
}

impl fmt::Display for EffectFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EffectFilter {
    type Err = ConditionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "read_only" => Ok(EffectFilter::ReadOnly),
            "mutating" => Ok(EffectFilter::Mutating),
            "destructive" => Ok(EffectFilter::Destructive),
            "not_read_only" => Ok(EffectFilter::NotReadOnly),
            other => Err(ConditionError::UnknownEffect {
                name: other.to_owned(),
            }),
        }
    }
}

/// One thing a [`ConditionalRule`] requires of a call: a test of an argument's text, or of
/// the size of the file a path argument names. Made with [`Condition::arg`] and
/// [`Condition::file_size`]; its [`Display`](fmt::Display) says what it requires.
///
/// ```
/// use tool_core::policy::Condition;
///
/// let condition = Condition::arg("url").contains("token=");
/// assert_eq!(condition.to_string(), "the argument `url` contains `token=`");
/// let condition = Condition::file_size("path").greater_than(1 << 20);
/// assert_eq!(condition.to_string(), "the file the argument `path` names is larger than 1048576 bytes");
/// assert!(Condition::arg("url").matches("token=(").is_err());
/// ```
#[derive(Debug, Clone)]
pub struct Condition {
    test: Test,
}

#[derive(Debug, Clone)]
enum Test {
    Arg { name: String, test: TextTest },
    FileSize { arg: String, test: SizeTest },
}

#[derive(Debug, Clone)]
enum TextTest {
    Contains(String),
    Equals(String),
    Matches(Regex),
    LongerThan(usize),
    ShorterThan(usize),
}

#[derive(Debug, Clone, Copy)]
enum SizeTest {
    GreaterThan(u64),
    LessThan(u64),
}

impl Condition {
    /// A condition on the text of the top-level argument `name`.
    pub fn arg(name: impl Into<String>) -> ArgCondition {
        ArgCondition { name: name.into() }
    }

    /// A condition on the size of the file the path argument `arg` names (for a command
    /// argument: the files its redirections write).
    pub fn file_size(arg: impl Into<String>) -> FileSizeCondition {
        FileSizeCondition { arg: arg.into() }
    }

    /// What matched, when the condition holds for the call. `every_path`: a size condition
    /// must hold for every path of its argument, not just one.
    fn check(
        &self,
        call: &ClassifiedCall<'_>,
        arguments: &mut Arguments<'_>,
        every_path: bool,
    ) -> Option<String> {
        match &self.test {
            Test::Arg { name, test } => {
                let text: Cow<'_, str> = match arguments.get(name)? {
                    Value::String(text) => Cow::Borrowed(text),
                    Value::Null => return None,
                    other => Cow::Owned(other.to_string()),
                };
                test.check(name, &text)
            }
            Test::FileSize { arg, test } => {
                let mut paths = call.paths.iter().filter(|path| path.arg == *arg);
                if every_path {
                    let mut first = None;
                    for path in paths {
                        let matched = test.check(arg, path)?;
                        first.get_or_insert(matched);
                    }
                    first
                } else {
                    paths.find_map(|path| test.check(arg, path))
                }
            }
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.test {
            Test::Arg { name, test } => write!(f, "the argument `{name}` {test}"),
            Test::FileSize { arg, test } => {
                write!(f, "the file the argument `{arg}` names is {test}")
            }
        }
    }
}

/// A [`Condition`] on an argument's text, waiting for its test: from [`Condition::arg`].
#[derive(Debug, Clone)]
#[must_use]
pub struct ArgCondition {
    name: String,
}

impl ArgCondition {
    /// The argument's text contains `text` (case-sensitive).
    pub fn contains(self, text: impl Into<String>) -> Condition {
        self.test(TextTest::Contains(text.into()))
    }

    /// The argument's text is exactly `text`.
    pub fn equals(self, text: impl Into<String>) -> Condition {
        self.test(TextTest::Equals(text.into()))
    }

    /// The regular expression `pattern` (the `regex` crate's syntax) matches somewhere in the
    /// argument's text; anchor it (`^…$`) to match all of it, prefix `(?i)` to ignore case.
    ///
    /// # Errors
    /// A pattern that is not a valid regular expression.
    pub fn matches(self, pattern: &str) -> Result<Condition, ConditionError> {
        let regex = Regex::new(pattern).map_err(|error| ConditionError::InvalidRegex {
            pattern: pattern.to_owned(),
            problem: error.to_string(),
        })?;
        Ok(self.test(TextTest::Matches(regex)))
    }

    /// The argument's text has more than `chars` characters.
    pub fn longer_than(self, chars: usize) -> Condition {
        self.test(TextTest::LongerThan(chars))
    }

    /// The argument's text has fewer than `chars` characters.
    pub fn shorter_than(self, chars: usize) -> Condition {
        self.test(TextTest::ShorterThan(chars))
    }

    fn test(self, test: TextTest) -> Condition {
        Condition {
            test: Test::Arg {
                name: self.name,
                test,
            },
        }
    }
}

/// A [`Condition`] on the size of the file a path argument names, waiting for its test: from
/// [`Condition::file_size`].
#[derive(Debug, Clone)]
#[must_use]
pub struct FileSizeCondition {
    arg: String,
}

impl FileSizeCondition {
    /// The file has more than `bytes` bytes.
    pub fn greater_than(self, bytes: u64) -> Condition {
        self.test(SizeTest::GreaterThan(bytes))
    }

    /// The file has fewer than `bytes` bytes.
    pub fn less_than(self, bytes: u64) -> Condition {
        self.test(SizeTest::LessThan(bytes))
    }

    fn test(self, test: SizeTest) -> Condition {
        Condition {
            test: Test::FileSize {
                arg: self.arg,
                test,
            },
        }
    }
}

impl TextTest {
    /// What matched, when the test holds for the argument `name`'s text.
    fn check(&self, name: &str, text: &str) -> Option<String> {
        let counted = |count: usize| format!("the argument `{name}` {self} ({count})");
        match self {
            TextTest::Contains(needle) => text.contains(needle.as_str()).then_some(()),
            TextTest::Equals(value) => (text == value).then_some(()),
            TextTest::Matches(regex) => regex.is_match(text).then_some(()),
            // No more characters than bytes: most texts are settled without counting.
            TextTest::LongerThan(limit) => {
                if text.len() <= *limit {
                    return None;
                }
                let count = text.chars().count();
                return (count > *limit).then(|| counted(count));
            }
            TextTest::ShorterThan(limit) => {
                let count = text.chars().count();
                return (count < *limit).then(|| counted(count));
            }
        }
        .map(|()| format!("the argument `{name}` {self}"))
    }
}

impl fmt::Display for TextTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextTest::Contains(text) => write!(f, "contains `{}`", shorten(text)),
            TextTest::Equals(text) => write!(f, "is `{}`", shorten(text)),
            TextTest::Matches(regex) => write!(f, "matches `{}`", shorten(regex.as_str())),
            TextTest::LongerThan(limit) => write!(f, "is longer than {limit} characters"),
            TextTest::ShorterThan(limit) => write!(f, "is shorter than {limit} characters"),
        }
    }
}

impl SizeTest {
    fn check(self, arg: &str, path: &ResolvedPath) -> Option<String> {
        let size = path.size?;
        let holds = match self {
            SizeTest::GreaterThan(limit) => size > limit,
            SizeTest::LessThan(limit) => size < limit,
        };
        holds.then(|| {
            format!(
                "the file `{}` (argument `{arg}`) is {self} ({size})",
                quote_path(&path.sent)
            )
        })
    }
}

impl fmt::Display for SizeTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeTest::GreaterThan(limit) => write!(f, "larger than {limit} bytes"),
            SizeTest::LessThan(limit) => write!(f, "smaller than {limit} bytes"),
        }
    }
}

/// The call's arguments, parsed the first time a condition needs one.
struct Arguments<'a> {
    text: &'a str,
    parsed: Option<Option<Map<String, Value>>>,
}

impl<'a> Arguments<'a> {
    fn new(text: &'a str) -> Self {
        Arguments { text, parsed: None }
    }

    fn get(&mut self, name: &str) -> Option<&Value> {
        let text = self.text;
        self.parsed
            .get_or_insert_with(|| serde_json::from_str(text).ok())
            .as_ref()?
            .get(name)
    }
}

/// A [`ConditionalRule`] or [`Condition`] that cannot be built from what was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConditionError {
    /// The tool part is not a tool name.
    #[error(
        "`{name}` is not a tool name (letters, digits, `_`, `-`, `.`, and `*` as a wildcard); a conditional rule names its tool alone, such as `fetch_url` or `mcp__github__*`, and tests arguments with conditions"
    )]
    InvalidToolName {
        /// As written.
        name: String,
    },
    /// A `matches` pattern that is not a regular expression.
    #[error(
        "`{pattern}` is not a valid regular expression (the `regex` crate's syntax): {problem}"
    )]
    InvalidRegex {
        /// As written.
        pattern: String,
        /// What the regex parser said.
        problem: String,
    },
    /// An effect class that is none of the known ones.
    #[error(
        "`{name}` is not an effect class; expected one of `read_only`, `mutating`, `destructive`, `not_read_only`"
    )]
    UnknownEffect {
        /// As written.
        name: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definition::spec::ToolSpec;

    #[test]
    fn rules_describe_themselves_in_a_line() {
        let rule = ConditionalRule::deny("no tokens in URLs")
            .tool("fetch_url")
            .unwrap()
            .when(Condition::arg("url").contains("token="));
        assert_eq!(
            rule.to_string(),
            "no tokens in URLs: denies `fetch_url` calls when the argument `url` contains `token=`"
        );
        let rule = ConditionalRule::ask("large writes")
            .effect(EffectFilter::NotReadOnly)
            .when(Condition::arg("content").longer_than(10))
            .when(Condition::file_size("path").less_than(5));
        assert_eq!(
            rule.to_string(),
            "large writes: asks before calls that are not read-only when the argument `content` is longer than 10 characters and the file the argument `path` names is smaller than 5 bytes"
        );
        let rule = ConditionalRule::allow("all").effect(EffectFilter::Mutating);
        assert_eq!(rule.to_string(), "all: allows mutating calls");
        assert_eq!(
            ConditionalRule::allow("all").to_string(),
            "all: allows every call"
        );
    }

    #[test]
    fn a_rule_without_conditions_says_what_it_covers() {
        let rule = ConditionalRule::deny("no deletes")
            .tool("delete_*")
            .unwrap()
            .effect(EffectFilter::Destructive);
        let spec = ToolSpec::new("delete_file", "Delete a file.").destructive();
        let decision = rule
            .evaluate(&ClassifiedCall::new(&spec), &PolicyContext::default())
            .unwrap();
        assert!(
            decision
                .reason
                .contains("the rule `no deletes` covers destructive `delete_*` calls"),
            "{}",
            decision.reason
        );
        let read = ToolSpec::new("delete_file", "Not really.").read_only();
        assert!(
            rule.evaluate(&ClassifiedCall::new(&read), &PolicyContext::default())
                .is_none()
        );
    }

    #[test]
    fn arguments_that_are_not_strings_are_tested_as_json() {
        let spec = ToolSpec::new("t", "T.");
        let rule = ConditionalRule::deny("n").when(Condition::arg("n").equals("42"));
        let call = ClassifiedCall::new(&spec).with_arguments(r#"{"n": 42}"#);
        assert!(rule.evaluate(&call, &PolicyContext::default()).is_some());
        for arguments in [r#"{"n": null}"#, r#"{}"#, "", "[1]"] {
            let call = ClassifiedCall::new(&spec).with_arguments(arguments);
            assert!(
                rule.evaluate(&call, &PolicyContext::default()).is_none(),
                "{arguments}"
            );
        }
    }
}

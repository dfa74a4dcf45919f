//! [`PatternSet`]: permission rules compiled for matching, indexed by tool name with their
//! path globs combined, so that most rules are not even looked at for a call; and
//! [`UserRules`], the three lists of rules as a settings file writes them.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::ClassifiedCall;
use super::paths::PathPatternSet;
use super::pattern::{Item, RulePattern, RuleSyntaxError, Specifier, ToolMatcher, for_each_item};

/// The three lists of a settings file's `permissions`: rules as text.
///
/// ```
/// let rules: tool_core::policy::UserRules = serde_json::from_str(
///     r#"{"allow": ["run_shell(git status:*)"], "deny": ["Read(./.env)"]}"#,
/// ).unwrap();
/// assert_eq!(rules.deny, ["Read(./.env)"]);
/// assert!(rules.ask.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserRules {
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
/// use tool_core::policy::{RulePattern, PatternSet};
///
/// let grants = PatternSet::default();
/// let more = grants.with(RulePattern::parse("write_file").unwrap());
/// assert!(grants.is_empty());
/// assert_eq!(more.len(), 1);
/// ```
#[derive(Clone, Default)]
pub struct PatternSet {
    inner: Arc<SetInner>,
}

#[derive(Default)]
struct SetInner {
    rules: Vec<RulePattern>,
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
    /// Command rules by the first word of their pattern: a command is only compared with the
    /// rules that start with its own first word...
    by_first_word: FxHashMap<Box<str>, Vec<usize>>,
    /// ...and with those whose first word has a `*` in it.
    any_first_word: Vec<usize>,
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
    command.split(' ').next().unwrap_or(command)
}

impl PatternSet {
    /// A set of these rules.
    pub fn new(rules: impl IntoIterator<Item = RulePattern>) -> Self {
        let rules: Vec<RulePattern> = rules.into_iter().collect();
        let mut by_name: FxHashMap<Box<str>, ToolRules> = FxHashMap::default();
        let mut by_pattern = Vec::new();
        for (index, rule) in rules.iter().enumerate() {
            match &rule.tool {
                ToolMatcher::Name(name) => {
                    let tool = by_name.entry(name.as_str().into()).or_default();
                    tool.all.push(index);
                    if let Some(pattern) = rule.command_pattern() {
                        match pattern.first_word() {
                            Some(word) => tool
                                .by_first_word
                                .entry(word.into())
                                .or_default()
                                .push(index),
                            None => tool.any_first_word.push(index),
                        }
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
        PatternSet {
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
            .map(|rule| RulePattern::parse(rule.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(PatternSet::new(rules))
    }

    /// A new set with every rule of this one and `rule`.
    #[must_use]
    pub fn with(&self, rule: RulePattern) -> Self {
        let mut rules = self.inner.rules.clone();
        rules.push(rule);
        PatternSet::new(rules)
    }

    /// The rules, in the order given.
    #[must_use]
    pub fn rules(&self) -> &[RulePattern] {
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
    ) -> Option<&RulePattern> {
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

    /// The first rule (in the order given) for commands of the call's tool: a deny rule that
    /// could match a command whose program or script is only known at run time.
    #[must_use]
    pub fn first_command_rule(&self, call: &ClassifiedCall<'_>) -> Option<&RulePattern> {
        if self.is_empty() {
            return None;
        }
        let lookup = self.lookup(call);
        let mut first: Option<usize> = None;
        self.for_each_tool_rule(call, &lookup, &mut |index, rule| {
            if rule.command_pattern().is_some() && first.is_none_or(|f| index < f) {
                first = Some(index);
            }
        });
        first.map(|index| &self.inner.rules[index])
    }

    /// The rule that lets the call run, when the rules cover all of it: a rule for the whole
    /// tool, or, for each resource of the call (each command a command line would run), some
    /// rule whose specifier covers it. How allow rules, grants and allow-lists match.
    #[must_use]
    pub fn covering_rule(
        &self,
        call: &ClassifiedCall<'_>,
        home: Option<&Path>,
    ) -> Option<&RulePattern> {
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
            match item {
                // A wrapper that only changes how its command runs: the command is judged.
                Item::Command(run) if run.transparent => return true,
                // Nothing covers what is only known at run time.
                Item::Command(run) if run.program().is_none() => return false,
                Item::Unreadable => return false,
                _ => {}
            }
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
            match rule.param_match(call) {
                // A `param:value` rule judges the whole call by its argument.
                Some(true) => whole = Some(whole.map_or(index, |f| f.min(index))),
                Some(false) => {}
                None if rule.is_whole_tool() => whole = Some(whole.map_or(index, |f| f.min(index))),
                None => has_specific = true,
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
        visit: &mut dyn FnMut(usize, &RulePattern),
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
        visit: &mut dyn FnMut(usize, &RulePattern),
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
        let mut consider = |index: usize, rule: &RulePattern| {
            if !rule.is_whole_tool()
                && first.is_none_or(|f| index < f)
                && rule.param_match(call).is_none()
                && rule.matches_item(item, home, for_allow)
            {
                first = Some(index);
            }
        };
        match item {
            Item::Command(run) => {
                let texts = if for_allow {
                    vec![run.text_with_assignments()]
                } else {
                    run.deny_texts()
                };
                self.for_each_tool_list(call, lookup, &mut |tool| {
                    for text in &texts {
                        let word = first_word(text);
                        for &index in tool.by_first_word.get(word).into_iter().flatten() {
                            consider(index, &rules[index]);
                        }
                    }
                    for &index in &tool.any_first_word {
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

impl fmt::Debug for PatternSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.inner.rules.iter().map(RulePattern::as_str))
            .finish()
    }
}

impl FromIterator<RulePattern> for PatternSet {
    fn from_iter<I: IntoIterator<Item = RulePattern>>(rules: I) -> Self {
        PatternSet::new(rules)
    }
}

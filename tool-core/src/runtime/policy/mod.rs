//! Who may run what: the [`Policy`] and its rules.
//!
//! Deciding is a pure function of an immutable snapshot: `Policy::decide(&call, &context)` reads
//! a [`ClassifiedCall`] (spec, effect, resources, resolved paths) and a [`PolicyContext`] (mode,
//! session grants, allow-list) and returns a [`Decision`]. No I/O, no UI: asking the user is the
//! coordinator's job, through an [`Approver`](crate::approval::Approver). Rules run in
//! [`priority`] order and the first with an opinion decides: safety, deny rules, the mode, ask
//! rules, allow rules, grants, the default by effect. Custom [`Rule`]s and
//! [`ConditionalRule`]s slot in by their priority. The layers and the rule syntax, with
//! examples: the guide's policy page (`docs/policy.md`).
//!
//! ```
//! use tool_core::policy::{ClassifiedCall, Policy, PolicyContext, Verdict};
//! use tool_core::{spec::{ResourceArg, ResourceKind, ToolSpec}, tool::Resource};
//!
//! let policy = Policy::builder().allow("run_shell(git status:*)").deny("run_shell(rm:*)").build().unwrap();
//! let shell = ToolSpec::new("run_shell", "Run a command.")
//!     .resources([ResourceArg::new("command", ResourceKind::Command)]);
//! let decide = |text: &str| {
//!     let command = [Resource { arg: "command".into(), kind: ResourceKind::Command, value: text.into() }];
//!     policy.decide(&ClassifiedCall::new(&shell).with_resources(&command), &PolicyContext::default()).verdict
//! };
//! assert_eq!(decide("git status --short"), Verdict::Allow);
//! assert_eq!(decide("git status && rm -rf src"), Verdict::Deny);
//! ```

mod access;
mod conditions;
mod context;
mod decision;
mod explain;
mod paths;
mod pattern;
mod rule;
mod set;
pub mod shell;

use std::path::PathBuf;
use std::sync::Arc;

pub(crate) use access::BothRules;
pub use access::PolicyAccessRules;
pub use conditions::{
    ArgCondition, Condition, ConditionError, ConditionalRule, EffectFilter, FileSizeCondition,
};
pub use context::PolicyContext;
pub use decision::{
    ClassifiedCall, Decision, DecisionSource, Mode, PolicyLayer, UnknownMode, Verdict,
};
pub use explain::{ExplainStep, Explanation};
pub use paths::{PathCandidate, PathPattern, PathPatternError};
pub use pattern::{RulePattern, RuleSyntaxError};
pub use rule::{Rule, priority};
pub use set::{PatternSet, UserRules};

use rule::{
    AcceptEditsRule, AllowListRule, AllowRules, AskRules, BypassGuardedDirsRule, BypassModeRule,
    DefaultByEffectRule, DenyRules, Home, PlanModeRule, SafetyRule, SelfApprovingRule,
    SessionGrantsRule,
};

/// The protected paths of a policy built without [`PolicyBuilder::protected_paths`]: the
/// `.git` directory (at any depth) and everything inside it.
pub const DEFAULT_PROTECTED_PATHS: &[&str] = &[".git"];

/// The layered authorization policy. Cheap to clone, `Send + Sync`, immutable once built.
///
/// `Policy::default()` has the built-in layers only: no user rules, `.git` protected, `~/`
/// meaning `$HOME` as it was when the policy was made.
///
/// ```
/// use tool_core::policy::{ClassifiedCall, Mode, Policy, PolicyContext, Verdict};
/// use tool_core::spec::ToolSpec;
///
/// let policy = Policy::default();
/// let read = ToolSpec::new("read_file", "Read a file.").read_only();
/// let write = ToolSpec::new("write_file", "Write a file.");
///
/// // By default, reads run and everything else asks ...
/// let session = PolicyContext::default();
/// assert_eq!(policy.decide(&ClassifiedCall::new(&read), &session).verdict, Verdict::Allow);
/// assert_eq!(policy.decide(&ClassifiedCall::new(&write), &session).verdict, Verdict::Ask);
///
/// // ... and in plan mode, only reads run.
/// let planning = PolicyContext::new(Mode::Plan);
/// assert_eq!(policy.decide(&ClassifiedCall::new(&write), &planning).verdict, Verdict::Deny);
/// ```
#[derive(Clone)]
pub struct Policy {
    /// Every rule, in evaluation order.
    rules: Arc<[Arc<dyn Rule>]>,
    /// The path deny rules, for the workspace's handles.
    access: Arc<PolicyAccessRules>,
}

impl Policy {
    /// A builder.
    pub fn builder() -> PolicyBuilder {
        PolicyBuilder::default()
    }

    /// Decides about a call: the decision of the first rule (in priority order) that has one.
    #[must_use]
    pub fn decide(&self, call: &ClassifiedCall<'_>, context: &PolicyContext) -> Decision {
        let analysed = analyse_commands(call);
        let call = &call.with_commands(analysed.as_deref().unwrap_or(call.commands));
        let decision = self
            .rules
            .iter()
            .find_map(|rule| rule.evaluate(call, context))
            .unwrap_or_else(no_rule_decided);
        settle_for_mode(decision, context)
    }

    /// Every rule's view of the call, and which rule decided.
    #[must_use]
    pub fn explain(&self, call: &ClassifiedCall<'_>, context: &PolicyContext) -> Explanation {
        let analysed = analyse_commands(call);
        let call = &call.with_commands(analysed.as_deref().unwrap_or(call.commands));
        let steps: Vec<ExplainStep> = self
            .rules
            .iter()
            .map(|rule| ExplainStep {
                name: rule.name().into_owned(),
                layer: rule.layer(),
                priority: rule.priority(),
                outcome: rule.evaluate(call, context),
            })
            .collect();
        let decided_by = steps.iter().position(|step| step.outcome.is_some());
        let decision = decided_by
            .and_then(|index| steps[index].outcome.clone())
            .unwrap_or_else(no_rule_decided);
        let decision = settle_for_mode(decision, context);
        Explanation {
            tool: call.spec.name.to_string(),
            steps,
            decided_by,
            decision,
        }
    }

    /// The rules, in evaluation order.
    pub fn rules(&self) -> impl Iterator<Item = &dyn Rule> {
        self.rules.iter().map(AsRef::as_ref)
    }

    /// The policy's path deny rules (`Read(..)`; `Edit(..)` and the protected paths), as the
    /// workspace's handles apply them at the I/O: the coordinator gives them to its
    /// workspace, so a file a rule denies is never opened, whichever tool walks to it.
    #[must_use]
    pub fn access_rules(&self) -> PolicyAccessRules {
        PolicyAccessRules::clone(&self.access)
    }
}

impl Default for Policy {
    fn default() -> Self {
        let built = PolicyBuilder::default().build();
        // Only user-supplied text can fail to parse, and a default builder has none.
        built.unwrap_or_else(|_| Policy {
            rules: Arc::from(Vec::new()),
            access: Arc::new(PolicyAccessRules::new(Vec::new(), Vec::new(), &[], None)),
        })
    }
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.rules.iter().map(|rule| (rule.priority(), rule.name())))
            .finish()
    }
}

/// The call's command arguments analysed, once for all rules, when the caller did not.
fn analyse_commands(call: &ClassifiedCall<'_>) -> Option<Vec<shell::CommandLine>> {
    let commands = call
        .resources
        .iter()
        .filter(|resource| resource.kind == crate::definition::spec::ResourceKind::Command);
    if !call.commands.is_empty() || commands.clone().next().is_none() {
        return None;
    }
    Some(
        commands
            .map(|resource| shell::CommandLine::analyze(&resource.value))
            .collect(),
    )
}

/// In `dontAsk` mode nobody is asked: an ask ends as a deny, saying why it would have asked.
fn settle_for_mode(decision: Decision, context: &PolicyContext) -> Decision {
    if context.mode != Mode::DontAsk || decision.verdict != Verdict::Ask {
        return decision;
    }
    Decision::deny(
        format!(
            "{}; but the session is in dontAsk mode, where nobody is asked, so only what a rule allows runs. Do not retry it; do the task another way, or tell the user which permission it needs.",
            decision.reason
        ),
        DecisionSource::new(PolicyLayer::Mode, "dontAsk mode"),
    )
}

/// Only reachable when every built-in rule was somehow absent: ask, the safe answer.
fn no_rule_decided() -> Decision {
    Decision::ask(
        "no rule decided about this call, so the user is asked",
        DecisionSource::new(PolicyLayer::Default, ""),
    )
}

/// Builds a [`Policy`]: user rules as text, custom rules, protected paths, the home directory.
///
/// ```
/// use tool_core::Workspace;
/// use tool_core::policy::{ClassifiedCall, Policy, PolicyContext, PolicyLayer, Verdict};
/// use tool_core::spec::ToolSpec;
///
/// let policy = Policy::builder()
///     .allow("write_file")
///     .deny("delete_file")
///     .protect("Cargo.lock")
///     .without_home()
///     .build()
///     .unwrap();
/// let session = PolicyContext::default();
///
/// let write = ToolSpec::new("write_file", "Write a file.");
/// let decision = policy.decide(&ClassifiedCall::new(&write), &session);
/// assert_eq!((decision.verdict, decision.source.layer), (Verdict::Allow, PolicyLayer::AllowRule));
///
/// // A protected path stays protected, whatever the allow rules say.
/// let dir = tempfile::tempdir().unwrap();
/// let lock_file = [Workspace::new(dir.path()).unwrap().confine("path", "Cargo.lock")];
/// let decision = policy.decide(&ClassifiedCall::new(&write).with_paths(&lock_file), &session);
/// assert_eq!((decision.verdict, decision.source.layer), (Verdict::Deny, PolicyLayer::Safety));
///
/// // A rule that does not parse is an error when the policy is built, naming the rule.
/// let error = Policy::builder().deny("run_shell(rm -rf").build().unwrap_err();
/// assert!(error.to_string().contains("`run_shell(rm -rf`"));
/// ```
#[derive(Default)]
#[must_use]
pub struct PolicyBuilder {
    rules: UserRules,
    custom: Vec<Box<dyn Rule>>,
    protected: Option<Vec<String>>,
    home: Option<Home>,
}

impl PolicyBuilder {
    /// Adds an allow rule (`read_file`, `run_shell(git status:*)`, `Edit(src/**)`).
    pub fn allow(mut self, rule: impl Into<String>) -> Self {
        self.rules.allow.push(rule.into());
        self
    }

    /// Adds an ask rule.
    pub fn ask(mut self, rule: impl Into<String>) -> Self {
        self.rules.ask.push(rule.into());
        self
    }

    /// Adds a deny rule.
    pub fn deny(mut self, rule: impl Into<String>) -> Self {
        self.rules.deny.push(rule.into());
        self
    }

    /// Adds the three lists of a settings file's `permissions` at once.
    pub fn permissions(mut self, rules: UserRules) -> Self {
        self.rules.allow.extend(rules.allow);
        self.rules.ask.extend(rules.ask);
        self.rules.deny.extend(rules.deny);
        self
    }

    /// Adds a custom rule; it runs by its [`priority`](Rule::priority), after built-in rules
    /// and earlier custom rules of the same priority.
    pub fn rule(mut self, rule: impl Rule) -> Self {
        self.custom.push(Box::new(rule));
        self
    }

    /// Replaces the protected paths (default: [`DEFAULT_PROTECTED_PATHS`]). Patterns use the
    /// path-rule syntax; calls that are not read-only are denied on them.
    pub fn protected_paths<I, S>(mut self, patterns: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.protected = Some(patterns.into_iter().map(Into::into).collect());
        self
    }

    /// Adds a protected path to the current list.
    pub fn protect(mut self, pattern: impl Into<String>) -> Self {
        self.protected
            .get_or_insert_with(|| {
                DEFAULT_PROTECTED_PATHS
                    .iter()
                    .map(|p| (*p).to_owned())
                    .collect()
            })
            .push(pattern.into());
        self
    }

    /// The home directory `~/` patterns refer to (default: `$HOME` when the policy is built).
    pub fn home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(Some(home.into()));
        self
    }

    /// No home directory: `~/` patterns match nothing.
    pub fn without_home(mut self) -> Self {
        self.home = Some(None);
        self
    }

    /// Parses the rules and builds the policy.
    ///
    /// # Errors
    /// The first rule (deny rules first, then ask, allow, and protected paths) that does not
    /// parse.
    pub fn build(self) -> Result<Policy, RuleSyntaxError> {
        let home: Home = self
            .home
            .unwrap_or_else(|| std::env::var_os("HOME").map(PathBuf::from));
        let deny = PatternSet::parse(&self.rules.deny)?;
        let ask = PatternSet::parse(&self.rules.ask)?;
        let allow = PatternSet::parse(&self.rules.allow)?;
        let protected_text = self.protected.unwrap_or_else(|| {
            DEFAULT_PROTECTED_PATHS
                .iter()
                .map(|p| (*p).to_owned())
                .collect()
        });
        let protected = protected_text
            .iter()
            .map(|text| {
                PathPattern::parse(text).map_err(|problem| RuleSyntaxError::InvalidPathPattern {
                    rule: format!("protected path {text}"),
                    pattern: text.clone(),
                    problem,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let paths_of = |wanted: fn(&pattern::ToolMatcher) -> bool| -> Vec<(String, PathPattern)> {
            deny.rules()
                .iter()
                .filter(|rule| wanted(&rule.tool))
                .filter_map(|rule| match &rule.specifier {
                    pattern::Specifier::Glob(glob) => Some((rule.text.clone(), glob.clone())),
                    _ => None,
                })
                .collect()
        };
        let access = Arc::new(PolicyAccessRules::new(
            paths_of(|tool| matches!(tool, pattern::ToolMatcher::ReadPaths)),
            paths_of(|tool| matches!(tool, pattern::ToolMatcher::EditPaths)),
            &protected,
            home.clone(),
        ));
        let mut rules: Vec<Arc<dyn Rule>> = vec![
            Arc::new(SafetyRule::new(protected, home.clone())),
            Arc::new(DenyRules {
                rules: deny,
                home: home.clone(),
            }),
            Arc::new(SelfApprovingRule {
                ask: AskRules {
                    rules: ask.clone(),
                    home: home.clone(),
                },
            }),
            Arc::new(PlanModeRule),
            Arc::new(BypassGuardedDirsRule),
            Arc::new(BypassModeRule),
            Arc::new(AcceptEditsRule),
            Arc::new(AskRules {
                rules: ask,
                home: home.clone(),
            }),
            Arc::new(AllowRules {
                rules: allow,
                home: home.clone(),
            }),
            Arc::new(SessionGrantsRule { home: home.clone() }),
            Arc::new(AllowListRule { home }),
            Arc::new(DefaultByEffectRule),
        ];
        rules.extend(self.custom.into_iter().map(Arc::from));
        // A stable sort: equal priorities keep insertion order, built-in rules first.
        rules.sort_by_key(|rule| rule.priority());
        Ok(Policy {
            rules: rules.into(),
            access,
        })
    }
}

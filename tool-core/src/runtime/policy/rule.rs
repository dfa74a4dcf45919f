//! The [`Rule`] trait and the built-in rules, one type per behaviour, with their
//! [`priority`]: the policy evaluates rules from the lowest priority number up, and the first
//! rule with an opinion decides. A new behaviour is a new rule slotted between two others,
//! never an edit of an old one.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::context::PolicyContext;
use super::paths::{PathCandidate, PathPattern, PathPatternSet};
use super::pattern::RulePattern;
use super::set::PatternSet;
use super::shell::CommandLine;
use super::{ClassifiedCall, Decision, DecisionSource, Mode, PolicyLayer};
use crate::definition::spec::{ApprovalKind, ResourceKind};
use crate::definition::workspace::{ResolvedPath, quote_path};

/// One authorization rule: given a call and the session's snapshot, it decides or passes.
///
/// ```
/// use std::borrow::Cow;
/// use tool_core::policy::{priority, ClassifiedCall, Decision, DecisionSource, PolicyLayer, Policy, PolicyContext, Rule};
/// use tool_core::{spec::ToolSpec, policy::Verdict};
///
/// /// Nothing destructive after 18:00 (here: always), even where an allow rule would say yes.
/// struct NoDestructiveCalls;
///
/// impl Rule for NoDestructiveCalls {
///     fn name(&self) -> Cow<'_, str> { "no destructive calls".into() }
///     // After the mode, before the user's ask and allow rules.
///     fn priority(&self) -> i32 { priority::MODE + 50 }
///     fn evaluate(&self, call: &ClassifiedCall<'_>, _: &PolicyContext) -> Option<Decision> {
///         (call.effect == tool_core::spec::Effect::Destructive).then(|| Decision::deny(
///             "destructive tools are off today; describe the change instead",
///             DecisionSource::new(PolicyLayer::Custom, "no destructive calls"),
///         ))
///     }
/// }
///
/// let policy = Policy::builder().allow("delete_file").rule(NoDestructiveCalls).build().unwrap();
/// let spec = ToolSpec::new("delete_file", "Delete a file.").destructive();
/// let decision = policy.decide(&ClassifiedCall::new(&spec), &PolicyContext::default());
/// assert_eq!(decision.verdict, Verdict::Deny);
/// ```
pub trait Rule: Send + Sync + 'static {
    /// What the rule is, for `explain` and logs.
    fn name(&self) -> Cow<'_, str>;

    /// Where the rule runs: lower numbers first. See [`priority`] for the built-in layers.
    fn priority(&self) -> i32;

    /// The layer its decisions belong to.
    fn layer(&self) -> PolicyLayer {
        PolicyLayer::Custom
    }

    /// The rule's decision, or `None` when it has no opinion about this call. Must be pure: no
    /// I/O, no UI.
    fn evaluate(&self, call: &ClassifiedCall<'_>, context: &PolicyContext) -> Option<Decision>;
}

/// The priorities of the built-in rules, spaced by 100 so a custom rule fits between any two.
/// Rules of equal priority run in the order they were added, built-in rules first.
pub mod priority {
    /// The workspace boundary and protected paths.
    pub const SAFETY: i32 = 0;
    /// The user's deny rules.
    pub const DENY_RULES: i32 = 100;
    /// Self-approving tools never ask.
    pub const SELF_APPROVING: i32 = 200;
    /// The permission mode: plan, bypass, accept_edits.
    pub const MODE: i32 = 300;
    /// The user's ask rules.
    pub const ASK_RULES: i32 = 400;
    /// The user's allow rules.
    pub const ALLOW_RULES: i32 = 500;
    /// What the user allowed for the session.
    pub const SESSION_GRANTS: i32 = 600;
    /// The toolset's or template's allow-list.
    pub const ALLOW_LIST: i32 = 700;
    /// The default by effect: read-only runs, everything else asks.
    pub const DEFAULT: i32 = 800;
}

/// Where `~/` patterns point, fixed when the policy is built.
pub(crate) type Home = Option<PathBuf>;

fn home_ref(home: &Home) -> Option<&Path> {
    home.as_deref()
}

/// Safety: paths outside the workspace are denied; protected paths are denied to every call
/// that is not read-only. Never overridable.
pub(crate) struct SafetyRule {
    pub(crate) protected: Vec<PathPattern>,
    pub(crate) protected_set: PathPatternSet,
    pub(crate) home: Home,
}

impl SafetyRule {
    pub(crate) fn new(protected: Vec<PathPattern>, home: Home) -> Self {
        let protected_set = PathPatternSet::new(protected.iter().enumerate());
        SafetyRule {
            protected,
            protected_set,
            home,
        }
    }

    fn protected(&self, sent: &str, path: &PathCandidate<'_>) -> Option<Decision> {
        let index = self.protected_set.first_match(path, home_ref(&self.home))?;
        let pattern = self.protected[index].as_str();
        Some(Decision::deny(
            format!(
                "`{}` is a protected path (`{pattern}`): tools may read it but never change it. Leave it as it is; if it must change, tell the user.",
                quote_path(sent)
            ),
            DecisionSource::new(PolicyLayer::Safety, format!("protected path {pattern}")),
        ))
    }
}

impl Rule for SafetyRule {
    fn name(&self) -> Cow<'_, str> {
        "workspace boundary and protected paths".into()
    }

    fn priority(&self) -> i32 {
        priority::SAFETY
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::Safety
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, _: &PolicyContext) -> Option<Decision> {
        if let Some(denial) = call.paths.iter().find_map(ResolvedPath::denial) {
            return Some(Decision::deny(
                denial,
                DecisionSource::new(PolicyLayer::Safety, "workspace boundary"),
            ));
        }
        if call.is_read_only() || self.protected.is_empty() {
            return None;
        }
        if call.paths.is_empty() {
            // No workspace: judge the raw path arguments lexically.
            call.resources
                .iter()
                .filter(|resource| resource.kind == ResourceKind::Path)
                .find_map(|resource| {
                    self.protected(&resource.value, &PathCandidate::lexical(&resource.value))
                })
        } else {
            call.paths.iter().find_map(|path| {
                let candidate = PathCandidate {
                    relative: path.relative.as_deref(),
                    absolute: Some(&path.absolute),
                };
                self.protected(&path.sent, &candidate)
            })
        }
    }
}

/// The user's deny rules, in every mode.
pub(crate) struct DenyRules {
    pub(crate) rules: PatternSet,
    pub(crate) home: Home,
}

impl Rule for DenyRules {
    fn name(&self) -> Cow<'_, str> {
        "deny rules".into()
    }

    fn priority(&self) -> i32 {
        priority::DENY_RULES
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::DenyRule
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, context: &PolicyContext) -> Option<Decision> {
        if let Some(rule) = self.rules.first_match(call, home_ref(&self.home)) {
            return Some(Decision::deny(
                format!(
                    "`{}` is denied by the deny rule `{rule}`. Do not retry it; do the task another way, or tell the user that this rule blocks it.",
                    call.spec.name
                ),
                source(PolicyLayer::DenyRule, rule),
            ));
        }
        // A command known only at run time might be one a deny rule names: ask where someone
        // can say, deny where nobody will.
        let unknown = unknown_command(call)?;
        let rule = self.rules.first_command_rule(call)?;
        let reason = format!(
            "`{}` runs a command this policy cannot read ({unknown}), and the deny rule `{rule}` names this tool's commands, so it might match",
            call.spec.name
        );
        Some(match context.mode {
            Mode::Bypass | Mode::DontAsk => Decision::deny(
                format!(
                    "{reason}; in {} mode nobody is asked, so it is denied. Write the command out with literal program names, or tell the user.",
                    context.mode
                ),
                source(PolicyLayer::DenyRule, rule),
            ),
            _ => Decision::ask(
                format!("{reason}: the user is asked"),
                source(PolicyLayer::DenyRule, rule),
            ),
        })
    }
}

/// Why a command of the call cannot be read (its program or script known only at run time,
/// it does not parse), if one cannot.
fn unknown_command(call: &ClassifiedCall<'_>) -> Option<String> {
    let mut analysed = call.commands.iter();
    call.resources
        .iter()
        .filter(|resource| resource.kind == ResourceKind::Command)
        .find_map(|resource| match analysed.next() {
            Some(line) => line.unknown_part(),
            None => CommandLine::analyze(&resource.value).unknown_part(),
        })
}

/// A self-approving tool (one with its own approval flow, like presenting a plan) runs without
/// the policy asking, in plan mode too, unless a user's ask rule names it: then the user is
/// asked, as they said (outside bypass mode, where ask rules never ask).
pub(crate) struct SelfApprovingRule {
    pub(crate) ask: AskRules,
}

impl Rule for SelfApprovingRule {
    fn name(&self) -> Cow<'_, str> {
        "self-approving tools never ask".into()
    }

    fn priority(&self) -> i32 {
        priority::SELF_APPROVING
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::SelfApproving
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, context: &PolicyContext) -> Option<Decision> {
        if call.spec.approval != ApprovalKind::SelfApproving {
            return None;
        }
        if context.mode != Mode::Bypass
            && let Some(asked) = self.ask.evaluate(call, context)
        {
            return Some(asked);
        }
        Some(Decision::allow(
            "the tool runs its own approval flow, so the policy does not ask",
            DecisionSource::new(PolicyLayer::SelfApproving, "self-approving tools never ask"),
        ))
    }
}

/// Plan mode: only read-only (and self-approving) tools run; everything else is denied with
/// what to do instead.
pub(crate) struct PlanModeRule;

impl Rule for PlanModeRule {
    fn name(&self) -> Cow<'_, str> {
        "plan mode blocks tools that are not read-only".into()
    }

    fn priority(&self) -> i32 {
        priority::MODE
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::Mode
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, context: &PolicyContext) -> Option<Decision> {
        if context.mode != Mode::Plan || call.is_read_only() {
            return None;
        }
        Some(Decision::deny(
            format!(
                "plan mode is on: only read-only tools run, and `{}` would change things ({}). Keep exploring with read-only tools, then finish the plan and present it; the user will leave plan mode to carry it out.",
                call.spec.name, call.effect
            ),
            DecisionSource::new(PolicyLayer::Mode, "plan mode"),
        ))
    }
}

/// Bypass mode still asks before writes to the directories that configure tools and editors,
/// as Claude Code does: `.git`, `.claude` (but its `commands`, `agents` and `skills`),
/// `.vscode` and `.idea`.
pub(crate) struct BypassGuardedDirsRule;

/// The directories [`BypassGuardedDirsRule`] guards.
const GUARDED_DIRS: [&str; 4] = [".git", ".claude", ".vscode", ".idea"];
/// What under `.claude` bypass mode may change without asking.
const CLAUDE_FREE: [&str; 3] = ["commands", "agents", "skills"];

impl Rule for BypassGuardedDirsRule {
    fn name(&self) -> Cow<'_, str> {
        "bypass mode asks before writes to .git, .claude, .vscode, .idea".into()
    }

    fn priority(&self) -> i32 {
        priority::MODE
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::Mode
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, context: &PolicyContext) -> Option<Decision> {
        if context.mode != Mode::Bypass || call.is_read_only() {
            return None;
        }
        let guarded = call.paths.iter().find(|path| {
            let Some(relative) = &path.relative else {
                return false;
            };
            let parts: Vec<&std::ffi::OsStr> = relative
                .components()
                .map(std::path::Component::as_os_str)
                .collect();
            parts.iter().enumerate().any(|(index, part)| {
                let Some(name) = part.to_str() else {
                    return false;
                };
                GUARDED_DIRS.contains(&name)
                    && !(name == ".claude"
                        && parts
                            .get(index + 1)
                            .and_then(|next| next.to_str())
                            .is_some_and(|next| CLAUDE_FREE.contains(&next)))
            })
        })?;
        Some(Decision::ask(
            format!(
                "`{}` is under a directory that configures tools or editors; bypass mode still asks before changing it",
                path_shown(&guarded.sent)
            ),
            DecisionSource::new(PolicyLayer::Mode, "bypass mode guarded directories"),
        ))
    }
}

fn path_shown(sent: &str) -> String {
    super::shell::shorten(sent)
}

/// Bypass mode: everything runs that safety and deny rules do not stop.
pub(crate) struct BypassModeRule;

impl Rule for BypassModeRule {
    fn name(&self) -> Cow<'_, str> {
        "bypass mode allows everything not denied".into()
    }

    fn priority(&self) -> i32 {
        priority::MODE
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::Mode
    }

    fn evaluate(&self, _: &ClassifiedCall<'_>, context: &PolicyContext) -> Option<Decision> {
        (context.mode == Mode::Bypass).then(|| {
            Decision::allow(
                "bypass mode is on: calls run without asking unless safety, a deny rule or a deny condition stops them",
                DecisionSource::new(PolicyLayer::Mode, "bypass mode"),
            )
        })
    }
}

/// Accept-edits mode: a call that only touches paths, all inside the workspace, runs.
pub(crate) struct AcceptEditsRule;

impl Rule for AcceptEditsRule {
    fn name(&self) -> Cow<'_, str> {
        "accept_edits mode allows file edits inside the workspace".into()
    }

    fn priority(&self) -> i32 {
        priority::MODE
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::Mode
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, context: &PolicyContext) -> Option<Decision> {
        let edits_inside = context.mode == Mode::AcceptEdits
            && !call.is_read_only()
            && !call.resources.is_empty()
            && call.resources.iter().all(|r| r.kind == ResourceKind::Path)
            && !call.paths.is_empty()
            && call.paths.iter().all(|path| path.is_inside());
        edits_inside.then(|| {
            Decision::allow(
                "accept_edits mode is on: file edits inside the workspace run without asking",
                DecisionSource::new(PolicyLayer::Mode, "accept_edits mode"),
            )
        })
    }
}

/// The user's ask rules.
pub(crate) struct AskRules {
    pub(crate) rules: PatternSet,
    pub(crate) home: Home,
}

impl Rule for AskRules {
    fn name(&self) -> Cow<'_, str> {
        "ask rules".into()
    }

    fn priority(&self) -> i32 {
        priority::ASK_RULES
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::AskRule
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, _: &PolicyContext) -> Option<Decision> {
        let rule = self.rules.first_match(call, home_ref(&self.home))?;
        Some(Decision::ask(
            format!(
                "the ask rule `{rule}` asks the user before `{}` runs",
                call.spec.name
            ),
            source(PolicyLayer::AskRule, rule),
        ))
    }
}

/// The user's allow rules: a call runs when they cover all of it.
pub(crate) struct AllowRules {
    pub(crate) rules: PatternSet,
    pub(crate) home: Home,
}

impl Rule for AllowRules {
    fn name(&self) -> Cow<'_, str> {
        "allow rules".into()
    }

    fn priority(&self) -> i32 {
        priority::ALLOW_RULES
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::AllowRule
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, _: &PolicyContext) -> Option<Decision> {
        let rule = self.rules.covering_rule(call, home_ref(&self.home))?;
        Some(Decision::allow(
            format!("allowed by the allow rule `{rule}`"),
            source(PolicyLayer::AllowRule, rule),
        ))
    }
}

/// What the user allowed for this session ("always allow"), from the context.
pub(crate) struct SessionGrantsRule {
    pub(crate) home: Home,
}

impl Rule for SessionGrantsRule {
    fn name(&self) -> Cow<'_, str> {
        "session grants".into()
    }

    fn priority(&self) -> i32 {
        priority::SESSION_GRANTS
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::SessionGrant
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, context: &PolicyContext) -> Option<Decision> {
        if context.grants.is_empty() {
            return None;
        }
        let rule = context.grants.covering_rule(call, home_ref(&self.home))?;
        Some(Decision::allow(
            format!("the user allowed `{rule}` for this session"),
            source(PolicyLayer::SessionGrant, rule),
        ))
    }
}

/// The toolset's or template's allow-list, from the context.
pub(crate) struct AllowListRule {
    pub(crate) home: Home,
}

impl Rule for AllowListRule {
    fn name(&self) -> Cow<'_, str> {
        "toolset or template allow-list".into()
    }

    fn priority(&self) -> i32 {
        priority::ALLOW_LIST
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::AllowList
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, context: &PolicyContext) -> Option<Decision> {
        let rule = context
            .allow_list
            .as_ref()?
            .covering_rule(call, home_ref(&self.home))?;
        Some(Decision::allow(
            format!("`{}` is on the allow-list (`{rule}`)", call.spec.name),
            source(PolicyLayer::AllowList, rule),
        ))
    }
}

/// The default by effect: read-only calls run, all others ask.
pub(crate) struct DefaultByEffectRule;

impl Rule for DefaultByEffectRule {
    fn name(&self) -> Cow<'_, str> {
        "read-only tools are allowed; others ask".into()
    }

    fn priority(&self) -> i32 {
        priority::DEFAULT
    }

    fn layer(&self) -> PolicyLayer {
        PolicyLayer::Default
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, _: &PolicyContext) -> Option<Decision> {
        Some(if call.is_read_only() {
            Decision::allow(
                "read-only calls run without asking",
                DecisionSource::new(PolicyLayer::Default, "read-only tools are allowed"),
            )
        } else {
            Decision::ask(
                "the call is not read-only and no rule allows it, so the user is asked to approve it",
                DecisionSource::new(PolicyLayer::Default, "calls that change things ask"),
            )
        })
    }
}

fn source(layer: PolicyLayer, rule: &RulePattern) -> DecisionSource {
    DecisionSource::new(layer, rule.as_str().to_owned())
}

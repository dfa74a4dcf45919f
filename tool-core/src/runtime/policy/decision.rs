//! The vocabulary every part of authorization shares: what a decision says ([`Verdict`],
//! [`Decision`], [`DecisionSource`], [`PolicyLayer`]), the session [`Mode`], and what a decision is
//! about ([`ClassifiedCall`]: a prepared call with its effect and its resolved paths).

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::shell::CommandLine;
use crate::definition::spec::{Effect, ToolSpec};
use crate::definition::tool::Resource;
use crate::definition::workspace::ResolvedPath;

/// What may happen to a call.
///
/// ```
/// use tool_core::policy::Verdict;
///
/// // Where several answers meet (hooks, say), the strictest wins.
/// assert_eq!(Verdict::Allow.strictest(Verdict::Ask), Verdict::Ask);
/// assert_eq!(Verdict::Deny.strictest(Verdict::Allow), Verdict::Deny);
/// assert_eq!(Verdict::Ask.to_string(), "ask");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The call runs without asking.
    Allow,
    /// The user is asked first.
    Ask,
    /// The call does not run.
    Deny,
}

impl Verdict {
    /// The lowercase name: `allow`, `ask`, `deny` (as in Claude Code's `permissionDecision`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Ask => "ask",
            Verdict::Deny => "deny",
        }
    }

    /// The stricter of two verdicts: deny over ask over allow.
    #[must_use]
    pub fn strictest(self, other: Verdict) -> Verdict {
        self.max(other)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The session's permission mode.
///
/// Parses from our names and from Claude Code's `defaultMode` values:
///
/// ```
/// use tool_core::policy::Mode;
///
/// assert_eq!("acceptEdits".parse::<Mode>().unwrap(), Mode::AcceptEdits);
/// assert_eq!("bypassPermissions".parse::<Mode>().unwrap(), Mode::Bypass);
/// assert_eq!("plan".parse::<Mode>().unwrap(), Mode::Plan);
/// assert_eq!("dontAsk".parse::<Mode>().unwrap(), Mode::DontAsk);
/// assert!("yolo".parse::<Mode>().unwrap_err().to_string().contains("accept_edits"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Rules decide; read-only calls run, others ask.
    #[default]
    Default,
    /// File edits inside the workspace run without asking.
    AcceptEdits,
    /// Only read-only and self-approving tools run; everything else is denied.
    Plan,
    /// Everything runs that safety and deny rules do not stop (writes under `.git`,
    /// `.claude`, `.vscode` and `.idea` still ask).
    Bypass,
    /// Never ask: what no rule allows is denied (Claude Code's `dontAsk`), for sessions
    /// nobody watches.
    DontAsk,
}

impl Mode {
    /// Our name: `default`, `accept_edits`, `plan`, `bypass`, `dont_ask`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "accept_edits",
            Mode::Plan => "plan",
            Mode::Bypass => "bypass",
            Mode::DontAsk => "dont_ask",
        }
    }

    /// Claude Code's name, as hooks receive it in `permission_mode`: `default`, `acceptEdits`,
    /// `plan`, `bypassPermissions`, `dontAsk`.
    #[must_use]
    pub const fn claude_name(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "acceptEdits",
            Mode::Plan => "plan",
            Mode::Bypass => "bypassPermissions",
            Mode::DontAsk => "dontAsk",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode name that is none of the known ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown permission mode `{0}`; expected one of `default`, `accept_edits` (or `acceptEdits`), `plan`, `bypass` (or `bypassPermissions`), `dont_ask` (or `dontAsk`)"
)]
pub struct UnknownMode(pub String);

impl FromStr for Mode {
    type Err = UnknownMode;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "default" => Ok(Mode::Default),
            "accept_edits" | "acceptEdits" => Ok(Mode::AcceptEdits),
            "plan" => Ok(Mode::Plan),
            "bypass" | "bypassPermissions" => Ok(Mode::Bypass),
            "dont_ask" | "dontAsk" => Ok(Mode::DontAsk),
            other => Err(UnknownMode(other.to_owned())),
        }
    }
}

/// The layers of the policy, highest precedence first. A decision names the layer that made it.
///
/// ```
/// use tool_core::policy::{ClassifiedCall, Policy, PolicyContext, PolicyLayer};
/// use tool_core::spec::ToolSpec;
///
/// let read = ToolSpec::new("read_file", "Read a file.").read_only();
/// let decision = Policy::default().decide(&ClassifiedCall::new(&read), &PolicyContext::default());
/// assert_eq!(decision.source.layer, PolicyLayer::Default); // no rule named it: reads run
/// assert_eq!(PolicyLayer::DenyRule.to_string(), "deny rule");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PolicyLayer {
    /// The workspace boundary and protected paths; never overridable.
    Safety,
    /// The user's deny rules, in every mode.
    DenyRule,
    /// A self-approving tool, which the policy does not ask for (unless an ask rule names it).
    SelfApproving,
    /// The permission mode (plan blocks, bypass allows, accept_edits allows edits).
    Mode,
    /// The user's ask rules.
    AskRule,
    /// The user's allow rules.
    AllowRule,
    /// What the user granted during this session (or persisted as "always").
    SessionGrant,
    /// The toolset's or template's allow-list.
    AllowList,
    /// The default by effect: read-only runs, everything else asks.
    Default,
    /// A custom [`Rule`](crate::policy::Rule).
    Custom,
    /// A [`ConditionalRule`](crate::policy::ConditionalRule): a declarative rule on a call's
    /// arguments, the size of the files it names, and its effect class.
    Condition,
    /// The tool-call budget.
    Budget,
    /// A hook's decision.
    Hook,
    /// The user's answer to an approval request.
    User,
}

impl PolicyLayer {
    /// The lowercase name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            PolicyLayer::Safety => "safety",
            PolicyLayer::DenyRule => "deny rule",
            PolicyLayer::SelfApproving => "self-approving tool",
            PolicyLayer::Mode => "mode",
            PolicyLayer::AskRule => "ask rule",
            PolicyLayer::AllowRule => "allow rule",
            PolicyLayer::SessionGrant => "session grant",
            PolicyLayer::AllowList => "allow-list",
            PolicyLayer::Default => "default",
            PolicyLayer::Custom => "custom rule",
            PolicyLayer::Condition => "condition",
            PolicyLayer::Budget => "budget",
            PolicyLayer::Hook => "hook",
            PolicyLayer::User => "user",
        }
    }
}

impl fmt::Display for PolicyLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who decided: a layer and, within it, the rule (`deny rule Read(./secrets/**)`).
///
/// ```
/// use tool_core::policy::{DecisionSource, PolicyLayer};
///
/// let source = DecisionSource::new(PolicyLayer::DenyRule, "Read(./secrets/**)");
/// assert_eq!(source.to_string(), "deny rule: Read(./secrets/**)");
/// assert_eq!(DecisionSource::new(PolicyLayer::Default, "").to_string(), "default");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecisionSource {
    /// The layer.
    pub layer: PolicyLayer,
    /// The rule within the layer, as the user wrote it or as the built-in rule is named.
    pub rule: Cow<'static, str>,
}

impl DecisionSource {
    /// A source.
    pub fn new(layer: PolicyLayer, rule: impl Into<Cow<'static, str>>) -> Self {
        DecisionSource {
            layer,
            rule: rule.into(),
        }
    }
}

impl fmt::Display for DecisionSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rule.is_empty() {
            write!(f, "{}", self.layer)
        } else {
            write!(f, "{}: {}", self.layer, self.rule)
        }
    }
}

/// A verdict with its reason (for the model and the user) and its source (for `explain` and
/// logs).
///
/// A custom [`Rule`](crate::policy::Rule) returns one:
///
/// ```
/// use tool_core::policy::{Decision, DecisionSource, PolicyLayer, Verdict};
///
/// let decision = Decision::deny(
///     "pushing to main is off limits; push a branch and open a pull request",
///     DecisionSource::new(PolicyLayer::Custom, "no pushes to main"),
/// );
/// assert_eq!(decision.verdict, Verdict::Deny);
/// assert_eq!(decision.source.to_string(), "custom rule: no pushes to main");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// What may happen.
    pub verdict: Verdict,
    /// Why, in words a model or a user can act on.
    pub reason: Cow<'static, str>,
    /// Which layer and rule decided.
    pub source: DecisionSource,
}

impl Decision {
    /// A decision.
    pub fn new(
        verdict: Verdict,
        reason: impl Into<Cow<'static, str>>,
        source: DecisionSource,
    ) -> Self {
        Decision {
            verdict,
            reason: reason.into(),
            source,
        }
    }

    /// An allow.
    pub fn allow(reason: impl Into<Cow<'static, str>>, source: DecisionSource) -> Self {
        Decision::new(Verdict::Allow, reason, source)
    }

    /// An ask.
    pub fn ask(reason: impl Into<Cow<'static, str>>, source: DecisionSource) -> Self {
        Decision::new(Verdict::Ask, reason, source)
    }

    /// A deny.
    pub fn deny(reason: impl Into<Cow<'static, str>>, source: DecisionSource) -> Self {
        Decision::new(Verdict::Deny, reason, source)
    }
}

/// What the policy decides about: a call after [`Tool::prepare`](crate::Tool::prepare), with
/// its tool's spec, its effect for this call (per-call classification applied), the values of
/// its resource arguments, and its path arguments resolved against the workspace.
///
/// Building one does no I/O; the coordinator resolves paths (which reads the file system)
/// before, so that deciding is a pure function.
///
/// Make one to test a policy, or a custom rule, without a coordinator:
///
/// ```
/// use tool_core::policy::{ClassifiedCall, Policy, PolicyContext, Verdict};
/// use tool_core::spec::{Effect, ResourceArg, ResourceKind, ToolSpec};
/// use tool_core::tool::Resource;
///
/// let policy = Policy::builder().allow("fetch_url(domain:docs.rs)").build().unwrap();
/// let fetch = ToolSpec::new("fetch_url", "Fetch a page.")
///     .resources([ResourceArg::new("url", ResourceKind::Url)]);
/// let url = |value: &str| [Resource { arg: "url".into(), kind: ResourceKind::Url, value: value.into() }];
/// let session = PolicyContext::default();
///
/// let docs = url("https://docs.rs/serde");
/// let call = ClassifiedCall::new(&fetch).with_resources(&docs);
/// assert_eq!(policy.decide(&call, &session).verdict, Verdict::Allow);
///
/// let elsewhere = url("https://example.com/");
/// let call = ClassifiedCall::new(&fetch).with_resources(&elsewhere);
/// assert_eq!(policy.decide(&call, &session).verdict, Verdict::Ask);
///
/// // A per-call classification, as `read_only_if` gives, overrides the spec's effect.
/// let call = call.with_effect(Effect::ReadOnly);
/// assert!(call.is_read_only());
/// assert_eq!(policy.decide(&call, &session).verdict, Verdict::Allow);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ClassifiedCall<'a> {
    /// The tool's spec: its name, aliases, approval kind, declared resources.
    pub spec: &'a ToolSpec,
    /// This call's effect.
    pub effect: Effect,
    /// The values of the call's resource arguments, in argument order.
    pub resources: &'a [Resource],
    /// The call's path arguments, resolved against the workspace (empty without one), and the
    /// files its commands write through redirections.
    pub paths: &'a [ResolvedPath],
    /// Each command argument's analysis, in the order of the command resources; commands not
    /// analysed here are analysed when a rule needs them.
    pub commands: &'a [CommandLine],
    /// The arguments as the model sent them (JSON text), for `Tool(param:value)` rules and
    /// [`ConditionalRule`](crate::policy::ConditionalRule)s.
    pub arguments: &'a str,
}

impl<'a> ClassifiedCall<'a> {
    /// A call of `spec` with its spec's effect and no resources.
    #[must_use]
    pub fn new(spec: &'a ToolSpec) -> Self {
        ClassifiedCall {
            spec,
            effect: spec.effect,
            resources: &[],
            paths: &[],
            commands: &[],
            arguments: "",
        }
    }

    /// The same call with this effect.
    #[must_use]
    pub fn with_effect(mut self, effect: Effect) -> Self {
        self.effect = effect;
        self
    }

    /// The same call with these resource values.
    #[must_use]
    pub fn with_resources(mut self, resources: &'a [Resource]) -> Self {
        self.resources = resources;
        self
    }

    /// The same call with these resolved paths.
    #[must_use]
    pub fn with_paths(mut self, paths: &'a [ResolvedPath]) -> Self {
        self.paths = paths;
        self
    }

    /// The same call with its command arguments analysed (one per command resource, in
    /// order), so rules do not analyse them again.
    #[must_use]
    pub fn with_commands(mut self, commands: &'a [CommandLine]) -> Self {
        self.commands = commands;
        self
    }

    /// The same call with the arguments the model sent, for `Tool(param:value)` rules and
    /// [`ConditionalRule`](crate::policy::ConditionalRule)s.
    #[must_use]
    pub fn with_arguments(mut self, arguments: &'a str) -> Self {
        self.arguments = arguments;
        self
    }

    /// `true` if this call only reads.
    #[must_use]
    pub fn is_read_only(&self) -> bool {
        self.effect.is_read_only()
    }
}

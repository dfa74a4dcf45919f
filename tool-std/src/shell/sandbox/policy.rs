//! [`AutoAllowSandboxedShell`]: the policy rule under which a `run_shell` call that no rule
//! denies or asks about runs without asking, because the kernel sandbox holds the boundary
//! (Claude Code's `sandbox.autoAllowBashIfSandboxed`).
//!
//! tool-core's policy knows nothing of Landlock: this is an ordinary [`Rule`] the application
//! adds, decided once from the sandbox configuration and the kernel when it is made (a rule
//! must be pure). Its name says whether the sandbox is on and why, so `explain` shows it.

use std::borrow::Cow;

use tool_core::policy::{
    ClassifiedCall, Decision, DecisionSource, PolicyContext, PolicyLayer, Rule, priority,
};

use super::{Sandbox, SandboxConfig};

/// The rule's priority: after the user's deny rules, the mode and the ask rules (each of
/// which still decides first), before the allow rules and the default.
pub const AUTO_ALLOW_PRIORITY: i32 = priority::ASK_RULES + 50;

/// Allows `run_shell` calls (background jobs included) without asking when its sandbox is
/// enforced; has no opinion when it is not (a kernel without Landlock, or the sandbox turned
/// off), so the call is decided as it would be without the rule.
///
/// ```
/// use tool_core::policy::{ClassifiedCall, PolicyBuilder, PolicyContext, Verdict};
/// use tool_core::spec::ToolSpec;
/// use tool_std::shell::sandbox::{AutoAllowSandboxedShell, SandboxConfig, status};
///
/// let config = SandboxConfig::default();
/// let policy = PolicyBuilder::default()
///     .deny("run_shell(rm:*)")
///     .rule(AutoAllowSandboxedShell::new(&config))
///     .build()
///     .unwrap();
/// let shell = ToolSpec::new("run_shell", "Run a command.");
/// let verdict = policy.decide(&ClassifiedCall::new(&shell), &PolicyContext::default()).verdict;
/// if status().holds_files() {
///     assert_eq!(verdict, Verdict::Allow);
/// } else {
///     assert_eq!(verdict, Verdict::Ask, "no sandbox: asked as before");
/// }
/// ```
#[derive(Debug, Clone)]
pub struct AutoAllowSandboxedShell {
    /// Why the rule applies, or why it does not.
    reason: Result<String, String>,
}

impl AutoAllowSandboxedShell {
    /// The rule for commands run under `config` on this kernel.
    #[must_use]
    pub fn new(config: &SandboxConfig) -> Self {
        AutoAllowSandboxedShell {
            reason: config.effective().and_then(|sandbox| match sandbox {
                Sandbox::Partial { abi, .. } if config.network.is_restricted() => Err(format!(
                    "the kernel's Landlock ABI {abi} has no TCP rules, so the network the configuration turns off stays open"
                )),
                held => Ok(held.to_string()),
            }),
        }
    }

    /// The rule when the settings turn `sandbox.autoAllowBashIfSandboxed` on, for commands
    /// run under `config` (usually [`SandboxConfig::from_settings`] of the same settings).
    /// Add it to the policy the coordinator is built with:
    ///
    /// ```
    /// use tool_core::{Coordinator, Toolset, policy::PolicyBuilder, settings::Settings};
    /// use tool_std::shell::sandbox::{AutoAllowSandboxedShell, SandboxConfig};
    ///
    /// let settings = Settings::from_json(r#"{"sandbox": {"autoAllowBashIfSandboxed": true}}"#).unwrap();
    /// let config = SandboxConfig::from_settings(&settings);
    /// let mut policy = PolicyBuilder::default();
    /// if let Some(rule) = AutoAllowSandboxedShell::from_settings(&settings, &config) {
    ///     policy = policy.rule(rule);
    /// }
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::named(["run_shell"]).unwrap())
    ///     .policy(policy)
    ///     .settings(settings)
    ///     .state(config)
    ///     .build()
    ///     .unwrap();
    /// ```
    #[must_use]
    pub fn from_settings(
        settings: &tool_core::settings::Settings,
        config: &SandboxConfig,
    ) -> Option<Self> {
        (settings.sandbox.auto_allow_bash_if_sandboxed == Some(true)).then(|| Self::new(config))
    }

    /// `true` when the rule allows (the sandbox is held).
    #[must_use]
    pub fn applies(&self) -> bool {
        self.reason.is_ok()
    }
}

impl Rule for AutoAllowSandboxedShell {
    fn name(&self) -> Cow<'_, str> {
        match &self.reason {
            Ok(sandbox) => format!("sandboxed run_shell runs without asking: sandbox {sandbox}"),
            Err(why) => format!("sandboxed run_shell auto-allow not applied: {why}"),
        }
        .into()
    }

    fn priority(&self) -> i32 {
        AUTO_ALLOW_PRIORITY
    }

    fn evaluate(&self, call: &ClassifiedCall<'_>, _: &PolicyContext) -> Option<Decision> {
        let Ok(sandbox) = &self.reason else {
            return None;
        };
        (call.spec.name == "run_shell").then(|| {
            Decision::allow(
                format!(
                    "run_shell runs in the kernel sandbox ({sandbox}): it writes only in the workspace and its temporary directory, so it needs no approval (sandbox.autoAllowBashIfSandboxed)"
                ),
                DecisionSource::new(PolicyLayer::Custom, "sandbox.autoAllowBashIfSandboxed"),
            )
        })
    }
}

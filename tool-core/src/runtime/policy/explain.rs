//! [`Explanation`]: every rule the policy considered for a call, what each said, and which one
//! decided. What `toolbox policy explain` prints.

use std::fmt;

use super::{Decision, PolicyLayer};

/// What one rule said about a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplainStep {
    /// The rule's name.
    pub name: String,
    /// The rule's layer.
    pub layer: PolicyLayer,
    /// The rule's priority.
    pub priority: i32,
    /// Its decision, or `None` when it did not apply.
    pub outcome: Option<Decision>,
}

/// Every rule considered for a call, in evaluation order, and which one decided.
///
/// Rules after the decider are evaluated too, so the explanation shows what they would have
/// said; they are marked as overridden.
///
/// ```
/// use tool_core::policy::{ClassifiedCall, Policy, PolicyContext, PolicyLayer, Verdict};
/// use tool_core::spec::ToolSpec;
///
/// let policy = Policy::builder().allow("write_file").build().unwrap();
/// let write = ToolSpec::new("write_file", "Write a file.");
/// let explained = policy.explain(&ClassifiedCall::new(&write), &PolicyContext::default());
/// assert_eq!(explained.decision.verdict, Verdict::Allow);
/// assert_eq!(explained.decider().unwrap().layer, PolicyLayer::AllowRule);
/// // Without the allow rule, the default would have asked.
/// assert!(explained.to_string().contains("would ask (overridden)"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// The tool called.
    pub tool: String,
    /// Each rule, in evaluation order.
    pub steps: Vec<ExplainStep>,
    /// The index in `steps` of the rule that decided.
    pub decided_by: Option<usize>,
    /// The decision (the same as [`Policy::decide`](super::Policy::decide) returns).
    pub decision: Decision,
}

impl Explanation {
    /// The step that decided.
    #[must_use]
    pub fn decider(&self) -> Option<&ExplainStep> {
        self.steps.get(self.decided_by?)
    }
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "`{}`: {} ({})",
            self.tool, self.decision.verdict, self.decision.source
        )?;
        writeln!(f, "  reason: {}", self.decision.reason)?;
        writeln!(f, "  rules considered, in order:")?;
        for (index, step) in self.steps.iter().enumerate() {
            let marker = match self.decided_by {
                Some(decider) if decider == index => "=>",
                _ => "  ",
            };
            write!(
                f,
                "  {marker} [{:>4}] {} ({}): ",
                step.priority, step.name, step.layer
            )?;
            match (&step.outcome, self.decided_by) {
                (None, _) => writeln!(f, "did not apply")?,
                (Some(outcome), Some(decider)) if index > decider => {
                    writeln!(f, "would {} (overridden)", outcome.verdict)?;
                }
                (Some(outcome), _) => {
                    writeln!(f, "{} — {}", outcome.verdict, outcome.reason)?;
                }
            }
        }
        Ok(())
    }
}

//! [`PolicyContext`]: the per-call snapshot of what changes during a session (the mode, the
//! session's grants, the allow-list), so that deciding stays a pure function.

use super::Mode;
use super::pattern::RulePattern;
use super::set::PatternSet;

/// What the policy reads about the session when it decides: the mode, what the user allowed
/// for the session, and the toolset's or template's allow-list. Cheap to clone.
///
/// `Default` is the default mode with no grants and no allow-list.
///
/// ```
/// use tool_core::policy::Mode;
/// use tool_core::policy::{RulePattern, PatternSet, PolicyContext};
///
/// let context = PolicyContext::new(Mode::Plan)
///     .grant(RulePattern::parse("run_shell(cargo test:*)").unwrap())
///     .with_allow_list(PatternSet::parse(["read_file", "write_file"]).unwrap());
/// assert_eq!(context.grants.len(), 1);
/// ```
#[derive(Debug, Clone, Default)]
pub struct PolicyContext {
    /// The session's permission mode.
    pub mode: Mode,
    /// What the user allowed for this session (and what was persisted as "always").
    pub grants: PatternSet,
    /// The toolset's or template's allow-list (tool names or rules), when one is active.
    pub allow_list: Option<PatternSet>,
}

impl PolicyContext {
    /// A context in this mode, with no grants and no allow-list.
    #[must_use]
    pub fn new(mode: Mode) -> Self {
        PolicyContext {
            mode,
            ..PolicyContext::default()
        }
    }

    /// The same context in another mode.
    #[must_use]
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The same context with these grants.
    #[must_use]
    pub fn with_grants(mut self, grants: PatternSet) -> Self {
        self.grants = grants;
        self
    }

    /// The same context with one more grant.
    #[must_use]
    pub fn grant(mut self, rule: RulePattern) -> Self {
        self.grants = self.grants.with(rule);
        self
    }

    /// The same context with this allow-list.
    #[must_use]
    pub fn with_allow_list(mut self, allow_list: PatternSet) -> Self {
        self.allow_list = Some(allow_list);
        self
    }
}

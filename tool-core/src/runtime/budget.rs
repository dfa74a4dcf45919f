//! How much an agent may do in one session: the [`Budget`] of tool calls, exploration
//! (read-only calls) and action (mutating calls), with the multipliers of the budget design
//! (mode, model, task). Which budget a call draws on is derived from its effect class, never
//! from a list of tool names.
//!
//! The coordinator checks the budget before it asks the user anything (a call that could not
//! run anyway is not asked about) and charges it when the call starts.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::definition::spec::Effect;
use crate::runtime::policy::Mode;

/// The three budgets.
///
/// ```
/// use tool_core::{budget::{Budget, BudgetConfig, BudgetKind}, policy::Mode};
///
/// let budget = Budget::new(BudgetConfig::default());
/// // 15 read-only calls, times 2.5 in plan mode (rounded down) or 2.0 in the others.
/// assert_eq!(budget.limit(BudgetKind::Exploration, Mode::Plan), 37);
/// assert_eq!(budget.limit(BudgetKind::Exploration, Mode::Default), 30);
/// assert_eq!(BudgetKind::Exploration.as_str(), "exploration");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BudgetKind {
    /// Every tool call.
    ToolCalls,
    /// Read-only calls: reading, searching, listing.
    Exploration,
    /// Calls that change something.
    Action,
}

impl BudgetKind {
    /// The name used in messages.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            BudgetKind::ToolCalls => "tool-call",
            BudgetKind::Exploration => "exploration",
            BudgetKind::Action => "action",
        }
    }
}

/// The base limits and multipliers. Effective limit = base × mode × model × task, rounded
/// down.
///
/// ```
/// use std::sync::Arc;
/// use tool_core::{Coordinator, Toolset, budget::{Budget, BudgetConfig, BudgetKind}, policy::Mode};
///
/// // A capable model on a large task: more room for both.
/// let config = BudgetConfig { model_multiplier: 1.5, task_multiplier: 2.0, ..BudgetConfig::default() };
/// let budget = Arc::new(Budget::new(config));
/// // 50 tool calls, times 2.0 (default mode), 1.5 and 2.0.
/// assert_eq!(budget.limit(BudgetKind::ToolCalls, Mode::Default), 300);
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::empty())
///     .budget(Arc::clone(&budget))
///     .build()
///     .unwrap();
/// assert!(coordinator.budget().is_some());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetConfig {
    /// Tool calls per session, before multipliers (default 50).
    pub tool_calls: u32,
    /// Read-only calls, before multipliers (default 15).
    pub exploration: u32,
    /// Mutating calls, before multipliers (default 100).
    pub action: u32,
    /// Multiplier in plan mode, where the agent explores before acting (default 2.5).
    pub plan_multiplier: f64,
    /// Multiplier in the other modes, where the agent builds (default 2.0).
    pub build_multiplier: f64,
    /// Multiplier for the model's abilities (default 1.0).
    pub model_multiplier: f64,
    /// Multiplier for the task's size (default 1.0).
    pub task_multiplier: f64,
}

impl Default for BudgetConfig {
    fn default() -> Self {
        BudgetConfig {
            tool_calls: 50,
            exploration: 15,
            action: 100,
            plan_multiplier: 2.5,
            build_multiplier: 2.0,
            model_multiplier: 1.0,
            task_multiplier: 1.0,
        }
    }
}

/// Where one budget stands.
///
/// ```
/// use tool_core::{budget::{Budget, BudgetConfig, BudgetKind}, policy::Mode, spec::Effect};
///
/// let budget = Budget::new(BudgetConfig::default());
/// budget.charge(Effect::ReadOnly, Mode::Default).unwrap();
///
/// let [calls, exploration, action] = budget.status(Mode::Default);
/// assert_eq!((calls.kind, calls.used, calls.remaining()), (BudgetKind::ToolCalls, 1, 99));
/// assert_eq!((exploration.used, exploration.limit), (1, 30));
/// assert_eq!(action.used, 0);
/// assert!(!exploration.is_exhausted());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetStatus {
    /// Which budget.
    pub kind: BudgetKind,
    /// Calls charged so far.
    pub used: u32,
    /// The effective limit in the current mode.
    pub limit: u32,
}

impl BudgetStatus {
    /// Calls left before the limit.
    #[must_use]
    pub fn remaining(&self) -> u32 {
        self.limit.saturating_sub(self.used)
    }

    /// `true` when no call is left.
    #[must_use]
    pub fn is_exhausted(&self) -> bool {
        self.used >= self.limit
    }
}

/// A session's budgets. Share it (it is `Sync`) and give it to the coordinator with
/// `.budget(..)`.
///
/// ```
/// use tool_core::{budget::{Budget, BudgetConfig, BudgetKind}, spec::Effect, policy::Mode};
///
/// let budget = Budget::new(BudgetConfig { exploration: 2, build_multiplier: 1.0, ..BudgetConfig::default() });
/// assert!(budget.charge(Effect::ReadOnly, Mode::Default).is_ok());
/// assert!(budget.charge(Effect::ReadOnly, Mode::Default).is_ok());
/// let exhausted = budget.charge(Effect::ReadOnly, Mode::Default).unwrap_err();
/// assert_eq!(exhausted.kind, BudgetKind::Exploration);
/// assert_eq!(exhausted.to_string(), "the exploration budget is used up (2 of 2 calls)");
/// // Actions draw on another budget.
/// assert!(budget.charge(Effect::Mutating, Mode::Default).is_ok());
/// ```
#[derive(Debug, Default)]
pub struct Budget {
    config: BudgetConfig,
    tool_calls: AtomicU32,
    exploration: AtomicU32,
    action: AtomicU32,
}

/// A budget ran out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the {} budget is used up ({} of {} calls)", kind.as_str(), used, limit)]
pub struct BudgetExhausted {
    /// Which budget.
    pub kind: BudgetKind,
    /// Calls charged.
    pub used: u32,
    /// The limit.
    pub limit: u32,
}

impl Budget {
    /// Budgets with these limits, nothing used.
    #[must_use]
    pub fn new(config: BudgetConfig) -> Self {
        Budget {
            config,
            ..Budget::default()
        }
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &BudgetConfig {
        &self.config
    }

    /// The effective limit of a budget in a mode.
    #[must_use]
    pub fn limit(&self, kind: BudgetKind, mode: Mode) -> u32 {
        let base = match kind {
            BudgetKind::ToolCalls => self.config.tool_calls,
            BudgetKind::Exploration => self.config.exploration,
            BudgetKind::Action => self.config.action,
        };
        let mode_multiplier = if mode == Mode::Plan {
            self.config.plan_multiplier
        } else {
            self.config.build_multiplier
        };
        let limit = f64::from(base)
            * mode_multiplier
            * self.config.model_multiplier
            * self.config.task_multiplier;
        // Saturating float-to-int conversion; a negative multiplier means no calls.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let limit = limit.floor().clamp(0.0, f64::from(u32::MAX)) as u32;
        limit
    }

    /// Where each budget stands in a mode.
    #[must_use]
    pub fn status(&self, mode: Mode) -> [BudgetStatus; 3] {
        [
            BudgetKind::ToolCalls,
            BudgetKind::Exploration,
            BudgetKind::Action,
        ]
        .map(|kind| BudgetStatus {
            kind,
            used: self.counter(kind).load(Ordering::Relaxed),
            limit: self.limit(kind, mode),
        })
    }

    /// Checks, without charging, that a call of this effect could run.
    ///
    /// # Errors
    /// The budget that is used up.
    pub fn check(&self, effect: Effect, mode: Mode) -> Result<(), BudgetExhausted> {
        for kind in kinds_for(effect) {
            let used = self.counter(kind).load(Ordering::Relaxed);
            let limit = self.limit(kind, mode);
            if used >= limit {
                return Err(BudgetExhausted { kind, used, limit });
            }
        }
        Ok(())
    }

    /// Charges one call of this effect to the tool-call budget and to the exploration or action
    /// budget. A call that would exceed either is not charged at all.
    ///
    /// # Errors
    /// The budget that is used up.
    pub fn charge(&self, effect: Effect, mode: Mode) -> Result<(), BudgetExhausted> {
        let [total, specific] = kinds_for(effect);
        self.take(total, mode)?;
        if let Err(exhausted) = self.take(specific, mode) {
            self.counter(total).fetch_sub(1, Ordering::Relaxed);
            return Err(exhausted);
        }
        Ok(())
    }

    /// Starts the budgets over (a new task in the same session).
    pub fn reset(&self) {
        for counter in [&self.tool_calls, &self.exploration, &self.action] {
            counter.store(0, Ordering::Relaxed);
        }
    }

    fn take(&self, kind: BudgetKind, mode: Mode) -> Result<(), BudgetExhausted> {
        let limit = self.limit(kind, mode);
        self.counter(kind)
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                (used < limit).then_some(used + 1)
            })
            .map(drop)
            .map_err(|used| BudgetExhausted { kind, used, limit })
    }

    fn counter(&self, kind: BudgetKind) -> &AtomicU32 {
        match kind {
            BudgetKind::ToolCalls => &self.tool_calls,
            BudgetKind::Exploration => &self.exploration,
            BudgetKind::Action => &self.action,
        }
    }
}

fn kinds_for(effect: Effect) -> [BudgetKind; 2] {
    if effect.is_read_only() {
        [BudgetKind::ToolCalls, BudgetKind::Exploration]
    } else {
        [BudgetKind::ToolCalls, BudgetKind::Action]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_multiply_base_by_mode_model_and_task() {
        let budget = Budget::new(BudgetConfig {
            exploration: 10,
            model_multiplier: 1.5,
            task_multiplier: 2.0,
            ..BudgetConfig::default()
        });
        assert_eq!(budget.limit(BudgetKind::Exploration, Mode::Plan), 75);
        assert_eq!(budget.limit(BudgetKind::Exploration, Mode::Default), 60);
    }

    #[test]
    fn a_refused_charge_costs_nothing() {
        let budget = Budget::new(BudgetConfig {
            tool_calls: 10,
            action: 1,
            build_multiplier: 1.0,
            ..BudgetConfig::default()
        });
        budget.charge(Effect::Mutating, Mode::Default).unwrap();
        assert!(budget.charge(Effect::Destructive, Mode::Default).is_err());
        let [calls, _, action] = budget.status(Mode::Default);
        assert_eq!((calls.used, action.used), (1, 1));
    }
}

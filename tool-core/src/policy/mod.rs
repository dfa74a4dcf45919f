//! Who may run what: the [`Policy`] and its rules.
//!
//! Deciding is a pure function of an immutable snapshot: `Policy::decide(&call, &context)` reads
//! a [`ClassifiedCall`] (spec, effect, resources, resolved paths) and a [`PolicyContext`] (mode,
//! session grants, allow-list) and returns a [`Decision`]. No I/O, no UI: asking the user is the
//! coordinator's job, through an [`Approver`](crate::Approver).

mod decision;

pub use decision::{ClassifiedCall, Decision, DecisionSource, Layer, Mode, UnknownMode, Verdict};

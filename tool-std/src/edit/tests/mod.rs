//! Tests of the edit ladder: cases ported from other agents' suites (`ported`) and our own
//! (`own`), both as tables run by [`run`].

use super::{EditError, MatchLevel, apply_edit};

mod own;
mod ported;

/// What a case expects.
#[derive(Debug)]
pub(super) enum Want {
    /// The text after the edit, and the level that matched.
    Text(&'static str, MatchLevel),
    /// Several hits at this level, starting at these lines.
    Ambiguous(MatchLevel, &'static [usize]),
    /// Not found, with the closest candidate at these lines (`None`: no candidate).
    NotFound(Option<(usize, usize)>),
    Identical,
    Empty,
    Unchanged,
    /// Matched at another indentation, but the steps cannot be mapped.
    UnclearIndent,
}

pub(super) struct Case {
    pub name: &'static str,
    pub text: &'static str,
    pub old: &'static str,
    pub new: &'static str,
    pub replace_all: bool,
    pub want: Want,
}

pub(super) const fn case(
    name: &'static str,
    text: &'static str,
    old: &'static str,
    new: &'static str,
    want: Want,
) -> Case {
    Case {
        name,
        text,
        old,
        new,
        replace_all: false,
        want,
    }
}

pub(super) const fn all(
    name: &'static str,
    text: &'static str,
    old: &'static str,
    new: &'static str,
    want: Want,
) -> Case {
    Case {
        replace_all: true,
        ..case(name, text, old, new, want)
    }
}

pub(super) fn run(cases: &[Case]) {
    let mut failures = Vec::new();
    for c in cases {
        let got = apply_edit(c.text, c.old, c.new, c.replace_all);
        let ok = match (&c.want, &got) {
            (Want::Text(text, level), Ok(a)) => a.text == *text && a.level == *level,
            (
                Want::Ambiguous(level, lines),
                Err(EditError::Ambiguous {
                    level: l,
                    lines: ls,
                }),
            ) => l == level && ls == lines,
            (Want::NotFound(want), Err(EditError::NotFound { closest, .. })) => {
                closest.as_ref().map(|c| c.lines) == *want
            }
            (Want::Identical, Err(EditError::Identical))
            | (Want::Empty, Err(EditError::Empty))
            | (Want::Unchanged, Err(EditError::Unchanged { .. }))
            | (Want::UnclearIndent, Err(EditError::UnclearIndent { .. })) => true,
            _ => false,
        };
        if !ok {
            failures.push(format!("{}: wanted {:?}, got {:?}", c.name, c.want, got));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing case(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

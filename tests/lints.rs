#![deny(warnings, clippy::pedantic)]
//! Every kind of tool the macro supports, linted by `.ci/run`'s clippy pass with
//! `clippy::pedantic` denied: the generated code must not make a user's crate noisy. The same
//! tools compile under trybuild in `tests/ui/pass/lint_clean.rs`.

include!("common/lint_tools.rs");

#[test]
fn every_kind_of_tool_expands_lint_clean() {
    check_tools();
}

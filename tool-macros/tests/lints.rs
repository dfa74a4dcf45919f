#![deny(warnings, clippy::pedantic)]
//! Every kind of tool the macro supports, in a crate that denies every warning and
//! `clippy::pedantic`: the generated code must not make a user's crate noisy.
//!
//! The check is the build of this file, not the test body, and nothing here runs clippy at
//! test time: `cargo test` fails to build it if an expansion makes rustc warn, and `.ci/run`'s
//! `cargo clippy --workspace --all-targets -- -D warnings` fails if an expansion trips a
//! pedantic lint. `tests/ui/pass/lint_clean.rs` compiles the same tools under trybuild, as a
//! user's binary crate, but with rustc alone, which ignores `clippy::` lints: this file is the
//! only place clippy sees the expansions.

include!("common/lint_tools.rs");

/// Built at all, the tools are lint clean; run, every one of them registered.
#[test]
fn every_kind_of_tool_expands_lint_clean() {
    check_tools();
}

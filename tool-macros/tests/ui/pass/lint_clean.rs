#![deny(warnings, clippy::pedantic)]
//! Every kind of tool the macro supports, compiled with every warning denied: the generated code
//! must not make a user's crate noisy.
//! The tools live in `tests/common/lint_tools.rs`, shared with `tests/lints.rs`, which clippy
//! lints with `clippy::pedantic` denied.

include!("../../common/lint_tools.rs");

fn main() {
    check_tools();
}

//! The standard library of agent tools.
//!
//! Empty for now: the tools (read, write, edit, patch, grep, glob, shell, fetch, plan) land in
//! later issues, each a `#[tool]` function over a shared engine.

mod edit;

//! The kernel sandbox of `run_shell` with the sandbox's own mount namespace (what a machine
//! without bubblewrap gets where user namespaces are allowed): the cases of
//! `shell_sandbox.rs`, which runs them with bubblewrap, on a view built by the same steps
//! with the kernel's own calls.
#![cfg(target_os = "linux")]

/// The engine these cases run on: the sandbox's own namespaces, as if `bwrap` were missing.
const RUN: Run = Run::Namespaces;

include!("shell_sandbox/cases.rs");

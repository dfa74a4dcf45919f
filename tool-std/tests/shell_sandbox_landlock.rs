//! The kernel sandbox of `run_shell` with Landlock alone holding the file system
//! ([`SandboxConfig::bubblewrap`] off): the cases of `shell_sandbox.rs`, which runs them with
//! bubblewrap, on the engine a machine without bubblewrap gets.
#![cfg(target_os = "linux")]

/// The engine these cases run on: Landlock alone.
const RUN: Run = Run::Landlock;

include!("shell_sandbox/cases.rs");

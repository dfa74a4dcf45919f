//! The kernel sandbox of `run_shell`: writes held to the workspace and the session's temporary
//! directory (for the command's whole process tree and for background jobs), reads refused on
//! denied paths, TCP off unless allowed, a refusal explained in the result, the auto-allow rule
//! under the deny rules, and the fallback where the kernel has no Landlock.
//!
//! The cases (`shell_sandbox/cases.rs`) run three times: here with bubblewrap building the
//! file system where it is installed (the default), in `shell_sandbox_namespaces.rs` with the
//! sandbox building the same view itself, and in `shell_sandbox_landlock.rs` with Landlock
//! alone. Tests that need Landlock pass with a note on stderr where the kernel has
//! none (the fallback is then what they would see, and is tested on its own by forcing it).
#![cfg(target_os = "linux")]

/// The engine these cases run on: bubblewrap where it works ([`SandboxConfig::bubblewrap`]).
const RUN: Run = Run::Bubblewrap;

include!("shell_sandbox/cases.rs");

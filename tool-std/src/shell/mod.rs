//! The engine under the shell tools (`run_shell`, `shell_output`, `kill_shell`,
//! `list_shells`): starting a command line without a terminal (`spawn`), without a shell
//! where one would add nothing (`direct`), watching it to its
//! end and stopping its whole process group (`process`), what it printed as the model reads
//! it (`output`), the session's background jobs (`jobs`), which command lines only read
//! ([`read_only`]), and the kernel sandbox commands run in ([`sandbox`]); the last two are
//! public.
//!
//! Linux (and other Unix) only: a command runs in a process group of its own (and a session
//! of its own when this process has a controlling terminal), and is stopped by signalling its
//! process group.

pub(crate) mod direct;
pub(crate) mod jobs;
pub(crate) mod output;
pub(crate) mod process;
pub mod read_only;
pub mod sandbox;
pub(crate) mod spawn;

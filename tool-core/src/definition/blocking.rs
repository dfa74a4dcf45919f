//! Where a `blocking` tool's body runs: on Tokio's blocking pool, or, for a tool declared
//! `blocking(quick)` and when that hand-off would cost more than the body, on the calling
//! thread. Only the tool's author can say `quick`: a body run in place must not enter the
//! async runtime itself (`Handle::block_on` panics there, and works on the pool).
//!
//! A body handed to the pool costs two thread wake-ups: a pool thread's to start it, and the
//! runtime thread's to take its result. On a current-thread runtime (the stdio MCP server's)
//! the runtime thread has parked in the reactor by then, and waking it costs about 45 µs on a
//! 2-core VM: more than listing a directory or reading a 10 kB file takes (20 to 30 µs). So a
//! body runs on the calling thread instead when all of these hold:
//!
//! - the runtime is a current-thread one (a multi-threaded runtime keeps its workers free for
//!   other tasks, and Tokio's `block_in_place` there moves the worker's core, a wake-up
//!   again);
//! - no other blocking body started on this thread is running (the runtime is otherwise idle,
//!   so nothing waits for its thread; calls sent together still spread over the pool);
//! - the tool's last [`STREAK`] bodies each took under [`QUICK`] (its first calls always go
//!   to the pool, and one slow call sends the next ones there again);
//! - the call's workspace roots are on local disks (on Linux: ext4, XFS, Btrfs, tmpfs,
//!   overlayfs, ZFS, F2FS; elsewhere, never), or it has no workspace.
//!
//! What that risks: a body that has always been quick and is slow this once holds the
//! runtime's thread while it runs, so requests arriving meanwhile (another call, a
//! cancellation) wait for it; the slow call resets the streak. A network file system that
//! stalls is what would make that wait long, and its workspaces always use the pool.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::runtime::{Handle, RuntimeFlavor};

use crate::definition::context::ToolContext;
use crate::{ToolError, ToolOutput};

/// A body this fast counts as quick: a few hand-offs' worth. Past it the hand-off is a small
/// part of the call, and running in place can cost more than it saves: reading the first
/// page of a 1 MB log took 227 µs on the pool and 630 µs in place, where the allocator gave
/// the read buffer's pages back between calls (68,500 page faults against 19,000).
pub(crate) const QUICK: Duration = Duration::from_micros(200);
/// How many quick bodies in a row make a tool's next one run on the calling thread.
pub(crate) const STREAK: u8 = 4;

thread_local! {
    /// Blocking bodies started on this thread and running now, on the pool or in place. A
    /// current-thread runtime runs all its tasks on one thread, so this counts its bodies.
    static RUNNING: Arc<AtomicUsize> = Arc::new(AtomicUsize::new(0));
}

/// Each tool's count of quick bodies in a row (up to [`STREAK`]), by name.
static STREAKS: LazyLock<Mutex<HashMap<Cow<'static, str>, u8>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Runs a `blocking` tool's body where it costs least (see the module docs).
pub(crate) async fn run(
    ctx: &ToolContext,
    body: impl FnOnce(&ToolContext) -> Result<ToolOutput, ToolError> + Send + 'static,
) -> Result<ToolOutput, ToolError> {
    run_judged(ctx, body, QUICK).await
}

/// [`run`], with bodies under `quick` counting as quick.
async fn run_judged(
    ctx: &ToolContext,
    body: impl FnOnce(&ToolContext) -> Result<ToolOutput, ToolError> + Send + 'static,
    quick: Duration,
) -> Result<ToolOutput, ToolError> {
    let running = Running::start(ctx.call().tool.clone(), quick);
    if running.alone()
        && on_current_thread_runtime()
        && quick_streak(&running.tool)
        && ctx
            .workspace()
            .is_none_or(|ws| ws.roots().iter().all(|root| on_local_disk(root)))
    {
        running.run(ctx, body)
    } else {
        on_pool(ctx, move |ctx| running.run(ctx, body)).await
    }
}

/// Runs a `blocking` tool's body on the pool (always, for a tool not declared `quick`).
pub(crate) async fn on_pool(
    ctx: &ToolContext,
    body: impl FnOnce(&ToolContext) -> Result<ToolOutput, ToolError> + Send + 'static,
) -> Result<ToolOutput, ToolError> {
    let ctx = ctx.clone();
    match tokio::task::spawn_blocking(move || body(&ctx)).await {
        Ok(result) => result,
        Err(error) if error.is_panic() => Err(ToolError::Panicked {
            message: crate::definition::panic::panic_message(error.into_panic().as_ref()),
        }),
        Err(_) => Err(ToolError::Cancelled),
    }
}

/// Whether the tool's last [`STREAK`] bodies were all quick.
fn quick_streak(tool: &str) -> bool {
    let streaks = STREAKS.lock().unwrap_or_else(PoisonError::into_inner);
    streaks.get(tool).is_some_and(|streak| *streak >= STREAK)
}

/// Counts one more body of `tool`, which took `took`.
fn record(tool: Cow<'static, str>, took: Duration, quick: Duration) {
    let mut streaks = STREAKS.lock().unwrap_or_else(PoisonError::into_inner);
    let streak = streaks.entry(tool).or_default();
    *streak = if took < quick {
        streak.saturating_add(1).min(STREAK)
    } else {
        0
    };
}

/// Whether `dir` is on a local disk's file system (see the module docs), asked once per
/// directory.
fn on_local_disk(dir: &Path) -> bool {
    static KNOWN: LazyLock<Mutex<HashMap<PathBuf, bool>>> =
        LazyLock::new(|| Mutex::new(HashMap::new()));
    let mut known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(local) = known.get(dir) {
        return *local;
    }
    let local = file_system_is_local(dir);
    known.insert(dir.to_owned(), local);
    local
}

#[cfg(target_os = "linux")]
fn file_system_is_local(dir: &Path) -> bool {
    /// `statfs`'s `f_type` of the local disk file systems (linux/magic.h).
    const LOCAL: [i64; 7] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // XFS
        0x9123_683E, // Btrfs
        0x0102_1994, // tmpfs
        0x794C_7630, // overlayfs
        0x2FC1_2FC1, // ZFS
        0xF2F5_2010, // F2FS
    ];
    #[allow(
        clippy::useless_conversion,
        reason = "`f_type` is an `i64` on x86-64 but narrower on other architectures"
    )]
    rustix::fs::statfs(dir).is_ok_and(|stat| LOCAL.contains(&i64::from(stat.f_type)))
}

#[cfg(not(target_os = "linux"))]
fn file_system_is_local(_dir: &Path) -> bool {
    false
}

fn on_current_thread_runtime() -> bool {
    Handle::try_current()
        .is_ok_and(|handle| handle.runtime_flavor() == RuntimeFlavor::CurrentThread)
}

/// One blocking body, counted in its thread's [`RUNNING`] from before it is placed until it
/// ends (on the pool, also when the call waiting for it was dropped).
struct Running {
    tool: Cow<'static, str>,
    quick: Duration,
    running: Arc<AtomicUsize>,
}

impl Running {
    fn start(tool: Cow<'static, str>, quick: Duration) -> Running {
        let running = RUNNING.with(Arc::clone);
        running.fetch_add(1, Ordering::SeqCst);
        Running {
            tool,
            quick,
            running,
        }
    }

    /// Whether this is the only body running that its thread started.
    fn alone(&self) -> bool {
        self.running.load(Ordering::SeqCst) == 1
    }

    /// Runs the body here, a panic becoming [`ToolError::Panicked`], and records how long it
    /// took.
    fn run(
        self,
        ctx: &ToolContext,
        body: impl FnOnce(&ToolContext) -> Result<ToolOutput, ToolError>,
    ) -> Result<ToolOutput, ToolError> {
        let started = Instant::now();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(ctx)))
            .unwrap_or_else(|payload| {
                Err(ToolError::Panicked {
                    message: crate::definition::panic::panic_message(payload.as_ref()),
                })
            });
        record(self.tool.clone(), started.elapsed(), self.quick);
        result
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.running.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::CallInfo;

    fn ctx(tool: &'static str) -> ToolContext {
        ToolContext::detached(CallInfo::new("", tool, 0))
    }

    /// Counting as quick a body under a second, so that a busy machine's pauses do not
    /// break a streak in these tests; [`SLOW`] is slow.
    const TEST_QUICK: Duration = Duration::from_secs(1);
    const SLOW: Duration = Duration::from_millis(1_100);

    fn run(
        ctx: &ToolContext,
        body: impl FnOnce(&ToolContext) -> Result<ToolOutput, ToolError> + Send + 'static,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> {
        run_judged(ctx, body, TEST_QUICK)
    }

    /// Runs a body of `tool` that sleeps `sleep`, and says whether it ran on this thread.
    async fn in_place(tool: &'static str, sleep: Duration) -> bool {
        ran_in_place(&ctx(tool), sleep).await
    }

    /// Runs a body that sleeps `sleep` in `ctx`, and says whether it ran on this thread.
    async fn ran_in_place(ctx: &ToolContext, sleep: Duration) -> bool {
        let output = run(ctx, move |_| {
            std::thread::sleep(sleep);
            Ok(ToolOutput::text(format!(
                "{:?}",
                std::thread::current().id()
            )))
        })
        .await
        .unwrap();
        output.content[0].as_text() == Some(&format!("{:?}", std::thread::current().id()))
    }

    fn current_thread() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    }

    #[test]
    fn a_tool_whose_bodies_are_quick_runs_in_place_on_a_current_thread_runtime() {
        current_thread().block_on(async {
            for _ in 0..STREAK {
                assert!(!in_place("blocking_test_quick", Duration::ZERO).await);
            }
            assert!(in_place("blocking_test_quick", Duration::ZERO).await);
        });
    }

    #[test]
    fn one_slow_body_sends_the_next_ones_to_the_pool() {
        current_thread().block_on(async {
            for _ in 0..STREAK {
                in_place("blocking_test_slow_once", Duration::ZERO).await;
            }
            // In place (the streak holds), but slow: the streak starts again.
            assert!(in_place("blocking_test_slow_once", SLOW).await);
            for _ in 0..STREAK {
                assert!(!in_place("blocking_test_slow_once", Duration::ZERO).await);
            }
            assert!(in_place("blocking_test_slow_once", Duration::ZERO).await);
        });
    }

    #[test]
    fn a_quick_body_goes_to_the_pool_while_another_body_runs() {
        current_thread().block_on(async {
            for _ in 0..STREAK {
                in_place("blocking_test_not_alone", Duration::ZERO).await;
            }
            let (started, waiting) = std::sync::mpsc::channel();
            let (release, released) = std::sync::mpsc::channel::<()>();
            let other_ctx = ctx("blocking_test_other");
            let other = run(&other_ctx, move |_| {
                started.send(()).unwrap();
                released.recv().unwrap();
                Ok(ToolOutput::text("done"))
            });
            let quick = async {
                tokio::task::spawn_blocking(move || waiting.recv().unwrap())
                    .await
                    .unwrap();
                let ran_in_place = in_place("blocking_test_not_alone", Duration::ZERO).await;
                release.send(()).unwrap();
                ran_in_place
            };
            let (other, ran_in_place) = tokio::join!(other, quick);
            other.unwrap();
            assert!(!ran_in_place);
        });
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_workspace_on_a_local_disk_runs_in_place_and_one_elsewhere_never() {
        use crate::Workspace;
        use crate::definition::context::SharedContext;
        let in_workspace = |root: &Path| {
            let shared = SharedContext {
                workspace: Some(Workspace::new(root).unwrap()),
                ..SharedContext::default()
            };
            ToolContext::new(
                CallInfo::new("", "blocking_test_workspace", 0),
                Arc::new(shared),
                None,
            )
        };
        let local = std::env::temp_dir();
        assert!(file_system_is_local(&local), "{}", local.display());
        // procfs stands for any file system that is not a local disk's.
        assert!(!file_system_is_local(Path::new("/proc")));
        current_thread().block_on(async {
            for _ in 0..STREAK {
                ran_in_place(&in_workspace(&local), Duration::ZERO).await;
            }
            assert!(ran_in_place(&in_workspace(&local), Duration::ZERO).await);
            assert!(!ran_in_place(&in_workspace(Path::new("/proc")), Duration::ZERO).await);
        });
    }

    #[test]
    fn a_multi_threaded_runtime_always_uses_the_pool() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        runtime.block_on(async {
            for _ in 0..STREAK + 2 {
                let ran_in_place = tokio::spawn(in_place("blocking_test_multi", Duration::ZERO))
                    .await
                    .unwrap();
                assert!(!ran_in_place);
            }
        });
    }

    #[test]
    fn a_body_panicking_in_place_is_a_tool_error() {
        current_thread().block_on(async {
            for _ in 0..STREAK {
                in_place("blocking_test_panics", Duration::ZERO).await;
            }
            let result = run(&ctx("blocking_test_panics"), |_| panic!("in place")).await;
            assert!(
                matches!(&result, Err(ToolError::Panicked { message }) if message == "in place"),
                "{result:?}"
            );
        });
    }
}

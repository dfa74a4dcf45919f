//! [`Coordinator::call_batch`]: many calls at once, in parallel where that is safe, results in
//! the order the calls came.
//!
//! Every call is looked up and prepared first, so its footprint is known (`schedule.rs`); then
//! each call starts as soon as the earlier calls it conflicts with have finished and a slot
//! under the concurrency limit is free. A failing call never cancels its siblings: its failure
//! is its result. Only an approval answered with "abort" stops the batch: calls not yet started
//! end as cancelled.

use std::sync::Arc;
use std::time::Instant;

use tokio::runtime::Handle;
use tokio::sync::{Semaphore, watch};

use super::schedule::{Footprint, dependencies};
use super::{Coordinator, Staged};
use crate::definition::context::CancellationToken;
use crate::runtime::hooks::HookEvent;
use crate::{ToolCall, ToolError, ToolResult};

/// How [`Coordinator::call_batch`] schedules.
///
/// ```
/// use tool_core::coordinator::BatchOptions;
///
/// let options = BatchOptions::default();
/// assert_eq!(options.max_concurrency, 10);
/// let one_by_one = BatchOptions::sequential();
/// assert!(one_by_one.sequential);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchOptions {
    /// At most this many calls run at once (default 10, as Claude Code's tool concurrency).
    pub max_concurrency: usize,
    /// Run every call after the previous one, whatever their effects.
    pub sequential: bool,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            max_concurrency: 10,
            sequential: false,
        }
    }
}

impl BatchOptions {
    /// At most `limit` calls at once.
    #[must_use]
    pub fn limit(limit: usize) -> Self {
        BatchOptions {
            max_concurrency: limit.max(1),
            sequential: false,
        }
    }

    /// One call after another, in order.
    #[must_use]
    pub fn sequential() -> Self {
        BatchOptions {
            max_concurrency: 1,
            sequential: true,
        }
    }
}

impl Coordinator {
    /// Runs a batch of calls — the tool calls of one model turn — and returns their results in
    /// the order of `calls`.
    ///
    /// Read-only calls run in parallel; mutating calls on distinct paths run in parallel;
    /// mutating calls on the same path, and mutating calls whose footprint is unknown (no
    /// path or URL arguments, or a command), run in the order given, after the calls before
    /// them that they could interfere with. At most
    /// [`max_concurrency`](BatchOptions::max_concurrency) calls run at once. Outside a Tokio
    /// runtime the calls run one after another.
    ///
    /// Once every call has resolved, PostToolBatch hooks see them all together; what they add
    /// for the model goes into the last result's `context`, and a block or `continue: false`
    /// sets its `stop`.
    pub async fn call_batch(&self, calls: Vec<ToolCall>) -> Vec<ToolResult> {
        let batch_hooks = !calls.is_empty() && self.inner.hooks.has(HookEvent::PostToolBatch);
        let asked: Vec<(String, String)> = if batch_hooks {
            calls
                .iter()
                .map(|call| (call.name.clone(), call.arguments.clone()))
                .collect()
        } else {
            Vec::new()
        };
        let mut results = self.run_batch(calls).await;
        if batch_hooks {
            self.post_batch_hooks(&asked, &mut results).await;
        }
        results
    }

    async fn run_batch(&self, calls: Vec<ToolCall>) -> Vec<ToolResult> {
        let options = self.inner.batch;
        let abort = CancellationToken::new();
        if options.sequential || calls.len() <= 1 || Handle::try_current().is_err() {
            let mut results = Vec::with_capacity(calls.len());
            for call in calls {
                let started = Instant::now();
                results.push(match self.stage(call, started) {
                    Ok(staged) if abort.is_cancelled() => self.aborted(staged, started),
                    Ok(staged) => self.run(staged, started, Some(&abort)).await,
                    Err(result) => result,
                });
            }
            return results;
        }

        let started = Instant::now();
        #[expect(
            clippy::result_large_err,
            reason = "the failure is the call's answer, moved once to its task"
        )]
        let staged: Vec<Result<Staged, ToolResult>> = calls
            .into_iter()
            .map(|call| self.stage(call, started))
            .collect();
        let footprints: Vec<Footprint> = staged
            .iter()
            .map(|staged| match staged {
                Ok(staged) => Footprint::of(
                    staged.effect.is_read_only(),
                    staged.prepared.resources(),
                    &staged.paths,
                ),
                Err(_) => Footprint::none(),
            })
            .collect();
        let ids: Vec<String> = staged
            .iter()
            .map(|staged| match staged {
                Ok(staged) => staged.call_id.clone(),
                Err(result) => result.call_id.clone(),
            })
            .collect();
        let waits_for = dependencies(&footprints);
        let slots = Arc::new(Semaphore::new(
            options.max_concurrency.clamp(1, Semaphore::MAX_PERMITS),
        ));
        let (done, finished): (Vec<_>, Vec<_>) =
            staged.iter().map(|_| watch::channel(false)).unzip();

        let mut tasks = TaskGuard(Vec::with_capacity(staged.len()));
        for ((index, staged), done) in staged.into_iter().enumerate().zip(done) {
            let waits: Vec<watch::Receiver<bool>> = waits_for[index]
                .iter()
                .map(|&earlier| finished[earlier].clone())
                .collect();
            let (coordinator, slots, abort) = (self.clone(), Arc::clone(&slots), abort.clone());
            tasks.0.push(tokio::spawn(async move {
                let result = match staged {
                    Err(result) => result,
                    Ok(mut staged) => {
                        let waited = !waits.is_empty();
                        for mut wait in waits {
                            // An earlier call that ended (or whose task died) no longer holds
                            // this one back.
                            let _ = wait.wait_for(|finished| *finished).await;
                        }
                        // The calls waited for may have changed the file system (made a
                        // symlink, say): confine the paths as they are now. A call that waited
                        // for nothing was confined a moment ago, and nothing it could conflict
                        // with has run since.
                        if waited {
                            staged.paths =
                                coordinator.resolve_paths(&staged.prepared, staged.effect);
                        }
                        let _slot = slots.acquire_owned().await;
                        if abort.is_cancelled() {
                            coordinator.aborted(staged, started)
                        } else {
                            coordinator.run(staged, started, Some(&abort)).await
                        }
                    }
                };
                let _ = done.send(true);
                result
            }));
        }

        let mut results = Vec::with_capacity(tasks.0.len());
        for (task, id) in tasks.0.iter_mut().zip(ids) {
            results.push(match task.await {
                Ok(result) => result,
                // Calls catch their own panics; this is a task that died some other way.
                Err(error) => ToolResult::failure(
                    id,
                    ToolError::internal(format!("the call's task ended abnormally: {error}")),
                ),
            });
        }
        results
    }
}

impl Coordinator {
    /// The result of a call not started because the user aborted the batch.
    fn aborted(&self, staged: Staged, started: Instant) -> ToolResult {
        let name = staged.tool.spec().name.clone();
        self.finish(
            ToolResult::failure(staged.call_id, ToolError::Cancelled),
            name,
            started,
        )
    }
}

/// Aborts the batch's tasks if the batch itself is dropped before they finish, so no call
/// outlives the caller that gave up on it.
struct TaskGuard(Vec<tokio::task::JoinHandle<ToolResult>>);

impl Drop for TaskGuard {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

//! Hooks started and not waited for: Claude Code's `"async": true`. The call goes on at once;
//! the hook runs beside it (on the multi-threaded runtime, or on a thread of its own) and can
//! decide nothing: its answer is dropped, its failure logged. A command hook's whole process
//! group is still killed when it times out, or when the runtime drops the task at shutdown.

use std::borrow::Cow;
use std::sync::Arc;

use tokio::runtime::RuntimeFlavor;

use super::Hook;
use super::event::HookInput;
use super::output::HookOutput;
use crate::BoxFuture;

/// A hook run in the background (`async: true`): the call does not wait for it.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use tool_core::hooks::{hook_fn, BackgroundHook, Hook, HookInput, HookOutput};
/// use serde_json::json;
///
/// let slow = hook_fn("slow", |_: &HookInput| async {
///     tokio::time::sleep(std::time::Duration::from_secs(60)).await;
///     HookOutput::block("too late to block anything")
/// });
/// let hook = BackgroundHook::new(Arc::new(slow));
/// let input = HookInput::pre_tool_use("Bash", json!({"command": "ls"}));
/// // Answers at once, with nothing to say.
/// assert_eq!(hook.run(&input).await, HookOutput::default());
/// # });
/// ```
pub struct BackgroundHook {
    inner: Arc<dyn Hook>,
}

impl BackgroundHook {
    /// `inner`, run in the background.
    #[must_use]
    pub fn new(inner: Arc<dyn Hook>) -> Self {
        BackgroundHook { inner }
    }
}

impl Hook for BackgroundHook {
    fn name(&self) -> Cow<'_, str> {
        Cow::Owned(format!("{} (async)", self.inner.name()))
    }

    fn run<'a>(&'a self, input: &'a HookInput) -> BoxFuture<'a, HookOutput> {
        let inner = Arc::clone(&self.inner);
        let input = input.clone();
        let work = async move {
            let output = inner.run(&input).await;
            if let Some(error) = output.error {
                tracing::warn!(hook = %inner.name(), %error, "an async hook failed");
            }
        };
        match tokio::runtime::Handle::try_current() {
            // A multi-threaded runtime runs it beside the call, and after it.
            Ok(runtime) if runtime.runtime_flavor() == RuntimeFlavor::MultiThread => {
                runtime.spawn(work);
            }
            // A current-thread runtime (`call_blocking`'s) runs tasks only while it is blocked
            // on: the hook gets a thread and a runtime of its own, for as long as it runs.
            _ => {
                let started = std::thread::Builder::new()
                    .name("async hook".to_owned())
                    .spawn(move || {
                        if let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                            .enable_all()
                            .build()
                        {
                            runtime.block_on(work);
                        }
                    });
                if let Err(error) = started {
                    tracing::warn!(%error, "an async hook could not be started");
                }
            }
        }
        Box::pin(async { HookOutput::default() })
    }
}

//! Keeping a panic inside the code that raised it: a tool's panic becomes
//! [`ToolError::Panicked`], a hook's becomes that hook's error, and the coordinator goes on
//! working. The one place that catches unwinds; tools and hooks both go through it.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::ToolError;

/// Runs `f`; a panic becomes `Err` with the panic's message.
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    // Nothing the caller shares with `f` can be left half-changed by the unwind: what a tool or
    // hook received is dropped with its call.
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_message(payload.as_ref()))
}

/// Runs a tool's `f`; a panic becomes [`ToolError::Panicked`].
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, ToolError>) -> Result<T, ToolError> {
    catch(f).unwrap_or_else(|message| Err(ToolError::Panicked { message }))
}

/// A future whose panics while polled (or while dropped after such a panic) become `Err` with
/// the panic's message.
pub(crate) struct CatchUnwind<F>(Option<F>);

impl<F> CatchUnwind<F> {
    pub(crate) fn new(future: F) -> Self {
        CatchUnwind(Some(future))
    }
}

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some(future) = self.0.as_mut() else {
            return Poll::Ready(Err("polled after it finished".to_owned()));
        };
        match catch(|| Pin::new(future).poll(cx)) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(output)) => {
                self.0 = None;
                Poll::Ready(Ok(output))
            }
            Err(message) => {
                // Dropped now, so what it owns (a hook's child process) goes; dropping a
                // broken future may panic again.
                let broken = self.0.take();
                let _ = catch(move || drop(broken));
                Poll::Ready(Err(message))
            }
        }
    }
}

/// The text of a panic payload.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic payload".to_owned())
}

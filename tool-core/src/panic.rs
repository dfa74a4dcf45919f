//! Keeping a tool's panic inside its call: the panic becomes [`ToolError::Panicked`] and the
//! coordinator goes on working.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::ToolError;

/// Runs `f`, turning a panic into an error.
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, ToolError>) -> Result<T, ToolError> {
    // The coordinator shares nothing mutable with the tool that a panic could leave broken:
    // everything the tool received is dropped with its call.
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(panicked(payload.as_ref())))
}

/// A future whose panics while polled become an error.
pub(crate) struct Guarded<F>(pub(crate) F);

impl<T, F: Future<Output = Result<T, ToolError>> + Unpin> Future for Guarded<F> {
    type Output = Result<T, ToolError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx)))
            .unwrap_or_else(|payload| Poll::Ready(Err(panicked(payload.as_ref()))))
    }
}

/// The error for a panic payload.
pub(crate) fn panicked(payload: &(dyn Any + Send)) -> ToolError {
    ToolError::Panicked {
        message: panic_message(payload),
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

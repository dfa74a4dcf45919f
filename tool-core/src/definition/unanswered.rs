//! [`Unanswered`]: the error of a question to the user that got no answer. It lives on the
//! definition side, though the runtime asks the questions, because
//! [`ToolError::is_pending`](crate::ToolError::is_pending) recognises it and the definition
//! side never names the runtime. Its public path is `tool_core::approval::Unanswered`.

/// Why a question got no answer: nobody could be asked, the asking failed, or the answer
/// comes with the call's next run ([`is_pending`](Self::is_pending)). A tool usually
/// reports it as its error ([`Session::elicit`](crate::coordinator::Session::elicit) does).
///
/// ```
/// use tool_core::approval::Unanswered;
///
/// assert!(Unanswered::pending("waiting for the client").is_pending());
/// assert!(!Unanswered::new("nobody to ask").is_pending());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
#[non_exhaustive]
pub struct Unanswered {
    /// Why, said for the model (it reaches it in the tool's error).
    pub reason: String,
    /// What kind of "no answer" it is.
    pub kind: UnansweredKind,
}

/// What kind of "no answer" an [`Unanswered`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnansweredKind {
    /// Nobody could be asked, or the asking failed: there will be no answer in this call.
    Failed,
    /// The answer comes with the call's next run (MCP's `input_required` round trip): the
    /// tool must return this error at once (`?`), acting on nothing; the call runs again
    /// from the start with the answer.
    Pending,
    /// The client did not declare the capability the request needs (`sampling`, `roots`).
    MissingCapability(&'static str),
}

impl Unanswered {
    /// No answer, for this reason.
    pub fn new(reason: impl Into<String>) -> Self {
        Unanswered {
            reason: reason.into(),
            kind: UnansweredKind::Failed,
        }
    }

    /// No answer yet: it comes with the call's next run ([`UnansweredKind::Pending`]).
    pub fn pending(reason: impl Into<String>) -> Self {
        Unanswered {
            reason: reason.into(),
            kind: UnansweredKind::Pending,
        }
    }

    /// No answer, because the client lacks `capability`
    /// ([`UnansweredKind::MissingCapability`]).
    pub fn missing_capability(capability: &'static str, reason: impl Into<String>) -> Self {
        Unanswered {
            reason: reason.into(),
            kind: UnansweredKind::MissingCapability(capability),
        }
    }

    /// Whether the answer comes with the call's next run: the tool must return at once.
    #[must_use]
    pub fn is_pending(&self) -> bool {
        self.kind == UnansweredKind::Pending
    }
}

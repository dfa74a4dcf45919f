//! The errors a tool call can end in: [`ToolError`], and each [`ArgumentError`] (with its
//! [`ArgumentProblem`] and JSON path) of the arguments the model got wrong.
//!
//! Every message is written for the model that made the call: it says what was wrong and what
//! would be right, so the next call can succeed.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::definition::suggest::{Backticked, DidYouMean};

/// Why a tool call did not produce a result.
///
/// A tool's own failure is [`ToolError::failed`]; the other variants come from the framework.
/// `From` conversions exist for the common error types so `?` works in a tool body:
///
/// ```
/// use tool_core::ToolError;
///
/// fn parse(input: &str) -> Result<u32, ToolError> {
///     let n: u32 = input.trim().parse().map_err(ToolError::failed)?;
///     if n == 0 {
///         return Err(ToolError::failed("the count must be at least 1"));
///     }
///     Ok(n)
/// }
/// assert!(parse("0").is_err());
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments did not match the tool's schema.
    #[error("{}", InvalidArgumentsDisplay { tool: tool.as_str(), errors })]
    InvalidArguments {
        /// The tool that was called.
        tool: String,
        /// Every problem found, each with its JSON path.
        errors: Vec<ArgumentError>,
    },
    /// No tool of that name (or alias) is available.
    #[error("unknown tool `{name}`{}", DidYouMean(suggestions))]
    UnknownTool {
        /// The name the model used.
        name: String,
        /// The closest available names, best first.
        suggestions: Vec<String>,
    },
    /// The tool was taken out of this toolset on purpose
    /// ([`Toolset::withhold`](crate::Toolset::withhold)): a read-only server's writing tools,
    /// a tool that needs what this program cannot give it.
    #[error("`{name}` is not available here: {reason}")]
    Unavailable {
        /// The name the model used.
        name: String,
        /// Why, as the toolset was told.
        reason: String,
    },
    /// The policy refused the call.
    #[error("permission denied: {reason}")]
    Denied {
        /// Why, in words for the model.
        reason: String,
        /// Which layer or rule decided.
        decided_by: String,
    },
    /// The user rejected the call.
    #[error("{}", RejectedDisplay { guidance: guidance.as_deref() })]
    Rejected {
        /// What the user said to do instead.
        guidance: Option<String>,
    },
    /// The call was cancelled before it finished.
    #[error("the tool call was cancelled before it finished")]
    Cancelled,
    /// The call ran past its time limit.
    #[error("the tool call timed out after {} ms", after.as_millis())]
    TimedOut {
        /// The limit that was exceeded.
        after: Duration,
    },
    /// The tool ran and failed.
    #[error("{message}")]
    Failed {
        /// What went wrong, for the model.
        message: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
    },
    /// The tool panicked; the coordinator caught it and keeps working.
    #[error("the tool failed unexpectedly (it panicked: {message})")]
    Panicked {
        /// The panic payload, when it was a string.
        message: String,
    },
    /// The framework itself failed (a bug, or the process ran out of something): not the tool's
    /// failure, and not the model's mistake.
    #[error("internal error in the tool framework, not in the call: {message}")]
    Internal {
        /// What went wrong.
        message: String,
    },
}

impl ToolError {
    /// A tool's own failure, with a message for the model. Accepts a string or anything that
    /// displays; use [`ToolError::from_error`] to keep the underlying error as the source.
    pub fn failed(message: impl fmt::Display) -> Self {
        ToolError::Failed {
            message: message.to_string(),
            source: None,
        }
    }

    /// A failure carrying the error that caused it; the message is the error's `Display`.
    pub fn from_error(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        ToolError::Failed {
            message: error.to_string(),
            source: Some(Arc::new(error)),
        }
    }

    /// A fault of the framework rather than of the tool or the call.
    pub fn internal(message: impl fmt::Display) -> Self {
        ToolError::Internal {
            message: message.to_string(),
        }
    }

    /// A call refused by policy.
    pub fn denied(reason: impl Into<String>, decided_by: impl Into<String>) -> Self {
        ToolError::Denied {
            reason: reason.into(),
            decided_by: decided_by.into(),
        }
    }

    /// Whether this is a request to the client whose answer comes with the call's next run
    /// (MCP's `input_required` round trip, [`Unanswered::is_pending`](crate::approval::Unanswered::is_pending)):
    /// a tool that handles its errors must return this one at once, acting on nothing, since
    /// the call runs again from the start with the answer.
    ///
    /// ```
    /// use tool_core::ToolError;
    /// use tool_core::approval::Unanswered;
    ///
    /// assert!(ToolError::from_error(Unanswered::pending("waiting")).is_pending());
    /// assert!(!ToolError::failed("waiting").is_pending());
    /// ```
    #[must_use]
    pub fn is_pending(&self) -> bool {
        self.unanswered()
            .is_some_and(crate::definition::unanswered::Unanswered::is_pending)
    }

    /// The [`Unanswered`](crate::definition::unanswered::Unanswered) this error carries, if it
    /// is one.
    pub(crate) fn unanswered(&self) -> Option<&crate::definition::unanswered::Unanswered> {
        match self {
            ToolError::Failed {
                source: Some(source),
                ..
            } => source.downcast_ref(),
            _ => None,
        }
    }

    /// A short, stable name of the variant, for logs and protocol fields.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            ToolError::InvalidArguments { .. } => "invalid_arguments",
            ToolError::UnknownTool { .. } => "unknown_tool",
            ToolError::Unavailable { .. } => "unavailable",
            ToolError::Denied { .. } => "denied",
            ToolError::Rejected { .. } => "rejected",
            ToolError::Cancelled => "cancelled",
            ToolError::TimedOut { .. } => "timed_out",
            ToolError::Failed { .. } => "failed",
            ToolError::Panicked { .. } => "panicked",
            ToolError::Internal { .. } => "internal",
        }
    }
}

macro_rules! failed_from {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for ToolError {
            fn from(error: $error) -> Self {
                ToolError::from_error(error)
            }
        }
    )*};
}

failed_from!(
    std::io::Error,
    serde_json::Error,
    std::fmt::Error,
    std::num::ParseIntError,
    std::num::ParseFloatError,
    std::str::Utf8Error,
    std::string::FromUtf8Error,
    url::ParseError,
);

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        ToolError::failed(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        ToolError::failed(message)
    }
}

impl From<Box<dyn std::error::Error + Send + Sync + 'static>> for ToolError {
    fn from(error: Box<dyn std::error::Error + Send + Sync + 'static>) -> Self {
        ToolError::Failed {
            message: error.to_string(),
            source: Some(Arc::from(error)),
        }
    }
}

impl From<std::convert::Infallible> for ToolError {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}

/// One problem with a call's arguments.
///
/// `#[tool]` reports these itself; a hand-written tool's [`Tool::prepare`](crate::Tool::prepare)
/// reports its own checks the same way, so the model reads them alike:
///
/// ```
/// use tool_core::{ToolError, error::{ArgumentError, ArgumentProblem}};
///
/// let error = ToolError::InvalidArguments {
///     tool: "list_issues".to_owned(),
///     errors: vec![ArgumentError {
///         path: "$.per_page".to_owned(),
///         problem: ArgumentProblem::Invalid {
///             expected: "an integer from 1 to 100".to_owned(),
///             found: "250".to_owned(),
///         },
///     }],
/// };
/// assert_eq!(
///     error.to_string(),
///     "invalid arguments for tool `list_issues`: $.per_page: expected an integer from 1 to 100, found 250"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentError {
    /// Where in the arguments, as a JSON path from the root (`$`, `$.path`, `$.edits[2].old`).
    pub path: String,
    /// What was wrong.
    pub problem: ArgumentProblem,
}

/// What was wrong with an argument.
///
/// ```
/// use tool_core::{tool, Registry, ToolError, error::ArgumentProblem};
///
/// /// Add two integers.
/// #[tool(read_only, name = "doc_argumentproblem_add")]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let add = Registry::global().get("doc_argumentproblem_add").unwrap();
/// let Err(ToolError::InvalidArguments { errors, .. }) = add.prepare(r#"{"a": 1, "c": 2}"#) else {
///     panic!("the arguments are invalid");
/// };
/// // Every problem at once: `b` is missing, and `c` is no argument of `add`.
/// assert!(errors.iter().any(|error| matches!(
///     &error.problem,
///     ArgumentProblem::Missing { field, .. } if field == "b"
/// )));
/// assert!(errors.iter().any(|error| matches!(
///     &error.problem,
///     ArgumentProblem::Unknown { field, allowed, .. } if field == "c" && allowed == &["a", "b"]
/// )));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgumentProblem {
    /// The arguments are not valid JSON.
    Syntax {
        /// The parser's message.
        message: String,
        /// What a valid call looks like, from the schema.
        example: String,
    },
    /// The arguments are valid JSON but not an object.
    NotAnObject {
        /// The JSON type that was sent.
        found: String,
        /// What a valid call looks like, from the schema.
        example: String,
    },
    /// A required field is absent.
    Missing {
        /// The field's name.
        field: String,
        /// What the field takes.
        expected: String,
    },
    /// A field the tool does not take.
    Unknown {
        /// The field's name.
        field: String,
        /// The closest allowed name, if one is close.
        suggestion: Option<String>,
        /// Every allowed name at that level.
        allowed: Vec<String>,
    },
    /// A value of the wrong type or shape.
    Invalid {
        /// What the value should be.
        expected: String,
        /// What was sent.
        found: String,
    },
    /// A value the argument's type refused, in the type's own words.
    Other {
        /// What the type said.
        message: String,
    },
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.problem {
            ArgumentProblem::Syntax { message, example } => write!(
                f,
                "the arguments are not valid JSON ({message}); send a JSON object like {example}"
            ),
            ArgumentProblem::NotAnObject { found, example } => write!(
                f,
                "the arguments must be a JSON object, not {found}; send a JSON object like {example}"
            ),
            ArgumentProblem::Missing { field, expected } => {
                write!(
                    f,
                    "{}: missing required argument `{field}` ({expected})",
                    self.path
                )
            }
            ArgumentProblem::Unknown {
                field,
                suggestion,
                allowed,
            } => {
                let suggestion = suggestion.as_slice();
                write!(
                    f,
                    "{}: unknown argument `{field}`{}",
                    self.path,
                    DidYouMean(suggestion)
                )?;
                if allowed.is_empty() {
                    write!(f, " (this tool takes no arguments)")
                } else {
                    write!(f, " (allowed: {})", Backticked(allowed))
                }
            }
            ArgumentProblem::Invalid { expected, found } => {
                write!(f, "{}: expected {expected}, found {found}", self.path)
            }
            ArgumentProblem::Other { message } => write!(f, "{}: {message}", self.path),
        }
    }
}

struct InvalidArgumentsDisplay<'a> {
    tool: &'a str,
    errors: &'a [ArgumentError],
}

impl fmt::Display for InvalidArgumentsDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.errors {
            [] => write!(f, "invalid arguments for tool `{}`", self.tool),
            [only] => write!(f, "invalid arguments for tool `{}`: {only}", self.tool),
            many => {
                write!(f, "invalid arguments for tool `{}`:", self.tool)?;
                for error in many {
                    write!(f, "\n- {error}")?;
                }
                Ok(())
            }
        }
    }
}

struct RejectedDisplay<'a> {
    guidance: Option<&'a str>,
}

impl fmt::Display for RejectedDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "the user rejected this tool call, so the tool did not run; do not assume it succeeded",
        )?;
        if let Some(guidance) = self.guidance {
            write!(f, ". The user said: {guidance}")?;
        }
        Ok(())
    }
}

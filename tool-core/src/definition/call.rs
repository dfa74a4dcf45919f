//! A model's tool call as it arrives ([`ToolCall`]) and what goes back ([`ToolResult`]).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::definition::context::CallInfo;
use crate::definition::output::Content;
use crate::{ToolError, ToolOutput};

/// One tool call from a model: the tool's name and its arguments as raw JSON text.
///
/// ```
/// use tool_core::ToolCall;
///
/// let call = ToolCall::new("add", r#"{"a": 1, "b": 2}"#).with_call_id("call_1");
/// assert_eq!(call.name, "add");
/// assert_eq!(call.call_id, "call_1");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The id the model gave the call, echoed in the result's `call_id` (empty if none).
    #[serde(default, alias = "id")]
    pub call_id: String,
    /// The tool's name or alias.
    pub name: String,
    /// The arguments, as the JSON text the model produced.
    pub arguments: String,
    /// How deeply this call is nested in other tool calls (0 for a call from the model).
    #[serde(skip)]
    pub depth: u32,
    /// What the provider sent with the call that must go back with its reply, such as
    /// Gemini's `thoughtSignature`; `None` for most calls. The [`provider`](crate::provider)
    /// adapters fill it when they parse a call and read it when they format the reply; the
    /// coordinator never looks at it. Each adapter documents the keys it keeps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_data: Option<Value>,
}

impl ToolCall {
    /// A call with no id.
    pub fn new(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        ToolCall {
            call_id: String::new(),
            name: name.into(),
            arguments: arguments.into(),
            depth: 0,
            provider_data: None,
        }
    }

    /// Sets the call id.
    #[must_use]
    pub fn with_call_id(mut self, call_id: impl Into<String>) -> Self {
        self.call_id = call_id.into();
        self
    }

    /// Keeps what the provider sent with the call for its reply (see
    /// [`provider_data`](Self::provider_data)).
    #[must_use]
    pub fn with_provider_data(mut self, provider_data: Value) -> Self {
        self.provider_data = Some(provider_data);
        self
    }

    /// Marks the call as made by a tool that is itself running as `parent`.
    #[must_use]
    pub fn nested_in(mut self, parent: &CallInfo) -> Self {
        self.depth = parent.depth + 1;
        self
    }
}

/// The outcome of a call, as the model will read it.
///
/// A failed call is a result too — `is_error()` is true and the text explains the failure — so
/// that every call gets an answer the model can act on; the [`ToolError`] stays available to the
/// program through [`ToolResult::error`].
///
/// The coordinator makes one for every call; a middleware test or a bridge to another protocol
/// makes its own:
///
/// ```
/// use tool_core::{ToolError, ToolOutput, ToolResult};
///
/// let listed = ToolResult::success("call_1", ToolOutput::text("3 files"));
/// assert!(!listed.is_error());
/// assert_eq!(listed.text(), "3 files");
///
/// let failed = ToolResult::failure("call_2", ToolError::failed("the disk is full"));
/// assert!(failed.is_error());
/// assert_eq!(failed.text(), "the disk is full");
/// assert_eq!(failed.error().map(ToolError::kind), Some("failed"));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The parts the model reads.
    pub content: Vec<Content>,
    /// The structured value, for tools with an output schema.
    pub structured: Option<Value>,
    /// Why the call failed, if it did.
    pub error: Option<ToolError>,
    /// Extra context for the model, added by hooks.
    pub context: Vec<String>,
    /// A hook asked to stop the agent's turn (Claude Code's `continue: false`), with its
    /// reason: the agent loop should end the turn after this result and show the reason.
    pub stop: Option<String>,
}

impl ToolResult {
    /// A successful result.
    #[must_use]
    pub fn success(call_id: impl Into<String>, output: ToolOutput) -> Self {
        ToolResult {
            call_id: call_id.into(),
            content: output.content,
            structured: output.structured,
            error: None,
            context: Vec::new(),
            stop: None,
        }
    }

    /// A failed result; its text is the error's message.
    #[must_use]
    pub fn failure(call_id: impl Into<String>, error: ToolError) -> Self {
        ToolResult {
            call_id: call_id.into(),
            content: vec![Content::text(error.to_string())],
            structured: None,
            error: Some(error),
            context: Vec::new(),
            stop: None,
        }
    }

    pub(crate) fn from_outcome(call_id: String, outcome: Result<ToolOutput, ToolError>) -> Self {
        match outcome {
            Ok(output) => ToolResult::success(call_id, output),
            Err(error) => ToolResult::failure(call_id, error),
        }
    }

    /// `true` if the call failed.
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }

    /// The error, if the call failed.
    #[must_use]
    pub fn error(&self) -> Option<&ToolError> {
        self.error.as_ref()
    }

    /// The text the model reads: the text parts, then any context added by hooks, one per line.
    #[must_use]
    pub fn text(&self) -> Cow<'_, str> {
        let mut parts = self
            .content
            .iter()
            .filter_map(Content::as_text)
            .chain(self.context.iter().map(String::as_str));
        match (parts.next(), parts.next()) {
            (None, _) => Cow::Borrowed(""),
            (Some(only), None) => Cow::Borrowed(only),
            (Some(first), Some(second)) => {
                let mut text = format!("{first}\n{second}");
                for part in parts {
                    text.push('\n');
                    text.push_str(part);
                }
                Cow::Owned(text)
            }
        }
    }

    /// The structured value, for tools that return [`Json<T>`](crate::Json).
    #[must_use]
    pub fn structured(&self) -> Option<&Value> {
        self.structured.as_ref()
    }
}

/// A call's arguments as a JSON value, for whoever shows or forwards them (hooks, approval
/// requests): the object sent, `{}` for empty arguments (which mean "none"), and the raw text
/// as a string when it is not JSON.
pub(crate) fn arguments_value(arguments: &str) -> Value {
    if arguments.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()))
}

//! What a tool returns: [`ToolOutput`] (content parts and an optional structured value),
//! [`Json<T>`] for structured output with an output schema ([`Structured<T>`] when the model
//! should read it as text), and the conversions
//! ([`IntoToolOutput`], [`IntoToolResult`]) that let a tool function return `String`, `&str`,
//! numbers, `()`, `Json<T>`, `ToolOutput` or a `Result` of any of them.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ToolError;

/// One part of a tool's output, in the shapes every provider understands.
///
/// ```
/// use tool_core::{ToolOutput, output::Content};
///
/// let chart = Content::Image { data: "iVBORw0KGgo=".to_owned(), mime_type: "image/png".to_owned() };
/// let output = ToolOutput::from_content(vec![Content::text("The chart:"), chart]);
/// assert_eq!(output.content[0].as_text(), Some("The chart:"));
/// assert_eq!(output.content[1].as_text(), None);
/// assert_eq!(
///     serde_json::to_value(&output.content[1]).unwrap(),
///     serde_json::json!({"type": "image", "data": "iVBORw0KGgo=", "mime_type": "image/png"})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Text for the model.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// The base64 data.
        data: String,
        /// The MIME type, such as `image/png`.
        mime_type: String,
    },
    /// Audio, base64-encoded.
    Audio {
        /// The base64 data.
        data: String,
        /// The MIME type, such as `audio/wav`.
        mime_type: String,
    },
    /// The contents of a resource, named by its URI: MCP's embedded resource. Formats without
    /// a part for it give the model a text resource as text, and say a binary one was left out.
    Resource {
        /// Where the contents come from (`file:///...`, `test://...`).
        uri: String,
        /// The MIME type, such as `application/json`, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The contents.
        contents: ResourceContents,
    },
}

/// What a [`Content::Resource`] holds.
///
/// ```
/// use tool_core::output::{Content, ResourceContents};
///
/// let part = Content::resource_text("test://config", Some("application/json"), r#"{"a":1}"#);
/// assert_eq!(
///     serde_json::to_value(&part).unwrap(),
///     serde_json::json!({
///         "type": "resource", "uri": "test://config", "mime_type": "application/json",
///         "contents": {"text": "{\"a\":1}"}
///     })
/// );
/// let Content::Resource { contents: ResourceContents::Text { text }, .. } = part else { panic!() };
/// assert_eq!(text, r#"{"a":1}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// Binary contents, base64-encoded.
    Blob {
        /// The base64 data.
        blob: String,
    },
}

impl Content {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }

    /// A resource's text contents.
    pub fn resource_text(
        uri: impl Into<String>,
        mime_type: Option<&str>,
        text: impl Into<String>,
    ) -> Self {
        Content::Resource {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_owned),
            contents: ResourceContents::Text { text: text.into() },
        }
    }

    /// A resource's binary contents, base64-encoded.
    pub fn resource_blob(
        uri: impl Into<String>,
        mime_type: Option<&str>,
        blob: impl Into<String>,
    ) -> Self {
        Content::Resource {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_owned),
            contents: ResourceContents::Blob { blob: blob.into() },
        }
    }

    /// The text, if this is a text part.
    #[must_use]
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// A tool's successful output: content parts for the model and, for tools that return
/// [`Json<T>`], the structured value.
///
/// ```
/// use tool_core::{ToolOutput, output::Content};
///
/// let output = ToolOutput::text("3 files").with_content(Content::text("a.rs b.rs c.rs"));
/// assert_eq!(output.content.len(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ToolOutput {
    /// The parts the model reads, in order.
    pub content: Vec<Content>,
    /// The structured value, for tools with an output schema.
    pub structured: Option<Value>,
}

impl ToolOutput {
    /// An output of one text part.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![Content::text(text)],
            structured: None,
        }
    }

    /// An output of the given parts.
    #[must_use]
    pub fn from_content(content: Vec<Content>) -> Self {
        ToolOutput {
            content,
            structured: None,
        }
    }

    /// Adds a part.
    #[must_use]
    pub fn with_content(mut self, content: Content) -> Self {
        self.content.push(content);
        self
    }

    /// Sets the structured value.
    #[must_use]
    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured = Some(value);
        self
    }
}

/// Structured output: the value is serialized to JSON, sent as the structured result and as
/// text, and its type's schema becomes the tool's output schema.
///
/// ```
/// use tool_core::{Json, output::IntoToolOutput};
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Sum { total: i64 }
///
/// let output = Json(Sum { total: 3 }).into_tool_output().unwrap();
/// assert_eq!(output.structured.as_ref(), Some(&serde_json::json!({"total": 3})));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

/// A value a tool function may return.
///
/// Implemented for strings (text), `()` ("ok"), numbers and `bool` (their text), [`Json<T>`]
/// (structured) and [`ToolOutput`] itself. Implement it to return your own types:
///
/// ```
/// use tool_core::{tool, Coordinator, ToolCall, ToolError, ToolOutput, Toolset, output::IntoToolOutput};
///
/// /// How two texts differ, in lines.
/// struct LineDiff { added: usize, removed: usize }
///
/// impl IntoToolOutput for LineDiff {
///     fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
///         Ok(ToolOutput::text(format!("+{} -{}", self.added, self.removed)))
///     }
/// }
///
/// /// Count the lines added and removed between two texts.
/// #[tool(read_only, name = "doc_intotooloutput_diff")]
/// fn diff(old: String, new: String) -> LineDiff {
///     let (old, new): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
///     LineDiff {
///         added: new.iter().filter(|line| !old.contains(line)).count(),
///         removed: old.iter().filter(|line| !new.contains(line)).count(),
///     }
/// }
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_intotooloutput_diff"]).unwrap())
///     .build()
///     .unwrap();
/// let call = ToolCall::new("doc_intotooloutput_diff", r#"{"old": "a\nb", "new": "a\nc\nd"}"#);
/// assert_eq!(coordinator.call_blocking(call).text(), "+2 -1");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool output",
    label = "this type cannot be returned from a #[tool] function",
    note = "return `String` or `&str` for text, `Json<T>` or `Structured<T>` for structured output, `ToolOutput` for several parts, or `()`; wrap any of them in `Result<_, E>` where `E: Into<ToolError>`"
)]
pub trait IntoToolOutput {
    /// Converts the value.
    ///
    /// # Errors
    /// When the value cannot be serialized.
    fn into_tool_output(self) -> Result<ToolOutput, ToolError>;

    /// The schema of the structured value, for types that have one. Schemas of nested types
    /// may be left in the generator's definitions; the caller attaches them as `$defs`.
    fn output_schema(_generator: &mut schemars::SchemaGenerator) -> Option<Schema> {
        None
    }
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(self)
    }
}

impl IntoToolOutput for String {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for &str {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for Cow<'_, str> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for () {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ok"))
    }
}

impl IntoToolOutput for Content {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::from_content(vec![self]))
    }
}

impl IntoToolOutput for Vec<Content> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::from_content(self))
    }
}

macro_rules! display_output {
    ($($ty:ty),* $(,)?) => {$(
        impl IntoToolOutput for $ty {
            fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
                Ok(ToolOutput::text(self.to_string()))
            }
        }
    )*};
}

display_output!(bool, char, f32, f64);

macro_rules! integer_output {
    ($($ty:ty),* $(,)?) => {$(
        impl IntoToolOutput for $ty {
            fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
                // itoa skips the formatting machinery: integers are the commonest small output.
                Ok(ToolOutput::text(itoa::Buffer::new().format(self)))
            }
        }
    )*};
}

integer_output!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

impl<T: Serialize + JsonSchema> IntoToolOutput for Json<T> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        let value = serde_json::to_value(&self.0).map_err(|error| {
            ToolError::failed(format!(
                "the tool's output could not be serialized: {error}"
            ))
        })?;
        let text = value.to_string();
        Ok(ToolOutput {
            content: vec![Content::Text { text }],
            structured: Some(value),
        })
    }

    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<Schema> {
        // The type's own schema; the caller attaches the definitions it collected.
        Some(T::json_schema(generator))
    }
}

/// Structured output the model reads as text: the value's [`Display`](std::fmt::Display) is
/// the text part, its JSON the structured value, and its type's schema the tool's output
/// schema. Use it where a person reading the value would want it written out rather than as
/// JSON (an exit status and a build log, whose every newline and quote JSON would escape);
/// programs and MCP clients still get the structure (`structuredContent`). [`Json<T>`] sends
/// the JSON itself as the text.
///
/// ```
/// use std::fmt;
/// use tool_core::{Structured, output::IntoToolOutput};
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Build { exit_code: i32, log: String }
///
/// impl fmt::Display for Build {
///     fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
///         write!(f, "Exit code: {}\n{}", self.exit_code, self.log)
///     }
/// }
///
/// let output = Structured(Build { exit_code: 1, log: "error: \"x\" not found\n".into() })
///     .into_tool_output()
///     .unwrap();
/// assert_eq!(output.content[0].as_text(), Some("Exit code: 1\nerror: \"x\" not found\n"));
/// assert_eq!(output.structured.unwrap()["exit_code"], 1);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Structured<T>(pub T);

impl<T: Serialize + JsonSchema + std::fmt::Display> IntoToolOutput for Structured<T> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        let text = self.0.to_string();
        let mut output = Json(self.0).into_tool_output()?;
        output.content = vec![Content::Text { text }];
        Ok(output)
    }

    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<Schema> {
        <Json<T> as IntoToolOutput>::output_schema(generator)
    }
}

/// The return type of a `#[tool]` function: a tool output, or a `Result` of one whose error
/// converts into [`ToolError`].
///
/// ```
/// use std::io;
/// use tool_core::output::IntoToolResult;
///
/// let counted: Result<usize, io::Error> = Ok(3);
/// assert_eq!(counted.into_tool_result().unwrap().content[0].as_text(), Some("3"));
///
/// // The function's error becomes a failure the model reads.
/// let missing: Result<usize, io::Error> = Err(io::Error::new(io::ErrorKind::NotFound, "no such file"));
/// let error = missing.into_tool_result().unwrap_err();
/// assert_eq!(error.kind(), "failed");
/// assert_eq!(error.to_string(), "no such file");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool output",
    label = "this type cannot be returned from a #[tool] function",
    note = "return `String` or `&str` for text, `Json<T>` or `Structured<T>` for structured output, `ToolOutput` for several parts, or `()`; wrap any of them in `Result<_, E>` where `E: Into<ToolError>`"
)]
pub trait IntoToolResult {
    /// Converts the value.
    ///
    /// # Errors
    /// The function's own error, converted, or a serialization failure.
    fn into_tool_result(self) -> Result<ToolOutput, ToolError>;

    /// The schema of the structured value, for outputs that have one.
    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<Schema>;
}

impl<T: IntoToolOutput> IntoToolResult for T {
    fn into_tool_result(self) -> Result<ToolOutput, ToolError> {
        self.into_tool_output()
    }

    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<Schema> {
        T::output_schema(generator)
    }
}

impl<T: IntoToolOutput, E: Into<ToolError>> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<ToolOutput, ToolError> {
        self.map_err(Into::into)?.into_tool_output()
    }

    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<Schema> {
        T::output_schema(generator)
    }
}

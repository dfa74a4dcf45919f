//! Anthropic messages: tool calls out of a message's `tool_use` blocks and out of its
//! streaming events (`input_json_delta`), and results back as `tool_result` blocks.
//!
//! A `tool_result` block carries text and image blocks and an `is_error` flag, so results go
//! back whole; audio has no block there, and a note says it was left out. A structured result
//! without text is sent as its JSON text.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Payload, ProviderError, ToolNameMap, has_text, null_as_empty, omitted_note};
use crate::definition::output::Content;
use crate::{ToolCall, ToolResult};

/// A message (the response of the Messages API), as far as tool calls go.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Message {
    /// The content blocks, in order.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub content: Vec<ContentBlock>,
}

impl Payload for Message {
    const WHAT: &'static str = "an Anthropic message";
}

/// A content block: a tool use, or something the adapters do not read.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentBlock {
    /// The model called a tool.
    ToolUse(ToolUseBlock),
    /// Text, thinking, server tools' blocks: not calls to run here.
    #[serde(other)]
    Other,
}

/// A `tool_use` block.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ToolUseBlock {
    /// The id the `tool_result` answers (`toolu_...`).
    pub id: String,
    /// The tool's name, as the provider knows it.
    pub name: String,
    /// The arguments; an empty object when a stream starts the block.
    #[serde(default)]
    pub input: Value,
}

impl ToolUseBlock {
    fn to_call(&self, arguments: String, names: &dyn ToolNameMap) -> ToolCall {
        names
            .tool_call(&self.name, &arguments)
            .with_call_id(self.id.as_str())
    }
}

/// The tool uses of a message, in order.
///
/// ```
/// use tool_core::provider::{Payload, SameNames, anthropic};
///
/// let message = anthropic::Message::from_value(&serde_json::json!({
///     "id": "msg_1", "type": "message", "role": "assistant", "stop_reason": "tool_use",
///     "content": [
///         {"type": "text", "text": "Let me check."},
///         {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
///     ]
/// })).unwrap();
/// let calls = anthropic::tool_calls(&message, &SameNames);
/// assert_eq!(calls[0].call_id, "toolu_1");
/// assert_eq!(calls[0].arguments, r#"{"city":"Paris"}"#);
/// ```
#[must_use]
pub fn tool_calls(message: &Message, names: &dyn ToolNameMap) -> Vec<ToolCall> {
    message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ToolUse(tool_use) => {
                Some(tool_use.to_call(tool_use.input.to_string(), names))
            }
            ContentBlock::Other => None,
        })
        .collect()
}

/// A streaming event, as far as tool calls go.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum StreamEvent {
    /// A content block starts.
    ContentBlockStart {
        /// The block's position in the message.
        index: u32,
        /// The block as it starts.
        content_block: ContentBlock,
    },
    /// A piece of a content block.
    ContentBlockDelta {
        /// The block's position in the message.
        index: u32,
        /// The piece.
        delta: BlockDelta,
    },
    /// A content block is complete.
    ContentBlockStop {
        /// The block's position in the message.
        index: u32,
    },
    /// `message_start`, `message_delta`, `ping`, ...: nothing about tool calls.
    #[serde(other)]
    Other,
}

impl Payload for StreamEvent {
    const WHAT: &'static str = "an Anthropic streaming event";
}

/// A piece of a content block.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum BlockDelta {
    /// The next piece of a tool use's input JSON (split anywhere, even inside a string).
    InputJsonDelta {
        /// The piece.
        #[serde(default)]
        partial_json: String,
    },
    /// Text, thinking, signatures: not tool input.
    #[serde(other)]
    Other,
}

/// Builds the tool uses of a streamed message from its events.
///
/// Push every event in order; [`finish`](Self::finish) returns the calls in block order. A
/// stream that ends before a block's `content_block_stop` (`max_tokens`, a dropped
/// connection) still yields that call with the input received so far, which the coordinator
/// then reports as malformed.
///
/// ```
/// use tool_core::provider::{SameNames, anthropic::StreamAccumulator};
///
/// let mut stream = StreamAccumulator::new();
/// for data in [
///     r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}"#,
///     r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"ci"}}"#,
///     r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"ty\": \"Paris\"}"}}"#,
///     r#"{"type":"content_block_stop","index":0}"#,
/// ] {
///     stream.push_json(data).unwrap();
/// }
/// let calls = stream.finish(&SameNames);
/// assert_eq!(calls[0].arguments, r#"{"city": "Paris"}"#);
/// ```
#[derive(Debug, Clone, Default)]
pub struct StreamAccumulator {
    /// Tool uses by block index, with the input JSON received so far.
    blocks: Vec<(u32, ToolUseBlock, String)>,
}

impl StreamAccumulator {
    /// An accumulator that has seen nothing.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an event.
    ///
    /// # Errors
    /// [`ProviderError::FragmentBeforeStart`] when input JSON arrives for a block no
    /// `content_block_start` started as a tool use.
    pub fn push(&mut self, event: &StreamEvent) -> Result<(), ProviderError> {
        match event {
            StreamEvent::ContentBlockStart {
                index,
                content_block: ContentBlock::ToolUse(tool_use),
            } => {
                self.blocks.retain(|(started, ..)| started != index);
                self.blocks.push((*index, tool_use.clone(), String::new()));
            }
            StreamEvent::ContentBlockDelta {
                index,
                delta: BlockDelta::InputJsonDelta { partial_json },
            } => {
                let (.., input) = self
                    .blocks
                    .iter_mut()
                    .find(|(started, ..)| started == index)
                    .ok_or_else(|| ProviderError::FragmentBeforeStart {
                        provider: "Anthropic",
                        call: format!("content block {index}"),
                    })?;
                input.push_str(partial_json);
            }
            _ => {}
        }
        Ok(())
    }

    /// Adds an event given as a server-sent event's `data` text.
    ///
    /// # Errors
    /// [`ProviderError::Payload`] when the text is not an event; otherwise as
    /// [`push`](Self::push).
    pub fn push_json(&mut self, data: &str) -> Result<(), ProviderError> {
        self.push(&StreamEvent::from_json(data)?)
    }

    /// The tool uses, in block order.
    #[must_use]
    pub fn finish(mut self, names: &dyn ToolNameMap) -> Vec<ToolCall> {
        self.blocks.sort_by_key(|(index, ..)| *index);
        self.blocks
            .into_iter()
            .map(|(_, tool_use, input)| {
                // A tool without arguments may stream no input at all: the block's start
                // (`{}`) is then the whole input.
                let arguments = if input.trim().is_empty() {
                    tool_use.input.to_string()
                } else {
                    input
                };
                tool_use.to_call(arguments, names)
            })
            .collect()
    }
}

/// A `tool_result` block answering one tool use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolResultBlock {
    /// Always `"tool_result"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The id of the tool use this answers.
    pub tool_use_id: String,
    /// Text and image blocks, in order; left out when the result has none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ResultContent>,
    /// `true` when the call failed; left out otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

/// A block of a tool result's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResultContent {
    /// Text.
    Text {
        /// The text (never empty: the API refuses empty text blocks).
        text: String,
    },
    /// An image.
    Image {
        /// The image's data.
        source: ImageSource,
    },
}

/// A base64 image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageSource {
    /// Always `"base64"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The MIME type, such as `image/png`.
    pub media_type: String,
    /// The base64 data.
    pub data: String,
}

/// The `tool_result` block answering a call.
///
/// ```
/// use tool_core::{ToolError, ToolResult, provider::anthropic};
///
/// let block = anthropic::tool_result(&ToolResult::failure("toolu_1", ToolError::failed("no such city")));
/// assert_eq!(
///     serde_json::to_value(&block).unwrap(),
///     serde_json::json!({
///         "type": "tool_result", "tool_use_id": "toolu_1",
///         "content": [{"type": "text", "text": "no such city"}], "is_error": true
///     })
/// );
/// ```
#[must_use]
pub fn tool_result(result: &ToolResult) -> ToolResultBlock {
    let mut content = Vec::with_capacity(result.content.len() + result.context.len());
    for part in &result.content {
        match part {
            Content::Text { text } => push_text(&mut content, text.clone()),
            Content::Image { data, mime_type } => content.push(ResultContent::Image {
                source: ImageSource {
                    kind: "base64",
                    media_type: mime_type.clone(),
                    data: data.clone(),
                },
            }),
            other => push_text(
                &mut content,
                omitted_note(other, "omitted: a tool result has no block for it"),
            ),
        }
    }
    if !has_text(result)
        && let Some(structured) = &result.structured
    {
        push_text(&mut content, structured.to_string());
    }
    for context in &result.context {
        push_text(&mut content, context.clone());
    }
    ToolResultBlock {
        kind: "tool_result",
        tool_use_id: result.call_id.clone(),
        content,
        is_error: result.is_error(),
    }
}

/// Adds a text block, unless the text is empty: the API refuses empty text blocks.
fn push_text(content: &mut Vec<ResultContent>, text: String) {
    if !text.is_empty() {
        content.push(ResultContent::Text { text });
    }
}

/// A `user` message of `tool_result` blocks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolResultMessage {
    /// Always `"user"`.
    pub role: &'static str,
    /// One block per result, in order.
    pub content: Vec<ToolResultBlock>,
}

/// The `user` message of `tool_result` blocks answering `results`, in order: the message to
/// append after the assistant's tool uses.
#[must_use]
pub fn tool_results(results: &[ToolResult]) -> ToolResultMessage {
    ToolResultMessage {
        role: "user",
        content: results.iter().map(tool_result).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::SameNames;
    use crate::{ToolOutput, ToolResult};

    #[test]
    fn input_for_a_block_never_started_is_an_error_naming_the_block() {
        let error = StreamAccumulator::new()
            .push_json(r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{"}}"#)
            .unwrap_err();
        assert!(error.to_string().contains("content block 2"), "{error}");
    }

    #[test]
    fn a_tool_use_that_streams_no_input_has_the_input_it_started_with() {
        let mut stream = StreamAccumulator::new();
        stream
            .push_json(r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"now","input":{}}}"#)
            .unwrap();
        stream
            .push_json(r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}"#)
            .unwrap();
        stream
            .push_json(r#"{"type":"content_block_stop","index":0}"#)
            .unwrap();
        assert_eq!(stream.finish(&SameNames)[0].arguments, "{}");
    }

    #[test]
    fn text_deltas_and_other_events_are_ignored() {
        let mut stream = StreamAccumulator::new();
        for data in [
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[]}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
            r#"{"type":"ping"}"#,
        ] {
            stream.push_json(data).unwrap();
        }
        assert!(stream.finish(&SameNames).is_empty());
    }

    #[test]
    fn empty_text_is_left_out_and_a_structured_value_without_text_is_sent_as_json() {
        let result = ToolResult::success(
            "toolu_1",
            ToolOutput::from_content(vec![Content::text("")])
                .with_structured(serde_json::json!({"ok": true})),
        );
        assert_eq!(
            tool_result(&result).content,
            vec![ResultContent::Text {
                text: r#"{"ok":true}"#.into()
            }]
        );
    }

    #[test]
    fn an_audio_part_becomes_a_note() {
        let result = ToolResult::success(
            "toolu_1",
            ToolOutput::from_content(vec![Content::Audio {
                data: "AAAA".into(),
                mime_type: "audio/wav".into(),
            }]),
        );
        assert_eq!(
            tool_result(&result).content,
            vec![ResultContent::Text {
                text: "[audio output (audio/wav) omitted: a tool result has no block for it]"
                    .into()
            }]
        );
    }
}

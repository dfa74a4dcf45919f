//! OpenAI chat completions: tool calls out of an assistant message (`tool_calls`) and out of
//! its streamed deltas, and results back as `role: "tool"` messages.
//!
//! A tool message holds text only, so a result's images cannot go in it. They go in one
//! follow-up `user` message after all the tool messages of the turn (a user message between
//! two tool messages would break the turn), and each tool message says, where the image was,
//! that it follows. [`ToolMessages::messages`] lists them in the order to send.
//!
//! Neither message has an error flag: a failed call's text starts with `Error: `.

use serde::{Deserialize, Serialize};

use super::{
    ERROR_PREFIX, Payload, ProviderError, ToolNameMap, data_url, null_as_empty, omitted_note,
    result_text,
};
use crate::definition::output::Content;
use crate::{ToolCall, ToolResult};

/// An assistant message (`choices[i].message` of a chat completion), as far as tool calls go.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ChatMessage {
    /// The calls the model made; `null` and absent mean none.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub tool_calls: Vec<ChatToolCall>,
}

impl Payload for ChatMessage {
    const WHAT: &'static str = "an OpenAI chat completion message";
}

/// One entry of `tool_calls`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChatToolCall {
    /// The call's id, echoed as the tool message's `tool_call_id`.
    pub id: String,
    /// `function` for the calls these adapters read; a `custom` tool call has none.
    #[serde(default)]
    pub function: Option<ChatFunction>,
}

/// The function a call names and its arguments.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChatFunction {
    /// The function's name, as the provider knows it.
    pub name: String,
    /// The arguments as JSON text (possibly not valid JSON: the coordinator says so).
    #[serde(default)]
    pub arguments: String,
}

/// The function calls of an assistant message, in order. Calls of other types (`custom`
/// tools, which take free text rather than JSON arguments) are not tools of this framework
/// and are left out.
///
/// ```
/// use tool_core::provider::{Payload, SameNames, openai_chat};
///
/// let message = openai_chat::ChatMessage::from_json(r#"{"role": "assistant", "tool_calls": [
///     {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
/// ]}"#).unwrap();
/// let calls = openai_chat::tool_calls(&message, &SameNames);
/// assert_eq!(calls[0].call_id, "call_1");
/// assert_eq!(calls[0].arguments, r#"{"city":"Paris"}"#);
/// ```
#[must_use]
pub fn tool_calls(message: &ChatMessage, names: &dyn ToolNameMap) -> Vec<ToolCall> {
    message
        .tool_calls
        .iter()
        .filter_map(|call| {
            let function = call.function.as_ref()?;
            Some(
                names
                    .tool_call(&function.name, &function.arguments)
                    .with_call_id(call.id.as_str()),
            )
        })
        .collect()
}

/// One streamed chunk (`chat.completion.chunk`), as far as tool calls go.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ChatChunk {
    /// The choices this chunk continues.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub choices: Vec<ChunkChoice>,
}

impl Payload for ChatChunk {
    const WHAT: &'static str = "an OpenAI chat completion chunk";
}

/// One choice of a chunk.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ChunkChoice {
    /// Which choice (0 unless the request asked for several with `n`).
    #[serde(default)]
    pub index: u32,
    /// What this chunk adds to the choice's message.
    #[serde(default)]
    pub delta: ChunkDelta,
}

/// What a chunk adds to a message.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ChunkDelta {
    /// Fragments of tool calls.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub tool_calls: Vec<ToolCallDelta>,
}

/// A fragment of one tool call: `index` says which; the first fragment of a call carries its
/// `id` and name, later ones pieces of the arguments.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ToolCallDelta {
    /// Which call of the message this continues. OpenAI always sends it; for a compatible
    /// server that does not, a fragment with a new `id` starts a call and one without
    /// continues the last.
    #[serde(default)]
    pub index: Option<u32>,
    /// The call's id, on its first fragment.
    #[serde(default)]
    pub id: Option<String>,
    /// The function's name and a piece of its arguments.
    #[serde(default)]
    pub function: Option<FunctionDelta>,
}

/// Pieces of a function call.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct FunctionDelta {
    /// The name, on the first fragment.
    #[serde(default)]
    pub name: Option<String>,
    /// The next piece of the arguments text.
    #[serde(default)]
    pub arguments: Option<String>,
}

/// Builds the tool calls of a streamed chat completion from its chunks.
///
/// Push every chunk in order; [`finish`](Self::finish) returns the calls ordered by index.
/// Calls may be interleaved (fragments of call 1 between fragments of call 0). Only choice 0
/// is read: several choices are alternative answers, not calls to run together.
///
/// ```
/// use tool_core::provider::{SameNames, openai_chat::StreamAccumulator};
///
/// let mut stream = StreamAccumulator::new();
/// for data in [
///     r#"{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}"#,
///     r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}"#,
///     r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]}"#,
///     r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
///     "[DONE]",
/// ] {
///     stream.push_json(data).unwrap();
/// }
/// let calls = stream.finish(&SameNames).unwrap();
/// assert_eq!(calls[0].arguments, r#"{"city":"Paris"}"#);
/// ```
#[derive(Debug, Clone, Default)]
pub struct StreamAccumulator {
    /// Calls by index; a message has few, so a vector searched in order is the fastest map.
    calls: Vec<PartialCall>,
}

#[derive(Debug, Clone)]
struct PartialCall {
    index: u32,
    id: String,
    name: String,
    arguments: String,
}

impl StreamAccumulator {
    /// An accumulator that has seen nothing.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a chunk's tool call fragments.
    pub fn push(&mut self, chunk: &ChatChunk) {
        for choice in chunk.choices.iter().filter(|choice| choice.index == 0) {
            for delta in &choice.delta.tool_calls {
                self.push_delta(delta);
            }
        }
    }

    /// Adds a chunk given as a server-sent event's `data` text; the `[DONE]` that ends the
    /// stream is accepted and adds nothing.
    ///
    /// # Errors
    /// [`ProviderError::Payload`] when the text is not a chunk.
    pub fn push_json(&mut self, data: &str) -> Result<(), ProviderError> {
        if data.trim() == "[DONE]" {
            return Ok(());
        }
        self.push(&ChatChunk::from_json(data)?);
        Ok(())
    }

    fn push_delta(&mut self, delta: &ToolCallDelta) {
        let index = delta
            .index
            .unwrap_or_else(|| self.unindexed(delta.id.as_deref()));
        let position = match self.calls.iter().position(|call| call.index == index) {
            Some(position) => position,
            None => {
                self.calls.push(PartialCall {
                    index,
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[position];
        // OpenAI sends the id and name once; some compatible servers repeat them on every
        // fragment, which must not double them.
        if let Some(id) = &delta.id
            && call.id.is_empty()
        {
            call.id.clone_from(id);
        }
        if let Some(function) = &delta.function {
            if let Some(name) = &function.name
                && call.name != *name
            {
                call.name.push_str(name);
            }
            if let Some(arguments) = &function.arguments {
                call.arguments.push_str(arguments);
            }
        }
    }

    /// The index of a fragment sent without one: the call of that id, a new call for a new
    /// id, else the call that came last.
    fn unindexed(&self, id: Option<&str>) -> u32 {
        let next = self
            .calls
            .iter()
            .map(|call| call.index + 1)
            .max()
            .unwrap_or(0);
        match id {
            Some(id) => self
                .calls
                .iter()
                .find(|call| call.id == id)
                .map_or(next, |call| call.index),
            None => self.calls.last().map_or(0, |call| call.index),
        }
    }

    /// The calls, ordered by index.
    ///
    /// # Errors
    /// [`ProviderError::Unnamed`] when a call never got a name (the stream is not complete).
    pub fn finish(mut self, names: &dyn ToolNameMap) -> Result<Vec<ToolCall>, ProviderError> {
        self.calls.sort_by_key(|call| call.index);
        self.calls
            .into_iter()
            .map(|call| {
                if call.name.is_empty() {
                    return Err(ProviderError::Unnamed {
                        provider: "OpenAI chat completions",
                        call: format!("tool call {}", call.index),
                    });
                }
                Ok(names
                    .tool_call(&call.name, &call.arguments)
                    .with_call_id(call.id))
            })
            .collect()
    }
}

/// A `role: "tool"` message answering one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolMessage {
    /// Always `"tool"`.
    pub role: &'static str,
    /// The id of the call this answers.
    pub tool_call_id: String,
    /// The result as text.
    pub content: String,
}

/// A `role: "user"` message carrying the images tool messages cannot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UserMessage {
    /// Always `"user"`.
    pub role: &'static str,
    /// Text parts naming the call each image came from, and the images.
    pub content: Vec<UserPart>,
}

/// A part of a user message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UserPart {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, as a `data:` URL.
    ImageUrl {
        /// The image.
        image_url: ImageUrl,
    },
}

/// An image's URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageUrl {
    /// A `data:<mime>;base64,...` URL.
    pub url: String,
}

/// The messages answering a turn's calls: one tool message per result, then, if any result
/// had images, one user message with them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolMessages {
    /// One per result, in the results' order.
    pub tool_messages: Vec<ToolMessage>,
    /// The images of all results, each introduced by the id of its call.
    pub images: Option<UserMessage>,
}

impl ToolMessages {
    /// Every message as JSON, in the order to append them to the conversation.
    #[must_use]
    pub fn messages(&self) -> Vec<serde_json::Value> {
        let tool = self.tool_messages.iter().map(to_value);
        tool.chain(self.images.as_ref().map(to_value)).collect()
    }
}

fn to_value<T: Serialize>(message: &T) -> serde_json::Value {
    // These types serialize to JSON objects by construction; nothing here can fail.
    serde_json::to_value(message).unwrap_or_default()
}

/// The messages answering `results`, one tool message each and the images after them (see the
/// [module documentation](self)).
///
/// ```
/// use tool_core::{ToolError, ToolOutput, ToolResult, output::Content, provider::openai_chat};
///
/// let chart = ToolResult::success("call_1", ToolOutput::text("the chart:").with_content(
///     Content::Image { data: "iVBORw0KGgo=".into(), mime_type: "image/png".into() }));
/// let failed = ToolResult::failure("call_2", ToolError::failed("no such city"));
/// let reply = openai_chat::tool_messages(&[chart, failed]);
/// let messages = reply.messages();
/// assert_eq!(messages[0]["content"], "the chart:\n[image output (image/png) follows in the next user message]");
/// assert_eq!(messages[1]["content"], "Error: no such city");
/// assert_eq!(messages[2]["role"], "user");
/// assert_eq!(messages[2]["content"][1]["image_url"]["url"], "data:image/png;base64,iVBORw0KGgo=");
/// ```
#[must_use]
pub fn tool_messages(results: &[ToolResult]) -> ToolMessages {
    let mut images = Vec::new();
    let tool_messages = results
        .iter()
        .map(|result| {
            let mut introduced = false;
            let text = result_text(result, |part| match part {
                Content::Image { data, mime_type } => {
                    if !std::mem::replace(&mut introduced, true) {
                        images.push(UserPart::Text {
                            text: format!("Images from tool call {}:", result.call_id),
                        });
                    }
                    images.push(UserPart::ImageUrl {
                        image_url: ImageUrl {
                            url: data_url(mime_type, data),
                        },
                    });
                    omitted_note(part, "follows in the next user message")
                }
                other => omitted_note(other, "omitted: a tool message holds text only"),
            });
            ToolMessage {
                role: "tool",
                tool_call_id: result.call_id.clone(),
                content: if result.is_error() {
                    format!("{ERROR_PREFIX}{text}")
                } else {
                    text
                },
            }
        })
        .collect();
    ToolMessages {
        tool_messages,
        images: (!images.is_empty()).then_some(UserMessage {
            role: "user",
            content: images,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::SameNames;
    use crate::{ToolOutput, ToolResult};

    fn chunk(json: &str) -> ChatChunk {
        ChatChunk::from_json(json).unwrap()
    }

    #[test]
    fn null_tool_calls_mean_none() {
        let message =
            ChatMessage::from_json(r#"{"role":"assistant","content":"hi","tool_calls":null}"#)
                .unwrap();
        assert!(tool_calls(&message, &SameNames).is_empty());
    }

    #[test]
    fn a_custom_tool_call_is_left_out() {
        let message = ChatMessage::from_json(
            r#"{"tool_calls":[{"id":"c1","type":"custom","custom":{"name":"raw","input":"x"}}]}"#,
        )
        .unwrap();
        assert!(tool_calls(&message, &SameNames).is_empty());
    }

    #[test]
    fn repeated_ids_and_names_on_every_fragment_are_not_doubled() {
        let mut stream = StreamAccumulator::new();
        for part in [r#"{\"a\""#, r#":1}"#] {
            stream.push(&chunk(&format!(
                r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"id":"c1","function":{{"name":"add","arguments":"{part}"}}}}]}}}}]}}"#
            )));
        }
        let calls = stream.finish(&SameNames).unwrap();
        assert_eq!(calls[0].call_id, "c1");
        assert_eq!(calls[0].name, "add");
        assert_eq!(calls[0].arguments, r#"{"a":1}"#);
    }

    #[test]
    fn fragments_without_an_index_are_placed_by_their_id() {
        let mut stream = StreamAccumulator::new();
        for delta in [
            r#"{"id":"c1","function":{"name":"a","arguments":"{\"x\":"}}"#,
            r#"{"function":{"arguments":"1}"}}"#,
            r#"{"id":"c2","function":{"name":"b","arguments":"{}"}}"#,
        ] {
            stream.push(&chunk(&format!(
                r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{delta}]}}}}]}}"#
            )));
        }
        let calls = stream.finish(&SameNames).unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(
            (calls[0].call_id.as_str(), calls[0].arguments.as_str()),
            ("c1", r#"{"x":1}"#)
        );
        assert_eq!(
            (calls[1].call_id.as_str(), calls[1].name.as_str()),
            ("c2", "b")
        );
    }

    #[test]
    fn choices_other_than_the_first_are_not_read() {
        let mut stream = StreamAccumulator::new();
        stream.push(&chunk(
            r#"{"choices":[{"index":1,"delta":{"tool_calls":[{"index":0,"id":"c9","function":{"name":"other","arguments":"{}"}}]}}]}"#,
        ));
        assert!(stream.finish(&SameNames).unwrap().is_empty());
    }

    #[test]
    fn a_call_that_never_got_a_name_is_an_error_naming_its_index() {
        let mut stream = StreamAccumulator::new();
        stream.push(&chunk(
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":3,"function":{"arguments":"{}"}}]}}]}"#,
        ));
        let error = stream.finish(&SameNames).unwrap_err().to_string();
        assert!(
            error.contains("tool call 3 never got a function name"),
            "{error}"
        );
    }

    #[test]
    fn a_chunk_that_is_not_json_is_an_error_naming_the_payload() {
        let error = StreamAccumulator::new()
            .push_json("{\"choices\": [")
            .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("not an OpenAI chat completion chunk:"),
            "{error}"
        );
    }

    #[test]
    fn structured_output_without_text_is_sent_as_json_text() {
        let result = ToolResult::success(
            "c1",
            ToolOutput::from_content(Vec::new()).with_structured(serde_json::json!({"total": 3})),
        );
        let reply = tool_messages(&[result]);
        assert_eq!(reply.tool_messages[0].content, r#"{"total":3}"#);
        assert_eq!(reply.images, None);
    }
}

//! OpenAI responses: tool calls out of a response's `function_call` output items and out of
//! its streaming events, and results back as `function_call_output` items.
//!
//! A result with images is sent in the output's array form (`input_text` and `input_image`
//! parts, the image as a `data:` URL), which the responses API accepts for function call
//! outputs; any other result is sent as a string, the form every model accepts. Audio has no
//! input part there: a note says it was left out. The format has no error flag: a failed
//! call's text starts with `Error: `.
//!
//! Each [`ToolCall`] keeps the item's own `id` (`fc_...`, distinct from the `call_id` the
//! output answers) in [`provider_data`](ToolCall::provider_data) as `{"id": "fc_..."}`, for a
//! caller that sends the conversation back without `previous_response_id`.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{
    ERROR_PREFIX, Payload, ProviderError, ToolNameMap, data_url, has_text, null_as_empty,
    omitted_note, result_text,
};
use crate::definition::output::Content;
use crate::{ToolCall, ToolResult};

/// A response, as far as tool calls go.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Response {
    /// The output items, in order.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub output: Vec<OutputItem>,
}

impl Payload for Response {
    const WHAT: &'static str = "an OpenAI response";
}

/// An output item: a function call, or something the adapters do not read.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum OutputItem {
    /// The model called a function.
    FunctionCall(FunctionCallItem),
    /// Messages, reasoning, hosted tools' calls: not tool calls to run here.
    #[serde(other)]
    Other,
}

/// A `function_call` output item.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FunctionCallItem {
    /// The item's own id (`fc_...`).
    #[serde(default)]
    pub id: Option<String>,
    /// The id the `function_call_output` answers (`call_...`).
    pub call_id: String,
    /// The function's name, as the provider knows it.
    pub name: String,
    /// The arguments as JSON text; empty while a stream has not sent them yet.
    #[serde(default)]
    pub arguments: String,
}

impl FunctionCallItem {
    fn to_call(&self, names: &dyn ToolNameMap) -> ToolCall {
        let call = names
            .tool_call(&self.name, &self.arguments)
            .with_call_id(self.call_id.as_str());
        match &self.id {
            Some(id) => call.with_provider_data(json!({ "id": id })),
            None => call,
        }
    }
}

/// The function calls among a response's output items, in order.
///
/// ```
/// use tool_core::provider::{Payload, SameNames, openai_responses};
///
/// let response = openai_responses::Response::from_value(&serde_json::json!({
///     "id": "resp_1", "object": "response", "status": "completed",
///     "output": [
///         {"type": "reasoning", "id": "rs_1", "summary": []},
///         {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
///          "arguments": "{\"city\":\"Paris\"}", "status": "completed"}
///     ]
/// })).unwrap();
/// let calls = openai_responses::tool_calls(&response, &SameNames);
/// assert_eq!(calls.len(), 1);
/// assert_eq!(calls[0].call_id, "call_1");
/// ```
#[must_use]
pub fn tool_calls(response: &Response, names: &dyn ToolNameMap) -> Vec<ToolCall> {
    response
        .output
        .iter()
        .filter_map(|item| match item {
            OutputItem::FunctionCall(call) => Some(call.to_call(names)),
            OutputItem::Other => None,
        })
        .collect()
}

/// A streaming event, as far as tool calls go.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum StreamEvent {
    /// `response.output_item.added`: an item starts (a function call with empty arguments).
    #[serde(rename = "response.output_item.added")]
    OutputItemAdded {
        /// The item's position in the output.
        output_index: u32,
        /// The item as it starts.
        item: OutputItem,
    },
    /// `response.function_call_arguments.delta`: the next piece of a call's arguments.
    #[serde(rename = "response.function_call_arguments.delta")]
    ArgumentsDelta {
        /// The item's position in the output.
        output_index: u32,
        /// The piece.
        delta: String,
    },
    /// `response.function_call_arguments.done`: a call's whole arguments.
    #[serde(rename = "response.function_call_arguments.done")]
    ArgumentsDone {
        /// The item's position in the output.
        output_index: u32,
        /// The whole arguments text.
        arguments: String,
    },
    /// `response.output_item.done`: an item as it ended.
    #[serde(rename = "response.output_item.done")]
    OutputItemDone {
        /// The item's position in the output.
        output_index: u32,
        /// The whole item.
        item: OutputItem,
    },
    /// Every other event: text, reasoning, the response's own lifecycle.
    #[serde(other)]
    Other,
}

impl Payload for StreamEvent {
    const WHAT: &'static str = "an OpenAI responses streaming event";
}

/// Builds the function calls of a streamed response from its events.
///
/// Push every event in order; [`finish`](Self::finish) returns the calls ordered by output
/// index. The `done` events carry the whole arguments and replace what the deltas built; a
/// stream cut before them still yields its calls, with the arguments received so far (which
/// the coordinator then reports as malformed).
///
/// ```
/// use tool_core::provider::{SameNames, openai_responses::StreamAccumulator};
///
/// let mut stream = StreamAccumulator::new();
/// for data in [
///     r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":""}}"#,
///     r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"city\":"}"#,
///     r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"\"Paris\"}"}"#,
/// ] {
///     stream.push_json(data).unwrap();
/// }
/// let calls = stream.finish(&SameNames);
/// assert_eq!(calls[0].arguments, r#"{"city":"Paris"}"#);
/// ```
#[derive(Debug, Clone, Default)]
pub struct StreamAccumulator {
    /// Calls by output index; a response has few items, so a vector is the fastest map.
    calls: Vec<(u32, FunctionCallItem)>,
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
    /// [`ProviderError::FragmentBeforeStart`] when arguments arrive for an output index no
    /// `response.output_item.added` started as a function call.
    pub fn push(&mut self, event: &StreamEvent) -> Result<(), ProviderError> {
        match event {
            StreamEvent::OutputItemAdded {
                output_index,
                item: OutputItem::FunctionCall(item),
            }
            | StreamEvent::OutputItemDone {
                output_index,
                item: OutputItem::FunctionCall(item),
            } => match self.slot(*output_index) {
                Some(call) => call.clone_from(item),
                None => self.calls.push((*output_index, item.clone())),
            },
            StreamEvent::ArgumentsDelta {
                output_index,
                delta,
            } => self.started(*output_index)?.arguments.push_str(delta),
            StreamEvent::ArgumentsDone {
                output_index,
                arguments,
            } => self.started(*output_index)?.arguments.clone_from(arguments),
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

    fn slot(&mut self, output_index: u32) -> Option<&mut FunctionCallItem> {
        self.calls
            .iter_mut()
            .find(|(index, _)| *index == output_index)
            .map(|(_, call)| call)
    }

    fn started(&mut self, output_index: u32) -> Result<&mut FunctionCallItem, ProviderError> {
        self.slot(output_index)
            .ok_or_else(|| ProviderError::FragmentBeforeStart {
                provider: "OpenAI responses",
                call: format!("output item {output_index}"),
            })
    }

    /// The calls, ordered by output index.
    #[must_use]
    pub fn finish(mut self, names: &dyn ToolNameMap) -> Vec<ToolCall> {
        self.calls.sort_by_key(|(index, _)| *index);
        self.calls
            .iter()
            .map(|(_, item)| item.to_call(names))
            .collect()
    }
}

/// A `function_call_output` input item answering one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FunctionCallOutput {
    /// Always `"function_call_output"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The id of the call this answers.
    pub call_id: String,
    /// The result.
    pub output: FunctionOutput,
}

/// A function call's output: a string, or parts when it has images.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum FunctionOutput {
    /// The result as text.
    Text(String),
    /// The result as text and image parts, in order.
    Parts(Vec<InputPart>),
}

/// A part of an array output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputPart {
    /// Text.
    InputText {
        /// The text.
        text: String,
    },
    /// An image.
    InputImage {
        /// A `data:<mime>;base64,...` URL.
        image_url: String,
    },
}

/// The `function_call_output` item answering a call.
///
/// ```
/// use tool_core::{Json, ToolResult, output::IntoToolOutput, provider::openai_responses};
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Weather { celsius: i32 }
///
/// let output = Json(Weather { celsius: 21 }).into_tool_output().unwrap();
/// let item = openai_responses::function_call_output(&ToolResult::success("call_1", output));
/// assert_eq!(
///     serde_json::to_value(&item).unwrap(),
///     serde_json::json!({"type": "function_call_output", "call_id": "call_1", "output": "{\"celsius\":21}"})
/// );
/// ```
#[must_use]
pub fn function_call_output(result: &ToolResult) -> FunctionCallOutput {
    let has_images = result
        .content
        .iter()
        .any(|part| matches!(part, Content::Image { .. }));
    let output = if has_images {
        // The coordinator's failures carry no images: the error prefix is for plain text alone.
        let mut parts = Vec::with_capacity(result.content.len() + result.context.len() + 1);
        for part in &result.content {
            match part {
                Content::Text { text } => push_text(&mut parts, text.clone()),
                Content::Image { data, mime_type } => parts.push(InputPart::InputImage {
                    image_url: data_url(mime_type, data),
                }),
                other => push_text(
                    &mut parts,
                    omitted_note(other, "omitted: no input part carries it"),
                ),
            }
        }
        if !has_text(result)
            && let Some(structured) = &result.structured
        {
            push_text(&mut parts, structured.to_string());
        }
        for context in &result.context {
            push_text(&mut parts, context.clone());
        }
        FunctionOutput::Parts(parts)
    } else {
        let prefix = if result.is_error() { ERROR_PREFIX } else { "" };
        let text = result_text(result, |part| {
            omitted_note(part, "omitted: no input part carries it")
        });
        FunctionOutput::Text(format!("{prefix}{text}"))
    };
    FunctionCallOutput {
        kind: "function_call_output",
        call_id: result.call_id.clone(),
        output,
    }
}

/// Adds a text part, unless the text is empty.
fn push_text(parts: &mut Vec<InputPart>, text: String) {
    if !text.is_empty() {
        parts.push(InputPart::InputText { text });
    }
}

/// The `function_call_output` items answering `results`, in order: what to append to the next
/// request's `input`.
#[must_use]
pub fn function_call_outputs(results: &[ToolResult]) -> Vec<FunctionCallOutput> {
    results.iter().map(function_call_output).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::SameNames;
    use crate::{ToolError, ToolOutput};

    #[test]
    fn arguments_before_their_item_started_are_an_error_naming_the_item() {
        let error = StreamAccumulator::new()
            .push_json(
                r#"{"type":"response.function_call_arguments.delta","output_index":4,"delta":"{"}"#,
            )
            .unwrap_err();
        assert!(error.to_string().contains("output item 4"), "{error}");
    }

    #[test]
    fn the_done_event_replaces_the_arguments_the_deltas_built() {
        let mut stream = StreamAccumulator::new();
        stream
            .push_json(r#"{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":""}}"#)
            .unwrap();
        stream
            .push_json(r#"{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"a\":"}"#)
            .unwrap();
        stream
            .push_json(r#"{"type":"response.function_call_arguments.done","output_index":1,"arguments":"{\"a\":2}"}"#)
            .unwrap();
        let calls = stream.finish(&SameNames);
        assert_eq!(calls[0].arguments, r#"{"a":2}"#);
        assert_eq!(calls[0].provider_data, Some(json!({"id": "fc_1"})));
    }

    #[test]
    fn events_that_are_not_about_function_calls_are_ignored() {
        let mut stream = StreamAccumulator::new();
        stream
            .push_json(r#"{"type":"response.output_text.delta","output_index":0,"delta":"Hi"}"#)
            .unwrap();
        stream
            .push_json(r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}}"#)
            .unwrap();
        assert!(stream.finish(&SameNames).is_empty());
    }

    #[test]
    fn a_failed_result_says_it_is_an_error() {
        let item =
            function_call_output(&ToolResult::failure("c", ToolError::failed("no such city")));
        assert_eq!(
            item.output,
            FunctionOutput::Text("Error: no such city".into())
        );
    }

    #[test]
    fn a_result_with_an_image_uses_the_array_form() {
        let result = ToolResult::success(
            "c",
            ToolOutput::text("chart").with_content(Content::Image {
                data: "AAAA".into(),
                mime_type: "image/png".into(),
            }),
        );
        let value = serde_json::to_value(function_call_output(&result)).unwrap();
        assert_eq!(
            value["output"],
            json!([
                {"type": "input_text", "text": "chart"},
                {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}
            ])
        );
    }
}

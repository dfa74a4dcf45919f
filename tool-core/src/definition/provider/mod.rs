//! Provider adapters: tool calls out of a model provider's response, and results back in the
//! shape that provider expects. One module per wire format; this module owns what they share:
//! the [`ToolNameMap`] that maps provider-safe names back to tool names, the [`Payload`] trait
//! that reads a payload from JSON, the [`ProviderError`] for payloads and streams that are not
//! what they claim to be, and the rendering of a [`ToolResult`] as text for formats that only take a
//! string.
//!
//! Plain serde types: no HTTP client, no runtime. The structs model the fields the adapters
//! read and write and ignore every other field, so a field a provider adds never breaks
//! parsing.
//!
//! Each adapter follows the same shape:
//!
//! | provider | calls from a response | calls from a stream | results back |
//! |---|---|---|---|
//! | [`openai_chat`] | `tool_calls(&ChatMessage, names)` | `StreamAccumulator` over chunks | `tool_messages(&[ToolResult])` |
//! | [`openai_responses`] | `tool_calls(&Response, names)` | `StreamAccumulator` over events | `function_call_output(&ToolResult)` |
//! | [`anthropic`] | `tool_calls(&Message, names)` | `StreamAccumulator` over events | `tool_results(&[ToolResult])` |
//! | [`gemini`] | `tool_calls(&GenerateContentResponse, names)` | `StreamAccumulator` over chunks | `function_responses(&[ToolCall], &[ToolResult])` |
//!
//!
//! A call whose arguments are not valid JSON (a stream cut short) still comes out as a
//! [`ToolCall`](crate::ToolCall), its arguments as sent, so that the model gets an answer to
//! every call it made: the coordinator's error says what was wrong. The
//! [`Export`](crate::schema::Export) the tools were declared with is the [`ToolNameMap`] to
//! give: it maps provider-safe names back and takes out the `null`s a strict model sends for
//! optional arguments. Both, with examples, are in the guide's providers page
//! (`docs/providers.md`).

pub mod anthropic;
pub mod gemini;
pub mod openai_chat;
pub mod openai_responses;

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::ToolResult;
use crate::definition::output::{Content, ResourceContents};

/// Maps the name a provider sent back to the tool's own name (a schema exporter may have given
/// the provider another, such as one without `.`).
///
/// Implemented by [`SameNames`] (no mapping) and by any `Fn(&str) -> Option<String>`:
///
/// ```
/// use tool_core::provider::ToolNameMap;
///
/// let unescape = |sent: &str| sent.strip_prefix("fs__").map(|rest| format!("fs.{rest}"));
/// assert_eq!(unescape.tool_name("fs__read"), "fs.read");
/// assert_eq!(unescape.tool_name("grep"), "grep");
/// ```
pub trait ToolNameMap {
    /// The tool's name for a name the provider sent, or `None` to keep it as sent.
    fn to_tool(&self, provider_name: &str) -> Option<String>;

    /// The tool's name for a name the provider sent.
    fn tool_name<'a>(&self, provider_name: &'a str) -> Cow<'a, str> {
        self.to_tool(provider_name)
            .map_or(Cow::Borrowed(provider_name), Cow::Owned)
    }

    /// The arguments a provider sent for our tool `tool`, as the tool should see them: as sent
    /// unless the map knows better (an [`Export`](crate::schema::Export) takes out the `null`s
    /// strict mode invited).
    fn arguments<'a>(&self, tool: &str, arguments: &'a str) -> Cow<'a, str> {
        let _ = tool;
        Cow::Borrowed(arguments)
    }

    /// The call a provider made, as ours: the name mapped back and the arguments as the tool
    /// should see them. Every adapter builds its calls with this.
    fn tool_call(&self, provider_name: &str, arguments: &str) -> crate::ToolCall {
        let name = self.tool_name(provider_name);
        let arguments = self.arguments(&name, arguments).into_owned();
        crate::ToolCall::new(name.into_owned(), arguments)
    }
}

impl ToolNameMap for crate::schema::Export {
    fn to_tool(&self, provider_name: &str) -> Option<String> {
        self.names.original(provider_name).map(str::to_owned)
    }

    fn arguments<'a>(&self, tool: &str, arguments: &'a str) -> Cow<'a, str> {
        self.normalize_arguments(tool, arguments)
    }
}

impl ToolNameMap for crate::schema::ToolNames {
    fn to_tool(&self, provider_name: &str) -> Option<String> {
        self.original(provider_name).map(str::to_owned)
    }
}

/// No mapping: every name is the tool's own name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SameNames;

impl ToolNameMap for SameNames {
    fn to_tool(&self, _provider_name: &str) -> Option<String> {
        None
    }
}

impl<F: Fn(&str) -> Option<String>> ToolNameMap for F {
    fn to_tool(&self, provider_name: &str) -> Option<String> {
        self(provider_name)
    }
}

/// A payload an adapter reads, from the JSON an HTTP client returned: the typed structs of
/// each provider module implement it.
///
/// ```
/// use tool_core::provider::{Payload, anthropic::Message};
///
/// let value = serde_json::json!({"role": "assistant", "content": [
///     {"type": "tool_use", "id": "toolu_1", "name": "grep", "input": {"pattern": "fn main"}}
/// ]});
/// let message = Message::from_value(&value).unwrap();
/// assert_eq!(message.content.len(), 1);
///
/// let error = Message::from_json(r#"{"content": "not a list"}"#).unwrap_err();
/// assert!(error.to_string().starts_with("not an Anthropic message:"), "{error}");
/// ```
pub trait Payload: DeserializeOwned {
    /// What the payload is, for error messages ("an Anthropic message").
    const WHAT: &'static str;

    /// Reads the payload from a JSON value, without copying the value.
    ///
    /// # Errors
    /// [`ProviderError::Payload`] naming the field that did not match.
    fn from_value(value: &Value) -> Result<Self, ProviderError> {
        Self::deserialize(value).map_err(|source| ProviderError::Payload {
            what: Self::WHAT,
            source,
        })
    }

    /// Reads the payload from JSON text, such as a server-sent event's `data`.
    ///
    /// # Errors
    /// [`ProviderError::Payload`] when the text is not JSON or not this payload.
    fn from_json(text: &str) -> Result<Self, ProviderError> {
        serde_json::from_str(text).map_err(|source| ProviderError::Payload {
            what: Self::WHAT,
            source,
        })
    }
}

/// A payload or a stream that is not what the adapter was given it as, or a result that
/// answers none of the calls given with it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderError {
    /// The JSON is not a payload of the expected kind.
    #[error("not {what}: {source}")]
    Payload {
        /// What was expected ("an OpenAI chat completion chunk").
        what: &'static str,
        /// Which field did not match, and where.
        #[source]
        source: serde_json::Error,
    },
    /// A stream sent a fragment of a tool call before the event that starts that call.
    #[error(
        "{provider} stream: arguments arrived for {call} before the event that starts it; \
         pass every event of the stream to the accumulator, in order"
    )]
    FragmentBeforeStart {
        /// Which provider's stream.
        provider: &'static str,
        /// Which call, as the stream identifies it ("output item 2").
        call: String,
    },
    /// A result to format answers none of the calls given with it.
    #[error(
        "the result for call `{call_id}` answers none of the calls given; pass the calls the \
         results answer, as parsed from the response"
    )]
    NoCallForResult {
        /// The result's call id.
        call_id: String,
    },
    /// A stream ended with a tool call that never got a name.
    #[error(
        "{provider} stream: {call} never got a function name; the stream is incomplete or \
         not from this provider"
    )]
    Unnamed {
        /// Which provider's stream.
        provider: &'static str,
        /// Which call, as the stream identifies it ("tool call 0").
        call: String,
    },
}

/// A result as one string, for formats whose tool message holds text only: the text parts
/// and hooks' context one per line, or the structured value as JSON when there is no text;
/// `other_part` gives the text standing in for each part that is not text (and may keep the
/// part to send elsewhere).
pub(crate) fn result_text(
    result: &ToolResult,
    mut other_part: impl FnMut(&Content) -> String,
) -> String {
    let mut text = String::new();
    let mut push = |part: &str| {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(part);
    };
    for part in &result.content {
        match part {
            Content::Text { text } if text.is_empty() => {}
            Content::Text { text } => push(text),
            other => push(&other_part(other)),
        }
    }
    if !has_text(result)
        && let Some(structured) = &result.structured
    {
        push(&structured.to_string());
    }
    for context in &result.context {
        push(context);
    }
    text
}

/// `true` when the result has a text part that is not empty: without one, formats send the
/// structured value, if any, as text.
pub(crate) fn has_text(result: &ToolResult) -> bool {
    result
        .content
        .iter()
        .any(|part| part.as_text().is_some_and(|text| !text.is_empty()))
}

/// The text standing in for a part a format cannot carry where it is: a text resource's own
/// text, under a line naming it; for anything else, a note saying what was `omitted`.
pub(crate) fn omitted_note(part: &Content, omitted: &str) -> String {
    let (kind, mime_type) = match part {
        Content::Text { .. } => ("text", "text/plain"),
        Content::Image { mime_type, .. } => ("image", mime_type.as_str()),
        Content::Audio { mime_type, .. } => ("audio", mime_type.as_str()),
        Content::Resource {
            uri,
            mime_type,
            contents: ResourceContents::Text { text },
        } => {
            return match mime_type {
                Some(mime_type) => format!("[resource {uri} ({mime_type})]\n{text}"),
                None => format!("[resource {uri}]\n{text}"),
            };
        }
        Content::Resource { mime_type, .. } => (
            "resource",
            mime_type.as_deref().unwrap_or("application/octet-stream"),
        ),
    };
    format!("[{kind} output ({mime_type}) {omitted}]")
}

/// `data:` URL of a base64 part, the form OpenAI takes images in.
pub(crate) fn data_url(mime_type: &str, data: &str) -> String {
    format!("data:{mime_type};base64,{data}")
}

/// The text prefix OpenAI results carry when the call failed: neither OpenAI format has an
/// error flag, and a message like "the disk is full" alone does not say the call failed.
pub(crate) const ERROR_PREFIX: &str = "Error: ";

/// `null` in a list field means the same as an empty list.
pub(crate) fn null_as_empty<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(deserializer)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolOutput;

    #[test]
    fn a_closure_maps_names_back_and_keeps_unknown_ones() {
        let map = |sent: &str| (sent == "fs_read").then(|| "fs.read".to_owned());
        assert_eq!(map.tool_name("fs_read"), "fs.read");
        assert_eq!(map.tool_name("grep"), "grep");
        assert_eq!(SameNames.tool_name("fs_read"), "fs_read");
    }

    #[test]
    fn result_text_renders_structured_output_when_there_is_no_text() {
        let result = ToolResult::success(
            "c",
            ToolOutput::from_content(Vec::new()).with_structured(serde_json::json!({"n": 1})),
        );
        assert_eq!(result_text(&result, |_| unreachable!()), r#"{"n":1}"#);
    }

    #[test]
    fn result_text_notes_parts_that_are_not_text_and_appends_context() {
        let mut result = ToolResult::success(
            "c",
            ToolOutput::text("chart:").with_content(Content::Image {
                data: "AAAA".into(),
                mime_type: "image/png".into(),
            }),
        );
        result.context.push("from a hook".into());
        assert_eq!(
            result_text(&result, |part| omitted_note(part, "follows")),
            "chart:\n[image output (image/png) follows]\nfrom a hook"
        );
    }

    #[test]
    fn a_text_resource_reaches_the_model_as_text_and_a_binary_one_as_a_note() {
        let result = ToolResult::success(
            "c",
            ToolOutput::from_content(vec![
                Content::resource_text("file:///a.json", Some("application/json"), "{}"),
                Content::resource_blob("file:///a.bin", None, "AAAA"),
            ]),
        );
        assert_eq!(
            result_text(&result, |part| omitted_note(part, "omitted")),
            "[resource file:///a.json (application/json)]\n{}\n[resource output (application/octet-stream) omitted]"
        );
    }

    #[test]
    fn provider_data_survives_a_json_round_trip_of_the_call_and_is_absent_when_empty() {
        let plain = crate::ToolCall::new("a", "{}");
        assert!(
            serde_json::to_value(&plain)
                .unwrap()
                .get("provider_data")
                .is_none()
        );
        let kept = plain.with_provider_data(serde_json::json!({"thoughtSignature": "c2ln"}));
        let text = serde_json::to_string(&kept).unwrap();
        assert_eq!(
            serde_json::from_str::<crate::ToolCall>(&text).unwrap(),
            kept
        );
    }

    #[test]
    fn a_payload_error_names_what_was_expected_and_the_field() {
        let error =
            anthropic::Message::from_json(r#"{"content": [{"type": "tool_use"}]}"#).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("not an Anthropic message:"),
            "{message}"
        );
        assert!(message.contains("missing field `id`"), "{message}");
    }
}

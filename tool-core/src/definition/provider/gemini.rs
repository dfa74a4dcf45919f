//! Gemini: tool calls out of a `generateContent` response's `functionCall` parts (and out of
//! the chunks of `streamGenerateContent`), and results back as `functionResponse` parts.
//!
//! # Ids
//!
//! Gemini may leave a call's `id` out. The adapter then makes one, `gemini_<n>_<hash>` from
//! the call's position and a hash of its name and arguments: unique within the response and
//! the same each time the response is parsed. A made id is the caller's only: the reply
//! leaves it out, as the call had none, and Gemini matches responses to such calls by name
//! and order. An id Gemini sent is echoed (Gemini 3 requires it).
//!
//! # Thought signatures
//!
//! A thinking model puts a `thoughtSignature` on a `functionCall` part (on the first call
//! only, when it makes several at once), and the conversation sent back must carry it on
//! that same part. The adapter keeps it in the call's
//! [`provider_data`](ToolCall::provider_data) as `{"thoughtSignature": "..."}`, and
//! [`model_content`] rebuilds the model's turn with it. That turn holds the function calls
//! only: a turn that also had text or thought parts (which may carry signatures of their own)
//! is best sent back as Gemini returned it, and then `model_content` is not needed.
//!
//! Two more keys may be there: `"generatedId": true` for a made id, and `"name"`, the
//! function's name as Gemini sent it when a [`ToolNameMap`] gave the call another: a
//! `functionResponse` must name the function as Gemini knows it.
//!
//! **Responses:** a `functionResponse`'s `response` must be an object: a structured result
//! that is an object goes in as it is, any other result as `{"output": ...}`, and a failed call
//! as `{"error": "..."}`. Images (and audio) go in the `functionResponse`'s own `parts` as
//! `inlineData` (multimodal function responses, a Gemini 3 feature).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{
    Payload, ProviderError, ToolNameMap, has_text, null_as_empty, omitted_note, result_text,
};
use crate::definition::output::Content as ToolContent;
use crate::{ToolCall, ToolResult};

/// A `generateContent` response, or one chunk of `streamGenerateContent`, as far as tool
/// calls go.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct GenerateContentResponse {
    /// The candidate answers; the adapters read the first.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub candidates: Vec<Candidate>,
}

impl Payload for GenerateContentResponse {
    const WHAT: &'static str = "a Gemini generateContent response";
}

/// One candidate answer.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Candidate {
    /// The answer's content; absent when generation stopped before any.
    #[serde(default)]
    pub content: Option<Content>,
}

/// A turn of the conversation: the model's parts, or the user's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Content {
    /// `"model"` or `"user"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The parts, in order.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub parts: Vec<Part>,
}

/// A part of a turn, as far as function calling goes. Reads Gemini's REST field names
/// (`functionCall`) and the Python SDK's (`function_call`); writes the REST ones.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// A call the model made.
    #[serde(
        default,
        alias = "function_call",
        skip_serializing_if = "Option::is_none"
    )]
    pub function_call: Option<FunctionCall>,
    /// The answer to a call.
    #[serde(
        default,
        alias = "function_response",
        skip_serializing_if = "Option::is_none"
    )]
    pub function_response: Option<FunctionResponse>,
    /// The model's reasoning state, to send back on the same part.
    #[serde(
        default,
        alias = "thought_signature",
        skip_serializing_if = "Option::is_none"
    )]
    pub thought_signature: Option<String>,
}

/// A `functionCall`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The call's id, when Gemini gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function's name, as the provider knows it.
    pub name: String,
    /// The arguments (an object; absent for a function without parameters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
}

/// A `functionResponse`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionResponse {
    /// The id of the call this answers, when the call had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function's name, as the provider knows it.
    pub name: String,
    /// The result: always a JSON object.
    pub response: Value,
    /// Media the result carries (`{"inlineData": {"mimeType", "data"}}`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Value>,
}

/// The function calls of the first candidate, in order, with ids made where Gemini gave none
/// and thought signatures kept (see the [module documentation](self)).
///
/// ```
/// use tool_core::provider::{Payload, SameNames, gemini};
///
/// let response = gemini::GenerateContentResponse::from_value(&serde_json::json!({
///     "candidates": [{"content": {"role": "model", "parts": [
///         {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "c2ln"},
///         {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}
///     ]}, "finishReason": "STOP"}]
/// })).unwrap();
/// let calls = gemini::tool_calls(&response, &SameNames);
/// assert_eq!(calls[1].arguments, r#"{"city":"Rome"}"#);
/// assert_ne!(calls[0].call_id, calls[1].call_id);
/// assert_eq!(calls[0].provider_data.as_ref().unwrap()["thoughtSignature"], "c2ln");
/// ```
#[must_use]
pub fn tool_calls(response: &GenerateContentResponse, names: &dyn ToolNameMap) -> Vec<ToolCall> {
    let mut stream = StreamAccumulator::new();
    stream.push(response);
    stream.finish(names)
}

/// Collects the function calls of a streamed response (`streamGenerateContent`) from its
/// chunks. Gemini sends each `functionCall` whole, so nothing is joined; the accumulator
/// numbers calls across the whole stream, so made ids are unique within it.
///
/// ```
/// use tool_core::provider::{SameNames, gemini::StreamAccumulator};
///
/// let mut stream = StreamAccumulator::new();
/// stream.push_json(r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Checking."}]}}]}"#).unwrap();
/// stream.push_json(r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"now","args":{}}}]}}]}"#).unwrap();
/// assert_eq!(stream.finish(&SameNames)[0].name, "now");
/// ```
#[derive(Debug, Clone, Default)]
pub struct StreamAccumulator {
    calls: Vec<(FunctionCall, Option<String>)>,
}

impl StreamAccumulator {
    /// An accumulator that has seen nothing.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a chunk's function calls (those of its first candidate).
    pub fn push(&mut self, chunk: &GenerateContentResponse) {
        let Some(content) = chunk.candidates.first().and_then(|c| c.content.as_ref()) else {
            return;
        };
        for part in &content.parts {
            if let Some(call) = &part.function_call {
                self.calls
                    .push((call.clone(), part.thought_signature.clone()));
            }
        }
    }

    /// Adds a chunk given as a server-sent event's `data` text.
    ///
    /// # Errors
    /// [`ProviderError::Payload`] when the text is not a response.
    pub fn push_json(&mut self, data: &str) -> Result<(), ProviderError> {
        self.push(&GenerateContentResponse::from_json(data)?);
        Ok(())
    }

    /// The calls, in the order Gemini sent them.
    #[must_use]
    pub fn finish(self, names: &dyn ToolNameMap) -> Vec<ToolCall> {
        self.calls
            .into_iter()
            .enumerate()
            .map(|(position, (call, signature))| {
                let arguments = call
                    .args
                    .as_ref()
                    .map_or_else(|| "{}".to_owned(), Value::to_string);
                let mut data = Map::new();
                if let Some(signature) = signature {
                    data.insert("thoughtSignature".into(), Value::String(signature));
                }
                let id = match call.id {
                    Some(id) => id,
                    None => {
                        data.insert("generatedId".into(), Value::Bool(true));
                        made_id(position, &call.name, &arguments)
                    }
                };
                let tool_name = names.tool_name(&call.name);
                if tool_name != call.name {
                    data.insert("name".into(), Value::String(call.name.clone()));
                }
                let tool_call = names.tool_call(&call.name, &arguments).with_call_id(id);
                if data.is_empty() {
                    tool_call
                } else {
                    tool_call.with_provider_data(Value::Object(data))
                }
            })
            .collect()
    }
}

/// An id for a call Gemini sent without one: its position makes it unique within the
/// response; the hash of what it asks makes two responses' ids unlikely to meet.
fn made_id(position: usize, name: &str, arguments: &str) -> String {
    // FNV-1a: stable across runs and platforms, unlike std's randomly keyed hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes().chain([0]).chain(arguments.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("gemini_{position}_{hash:016x}")
}

fn provider_data<'a>(call: &'a ToolCall, key: &str) -> Option<&'a Value> {
    call.provider_data.as_ref()?.get(key)
}

/// The function's name as Gemini knows it.
fn sent_name(call: &ToolCall) -> String {
    provider_data(call, "name")
        .and_then(Value::as_str)
        .unwrap_or(&call.name)
        .to_owned()
}

/// The id to send back for a call: the one Gemini gave, none for an id the adapter made.
fn sent_id(call: &ToolCall) -> Option<String> {
    let generated = provider_data(call, "generatedId").and_then(Value::as_bool) == Some(true);
    (!generated && !call.call_id.is_empty()).then(|| call.call_id.clone())
}

/// The `functionCall` part for a call, as the model sent it: its id if Gemini gave one and
/// its thought signature.
#[must_use]
pub fn function_call_part(call: &ToolCall) -> Part {
    let args = serde_json::from_str(&call.arguments).ok();
    Part {
        function_call: Some(FunctionCall {
            id: sent_id(call),
            name: sent_name(call),
            args,
        }),
        function_response: None,
        thought_signature: provider_data(call, "thoughtSignature")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

/// The model's turn that made `calls`, with their thought signatures: the content to put in
/// the conversation before the [`function_responses`], when the caller does not keep the
/// model's content as it came.
#[must_use]
pub fn model_content(calls: &[ToolCall]) -> Content {
    Content {
        role: Some("model".into()),
        parts: calls.iter().map(function_call_part).collect(),
    }
}

/// The `functionResponse` part answering `call` with `result`.
///
/// ```
/// use tool_core::{ToolCall, ToolError, ToolOutput, ToolResult, provider::gemini};
///
/// let call = ToolCall::new("get_weather", r#"{"city":"Paris"}"#).with_call_id("call_1");
/// let ok = gemini::function_response(&call, &ToolResult::success("call_1", ToolOutput::text("21 °C")));
/// assert_eq!(
///     serde_json::to_value(&ok).unwrap(),
///     serde_json::json!({"functionResponse": {"id": "call_1", "name": "get_weather", "response": {"output": "21 °C"}}})
/// );
///
/// let failed = ToolResult::failure("call_1", ToolError::failed("no such city"));
/// let part = gemini::function_response(&call, &failed);
/// assert_eq!(part.function_response.unwrap().response, serde_json::json!({"error": "no such city"}));
/// ```
#[must_use]
pub fn function_response(call: &ToolCall, result: &ToolResult) -> Part {
    let mut parts = Vec::new();
    let text = result_text(result, |part| match part {
        ToolContent::Image { data, mime_type } | ToolContent::Audio { data, mime_type } => {
            parts.push(json!({"inlineData": {"mimeType": mime_type, "data": data}}));
            omitted_note(part, "attached")
        }
        other => omitted_note(other, "omitted: Gemini has no part for it"),
    });
    let response = if result.is_error() {
        json!({ "error": text })
    } else {
        match &result.structured {
            Some(Value::Object(object)) => {
                let mut object = object.clone();
                if !result.context.is_empty() && !object.contains_key("context") {
                    object.insert("context".into(), Value::String(result.context.join("\n")));
                }
                Value::Object(object)
            }
            Some(other) if !has_text(result) => json!({ "output": other }),
            _ => json!({ "output": text }),
        }
    };
    Part {
        function_call: None,
        function_response: Some(FunctionResponse {
            id: sent_id(call),
            name: sent_name(call),
            response,
            parts,
        }),
        thought_signature: None,
    }
}

/// The user turn answering a model turn: one `functionResponse` per result, in the order of
/// the results, each matched to its call by `call_id`.
///
/// # Errors
/// [`ProviderError::NoCallForResult`] when a result answers no call among `calls`: Gemini
/// needs the function's name, which only the call has, and a response for every call.
pub fn function_responses(
    calls: &[ToolCall],
    results: &[ToolResult],
) -> Result<Content, ProviderError> {
    let parts = results
        .iter()
        .map(|result| {
            let call = calls
                .iter()
                .find(|call| call.call_id == result.call_id)
                .ok_or_else(|| ProviderError::NoCallForResult {
                    call_id: result.call_id.clone(),
                })?;
            Ok(function_response(call, result))
        })
        .collect::<Result<_, _>>()?;
    Ok(Content {
        role: Some("user".into()),
        parts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::SameNames;
    use crate::{ToolOutput, ToolResult};

    #[test]
    fn made_ids_are_the_same_each_time_a_response_is_parsed() {
        let response = GenerateContentResponse::from_json(
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"a","args":{"x":1}}},{"functionCall":{"name":"a","args":{"x":1}}}]}}]}"#,
        )
        .unwrap();
        let first = tool_calls(&response, &SameNames);
        let second = tool_calls(&response, &SameNames);
        assert_eq!(first, second);
        assert_ne!(first[0].call_id, first[1].call_id);
    }

    #[test]
    fn ids_made_in_a_stream_are_unique_across_its_chunks() {
        let chunk = r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"a","args":{"x":1}}}]}}]}"#;
        let mut stream = StreamAccumulator::new();
        stream.push_json(chunk).unwrap();
        stream.push_json(chunk).unwrap();
        let calls = stream.finish(&SameNames);
        assert_eq!(calls.len(), 2);
        assert_ne!(calls[0].call_id, calls[1].call_id);
    }

    #[test]
    fn an_id_gemini_sent_is_kept_and_echoed() {
        let response = GenerateContentResponse::from_json(
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"id":"fc_7","name":"a","args":{}}}]}}]}"#,
        )
        .unwrap();
        let calls = tool_calls(&response, &SameNames);
        assert_eq!(calls[0].call_id, "fc_7");
        assert_eq!(calls[0].provider_data, None);
        let result = ToolResult::success("fc_7", ToolOutput::text("ok"));
        let part = function_response(&calls[0], &result);
        assert_eq!(part.function_response.unwrap().id.as_deref(), Some("fc_7"));
    }

    #[test]
    fn the_python_sdks_snake_case_fields_are_read_too() {
        let response = GenerateContentResponse::from_json(
            r#"{"candidates":[{"content":{"parts":[{"function_call":{"name":"a","args":{}},"thought_signature":"c2ln"}]}}]}"#,
        )
        .unwrap();
        let calls = tool_calls(&response, &SameNames);
        assert_eq!(
            calls[0].provider_data.as_ref().unwrap()["thoughtSignature"],
            "c2ln"
        );
    }

    #[test]
    fn a_call_without_args_has_empty_object_arguments() {
        let response = GenerateContentResponse::from_json(
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"now"}}]}}]}"#,
        )
        .unwrap();
        assert_eq!(tool_calls(&response, &SameNames)[0].arguments, "{}");
    }

    #[test]
    fn a_response_without_candidates_has_no_calls() {
        let response =
            GenerateContentResponse::from_json(r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#)
                .unwrap();
        assert!(tool_calls(&response, &SameNames).is_empty());
    }

    #[test]
    fn a_structured_object_is_the_response_itself() {
        let call = ToolCall::new("sum", "{}").with_call_id("c");
        let result = ToolResult::success(
            "c",
            ToolOutput::text(r#"{"total":3}"#).with_structured(json!({"total": 3})),
        );
        let part = function_response(&call, &result);
        assert_eq!(
            part.function_response.unwrap().response,
            json!({"total": 3})
        );
    }

    #[test]
    fn a_structured_value_that_is_not_an_object_goes_under_output() {
        let call = ToolCall::new("count", "{}").with_call_id("c");
        let result = ToolResult::success(
            "c",
            ToolOutput::from_content(Vec::new()).with_structured(json!([1, 2])),
        );
        let part = function_response(&call, &result);
        assert_eq!(
            part.function_response.unwrap().response,
            json!({"output": [1, 2]})
        );
    }

    #[test]
    fn an_image_goes_in_the_function_responses_own_parts() {
        let call = ToolCall::new("chart", "{}").with_call_id("c");
        let result = ToolResult::success(
            "c",
            ToolOutput::text("the chart").with_content(ToolContent::Image {
                data: "AAAA".into(),
                mime_type: "image/png".into(),
            }),
        );
        let value = serde_json::to_value(function_response(&call, &result)).unwrap();
        assert_eq!(
            value["functionResponse"]["parts"],
            json!([{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}])
        );
        assert_eq!(
            value["functionResponse"]["response"]["output"],
            "the chart\n[image output (image/png) attached]"
        );
    }

    #[test]
    fn the_reply_names_the_function_as_gemini_sent_it() {
        let dotted = |sent: &str| Some(sent.replace("__", "."));
        let response = GenerateContentResponse::from_json(
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"fs__read","args":{}}}]}}]}"#,
        )
        .unwrap();
        let calls = tool_calls(&response, &dotted);
        assert_eq!(calls[0].name, "fs.read");
        let result = ToolResult::success(calls[0].call_id.clone(), ToolOutput::text("ok"));
        let reply = function_responses(&calls, &[result]).unwrap();
        let response = reply.parts[0].function_response.as_ref().unwrap();
        assert_eq!(response.name, "fs__read");
        assert_eq!(response.id, None, "a made id is not sent back");
        let model = model_content(&calls);
        assert_eq!(
            model.parts[0].function_call.as_ref().unwrap().name,
            "fs__read"
        );
    }

    #[test]
    fn a_result_for_a_call_not_given_is_an_error_naming_its_id() {
        let calls = [ToolCall::new("a", "{}").with_call_id("c1")];
        let stray = ToolResult::success("c2", ToolOutput::text("ok"));
        let error = function_responses(&calls, &[stray])
            .unwrap_err()
            .to_string();
        assert!(error.contains("`c2`"), "{error}");
    }
}

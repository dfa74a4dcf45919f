//! The two wire formats the agent speaks: OpenAI's chat completions and Anthropic's Messages
//! API, both streamed. Each says how the tools are declared (the dialect), how a request is
//! written, how a streamed turn is read back into text and calls (tool-core's provider
//! adapters), and how a turn and its results go back into the conversation.

use serde_json::{Value, json};
use tool_core::{
    ToolCall, ToolResult,
    provider::{anthropic, openai_chat},
    schema::{Dialect, Export, OpenAiApi},
};

use super::session::Failed;

/// A provider's wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// `POST /chat/completions`, `stream: true`.
    OpenAiChat,
    /// `POST /v1/messages`, `stream: true`.
    AnthropicMessages,
}

impl Wire {
    /// The dialect the tools are declared in.
    pub fn dialect(self) -> Dialect {
        match self {
            Wire::OpenAiChat => Dialect::OpenAi {
                strict: false,
                api: OpenAiApi::ChatCompletions,
            },
            Wire::AnthropicMessages => Dialect::Anthropic { strict: false },
        }
    }

    /// The request of the next turn: the conversation so far and the tools.
    pub fn request(self, system: &str, messages: &[Value], export: &Export) -> Value {
        match self {
            Wire::OpenAiChat => {
                let mut all = vec![json!({"role": "system", "content": system})];
                all.extend_from_slice(messages);
                json!({"stream": true, "messages": all, "tools": export.tools})
            }
            Wire::AnthropicMessages => json!({
                "stream": true,
                "max_tokens": 4096,
                "system": system,
                "messages": messages,
                "tools": export.tools,
            }),
        }
    }

    /// The text and the tool calls of one streamed turn (its `data:` lines).
    pub fn read_turn(
        self,
        stream: &str,
        names: &Export,
    ) -> Result<(String, Vec<ToolCall>), Failed> {
        let data = stream
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim);
        let mut text = String::new();
        // The adapters read tool calls only; the words the model streamed are read here.
        match self {
            Wire::OpenAiChat => {
                let mut calls = openai_chat::StreamAccumulator::new();
                for data in data {
                    calls.push_json(data)?;
                    if data != "[DONE]" {
                        let chunk: Value = serde_json::from_str(data)?;
                        if let Some(piece) = chunk["choices"][0]["delta"]["content"].as_str() {
                            text.push_str(piece);
                        }
                    }
                }
                Ok((text, calls.finish(names)?))
            }
            Wire::AnthropicMessages => {
                let mut calls = anthropic::StreamAccumulator::new();
                for data in data {
                    calls.push_json(data)?;
                    let event: Value = serde_json::from_str(data)?;
                    if event["type"] == "error" {
                        return Err(format!("the model's stream failed: {}", event["error"]).into());
                    }
                    if event["delta"]["type"] == "text_delta" {
                        text.push_str(event["delta"]["text"].as_str().unwrap_or_default());
                    }
                }
                Ok((text, calls.finish(names)))
            }
        }
    }

    /// The model's turn as the conversation sends it back.
    pub fn assistant(self, text: &str, calls: &[ToolCall]) -> Value {
        match self {
            Wire::OpenAiChat => {
                let mut message = json!({"role": "assistant", "content": text});
                if !calls.is_empty() {
                    message["tool_calls"] = calls
                        .iter()
                        .map(|call| {
                            json!({"id": call.call_id, "type": "function",
                                   "function": {"name": call.name, "arguments": call.arguments}})
                        })
                        .collect();
                }
                message
            }
            Wire::AnthropicMessages => {
                let mut content = Vec::new();
                if !text.is_empty() {
                    content.push(json!({"type": "text", "text": text}));
                }
                for call in calls {
                    let input: Value =
                        serde_json::from_str(&call.arguments).unwrap_or_else(|_| json!({}));
                    content.push(json!({"type": "tool_use", "id": call.call_id,
                                        "name": call.name, "input": input}));
                }
                json!({"role": "assistant", "content": content})
            }
        }
    }

    /// The messages answering a turn's calls.
    pub fn answers(self, results: &[ToolResult]) -> Result<Vec<Value>, Failed> {
        Ok(match self {
            Wire::OpenAiChat => openai_chat::tool_messages(results).messages(),
            Wire::AnthropicMessages => {
                vec![serde_json::to_value(anthropic::tool_results(results))?]
            }
        })
    }

    /// What the model reads of one result, as text.
    pub fn reads(self, result: &ToolResult) -> String {
        match self {
            Wire::OpenAiChat => openai_chat::tool_messages(std::slice::from_ref(result)).messages()
                [0]["content"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            // The error is a flag there, not a prefix; the transcript marks it with ✗.
            Wire::AnthropicMessages => result.text().into_owned(),
        }
    }
}

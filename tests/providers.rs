//! Provider adapters: tool calls out of each provider's payloads (whole and streamed), through
//! a coordinator, and the results back in the provider's shape. Recorded payloads live in
//! `tests/provider_fixtures/` (their README names where each came from).

use serde_json::{Value, json};
use tool_core::{
    Coordinator, Json, ToolCall, ToolOutput, ToolResult, Toolset,
    output::Content,
    provider::{Payload, SameNames, anthropic, gemini, openai_chat, openai_responses},
    tool,
};

/// Look up the weather in a city.
///
/// # Arguments
/// * `city` - The city.
/// * `country` - The country it is in.
/// * `units` - `c` or `f`.
#[tool(read_only, name = "pv_weather")]
fn weather(city: String, country: String, units: Option<String>) -> String {
    format!("{city}, {country}: 21 °{}", units.as_deref().unwrap_or("c"))
}

/// A stock's latest price.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Quote {
    ticker: String,
    price: f64,
}

/// Look up a stock's latest price.
///
/// # Arguments
/// * `ticker` - The ticker symbol.
/// * `exchange` - The exchange it trades on.
#[tool(read_only, name = "pv_stock_price")]
fn stock_price(ticker: String, exchange: String) -> Json<Quote> {
    let _ = exchange;
    Json(Quote {
        ticker,
        price: 227.5,
    })
}

/// Look up the weather at a place.
///
/// # Arguments
/// * `location` - The place.
/// * `unit` - `celsius` or `fahrenheit`.
#[tool(read_only, name = "pv_location_weather")]
fn location_weather(location: String, unit: Option<String>) -> String {
    format!("{location}: 21 {}", unit.as_deref().unwrap_or("celsius"))
}

/// Write lines to a file (never reached here: its calls arrive malformed).
///
/// # Arguments
/// * `filename` - The file.
/// * `lines_of_text` - The lines.
#[tool(read_only, name = "pv_make_file")]
fn make_file(filename: String, lines_of_text: Vec<String>) -> String {
    format!("{filename}: {} lines", lines_of_text.len())
}

/// Draw a chart of a series.
#[tool(read_only, name = "pv_chart")]
fn chart() -> ToolOutput {
    ToolOutput::text("the chart:").with_content(Content::Image {
        data: "iVBORw0KGgo=".into(),
        mime_type: "image/png".into(),
    })
}

/// The names the recorded payloads use, mapped to the tools that answer them here: the map a
/// schema exporter would hand the adapters.
fn fixture_names(sent: &str) -> Option<String> {
    let tool = match sent {
        "GetWeatherArgs" | "get_weather" => "pv_weather",
        "get_stock_price" => "pv_stock_price",
        "make_file" => "pv_make_file",
        _ => return None,
    };
    Some(tool.to_owned())
}

fn coordinator() -> Coordinator {
    Coordinator::builder()
        .toolset(
            Toolset::named([
                "pv_weather",
                "pv_stock_price",
                "pv_location_weather",
                "pv_make_file",
                "pv_chart",
            ])
            .unwrap(),
        )
        .build()
        .unwrap()
}

fn run(calls: Vec<ToolCall>) -> Vec<ToolResult> {
    let coordinator = coordinator();
    calls
        .into_iter()
        .map(|call| coordinator.call_blocking(call))
        .collect()
}

/// The `data` of each server-sent event of a recorded stream.
fn sse_data(stream: &str) -> Vec<&str> {
    stream
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .collect()
}

const OPENAI_CHAT_TWO_TOOLS: &str = include_str!("provider_fixtures/openai_chat_two_tools.sse");
const OPENAI_RESPONSES_TWO_CALLS: &str =
    include_str!("provider_fixtures/openai_responses_two_calls.sse");
const ANTHROPIC_TOOL_USE: &str = include_str!("provider_fixtures/anthropic_tool_use.sse");
const ANTHROPIC_CUT_AT_MAX_TOKENS: &str =
    include_str!("provider_fixtures/anthropic_incomplete_partial_json.sse");
const ANTHROPIC_INVALID_JSON: &str =
    include_str!("provider_fixtures/anthropic_tool_use_invalid_json.sse");

/// A Gemini 3 response with two parallel calls: no ids, and the signature on the first part
/// only, as Gemini's thought-signature documentation describes parallel calls.
fn gemini_parallel_calls() -> Value {
    json!({
        "candidates": [{
            "content": {"role": "model", "parts": [
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris", "country": "FR"}},
                 "thoughtSignature": "CiQBcsjafBq1Jz3sYxPmQ0kq6wK2uRkZq3lT0z9x1mNd3e2pVbU="},
                {"functionCall": {"name": "get_weather", "args": {"city": "London", "country": "UK"}}}
            ]},
            "finishReason": "STOP",
            "index": 0
        }],
        "usageMetadata": {"promptTokenCount": 87, "candidatesTokenCount": 40, "totalTokenCount": 127},
        "modelVersion": "gemini-3-pro-preview",
        "responseId": "n3wYaZ2bKqGvz7IP5e3OqQ4"
    })
}

// --- OpenAI chat completions ---

#[test]
fn an_openai_chat_stream_yields_each_call_with_its_id_and_joined_arguments() {
    let mut stream = openai_chat::StreamAccumulator::new();
    for data in sse_data(OPENAI_CHAT_TWO_TOOLS) {
        stream.push_json(data).unwrap();
    }
    let calls = stream.finish(&SameNames).unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].call_id, "call_lQnnsesjFMWMQ5IeWPHzR4th");
    assert_eq!(calls[0].name, "GetWeatherArgs");
    assert_eq!(
        calls[0].arguments,
        r#"{"city": "Edinburgh", "country": "UK", "units": "c"}"#
    );
    assert_eq!(calls[1].call_id, "call_2xjOUgaCdiwAcl9ZBL9LyMUU");
    assert_eq!(calls[1].name, "get_stock_price");
    assert_eq!(
        calls[1].arguments,
        r#"{"ticker": "AAPL", "exchange": "NASDAQ"}"#
    );
}

#[test]
fn interleaved_openai_chat_deltas_build_the_same_calls_as_sequential_ones() {
    let data = sse_data(OPENAI_CHAT_TWO_TOOLS);
    let mut sequential = openai_chat::StreamAccumulator::new();
    for chunk in &data {
        sequential.push_json(chunk).unwrap();
    }
    // The same chunks, the second call's fragments alternating with the first's.
    let (mut first, mut second) = (Vec::new(), Vec::new());
    for chunk in &data {
        if chunk.contains(r#""index":1,"#) {
            second.push(*chunk);
        } else {
            first.push(*chunk);
        }
    }
    assert!(
        second.len() > 5,
        "the fixture has a second call in fragments"
    );
    let mut interleaved_order = Vec::new();
    let mut second = second.into_iter();
    for chunk in first {
        interleaved_order.push(chunk);
        if chunk.contains("tool_calls") {
            interleaved_order.extend(second.next());
        }
    }
    interleaved_order.extend(second);
    assert_ne!(interleaved_order, data, "the order really changed");
    let mut interleaved = openai_chat::StreamAccumulator::new();
    for chunk in interleaved_order {
        interleaved.push_json(chunk).unwrap();
    }
    assert_eq!(
        interleaved.finish(&SameNames).unwrap(),
        sequential.finish(&SameNames).unwrap()
    );
}

#[test]
fn an_openai_chat_message_yields_its_calls_with_names_mapped_back() {
    // The final message of the same recording, as a non-streamed completion returns it.
    let completion = json!({
        "id": "chatcmpl-9tXjpPLJgivc9nyuBCCWX8HNg9L2J", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null, "message": {
            "role": "assistant", "content": null, "refusal": null,
            "tool_calls": [
                {"id": "call_lQnnsesjFMWMQ5IeWPHzR4th", "type": "function", "function":
                    {"name": "GetWeatherArgs", "arguments": "{\"city\": \"Edinburgh\", \"country\": \"UK\", \"units\": \"c\"}"}},
                {"id": "call_2xjOUgaCdiwAcl9ZBL9LyMUU", "type": "function", "function":
                    {"name": "get_stock_price", "arguments": "{\"ticker\": \"AAPL\", \"exchange\": \"NASDAQ\"}"}}
            ]
        }}]
    });
    let message =
        openai_chat::ChatMessage::from_value(&completion["choices"][0]["message"]).unwrap();
    let calls = openai_chat::tool_calls(&message, &fixture_names);
    let names: Vec<&str> = calls.iter().map(|call| call.name.as_str()).collect();
    assert_eq!(names, ["pv_weather", "pv_stock_price"]);
}

#[test]
fn an_openai_chat_round_trip_answers_each_call_with_a_tool_message() {
    let mut stream = openai_chat::StreamAccumulator::new();
    for data in sse_data(OPENAI_CHAT_TWO_TOOLS) {
        stream.push_json(data).unwrap();
    }
    let results = run(stream.finish(&fixture_names).unwrap());
    let messages = openai_chat::tool_messages(&results).messages();
    assert_eq!(
        messages,
        [
            json!({"role": "tool", "tool_call_id": "call_lQnnsesjFMWMQ5IeWPHzR4th", "content": "Edinburgh, UK: 21 °c"}),
            json!({"role": "tool", "tool_call_id": "call_2xjOUgaCdiwAcl9ZBL9LyMUU", "content": r#"{"ticker":"AAPL","price":227.5}"#}),
        ]
    );
}

#[test]
fn an_image_result_reaches_openai_chat_as_a_user_message_after_the_tool_messages() {
    let results = run(vec![
        ToolCall::new("pv_chart", "{}").with_call_id("call_chart"),
        ToolCall::new("pv_weather", r#"{"city": "Oslo", "country": "NO"}"#).with_call_id("call_w"),
    ]);
    let messages = openai_chat::tool_messages(&results).messages();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[0]["content"],
        "the chart:\n[image output (image/png) follows in the next user message]"
    );
    assert_eq!(messages[1]["tool_call_id"], "call_w");
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [
            {"type": "text", "text": "Images from tool call call_chart:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
        ]})
    );
}

// --- OpenAI responses ---

#[test]
fn an_openai_responses_stream_yields_its_function_calls_in_output_order() {
    let mut stream = openai_responses::StreamAccumulator::new();
    for data in sse_data(OPENAI_RESPONSES_TWO_CALLS) {
        stream.push_json(data).unwrap();
    }
    let calls = stream.finish(&SameNames);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].call_id, "call_Edb41");
    assert_eq!(calls[0].arguments, r#"{"city":"Edinburgh","country":"UK"}"#);
    assert_eq!(calls[0].provider_data, Some(json!({"id": "fc_01"})));
    assert_eq!(calls[1].call_id, "call_Aapl2");
    assert_eq!(calls[1].name, "get_stock_price");
}

#[test]
fn an_openai_responses_stream_cut_before_done_still_yields_its_calls() {
    let data = sse_data(OPENAI_RESPONSES_TWO_CALLS);
    let cut = data
        .iter()
        .position(|event| event.contains("response.function_call_arguments.done"))
        .unwrap();
    let mut stream = openai_responses::StreamAccumulator::new();
    for event in &data[..cut - 1] {
        stream.push_json(event).unwrap();
    }
    let calls = stream.finish(&fixture_names);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].arguments, r#"{"city":"Edinburgh","country":"UK"#);
    let result = run(calls).remove(0);
    assert!(result.is_error());
    assert!(
        result.text().contains("not valid JSON"),
        "{}",
        result.text()
    );
}

#[test]
fn an_openai_responses_round_trip_answers_each_call_with_a_function_call_output() {
    let response = openai_responses::Response::from_value(&json!({
        "id": "resp_1", "object": "response", "status": "completed", "model": "o3",
        "output": [
            {"id": "rs_01", "type": "reasoning", "summary": []},
            {"id": "fc_01", "type": "function_call", "status": "completed", "call_id": "call_Edb41",
             "name": "get_weather", "arguments": "{\"city\":\"Edinburgh\",\"country\":\"UK\"}"},
            {"id": "fc_02", "type": "function_call", "status": "completed", "call_id": "call_Aapl2",
             "name": "get_stock_price", "arguments": "{\"ticker\":\"AAPL\",\"exchange\":\"NASDAQ\"}"}
        ],
        "usage": {"input_tokens": 84, "output_tokens": 94, "total_tokens": 178}
    }))
    .unwrap();
    let results = run(openai_responses::tool_calls(&response, &fixture_names));
    assert_eq!(
        serde_json::to_value(openai_responses::function_call_outputs(&results)).unwrap(),
        json!([
            {"type": "function_call_output", "call_id": "call_Edb41", "output": "Edinburgh, UK: 21 °c"},
            {"type": "function_call_output", "call_id": "call_Aapl2", "output": r#"{"ticker":"AAPL","price":227.5}"#},
        ])
    );
}

// --- Anthropic ---

#[test]
fn an_anthropic_stream_joins_input_json_split_inside_a_key() {
    let mut stream = anthropic::StreamAccumulator::new();
    for data in sse_data(ANTHROPIC_TOOL_USE) {
        stream.push_json(data).unwrap();
    }
    let calls = stream.finish(&SameNames);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].call_id, "toolu_01NRLabsLyVHZPKxbKvkfSMn");
    assert_eq!(calls[0].name, "get_weather");
    assert_eq!(calls[0].arguments, r#"{"location": "Paris"}"#);
}

#[test]
fn an_anthropic_round_trip_answers_with_tool_result_blocks() {
    let mut stream = anthropic::StreamAccumulator::new();
    for data in sse_data(ANTHROPIC_TOOL_USE) {
        stream.push_json(data).unwrap();
    }
    let names = |sent: &str| (sent == "get_weather").then(|| "pv_location_weather".to_owned());
    let mut calls = stream.finish(&names);
    calls.push(ToolCall::new("pv_chart", "{}").with_call_id("toolu_chart"));
    let results = run(calls);
    assert_eq!(
        serde_json::to_value(anthropic::tool_results(&results)).unwrap(),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01NRLabsLyVHZPKxbKvkfSMn",
             "content": [{"type": "text", "text": "Paris: 21 celsius"}]},
            {"type": "tool_result", "tool_use_id": "toolu_chart", "content": [
                {"type": "text", "text": "the chart:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
            ]}
        ]})
    );
}

#[test]
fn an_anthropic_tool_use_cut_at_max_tokens_gets_an_error_result_saying_the_json_is_cut() {
    let mut stream = anthropic::StreamAccumulator::new();
    for data in sse_data(ANTHROPIC_CUT_AT_MAX_TOKENS) {
        stream.push_json(data).unwrap();
    }
    let calls = stream.finish(&fixture_names);
    assert_eq!(calls[0].name, "pv_make_file");
    let block = anthropic::tool_result(&run(calls).remove(0));
    let value = serde_json::to_value(&block).unwrap();
    assert_eq!(value["is_error"], true);
    let text = value["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("not valid JSON"), "{text}");
    assert!(text.contains("EOF while parsing"), "{text}");
    assert!(text.contains("send a JSON object like"), "{text}");
}

#[test]
fn an_anthropic_tool_use_with_invalid_json_gets_an_error_result_naming_the_spot() {
    let mut stream = anthropic::StreamAccumulator::new();
    for data in sse_data(ANTHROPIC_INVALID_JSON) {
        stream.push_json(data).unwrap();
    }
    let names = |sent: &str| (sent == "get_weather").then(|| "pv_location_weather".to_owned());
    let calls = stream.finish(&names);
    assert_eq!(
        calls[0].arguments,
        r#"{"location": "Paris", "unit": celsius}"#
    );
    let result = run(calls).remove(0);
    assert!(result.is_error());
    let text = result.text();
    assert!(text.contains("not valid JSON"), "{text}");
    assert!(text.contains("column"), "the message says where: {text}");
}

// --- Gemini ---

#[test]
fn two_parallel_gemini_calls_without_ids_get_distinct_ids_and_the_first_keeps_its_signature() {
    let response = gemini::GenerateContentResponse::from_value(&gemini_parallel_calls()).unwrap();
    let calls = gemini::tool_calls(&response, &SameNames);
    assert_eq!(calls.len(), 2);
    assert_ne!(calls[0].call_id, calls[1].call_id);
    assert!(!calls[0].call_id.is_empty() && !calls[1].call_id.is_empty());
    assert_eq!(calls[0].arguments, r#"{"city":"Paris","country":"FR"}"#);
    assert_eq!(
        calls[0].provider_data.as_ref().unwrap()["thoughtSignature"],
        "CiQBcsjafBq1Jz3sYxPmQ0kq6wK2uRkZq3lT0z9x1mNd3e2pVbU="
    );
    assert!(
        calls[1]
            .provider_data
            .as_ref()
            .unwrap()
            .get("thoughtSignature")
            .is_none()
    );
    assert_eq!(
        gemini::tool_calls(&response, &SameNames),
        calls,
        "parsing the response again gives the same ids"
    );
}

#[test]
fn a_gemini_round_trip_sends_back_the_signature_and_a_response_per_call() {
    let response = gemini::GenerateContentResponse::from_value(&gemini_parallel_calls()).unwrap();
    let calls = gemini::tool_calls(&response, &fixture_names);
    assert!(calls.iter().all(|call| call.name == "pv_weather"));
    let results = run(calls.clone());

    let model = serde_json::to_value(gemini::model_content(&calls)).unwrap();
    assert_eq!(
        model,
        gemini_parallel_calls()["candidates"][0]["content"],
        "the model's turn is rebuilt as Gemini sent it"
    );

    let reply =
        serde_json::to_value(gemini::function_responses(&calls, &results).unwrap()).unwrap();
    assert_eq!(
        reply,
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"output": "Paris, FR: 21 °c"}}},
            {"functionResponse": {"name": "get_weather", "response": {"output": "London, UK: 21 °c"}}}
        ]})
    );
}

#[test]
fn a_gemini_structured_result_is_the_response_object_and_an_error_is_under_error() {
    let response = gemini::GenerateContentResponse::from_value(&json!({"candidates": [{"content": {
        "role": "model", "parts": [
            {"functionCall": {"id": "fc_1", "name": "get_stock_price", "args": {"ticker": "AAPL", "exchange": "NASDAQ"}}},
            {"functionCall": {"id": "fc_2", "name": "get_stock_price", "args": {"ticker": "AAPL"}}}
        ]}}]}))
    .unwrap();
    let calls = gemini::tool_calls(&response, &fixture_names);
    let results = run(calls.clone());
    let reply =
        serde_json::to_value(gemini::function_responses(&calls, &results).unwrap()).unwrap();
    assert_eq!(
        reply["parts"][0]["functionResponse"],
        json!({"id": "fc_1", "name": "get_stock_price", "response": {"ticker": "AAPL", "price": 227.5}})
    );
    let error = reply["parts"][1]["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap();
    assert!(
        error.contains("exchange"),
        "the error names the missing argument: {error}"
    );
}

// --- Malformed arguments, every provider ---

#[test]
fn arguments_that_are_not_an_object_get_an_error_result_saying_what_to_send() {
    let message = openai_chat::ChatMessage::from_value(&json!({"role": "assistant", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "pv_weather", "arguments": "[\"Paris\"]"}}
    ]}))
    .unwrap();
    let result = run(openai_chat::tool_calls(&message, &SameNames)).remove(0);
    let reply = openai_chat::tool_messages(&[result]);
    let content = &reply.tool_messages[0].content;
    assert!(content.starts_with("Error: "), "{content}");
    assert!(
        content.contains("must be a JSON object, not an array"),
        "{content}"
    );
    assert!(
        content.contains(r#""city""#),
        "the message shows an object to send: {content}"
    );
}

#[test]
fn cut_arguments_get_an_error_result_in_every_providers_shape() {
    let cut = r#"{"city": "Par"#;
    let call = ToolCall::new("pv_weather", cut).with_call_id("call_1");
    let result = run(vec![call.clone()]).remove(0);
    assert!(result.is_error());

    let chat = openai_chat::tool_messages(std::slice::from_ref(&result));
    assert!(chat.tool_messages[0].content.contains("not valid JSON"));

    let responses = serde_json::to_value(openai_responses::function_call_output(&result)).unwrap();
    assert!(responses["output"].as_str().unwrap().starts_with("Error: "));

    let anthropic = serde_json::to_value(anthropic::tool_result(&result)).unwrap();
    assert_eq!(anthropic["is_error"], true);

    let gemini = serde_json::to_value(gemini::function_response(&call, &result)).unwrap();
    assert!(
        gemini["functionResponse"]["response"]["error"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
}

#[test]
fn a_payload_of_the_wrong_kind_is_an_error_naming_what_was_expected() {
    let error =
        anthropic::Message::from_value(&json!({"content": {"type": "tool_use"}})).unwrap_err();
    assert!(
        error.to_string().starts_with("not an Anthropic message: "),
        "{error}"
    );
    let error = openai_responses::StreamAccumulator::new()
        .push_json(r#"{"type":"response.output_item.added","output_index":"one"}"#)
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("not an OpenAI responses streaming event: "),
        "{error}"
    );
}

/// Check a one-time code (a name starting with a digit, which Gemini does not take as it is).
///
/// # Arguments
/// * `code` - The code.
/// * `window` - How many 30-second steps either side to accept.
#[tool(read_only, name = "2fa_verify")]
fn verify(code: String, #[arg(default = 1)] window: u32) -> String {
    format!("{code} within {window}")
}

#[test]
fn calls_parsed_with_the_export_come_back_under_our_names_and_reply_under_the_providers() {
    use tool_core::schema::{Dialect, GeminiForm};
    let toolset = Toolset::named(["2fa_verify"]).unwrap();
    let export = toolset.export(Dialect::Gemini {
        form: GeminiForm::JsonSchema,
    });
    let sent = export.names.provider("2fa_verify").unwrap().to_owned();
    assert_ne!(sent, "2fa_verify", "Gemini wants a letter or `_` first");
    let response = gemini::GenerateContentResponse::from_value(&json!({"candidates": [{
        "content": {"role": "model", "parts": [
            {"functionCall": {"name": sent, "args": {"code": "123456"}}}
        ]}
    }]}))
    .unwrap();
    let calls = gemini::tool_calls(&response, &export);
    assert_eq!(calls[0].name, "2fa_verify");
    let coordinator = Coordinator::builder().toolset(toolset).build().unwrap();
    let results = vec![coordinator.call_blocking(calls[0].clone())];
    assert_eq!(results[0].text(), "123456 within 1");
    let reply =
        serde_json::to_value(gemini::function_responses(&calls, &results).unwrap()).unwrap();
    assert_eq!(
        reply["parts"][0]["functionResponse"]["name"], sent,
        "the reply names the function as Gemini knows it"
    );
}

/// Move a window.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Window {
    /// Steps either side (1 when not given).
    #[serde(default = "one_step")]
    steps: u32,
}

fn one_step() -> u32 {
    1
}

/// Set the verification window.
///
/// # Arguments
/// * `window` - The window.
#[tool(read_only, name = "pv_set_window")]
fn set_window(window: Window) -> String {
    format!("steps: {}", window.steps)
}

#[test]
fn a_strict_models_null_for_a_nested_optional_field_reaches_the_tool_as_absent() {
    use tool_core::schema::{Dialect, OpenAiApi};
    let toolset = Toolset::named(["pv_set_window"]).unwrap();
    let export = toolset.export(Dialect::OpenAi {
        strict: true,
        api: OpenAiApi::Responses,
    });
    let response = openai_responses::Response::from_value(&json!({"output": [{
        "type": "function_call", "id": "fc_1", "call_id": "call_1",
        "name": "pv_set_window", "arguments": "{\"window\": {\"steps\": null}}"
    }]}))
    .unwrap();
    let calls = openai_responses::tool_calls(&response, &export);
    assert_eq!(calls[0].arguments, r#"{"window":{}}"#);
    let coordinator = Coordinator::builder().toolset(toolset).build().unwrap();
    assert_eq!(
        coordinator.call_blocking(calls[0].clone()).text(),
        "steps: 1"
    );
}

//! The answers to messages the server cannot take as they are, over any transport.
//!
//! A request rmcp could not parse as a method it knows reaches the server as a custom one,
//! and rmcp by default answers "method not found" naming the method: for `tools/call` with
//! `arguments` as a string, a client was told that `tools/call` does not exist (and over HTTP
//! the 404 reads as "session gone"). A method this server answers whose params are malformed
//! is invalid params (-32602), saying what is wrong and what would be right; any other method
//! is not found (-32601), as the 2026-07-28 protocol requires for the methods it removed
//! ([`unparsed_request`]).
//!
//! A message that is not JSON is a parse error (-32700); JSON that is no JSON-RPC message an
//! invalid request (-32600), to its `id` when it has one; a message over the size limit an
//! invalid request naming the limit ([`unreadable`], [`too_large`]).

use rmcp::model::{CallToolRequestParams, ErrorCode, ErrorData, RequestId};
use serde_json::Value;

/// The requests this server answers at both protocol versions, and those it answers only at
/// 2025-11-25 (2026-07-28 removed them: a request for one is not found there).
const SERVED: [&str; 4] = [
    "tools/list",
    "tools/call",
    "server/discover",
    "subscriptions/listen",
];
const SERVED_BEFORE_2026: [&str; 2] = ["initialize", "ping"];

/// The error for a request of `method` with `params` that rmcp could not parse; `stateless`
/// for a request of the 2026-07-28 protocol.
pub(super) fn unparsed_request(method: &str, params: Option<&Value>, stateless: bool) -> ErrorData {
    if method == "tools/call" {
        return ErrorData::invalid_params(call_problem(params), None);
    }
    if SERVED.contains(&method) || (!stateless && SERVED_BEFORE_2026.contains(&method)) {
        return ErrorData::invalid_params(
            format!(
                "the params of `{method}` are not the protocol's; check them against the MCP schema"
            ),
            None,
        );
    }
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("this server has no method `{method}`"),
        None,
    )
}

/// What is wrong with the params of a `tools/call`.
fn call_problem(params: Option<&Value>) -> String {
    const SHAPE: &str = r#"send {"name": "<tool>", "arguments": {...}}"#;
    let Some(Value::Object(params)) = params else {
        return format!(
            "`tools/call` needs its params as an object, got {}; {SHAPE}",
            kind(params)
        );
    };
    match params.get("name") {
        None => {
            return format!("`tools/call` params have no `name`: name the tool to call; {SHAPE}");
        }
        Some(Value::String(_)) => {}
        Some(other) => {
            return format!(
                "`name` in `tools/call` must be the tool's name as a string, got {}; {SHAPE}",
                kind(Some(other))
            );
        }
    }
    match params.get("arguments") {
        None | Some(Value::Object(_) | Value::Null) => {}
        Some(other) => {
            return format!(
                "`arguments` in `tools/call` must be an object of the tool's arguments, got {}; {SHAPE}",
                kind(Some(other))
            );
        }
    }
    match serde_json::from_value::<CallToolRequestParams>(Value::Object(params.clone())) {
        Err(error) => format!("the params of `tools/call` are malformed: {error}; {SHAPE}"),
        Ok(_) => format!("the params of `tools/call` are malformed; {SHAPE}"),
    }
}

/// A JSON value's kind, for a message; "none" when there is no value.
fn kind(value: Option<&Value>) -> &'static str {
    value.map_or("none", crate::definition::args::json_kind)
}

/// Why a line is not a message this server reads: the error to answer, and to which id.
pub(super) fn unreadable(line: &[u8]) -> Option<(ErrorData, Option<RequestId>)> {
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(error) => {
            return Some((
                ErrorData::parse_error(
                    format!(
                        "the line is not JSON ({error}); send one JSON-RPC message per line, such as {{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {{...}}}}"
                    ),
                    None,
                ),
                None,
            ));
        }
    };
    let id = value.get("id").and_then(request_id);
    let is_notification =
        value.get("method").is_some_and(Value::is_string) && value.get("id").is_none();
    if is_notification {
        // A notification is never answered, not even with an error.
        return None;
    }
    let shape = match &value {
        Value::Array(_) => {
            "a batch (a JSON array): MCP takes one message per line since 2025-06-18".to_owned()
        }
        Value::Object(_) => {
            "not a JSON-RPC request, response or notification: a request has `jsonrpc: \"2.0\"`, an `id` and a `method`".to_owned()
        }
        other => format!(
            "JSON {}, not a JSON-RPC message object",
            crate::definition::args::json_kind(other)
        ),
    };
    Some((
        ErrorData::invalid_request(format!("the message is {shape}"), None),
        id,
    ))
}

pub(super) fn request_id(value: &Value) -> Option<RequestId> {
    match value {
        Value::Number(number) => number.as_i64().map(RequestId::Number),
        Value::String(text) => Some(RequestId::String(text.as_str().into())),
        _ => None,
    }
}

/// The error for a message over `limit` bytes, which was not read.
pub(super) fn too_large(limit: usize) -> ErrorData {
    ErrorData::invalid_request(
        format!(
            "the message is over this server's limit of {} ({limit} bytes) and was not read; send less per call (a large file in parts), or raise the server's limit (`toolbox serve --max-message-bytes`, `McpServer::max_message_bytes`)",
            megabytes(limit)
        ),
        None,
    )
}

/// A byte count as a person says it: "16 MiB", "1.5 KiB", "900 bytes".
fn megabytes(bytes: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * KIB;
    #[allow(clippy::cast_precision_loss)] // shown to one decimal
    let (value, unit) = if bytes >= MIB {
        (bytes as f64 / MIB as f64, "MiB")
    } else if bytes >= KIB {
        (bytes as f64 / KIB as f64, "KiB")
    } else {
        return format!("{bytes} bytes");
    };
    let shown = format!("{value:.1}");
    format!("{} {unit}", shown.strip_suffix(".0").unwrap_or(&shown))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use rmcp::model::RequestId;

    use super::{megabytes, unparsed_request, unreadable};

    #[test]
    fn malformed_call_params_say_what_is_wrong() {
        for (params, says) in [
            (
                json!({"name": 5}),
                "`name` in `tools/call` must be the tool's name as a string, got a number",
            ),
            (
                json!({"name": "t", "arguments": "x"}),
                "`arguments` in `tools/call` must be an object of the tool's arguments, got a string",
            ),
            (
                json!({"arguments": {}}),
                "`tools/call` params have no `name`",
            ),
            (
                json!([1]),
                "`tools/call` needs its params as an object, got an array",
            ),
        ] {
            let error = unparsed_request("tools/call", Some(&params), true);
            assert_eq!(error.code.0, -32602);
            assert!(
                error.message.starts_with(says),
                "{params}: {}",
                error.message
            );
        }
        let error = unparsed_request("tools/call", None, false);
        assert!(error.message.contains("got none"), "{}", error.message);
    }

    #[test]
    fn a_method_this_server_lacks_is_not_found_and_named() {
        let error = unparsed_request("tools/frobnicate", None, false);
        assert_eq!(error.code.0, -32601);
        assert_eq!(
            error.message,
            "this server has no method `tools/frobnicate`"
        );
        assert_eq!(
            unparsed_request("prompts/get", Some(&json!(3)), false)
                .code
                .0,
            -32601
        );
        assert_eq!(
            unparsed_request("tools/list", Some(&json!(3)), true).code.0,
            -32602
        );
    }

    #[test]
    fn a_method_2026_07_28_removed_is_not_found_there() {
        assert_eq!(unparsed_request("initialize", None, true).code.0, -32601);
        assert_eq!(
            unparsed_request("initialize", Some(&json!(1)), false)
                .code
                .0,
            -32602
        );
    }

    #[test]
    fn a_line_that_is_not_json_is_a_parse_error_without_an_id() {
        let (error, id) = unreadable(b"hello").unwrap();
        assert_eq!(error.code, rmcp::model::ErrorCode::PARSE_ERROR);
        assert!(error.message.contains("not JSON"), "{}", error.message);
        assert_eq!(id, None);
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request_to_its_id() {
        let (error, id) = unreadable(br#"{"id": 4, "hello": true}"#).unwrap();
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_REQUEST);
        assert_eq!(id, Some(RequestId::Number(4)));
        let (error, _) = unreadable(b"[1, 2]").unwrap();
        assert!(error.message.contains("batch"), "{}", error.message);
    }

    #[test]
    fn an_unknown_notification_is_never_answered() {
        assert!(unreadable(br#"{"jsonrpc":"2.0","method":"$/progress","params":7}"#).is_none());
    }

    #[test]
    fn sizes_are_said_as_a_person_says_them() {
        assert_eq!(megabytes(16 * 1024 * 1024), "16 MiB");
        assert_eq!(megabytes(1536), "1.5 KiB");
        assert_eq!(megabytes(900), "900 bytes");
    }
}

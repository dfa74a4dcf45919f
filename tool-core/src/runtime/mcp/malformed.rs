//! The answer to a request that rmcp could not parse as a method it knows. rmcp hands such a
//! request to the server as a custom one, and by default answers "method not found" naming
//! the method: for `tools/call` with `arguments` as a string, a client was told that
//! `tools/call` does not exist (and over HTTP the 404 reads as "session gone"). A method this
//! server answers whose params are malformed is invalid params (-32602), saying what is wrong
//! and what would be right; any other method is not found (-32601), as the 2026-07-28
//! protocol requires for the methods it removed.

use rmcp::model::{CallToolRequestParams, ErrorCode, ErrorData};
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::unparsed_request;

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
}

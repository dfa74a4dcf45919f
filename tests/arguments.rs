//! Argument errors a model can act on: each names the JSON path and what was expected.

use tool_core::{
    Coordinator, ToolCall, ToolError, ToolResult, Toolset, WorkspacePath, error::ArgumentProblem,
    tool,
};

/// Read a file.
///
/// # Arguments
/// * `path` - The file.
/// * `offset` - First line.
#[tool(read_only, name = "args_read")]
fn read(path: WorkspacePath, offset: Option<u64>, #[arg(default = 50)] limit: u32) -> String {
    format!("{}|{offset:?}|{limit}", path.as_path().display())
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Edit {
    old: String,
    new: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Fast,
    Careful,
}

/// Apply edits.
#[tool(name = "args_edit")]
fn edit(edits: Vec<Edit>, mode: Mode) -> String {
    let changed = edits.iter().filter(|edit| edit.old != edit.new).count();
    let careful = matches!(mode, Mode::Careful);
    format!("{changed} edits (careful: {careful})")
}

/// Take nothing.
#[tool(read_only, name = "args_none")]
fn none() -> &'static str {
    "none"
}

fn call(name: &str, arguments: &str) -> ToolResult {
    let coordinator = Coordinator::builder()
        .approver(tool_core::approval::AutoApprove)
        .toolset(Toolset::named(["args_read", "args_edit", "args_none"]).unwrap())
        .build()
        .unwrap();
    coordinator.call_blocking(ToolCall::new(name, arguments))
}

fn problems(result: &ToolResult) -> Vec<(String, ArgumentProblem)> {
    match result.error() {
        Some(ToolError::InvalidArguments { errors, .. }) => errors
            .iter()
            .map(|e| (e.path.clone(), e.problem.clone()))
            .collect(),
        other => panic!("expected invalid arguments, got {other:?}"),
    }
}

#[test]
fn a_missing_field_names_it_and_its_type() {
    let result = call("args_read", r#"{"offset": 3}"#);
    assert_eq!(
        problems(&result),
        [(
            "$".into(),
            ArgumentProblem::Missing {
                field: "path".into(),
                expected: "a string".into()
            }
        )]
    );
    assert_eq!(
        result.text(),
        "invalid arguments for tool `args_read`: $: missing required argument `path` (a string)"
    );
}

#[test]
fn a_wrong_type_names_the_path_the_expectation_and_what_was_sent() {
    let result = call("args_read", r#"{"path": "a.rs", "offset": "three"}"#);
    assert_eq!(
        problems(&result),
        [(
            "$.offset".into(),
            ArgumentProblem::Invalid {
                expected: "an integer of at least 0".into(),
                found: "string \"three\"".into()
            }
        )]
    );
}

#[test]
fn an_unknown_field_suggests_the_closest_allowed_name() {
    let result = call("args_read", r#"{"file_path": "a.rs"}"#);
    assert!(
        result.text().contains("unknown argument `file_path`; did you mean `path`? (allowed: `path`, `offset`, `limit`)"),
        "{}",
        result.text()
    );
}

#[test]
fn the_one_missing_argument_is_offered_for_the_one_unknown_when_its_value_fits() {
    let result = call("args_read", r#"{"file": "a.rs"}"#);
    assert!(
        result
            .text()
            .contains("unknown argument `file`; did you mean `path`?"),
        "{}",
        result.text()
    );
}

#[test]
fn an_unknown_argument_whose_value_cannot_be_the_missing_one_gets_no_guess() {
    // A number cannot be the path: nothing suggests `nope` was meant as `path`.
    let result = call("args_read", r#"{"nope": 1}"#);
    let text = result.text();
    assert!(text.contains("unknown argument `nope`"), "{text}");
    assert!(!text.contains("did you mean"), "{text}");
    assert!(text.contains("missing required argument `path`"), "{text}");
}

#[test]
fn every_top_level_problem_is_reported_at_once() {
    let result = call("args_edit", r#"{"edit": []}"#);
    let found = problems(&result);
    assert!(found.iter().any(|(_, p)| matches!(p, ArgumentProblem::Unknown { field, suggestion: Some(s), .. } if field == "edit" && s == "edits")));
    assert!(
        found
            .iter()
            .any(|(_, p)| matches!(p, ArgumentProblem::Missing { field, .. } if field == "edits"))
    );
    assert!(
        found
            .iter()
            .any(|(_, p)| matches!(p, ArgumentProblem::Missing { field, .. } if field == "mode"))
    );
}

#[test]
fn a_nested_error_carries_the_full_json_path() {
    let result = call(
        "args_edit",
        r#"{"edits": [{"old": "a", "new": "b"}, {"old": "a", "neu": "b"}], "mode": "fast"}"#,
    );
    let found = problems(&result);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "$.edits[1]");
    assert!(
        matches!(&found[0].1, ArgumentProblem::Unknown { field, suggestion: Some(s), .. } if field == "neu" && s == "new"),
        "{found:?}"
    );
}

#[test]
fn a_bad_enum_value_lists_the_allowed_values() {
    let result = call("args_edit", r#"{"edits": [], "mode": "quick"}"#);
    assert_eq!(
        problems(&result),
        [(
            "$.mode".into(),
            ArgumentProblem::Invalid {
                expected: "one of \"fast\", \"careful\"".into(),
                found: "\"quick\"".into()
            }
        )]
    );
}

#[test]
fn invalid_json_says_so_and_shows_a_valid_call() {
    let result = call("args_read", r#"{"path": "a.rs""#);
    match &problems(&result)[0].1 {
        ArgumentProblem::Syntax { message, example } => {
            assert!(message.contains("EOF while parsing"), "{message}");
            assert_eq!(
                example,
                r#"{"path": <string>, "offset": <integer, optional>, "limit": <integer, optional>}"#
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn arguments_that_are_not_an_object_are_rejected() {
    let result = call("args_read", r#"["a.rs"]"#);
    assert!(
        matches!(&problems(&result)[0].1, ArgumentProblem::NotAnObject { found, .. } if found == "an array")
    );
}

#[test]
fn null_for_an_optional_field_means_absent() {
    assert_eq!(
        call("args_read", r#"{"path": "a", "offset": null}"#).text(),
        "a|None|50"
    );
}

#[test]
fn null_for_a_defaulted_field_means_the_default() {
    assert_eq!(
        call("args_read", r#"{"path": "a", "limit": null}"#).text(),
        "a|None|50"
    );
    assert_eq!(
        call("args_read", r#"{"path": "a", "limit": 7}"#).text(),
        "a|None|7"
    );
}

#[test]
fn null_for_a_required_field_is_a_type_error() {
    let result = call("args_read", r#"{"path": null}"#);
    assert_eq!(
        problems(&result),
        [(
            "$.path".into(),
            ArgumentProblem::Invalid {
                expected: "a string".into(),
                found: "null".into()
            }
        )]
    );
}

#[test]
fn empty_or_null_arguments_mean_no_arguments() {
    assert_eq!(call("args_none", "").text(), "none");
    assert_eq!(call("args_none", "null").text(), "none");
    assert_eq!(call("args_none", "  {} ").text(), "none");
    assert!(
        call("args_read", "")
            .text()
            .contains("missing required argument `path`")
    );
}

#[test]
fn a_tool_without_arguments_rejects_any() {
    let result = call("args_none", r#"{"x": 1}"#);
    assert!(
        result
            .text()
            .contains("unknown argument `x` (this tool takes no arguments)"),
        "{}",
        result.text()
    );
}

#[test]
fn a_missing_nested_field_is_reported_on_its_object() {
    let result = call(
        "args_edit",
        r#"{"edits": [{"old": "a", "new": "b"}, {"old": "x"}], "mode": "fast"}"#,
    );
    assert_eq!(
        problems(&result),
        [(
            "$.edits[1]".into(),
            ArgumentProblem::Missing {
                field: "new".into(),
                expected: "a string".into()
            }
        )]
    );
}

#[test]
fn brackets_and_escaped_quotes_inside_strings_do_not_confuse_the_path() {
    let arguments = r#"{"edits": [{"old": "}]\"[{,", "new": "{\"a\": [1, 2]}"}, {"old": "x", "new": 5}], "mode": "fast"}"#;
    let found = problems(&call("args_edit", arguments));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "$.edits[1].new");
}

#[test]
fn errors_in_multi_line_arguments_are_located() {
    let arguments = "{\n  \"edits\": [\n    {\"old\": \"a\", \"new\": \"b\"},\n    {\"old\": \"a\", \"new\": true}\n  ],\n  \"mode\": \"fast\"\n}";
    let found = problems(&call("args_edit", arguments));
    assert_eq!(found[0].0, "$.edits[1].new", "{found:?}");
    assert!(
        matches!(&found[0].1, ArgumentProblem::Invalid { expected, found } if expected == "a string" && found == "boolean `true`"),
        "{found:?}"
    );
}

/// Fetch a page.
#[tool(read_only, name = "args_fetch")]
fn fetch(url: tool_core::WebUrl) -> String {
    url.to_string()
}

#[test]
fn a_bad_url_says_what_was_sent_and_what_a_url_looks_like() {
    let coordinator = Coordinator::builder()
        .approver(tool_core::approval::AutoApprove)
        .toolset(Toolset::named(["args_fetch"]).unwrap())
        .build()
        .unwrap();
    let result = coordinator.call_blocking(ToolCall::new(
        "args_fetch",
        r#"{"url": "example.com/page"}"#,
    ));
    assert_eq!(
        result.text(),
        "invalid arguments for tool `args_fetch`: $.url: \"example.com/page\" is not a valid URL \
         (relative URL without a base); send an absolute URL such as \"https://example.com/page\""
    );
}

#[test]
fn a_wrong_type_for_a_list_or_one_of_its_elements_is_located() {
    let found = problems(&call("args_edit", r#"{"edits": "none", "mode": "fast"}"#));
    assert_eq!(found[0].0, "$.edits", "{found:?}");
    assert!(
        matches!(&found[0].1, ArgumentProblem::Invalid { expected, .. } if expected == "an array of objects"),
        "{found:?}"
    );
    let found = problems(&call(
        "args_edit",
        r#"{"edits": [{"old": "a", "new": "b"}, 7], "mode": "fast"}"#,
    ));
    assert_eq!(found[0].0, "$.edits[1]", "{found:?}");
    assert!(
        matches!(&found[0].1, ArgumentProblem::Invalid { expected, found } if expected == "an object" && found == "integer `7`"),
        "{found:?}"
    );
}

#[test]
fn a_number_out_of_range_names_the_range() {
    let found = problems(&call("args_read", r#"{"path": "a", "limit": 5000000000}"#));
    assert_eq!(found[0].0, "$.limit", "{found:?}");
    assert!(
        matches!(&found[0].1, ArgumentProblem::Invalid { expected, .. } if expected == "an integer from 0 to 4294967295"),
        "{found:?}"
    );
}

/// An argument type that is an `Option` under another name.
type Maybe = Option<u32>;

/// Count, with a `#[serde]` attribute of the user's own: the arguments' `Deserialize` is then
/// serde's derive, which reads it.
///
/// # Arguments
/// * `file` - The file, also accepted as `path`.
/// * `times` - How many times.
#[tool(read_only, name = "args_serde_alias")]
fn alias(#[serde(alias = "path")] file: String, times: Maybe) -> String {
    format!("{file} x{times:?}")
}

fn call_alias(arguments: &str) -> ToolResult {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["args_serde_alias"]).unwrap())
        .policy(tool_core::policy::PolicyBuilder::default().allow("args_serde_alias"))
        .build()
        .unwrap();
    coordinator.call_blocking(ToolCall::new("args_serde_alias", arguments))
}

#[test]
fn a_serde_attribute_on_an_argument_is_honoured() {
    assert_eq!(
        call_alias(r#"{"path": "a.txt", "times": 2}"#).text(),
        "a.txt xSome(2)"
    );
    assert_eq!(call_alias(r#"{"file": "a.txt"}"#).text(), "a.txt xNone");
}

#[test]
fn an_argument_given_twice_is_refused() {
    let result = call("args_read", r#"{"path": "a", "limit": 1, "limit": 2}"#);
    assert!(result.is_error(), "{}", result.text());
    assert!(
        result.text().contains("duplicate field `limit`"),
        "{}",
        result.text()
    );
}

#[test]
fn a_key_written_with_escapes_names_its_argument() {
    let result = call("args_read", r#"{"p\u0061th": "a", "\u006cimit": 7}"#);
    assert!(result.text().ends_with("|None|7"), "{}", result.text());
}

/// Take an optional count by another name for `Option`.
///
/// # Arguments
/// * `count` - How many.
#[tool(read_only, name = "args_maybe")]
fn maybe(count: Maybe) -> String {
    format!("{count:?}")
}

#[test]
fn an_option_under_another_name_may_be_left_out() {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["args_maybe"]).unwrap())
        .policy(tool_core::policy::PolicyBuilder::default().allow("args_maybe"))
        .build()
        .unwrap();
    let call = |arguments: &str| coordinator.call_blocking(ToolCall::new("args_maybe", arguments));
    assert_eq!(call("{}").text(), "None");
    assert_eq!(call(r#"{"count": null}"#).text(), "None");
    assert_eq!(call(r#"{"count": 3}"#).text(), "Some(3)");
}

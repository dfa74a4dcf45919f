//! `.mcp.json` as users write it: each key, `${VAR}` expansion, and what is refused.

use super::expand::{Unexpanded, expand};
use super::*;

fn env(variable: &str) -> Option<String> {
    match variable {
        "HOME" => Some("/home/ada".to_owned()),
        "TOKEN" => Some("s3cret".to_owned()),
        "EMPTY" => Some(String::new()),
        _ => None,
    }
}

fn parse(text: &str) -> Result<McpConfig, McpConfigError> {
    McpConfig::from_json_with(text, env)
}

#[test]
/// Issue 25: unknown keys are treated alike in every file; a misspelt key of Claude
/// Code's is a warning naming the key meant (it was an error here, a warning in settings).
fn a_misspelt_server_key_is_a_warning_naming_the_key_meant() {
    for (key, meant) in [
        ("comand", "command"),
        ("arg", "args"),
        ("URL", "url"),
        ("Headers", "headers"),
    ] {
        let text = format!(
            r#"{{"mcpServers": {{"files": {{"command": "x", "url": "http://h", "{key}": 1}}}}}}"#
        );
        let config = parse(&text).unwrap();
        let warnings: Vec<String> = config.warnings().iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [format!(
                ".mcp.json: `mcpServers.files.{key}`: not a key of a server, so it has no effect; did you mean `{meant}`?"
            )]
        );
    }
}

#[test]
fn a_server_whose_command_or_url_is_misspelt_is_an_error_naming_the_key_meant() {
    for (text, location, meant) in [
        (r#"{"comand": "x"}"#, "comand", "command"),
        (r#"{"type": "stdio", "comand": "x"}"#, "comand", "command"),
        (r#"{"URL": "http://h"}"#, "URL", "url"),
        (r#"{"type": "http", "ulr": "http://h"}"#, "ulr", "url"),
    ] {
        let text = format!(r#"{{"mcpServers": {{"files": {text}}}}}"#);
        let error = parse(&text).unwrap_err().to_string();
        assert!(
            error.contains(&format!(
                "`mcpServers.files.{location}` is not a key of a server"
            )) && error.ends_with(&format!("did you mean `{meant}`?")),
            "{error}"
        );
    }
}

#[test]
fn a_top_level_key_other_than_mcp_servers_is_a_warning() {
    let config = parse(r#"{"$schema": "s", "mcpServer": {"files": {"command": "x"}}}"#).unwrap();
    assert!(config.servers.is_empty());
    let warnings: Vec<String> = config.warnings().iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            ".mcp.json: `mcpServer`: not a key of a `.mcp.json` file, so it has no effect; did you mean `mcpServers`?"
        ]
    );
    let config = parse(r#"{"servers": {}, "inputs": []}"#).unwrap();
    assert_eq!(config.warnings().len(), 2, "{:?}", config.warnings());
}

#[test]
fn other_clients_server_keys_are_ignored() {
    let config = parse(
        r#"{"mcpServers": {"files": {"command": "x", "timeout": 5, "disabled": false,
            "envFile": ".env", "headersHelper": "h", "cwd": "/srv", "alwaysAllow": [],
            "autoApprove": [], "transportType": "stdio", "description": "d"}}}"#,
    )
    .unwrap();
    assert_eq!(config.servers.len(), 1);
    assert!(config.warnings().is_empty(), "{:?}", config.warnings());
}

#[test]
fn a_default_holding_another_reference_is_an_error_not_a_stray_brace() {
    assert_eq!(
        expand("${HOME:-${X:-/tmp}}", &env),
        Err(Unexpanded::Nested("${HOME:-${X:-/tmp}}".to_owned()))
    );
    let error = parse(r#"{"mcpServers": {"files": {"command": "x", "args": ["${HOME:-${X}}"]}}}"#)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("mcpServers.files.args[0]") && error.contains("may not hold another"),
        "{error}"
    );
}

#[test]
fn a_variable_is_replaced_by_its_value() {
    assert_eq!(expand("${HOME}/notes", &env).unwrap(), "/home/ada/notes");
}

#[test]
fn a_default_is_used_when_the_variable_is_unset_or_empty() {
    assert_eq!(expand("${NOPE:-warn}", &env).unwrap(), "warn");
    assert_eq!(expand("${EMPTY:-warn}", &env).unwrap(), "warn");
    assert_eq!(expand("${HOME:-/tmp}", &env).unwrap(), "/home/ada");
    assert_eq!(expand("${NOPE:-}", &env).unwrap(), "");
}

#[test]
fn a_set_but_empty_variable_without_default_is_empty() {
    assert_eq!(expand("a${EMPTY}b", &env).unwrap(), "ab");
}

#[test]
fn text_that_is_no_reference_stays_as_written() {
    assert_eq!(
        expand("$HOME and ${ and ${a b}", &env).unwrap(),
        "$HOME and ${ and ${a b}"
    );
    assert_eq!(expand("cost: $5", &env).unwrap(), "cost: $5");
}

#[test]
fn an_unset_variable_without_default_is_an_error_naming_server_field_and_variable() {
    let error = parse(
        r#"{"mcpServers": {"web": {"type": "http", "url": "http://x/mcp",
        "headers": {"Authorization": "Bearer ${WEB_TOKEN}"}}}}"#,
    )
    .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("`mcpServers.web.headers.Authorization`"),
        "{message}"
    );
    assert!(message.contains("`WEB_TOKEN` is not set"), "{message}");
}

#[test]
fn command_args_env_url_and_headers_are_expanded() {
    let config = parse(
        r#"{"mcpServers": {
            "files": {"command": "${HOME}/bin/files", "args": ["--root", "${HOME}"],
                      "env": {"LEVEL": "${LEVEL:-warn}"}, "timeout": 5},
            "web": {"type": "http", "url": "${URL:-http://127.0.0.1:1/mcp}",
                    "headers": {"Authorization": "Bearer ${TOKEN}"}}
        }}"#,
    )
    .unwrap();
    assert_eq!(
        config.servers,
        [
            McpServerConfig::stdio("files", "/home/ada/bin/files", ["--root", "/home/ada"])
                .env("LEVEL", "warn"),
            McpServerConfig::http("web", "http://127.0.0.1:1/mcp")
                .header("Authorization", "Bearer s3cret"),
        ]
    );
}

#[test]
fn a_url_without_type_is_http_and_unknown_fields_are_ignored() {
    let config =
        parse(r#"{"mcpServers": {"web": {"url": "https://x/mcp", "oauth": {}}}, "other": 1}"#)
            .unwrap();
    assert_eq!(
        config.servers,
        [McpServerConfig::http("web", "https://x/mcp")]
    );
}

#[test]
fn each_field_is_read_by_the_transport_that_uses_it_and_named_by_its_path() {
    // A stdio server has no use for headers, nor an http server for args: left alone.
    let config = parse(
        r#"{"mcpServers": {"a": {"command": "x", "headers": 5}, "b": {"url": "http://h", "args": 5}}}"#,
    )
    .unwrap();
    assert_eq!(config.servers.len(), 2);
    for (text, message) in [
        (
            r#"{"mcpServers": {"files": {"command": "x", "args": ["-v", true]}}}"#,
            "`mcpServers.files.args[1]` should be a string, but it is a boolean",
        ),
        (
            r#"{"mcpServers": {"files": {"command": "x", "env": {"LEVEL": 3}}}}"#,
            "`mcpServers.files.env.LEVEL` should be a string, but it is a number",
        ),
        (
            r#"{"mcpServers": {"files": {"command": "x", "env": ["LEVEL=3"]}}}"#,
            "`mcpServers.files.env` should be an object, but it is an array",
        ),
        (
            r#"{"mcpServers": "files"}"#,
            "`mcpServers` should be an object, but it is the string \"files\"",
        ),
        (
            r#"{"mcpServers": {"files": {"type": 1, "command": "x"}}}"#,
            "`mcpServers.files.type` should be a string, but it is a number",
        ),
    ] {
        let error = parse(text).unwrap_err().to_string();
        assert!(error.ends_with(message), "{text}: {error}");
    }
}

#[test]
fn a_wrongly_typed_field_is_an_error_naming_server_and_field() {
    let error =
        parse(r#"{"mcpServers": {"files": {"command": "x", "args": "--root"}}}"#).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("`mcpServers.files.args`"), "{message}");
    assert!(message.contains("an array of strings"), "{message}");
}

#[test]
fn a_server_with_neither_command_nor_url_is_an_error() {
    let error = parse(r#"{"mcpServers": {"odd": {"args": []}}}"#).unwrap_err();
    assert!(error.to_string().contains("`mcpServers.odd`"), "{error}");
}

#[test]
fn the_sse_transport_is_refused_with_what_to_use_instead() {
    let error =
        parse(r#"{"mcpServers": {"old": {"type": "sse", "url": "http://x/sse"}}}"#).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("`mcpServers.old.type`"), "{message}");
    assert!(message.contains("streamable HTTP"), "{message}");
}

#[test]
fn a_reserved_header_is_refused() {
    let error = parse(
        r#"{"mcpServers": {"web": {"type": "http", "url": "http://x", "headers": {"Mcp-Session-Id": "1"}}}}"#,
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("`mcpServers.web.headers.Mcp-Session-Id`"),
        "{error}"
    );
}

#[test]
fn a_syntax_error_gives_line_and_column() {
    let error = parse("{\n  \"mcpServers\": {,}\n}").unwrap_err();
    assert!(error.to_string().contains("line 2"), "{error}");
}

#[test]
fn trust_marks_the_named_servers_only() {
    let mut config =
        parse(r#"{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}"#).unwrap();
    config.trust(&["b"]);
    let trusted: Vec<bool> = config.servers.iter().map(|s| s.trusted).collect();
    assert_eq!(trusted, [false, true]);
    config.trust(&["*"]);
    assert!(config.servers.iter().all(|s| s.trusted));
}

#[test]
fn a_pinned_entry_trusts_its_name_only_with_its_command_or_url() {
    let mut config = McpConfig::from_json_with(
        r#"{"mcpServers": {
            "files": {"command": "mcp-files", "args": ["${ROOT}"]},
            "github": {"type": "http", "url": "https://evil.example/mcp"}
        }}"#,
        |name| (name == "ROOT").then(|| "/srv".to_owned()),
    )
    .unwrap();
    let settings = crate::settings::Settings::from_json(
        r#"{"toolkit": {"trustedMcpServers": [
            {"name": "files", "command": ["mcp-files", "/srv"]},
            {"name": "github", "url": "https://api.example.com/mcp"}
        ]}}"#,
    )
    .unwrap();
    config.trust(&settings.trusted_mcp_servers);
    let trusted: Vec<(&str, bool)> = config
        .servers
        .iter()
        .map(|server| (server.name.as_str(), server.trusted))
        .collect();
    assert_eq!(trusted, [("files", true), ("github", false)]);
}

#[test]
fn server_names_that_would_blur_rules_between_servers_are_refused() {
    for (config, wanted) in [
        (r#"{"git__hub": {"command": "x"}}"#, "`git__hub`"),
        (r#"{"git_": {"command": "x"}}"#, "`mcp__git__*`"),
        (r#"{"git?": {"command": "x"}}"#, "`git_`"),
        (
            r#"{"my files": {"command": "x"}, "my_files": {"command": "y"}}"#,
            "both `my_files`",
        ),
    ] {
        let error = parse(&format!(r#"{{"mcpServers": {config}}}"#))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(wanted) && error.contains("rename it"),
            "{config}: {error}"
        );
    }
    assert!(parse(r#"{"mcpServers": {"my-files_2": {"command": "x"}}}"#).is_ok());
}

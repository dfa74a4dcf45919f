//! `toolbox serve` on stdio, spoken to in raw JSON-RPC: what the Python SDK's tests do not
//! reach, such as a client cancelling a running call.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

mod peers;
use peers::{node_package, running, wait_until};

/// `toolbox serve` over `workspace`, initialized at 2025-11-25: the server, where to write to
/// it (a line each) and where to read its answers.
fn initialized_server(
    workspace: &std::path::Path,
) -> (
    std::process::Child,
    impl FnMut(&str),
    BufReader<std::process::ChildStdout>,
) {
    initialized_server_with(workspace, &[])
}

/// [`initialized_server`], started with `extra` arguments.
fn initialized_server_with(
    workspace: &std::path::Path,
    extra: &[&str],
) -> (
    std::process::Child,
    impl FnMut(&str),
    BufReader<std::process::ChildStdout>,
) {
    let mut server = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["serve", "--workspace"])
        .arg(workspace)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut to_server = server.stdin.take().unwrap();
    let mut from_server = BufReader::new(server.stdout.take().unwrap());
    let mut send = move |message: &str| {
        to_server.write_all(message.as_bytes()).unwrap();
        to_server.write_all(b"\n").unwrap();
        to_server.flush().unwrap();
    };
    send(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
    );
    let mut line = String::new();
    from_server.read_line(&mut line).unwrap();
    assert!(line.contains("\"protocolVersion\""), "{line}");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    (server, send, from_server)
}

#[test]
fn a_client_cancelling_a_call_stops_the_command_it_runs() {
    let workspace = tempfile::tempdir().unwrap();
    let (mut server, mut send, _answers) = initialized_server(workspace.path());

    // A read-only command (so the policy runs it without asking), with a marker no other
    // process has: a sleep of an odd length.
    let marker = "sleep 41.3";
    send(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"run_shell","arguments":{{"command":"{marker}"}}}}}}"#
    ));
    wait_until("the command runs", || running(marker));
    send(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user pressed stop"}}"#,
    );
    wait_until("the cancelled command is gone", || !running(marker));

    drop(send);
    let status = server.wait().unwrap();
    assert!(
        status.success(),
        "the server ends when its client closes stdin: {status}"
    );
}

/// Found by exploratory runs: a `tools/call` whose params were malformed (`arguments` a string,
/// `name` a number) was answered "method not found" with the message `tools/call`.
#[test]
fn a_malformed_call_is_invalid_params_saying_what_is_wrong() {
    let workspace = tempfile::tempdir().unwrap();
    let (mut server, mut send, mut answers) = initialized_server(workspace.path());
    let mut exchange = |message: &str| {
        send(message);
        let mut line = String::new();
        answers.read_line(&mut line).unwrap();
        serde_json::from_str::<serde_json::Value>(&line).unwrap()
    };
    for (id, params, says) in [
        (
            2,
            r#"{"name":"think","arguments":"x"}"#,
            "`arguments` in `tools/call` must be an object",
        ),
        (
            3,
            r#"{"name":5}"#,
            "`name` in `tools/call` must be the tool's name as a string",
        ),
    ] {
        let answer = exchange(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#
        ));
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(says), "{message}");
    }
    drop(send); // stdin closes, and the server ends
    server.wait().unwrap();
}

/// Found by an exploratory run: `subtask` and `web_search` were served though every call of
/// them fails under `toolbox` (nothing there can give them a model or a search engine).
#[test]
fn tools_that_need_an_application_are_not_served() {
    let workspace = tempfile::tempdir().unwrap();
    let (mut server, mut send, mut answers) = initialized_server(workspace.path());
    send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#);
    let mut line = String::new();
    answers.read_line(&mut line).unwrap();
    let list: serde_json::Value = serde_json::from_str(&line).unwrap();
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"read_file") && names.contains(&"run_shell"),
        "{names:?}"
    );
    assert!(
        !names.contains(&"subtask") && !names.contains(&"web_search"),
        "{names:?}"
    );
    drop(send);
    server.wait().unwrap();
}

/// Found by an exploratory run: a read-only server answered a call of `write_file` with
/// "unknown tool `write_file`, did you mean `read_file`?".
#[test]
fn a_tool_the_server_leaves_out_is_called_unavailable_with_the_reason() {
    let workspace = tempfile::tempdir().unwrap();
    let (mut server, mut send, mut answers) =
        initialized_server_with(workspace.path(), &["--read-only"]);
    let mut call = |id: u32, tool: &str| -> serde_json::Value {
        send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
        ));
        let mut line = String::new();
        answers.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let answer = call(2, "write_file");
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`write_file` is not available here")
            && message.contains("toolbox serve --read-only"),
        "{message}"
    );
    // By an alias too.
    let answer = call(3, "Write");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`Write` is not available here"),
        "{answer}"
    );
    let answer = call(4, "subtask");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("only an application linking tool-std"),
        "{answer}"
    );
    drop(send);
    server.wait().unwrap();
}

/// Issue 27: every `tools/list` made the TypeScript SDK warn of formats it does not know
/// (`uint64`), and the Inspector's `--strict` found 12 portability problems over 6 tools (type
/// lists for "or null", a property that says nothing of its value). Every tool's schemas, in
/// and out, pass the Inspector CLI's `--strict` with nothing to report.
#[test]
fn the_inspectors_strict_check_finds_nothing_to_report_in_any_tool() {
    let Some((node, inspector)) =
        node_package("@modelcontextprotocol/inspector/clients/launcher/build/index.js")
    else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let output = Command::new(node)
        .arg(inspector)
        .args(["--cli", "--strict", "--method", "tools/list", "--cwd"])
        .arg(workspace.path())
        .arg(env!("CARGO_BIN_EXE_toolbox"))
        .args(["serve", "--workspace"])
        .arg(workspace.path())
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stderr}");
    let listed: serde_json::Value = serde_json::from_str(&stdout).expect("the tools, as JSON");
    let tools = listed["tools"].as_array().unwrap();
    assert!(tools.len() >= 20, "{} tools", tools.len());
    assert!(
        !stderr.contains("Warning") && !stderr.contains("Error") && !stderr.contains("warnings"),
        "the Inspector reported problems:\n{stderr}"
    );
}

/// The next line the server writes, as JSON.
fn answer(from_server: &mut BufReader<std::process::ChildStdout>) -> serde_json::Value {
    let mut line = String::new();
    from_server.read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|error| panic!("{error}: {line:?}"))
}

/// A `tools/list` with `id`, answered: the session still serves.
fn still_serves(
    send: &mut impl FnMut(&str),
    from_server: &mut BufReader<std::process::ChildStdout>,
    id: u32,
) {
    send(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#
    ));
    let list = answer(from_server);
    assert_eq!(list["id"], id, "{list}");
    assert!(list["result"]["tools"].is_array(), "{list}");
}

#[test]
fn a_line_that_is_not_json_is_answered_with_a_parse_error_and_the_session_goes_on() {
    let workspace = tempfile::tempdir().unwrap();
    let (_server, mut send, mut answers) = initialized_server(workspace.path());
    send("this is not json {");
    let error = answer(&mut answers);
    assert_eq!(error["error"]["code"], -32700, "{error}");
    assert!(
        error.get("id").is_none_or(serde_json::Value::is_null),
        "{error}"
    );
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("one JSON-RPC message per line"),
        "{error}"
    );
    still_serves(&mut send, &mut answers, 2);
}

#[test]
fn json_that_is_no_message_is_an_invalid_request_answered_to_its_id() {
    let workspace = tempfile::tempdir().unwrap();
    let (_server, mut send, mut answers) = initialized_server(workspace.path());
    send(r#"{"id": 5, "greeting": "hello"}"#);
    let error = answer(&mut answers);
    assert_eq!(error["error"]["code"], -32600, "{error}");
    assert_eq!(error["id"], 5, "{error}");
    send(r#"[{"jsonrpc":"2.0","id":6,"method":"tools/list"}]"#);
    let error = answer(&mut answers);
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("batch"),
        "{error}"
    );
    // A notification nobody here knows is not answered at all: the next answer is the list's.
    send(r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#);
    still_serves(&mut send, &mut answers, 7);
}

#[test]
fn an_oversized_message_is_answered_to_its_id_naming_the_limit_and_the_session_goes_on() {
    let workspace = tempfile::tempdir().unwrap();
    let (_server, mut send, mut answers) =
        initialized_server_with(workspace.path(), &["--max-message-bytes", "4K"]);
    let content = "x".repeat(100_000);
    // The id first (as rmcp and the Python SDK write it), then last (as the TypeScript SDK
    // writes it): answered to that id either way.
    send(&format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"write_file","arguments":{{"path":"big.txt","content":"{content}"}}}}}}"#
    ));
    send(&format!(
        r#"{{"method":"tools/call","params":{{"name":"write_file","arguments":{{"path":"big.txt","content":"{content}"}}}},"jsonrpc":"2.0","id":"last"}}"#
    ));
    for id in [serde_json::json!(7), serde_json::json!("last")] {
        let error = answer(&mut answers);
        assert_eq!(error["id"], id, "{error}");
        assert_eq!(error["error"]["code"], -32600, "{error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("limit of 4 KiB") && message.contains("--max-message-bytes"),
            "{message}"
        );
    }
    assert!(
        !workspace.path().join("big.txt").exists(),
        "a message not read is not acted on"
    );
    still_serves(&mut send, &mut answers, 8);
}

/// `toolbox serve` not yet spoken to: the process, with stdin, stdout and stderr piped.
fn unspoken_server(workspace: &std::path::Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["serve", "--workspace"])
        .arg(workspace)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_client_that_leaves_before_initialize_ends_the_server_quietly_with_0() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = unspoken_server(workspace.path());
    drop(server.stdin.take());
    let output = server.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stdout.is_empty() && output.stderr.is_empty(),
        "{output:?}"
    );
}

// A request before any `initialize` is not in this class: at 2026-07-28 there is no handshake,
// and rmcp answers such a request as that protocol's (its `_meta` named as missing).
#[test]
fn a_client_that_speaks_no_mcp_ends_the_server_with_2_and_one_sentence() {
    for (sent, says) in [
        ("hello\n", "it sent `hello`"),
        (
            "{\"greeting\": \"hi\"}\n",
            "it sent `{\"greeting\": \"hi\"}`",
        ),
    ] {
        let workspace = tempfile::tempdir().unwrap();
        let mut server = unspoken_server(workspace.path());
        let mut stdin = server.stdin.take().unwrap();
        stdin.write_all(sent.as_bytes()).unwrap();
        drop(stdin);
        let output = server.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{sent:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains(says) && stderr.contains("toolbox call"),
            "{sent:?}: {stderr}"
        );
    }
}

#[test]
fn toolbox_serve_names_itself_toolbox_to_its_client() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = unspoken_server(workspace.path());
    let mut stdin = server.stdin.take().unwrap();
    stdin
        .write_all(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#)
        .unwrap();
    stdin.write_all(b"\n").unwrap();
    let mut answers = BufReader::new(server.stdout.take().unwrap());
    let initialized = answer(&mut answers);
    assert_eq!(
        initialized["result"]["serverInfo"]["name"], "toolbox",
        "{initialized}"
    );
    drop(stdin);
    assert!(server.wait().unwrap().success());
}

#[test]
fn an_imported_tool_hidden_by_read_only_is_refused_saying_why() {
    let workspace = tempfile::tempdir().unwrap();
    let config = workspace.path().join("inner.mcp.json");
    let inner = serde_json::json!({"mcpServers": {"inner": {
        "command": env!("CARGO_BIN_EXE_toolbox"),
        "args": ["serve", "--workspace", workspace.path()],
    }}});
    std::fs::write(&config, inner.to_string()).unwrap();
    // Trusted, so its read-only tools keep their read-only annotation (and are served).
    let settings = workspace.path().join("settings.json");
    std::fs::write(
        &settings,
        r#"{"toolkit": {"trustedMcpServers": ["inner"]}}"#,
    )
    .unwrap();
    let flags = [
        "--read-only",
        "--mcp-config",
        config.to_str().unwrap(),
        "--settings",
        settings.to_str().unwrap(),
    ];
    let (_server, mut send, mut answers) = initialized_server_with(workspace.path(), &flags);
    send(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__inner__write_file","arguments":{"path":"x.txt","content":"x"}}}"#,
    );
    let refused = answer(&mut answers).to_string();
    assert!(
        refused.contains("serves only read-only tools") && !refused.contains("did you mean"),
        "{refused}"
    );
    assert!(!workspace.path().join("x.txt").exists());
    // Not listed, as before.
    send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#);
    let list = answer(&mut answers).to_string();
    assert!(
        list.contains("mcp__inner__read_file"),
        "the read-only imports are served"
    );
    assert!(!list.contains("mcp__inner__write_file"), "{list}");
}

/// The names `tools/list` gives over a server started with `flags`.
fn listed_with(flags: &[&str]) -> Vec<String> {
    let workspace = tempfile::tempdir().unwrap();
    let (_server, mut send, mut answers) = initialized_server_with(workspace.path(), flags);
    send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    let list = answer(&mut answers);
    let mut names: Vec<String> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn serve_tags_fs_serves_the_file_tools_alone() {
    let names = listed_with(&["--tags", "fs"]);
    assert_eq!(
        names,
        [
            "apply_patch",
            "edit_file",
            "glob",
            "grep",
            "hashline_edit",
            "list_dir",
            "multi_edit",
            "read_file",
            "repo_map",
            "write_file"
        ]
    );
}

#[test]
fn serve_tools_serves_the_tools_named_by_name_or_alias() {
    assert_eq!(
        listed_with(&["--tools", "read_file,Grep"]),
        ["grep", "read_file"]
    );
    // With --tags too: both sets.
    assert_eq!(
        listed_with(&["--tools", "think", "--tags", "shell", "--read-only"]),
        ["list_shells", "shell_output", "think"]
    );
}

#[test]
fn a_tool_serve_was_not_started_with_is_refused_saying_why() {
    let workspace = tempfile::tempdir().unwrap();
    let (_server, mut send, mut answers) =
        initialized_server_with(workspace.path(), &["--tags", "fs"]);
    send(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_shell","arguments":{"command":"touch made"}}}"#,
    );
    let refused = answer(&mut answers).to_string();
    assert!(refused.contains("--tags"), "{refused}");
    assert!(!workspace.path().join("made").exists());
}

#[test]
fn serve_with_an_unknown_tool_or_tag_is_a_setup_error_naming_it() {
    let workspace = tempfile::tempdir().unwrap();
    for (flags, says) in [
        (["--tools", "read_fil"], "did you mean `read_file`?"),
        (["--tags", "files"], "the tags are"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_toolbox"))
            .args(["serve", "--workspace"])
            .arg(workspace.path())
            .args(flags)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{stderr}");
        assert!(stderr.contains(says), "{flags:?}: {stderr}");
    }
}

#[test]
fn a_message_of_exactly_the_limit_is_read_and_one_byte_more_is_not() {
    let workspace = tempfile::tempdir().unwrap();
    let (_server, mut send, mut answers) =
        initialized_server_with(workspace.path(), &["--max-message-bytes", "4K"]);
    let message = |id: u32, length: usize| {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"think","arguments":{{"thought":""}}}}}}"#
        );
        let padded = frame.replacen(
            r#""thought":"""#,
            &format!(r#""thought":"{}""#, "x".repeat(length - frame.len())),
            1,
        );
        assert_eq!(padded.len(), length);
        padded
    };
    send(&message(7, 4096));
    let read = answer(&mut answers);
    assert_eq!(read["id"], 7, "{read}");
    assert!(
        read.get("result").is_some(),
        "the 4096-byte message is read: {read}"
    );
    send(&message(8, 4097));
    let refused = answer(&mut answers);
    assert_eq!(refused["id"], 8, "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    still_serves(&mut send, &mut answers, 9);
}

#[test]
fn every_protocol_version_a_client_may_ask_for_initializes_and_lists_the_tools() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let workspace = tempfile::tempdir().unwrap();
        let mut server = unspoken_server(workspace.path());
        let mut stdin = server.stdin.take().unwrap();
        let mut answers = BufReader::new(server.stdout.take().unwrap());
        let mut send = |message: String| {
            stdin.write_all(message.as_bytes()).unwrap();
            stdin.write_all(b"\n").unwrap();
            stdin.flush().unwrap();
        };
        send(format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"test","version":"1"}}}}}}"#
        ));
        let initialized = answer(&mut answers);
        assert_eq!(
            initialized["result"]["protocolVersion"], version,
            "{initialized}"
        );
        send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned());
        send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.to_owned());
        let listed = answer(&mut answers);
        let tools = listed["result"]["tools"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(
            tools.iter().any(|tool| tool["name"] == "read_file"),
            "{version}: {listed}"
        );
        drop(stdin);
        assert!(server.wait().unwrap().success(), "{version}");
    }
}

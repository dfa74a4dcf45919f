//! MCP over streamable HTTP: `toolbox serve --http` with the official Python SDK (`mcp` 2.3) as
//! its client, in its automatic mode (protocol 2026-07-28, stateless) and its legacy mode
//! (2025-11-25, the `initialize` handshake), through a bearer token; the Origin and bearer
//! checks spoken to in raw HTTP/1.1; and a client closing its response stream cancelling the
//! tool's token (an in-process server over a tool that waits for it).
//!
//! The SDK is found as in `mcp_python.rs`: `TOOLKIT_MCP_PYTHON`, or `target/mcp-venv`; without
//! it the Python tests say so and pass, unless `TOOLKIT_REQUIRE_MCP_CLIENTS` is set.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::sync::Notify;
use tool_core::context::CancellationToken;
use tool_core::mcp::{HttpOptions, HttpServer};
use tool_core::{Coordinator, State, Toolset, tool};

mod peers;
use peers::{python, running, script_passed, wait_until};

const TOKEN_VAR: &str = "TOOLKIT_TEST_MCP_TOKEN";

/// `toolbox serve --http 127.0.0.1:0 ...`, killed on drop.
struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`, as the server printed it.
    url: String,
    /// The workspace the server made for itself, if it did.
    _workspace: Option<tempfile::TempDir>,
}

impl Served {
    fn start(extra: &[&str], token: Option<&str>) -> Served {
        let workspace = tempfile::tempdir().unwrap();
        std::fs::write(workspace.path().join("notes.md"), "# Notes\nbuy milk\n").unwrap();
        let mut env = Vec::new();
        let mut args = extra.to_vec();
        if let Some(token) = token {
            env.push((TOKEN_VAR, token));
            args.extend(["--token-env", TOKEN_VAR]);
        }
        let mut served = Served::over(workspace.path(), &args, &env);
        served._workspace = Some(workspace);
        served
    }

    /// `toolbox serve --http` over `workspace` (which the caller keeps), with `env` set.
    fn over(workspace: &Path, extra: &[&str], env: &[(&str, &str)]) -> Served {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolbox"));
        command
            .args(["serve", "--http", "127.0.0.1:0", "--workspace"])
            .arg(workspace)
            .args(extra)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let url = line
            .trim()
            .strip_prefix("toolbox: serving MCP at ")
            .unwrap_or_else(|| panic!("no URL on stderr: {line:?}"))
            .to_owned();
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Served {
            child,
            url,
            _workspace: None,
        }
    }

    /// `127.0.0.1:PORT`.
    fn authority(&self) -> &str {
        let rest = self.url.strip_prefix("http://").unwrap();
        &rest[..rest.find('/').unwrap()]
    }

    /// POSTs an MCP 2025-11-25 `initialize` with `headers`, as raw HTTP/1.1: the status and the
    /// response's headers (names in lower case) and body.
    fn initialize(&self, headers: &[(&str, &str)]) -> Response {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
        let mut stream = self.post(body, headers);
        let mut raw = String::new();
        stream.read_to_string(&mut raw).unwrap();
        Response::parse(&raw)
    }

    /// POSTs `body` (`Content-Type: application/json`) and reads the whole response.
    fn exchange(&self, body: &str) -> Response {
        let mut stream = self.post(body, &[]);
        let mut raw = String::new();
        stream.read_to_string(&mut raw).unwrap();
        Response::parse(&raw)
    }

    /// Sends `body` as a JSON-RPC POST (with `Host: 127.0.0.1:PORT` unless `headers` name
    /// one), and returns the connection to read the response from.
    fn post(&self, body: &str, headers: &[(&str, &str)]) -> TcpStream {
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("host"))
        {
            request.push_str(&format!("Host: {}\r\n", self.authority()));
        }
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        let mut stream = TcpStream::connect(self.authority()).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        stream
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Response {
    fn parse(raw: &str) -> Response {
        let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|line| line.split(' ').nth(1))
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP response: {raw:?}"));
        let headers = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
            .collect();
        Response {
            status,
            headers,
            body: body.to_owned(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, value)| value.as_str())
    }

    fn assert_initialized(&self) {
        assert_eq!(self.status, 200, "{}", self.body);
        assert!(
            self.body.contains(r#""protocolVersion":"2025-11-25""#),
            "{}",
            self.body
        );
    }
}

fn run_python_client(mode: &str) {
    let Some(python) = python() else { return };
    let token = "python-sdk-token";
    let served = Served::start(&[], Some(token));
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client_http.py");
    let output = Command::new(python)
        .arg(script)
        .args([served.url.as_str(), mode, token])
        .output()
        .expect("python runs");
    script_passed(
        &output,
        &[
            "ok protocol",
            "ok list",
            "ok call",
            "ok structured",
            "ok tool error",
            "ok unknown tool",
        ],
    );
}

#[test]
fn the_python_sdk_lists_and_calls_over_http_at_2026_07_28() {
    run_python_client("auto");
}

#[test]
fn the_python_sdk_lists_and_calls_over_http_at_2025_11_25() {
    run_python_client("legacy");
}

/// Progress and approvals over HTTP, in `mode`, with three servers over one workspace: two
/// sharing an approval-state key (instances behind one address) and one with a key of its own.
fn run_python_approvals(mode: &str) -> String {
    let Some(python) = python() else {
        return String::new();
    };
    let workspace = tempfile::tempdir().unwrap();
    let shared = [(
        "TOOLBOX_TEST_STATE_KEY",
        "a key of thirty-two bytes or more, shared",
    )];
    let key = ["--state-key-env", "TOOLBOX_TEST_STATE_KEY"];
    let a = Served::over(workspace.path(), &key, &shared);
    let b = Served::over(workspace.path(), &key, &shared);
    let other = Served::over(workspace.path(), &[], &[]);
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/approvals_http.py");
    let output = Command::new(python)
        .arg(script)
        .arg(mode)
        .arg(workspace.path())
        .args([a.url.as_str(), b.url.as_str(), other.url.as_str()])
        .output()
        .expect("python runs");
    script_passed(&output, &["ok progress"])
}

#[test]
fn the_python_sdk_gets_progress_and_answers_approvals_over_http_at_2026_07_28() {
    let stdout = run_python_approvals("auto");
    if stdout.is_empty() {
        return;
    }
    for check in [
        "ok elicitation accepted",
        "ok elicitation rejected with guidance",
        "ok another key refused",
        "ok round trip across instances",
    ] {
        assert!(stdout.contains(check), "`{check}` missing:\n{stdout}");
    }
}

#[test]
fn over_http_a_2025_11_25_client_gets_progress_and_is_told_why_it_cannot_be_asked() {
    let stdout = run_python_approvals("legacy");
    if !stdout.is_empty() {
        assert!(
            stdout.contains("ok legacy refused over stateless HTTP"),
            "{stdout}"
        );
    }
}

#[test]
fn a_state_key_shorter_than_32_bytes_is_a_set_up_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--state-key-env",
            "TOOLBOX_TEST_SHORT_KEY",
        ])
        .env("TOOLBOX_TEST_SHORT_KEY", "short")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--state-key-env TOOLBOX_TEST_SHORT_KEY") && stderr.contains("32"),
        "{stderr}"
    );
}

#[test]
fn a_request_from_a_foreign_origin_is_forbidden() {
    let served = Served::start(&[], None);
    let response = served.initialize(&[("Origin", "https://evil.example")]);
    assert_eq!(response.status, 403, "{}", response.body);
}

#[test]
fn a_request_from_a_loopback_origin_is_served() {
    let served = Served::start(&[], None);
    served
        .initialize(&[("Origin", "http://localhost:5173")])
        .assert_initialized();
}

#[test]
fn a_request_without_an_origin_is_served() {
    let served = Served::start(&[], None);
    served.initialize(&[]).assert_initialized();
}

#[test]
fn an_origin_allowed_on_the_command_line_is_served() {
    let served = Served::start(&["--allow-origin", "https://app.example.com"], None);
    served
        .initialize(&[("Origin", "https://app.example.com")])
        .assert_initialized();
}

#[test]
fn a_request_for_a_foreign_host_is_forbidden() {
    // DNS rebinding: a page at evil.example whose name now resolves to 127.0.0.1.
    let served = Served::start(&[], None);
    let response = served.initialize(&[("Host", "evil.example")]);
    assert_eq!(response.status, 403, "{}", response.body);
}

#[test]
fn a_request_without_the_bearer_token_is_unauthorized() {
    let served = Served::start(&[], Some("right-token"));
    let response = served.initialize(&[]);
    assert_eq!(response.status, 401, "{}", response.body);
    assert_eq!(response.header("www-authenticate"), Some("Bearer"));
}

#[test]
fn a_request_with_a_wrong_bearer_token_is_unauthorized() {
    let served = Served::start(&[], Some("right-token"));
    let response = served.initialize(&[("Authorization", "Bearer wrong-token")]);
    assert_eq!(response.status, 401, "{}", response.body);
    let challenge = response.header("www-authenticate").unwrap_or_default();
    assert!(challenge.starts_with("Bearer"), "{challenge}");
}

#[test]
fn a_request_with_the_bearer_token_is_served() {
    let served = Served::start(&[], Some("right-token"));
    served
        .initialize(&[("Authorization", "Bearer right-token")])
        .assert_initialized();
}

/// Found by an exploratory run: the session's `DELETE` answered 202 Accepted, which the
/// Python SDK logs as a failed termination (it takes 200 or 204).
#[test]
fn deleting_a_legacy_session_answers_204_and_ends_it() {
    let served = Served::start(&["--legacy-sessions"], None);
    let response = served.initialize(&[]);
    assert_eq!(response.status, 200, "{}", response.body);
    let session = response
        .headers
        .iter()
        .find(|(name, _)| name == "mcp-session-id")
        .map(|(_, value)| value.clone())
        .expect("a session id");
    let delete = |session: &str| {
        let request = format!(
            "DELETE /mcp HTTP/1.1\r\nHost: {}\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\nConnection: close\r\n\r\n",
            served.authority()
        );
        let mut stream = TcpStream::connect(served.authority()).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).unwrap();
        Response::parse(&raw).status
    };
    assert_eq!(delete(&session), 204);
    // Gone: a request in it is told the session is not found, as the protocol says.
    let mut stream = served.post(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#,
        &[
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
    );
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    assert_eq!(Response::parse(&raw).status, 404, "{raw}");
}

#[test]
fn a_public_address_without_a_token_is_refused_with_what_to_do() {
    let output = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["serve", "--http", "0.0.0.0:0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("without authentication"), "{stderr}");
    assert!(stderr.contains("--token-env"), "{stderr}");
}

#[test]
fn a_token_variable_that_is_not_set_is_a_setup_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args([
            "serve",
            "--http",
            "0",
            "--token-env",
            "TOOLKIT_TEST_UNSET_VARIABLE",
        ])
        .env_remove("TOOLKIT_TEST_UNSET_VARIABLE")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("TOOLKIT_TEST_UNSET_VARIABLE"), "{stderr}");
}

#[test]
fn an_empty_token_variable_or_file_is_a_setup_error_naming_it() {
    let output = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["serve", "--http", "0", "--token-env", "TOOLKIT_TEST_EMPTY"])
        .env("TOOLKIT_TEST_EMPTY", " \n")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("the environment variable `TOOLKIT_TEST_EMPTY` is empty"),
        "{stderr}"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, "\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["serve", "--http", "0", "--token-file"])
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("the file is empty"), "{stderr}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_client_closing_its_response_stops_the_command_toolbox_runs() {
    let served = Served::start(&[], None);
    // A read-only command (so the policy runs it without asking), with a marker no other
    // process has: a sleep of an odd length.
    let marker = "sleep 43.7";
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"run_shell","arguments":{{"command":"{marker}"}}}}}}"#
    );
    let stream = served.post(&call, &[("MCP-Protocol-Version", "2025-11-25")]);
    wait_until("the command runs", || running(marker));
    drop(stream);
    wait_until("the cancelled command is gone", || !running(marker));
}

#[cfg(unix)]
#[test]
fn toolbox_serving_over_http_ends_cleanly_on_sigterm() {
    let mut served = Served::start(&[], None);
    let pid = rustix::process::Pid::from_child(&served.child);
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let status = served.child.wait().unwrap();
    assert!(status.success(), "{status}");
}

/// What the waiting tool tells the test.
#[derive(Clone, Default)]
struct Probe {
    started: Arc<Notify>,
    cancelled: Arc<Notify>,
}

/// Waits until its call is cancelled, and records that it was.
#[tool(read_only, name = "http_wait_for_cancel")]
async fn wait_for_cancel(cancel: CancellationToken, probe: State<Probe>) -> String {
    probe.started.notify_one();
    cancel.cancelled().await;
    probe.cancelled.notify_one();
    "cancelled".into()
}

#[tokio::test]
async fn a_client_closing_its_response_cancels_the_tool() {
    let probe = Probe::default();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["http_wait_for_cancel"]).unwrap())
        .state(probe.clone())
        .build()
        .unwrap();
    let server = HttpServer::bind(coordinator, HttpOptions::loopback(0))
        .await
        .unwrap();
    let address = server.local_addr();
    let shutdown = server.shutdown_token();
    let serving = tokio::spawn(server.run());

    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"http_wait_for_cancel","arguments":{}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    // A bound on a hang, not a timing assertion.
    let patience = Duration::from_secs(60);
    tokio::time::timeout(patience, probe.started.notified())
        .await
        .expect("the tool started");
    drop(stream);
    tokio::time::timeout(patience, probe.cancelled.notified())
        .await
        .expect("closing the response cancelled the tool's token");

    shutdown.cancel();
    serving.await.unwrap().unwrap();
}

#[test]
fn a_2025_11_25_client_gets_a_session_only_with_legacy_sessions() {
    let stateless = Served::start(&[], None);
    let answer = stateless.initialize(&[]);
    answer.assert_initialized();
    assert_eq!(answer.header("mcp-session-id"), None);

    let sessions = Served::start(&["--legacy-sessions"], None);
    let answer = sessions.initialize(&[]);
    answer.assert_initialized();
    assert!(
        answer
            .header("mcp-session-id")
            .is_some_and(|id| !id.is_empty()),
        "{:?}",
        answer.headers
    );
}

#[test]
fn with_legacy_sessions_each_client_has_its_own_grants_and_jobs() {
    let Some(python) = python() else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let served = Served::over(workspace.path(), &["--legacy-sessions"], &[]);
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/sessions_http.py");
    let output = Command::new(python)
        .arg(script)
        .arg(&served.url)
        .arg(workspace.path())
        .arg("legacy")
        .output()
        .expect("python runs");
    // Each MCP session is a coordinator session of its own: "approve for the session" is
    // offered, and holds for that client alone.
    script_passed(&output, &["choices once,session,reject\n", "ok isolated\n"]);
}

#[test]
fn with_client_tokens_each_client_has_its_own_grants_and_jobs_statelessly() {
    let Some(python) = python() else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    let tokens = workspace.path().join("clients.txt");
    std::fs::write(
        &tokens,
        "# name token\nalice token-of-alice\nbob token-of-bob\n",
    )
    .unwrap();
    let served = Served::over(
        workspace.path(),
        &["--client-tokens-file", tokens.to_str().unwrap()],
        &[],
    );
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/sessions_http.py");
    let output = Command::new(python)
        .arg(script)
        .arg(&served.url)
        .arg(workspace.path())
        .args(["auto", "token-of-alice", "token-of-bob"])
        .output()
        .expect("python runs");
    // 2026-07-28, no MCP session: the bearer token says whose session a call runs in.
    script_passed(&output, &["choices once,session,reject\n", "ok isolated\n"]);
}

/// A response's body as the JSON-RPC error it must be, checked to be served as JSON.
fn json_rpc_error(response: &Response) -> serde_json::Value {
    assert_eq!(
        response.header("content-type"),
        Some("application/json"),
        "{}",
        response.body
    );
    let body: serde_json::Value = serde_json::from_str(&response.body).unwrap();
    assert!(body["error"]["code"].is_i64(), "{body}");
    body
}

#[test]
fn a_body_that_is_not_json_is_a_400_with_a_parse_error() {
    let served = Served::start(&[], None);
    let response = served.exchange("{\"jsonrpc\": \"2.0\", oops");
    assert_eq!(response.status, 400, "{}", response.body);
    assert_eq!(json_rpc_error(&response)["error"]["code"], -32700);
}

#[test]
fn json_that_is_no_message_is_a_400_invalid_request_to_its_id() {
    let served = Served::start(&[], None);
    let response = served.exchange(r#"{"id": 3, "greeting": "hello"}"#);
    assert_eq!(response.status, 400, "{}", response.body);
    let error = json_rpc_error(&response);
    assert_eq!(error["error"]["code"], -32600, "{error}");
    assert_eq!(error["id"], 3, "{error}");
}

#[test]
fn a_body_over_the_limit_is_a_413_naming_the_limit_and_the_server_goes_on() {
    let served = Served::start(&["--max-message-bytes", "1K"], None);
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"write_file","arguments":{{"path":"big.txt","content":"{}"}}}}}}"#,
        "x".repeat(2000)
    );
    let response = served.exchange(&body);
    assert_eq!(response.status, 413, "{}", response.body);
    let error = json_rpc_error(&response);
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("limit of 1 KiB"),
        "{error}"
    );

    // Sent in chunks, with no length said up front: cut off at the limit all the same.
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        served.authority()
    );
    for chunk in body.as_bytes().chunks(500) {
        request.push_str(&format!(
            "{:x}\r\n{}\r\n",
            chunk.len(),
            String::from_utf8_lossy(chunk)
        ));
    }
    request.push_str("0\r\n\r\n");
    let mut stream = TcpStream::connect(served.authority()).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    assert_eq!(Response::parse(&raw).status, 413, "{raw}");

    served.initialize(&[]).assert_initialized();
}

#[test]
fn a_client_tokens_file_that_is_not_name_and_token_per_line_is_a_setup_error_naming_the_line() {
    let workspace = tempfile::tempdir().unwrap();
    let tokens = workspace.path().join("clients.txt");
    std::fs::write(&tokens, "alice token-of-alice\nbob\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["serve", "--http", "127.0.0.1:0", "--workspace"])
        .arg(workspace.path())
        .arg("--client-tokens-file")
        .arg(&tokens)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("line 2: expected `NAME TOKEN` (two words), found 1 word(s)"),
        "{stderr}"
    );
}

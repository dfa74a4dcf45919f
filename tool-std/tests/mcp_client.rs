//! The MCP client (tool-core's `mcp::client`) importing the tools of real servers: `toolbox
//! serve` itself over stdio, the reference filesystem server from npm
//! (`@modelcontextprotocol/server-filesystem`), a fixture written with the official Python SDK
//! (progress), and `toolbox`'s server behind rmcp's streamable HTTP service, in process. The
//! imported tools go through a coordinator like any tool: policy rules, hooks, approvals,
//! modes.
//!
//! Node and the Python SDK come from `.ci/run` (`TOOLKIT_NODE`, `TOOLKIT_NODE_MODULES`,
//! `TOOLKIT_MCP_PYTHON`); a test that needs one that is missing says so and passes, unless
//! `TOOLKIT_REQUIRE_MCP_CLIENTS` is set, as CI sets it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tool_core::approval::{ApprovalRequest, ApprovalResponse, Approver};
use tool_core::context::ProgressUpdate;
use tool_core::hooks::{HookEvent, HookInput, HookOutput, Hooks, hook_fn};
use tool_core::mcp::client::{self, McpClient, McpConfig, McpServerConfig};
use tool_core::policy::Mode;
use tool_core::settings::Settings;
use tool_core::spec::Effect;
use tool_core::{BoxFuture, Coordinator, ToolCall, ToolError, ToolResult, Toolset, Workspace};

// The standard tools, for the direct calls the imported ones are compared with.
use tool_std as _;

mod peers;
use peers::{node_package, python};

/// A workspace with one note in it.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Notes\nbuy milk\n").unwrap();
    dir
}

/// `toolbox serve` on `dir`, as server `name`.
fn toolbox(name: &str, dir: &Path, extra: &[&str]) -> McpServerConfig {
    let mut args = vec!["serve".to_owned(), "--workspace".to_owned()];
    args.push(dir.display().to_string());
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    McpServerConfig::stdio(name, env!("CARGO_BIN_EXE_toolbox"), args)
}

/// The server's tools in a toolset.
async fn imported(client: &McpClient) -> Toolset {
    let mut toolset = Toolset::empty();
    for tool in client.tools().await.unwrap() {
        toolset.add(tool).unwrap();
    }
    toolset
}

fn names(toolset: &Toolset) -> Vec<String> {
    toolset
        .iter()
        .map(|tool| tool.spec().name.to_string())
        .collect()
}

/// Records what it is asked, and rejects.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<(String, Effect)>>>);

impl Approver for Recorder {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        self.0
            .lock()
            .unwrap()
            .push((request.tool.to_string(), request.effect));
        Box::pin(std::future::ready(ApprovalResponse::reject(
            "not in this test",
        )))
    }
}

/// `tool` (an imported `read_file`) reading `notes.md`, through a coordinator over `toolset`
/// that asks nobody.
async fn read_notes(toolset: Toolset, tool: &str) -> ToolResult {
    Coordinator::builder()
        .toolset(toolset)
        .mode(Mode::Bypass)
        .build()
        .unwrap()
        .call(ToolCall::new(tool, r#"{"path": "notes.md"}"#))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toolbox_serve_is_imported_as_mcp_self_tools_that_answer_as_a_direct_call_does() {
    let dir = workspace();
    let client = McpClient::connect(toolbox("self", dir.path(), &[]))
        .await
        .unwrap();
    let toolset = imported(&client).await;
    let names = names(&toolset);
    for name in [
        "mcp__self__read_file",
        "mcp__self__write_file",
        "mcp__self__run_shell",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
    }
    let read = toolset.get("mcp__self__read_file").unwrap();
    assert!(
        read.spec().description.contains("Read"),
        "{}",
        read.spec().description
    );

    let through_mcp = read_notes(toolset, "mcp__self__read_file").await;
    let direct = Coordinator::builder()
        .toolset(Toolset::named(["read_file"]).unwrap())
        .workspace(Workspace::new(dir.path()).unwrap())
        .build()
        .unwrap()
        .call(ToolCall::new("read_file", r#"{"path": "notes.md"}"#))
        .await;
    assert!(!through_mcp.is_error(), "{}", through_mcp.text());
    assert!(
        through_mcp.text().contains("buy milk"),
        "{}",
        through_mcp.text()
    );
    assert_eq!(through_mcp.text(), direct.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_on_an_imported_name_applies() {
    let dir = workspace();
    let client = McpClient::connect(toolbox("self", dir.path(), &["--mode", "bypass"]))
        .await
        .unwrap();
    let settings = Settings::from_json(
        r#"{"permissions": {"allow": ["mcp__self__*"], "deny": ["mcp__self__write_file"]}}"#,
    )
    .unwrap();
    let coordinator = Coordinator::builder()
        .toolset(imported(&client).await)
        .settings(settings)
        .build()
        .unwrap();
    let write = coordinator
        .call(ToolCall::new(
            "mcp__self__write_file",
            r#"{"path": "new.md", "content": "x"}"#,
        ))
        .await;
    assert!(
        matches!(write.error(), Some(ToolError::Denied { .. })),
        "{}",
        write.text()
    );
    assert!(!dir.path().join("new.md").exists());
    // The allow rule covers the other imported tools.
    let read = coordinator
        .call(ToolCall::new(
            "mcp__self__read_file",
            r#"{"path": "notes.md"}"#,
        ))
        .await;
    assert!(!read.is_error(), "{}", read.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_tool_use_hook_sees_the_imported_name_and_can_block_the_call() {
    let dir = workspace();
    let client = McpClient::connect(toolbox("self", dir.path(), &["--mode", "bypass"]))
        .await
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let mut hooks = Hooks::new();
    hooks
        .register(
            HookEvent::PreToolUse,
            "mcp__self__.*",
            hook_fn("no remote writes", move |input: &HookInput| {
                sink.lock().unwrap().push(input.tool_name.clone());
                let write = input.tool_name.ends_with("write_file");
                async move {
                    if write {
                        HookOutput::block("writes through MCP are blocked here")
                    } else {
                        HookOutput::default()
                    }
                }
            }),
        )
        .unwrap();
    let coordinator = Coordinator::builder()
        .toolset(imported(&client).await)
        .hooks(hooks)
        .mode(Mode::Bypass)
        .build()
        .unwrap();
    let write = coordinator
        .call(ToolCall::new(
            "mcp__self__write_file",
            r#"{"path": "new.md", "content": "x"}"#,
        ))
        .await;
    assert!(write.is_error());
    assert!(
        write.text().contains("writes through MCP are blocked here"),
        "{}",
        write.text()
    );
    assert!(!dir.path().join("new.md").exists());
    assert_eq!(*seen.lock().unwrap(), ["mcp__self__write_file"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untrusted_annotations_are_not_believed_so_a_read_asks_for_approval() {
    let dir = workspace();
    let client = McpClient::connect(toolbox("self", dir.path(), &[]))
        .await
        .unwrap();
    let toolset = imported(&client).await;
    assert_eq!(
        toolset.get("mcp__self__read_file").unwrap().spec().effect,
        Effect::Mutating
    );
    let asked = Recorder::default();
    let result = Coordinator::builder()
        .toolset(toolset)
        .approver(asked.clone())
        .build()
        .unwrap()
        .call(ToolCall::new(
            "mcp__self__read_file",
            r#"{"path": "notes.md"}"#,
        ))
        .await;
    assert!(matches!(result.error(), Some(ToolError::Rejected { .. })));
    assert_eq!(
        *asked.0.lock().unwrap(),
        [("mcp__self__read_file".to_owned(), Effect::Mutating)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trusted_read_only_tools_run_in_plan_mode_and_writes_do_not() {
    let dir = workspace();
    let client =
        McpClient::connect(toolbox("self", dir.path(), &["--mode", "bypass"]).trusted(true))
            .await
            .unwrap();
    let toolset = imported(&client).await;
    assert_eq!(
        toolset.get("mcp__self__read_file").unwrap().spec().effect,
        Effect::ReadOnly
    );
    let asked = Recorder::default();
    let coordinator = Coordinator::builder()
        .toolset(toolset)
        .approver(asked.clone())
        .mode(Mode::Plan)
        .build()
        .unwrap();
    let read = coordinator
        .call(ToolCall::new(
            "mcp__self__read_file",
            r#"{"path": "notes.md"}"#,
        ))
        .await;
    assert!(!read.is_error(), "{}", read.text());
    assert!(read.text().contains("buy milk"));
    let write = coordinator
        .call(ToolCall::new(
            "mcp__self__write_file",
            r#"{"path": "new.md", "content": "x"}"#,
        ))
        .await;
    assert!(write.is_error(), "{}", write.text());
    assert!(!dir.path().join("new.md").exists());
    assert!(asked.0.lock().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_session_is_reported_then_restarted() {
    let dir = workspace();
    let client = McpClient::connect(toolbox("self", dir.path(), &[]))
        .await
        .unwrap();
    let coordinator = Coordinator::builder()
        .toolset(imported(&client).await)
        .mode(Mode::Bypass)
        .build()
        .unwrap();
    let read = || {
        coordinator.call(ToolCall::new(
            "mcp__self__read_file",
            r#"{"path": "notes.md"}"#,
        ))
    };
    assert!(!read().await.is_error());

    let first = client.process_id().await.unwrap();
    let pid = rustix::process::Pid::from_raw(i32::try_from(first).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::KILL).unwrap();

    let reported = read().await;
    assert!(reported.is_error());
    assert!(
        reported
            .text()
            .contains("MCP server `self` was killed by signal 9"),
        "{}",
        reported.text()
    );
    assert!(reported.text().contains("restarted on the next call"));

    let restarted = read().await;
    assert!(!restarted.is_error(), "{}", restarted.text());
    assert!(restarted.text().contains("buy milk"));
    assert_ne!(client.process_id().await, Some(first));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_the_importing_call_cancels_the_remote_command() {
    let dir = workspace();
    let client = McpClient::connect(toolbox("self", dir.path(), &["--mode", "bypass"]))
        .await
        .unwrap();
    let coordinator = Coordinator::builder()
        .toolset(imported(&client).await)
        .mode(Mode::Bypass)
        .build()
        .unwrap();
    let cancel = tool_core::context::CancellationToken::new();
    let call = tokio::spawn({
        let coordinator = coordinator.clone();
        let cancel = cancel.clone();
        async move {
            let call = ToolCall::new(
                "mcp__self__run_shell",
                r#"{"command": "echo $$ > sleeper.pid; exec sleep 300"}"#,
            );
            coordinator
                .call_with(
                    call,
                    tool_core::coordinator::CallOptions::new().cancel(cancel.clone()),
                )
                .await
        }
    });
    let pid_file = dir.path().join("sleeper.pid");
    let pid = wait_for(|| {
        let text = std::fs::read_to_string(&pid_file).ok()?;
        text.trim().parse::<u32>().ok()
    })
    .expect("the remote command started");
    assert!(running(pid));

    cancel.cancel();
    let result = call.await.unwrap();
    assert!(
        matches!(result.error(), Some(ToolError::Cancelled)),
        "{}",
        result.text()
    );
    assert!(
        wait_for(|| (!running(pid)).then_some(())).is_some(),
        "the remote `sleep` (pid {pid}) still runs"
    );
}

/// Whether `pid` is a live process (not gone, not a zombie).
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// Polls `probe` until it answers, for up to a minute (a bound, not a measurement).
fn wait_for<T>(mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    for _ in 0..600 {
        if let Some(found) = probe() {
            return Some(found);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_fails_to_start_is_reported_and_the_others_are_imported() {
    let dir = workspace();
    let config = serde_json::json!({"mcpServers": {
        "broken": {"command": "sh", "args": ["-c", "echo 'fatal: no config file' >&2; exit 3"]},
        "good": {"command": env!("CARGO_BIN_EXE_toolbox"),
                 "args": ["serve", "--workspace", "${WORKSPACE}"]},
    }});
    let root = dir.path().display().to_string();
    let config = McpConfig::from_json_with(&config.to_string(), |variable| {
        (variable == "WORKSPACE").then(|| root.clone())
    })
    .unwrap();
    let imported = client::import(&config).await;
    assert_eq!(imported.failures.len(), 1, "{:?}", imported.failures);
    let failure = imported.failures[0].to_string();
    for part in [
        "MCP server `broken`",
        "echo 'fatal: no config file'",
        "exited with status 3",
        "fatal: no config file",
    ] {
        assert!(failure.contains(part), "`{part}` not in: {failure}");
    }
    assert!(imported.toolset.contains("mcp__good__read_file"));
    assert_eq!(imported.clients.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_nothing_answers_at_is_reported_in_words_not_type_names() {
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = McpConfig::from_json_with(
        &format!(r#"{{"mcpServers": {{"web": {{"url": "http://127.0.0.1:{port}/mcp"}}}}}}"#),
        |_| None,
    )
    .unwrap();
    let imported = client::import(&config).await;
    assert_eq!(imported.failures.len(), 1, "{:?}", imported.failures);
    let failure = imported.failures[0].to_string();
    assert!(
        failure.contains(&format!("MCP server `web` (`http://127.0.0.1:{port}/mcp`)"))
            && failure.contains("cannot reach it: ")
            && failure.to_lowercase().contains("connection refused"),
        "{failure}"
    );
    assert!(!failure.contains("rmcp::"), "{failure}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_npm_filesystem_server_is_imported_and_reads_a_file() {
    let Some((node, server)) =
        node_package("@modelcontextprotocol/server-filesystem/dist/index.js")
    else {
        return;
    };
    let dir = workspace();
    let root = dir.path().canonicalize().unwrap();
    let config = McpServerConfig::stdio(
        "fs",
        node.display().to_string(),
        [server.display().to_string(), root.display().to_string()],
    );
    let client = McpClient::connect(config).await.unwrap();
    let toolset = imported(&client).await;
    let names = names(&toolset);
    for name in ["mcp__fs__read_text_file", "mcp__fs__list_directory"] {
        assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
    }
    let coordinator = Coordinator::builder()
        .toolset(toolset)
        .mode(Mode::Bypass)
        .build()
        .unwrap();
    let path = root.join("notes.md").display().to_string();
    let read = coordinator
        .call(ToolCall::new(
            "mcp__fs__read_text_file",
            serde_json::json!({ "path": path }).to_string(),
        ))
        .await;
    assert!(!read.is_error(), "{}", read.text());
    assert!(read.text().contains("buy milk"), "{}", read.text());
    // Outside its allowed directory: the server's own error, which the model reads.
    let outside = coordinator
        .call(ToolCall::new(
            "mcp__fs__read_text_file",
            r#"{"path": "/etc/hostname"}"#,
        ))
        .await;
    assert!(outside.is_error());
    assert!(
        outside.text().contains("denied") || outside.text().contains("outside"),
        "{}",
        outside.text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_progress_reaches_the_calls_progress() {
    let Some(python) = python() else { return };
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/progress_server.py");
    let config = McpServerConfig::stdio(
        "py",
        python.display().to_string(),
        [fixture.display().to_string()],
    );
    let client = McpClient::connect(config).await.unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let coordinator = Coordinator::builder()
        .toolset(imported(&client).await)
        .mode(Mode::Bypass)
        .on_progress(move |update: ProgressUpdate| {
            sink.lock()
                .unwrap()
                .push((update.progress, update.total, update.message));
        })
        .build()
        .unwrap();
    let result = coordinator
        .call(ToolCall::new("mcp__py__count", r#"{"to": 3}"#))
        .await;
    assert!(!result.is_error(), "{}", result.text());
    assert!(result.text().contains("counted to 3"), "{}", result.text());
    let seen = seen.lock().unwrap();
    let expected: Vec<(f64, Option<f64>, Option<String>)> = (1..=3)
        .map(|step| (f64::from(step), Some(3.0), Some(format!("step {step}"))))
        .collect();
    assert_eq!(*seen, expected);
}

/// A `.mcp.json` naming `toolbox serve` on `dir` as server `self`.
fn mcp_json(dir: &Path) -> PathBuf {
    let path = dir.join(".mcp.json");
    let config = serde_json::json!({"mcpServers": {"self": {
        "command": env!("CARGO_BIN_EXE_toolbox"),
        "args": ["serve", "--workspace", dir, "--mode", "bypass"],
    }}});
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

#[test]
fn toolbox_list_with_mcp_config_lists_the_imported_tools() {
    let dir = workspace();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["list", "--json", "--mcp-config"])
        .arg(mcp_json(dir.path()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(names.contains(&"mcp__self__read_file"), "{names:?}");
    assert!(names.contains(&"read_file"), "{names:?}");
}

#[test]
fn toolbox_call_with_mcp_config_calls_an_imported_tool() {
    let dir = workspace();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["call", "mcp__self__read_file", r#"{"path": "notes.md"}"#])
        .args(["--mode", "bypass", "--workspace"])
        .arg(dir.path())
        .arg("--mcp-config")
        .arg(mcp_json(dir.path()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("buy milk"), "{stdout}");
}

/// Issue 26: run from another folder, an imported stdio server started in toolbox's current
/// directory, not the workspace, and served the files there.
#[test]
fn an_imported_server_starts_in_the_workspace_not_the_current_directory() {
    let dir = workspace();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("secret.md"), "not for the model\n").unwrap();
    let config = dir.path().join("servers.json");
    // `toolbox serve` without --workspace serves the directory it starts in.
    let server = serde_json::json!({"mcpServers": {"self": {
        "command": env!("CARGO_BIN_EXE_toolbox"),
        "args": ["serve", "--mode", "bypass"],
    }}});
    std::fs::write(&config, server.to_string()).unwrap();
    let call = |path: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolbox"))
            .current_dir(elsewhere.path())
            .args(["call", "mcp__self__read_file"])
            .arg(serde_json::json!({ "path": path }).to_string())
            .args(["--mode", "bypass", "--workspace"])
            .arg(dir.path())
            .arg("--mcp-config")
            .arg(&config)
            .output()
            .unwrap()
    };
    let output = call("notes.md");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("buy milk"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = call("secret.md");
    assert!(!output.status.success());
    assert!(!String::from_utf8_lossy(&output.stdout).contains("not for the model"));

    // A `cwd` is confined like any path.
    let outside = serde_json::json!({"mcpServers": {"self": {
        "command": env!("CARGO_BIN_EXE_toolbox"),
        "args": ["serve"],
        "cwd": elsewhere.path(),
    }}});
    std::fs::write(&config, outside.to_string()).unwrap();
    let output = call("notes.md");
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the MCP server `self` cannot start in its `cwd`")
            && stderr.contains("outside"),
        "{stderr}"
    );
}

#[test]
fn toolbox_with_a_broken_mcp_config_is_a_setup_error_naming_the_field() {
    let dir = workspace();
    let path = dir.path().join(".mcp.json");
    std::fs::write(&path, r#"{"mcpServers": {"self": {"command": 7}}}"#).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["list", "--mcp-config"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`mcpServers.self.command`"), "{stderr}");
}

/// `toolbox`'s tools behind tool-core's `McpServer`, served over streamable HTTP by rmcp's
/// service in this process, at a URL that wants `Authorization: Bearer t0ken`.
async fn http_server(dir: &Path) -> (String, stop::Shutdown) {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };

    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["read_file"]).unwrap())
        .workspace(Workspace::new(dir).unwrap())
        .build()
        .unwrap();
    let server = tool_core::mcp::McpServer::new(coordinator);
    let shutdown = tool_core::context::CancellationToken::new();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_sse_keep_alive(None)
            .with_cancellation_token(shutdown.child_token()),
    );
    let router =
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(
                |request: axum::extract::Request, next: axum::middleware::Next| async move {
                    let authorized = request
                        .headers()
                        .get("authorization")
                        .is_some_and(|value| value == "Bearer t0ken");
                    if authorized {
                        next.run(request).await
                    } else {
                        // As the protocol's authorization section has it: a 401 with a
                        // challenge.
                        axum::response::IntoResponse::into_response((
                            axum::http::StatusCode::UNAUTHORIZED,
                            [("www-authenticate", "Bearer")],
                        ))
                    }
                },
            ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
                .await;
        }
    });
    (url, stop::Shutdown(shutdown))
}

/// Stops the in-process server when the test ends.
mod stop {
    pub struct Shutdown(pub tool_core::context::CancellationToken);

    impl Drop for Shutdown {
        fn drop(&mut self) {
            self.0.cancel();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_at_an_http_url_is_imported_with_its_headers_and_called() {
    let dir = workspace();
    let (url, _shutdown) = http_server(dir.path()).await;

    let without = McpClient::connect(McpServerConfig::http("web", &url))
        .await
        .unwrap_err()
        .to_string();
    assert!(without.contains("MCP server `web`"), "{without}");
    assert!(
        without.contains("give it an `Authorization` header"),
        "{without}"
    );

    let config = McpServerConfig::http("web", &url).header("Authorization", "Bearer t0ken");
    let client = McpClient::connect(config).await.unwrap();
    let toolset = imported(&client).await;
    assert_eq!(names(&toolset), ["mcp__web__read_file"]);
    let read = read_notes(toolset, "mcp__web__read_file").await;
    assert!(!read.is_error(), "{}", read.text());
    assert!(read.text().contains("buy milk"), "{}", read.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toolbox_serve_with_mcp_config_serves_the_imported_tools_too() {
    let dir = workspace();
    let inner = mcp_json(dir.path());
    let outer = toolbox(
        "outer",
        dir.path(),
        &[
            "--mode",
            "bypass",
            "--mcp-config",
            &inner.display().to_string(),
        ],
    );
    let client = McpClient::connect(outer).await.unwrap();
    let toolset = imported(&client).await;
    assert!(
        toolset.contains("mcp__outer__read_file"),
        "{:?}",
        names(&toolset)
    );
    let read = read_notes(toolset, "mcp__outer__mcp__self__read_file").await;
    assert!(!read.is_error(), "{}", read.text());
    assert!(read.text().contains("buy milk"), "{}", read.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_client_and_its_tools_stops_the_server() {
    let dir = workspace();
    let client = McpClient::connect(toolbox("self", dir.path(), &[]))
        .await
        .unwrap();
    let toolset = imported(&client).await;
    let pid = client.process_id().await.unwrap();
    assert!(running(pid));
    drop(toolset);
    drop(client);
    assert!(
        wait_for(|| (!running(pid)).then_some(())).is_some(),
        "the server (pid {pid}) still runs"
    );
}

//! A served toolset that changes while clients are connected: the server announces it
//! (`notifications/tools/list_changed` on 2025-11-25, the `subscriptions/listen` stream on
//! 2026-07-28), and the MCP client follows a server whose tools change, so `toolbox serve
//! --mcp-config` passes a change on to its own clients.
//!
//! The clients are the official MCP Python SDK (`tests/mcp/list_changed.py`, driven step by
//! step from here: it prints `step NAME`, the test changes the toolset and answers `done NAME`)
//! and tool-core's own client. The upstream server is a coordinator served over HTTP in this
//! process, whose toolset the test changes, or a Python SDK fixture server
//! (`tests/mcp/changing_server.py`) whose tools add and remove a tool.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use tool_core::approval::AutoApprove;
use tool_core::context::CancellationToken;
use tool_core::context::ToolContext;
use tool_core::coordinator::ToolsetChanges;
use tool_core::mcp::client::{self, McpConfig, McpServerConfig};
use tool_core::mcp::{HttpOptions, HttpServer};
use tool_core::schema::Schema;
use tool_core::spec::ToolSpec;
use tool_core::tool::{Prepared, ToolFuture};
use tool_core::{Coordinator, Tool, ToolCall, ToolError, ToolOutput, Toolset, tool};

// The standard tools, for `toolbox`'s toolset.
use tool_std as _;

mod peers;
use peers::{assert_passed, python};

/// A tool the served toolset starts with.
#[tool(read_only, name = "listed_base")]
fn base() -> &'static str {
    "base"
}

/// A tool added while served.
#[tool(read_only, name = "listed_extra")]
fn extra() -> &'static str {
    "extra"
}

/// A tool made at run time: a new value of it replaces the old one (a change of the
/// coordinator's toolset) without changing what `tools/list` says.
struct Made(ToolSpec);

impl Made {
    fn new() -> Made {
        Made(ToolSpec::new("listed_made", "A tool made at run time.").read_only())
    }
}

impl Tool for Made {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn input_schema(&self) -> &Schema {
        static SCHEMA: OnceLock<Schema> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            serde_json::from_value(serde_json::json!({"type": "object", "properties": {}})).unwrap()
        })
    }
    fn prepare(&self, _arguments: &str) -> Result<Prepared, ToolError> {
        Ok(Prepared::new(()))
    }
    fn invoke<'a>(&'a self, _prepared: Prepared, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::ready(Ok(ToolOutput::text("made")))
    }
}

fn extra_tool() -> tool_core::tool::ToolHandle {
    Toolset::named(["listed_extra"])
        .unwrap()
        .iter()
        .next()
        .unwrap()
        .clone()
}

/// A coordinator with `listed_base`, served over HTTP on loopback in this process.
struct Upstream {
    coordinator: Coordinator,
    url: String,
    shutdown: CancellationToken,
    /// The server runs on it until the test ends.
    _runtime: tokio::runtime::Runtime,
}

impl Upstream {
    fn start() -> Upstream {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let coordinator = Coordinator::builder()
            .toolset(
                Toolset::named(["listed_base"])
                    .unwrap()
                    .with(Made::new())
                    .unwrap(),
            )
            .build()
            .unwrap();
        let server = runtime
            .block_on(HttpServer::bind(
                coordinator.clone(),
                HttpOptions::loopback(0),
            ))
            .unwrap();
        let url = server.url();
        let shutdown = server.shutdown_token();
        runtime.spawn(server.run());
        Upstream {
            coordinator,
            url,
            shutdown,
            _runtime: runtime,
        }
    }

    /// What the test does at each step the script asks for.
    fn act(&self, step: &str) {
        match step {
            "unchanged" => {
                // The tool taken out and put back: the same set.
                self.coordinator.update_toolset(|tools| {
                    let tool = tools.remove("listed_base").unwrap();
                    tools.add(tool).unwrap();
                });
                // A tool replaced by an identical one: the toolset changed, the list did not.
                let changes = self.coordinator.toolset_changes();
                self.coordinator.update_toolset(|tools| {
                    tools.remove("listed_made").unwrap();
                    tools.add(Made::new()).unwrap();
                });
                assert!(
                    changes.has_changed(),
                    "the replacement is a change of the toolset"
                );
            }
            "add" => self.coordinator.add_tool(extra_tool()).unwrap(),
            "remove" => {
                self.coordinator.remove_tool("listed_extra").unwrap();
            }
            other => panic!("the script asked for an unknown step `{other}`"),
        }
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Runs `list_changed.py` against `target` in `mode`, changing `upstream`'s toolset at each
/// step it asks for; checks that it printed each of `checks`.
fn run_script(upstream: &Upstream, target: &str, mode: &str, added: &str, checks: &[&str]) {
    let Some(python) = python() else { return };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/list_changed.py");
    let mut child = Command::new(python)
        .arg(script)
        .args([target, mode, added])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut printed = String::new();
    for line in stdout.lines() {
        let line = line.unwrap();
        printed.push_str(&line);
        printed.push('\n');
        if let Some(step) = line.strip_prefix("step ") {
            upstream.act(step);
            writeln!(stdin, "done {step}").unwrap();
            stdin.flush().unwrap();
        }
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_passed(output.status.success(), &printed, &stderr, checks);
}

const LISTEN_CHECKS: &[&str] = &[
    "ok listen acknowledged",
    "ok no announcement for an unchanged list",
    "ok added tool announced",
    "ok a stream without toolsListChanged hears nothing",
    "ok removed tool announced",
];

#[test]
fn the_python_sdk_hears_of_changes_on_subscriptions_listen_over_http() {
    let upstream = Upstream::start();
    let url = upstream.url.clone();
    run_script(&upstream, &url, "auto", "listed_extra", LISTEN_CHECKS);
}

/// A `.mcp.json` naming `upstream` as server `up`, and settings that trust it (so its
/// read-only tools run without asking), in a directory of its own.
fn mcp_config(upstream: &Upstream) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let config = serde_json::json!({"mcpServers": {"up": {"type": "http", "url": upstream.url}}});
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();
    let settings = serde_json::json!({"toolkit": {"trustedMcpServers": ["up"]}});
    std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();
    dir
}

/// `toolbox serve --mcp-config` on `dir`'s `.mcp.json`, as a command line.
fn chained_toolbox(dir: &tempfile::TempDir) -> Vec<String> {
    let config = dir.path().join(".mcp.json");
    vec![
        env!("CARGO_BIN_EXE_toolbox").to_owned(),
        "serve".to_owned(),
        "--workspace".to_owned(),
        dir.path().display().to_string(),
        "--mcp-config".to_owned(),
        config.display().to_string(),
        "--settings".to_owned(),
        dir.path().join("settings.json").display().to_string(),
    ]
}

fn stdio_target(command: &[String]) -> String {
    format!("stdio:{}", serde_json::to_string(command).unwrap())
}

#[test]
fn through_toolbox_serve_mcp_config_a_2025_11_25_client_hears_an_upstream_change_over_stdio() {
    let upstream = Upstream::start();
    let dir = mcp_config(&upstream);
    let target = stdio_target(&chained_toolbox(&dir));
    run_script(
        &upstream,
        &target,
        "legacy",
        "mcp__up__listed_extra",
        &[
            "ok no announcement for an unchanged list",
            "ok added tool announced",
            "ok removed tool announced",
        ],
    );
}

#[test]
fn through_toolbox_serve_mcp_config_a_2026_07_28_client_hears_an_upstream_change_on_listen_over_stdio()
 {
    let upstream = Upstream::start();
    let dir = mcp_config(&upstream);
    let target = stdio_target(&chained_toolbox(&dir));
    run_script(
        &upstream,
        &target,
        "auto",
        "mcp__up__listed_extra",
        LISTEN_CHECKS,
    );
}

/// Waits for `coordinator`'s next toolset change; 30 s bound a hang, they are not a timing
/// assertion.
async fn next_change(changes: &mut tool_core::coordinator::ToolsetChanges) {
    tokio::time::timeout(std::time::Duration::from_secs(30), changes.changed())
        .await
        .expect("the imported server's change reached the coordinator")
        .expect("the coordinator is alive");
}

/// A coordinator holding `server`'s imported tools, kept in sync with the server (answering
/// approvals itself when `approve`), the import (whose clients must stay alive), and the
/// coordinator's changes to wait on.
async fn following(
    server: McpServerConfig,
    approve: bool,
) -> (client::Imported, Coordinator, ToolsetChanges) {
    let mut config = McpConfig::default();
    config.servers.push(server);
    let imported = client::import(&config).await;
    assert!(imported.failures.is_empty(), "{:?}", imported.failures);
    let mut builder = Coordinator::builder().toolset(imported.toolset.clone());
    if approve {
        builder = builder.approver(AutoApprove);
    }
    let coordinator = builder.build().unwrap();
    imported.keep_in_sync(&coordinator, |_| true).await;
    let changes = coordinator.toolset_changes();
    (imported, coordinator, changes)
}

/// Asserts that `coordinator`'s toolset holds `tool`, showing the toolset when it does not.
fn assert_lists(coordinator: &Coordinator, tool: &str) {
    assert!(
        coordinator.toolset().contains(tool),
        "{:?}",
        coordinator.toolset()
    );
}

/// Our client imports `server`'s tools into a coordinator kept in sync; `upstream` then adds
/// and removes a tool, and the coordinator follows. The upstream's tools are named
/// `{prefix}listed_...` here.
async fn follow(upstream: &Upstream, server: McpServerConfig, prefix: &str) {
    let base = format!("{prefix}listed_base");
    let extra = format!("{prefix}listed_extra");
    // Trusted: its read-only tools run without asking.
    let mut server = server;
    server.trusted = true;
    let (_imported, coordinator, mut changes) = following(server, false).await;
    assert_lists(&coordinator, &base);

    upstream.act("add");
    next_change(&mut changes).await;
    let result = coordinator.call(ToolCall::new(&*extra, "{}")).await;
    assert_eq!(result.text(), "extra", "{result:?}");
    assert_lists(&coordinator, &base);

    upstream.act("remove");
    next_change(&mut changes).await;
    let result = coordinator.call(ToolCall::new(&*extra, "{}")).await;
    assert!(
        matches!(result.error(), Some(ToolError::UnknownTool { .. })),
        "{result:?}"
    );
    assert_lists(&coordinator, &base);
}

#[test]
fn our_client_follows_a_server_whose_tools_change_over_http() {
    let upstream = Upstream::start();
    let server = McpServerConfig::http("up", upstream.url.clone());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(follow(&upstream, server, "mcp__up__"));
}

#[test]
fn our_client_follows_a_chain_through_toolbox_serve_over_stdio() {
    let upstream = Upstream::start();
    let dir = mcp_config(&upstream);
    let command = chained_toolbox(&dir);
    let server = McpServerConfig::stdio("chain", &command[0], command[1..].to_vec());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(follow(&upstream, server, "mcp__chain__mcp__up__"));
}

#[test]
fn our_client_follows_a_python_sdk_server_whose_tools_change() {
    let Some(python) = python() else { return };
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/changing_server.py");
    let server = McpServerConfig::stdio(
        "py",
        python.display().to_string(),
        [fixture.display().to_string()],
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        // Its tools change the server: approved here without asking.
        let (_imported, coordinator, mut changes) = following(server, true).await;
        assert!(!coordinator.toolset().contains("mcp__py__grown"));

        let result = coordinator.call(ToolCall::new("mcp__py__grow", "{}")).await;
        assert_eq!(result.text(), "added grown", "{result:?}");
        next_change(&mut changes).await;
        let result = coordinator
            .call(ToolCall::new("mcp__py__grown", "{}"))
            .await;
        assert_eq!(result.text(), "grown", "{result:?}");

        let result = coordinator
            .call(ToolCall::new("mcp__py__shrink", "{}"))
            .await;
        assert_eq!(result.text(), "removed grown", "{result:?}");
        next_change(&mut changes).await;
        assert!(!coordinator.toolset().contains("mcp__py__grown"));
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_listens_again_when_the_server_restarts_behind_its_url() {
    let serve = |names: &[&str], options: HttpOptions| {
        let coordinator = Coordinator::builder()
            .toolset(Toolset::named(names).unwrap())
            .build()
            .unwrap();
        HttpServer::bind(coordinator, options)
    };
    let server = serve(&["listed_base"], HttpOptions::loopback(0))
        .await
        .unwrap();
    let (url, address, shutdown) = (server.url(), server.local_addr(), server.shutdown_token());
    let serving = tokio::spawn(server.run());

    let mut up = McpServerConfig::http("up", url);
    up.trusted = true;
    let (_imported, coordinator, mut changes) = following(up, false).await;

    // The server is restarted at the same address, with one more tool: the listen stream it
    // held is gone, and nothing else would tell the client.
    shutdown.cancel();
    serving.await.unwrap().unwrap();
    let server = serve(&["listed_base", "listed_extra"], HttpOptions::new(address))
        .await
        .unwrap();
    let shutdown = server.shutdown_token();
    tokio::spawn(server.run());

    next_change(&mut changes).await;
    let result = coordinator
        .call(ToolCall::new("mcp__up__listed_extra", "{}"))
        .await;
    assert_eq!(result.text(), "extra", "{result:?}");
    shutdown.cancel();
}

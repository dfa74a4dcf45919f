//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, the 0.2.0 alpha
//! line rmcp's own CI runs) against a server of ours over streamable HTTP, for protocol
//! 2025-11-25 and 2026-07-28. The fixture server below is the same `HttpServer` as
//! `toolbox serve --http`, over the tools the suite's scenarios call, each a `#[tool]`.
//!
//! What we know fails is in `tests/mcp/conformance-<version>.yml`, each entry with its reason;
//! the suite itself compares (a failure not listed fails the test, and so does a listed one that
//! passes: the list must shrink as the server grows).
//!
//! Needs Node 24 and the suite, as `.ci/run` installs them: `TOOLKIT_NODE` (the node binary)
//! and `TOOLKIT_NODE_MODULES`. Without them the test says so and passes, unless
//! `TOOLKIT_REQUIRE_MCP_CLIENTS` is set.

use std::borrow::Cow;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::Value;
use tool_core::context::Progress;
use tool_core::mcp::{HttpOptions, HttpServer};
use tool_core::output::Content;
use tool_core::{Args, Coordinator, State, ToolError, ToolOutput, Toolset, tool};

mod peers;
use peers::node_package;

/// A 1x1 red PNG.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file of one silent sample (8 kHz, 8-bit mono).
const SILENT_WAV: &str = "UklGRiUAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQEAAACA";

/// Returns a simple text response.
#[tool(read_only, name = "test_simple_text")]
fn simple_text() -> String {
    "This is a simple text response for testing.".into()
}

/// Returns an image.
#[tool(read_only, name = "test_image_content")]
fn image_content() -> ToolOutput {
    ToolOutput::from_content(vec![Content::Image {
        data: RED_PIXEL_PNG.into(),
        mime_type: "image/png".into(),
    }])
}

/// Returns audio.
#[tool(read_only, name = "test_audio_content")]
fn audio_content() -> ToolOutput {
    ToolOutput::from_content(vec![Content::Audio {
        data: SILENT_WAV.into(),
        mime_type: "audio/wav".into(),
    }])
}

/// Always fails.
#[tool(read_only, name = "test_error_handling")]
fn error_handling() -> Result<String, ToolError> {
    Err(ToolError::failed(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0, 50 and 100 of 100, about 50 ms apart.
#[tool(read_only, name = "test_tool_with_progress")]
async fn tool_with_progress(progress: Progress) -> String {
    for done in [0.0, 50.0, 100.0] {
        if done > 0.0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        progress.report(done, Some(100.0), None);
    }
    "Progress reported.".into()
}

/// Returns without logging: the server sends no log notifications at all, so none reaches a
/// request that did not ask for them (what the stateless scenario checks with this tool).
#[tool(read_only, name = "test_logging_tool")]
fn logging_tool() -> String {
    "This server sends no log notifications.".into()
}

/// The input of `json_schema_2020_12_tool`: any object; its declared schema is the suite's, to
/// show that a hand-written JSON Schema 2020-12 reaches the client unchanged.
#[derive(Deserialize)]
#[serde(transparent)]
struct Contact(#[allow(dead_code)] Value);

impl JsonSchema for Contact {
    fn schema_name() -> Cow<'static, str> {
        "Contact".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        })
    }
}

/// Tool with JSON Schema 2020-12 features.
#[tool(read_only, name = "json_schema_2020_12_tool")]
fn json_schema_tool(Args(_contact): Args<Contact>) -> String {
    "ok".into()
}

/// Changes nothing, but is declared as changing state, so the policy asks before it runs: over
/// 2026-07-28 the question is the `input_required` round trip, whose sealed request state the
/// tampered-state scenario alters.
#[tool(name = "test_input_required_result_tampered_state")]
fn input_required_tampered_state() -> String {
    "approved and run".into()
}

/// The coordinator `test_trigger_tool_change` changes: set once the coordinator is built.
#[derive(Default)]
struct Served(Arc<OnceLock<Coordinator>>);

/// Comes and goes with each call of `test_trigger_tool_change`.
#[tool(read_only, name = "test_tool_that_comes_and_goes")]
fn comes_and_goes() -> String {
    "here for now".into()
}

/// Changes the server's tool list: adds `test_tool_that_comes_and_goes` when it is not served,
/// removes it when it is. The stateless scenario calls it with a `subscriptions/listen` stream
/// open and expects `notifications/tools/list_changed` there.
#[tool(read_only, name = "test_trigger_tool_change")]
fn trigger_tool_change(served: State<Served>) -> Result<String, ToolError> {
    const MARKER: &str = "test_tool_that_comes_and_goes";
    let coordinator = served
        .0
        .get()
        .ok_or_else(|| ToolError::failed("the coordinator is not set yet"))?;
    let removed = coordinator.remove_tool(MARKER);
    if removed.is_none() {
        let tool = Toolset::named([MARKER])
            .map_err(ToolError::from_error)?
            .iter()
            .next()
            .cloned()
            .ok_or_else(|| ToolError::failed("the marker tool is not linked"))?;
        coordinator.add_tool(tool).map_err(ToolError::from_error)?;
    }
    Ok("the tool list changed".into())
}

const FIXTURE_TOOLS: [&str; 8] = [
    "test_simple_text",
    "test_logging_tool",
    "test_image_content",
    "test_audio_content",
    "test_error_handling",
    "test_tool_with_progress",
    "json_schema_2020_12_tool",
    "test_input_required_result_tampered_state",
];

fn run_suite(version: &str) {
    let Some((node, entry)) = node_package("@modelcontextprotocol/conformance/dist/index.js")
    else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let served = Served::default();
    let slot = Arc::clone(&served.0);
    let coordinator = Coordinator::builder()
        .toolset(
            Toolset::named(FIXTURE_TOOLS)
                .unwrap()
                .union(Toolset::named(["test_trigger_tool_change"]).unwrap())
                .unwrap(),
        )
        .state(served)
        .build()
        .unwrap();
    // (A cycle through the state, for the test's lifetime.)
    slot.set(coordinator.clone()).ok().unwrap();
    let server = runtime
        .block_on(HttpServer::bind(coordinator, HttpOptions::loopback(0)))
        .unwrap();
    let url = server.url();
    let shutdown = server.shutdown_token();
    let serving = runtime.spawn(server.run());

    let baseline =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/mcp/conformance-{version}.yml"));
    let results = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(node)
        .arg(entry)
        .args(["server", "--url", &url, "--requirements", version])
        .arg("--expected-failures")
        .arg(&baseline)
        .arg("--output-dir")
        .arg(results.path())
        .output()
        .expect("node runs");
    shutdown.cancel();
    runtime.block_on(serving).unwrap().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the conformance suite at {version} found failures not in {}, or listed ones that now pass:\n{stdout}\n{stderr}\nfailed checks:\n{}",
        baseline.display(),
        failed_checks(results.path()).join("\n")
    );
}

/// `scenario: check: message` for every failed check the suite saved (one `checks.json` per
/// scenario), so a failure says what went wrong without rerunning.
fn failed_checks(results: &Path) -> Vec<String> {
    let mut failed = Vec::new();
    for dir in std::fs::read_dir(results).into_iter().flatten().flatten() {
        let Ok(text) = std::fs::read_to_string(dir.path().join("checks.json")) else {
            continue;
        };
        let Ok(Value::Array(checks)) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        // The suite counts a warning (a SHOULD not met) against a scenario too.
        for check in checks
            .iter()
            .filter(|c| c["status"] == "FAILURE" || c["status"] == "WARNING")
        {
            failed.push(format!(
                "{} {}: {}: {}",
                check["status"].as_str().unwrap_or("?"),
                dir.file_name().to_string_lossy(),
                check["id"].as_str().unwrap_or("?"),
                check["errorMessage"].as_str().unwrap_or("")
            ));
        }
    }
    failed.sort();
    failed
}

#[test]
fn the_conformance_suite_passes_at_2025_11_25_but_for_the_listed_failures() {
    run_suite("2025-11-25");
}

#[test]
fn the_conformance_suite_passes_at_2026_07_28_but_for_the_listed_failures() {
    run_suite("2026-07-28");
}

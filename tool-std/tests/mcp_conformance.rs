//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, the 0.2.0 alpha
//! line rmcp's own CI runs) against a server of ours over streamable HTTP, for protocol
//! 2025-11-25 and 2026-07-28. The fixture server below is the same `HttpServer` as
//! `toolbox serve --http`, over the tools the suite's scenarios call, each a `#[tool]`; at
//! 2025-11-25 with sessions for those clients (`HttpOptions::legacy_sessions`), without
//! which a stateless server cannot ask a 2025-11-25 client anything while a call runs.
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
use serde_json::{Value, json};
use tool_core::approval::{Answer, Question, SamplingRequest};
use tool_core::context::Progress;
use tool_core::coordinator::Session;
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

/// Returns a resource's contents.
#[tool(read_only, name = "test_embedded_resource")]
fn embedded_resource() -> ToolOutput {
    ToolOutput::from_content(vec![Content::resource_text(
        "test://embedded-resource",
        Some("text/plain"),
        "This is an embedded resource content.",
    )])
}

/// Returns text, an image and a resource.
#[tool(read_only, name = "test_multiple_content_types")]
fn multiple_content_types() -> ToolOutput {
    ToolOutput::from_content(vec![
        Content::text("Multiple content types test:"),
        Content::Image {
            data: RED_PIXEL_PNG.into(),
            mime_type: "image/png".into(),
        },
        Content::resource_text(
            "test://mixed-content-resource",
            Some("application/json"),
            r#"{"test":"data","value":123}"#,
        ),
    ])
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

/// Asks the user `question` (a form, under `key` when given) and returns the answer as the
/// suite's scenarios read it: `action=<accept|decline|cancel>, content={...}`.
async fn ask(
    session: &Session,
    key: Option<&str>,
    message: &str,
    schema: Value,
) -> Result<String, ToolError> {
    let mut question = Question::new(message, schema)?;
    if let Some(key) = key {
        question = question.with_key(key)?;
    }
    Ok(match session.elicit(question).await? {
        Answer::Accept(content) => format!("action=accept, content={}", Value::Object(content)),
        Answer::Decline => "action=decline, content={}".to_owned(),
        _ => "action=cancel, content={}".to_owned(),
    })
}

/// A text field's value in an accepted answer.
fn field(answer: &Answer, name: &str) -> String {
    match answer {
        Answer::Accept(content) => content
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        _ => String::new(),
    }
}

/// Asks the user for their name and email, showing `message`.
///
/// # Arguments
/// * `message` - The message to show the user.
#[tool(read_only, name = "test_elicitation")]
async fn elicitation(message: String, #[ctx] session: Session) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    Ok(format!(
        "User response: {}",
        ask(&session, None, &message, schema).await?
    ))
}

/// Asks a form whose every kind of field has a default (SEP-1034).
#[tool(read_only, name = "test_elicitation_sep1034_defaults")]
async fn elicitation_defaults(#[ctx] session: Session) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        }
    });
    let answer = ask(&session, None, "Please review the defaults", schema).await?;
    Ok(format!("Elicitation completed: {answer}"))
}

/// Asks a form with every kind of choice field (SEP-1330).
#[tool(read_only, name = "test_elicitation_sep1330_enums")]
async fn elicitation_enums(#[ctx] session: Session) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"}
            ]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [
                {"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"},
                {"const": "value3", "title": "Third Choice"}
            ]}}
        }
    });
    let answer = ask(&session, None, "Please pick", schema).await?;
    Ok(format!("Elicitation completed: {answer}"))
}

/// A form with one required text field `name`.
fn name_form(field: &str) -> Value {
    json!({"type": "object", "properties": {field: {"type": "string"}}, "required": [field]})
}

/// Asks the user's name (key `user_name`) and greets them.
#[tool(read_only, name = "test_input_required_result_elicitation")]
async fn input_required_elicitation(#[ctx] session: Session) -> Result<String, ToolError> {
    let question = Question::new("What is your name?", name_form("name"))?.with_key("user_name")?;
    let answer = session.elicit(question).await?;
    Ok(format!("Hello, {}!", field(&answer, "name")))
}

/// Asks for a confirmation (key `confirm`), which comes back with the sealed request state.
#[tool(read_only, name = "test_input_required_result_request_state")]
async fn input_required_request_state(#[ctx] session: Session) -> Result<String, ToolError> {
    let schema =
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
    let question = Question::new("Please confirm", schema)?.with_key("confirm")?;
    match session.elicit(question).await? {
        Answer::Accept(content) => Ok(format!("state-ok: confirmed ok = {}", content["ok"])),
        _ => Ok("state-ok: not confirmed".to_owned()),
    }
}

/// Asks two questions, one after the other (keys `step1` and `step2`): two rounds.
#[tool(read_only, name = "test_input_required_result_multi_round")]
async fn input_required_multi_round(#[ctx] session: Session) -> Result<String, ToolError> {
    let step1 =
        Question::new("Step 1: What is your name?", name_form("name"))?.with_key("step1")?;
    let name = field(&session.elicit(step1).await?, "name");
    let step2 = Question::new("Step 2: What is your favorite color?", name_form("color"))?
        .with_key("step2")?;
    let color = field(&session.elicit(step2).await?, "color");
    Ok(format!("{name} likes {color}"))
}

/// Asks the client's model `prompt` and returns its answer.
///
/// # Arguments
/// * `prompt` - The prompt to send to the model.
#[tool(read_only, name = "test_sampling")]
async fn sampling(prompt: String, #[ctx] session: Session) -> Result<String, ToolError> {
    let sampled = session.sample(SamplingRequest::new(prompt, 100)).await?;
    Ok(format!("LLM response: {}", sampled.text))
}

/// Asks the client's model a question (key `capital_question`).
#[tool(read_only, name = "test_input_required_result_sampling")]
async fn input_required_sampling(#[ctx] session: Session) -> Result<String, ToolError> {
    let request =
        SamplingRequest::new("What is the capital of France?", 100).with_key("capital_question")?;
    Ok(session.sample(request).await?.text)
}

/// Lists the client's roots.
#[tool(read_only, name = "test_input_required_result_list_roots")]
async fn input_required_list_roots(#[ctx] session: Session) -> Result<String, ToolError> {
    let roots = session.roots().await?;
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    Ok(format!("roots: {}", uris.join(", ")))
}

/// Asks the user's name, the model for a greeting and the client's roots, all at once: one
/// round carries the three requests.
#[tool(read_only, name = "test_input_required_result_multiple_inputs")]
async fn input_required_multiple(#[ctx] session: Session) -> Result<String, ToolError> {
    let name = Question::new("What is your name?", name_form("name"))?.with_key("user_name")?;
    let greeting = SamplingRequest::new("Generate a greeting", 50).with_key("greeting")?;
    let (name, greeting, roots) = tokio::join!(
        session.elicit(name),
        session.sample(greeting),
        session.roots()
    );
    Ok(format!(
        "{} / {} / {} roots",
        field(&name?, "name"),
        greeting?.text,
        roots?.len()
    ))
}

/// Asks what the client can answer: the user's name (when it declared elicitation) and the
/// model's greeting (when it declared sampling), at once.
#[tool(read_only, name = "test_input_required_result_capabilities")]
async fn input_required_capabilities(#[ctx] session: Session) -> Result<String, ToolError> {
    let name = Question::new("What is your name?", name_form("name"))?.with_key("user_name")?;
    let greeting = SamplingRequest::new("Generate a greeting", 50).with_key("greeting")?;
    let (name, greeting) = tokio::join!(session.elicit(name), session.sample(greeting));
    let name = name.map_or_else(
        |error| format!("no name ({error})"),
        |name| field(&name, "name"),
    );
    let greeting = greeting.map_or_else(|error| format!("no greeting ({error})"), |g| g.text);
    Ok(format!("{name} / {greeting}"))
}

/// Asks the user a question while it runs: at 2026-07-28 the response carries the
/// `input_required` result, never a request of the server's own.
#[tool(read_only, name = "test_streaming_elicitation")]
async fn streaming_elicitation(#[ctx] session: Session) -> Result<String, ToolError> {
    let question = Question::new("What is your name?", name_form("name"))?;
    Ok(format!(
        "Hello, {}!",
        field(&session.elicit(question).await?, "name")
    ))
}

/// Needs a message from the client's model: a client that did not declare sampling gets the
/// protocol's MissingRequiredClientCapability error.
#[tool(read_only, name = "test_missing_capability")]
async fn missing_capability(#[ctx] session: Session) -> Result<String, ToolError> {
    Ok(session
        .sample(SamplingRequest::new("Say hello", 20))
        .await?
        .text)
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

const FIXTURE_TOOLS: [&str; 23] = [
    "test_streaming_elicitation",
    "test_missing_capability",
    "test_sampling",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_capabilities",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "test_input_required_result_elicitation",
    "test_input_required_result_request_state",
    "test_input_required_result_multi_round",
    "test_tool_with_progress",
    "test_simple_text",
    "test_logging_tool",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_error_handling",
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
    // A 2025-11-25 client can be asked while its call runs (elicitation, sampling) only
    // within a session; 2026-07-28 is served statelessly either way.
    let options = HttpOptions::loopback(0).legacy_sessions(version == "2025-11-25");
    let server = runtime
        .block_on(HttpServer::bind(coordinator, options))
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

//! A tool's own questions (`Session::elicit`) answered by a client nobody here wrote: the
//! official MCP Python SDK (`mcp` 2.3), checks in `tests/mcp/questions.py`. Over stdio's
//! framing in legacy mode (2025-11-25: `elicitation/create` while the tool waits) and
//! automatic mode (2026-07-28: the `input_required` round trip, the tool run again with the
//! answers), and over streamable HTTP in automatic mode and, with sessions for 2025-11-25
//! clients (`HttpOptions::legacy_sessions`), in legacy mode: answered, declined, two questions
//! over two rounds, an action after the question done once, a message from the client's
//! model and its roots (`Session::sample`, `Session::roots`) asked at once, the rounds by
//! hand with a tampered state refused, and a client without elicitation or sampling told why
//! (at 2026-07-28 with -32021: before the round when asked at once with a question, never
//! when the tool failed for another reason). By hand at 2026-07-28 also: the policy's
//! approval then the tool's question, a stray approval response in the question's round
//! ignored; and a tool that carried on past a pending question asking nothing more that run.
//!
//! The fixture tools are served in process. For stdio, the server speaks on a loopback
//! socket and the SDK's stdio client spawns a relay between its pipes and that socket
//! (`questions.py relay PORT`), so the bytes are the stdio transport's.
//!
//! The SDK is found as in `mcp_python.rs`; without it the tests say so and pass, unless
//! `TOOLKIT_REQUIRE_MCP_CLIENTS` is set.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::ServiceExt;
use serde_json::{Value, json};
use tool_core::approval::{Answer, Question, SamplingRequest};
use tool_core::coordinator::Session;
use tool_core::mcp::{HttpOptions, HttpServer, McpServer};
use tool_core::{Coordinator, State, ToolError, Toolset, tool};

mod peers;
use peers::{python, script_passed};

/// A form with one required text field.
fn one_field(name: &str) -> Value {
    json!({"type": "object", "properties": {name: {"type": "string"}}, "required": [name]})
}

/// The text of field `name` of an accepted answer.
fn field(answer: Answer, name: &str) -> Option<String> {
    match answer {
        Answer::Accept(content) => content.get(name).and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}

/// Ask the user's name and greet them.
#[tool(read_only, name = "q_greet")]
async fn greet(#[ctx] session: Session) -> Result<String, ToolError> {
    let question = Question::new("What is your name?", one_field("name"))?;
    Ok(match field(session.elicit(question).await?, "name") {
        Some(name) => format!("Hello, {name}!"),
        None => "declined".to_owned(),
    })
}

/// Ask a name, then a color.
#[tool(read_only, name = "q_two")]
async fn two(#[ctx] session: Session) -> Result<String, ToolError> {
    let name = session
        .elicit(Question::new("Name?", one_field("name"))?)
        .await?;
    let color = session
        .elicit(Question::new("Color?", one_field("color"))?)
        .await?;
    Ok(format!(
        "{} likes {}",
        field(name, "name").unwrap_or_default(),
        field(color, "color").unwrap_or_default()
    ))
}

/// How many times `q_act` acted.
#[derive(Default)]
struct Acted(AtomicUsize);

/// Ask whether to go, then act (count), asking before acting.
#[tool(read_only, name = "q_act")]
async fn act(#[ctx] session: Session, acted: State<Acted>) -> Result<String, ToolError> {
    let schema =
        json!({"type": "object", "properties": {"go": {"type": "boolean"}}, "required": ["go"]});
    session.elicit(Question::new("Go?", schema)?).await?;
    let times = acted.0.fetch_add(1, Ordering::SeqCst) + 1;
    Ok(format!(
        "acted {times} time{}",
        if times == 1 { "" } else { "s" }
    ))
}

/// Ask the client's model, then list the client's roots, at once.
#[tool(read_only, name = "q_sample_and_roots")]
async fn sample_and_roots(#[ctx] session: Session) -> Result<String, ToolError> {
    let (sampled, roots) = tokio::join!(
        session.sample(SamplingRequest::new("Name a color.", 20)),
        session.roots()
    );
    let roots: Vec<String> = roots?
        .into_iter()
        .map(|root| format!("{} ({})", root.uri, root.name.unwrap_or_default()))
        .collect();
    Ok(format!("{} / {}", sampled?.text, roots.join(", ")))
}

/// Ask the client's model, go on without its message, then fail for a reason of its own.
#[tool(read_only, name = "q_sample_then_fail")]
async fn sample_then_fail(#[ctx] session: Session) -> Result<String, ToolError> {
    let _optional = session
        .sample(SamplingRequest::new("Name a color.", 20))
        .await;
    Err(ToolError::failed("the tool failed for a reason of its own"))
}

/// Ask the user and the client's model at once.
#[tool(read_only, name = "q_ask_and_sample")]
async fn ask_and_sample(#[ctx] session: Session) -> Result<String, ToolError> {
    let question = Question::new("Name?", one_field("name"))?;
    let (answer, sampled) = tokio::join!(
        session.elicit(question),
        session.sample(SamplingRequest::new("Name a color.", 20))
    );
    Ok(format!(
        "{} / {}",
        field(answer?, "name").unwrap_or_default(),
        sampled?.text
    ))
}

/// Ask the user's name, as a tool the policy asks about (it may change things): the approval
/// round comes first, then the question's.
#[tool(name = "q_guarded")]
async fn guarded(#[ctx] session: Session) -> Result<String, ToolError> {
    let question = Question::new("Name?", one_field("name"))?;
    Ok(format!(
        "approved, {}",
        field(session.elicit(question).await?, "name").unwrap_or_default()
    ))
}

/// Ask, carry on past the answer whatever it is (even pending), then ask again.
#[tool(read_only, name = "q_careless")]
async fn careless(#[ctx] session: Session) -> Result<String, ToolError> {
    let first = session
        .elicit(Question::new("Name?", one_field("name"))?)
        .await
        .unwrap_or(Answer::Cancel);
    let second = session
        .elicit(Question::new("Color?", one_field("color"))?)
        .await?;
    Ok(format!(
        "{} likes {}",
        field(first, "name").unwrap_or_default(),
        field(second, "color").unwrap_or_default()
    ))
}

fn coordinator() -> Coordinator {
    Coordinator::builder()
        .toolset(
            Toolset::named([
                "q_greet",
                "q_two",
                "q_act",
                "q_sample_and_roots",
                "q_sample_then_fail",
                "q_ask_and_sample",
                "q_guarded",
                "q_careless",
            ])
            .unwrap(),
        )
        .state(Acted::default())
        .build()
        .unwrap()
}

/// Serves the fixture over `transport` and runs `questions.py` in `mode` against it.
fn run(mode: &str, transport: &str, checks: &[&str]) {
    let Some(python) = python() else { return };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let address = match transport {
        "stdio" => {
            let listener = runtime
                .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
                .unwrap();
            let port = listener.local_addr().unwrap().port();
            let coordinator = coordinator();
            runtime.spawn(async move {
                // One server per connection, as one per spawned process over stdio.
                while let Ok((stream, _)) = listener.accept().await {
                    let server = McpServer::new(coordinator.clone());
                    tokio::spawn(async move {
                        if let Ok(running) = server.serve(stream.into_split()).await {
                            let _ = running.waiting().await;
                        }
                    });
                }
            });
            port.to_string()
        }
        _ => {
            let options = HttpOptions::loopback(0).legacy_sessions(transport == "http-sessions");
            let server = runtime
                .block_on(HttpServer::bind(coordinator(), options))
                .unwrap();
            let url = server.url();
            runtime.spawn(server.run());
            url
        }
    };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/questions.py");
    let output = Command::new(python)
        .arg(script)
        .args([mode, transport, &address])
        .output()
        .expect("python runs");
    script_passed(&output, checks);
}

const CHECKS: &[&str] = &[
    "ok question answered",
    "ok question declined",
    "ok two questions",
    "ok acted once",
    "ok sampled and listed roots",
    "ok refused without elicitation",
    "ok refused without sampling or roots",
    "ok a tool failing for a reason of its own gets its result",
];

const ROUND_TRIP: &[&str] = &[
    "ok tampered state refused",
    "ok rounds by hand",
    "ok refused before asking when a capability is missing",
    "ok approval then question",
    "ok no request after a pending one",
];

#[test]
fn the_python_sdk_answers_a_tools_questions_by_elicitation_create_over_stdio_at_2025_11_25() {
    run("legacy", "stdio", CHECKS);
}

#[test]
fn the_python_sdk_answers_a_tools_questions_by_the_round_trip_over_stdio_at_2026_07_28() {
    run("auto", "stdio", &[CHECKS, ROUND_TRIP].concat());
}

#[test]
fn the_python_sdk_answers_a_tools_questions_by_elicitation_create_over_http_with_sessions_at_2025_11_25()
 {
    run("legacy", "http-sessions", CHECKS);
}

#[test]
fn the_python_sdk_answers_a_tools_questions_by_the_round_trip_over_http_at_2026_07_28() {
    run("auto", "http", &[CHECKS, ROUND_TRIP].concat());
}

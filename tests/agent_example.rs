//! `cargo run --example agent`, the README's first command, replayed to its end as CI runs it
//! (no terminal: the scripted user answers): every step the example promises shows in its
//! transcript, the conversation goes back to the model in OpenAI's format, and the sample's
//! tests pass at the end. Its live mode, against a loopback server streaming recorded
//! responses as an OpenAI-compatible endpoint does, recovers from a tool error.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

// `from_env` and `model` are main's; the tests name the endpoint themselves.
#[allow(dead_code)]
#[path = "../examples/agent/live.rs"]
mod live;
#[path = "../examples/agent/replay.rs"]
mod replay;
#[path = "../examples/agent/session.rs"]
mod session;
#[path = "../examples/agent/wire.rs"]
mod wire;

/// The transcript of a whole session with `model` in a fresh copy of the sample, answered by
/// the scripted user; the session's outcome and the project it changed.
async fn session_with(
    model: &mut dyn session::Model,
) -> (
    String,
    session::Outcome,
    tempfile::TempDir,
    std::path::PathBuf,
) {
    let scratch = tempfile::tempdir().unwrap();
    let root = session::copy_sample(scratch.path()).unwrap();
    let log = session::Log::default();
    let user = session::ScriptedUser { log: log.clone() };
    let mut out = Vec::new();
    let style = session::Style { colour: false };
    let outcome = session::run(&root, model, user, log, style, &mut out)
        .await
        .unwrap();
    (String::from_utf8(out).unwrap(), outcome, scratch, root)
}

/// The bundled conversation, replayed whole.
async fn replayed() -> (
    String,
    session::Outcome,
    tempfile::TempDir,
    std::path::PathBuf,
) {
    session_with(&mut replay::Replay::bundled()).await
}

/// The part of `transcript` from `── turn N ──` to the next turn.
fn turn(transcript: &str, number: usize) -> &str {
    let start = transcript
        .find(&format!("── turn {number} ──"))
        .unwrap_or_else(|| panic!("no turn {number}:\n{transcript}"));
    let rest = &transcript[start..];
    let marker = "── turn ".len();
    let end = rest[marker..]
        .find("── turn ")
        .map_or(rest.len(), |at| at + marker);
    &rest[..end]
}

fn shows(part: &str, what: &[&str]) {
    for needle in what {
        assert!(part.contains(needle), "missing {needle:?} in:\n{part}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_command_replays_every_step_and_ends_with_the_tests_passing() {
    let (transcript, outcome, _scratch, root) = replayed().await;

    // The map and a search, as one parallel batch; then a read.
    shows(
        turn(&transcript, 1),
        &[
            "2 calls, run as one batch",
            "call  repo_map",
            "call  grep",
            "stats/core.py:4:def mean(values):",
        ],
    );
    shows(
        turn(&transcript, 2),
        &["call  read_file", "sum(values) / (len(values) - 1)"],
    );
    // Plan mode refuses the edit; the plan is accepted.
    shows(turn(&transcript, 3), &["policy deny: plan mode is on", "✗"]);
    shows(
        turn(&transcript, 4),
        &[
            "call  present_plan",
            "user accepts the plan",
            "now in accept_edits mode",
        ],
    );
    // The tests run once the user approves, and fail.
    shows(
        turn(&transcript, 5),
        &[
            "policy ask",
            "user approves `run_shell` for the session",
            "Exit code: 1",
        ],
    );
    // An edit with the wrong indentation, found by the ladder; the settings' hook adds its rule.
    shows(
        turn(&transcript, 6),
        &[
            "accept_edits mode is on",
            "matched at a different indentation",
            "Project rule: run python3 -B -m unittest",
        ],
    );
    shows(
        turn(&transcript, 7),
        &["call  apply_patch", "Success. Updated the following files"],
    );
    shows(turn(&transcript, 8), &["Exit code: 0", "OK"]);
    // Code mode: one snippet, two tool calls.
    shows(
        turn(&transcript, 9),
        &["call  execute", "Tool calls: 2", "# stats"],
    );
    // Outside the workspace: refused; the glob beside it in the batch still runs.
    shows(
        turn(&transcript, 10),
        &["outside every workspace root", "tests/test_core.py"],
    );
    // `rm` behind `cd` and `sudo`: the settings' deny rule holds.
    shows(
        turn(&transcript, 11),
        &["policy deny", "deny rule `Bash(rm:*)`"],
    );
    shows(turn(&transcript, 12), &["model  Done"]);

    assert_eq!(outcome.turns, 12);
    assert!(outcome.tests_pass, "{transcript}");
    let fixed = std::fs::read_to_string(root.join("stats/core.py")).unwrap();
    assert!(
        fixed.contains("return sum(values) / len(values)"),
        "{fixed}"
    );
    assert!(fixed.contains("ordered = sorted(values)"), "{fixed}");
    assert!(
        root.join("tests/test_core.py").exists(),
        "the tests are all there"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_is_answered_in_openai_format_with_its_call_id() {
    let (_, outcome, _scratch, _) = replayed().await;
    let messages = outcome.last_request["messages"].as_array().unwrap();
    let asked: Vec<&str> = messages
        .iter()
        .filter(|message| message["role"] == "assistant")
        .flat_map(|message| message["tool_calls"].as_array().into_iter().flatten())
        .map(|call| call["id"].as_str().unwrap())
        .collect();
    let answered: Vec<&str> = messages
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| message["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(asked.len(), 13, "{asked:?}");
    assert_eq!(asked, answered);
    // A refusal reads as an error to the model: OpenAI's tool messages carry no error flag.
    assert!(messages.iter().any(|message| {
        message["role"] == "tool"
            && message["content"]
                .as_str()
                .unwrap()
                .starts_with("Error: permission denied")
    }));
}

/// One streamed turn, as an OpenAI-compatible server sends it: the text in pieces, then each
/// call's name and its arguments in pieces, then the finish reason and `[DONE]`.
fn streamed_turn(text: &str, calls: &[Call<'_>]) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            .to_string()
    };
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for piece in text.as_bytes().chunks(10) {
        events.push(chunk(
            json!({"content": String::from_utf8_lossy(piece)}),
            Value::Null,
        ));
    }
    for (index, (id, name, arguments)) in calls.iter().enumerate() {
        events.push(chunk(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
            Value::Null,
        ));
        let arguments = arguments.to_string();
        for piece in arguments.as_bytes().chunks(7) {
            events.push(chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": String::from_utf8_lossy(piece)}}]}),
                Value::Null,
            ));
        }
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    events.push(chunk(json!({}), json!(finish)));
    events.push("[DONE]".to_owned());
    events
        .into_iter()
        .map(|data| format!("data: {data}"))
        .collect()
}

/// One streamed turn as Anthropic's Messages API sends it: a text block, then a tool use block
/// per call with its input in pieces, each event named and carrying its JSON.
fn anthropic_turn(text: &str, calls: &[Call<'_>]) -> Vec<String> {
    let event = |data: Value| format!("event: {}\ndata: {data}", data["type"].as_str().unwrap());
    let mut events = vec![
        event(
            json!({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}}),
        ),
        event(
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
    ];
    for piece in text.as_bytes().chunks(10) {
        events.push(event(json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": String::from_utf8_lossy(piece)}})));
    }
    events.push(event(json!({"type": "content_block_stop", "index": 0})));
    for (at, (id, name, input)) in calls.iter().enumerate() {
        let index = at + 1;
        events.push(event(json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})));
        for piece in input.to_string().as_bytes().chunks(7) {
            events.push(event(json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": String::from_utf8_lossy(piece)}})));
        }
        events.push(event(json!({"type": "content_block_stop", "index": index})));
    }
    let stop = if calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    events.push(event(
        json!({"type": "message_delta", "delta": {"stop_reason": stop}}),
    ));
    events.push(event(json!({"type": "message_stop"})));
    events
}

/// A loopback chat completions endpoint: answers each POST with the next turn, streamed as
/// server-sent events in chunked encoding, and keeps each request's head and body.
struct Endpoint {
    base: String,
    requests: Arc<Mutex<Vec<(String, Value)>>>,
}

async fn endpoint(turns: Vec<Vec<String>>) -> Endpoint {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let kept = requests.clone();
    tokio::spawn(async move {
        for events in turns {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut received = Vec::new();
            let mut buffer = [0u8; 8192];
            let (head, body) = loop {
                let read = socket.read(&mut buffer).await.unwrap();
                received.extend_from_slice(&buffer[..read]);
                let text = String::from_utf8_lossy(&received).into_owned();
                if let Some((head, body)) = text.split_once("\r\n\r\n") {
                    let length: usize = head
                        .lines()
                        .find_map(|line| {
                            line.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse().unwrap())
                        })
                        .unwrap_or(0);
                    if body.len() >= length {
                        break (head.to_owned(), serde_json::from_str(body).unwrap());
                    }
                }
                assert!(read > 0, "the client closed before its request was whole");
            };
            kept.lock().unwrap().push((head, body));
            socket
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
                .await
                .unwrap();
            for event in events {
                let data = format!("{event}\n\n");
                socket
                    .write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())
                    .await
                    .unwrap();
                socket.flush().await.unwrap();
            }
            socket.write_all(b"0\r\n\r\n").await.unwrap();
        }
    });
    Endpoint { base, requests }
}

/// A tool call as a recorded turn names it: its id, the tool, the arguments.
type Call<'a> = (&'a str, &'a str, Value);

/// Writes one streamed turn in a provider's format: the model's text, then its calls.
type TurnWriter = fn(&str, &[Call<'_>]) -> Vec<String>;

/// A model that reads a file that is not there, reads the error, recovers by reading the one
/// that is, and stops: three turns written by `write` (a provider's streaming format), the
/// first call's id `first`, the second's `second`.
fn recovering(write: TurnWriter, first: &str, second: &str) -> Vec<Vec<String>> {
    vec![
        write(
            "Reading the module.",
            &[(first, "read_file", json!({"path": "stats/missing.py"}))],
        ),
        write(
            "No such file; the code is in stats/core.py.",
            &[(second, "read_file", json!({"path": "stats/core.py"}))],
        ),
        write("mean() divides by len(values) - 1: that is the bug.", &[]),
    ]
}

/// The transcript of [`recovering`]: the error read, the recovery, the end.
fn shows_the_recovery(transcript: &str, outcome: &session::Outcome) {
    assert_eq!(outcome.turns, 3, "{transcript}");
    shows(turn(transcript, 1), &["model  Reading the module.", "✗"]);
    shows(
        turn(transcript, 2),
        &["model  No such file", "✓", "def mean(values):"],
    );
    shows(turn(transcript, 3), &["that is the bug"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_mode_streams_from_an_openai_compatible_endpoint_and_recovers_from_a_tool_error() {
    let served = endpoint(recovering(streamed_turn, "call_1", "call_2")).await;
    let mut model = live::Endpoint::openai(&served.base, "test-key", "test-model").unwrap();
    let (transcript, outcome, _scratch, _root) = session_with(&mut model).await;

    shows_the_recovery(&transcript, &outcome);
    shows(turn(&transcript, 1), &["Error:"]);

    let requests = served.requests.lock().unwrap();
    assert_eq!(requests.len(), 3);
    for (head, body) in requests.iter() {
        assert!(head.starts_with("POST /v1/chat/completions "), "{head}");
        assert!(
            head.to_ascii_lowercase()
                .contains("authorization: bearer test-key"),
            "{head}"
        );
        assert_eq!(body["model"], "test-model");
        assert_eq!(body["stream"], true);
        assert!(!body["tools"].as_array().unwrap().is_empty());
    }
    // The second request carries the tool error the model recovered from, answered to its call.
    let tool_messages: Vec<&Value> = requests[1].1["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "tool")
        .collect();
    assert_eq!(tool_messages.len(), 1);
    assert_eq!(tool_messages[0]["tool_call_id"], "call_1");
    assert!(
        tool_messages[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("Error: "),
        "{}",
        tool_messages[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_mode_speaks_anthropics_messages_api_and_recovers_from_a_tool_error() {
    let served = endpoint(recovering(anthropic_turn, "toolu_1", "toolu_2")).await;
    let base = served.base.trim_end_matches("/v1");
    let mut model = live::Endpoint::anthropic(base, "test-key", "test-model").unwrap();
    let (transcript, outcome, _scratch, _root) = session_with(&mut model).await;

    shows_the_recovery(&transcript, &outcome);

    let requests = served.requests.lock().unwrap();
    assert_eq!(requests.len(), 3);
    for (head, body) in requests.iter() {
        let head = head.to_ascii_lowercase();
        assert!(head.starts_with("post /v1/messages "), "{head}");
        assert!(
            head.contains("x-api-key: test-key") && head.contains("anthropic-version: "),
            "{head}"
        );
        assert_eq!(body["model"], "test-model");
        assert_eq!(body["stream"], true);
        assert!(
            body["system"].is_string() && body["max_tokens"].is_u64(),
            "{body}"
        );
        assert!(
            body["tools"][0]["input_schema"].is_object(),
            "Anthropic's dialect"
        );
    }
    // The second request: the model's tool use, then the error it recovered from, flagged.
    let messages = requests[1].1["messages"].as_array().unwrap();
    let used = &messages[1]["content"];
    assert!(
        used.as_array()
            .unwrap()
            .iter()
            .any(|block| block["type"] == "tool_use"
                && block["id"] == "toolu_1"
                && block["input"]["path"] == "stats/missing.py"),
        "{used}"
    );
    let answered = &messages[2];
    assert_eq!(answered["role"], "user");
    assert_eq!(answered["content"][0]["type"], "tool_result");
    assert_eq!(answered["content"][0]["tool_use_id"], "toolu_1");
    assert_eq!(answered["content"][0]["is_error"], true, "{answered}");
}

//! `cargo run --example agent`, the README's first command, replayed to its end as CI runs it
//! (no terminal: the scripted user answers): every step the example promises shows in its
//! transcript, the conversation goes back to the model in OpenAI's format, and the sample's
//! tests pass at the end.

#[path = "../examples/agent/replay.rs"]
mod replay;
#[path = "../examples/agent/session.rs"]
mod session;

/// The transcript of a whole replay, the session's outcome and the project it changed.
async fn replayed() -> (
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
    let outcome = session::run(
        &root,
        &mut replay::Replay::bundled(),
        user,
        log,
        session::Style { colour: false },
        &mut out,
    )
    .await
    .unwrap();
    (String::from_utf8(out).unwrap(), outcome, scratch, root)
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

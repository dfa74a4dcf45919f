//! `execute`: Python in monty's sandbox calling the toolset's tools as functions, each a
//! nested call through the coordinator: results combined, denied calls caught, every limit
//! stopping a run by name, plan mode obeyed, nesting visible, and the stubs a model reads.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tool_core::budget::{Budget, BudgetConfig, BudgetKind};
use tool_core::context::{CallInfo, CancellationToken};
use tool_core::coordinator::CoordinatorBuilder;
use tool_core::events::CallEvent;
use tool_core::policy::{Mode, PolicyBuilder};
use tool_core::{Coordinator, Json, ToolCall, ToolError, ToolResult, Toolset, Workspace, tool};
use tool_std::code::{CodeModeConfig, Isolation, python_stubs};
use tool_std::fs::FileSession;

mod common;
use common::{Fixture, err, ok};

/// Say which call this is and how deeply it is nested.
#[tool(read_only, name = "execute_test_whoami")]
fn whoami(call: &CallInfo) -> String {
    format!("{} at depth {}", call.call_id, call.depth)
}

/// Counts of a text.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Counts {
    lines: usize,
    words: usize,
}

/// Count a text's lines and words.
#[tool(read_only, name = "execute_test_count")]
fn count(text: String) -> Json<Counts> {
    Json(Counts {
        lines: text.lines().count(),
        words: text.split_whitespace().count(),
    })
}

#[path = "execute_support/rendezvous.rs"]
mod rendezvous;

/// Set when a call of `execute_test_wait` saw its cancellation.
static WAIT_SAW_CANCELLATION: AtomicBool = AtomicBool::new(false);

/// Wait until the call is cancelled.
#[tool(read_only, blocking, name = "execute_test_wait")]
fn wait(stop: &CancellationToken) -> &'static str {
    while !stop.is_cancelled() {
        std::thread::sleep(Duration::from_millis(5));
    }
    WAIT_SAW_CANCELLATION.store(true, Ordering::SeqCst);
    "cancelled"
}

/// Whether `flag` is set within a minute (it is set by a thread the test does not join).
fn becomes_set(flag: &AtomicBool) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if flag.load(Ordering::SeqCst) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

/// `tools` over a fresh workspace, the coordinator configured further by `configure`.
fn fixture_with(
    tools: &[&str],
    configure: impl FnOnce(CoordinatorBuilder) -> CoordinatorBuilder,
) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let builder = Coordinator::builder()
        .toolset(Toolset::named(tools.iter().copied()).unwrap())
        .workspace(Workspace::new(&root).unwrap());
    let coordinator = configure(builder).build().unwrap();
    Fixture {
        dir,
        root,
        coordinator,
    }
}

/// `execute`, `read_file` and `grep`, the run limited by `config`.
fn limited(config: CodeModeConfig) -> Fixture {
    fixture_with(&["execute", "read_file", "grep"], |builder| {
        builder.state(config)
    })
}

impl Fixture {
    fn execute(&self, code: &str) -> ToolResult {
        self.call("execute", json!({ "code": code }))
    }

    /// The structured answer of a run that must succeed.
    fn run(&self, code: &str) -> Value {
        let result = self.execute(code);
        ok(&result);
        result.structured().cloned().unwrap()
    }
}

#[test]
fn code_reads_a_file_and_greps_and_combines_the_results() {
    let fx = Fixture::new(&["execute", "read_file", "grep"]);
    fx.file("notes.md", b"alpha\nbeta\ngamma\n");
    fx.file("src/a.rs", b"// TODO: one\n");
    fx.file("src/b.rs", b"// TODO: two\n");
    let answer = fx.run(
        r#"
text = read_file(path="notes.md")
files = grep("TODO").splitlines()
{"second": text.splitlines()[1].split("\t")[1], "files": sorted(files)}
"#,
    );
    assert_eq!(
        answer,
        json!({
            "printed": "",
            "value": {"second": "beta", "files": ["src/a.rs", "src/b.rs"]},
            "tool_calls": 2
        })
    );
}

#[test]
fn a_loop_makes_one_call_per_iteration_and_prints_what_it_found() {
    let fx = Fixture::new(&["execute", "read_file"]);
    for name in ["a", "b", "c"] {
        fx.file(
            &format!("{name}.txt"),
            format!("{name}1\n{name}2\n").as_bytes(),
        );
    }
    let answer = fx.run(
        r#"
total = 0
for name in ["a", "b", "c"]:
    lines = read_file(name + ".txt").splitlines()
    print(name, len(lines))
    total += len(lines)
total
"#,
    );
    assert_eq!(answer["printed"], "a 2\nb 2\nc 2\n");
    assert_eq!(answer["value"], 6);
    assert_eq!(answer["tool_calls"], 3);
}

#[test]
fn positional_arguments_fill_the_parameters_in_the_signatures_order() {
    let fx = Fixture::new(&["execute", "read_file"]);
    fx.file("a.txt", b"one\ntwo\nthree\n");
    let answer = fx.run(r#"read_file("a.txt", 2, 1)"#);
    assert!(
        answer["value"]
            .as_str()
            .unwrap()
            .starts_with("     2\ttwo\n"),
        "{answer}"
    );
}

#[test]
fn a_tools_structured_result_is_a_dict_in_python() {
    let fx = Fixture::new(&["execute", "execute_test_count"]);
    let answer = fx.run(
        r#"
counts = execute_test_count(text="one two\nthree")
[counts["lines"], counts["words"], sorted(counts.keys())]
"#,
    );
    assert_eq!(answer["value"], json!([2, 3, ["lines", "words"]]));
}

#[test]
fn the_recursion_limit_raises_recursion_error_at_the_configured_depth() {
    let code = "def down(n):\n    return 0 if n == 0 else down(n - 1)\ntry:\n    result = down(100)\nexcept RecursionError:\n    result = 'too deep'\nresult\n";
    let fx = Fixture::new(&["execute"]);
    assert_eq!(fx.run(code)["value"], 0);
    let fx = limited(CodeModeConfig {
        max_recursion_depth: 50,
        ..CodeModeConfig::default()
    });
    assert_eq!(fx.run(code)["value"], "too deep");
}

#[test]
fn awaited_calls_run_side_by_side_with_asyncio_gather() {
    let fx = Fixture::new(&["execute", "execute_test_rendezvous"]);
    let answer = fx.run(
        r#"
import asyncio
first, second = await asyncio.gather(execute_test_rendezvous(), execute_test_rendezvous())
[first, second]
"#,
    );
    assert_eq!(
        answer["value"],
        json!(["met", "met"]),
        "the calls ran one after the other"
    );
    assert_eq!(answer["tool_calls"], 2);
}

#[test]
fn an_awaited_call_that_fails_raises_at_its_await() {
    let fx = Fixture::new(&["execute", "read_file"]);
    fx.file("a.txt", b"a\n");
    let answer = fx.run(
        r#"
try:
    await read_file("missing.txt")
    outcome = "read"
except RuntimeError as error:
    outcome = str(error)
[outcome.split(":")[0], await read_file("a.txt")]
"#,
    );
    assert_eq!(answer["value"], json!(["read_file", "     1\ta\n"]));
}

#[test]
fn a_denied_call_raises_permission_error_which_the_code_catches_and_goes_on() {
    let fx = fixture_with(&["execute", "read_file", "grep"], |builder| {
        builder.policy(PolicyBuilder::default().deny("grep"))
    });
    fx.file("a.txt", b"kept\n");
    let answer = fx.run(
        r#"
try:
    grep("anything")
    outcome = "ran"
except PermissionError as error:
    outcome = str(error)
[outcome, read_file("a.txt")]
"#,
    );
    let outcome = answer["value"][0].as_str().unwrap();
    assert!(outcome.starts_with("grep: permission denied"), "{outcome}");
    assert!(outcome.contains("deny rule `grep`"), "{outcome}");
    assert_eq!(answer["value"][1], "     1\tkept\n");
    assert_eq!(answer["tool_calls"], 2);
}

#[test]
fn the_calls_the_code_makes_draw_on_the_sessions_budget() {
    let budget = Arc::new(Budget::new(BudgetConfig {
        exploration: 2,
        ..BudgetConfig::default()
    }));
    let reads = budget.limit(BudgetKind::Exploration, Mode::Default);
    let fx = fixture_with(&["execute", "read_file"], |builder| {
        builder.budget(Arc::clone(&budget))
    });
    fx.file("a.txt", b"a\n");
    let answer = fx.run(
        r#"
done = 0
refused = None
for _ in range(10):
    try:
        read_file("a.txt")
        done += 1
    except PermissionError as error:
        refused = str(error)
[done, refused]
"#,
    );
    assert_eq!(answer["value"][0], reads);
    let refused = answer["value"][1].as_str().unwrap();
    assert!(refused.contains("exploration"), "{refused}");
}

#[test]
fn a_failed_call_raises_with_the_tools_message() {
    let fx = Fixture::new(&["execute", "read_file"]);
    let text = err(&fx.execute(r#"read_file("missing.txt")"#));
    assert!(text.contains("RuntimeError: read_file: "), "{text}");
    assert!(text.contains("missing.txt"), "{text}");
    assert!(text.contains("It made 1 tool call"), "{text}");
}

#[test]
fn a_syntax_error_is_reported_with_its_line() {
    let fx = Fixture::new(&["execute", "read_file"]);
    let text = err(&fx.execute("x = 1\nif x\n    print(x)\n"));
    assert!(text.contains("SyntaxError"), "{text}");
    assert!(text.contains("line 2"), "{text}");
    assert!(text.contains("It made no tool calls"), "{text}");
}

#[test]
fn an_exception_the_code_raises_comes_back_as_a_traceback_with_its_line() {
    let fx = Fixture::new(&["execute", "read_file"]);
    let text = err(&fx.execute("print('before')\nvalues = {}\nvalues['missing']\n"));
    assert!(
        text.contains("Traceback (most recent call last):"),
        "{text}"
    );
    assert!(text.contains("line 3"), "{text}");
    assert!(text.contains("KeyError: missing"), "{text}");
    assert!(
        text.ends_with("printed before it stopped:)\nbefore\n"),
        "{text}"
    );
}

#[test]
fn calling_a_function_that_is_not_there_lists_those_that_are() {
    let fx = Fixture::new(&["execute", "read_file"]);
    let text = err(&fx.execute(r#"write_file("a.txt", "x")"#));
    assert!(text.contains("NameError"), "{text}");
    assert!(text.contains("The functions the code can call:"), "{text}");
    assert!(text.contains("def read_file(\n    path: str,\n"), "{text}");
    assert!(!text.contains("def execute("), "{text}");
}

#[test]
fn wrong_arguments_raise_type_error_naming_the_parameters() {
    let fx = Fixture::new(&["execute", "read_file"]);
    let answer = fx.run(
        r#"
try:
    read_file(name="a.txt")
except TypeError as error:
    message = str(error)
message
"#,
    );
    assert_eq!(
        answer["value"],
        "read_file() got an unexpected keyword argument 'name'; its parameters: path, offset, limit, anchors"
    );
    assert_eq!(answer["tool_calls"], 0);
}

#[test]
fn a_value_with_no_json_form_comes_back_as_its_repr() {
    let fx = Fixture::new(&["execute", "read_file"]);
    let answer = fx.run("b'abc'");
    assert_eq!(answer["value"], "b'abc'");
    assert_eq!(answer["value_is_repr"], true);
    let answer = fx.run("x = 1");
    assert_eq!(answer["value"], Value::Null);
}

#[test]
fn every_answer_matches_the_output_schema() {
    let schema = tool_core::Registry::global()
        .get("execute")
        .and_then(|tool| tool.output_schema())
        .expect("execute has an output schema");
    let validator = jsonschema::draft202012::new(schema.as_value()).unwrap();
    let fx = Fixture::new(&["execute", "read_file"]);
    for code in ["1 + 1", "b'abc'", "x = 1", "print('hi')"] {
        let answer = fx.run(code);
        let problems: Vec<String> = validator
            .iter_errors(&answer)
            .map(|error| error.to_string())
            .collect();
        assert!(problems.is_empty(), "{code}: {answer} fails: {problems:?}");
    }
}

#[test]
fn the_sandbox_has_no_filesystem_of_its_own() {
    let fx = Fixture::new(&["execute", "read_file"]);
    let answer = fx.run(
        r#"
from pathlib import Path
try:
    Path("/etc/hostname").read_text()
except PermissionError as error:
    message = str(error)
message
"#,
    );
    let message = answer["value"].as_str().unwrap();
    assert!(message.contains("no filesystem"), "{message}");
}

#[test]
fn an_infinite_loop_is_stopped_by_the_time_limit() {
    let fx = limited(CodeModeConfig {
        time_limit: Duration::from_millis(300),
        ..CodeModeConfig::default()
    });
    let text = err(&fx.execute("print('started')\nwhile True:\n    pass\n"));
    assert!(
        text.starts_with("the code was stopped by the time limit of 0.3 s"),
        "{text}"
    );
    assert!(text.ends_with("started\n"), "{text}");
}

#[test]
fn a_long_computation_is_stopped_by_the_step_limit() {
    let fx = limited(CodeModeConfig {
        max_steps: 10_000,
        // Steps are counted in-process only; a worker (the default where its binary
        // exists) is bounded by the time limit instead.
        isolation: Isolation::InProcess,
        ..CodeModeConfig::default()
    });
    let text = err(&fx.execute("total = 0\nfor i in range(10_000_000):\n    total += i\n"));
    assert!(
        text.starts_with("the code was stopped by the step limit of 10000 interpreter steps"),
        "{text}"
    );
}

#[test]
fn a_limit_the_code_catches_still_stops_the_run() {
    let fx = limited(CodeModeConfig {
        max_steps: 10_000,
        // Steps are counted in-process only; a worker (the default where its binary
        // exists) is bounded by the time limit instead.
        isolation: Isolation::InProcess,
        ..CodeModeConfig::default()
    });
    let text = err(&fx.execute(
        "for attempt in range(3):\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n'finished'\n",
    ));
    assert!(text.contains("stopped by the step limit"), "{text}");
}

#[test]
fn too_many_tool_calls_are_stopped_by_the_call_limit() {
    let fx = limited(CodeModeConfig {
        max_tool_calls: 3,
        ..CodeModeConfig::default()
    });
    fx.file("a.txt", b"a\n");
    let text = err(&fx.execute("for _ in range(10):\n    read_file('a.txt')\n"));
    assert!(
        text.starts_with("the code was stopped by the tool call limit of 3 calls per run"),
        "{text}"
    );
    assert!(
        text.contains("It made 3 tool calls, whose effects stand"),
        "{text}"
    );
}

#[test]
fn printing_too_much_is_stopped_by_the_output_limit() {
    let fx = limited(CodeModeConfig {
        max_printed_bytes: 100,
        ..CodeModeConfig::default()
    });
    let text = err(&fx.execute("for i in range(1000):\n    print('line', i)\n"));
    assert!(
        text.starts_with("the code was stopped by the printed output limit of 100 bytes"),
        "{text}"
    );
    let printed = text.split_once("printed before it stopped:)\n").unwrap().1;
    assert_eq!(printed.len(), 100, "what fits is kept: {printed:?}");
}

#[test]
fn cancelling_the_call_stops_a_computing_interpreter() {
    let cancel = CancellationToken::new();
    let fx = fixture_with(&["execute", "read_file"], |builder| {
        builder.cancellation(cancel.clone()).state(CodeModeConfig {
            time_limit: Duration::from_secs(120),
            max_steps: u64::MAX,
            ..CodeModeConfig::default()
        })
    });
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        cancel.cancel();
    });
    let result = fx.execute("while True:\n    pass\n");
    canceller.join().unwrap();
    assert!(
        matches!(result.error(), Some(ToolError::Cancelled)),
        "{}",
        result.text()
    );
}

#[test]
fn the_time_limit_cancels_the_nested_call_in_flight() {
    let fx = fixture_with(&["execute", "execute_test_wait"], |builder| {
        builder.state(CodeModeConfig {
            time_limit: Duration::from_millis(300),
            ..CodeModeConfig::default()
        })
    });
    let text = err(&fx.execute("execute_test_wait()"));
    assert!(
        text.starts_with("the code was stopped by the time limit"),
        "{text}"
    );
    assert!(text.contains("It made 1 tool call"), "{text}");
    assert!(
        becomes_set(&WAIT_SAW_CANCELLATION),
        "the nested call was never told to stop"
    );
}

#[test]
fn in_plan_mode_a_nested_write_is_refused_and_reads_run() {
    let fx = fixture_with(&["execute", "read_file", "write_file"], |builder| {
        builder
            .state(FileSession::default())
            .policy(PolicyBuilder::default().allow("write_file"))
    });
    fx.coordinator.set_mode(Mode::Plan);
    fx.file("a.txt", b"plan\n");
    let answer = fx.run(
        r#"
text = read_file("a.txt")
try:
    write_file(path="b.txt", content="written")
    refused = None
except PermissionError as error:
    refused = str(error)
[text, refused]
"#,
    );
    assert_eq!(answer["value"][0], "     1\tplan\n");
    let refused = answer["value"][1].as_str().unwrap();
    assert!(
        refused.starts_with("write_file: permission denied"),
        "{refused}"
    );
    assert!(refused.contains("plan mode"), "{refused}");
    assert!(!fx.root.join("b.txt").exists());

    fx.coordinator.set_mode(Mode::Default);
    fx.run(r#"write_file(path="b.txt", content="written")"#);
    assert_eq!(fx.bytes("b.txt"), b"written");
}

#[test]
fn nested_calls_run_one_level_deeper_with_ids_of_their_own() {
    let (events, mut received) = tokio::sync::mpsc::unbounded_channel();
    let fx = fixture_with(&["execute", "execute_test_whoami"], |builder| {
        builder.events(events)
    });
    let result = fx.coordinator.call_blocking(
        ToolCall::new(
            "execute",
            json!({"code": "[execute_test_whoami(), execute_test_whoami()]"}).to_string(),
        )
        .with_call_id("call_7"),
    );
    ok(&result);
    assert_eq!(
        result.structured().unwrap()["value"],
        json!(["call_7.1 at depth 1", "call_7.2 at depth 1"])
    );
    let mut started = Vec::new();
    while let Ok(event) = received.try_recv() {
        if let CallEvent::Started { call_id, tool } = event {
            started.push(format!("{call_id} {tool}"));
        }
    }
    assert_eq!(
        started,
        [
            "call_7 execute",
            "call_7.1 execute_test_whoami",
            "call_7.2 execute_test_whoami"
        ]
    );
}

#[test]
fn the_stubs_of_a_few_tools_match_the_golden_text() {
    let toolset = Toolset::named(["execute", "read_file", "grep", "execute_test_whoami"]).unwrap();
    let stubs = python_stubs(&toolset);
    let golden = include_str!("fixtures/execute_stubs.py");
    assert_eq!(
        stubs, golden,
        "the stubs changed; if that is meant, update tests/fixtures/execute_stubs.py with:\n{stubs}"
    );
}

#[test]
fn a_huge_allocation_raises_memory_error_instead_of_aborting_the_process() {
    let fx = Fixture::new(&["execute", "read_file"]);
    // Without a bound, the allocation fails and Rust aborts the whole process (the agent,
    // the MCP server), not just the run.
    for code in [
        "'x' * 10**12",
        "[0] * 10**12",
        "b'x' * 10**12",
        "2 ** (10**12)",
    ] {
        let text = err(&fx.execute(code));
        assert!(text.contains("MemoryError"), "{code}: {text}");
    }
    // A large allocation under the bound still runs.
    assert_eq!(fx.run("len('x' * 10**6)")["value"], 1_000_000);
}

#[test]
fn a_call_timeout_shorter_than_the_time_limit_still_reports_what_the_code_did() {
    let fx = fixture_with(&["execute", "read_file"], |builder| {
        builder.default_timeout(Duration::from_millis(500))
    });
    let text = err(&fx.execute("print('started')\nwhile True:\n    pass\n"));
    assert!(
        text.starts_with("the code was stopped by the time limit of"),
        "{text}"
    );
    assert!(text.ends_with("started\n"), "{text}");
}

#[test]
fn a_functions_value_has_the_type_its_stub_declares() {
    // todo_write answers with text and a structured copy, but declares no output schema: its
    // stub says `-> str`, so code must get the text, not a dict it was not told of.
    let fx = Fixture::new(&["execute", "todo_write", "execute_test_count"]);
    let stubs = python_stubs(&Toolset::named(["todo_write", "execute_test_count"]).unwrap());
    for (function, call) in [
        (
            "todo_write",
            "todo_write(todos=[{'content': 'Test it', 'status': 'in_progress'}])",
        ),
        ("execute_test_count", "execute_test_count('a b')"),
    ] {
        let value = fx.run(&format!("type({call}).__name__"))["value"].clone();
        let declared = stubs
            .lines()
            .find(|line| line.starts_with(&format!("def {function}(")))
            .and_then(|line| line.rsplit_once("-> "))
            .map(|(_, returns)| returns.trim_end_matches(':').to_owned())
            .unwrap();
        assert_eq!(value, json!(declared), "{function}");
    }
}

#[test]
fn an_ask_rule_on_execute_asks_before_the_code_runs() {
    let fx = fixture_with(&["execute", "read_file"], |builder| {
        builder
            .policy(PolicyBuilder::default().ask("execute"))
            .approver(tool_core::approval::DenyAll)
    });
    let result = fx.execute("1");
    assert!(
        matches!(result.error(), Some(ToolError::Rejected { .. })),
        "the user's ask rule is obeyed: {}",
        result.text()
    );
}

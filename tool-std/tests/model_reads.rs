//! What the model reads from each tool (issue 27, item 5): one representative call of every
//! tool of tool-std, its result as a provider adapter sends it (OpenAI's tool message: the
//! text, `Error: ` before a failure), compared with `tests/model_reads/<tool>.txt`. A change
//! to what a model reads shows as a diff here, to be read by a person; set `UPDATE_GOLDEN=1`
//! to rewrite the files once it is right.
//!
//! What changes from run to run is written as a placeholder: the workspace's path as
//! `<workspace>`, a loopback server's port as `<port>`, wall times as `<N> ms`.

use std::path::Path;

use serde_json::{Value, json};
use tool_core::approval::{ApprovalRequest, ApprovalResponse, ApprovalScope, Approver};
use tool_core::policy::Mode;
use tool_core::provider::openai_chat;
use tool_core::{BoxFuture, Coordinator, ToolCall, ToolError, ToolResult, Toolset, Workspace};
use tool_std::web::{
    SearchEngine, SearchError, SearchHit, SearchProvider, SearchRequest, WebConfig,
};
use tool_std::{SubAgentRunner, SubAgentTask, Subagents};

#[path = "common/http.rs"]
mod http;
use http::{Reply, Server};

/// Accepts every plan; nothing else is asked in bypass mode.
struct Accepting;

impl Approver for Accepting {
    fn approve<'a>(&'a self, _request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        Box::pin(async { ApprovalResponse::Approve(ApprovalScope::Mode(Mode::AcceptEdits)) })
    }
}

/// A search engine with two fixed hits.
struct TwoHits;

impl SearchProvider for TwoHits {
    fn name(&self) -> &str {
        "Fixed"
    }

    fn search<'a>(
        &'a self,
        request: &'a SearchRequest,
    ) -> BoxFuture<'a, Result<Vec<SearchHit>, SearchError>> {
        let query = request.query.clone();
        Box::pin(async move {
            Ok(vec![
                SearchHit {
                    url: "https://docs.rs/tokio".into(),
                    title: format!("tokio, for {query}"),
                    snippet: "An event-driven, non-blocking I/O platform.".into(),
                },
                SearchHit {
                    url: "https://tokio.rs/tokio/tutorial".into(),
                    title: "Tutorial".into(),
                    snippet: String::new(),
                },
            ])
        })
    }
}

/// A sub-agent that answers with what it was asked.
struct Echo;

impl SubAgentRunner for Echo {
    fn run<'a>(&'a self, task: SubAgentTask) -> BoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move { Ok(format!("Looked into it: {}", task.description)) })
    }
}

/// The session every call runs in: tool-std whole, over a small project, nothing asked.
fn session(root: &Path) -> Coordinator {
    Coordinator::builder()
        .toolset(Toolset::all())
        .workspace(Workspace::new(root).unwrap())
        .mode(Mode::Bypass)
        .approver(Accepting)
        .output_limit(2_000)
        .state(tool_std::fs::FileSession::default())
        .state(WebConfig::default().allow_range("127.0.0.0/8").unwrap())
        .state(SearchEngine::new(TwoHits))
        .state(Subagents::new(Echo))
        .build()
        .unwrap()
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "src/lib.rs",
        "/// The sum of two numbers.\npub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    );
    write("README.md", "# calc\n\nAdds numbers.\n");
    dir
}

/// What the model reads of `result`, with what varies between runs as placeholders.
fn reads(result: &ToolResult, root: &Path, port: u16) -> String {
    let message = openai_chat::tool_messages(std::slice::from_ref(result)).messages();
    let text = message[0]["content"].as_str().unwrap().to_owned();
    let text = text
        .replace(&root.display().to_string(), "<workspace>")
        .replace(&format!(":{port}"), ":<port>");
    let times = regex::Regex::new(r"\b\d+(\.\d+)? ?(ms|s)\b").unwrap();
    times.replace_all(&text, "<N> ms").into_owned()
}

fn call(coordinator: &Coordinator, tool: &str, arguments: Value) -> ToolResult {
    coordinator.call_blocking(ToolCall::new(tool, arguments.to_string()))
}

#[test]
fn what_the_model_reads_from_each_tool_matches_its_golden_file() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let coordinator = session(&root);
    let server = Server::start(|_| {
        Reply::html(
            "<html><head><title>Notes</title></head><body><h1>Notes</h1><p>Buy <a href=\"/milk\">milk</a>.</p></body></html>",
        )
    });
    let url = server.url("/notes");
    let port: u16 = url
        .rsplit(':')
        .next()
        .and_then(|rest| rest.split('/').next())
        .and_then(|port| port.parse().ok())
        .unwrap();
    let anchor = |line: usize, text: &str| format!("{line}#{}", tool_std::fs::anchor(text));
    let long_output = "python3 -c \"print('\\n'.join('line %d' % i for i in range(1, 401)))\"";

    // In order: a later call relies on what an earlier one did (a file read before it is
    // edited, a background job started before it is read).
    let calls: Vec<(&str, &str, Value)> = vec![
        ("read_file", "read_file", json!({"path": "src/lib.rs"})),
        (
            "read_file_error",
            "read_file",
            json!({"path": "src/main.rs"}),
        ),
        (
            "edit_file",
            "edit_file",
            json!({"path": "src/lib.rs", "old_string": "a - b", "new_string": "a + b"}),
        ),
        (
            "multi_edit",
            "multi_edit",
            json!({"path": "src/lib.rs", "edits": [
            {"old_string": "a: i32", "new_string": "a: i64"},
            {"old_string": "b: i32) -> i32", "new_string": "b: i64) -> i64"}]}),
        ),
        (
            "hashline_edit",
            "hashline_edit",
            json!({"path": "README.md", "edits": [
            {"op": "replace", "anchor": anchor(3, "Adds numbers."), "text": "Adds two numbers."}]}),
        ),
        (
            "write_file",
            "write_file",
            json!({"path": "notes.txt", "content": "buy milk\n"}),
        ),
        (
            "apply_patch",
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Add File: src/sub.rs\n+pub fn sub(a: i64, b: i64) -> i64 {\n+    a - b\n+}\n*** Update File: notes.txt\n@@\n-buy milk\n+buy milk and bread\n*** End Patch"}),
        ),
        (
            "grep",
            "grep",
            json!({"pattern": "pub fn", "output_mode": "content"}),
        ),
        ("glob", "glob", json!({"pattern": "**/*.md"})),
        ("list_dir", "list_dir", json!({"path": "."})),
        ("repo_map", "repo_map", json!({})),
        (
            "run_shell",
            "run_shell",
            json!({"command": "echo out; echo err >&2; exit 3"}),
        ),
        (
            "run_shell_cut",
            "run_shell",
            json!({"command": long_output}),
        ),
        ("list_artifacts", "list_artifacts", json!({})),
        (
            "read_artifact",
            "read_artifact",
            json!({"id": "art_1", "offset": 100, "limit": 3}),
        ),
        (
            "run_shell_background",
            "run_shell",
            json!({"command": "sleep 30", "run_in_background": true}),
        ),
        ("list_shells", "list_shells", json!({})),
        ("shell_output", "shell_output", json!({"id": "shell_1"})),
        ("kill_shell", "kill_shell", json!({"id": "shell_1"})),
        ("fetch_url", "fetch_url", json!({"url": url})),
        (
            "web_search",
            "web_search",
            json!({"query": "async runtime"}),
        ),
        (
            "think",
            "think",
            json!({"thought": "The bug is in add(); sub() is new."}),
        ),
        (
            "todo_write",
            "todo_write",
            json!({"todos": [
            {"content": "Fix add()", "status": "completed"},
            {"content": "Test sub()", "activeForm": "Testing sub()", "status": "in_progress"}]}),
        ),
        (
            "present_plan",
            "present_plan",
            json!({"plan": "Test sub(), then stop."}),
        ),
        (
            "subtask",
            "subtask",
            json!({"description": "check the tests", "prompt": "Run the tests and report."}),
        ),
        (
            "execute",
            "execute",
            json!({"code": "hits = grep(pattern=\"pub fn\", output_mode=\"count\")\nprint(hits)\nlen(hits.splitlines())"}),
        ),
    ];

    let golden_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/model_reads");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut differ = Vec::new();
    let mut named = Vec::new();
    for (golden, tool, arguments) in calls {
        let result = call(&coordinator, tool, arguments);
        let text = reads(&result, &root, port);
        let path = golden_dir.join(format!("{golden}.txt"));
        named.push(tool);
        if update {
            std::fs::create_dir_all(&golden_dir).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected != text {
            differ.push(format!(
                "{golden} ({}):\n--- expected\n{expected}\n--- read\n{text}",
                path.display()
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "what the model reads changed; run with UPDATE_GOLDEN=1 if it is right:\n\n{}",
        differ.join("\n\n")
    );

    // Every tool of tool-std has its golden file.
    let every = Toolset::all();
    let missing: Vec<String> = every
        .iter()
        .map(|tool| tool.spec().name.to_string())
        .filter(|name| !named.contains(&name.as_str()))
        .collect();
    assert!(missing.is_empty(), "no golden file for {missing:?}");
}

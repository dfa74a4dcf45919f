// Every kind of tool the macro supports. Included by `tests/lints.rs` (linted by clippy,
// pedantic) and `tests/ui/pass/lint_clean.rs` (compiled by trybuild with warnings denied).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tool_core::{Args, Json, State, ToolError, ToolOutput, WebUrl, Workspace, WorkspacePath, tool, context::{CallInfo, CancellationToken, Progress, ToolContext}, output::Content};

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool(read_only, name = "add", aliases("Add", "plus"), tags("math"))]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Wait a while, unless the call is cancelled first.
///
/// # Arguments
/// * `ms` - How long to wait, in milliseconds.
#[tool(
    read_only,
    title = "Wait",
    closed_world,
    timeout_ms = 5000,
    tags("time", "test")
)]
async fn wait(cancel: &CancellationToken, ms: u64) -> Result<String, ToolError> {
    tokio::select! {
        () = cancel.cancelled() => Err(ToolError::Cancelled),
        () = tokio::time::sleep(Duration::from_millis(ms)) => Ok(format!("waited {ms} ms")),
    }
}

/// Count the lines of a file, on the blocking pool.
///
/// # Arguments
/// * `path` - The file, relative to the workspace root.
#[tool(read_only, blocking, idempotent)]
#[allow(clippy::needless_pass_by_value)] // JSON arguments are always passed by value.
fn count_lines(ws: &Workspace, path: WorkspacePath) -> Result<usize, ToolError> {
    let text = std::fs::read_to_string(path.in_workspace(ws))?;
    Ok(text.lines().count())
}

/// The input of `search`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchInput {
    /// The text to look for.
    query: String,
    /// At most this many hits.
    limit: Option<u32>,
}

/// One search hit.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Hit {
    /// Where the hit is.
    location: String,
}

/// Search the notes.
#[tool(read_only, self_approving)]
fn search(Args(input): Args<SearchInput>, info: &CallInfo) -> Json<Vec<Hit>> {
    let limit = input.limit.unwrap_or(10);
    Json(vec![Hit {
        location: format!("{}:{}:{limit}:{}", info.tool, input.query, info.depth),
    }])
}

/// Fetch a web page.
///
/// # Arguments
/// * `url` - The page to fetch.
/// * `max_bytes` - At most this many bytes of the body.
#[tool(read_only, open_world)]
async fn fetch(
    url: WebUrl,
    #[arg(default = 4096)] max_bytes: usize,
    #[arg(rename = "userAgent", desc = "The User-Agent header to send.")] user_agent: Option<
        String,
    >,
    progress: Progress,
) -> String {
    tokio::task::yield_now().await;
    progress.report(1.0, Some(1.0), Some("fetched"));
    format!("{url} {max_bytes} {}", user_agent.unwrap_or_default())
}

/// Write a file.
///
/// # Arguments
/// * `target` - Where to write.
/// * `text` - What to write.
/// * `backup` - Where to keep the old content, if anywhere.
#[tool(destructive, tags("fs"))]
fn write_text(
    ctx: &ToolContext,
    #[arg(path)] target: PathBuf,
    text: String,
    #[arg(path)] backup: Option<PathBuf>,
) -> Result<(), ToolError> {
    if text.is_empty() {
        return Err(ToolError::failed("nothing to write"));
    }
    let _ = (ctx.call(), target, text, backup);
    Ok(())
}

/// `true` for shell commands that change nothing. A classifier receives each argument by
/// reference, and an optional one as `Option<&T>`.
fn is_harmless(command: &str, cwd: Option<&String>) -> bool {
    cwd.is_none() && (command == "git status" || command.starts_with("ls"))
}

/// Run a shell command.
///
/// # Arguments
/// * `command` - The command line.
/// * `cwd` - The directory to run it in.
#[tool(read_only_if = is_harmless, name = "run-shell", aliases("Bash"))]
fn run_shell(#[arg(command)] command: String, cwd: Option<String>) -> ToolOutput {
    ToolOutput::text(command).with_content(Content::text(cwd.unwrap_or_default()))
}

/// A visit counter, shared by every call.
struct Counter(AtomicU64);

/// Count one more visit.
#[tool]
fn visit(counter: &State<Counter>, info: &CallInfo, token: &CancellationToken) -> u64 {
    let _ = (info, token);
    counter.0.fetch_add(1, Ordering::SeqCst) + 1
}

/// Show the workspace root.
#[tool(read_only, crate = tool_core)]
fn root(ws: Workspace, ctx: ToolContext) -> String {
    let text = format!("{} {}", ws.root().display(), ctx.call().call_id);
    drop((ws, ctx));
    text
}

/// Append an item to a list.
///
/// # Arguments
/// * `items` - The list.
/// * `item` - What to append.
#[tool(read_only, name = "append")]
fn append(mut items: Vec<String>, item: String) -> String {
    items.push(item);
    items.join(",")
}

/// Do nothing, successfully.
#[tool(idempotent)]
async fn noop() {
    tokio::task::yield_now().await;
}

/// Set tags on an item.
///
/// # Arguments
/// * `tags` - The tags to set.
/// * `links` - Pages about the item.
#[tool]
fn tag(
    #[arg(desc = "The item's kind.")] r#type: String,
    #[serde(alias = "labels")]
    #[schemars(length(max = 8))]
    tags: Vec<String>,
    links: Option<Vec<WebUrl>>,
) -> Result<Json<Vec<String>>, std::io::Error> {
    if tags.iter().any(String::is_empty) {
        return Err(std::io::Error::other("a tag cannot be empty"));
    }
    let mut all = tags;
    all.push(r#type);
    all.extend(links.into_iter().flatten().map(|url| url.to_string()));
    Ok(Json(all))
}

/// Checks that every tool above registered.
fn check_tools() {
    let registry = tool_core::Registry::global();
    for name in [
        "add",
        "wait",
        "count_lines",
        "search",
        "fetch",
        "write_text",
        "run-shell",
        "visit",
        "root",
        "noop",
        "tag",
        "append",
    ] {
        assert!(registry.get(name).is_some(), "{name} is not registered");
    }
}

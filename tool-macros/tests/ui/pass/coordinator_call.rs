//! Tools defined by the macro, called through a `Coordinator`: the generated code runs.

use std::sync::atomic::{AtomicU64, Ordering};

use tool_core::{Args, Coordinator, Json, State, ToolCall, ToolError, Toolset, Workspace, WorkspacePath, tool, spec::Effect};

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool(read_only, name = "add", aliases("Add"), tags("math"))]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Divide two integers.
///
/// # Arguments
/// * `a` - The dividend.
/// * `b` - The divisor.
#[tool(read_only)]
async fn divide(a: i64, b: i64) -> Result<i64, ToolError> {
    a.checked_div(b)
        .ok_or_else(|| ToolError::failed("cannot divide by zero"))
}

struct Counter(AtomicU64);

/// Count visits.
///
/// # Arguments
/// * `by` - How much to add.
#[tool(blocking, idempotent)]
fn visit(counter: State<Counter>, #[arg(default = 1)] by: u64) -> u64 {
    counter.0.fetch_add(by, Ordering::SeqCst) + by
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    /// Horizontal.
    x: f64,
    /// Vertical.
    y: f64,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Norm {
    length: f64,
}

/// The length of a vector.
#[tool(read_only)]
fn norm(Args(point): Args<Point>) -> Json<Norm> {
    Json(Norm {
        length: point.x.hypot(point.y),
    })
}

/// The classifier receives every JSON argument by reference, in declaration order (an optional
/// one as `Option<&T>`).
fn is_status(command: &str, path: Option<&WorkspacePath>) -> bool {
    command == "git status" && path.is_none()
}

/// Run a command.
///
/// # Arguments
/// * `command` - The command line.
/// * `path` - The directory.
#[tool(read_only_if = is_status)]
fn run(command: String, path: Option<WorkspacePath>) -> String {
    let _ = path;
    command
}

fn main() {
    /// A tool defined inside a function body.
    ///
    /// # Arguments
    /// * `text` - What to shout.
    #[tool(read_only)]
    fn shout(text: String) -> String {
        text.to_uppercase()
    }

    let coordinator = Coordinator::builder()
        .approver(tool_core::approval::AutoApprove)
        .toolset(Toolset::all())
        .state(Counter(AtomicU64::new(40)))
        .workspace(Workspace::new(".").unwrap())
        .build().unwrap();
    let call = |name: &str, args: &str| coordinator.call_blocking(ToolCall::new(name, args));

    let result = call("add", r#"{"a": 1, "b": 2}"#);
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.text(), "3");
    assert_eq!(call("Add", r#"{"a": -1, "b": 2}"#).text(), "1");

    let result = call("add", r#"{"a": 1}"#);
    assert!(result.is_error());
    assert!(result.text().contains('b'), "{}", result.text());
    assert!(call("add", r#"{"a": 1, "b": 2, "c": 3}"#).is_error());

    assert_eq!(call("divide", r#"{"a": 7, "b": 2}"#).text(), "3");
    let result = call("divide", r#"{"a": 7, "b": 0}"#);
    assert!(result.is_error());
    assert!(result.text().contains("cannot divide by zero"), "{}", result.text());

    assert_eq!(call("visit", "{}").text(), "41");
    assert_eq!(call("visit", r#"{"by": null}"#).text(), "42");
    assert_eq!(call("visit", r#"{"by": 8}"#).text(), "50");

    let result = call("norm", r#"{"x": 3, "y": 4}"#);
    assert_eq!(result.structured(), Some(&serde_json::json!({"length": 5.0})));

    assert_eq!(call("run", r#"{"command": "git status"}"#).text(), "git status");
    assert_eq!(call("shout", r#"{"text": "hi"}"#).text(), "HI");

    let registry = tool_core::Registry::global();
    let add = registry.get("add").unwrap();
    assert_eq!(add.spec().effect, Effect::ReadOnly);
    let schema = add.input_schema().as_value();
    assert_eq!(schema["properties"]["a"]["description"], "The first addend.");
    assert_eq!(schema["required"], serde_json::json!(["a", "b"]));
    assert_eq!(add.spec().description, "Add two integers.");
    let run = registry.get("run").unwrap();
    assert_eq!(run.spec().effect, Effect::Mutating);
    let status = run.prepare(r#"{"command": "git status"}"#).unwrap();
    assert_eq!(status.effect(run.spec()), Effect::ReadOnly);
    let remove = run.prepare(r#"{"command": "rm -rf /"}"#).unwrap();
    assert_eq!(remove.effect(run.spec()), Effect::Mutating);
    let visit = registry.get("visit").unwrap().input_schema().as_value();
    assert!(visit["properties"].get("counter").is_none(), "{visit}");
    assert!(registry.get("norm").unwrap().output_schema().is_some());
}

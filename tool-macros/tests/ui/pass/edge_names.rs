//! Names and forms that once tripped the expansion: tool functions named like the generated
//! code's locals, raw identifiers documented by their plain name, borrowed state, an optional
//! workspace without `#[ctx]`, and `#[arg(default)]` with no value.

use tool_core::{Coordinator, State, ToolCall, Toolset, Workspace, tool};

/// Named like a local of the generated code.
#[tool(name = "edge_args")]
fn args(args: i64) -> i64 {
    args
}

/// Named like a local of the generated code.
#[tool(name = "edge_ctx")]
fn ctx(ctx: i64, prepared: i64) -> i64 {
    ctx + prepared
}

/// Named like a local of the generated code.
#[tool(name = "edge_prepared")]
fn prepared() -> &'static str {
    "prepared"
}

/// Set a field.
///
/// # Arguments
/// * `type` - The field's type.
#[tool(name = "edge_raw")]
fn set(r#type: String) -> String {
    r#type
}

struct Greeting(&'static str);

/// Borrowed state and an optional workspace.
#[tool(name = "edge_borrowed")]
fn borrowed(greeting: &State<Greeting>, ws: Option<&Workspace>, #[arg(default)] times: usize) -> String {
    format!("{} x{times} (workspace: {})", greeting.0, ws.is_some())
}

fn main() {
    let coordinator = Coordinator::builder()
        .approver(tool_core::approval::AutoApprove)
        .toolset(Toolset::matching(|spec| spec.name.starts_with("edge_")))
        .state(Greeting("hello"))
        .build().unwrap();
    let run = |name: &str, arguments: &str| coordinator.call_blocking(ToolCall::new(name, arguments)).text().into_owned();
    assert_eq!(run("edge_args", r#"{"args": 3}"#), "3");
    assert_eq!(run("edge_ctx", r#"{"ctx": 1, "prepared": 2}"#), "3");
    assert_eq!(run("edge_prepared", "{}"), "prepared");
    assert_eq!(run("edge_raw", r#"{"type": "u8"}"#), "u8");
    assert_eq!(run("edge_borrowed", "{}"), "hello x0 (workspace: false)");
    let schema = Toolset::named(["edge_raw"]).unwrap().get("edge_raw").unwrap().input_schema().clone();
    assert_eq!(schema.as_value()["properties"]["type"]["description"], "The field's type.");
}

use tool_core::{
    Coordinator, Json, State, ToolCall, ToolError, Toolset, Workspace, WorkspacePath, tool,
};

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool(read_only)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Listing {
    files: Vec<String>,
}

/// List files.
///
/// # Arguments
/// * `path` - Directory to list.
/// * `limit` - At most this many.
#[tool(read_only, name = "list", aliases("ls"), tags("fs"))]
async fn list(
    ws: &Workspace,
    path: WorkspacePath,
    #[arg(default = 10)] limit: u32,
    hidden: Option<bool>,
) -> Result<Json<Listing>, ToolError> {
    let _ = (ws, hidden);
    Ok(Json(Listing {
        files: vec![format!("{}:{limit}", path.as_path().display())],
    }))
}

struct Counter;

/// Uses state.
#[tool(blocking, timeout_ms = 100)]
fn stateful(_c: State<Counter>, #[arg(command)] cmd: String) -> String {
    cmd
}

#[test]
fn smoke() {
    let c = Coordinator::builder()
        .toolset(Toolset::all())
        .workspace(Workspace::new(".").unwrap())
        .state(Counter)
        .build();
    let r = c.call_blocking(ToolCall::new("add", r#"{"a":1,"b":2}"#));
    println!("{}", r.text());
    for t in c.toolset().iter() {
        println!(
            "{} {}",
            t.spec().name,
            serde_json::to_string_pretty(t.input_schema()).unwrap()
        );
        println!("{:?}", t.output_schema().map(|s| s.as_value().to_string()));
    }
    for (n, a) in [
        ("add", r#"{"a":"x"}"#),
        ("add", r#"{"file_path":1, "a": 2}"#),
        ("add", "{"),
        ("ls", r#"{"path":"src", "limit": null}"#),
        ("ls", r#"{"path":"src", "limit": -1}"#),
        ("stateful", r#"{"cmd":"ls"}"#),
        ("ad", "{}"),
    ] {
        let r = c.call_blocking(ToolCall::new(n, a));
        println!("{n} {a} => {} {:?}", r.text(), r.is_error());
    }
}

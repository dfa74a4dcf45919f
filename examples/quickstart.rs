//! The whole path in one file: three tools defined with `#[tool]`, the registry and schemas they
//! produce, and calls with good and bad arguments, printed as a model would see them.
//!
//! Run with `cargo run --example quickstart`.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use tool_core::{
    Coordinator, Json, Registry, State, ToolCall, ToolError, Toolset, Workspace, WorkspacePath,
    tool,
};

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool(read_only, name = "add", tags("quickstart"))]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Fetch the weather report for a city (simulated, after a short wait).
///
/// # Arguments
/// * `city` - The city, such as "Lisbon".
/// * `days` - How many days ahead.
#[tool(read_only, open_world, name = "weather", tags("quickstart"))]
async fn weather(city: String, #[arg(default = 1)] days: u8) -> Result<String, ToolError> {
    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    if city.trim().is_empty() {
        return Err(ToolError::failed(
            "the city is empty: name a city, such as \"Lisbon\"",
        ));
    }
    Ok(format!("{city}: sunny for the next {days} day(s)"))
}

/// Counts how many files were inspected, across calls.
struct Inspections(AtomicU64);

/// What `file_info` returns.
#[derive(Serialize, schemars::JsonSchema)]
struct FileInfo {
    /// The path, as resolved in the workspace.
    path: String,
    /// The size in bytes.
    bytes: u64,
    /// How many files were inspected so far, this one included.
    inspected: u64,
}

/// Describe a file in the workspace.
///
/// # Arguments
/// * `path` - File path, relative to the workspace root.
#[tool(
    read_only,
    closed_world,
    name = "file_info",
    aliases("Stat"),
    tags("quickstart")
)]
fn file_info(
    ws: &Workspace,
    inspections: State<Inspections>,
    path: WorkspacePath,
) -> Result<Json<FileInfo>, ToolError> {
    let full = path.in_workspace(ws);
    let metadata = ws.metadata(&path).map_err(|error| {
        ToolError::failed(format!(
            "cannot read `{}`: {error}",
            path.as_path().display()
        ))
    })?;
    Ok(Json(FileInfo {
        path: full.display().to_string(),
        bytes: metadata.len(),
        inspected: inspections.0.fetch_add(1, Ordering::Relaxed) + 1,
    }))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("== The registry: every linked tool, sorted by name ==");
    for tool in Registry::global().iter() {
        let spec = tool.spec();
        println!(
            "{:<10} {:<10} aliases {:?}  {}",
            spec.name,
            spec.effect,
            spec.aliases,
            spec.description.lines().next().unwrap_or_default()
        );
    }

    println!("\n== Input schemas, as sent to the model ==");
    for tool in Registry::global().iter() {
        println!(
            "{}: {}",
            tool.spec().name,
            serde_json::to_string_pretty(tool.input_schema())?
        );
    }
    if let Some(schema) = Registry::global()
        .get("file_info")
        .and_then(|t| t.output_schema())
    {
        println!("file_info output: {}", serde_json::to_string(schema)?);
    }

    let coordinator = Coordinator::builder()
        .toolset(Toolset::tagged("quickstart"))
        .workspace(Workspace::new(env!("CARGO_MANIFEST_DIR"))?)
        .state(Inspections(AtomicU64::new(0)))
        .build()
        .unwrap();

    println!("\n== Calls, and what the model reads back ==");
    let calls = [
        ("add", r#"{"a": 40, "b": 2}"#),
        ("weather", r#"{"city": "Lisbon"}"#),
        ("Stat", r#"{"path": "Cargo.toml"}"#),
        ("add", r#"{"a": 40}"#),
        ("add", r#"{"a": "forty", "b": 2}"#),
        ("file_info", r#"{"file_path": "Cargo.toml"}"#),
        ("weather", r#"{"city": "Lisbon", "days": 300}"#),
        ("weather", r#"{"city": "#),
        ("weather", r#"{"city": " "}"#),
        ("file_info", r#"{"path": "no/such/file"}"#),
        ("ad", r#"{"a": 1, "b": 2}"#),
    ];
    for (i, (name, arguments)) in calls.into_iter().enumerate() {
        let call = ToolCall::new(name, arguments).with_call_id(format!("call_{i}"));
        let result = coordinator.call(call).await;
        let status = if result.is_error() { "error" } else { "ok" };
        println!("{name}({arguments})\n  -> [{status}] {}", result.text());
        if let Some(structured) = result.structured() {
            println!("     structured: {structured}");
        }
    }
    Ok(())
}

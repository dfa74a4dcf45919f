//! An agent loop: a model asks for tool calls, the coordinator runs them, the results go back to
//! the model. The model here is scripted — it replays the calls a real model typically makes,
//! mistakes included — so the example runs anywhere, with no network or API key.
//!
//! Watch the second turn: the model sends `file_path` instead of `path`, reads the error the
//! framework sends back ("did you mean `path`?"), and corrects itself on the next turn.
//!
//! Run with `cargo run --example agent`.

use std::collections::VecDeque;

use tool_core::{
    Coordinator, ToolCall, ToolError, ToolResult, Toolset, Workspace, WorkspacePath, tool,
};

/// List the entries of a directory in the workspace, directories marked with a trailing `/`.
///
/// # Arguments
/// * `path` - Directory, relative to the workspace root.
#[tool(
    read_only,
    closed_world,
    name = "agent_list_dir",
    aliases("LS"),
    tags("agent")
)]
fn list_dir(ws: &Workspace, path: WorkspacePath) -> Result<String, ToolError> {
    let dir = path.in_workspace(ws);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|error| {
            ToolError::failed(format!(
                "cannot list `{}`: {error}",
                path.as_path().display()
            ))
        })?
        .filter_map(Result::ok)
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.path().is_dir() {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    names.sort();
    Ok(names.join("\n"))
}

/// Read lines of a text file in the workspace.
///
/// # Arguments
/// * `path` - File path, relative to the workspace root.
/// * `limit` - At most this many lines, from the top.
#[tool(
    read_only,
    closed_world,
    name = "agent_read_file",
    aliases("Read"),
    tags("agent")
)]
async fn read_file(
    ws: &Workspace,
    path: WorkspacePath,
    #[arg(default = 20)] limit: usize,
) -> Result<String, ToolError> {
    let text = tokio::fs::read_to_string(path.in_workspace(ws))
        .await
        .map_err(|error| {
            ToolError::failed(format!(
                "cannot read `{}`: {error}",
                path.as_path().display()
            ))
        })?;
    Ok(text.lines().take(limit).collect::<Vec<_>>().join("\n"))
}

/// Count the lines, words and bytes of a text.
///
/// # Arguments
/// * `text` - The text to count.
#[tool(read_only, closed_world, name = "agent_count", tags("agent"))]
fn count(text: String) -> String {
    format!(
        "{} lines, {} words, {} bytes",
        text.lines().count(),
        text.split_whitespace().count(),
        text.len()
    )
}

/// A stand-in for a language model: each turn, it looks at the last results and answers with
/// tool calls or a final message.
struct ScriptedModel {
    turns: VecDeque<Vec<(&'static str, &'static str)>>,
}

enum Reply {
    Calls(Vec<ToolCall>),
    Final(String),
}

impl ScriptedModel {
    fn new() -> Self {
        ScriptedModel {
            turns: VecDeque::from([
                vec![("agent_list_dir", r#"{"path": "."}"#)],
                // A typical slip: the wrong argument name.
                vec![("Read", r#"{"file_path": "Cargo.toml", "limit": 5}"#)],
                vec![("Read", r#"{"path": "Cargo.toml", "limit": 5}"#)],
                vec![(
                    "agent_count",
                    r#"{"text": "name = \"toolkit-tests\"\nversion = \"0.1.0\""}"#,
                )],
            ]),
        }
    }

    fn reply(&mut self, turn: usize, last: &[ToolResult]) -> Reply {
        if let Some(error) = last.iter().find(|result| result.is_error()) {
            println!(
                "  (model reads the error and adjusts: {:?})",
                error.error().map(ToolError::kind)
            );
        }
        match self.turns.pop_front() {
            Some(calls) => Reply::Calls(
                calls
                    .into_iter()
                    .enumerate()
                    .map(|(i, (name, arguments))| {
                        ToolCall::new(name, arguments).with_id(format!("toolu_{turn}_{i}"))
                    })
                    .collect(),
            ),
            None => Reply::Final(
                "The workspace is a Rust project; its manifest names the package toolkit-tests."
                    .into(),
            ),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::tagged("agent"))
        .workspace(Workspace::new(env!("CARGO_MANIFEST_DIR"))?)
        .build();
    println!("Tools offered to the model:");
    for tool in coordinator.toolset().iter() {
        let spec = tool.spec();
        println!(
            "  {} ({}) {}",
            spec.name,
            spec.effect,
            serde_json::to_string(tool.input_schema())?
        );
    }

    let mut model = ScriptedModel::new();
    let mut last: Vec<ToolResult> = Vec::new();
    for turn in 1.. {
        match model.reply(turn, &last) {
            Reply::Final(message) => {
                println!("\nModel: {message}");
                break;
            }
            Reply::Calls(calls) => {
                last.clear();
                for call in calls {
                    println!(
                        "\nTurn {turn}: model calls {}({})",
                        call.name, call.arguments
                    );
                    let result = coordinator.call(call).await;
                    let marker = if result.is_error() { "error" } else { "result" };
                    for (i, line) in result.text().lines().take(8).enumerate() {
                        println!("  {} {line}", if i == 0 { marker } else { "     " });
                    }
                    last.push(result);
                }
            }
        }
    }
    Ok(())
}

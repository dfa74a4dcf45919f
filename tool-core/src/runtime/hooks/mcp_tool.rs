//! Hooks that call a tool of a connected MCP server: Claude Code's `"type": "mcp_tool"`. The
//! server's tools are in the coordinator's toolset as `mcp__<server>__<tool>` (imported with
//! `tool_core::mcp::client`); settings naming a tool the toolset lacks fail to build, naming
//! the hook. The hook's `input` is the tool's arguments, each `${path}` in it replaced from
//! the event's input (`${tool_input.file_path}`, `${tool_name}`): a string that is one
//! placeholder becomes the value itself, one with text around it the value's text. The
//! tool's text answer is read as a command hook's stdout; a tool error is a non-blocking
//! error. The tool is called directly, not through the policy: the user configured it.

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{Map, Value};

use super::Hook;
use super::event::HookInput;
use super::output::HookOutput;
use crate::BoxFuture;
use crate::definition::context::{CallInfo, ToolContext};
use crate::definition::tool::{ToolHandle, invoke_guarded};

/// A hook that calls a tool (of an imported MCP server) with arguments made from the input.
pub struct McpToolHook {
    tool: ToolHandle,
    input: Map<String, Value>,
    timeout: Duration,
}

impl McpToolHook {
    /// A hook calling `tool` with `input` (placeholders filled in per event), for at most
    /// `timeout`.
    #[must_use]
    pub fn new(tool: ToolHandle, input: Map<String, Value>, timeout: Duration) -> Self {
        McpToolHook {
            tool,
            input,
            timeout,
        }
    }

    async fn execute(&self, input: &HookInput) -> HookOutput {
        let event = match serde_json::to_value(input) {
            Ok(event) => event,
            Err(error) => return HookOutput::error(format!("could not encode its input: {error}")),
        };
        let arguments = Value::Object(
            self.input
                .iter()
                .map(|(key, value)| (key.clone(), fill(value, &event)))
                .collect(),
        );
        let name = self.tool.spec().name.clone();
        let prepared = match self.tool.prepare(&arguments.to_string()) {
            Ok(prepared) => prepared,
            Err(error) => {
                return HookOutput::error(format!("`{name}` refused its arguments: {error}"));
            }
        };
        let ctx = ToolContext::detached(CallInfo::new(
            input.tool_use_id.clone().unwrap_or_default(),
            name.clone(),
            0,
        ));
        let called =
            tokio::time::timeout(self.timeout, invoke_guarded(&*self.tool, prepared, &ctx));
        match called.await {
            Ok(Ok(output)) => {
                let text: String = output
                    .content
                    .iter()
                    .filter_map(|content| content.as_text())
                    .collect::<Vec<_>>()
                    .join("\n");
                HookOutput::from_command(input.event(), Some(0), &text, "")
            }
            Ok(Err(error)) => HookOutput::error(format!("`{name}` failed: {error}")),
            Err(_) => HookOutput::error(format!(
                "`{name}` did not answer within {}",
                super::describe(self.timeout)
            )),
        }
    }
}

/// `value` with each `${path}` replaced from `event`.
fn fill(value: &Value, event: &Value) -> Value {
    match value {
        Value::String(text) => {
            if let Some(path) = text
                .strip_prefix("${")
                .and_then(|rest| rest.strip_suffix('}'))
                .filter(|path| !path.contains("${"))
            {
                return lookup(event, path).cloned().unwrap_or(Value::Null);
            }
            let mut out = String::with_capacity(text.len());
            let mut rest = text.as_str();
            while let Some(start) = rest.find("${") {
                let Some(end) = rest[start..].find('}') else {
                    break;
                };
                out.push_str(&rest[..start]);
                let path = &rest[start + 2..start + end];
                match lookup(event, path) {
                    Some(Value::String(found)) => out.push_str(found),
                    Some(found) => out.push_str(&found.to_string()),
                    None => {}
                }
                rest = &rest[start + end + 1..];
            }
            out.push_str(rest);
            Value::String(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|item| fill(item, event)).collect()),
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, item)| (key.clone(), fill(item, event)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The value at a dotted `path` (`tool_input.file_path`).
fn lookup<'a>(event: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.')
        .try_fold(event, |value, key| value.get(key.trim()))
}

impl Hook for McpToolHook {
    fn name(&self) -> Cow<'_, str> {
        Cow::Owned(format!("tool `{}`", self.tool.spec().name))
    }

    fn run<'a>(&'a self, input: &'a HookInput) -> BoxFuture<'a, HookOutput> {
        Box::pin(self.execute(input))
    }
}

#[cfg(test)]
mod tests {
    use super::fill;
    use serde_json::json;

    #[test]
    fn placeholders_are_filled_from_the_event() {
        let event = json!({"tool_name": "Edit", "tool_input": {"file_path": "a.rs", "limit": 3}});
        assert_eq!(
            fill(&json!("${tool_input.file_path}"), &event),
            json!("a.rs")
        );
        assert_eq!(fill(&json!("${tool_input.limit}"), &event), json!(3));
        assert_eq!(
            fill(
                &json!("check ${tool_name} on ${tool_input.file_path}!"),
                &event
            ),
            json!("check Edit on a.rs!")
        );
        assert_eq!(fill(&json!("${missing}"), &event), json!(null));
        assert_eq!(
            fill(&json!({"files": ["${tool_input.file_path}"]}), &event),
            json!({"files": ["a.rs"]})
        );
    }
}

//! The MCP dialect: a `tools/list` entry with the tool's own schemas, unchanged (JSON Schema
//! 2020-12 is MCP's default dialect), its title and its annotations.

use serde_json::{Map, Value};

use super::rewrite::Rewriter;
use crate::Tool;

/// The `Tool` object of MCP's `tools/list` result (protocol 2025-11-25).
pub(super) fn definition(tool: &dyn Tool, name: &str, rewriter: &mut Rewriter<'_>) -> Value {
    let spec = tool.spec();
    let mut definition = Map::new();
    definition.insert("name".into(), Value::from(name));
    if let Some(title) = &spec.title {
        definition.insert("title".into(), Value::from(title.as_ref()));
    }
    definition.insert("description".into(), Value::from(spec.description.as_ref()));
    definition.insert("inputSchema".into(), tool.input_schema().as_value().clone());
    // MCP's `outputSchema` must describe an object (structured content is a JSON object).
    if let Some(output) = tool.output_schema() {
        if output.as_value().get("type").and_then(Value::as_str) == Some("object") {
            definition.insert("outputSchema".into(), output.as_value().clone());
        } else {
            rewriter.lose(
                "",
                "the output schema, which is not an object schema",
                "left out: MCP structured content must be an object (return a struct in `Json`)",
            );
        }
    }
    definition.insert(
        "annotations".into(),
        serde_json::to_value(spec.annotations()).unwrap_or(Value::Null),
    );
    Value::Object(definition)
}

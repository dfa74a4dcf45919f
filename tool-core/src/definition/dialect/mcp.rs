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
    // MCP's `outputSchema` must describe an object (structured content is a JSON object). A
    // union whose every branch is an object (an untagged enum of structs) is one: it is
    // declared with `type: object` at its root, which changes no value it accepts.
    if let Some(output) = tool.output_schema() {
        if let Some(schema) = object_schema(output.as_value()) {
            definition.insert("outputSchema".into(), schema);
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

/// `schema` as an object schema, if every value it accepts is an object: an object schema as
/// it is, or a union (`anyOf`/`oneOf`) of object schemas (inline or in its `$defs`) with
/// `type: object` added.
fn object_schema(schema: &Value) -> Option<Value> {
    // A branch may be a reference into the schema's own `$defs`.
    let resolve = |branch: &'_ Value| -> Option<Value> {
        match branch.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                let name = reference.strip_prefix("#/$defs/")?;
                schema.get("$defs")?.get(name).cloned()
            }
            None => Some(branch.clone()),
        }
    };
    let is_object = |schema: &Value| {
        resolve(schema)
            .is_some_and(|schema| schema.get("type").and_then(Value::as_str) == Some("object"))
    };
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        return Some(schema.clone());
    }
    let branches = ["anyOf", "oneOf"]
        .iter()
        .find_map(|key| schema.get(*key).and_then(Value::as_array))?;
    if branches.is_empty() || !branches.iter().all(is_object) || schema.get("type").is_some() {
        return None;
    }
    let mut schema = schema.as_object()?.clone();
    schema.insert("type".into(), Value::from("object"));
    Some(Value::Object(schema))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::object_schema;

    #[test]
    fn a_union_of_objects_is_declared_an_object_and_a_union_with_a_scalar_is_not() {
        let objects = json!({"anyOf": [{"type": "object"}, {"type": "object", "required": ["a"]}]});
        let declared = object_schema(&objects).unwrap();
        assert_eq!(declared["type"], "object");
        assert_eq!(declared["anyOf"], objects["anyOf"]);
        assert!(
            object_schema(&json!({"anyOf": [{"type": "object"}, {"type": "string"}]})).is_none()
        );
        assert!(object_schema(&json!({"type": "array"})).is_none());
        assert!(object_schema(&json!({"anyOf": [{"$ref": "#/$defs/A"}]})).is_none());
        let referenced = json!({
            "anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}],
            "$defs": {"A": {"type": "object"}, "B": {"type": "object"}}
        });
        assert_eq!(object_schema(&referenced).unwrap()["type"], "object");
    }
}

//! The MCP dialect: a `tools/list` entry with the tool's schemas (JSON Schema 2020-12 is
//! MCP's default dialect), its title and its annotations.
//!
//! The schemas are the tool's own, written the way every client takes without a warning
//! ([`portable`]): the clients validate them (the TypeScript SDK with Ajv, which warns on
//! every `tools/list` about a format it does not know; the Inspector's `--strict` on type
//! lists and on properties that say nothing about their values). So schemars' number widths
//! (`format: uint64`) are dropped (the tool checks the range when it parses the call, and
//! `minimum` already says "unsigned"), "`T` or `null`" is written `anyOf: [T, null]` rather
//! than as a type list, and a property that takes any JSON value says so with an `anyOf` of
//! every type. Nothing a schema accepts changes.

use serde_json::{Map, Value, json};

use super::rewrite::{self, Rewriter, child};
use crate::Tool;

/// The formats of JSON Schema 2020-12's format vocabulary, which every validator knows.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The keywords that say something about a value: a schema with none of them takes anything.
const VALIDATION_KEYWORDS: &[&str] = &[
    "type", "$ref", "anyOf", "oneOf", "allOf", "not", "enum", "const",
];

/// The `Tool` object of MCP's `tools/list` result (protocol 2025-11-25).
pub(super) fn definition(tool: &dyn Tool, name: &str, rewriter: &mut Rewriter<'_>) -> Value {
    let spec = tool.spec();
    let mut definition = Map::new();
    definition.insert("name".into(), Value::from(name));
    if let Some(title) = &spec.title {
        definition.insert("title".into(), Value::from(title.as_ref()));
    }
    definition.insert("description".into(), Value::from(spec.description.as_ref()));
    let mut input = tool.input_schema().as_value().clone();
    portable(rewriter, &mut input, "", false);
    definition.insert("inputSchema".into(), input);
    // MCP's `outputSchema` must describe an object (structured content is a JSON object). A
    // union whose every branch is an object (an untagged enum of structs) is one: it is
    // declared with `type: object` at its root, which changes no value it accepts.
    if let Some(output) = tool.output_schema() {
        if let Some(mut schema) = object_schema(output.as_value()) {
            portable(rewriter, &mut schema, "", false);
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

/// `schema` written the way every MCP client takes it (see the module's doc); `property`: it
/// is the schema of an object's property, which must say what it takes.
fn portable(rewriter: &mut Rewriter<'_>, schema: &mut Value, pointer: &str, property: bool) {
    if *schema == Value::Bool(true) {
        *schema = Value::Object(Map::new());
    }
    let Value::Object(object) = schema else {
        return;
    };
    rewrite::nullable_as_any_of(object);
    if let Some(format) = object.get("format").and_then(Value::as_str)
        && !STANDARD_FORMATS.contains(&format)
    {
        if rewrite::is_number_width(format) {
            // The width is the tool's to check; `minimum` already says "unsigned". Dropped
            // without a report, unlike `rewrite::drop_unsupported_format` (for providers that
            // refuse the keyword): nothing a client could act on is lost.
            object.remove("format");
        } else {
            rewriter.move_to_description(object, &["format"], pointer);
        }
    }
    if property
        && !VALIDATION_KEYWORDS
            .iter()
            .any(|keyword| object.contains_key(*keyword))
    {
        // Any JSON value, said in the one way every client reads.
        object.insert(
            "anyOf".into(),
            json!([
                {"type": "string"}, {"type": "number"}, {"type": "boolean"},
                {"type": "object"}, {"type": "array"}, {"type": "null"}
            ]),
        );
    }
    for keyword in ["properties", "$defs", "patternProperties"] {
        if let Some(Value::Object(children)) = object.get_mut(keyword) {
            let here = child(pointer, keyword);
            for (name, schema) in children.iter_mut() {
                portable(
                    rewriter,
                    schema,
                    &child(&here, name),
                    keyword == "properties",
                );
            }
        }
    }
    for keyword in ["items", "additionalProperties", "not", "contains"] {
        if let Some(schema) = object.get_mut(keyword) {
            // `additionalProperties: true` and `false` mean what they say.
            if !schema.is_boolean() {
                portable(rewriter, schema, &child(pointer, keyword), false);
            }
        }
    }
    for keyword in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(branches)) = object.get_mut(keyword) {
            let here = child(pointer, keyword);
            for (position, branch) in branches.iter_mut().enumerate() {
                portable(
                    rewriter,
                    branch,
                    &child(&here, &position.to_string()),
                    false,
                );
            }
        }
    }
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

    use super::{object_schema, portable};
    use crate::definition::schema::dialect::Dialect;
    use crate::definition::schema::dialect::rewrite::Rewriter;

    fn portable_form(mut schema: serde_json::Value) -> serde_json::Value {
        let mut rewriter = Rewriter::new("t", Dialect::Mcp);
        portable(&mut rewriter, &mut schema, "", false);
        schema
    }

    #[test]
    fn number_widths_are_dropped_and_standard_formats_kept() {
        let schema = portable_form(json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "format": "uint64", "minimum": 0},
                "at": {"type": "string", "format": "date-time"},
            },
            "$defs": {"Job": {"type": "object", "properties": {"ms": {"type": "integer", "format": "uint64", "minimum": 0}}}}
        }));
        assert_eq!(
            schema["properties"]["count"],
            json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(schema["properties"]["at"]["format"], "date-time");
        assert_eq!(
            schema["$defs"]["Job"]["properties"]["ms"],
            json!({"type": "integer", "minimum": 0})
        );
    }

    #[test]
    fn a_nullable_type_list_becomes_an_any_of_with_null() {
        let schema = portable_form(json!({
            "type": "object",
            "properties": {"dir": {"description": "Where.", "type": ["string", "null"], "minLength": 1}}
        }));
        assert_eq!(
            schema["properties"]["dir"],
            json!({"description": "Where.", "anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}]})
        );
    }

    #[test]
    fn a_property_taking_any_value_says_so() {
        let schema = portable_form(json!({
            "type": "object",
            "properties": {"value": {"description": "Any JSON."}, "flag": true}
        }));
        for name in ["value", "flag"] {
            let branches = schema["properties"][name]["anyOf"].as_array().unwrap();
            assert_eq!(branches.len(), 6, "{name}");
        }
        assert_eq!(schema["properties"]["value"]["description"], "Any JSON.");
    }

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

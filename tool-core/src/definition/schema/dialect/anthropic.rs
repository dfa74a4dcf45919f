//! The Anthropic dialect: Messages API tools (`name`, `description`, `input_schema`), strict or
//! not.
//!
//! Not strict, Anthropic takes JSON Schema as it is, but not a combinator at the root (a root
//! `anyOf` is a 400, claude-code#40075): the shared rewriting makes the root one object.
//! Strict tool use follows Anthropic's "Strict tool use" guide, "JSON Schema limitations":
//! every object `additionalProperties: false` (an open map refuses the tool), `minItems` only
//! 0 or 1, no recursive schemas (refused), no numeric or length bounds (moved into the
//! description), `oneOf` as `anyOf`, enums of simple values only; "`T` or `null`" is written
//! `anyOf: [T, null]` rather than as a type list. The per-request limits (20
//! strict tools, 24 optional parameters, 16 union-typed parameters, over all strict tools)
//! are checked over the whole toolset by [`Toolset::export`](crate::Toolset::export).

use serde_json::{Map, Value, json};

use super::SchemaStats;
use super::rewrite::{self, Rewriter, child};
use crate::Tool;

/// Keywords strict mode keeps as they are.
const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "allOf",
    "enum",
    "const",
    "description",
    "title",
    "$ref",
    "$defs",
    "default",
    "format",
    "pattern",
    "minItems",
];

/// The string formats strict mode supports.
const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

pub(super) fn definition(
    tool: &dyn Tool,
    name: &str,
    strict: bool,
    rewriter: &mut Rewriter<'_>,
    stats: &mut SchemaStats,
) -> Value {
    let spec = tool.spec();
    let input_schema = match super::parameters(tool, rewriter) {
        Some((root, recursion)) => {
            let mut root = Value::Object(root);
            if strict {
                if recursion {
                    rewriter.refuse(
                        "/$defs",
                        "a recursive type, and strict tool use takes no recursive schemas",
                        "bound the depth with distinct types, or export the tool non-strict",
                    );
                }
                Strict { rewriter, stats }.schema(&mut root, "");
            } else {
                count(&root, stats);
            }
            root
        }
        None => json!({"type": "object", "properties": {}}),
    };
    let mut definition = json!({
        "name": name,
        "description": spec.description,
        "input_schema": input_schema,
    });
    if strict {
        definition["strict"] = Value::Bool(true);
    }
    definition
}

/// Counts optional and union-typed parameters without rewriting (for non-strict tools the
/// counts are not limited; kept for symmetry in the stats).
fn count(schema: &Value, stats: &mut SchemaStats) {
    let Some(object) = schema.as_object() else {
        return;
    };
    let required = required(object);
    if let Some(Value::Object(properties)) = object.get("properties") {
        for (name, property) in properties {
            tally(name, property, &required, stats);
            count(property, stats);
        }
    }
    if let Some(items) = object.get("items") {
        count(items, stats);
    }
}

fn required(object: &Map<String, Value>) -> Vec<String> {
    object
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn tally(name: &str, property: &Value, required: &[String], stats: &mut SchemaStats) {
    if !required.iter().any(|entry| entry == name) {
        stats.optional_parameters += 1;
    }
    let union = property.get("anyOf").is_some()
        || property
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|kinds| kinds.len() > 1);
    if union {
        stats.union_parameters += 1;
    }
}

struct Strict<'r, 'a> {
    rewriter: &'r mut Rewriter<'a>,
    stats: &'r mut SchemaStats,
}

impl Strict<'_, '_> {
    fn schema(&mut self, schema: &mut Value, pointer: &str) {
        let Value::Object(object) = schema else {
            return;
        };
        rewrite::one_of_to_any_of(self.rewriter, object, pointer);
        rewrite::nullable_as_any_of(object);
        if object.contains_key("allOf") && !rewrite::merge_all_of(object) {
            self.rewriter.refuse(
                pointer,
                "an `allOf` of schemas that are not objects",
                "export the tool non-strict",
            );
        }
        rewrite::tuple_to_items(self.rewriter, object, pointer);
        if let Some(Value::Array(values)) = object.get("enum")
            && values
                .iter()
                .any(|value| value.is_object() || value.is_array())
        {
            self.rewriter.refuse(
                pointer,
                "an enum with objects or arrays among its values",
                "use an enum of strings, or export the tool non-strict",
            );
        }
        if object
            .get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|min| min > 1)
        {
            self.rewriter
                .move_to_description(object, &["minItems"], pointer);
        }
        rewrite::drop_unsupported_format(self.rewriter, object, STRICT_FORMATS, pointer);
        self.rewriter
            .keep_only_keywords(object, STRICT_KEYWORDS, pointer);
        if rewrite::is_object_schema(object) {
            match object.get("additionalProperties") {
                None | Some(Value::Bool(false)) => {}
                Some(_) => self.rewriter.refuse(
                    &child(pointer, "additionalProperties"),
                    "an open map (keys not known in advance), and strict tool use needs \
                     `additionalProperties: false` on every object",
                    "take a list of key-value pairs instead, or export the tool non-strict",
                ),
            }
            object.insert("additionalProperties".into(), Value::Bool(false));
        }
        let required = required(object);
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            let here = child(pointer, "properties");
            for (name, property) in properties.iter_mut() {
                self.schema(property, &child(&here, name));
                tally(name, property, &required, self.stats);
            }
        }
        if let Some(items) = object.get_mut("items") {
            self.schema(items, &child(pointer, "items"));
        }
        for keyword in ["anyOf", "allOf"] {
            if let Some(Value::Array(branches)) = object.get_mut(keyword) {
                let here = child(pointer, keyword);
                for (position, branch) in branches.iter_mut().enumerate() {
                    self.schema(branch, &child(&here, &position.to_string()));
                }
            }
        }
        if let Some(Value::Object(definitions)) = object.get_mut("$defs") {
            for (name, definition) in definitions.iter_mut() {
                self.schema(definition, &child("/$defs", name));
            }
        }
    }
}

//! The OpenAI dialect: function tools for chat completions (nested under `function`) and for
//! the responses API (flat), strict or not.
//!
//! Strict mode follows the structured outputs guide, "Supported schemas": every object has
//! `additionalProperties: false` and lists every property in `required`, so an optional one
//! becomes "`T` or `null`" (and [`Export::normalize_arguments`](super::Export::normalize_arguments)
//! turns that `null` back into "absent"); `oneOf` becomes `anyOf` and `allOf` is merged;
//! `default` and `title` go; keywords and formats outside the supported list move into the
//! description; and the limits (5,000 properties, 10 levels of nesting, 120,000 characters of
//! property names, definition names, enum and const values, 1,000 enum values) are checked.
//! A schema strict mode cannot express (an open map, a value of any type) refuses the tool.
//!
//! Not strict, OpenAI still wants an object at the root and `items` on every array.

use serde_json::{Map, Value, json};

use super::rewrite::{self, Rewriter, child};
use super::{OpenAiApi, SchemaStats};
use crate::Tool;

/// The keywords strict mode accepts ("Supported properties").
const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "description",
    "$ref",
    "$defs",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

/// The string formats strict mode accepts.
const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

const MAX_PROPERTIES: usize = 5_000;
const MAX_NESTING: usize = 10;
const MAX_STRING_LENGTH: usize = 120_000;
const MAX_ENUM_VALUES: usize = 1_000;

pub(super) fn definition(
    tool: &dyn Tool,
    name: &str,
    strict: bool,
    api: OpenAiApi,
    rewriter: &mut Rewriter<'_>,
    stats: &mut SchemaStats,
) -> Value {
    let spec = tool.spec();
    let parameters = match super::parameters(tool, rewriter) {
        Some((root, _)) => {
            let mut parameters = Value::Object(root);
            let mut walk = Walk {
                rewriter,
                strict,
                stats,
                counts: Counts::default(),
            };
            walk.root(&mut parameters);
            parameters
        }
        None => json!({"type": "object", "properties": {}}),
    };
    match api {
        OpenAiApi::ChatCompletions => json!({
            "type": "function",
            "function": {
                "name": name,
                "description": spec.description,
                "parameters": parameters,
                "strict": strict,
            }
        }),
        OpenAiApi::Responses => json!({
            "type": "function",
            "name": name,
            "description": spec.description,
            "parameters": parameters,
            "strict": strict,
        }),
    }
}

#[derive(Default)]
struct Counts {
    properties: usize,
    nesting: usize,
    string_length: usize,
    enum_values: usize,
}

struct Walk<'r, 'a> {
    rewriter: &'r mut Rewriter<'a>,
    strict: bool,
    stats: &'r mut SchemaStats,
    counts: Counts,
}

impl Walk<'_, '_> {
    fn root(&mut self, root: &mut Value) {
        self.schema(root, "", 1);
        if let Some(Value::Object(definitions)) = root.get_mut("$defs") {
            for (name, definition) in definitions.iter_mut() {
                self.counts.string_length += name.len();
                self.schema(definition, &child("/$defs", name), 1);
            }
        }
        if self.strict {
            self.check_limits();
        }
    }

    fn check_limits(&mut self) {
        let counts = &self.counts;
        let over = [
            ("properties", counts.properties, MAX_PROPERTIES),
            ("levels of nesting", counts.nesting, MAX_NESTING),
            (
                "characters of property names, definition names, enum and const values",
                counts.string_length,
                MAX_STRING_LENGTH,
            ),
            ("enum values", counts.enum_values, MAX_ENUM_VALUES),
        ];
        for (what, found, allowed) in over {
            if found > allowed {
                self.rewriter.refuse(
                    "",
                    format!("the schema has {found} {what}; strict mode takes at most {allowed}"),
                    "split the tool, or export it non-strict",
                );
            }
        }
    }

    fn schema(&mut self, schema: &mut Value, pointer: &str, depth: usize) {
        if self.strict && rewrite::is_unconstrained(schema) {
            self.rewriter.refuse(
                pointer,
                "the value may be anything, and strict mode needs every value typed",
                "give it a type (a struct or an enum rather than `serde_json::Value`), or \
                 export the tool non-strict",
            );
            return;
        }
        let Value::Object(object) = schema else {
            return;
        };
        object.remove("$schema");
        rewrite::tuple_to_items(self.rewriter, object, pointer);
        if self.strict {
            self.strict_rewrites(object, pointer);
        }
        let is_array = types(object).iter().any(|kind| kind == "array");
        if is_array && !object.contains_key("items") {
            if self.strict {
                self.rewriter.refuse(
                    pointer,
                    "an array of values of any type, and strict mode needs every value typed",
                    "give the elements a type, or export the tool non-strict",
                );
            } else {
                object.insert("items".into(), json!({}));
                self.rewriter.lose(
                    pointer,
                    "an array without `items`",
                    "given `items: {}`, which OpenAI requires",
                );
            }
        }
        if rewrite::is_object_schema(object) {
            self.counts.nesting = self.counts.nesting.max(depth);
            if self.strict {
                self.close_object(object, pointer);
            }
        }
        self.children(object, pointer, depth);
    }

    fn strict_rewrites(&mut self, object: &mut Map<String, Value>, pointer: &str) {
        if object.remove("title").is_some() {
            self.rewriter.lose(pointer, "`title`", "removed");
        }
        rewrite::one_of_to_any_of(self.rewriter, object, pointer);
        if object.contains_key("allOf") && !rewrite::merge_all_of(object) {
            self.rewriter.refuse(
                pointer,
                "an `allOf` of schemas that are not objects, which strict mode lacks",
                "export the tool non-strict",
            );
        }
        rewrite::wrap_reference_with_siblings(object);
        let kinds = types(object);
        if kinds
            .iter()
            .any(|kind| kind == "string" || kind == "integer" || kind == "number")
        {
            rewrite::drop_unsupported_format(self.rewriter, object, STRICT_FORMATS, pointer);
        }
        self.rewriter
            .keep_only_keywords(object, STRICT_KEYWORDS, pointer);
    }

    /// `additionalProperties: false`, and every property required.
    fn close_object(&mut self, object: &mut Map<String, Value>, pointer: &str) {
        match object.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => {
                self.rewriter.refuse(
                    &child(pointer, "additionalProperties"),
                    "an open map (keys not known in advance), and strict mode needs every \
                     object's keys listed",
                    "take a list of key-value pairs instead, or export the tool non-strict",
                );
            }
        }
        object.insert("additionalProperties".into(), Value::Bool(false));
        object
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    }

    fn children(&mut self, object: &mut Map<String, Value>, pointer: &str, depth: usize) {
        if let Some(Value::Array(values)) = object.get("enum") {
            self.counts.enum_values += values.len();
            self.counts.string_length += values
                .iter()
                .filter_map(Value::as_str)
                .map(str::len)
                .sum::<usize>();
        }
        if let Some(Value::String(value)) = object.get("const") {
            self.counts.string_length += value.len();
        }
        let required: Vec<String> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            let here = child(pointer, "properties");
            for (name, property) in properties.iter_mut() {
                self.counts.properties += 1;
                self.counts.string_length += name.len();
                self.schema(property, &child(&here, name), depth + 1);
                if !required.contains(name) {
                    self.stats.optional_parameters += 1;
                    if self.strict && make_nullable(property) {
                        self.stats.made_nullable = true;
                    }
                }
            }
            if self.strict {
                let all: Vec<Value> = properties
                    .keys()
                    .map(|name| Value::from(name.as_str()))
                    .collect();
                if all.is_empty() {
                    object.remove("required");
                } else {
                    object.insert("required".into(), Value::Array(all));
                }
            }
        }
        if let Some(items) = object.get_mut("items")
            && items.is_object()
        {
            self.schema(items, &child(pointer, "items"), depth);
        }
        for keyword in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(branches)) = object.get_mut(keyword) {
                let here = child(pointer, keyword);
                for (position, branch) in branches.iter_mut().enumerate() {
                    self.schema(branch, &child(&here, &position.to_string()), depth);
                }
            }
        }
        if let Some(map) = object.get_mut("additionalProperties")
            && map.is_object()
        {
            self.schema(map, &child(pointer, "additionalProperties"), depth + 1);
        }
    }
}

/// The `type` of a schema as a list.
fn types(object: &Map<String, Value>) -> Vec<String> {
    match object.get("type") {
        Some(Value::String(kind)) => vec![kind.clone()],
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// Lets a property also be `null`. Returns `false` when it took `null` already.
fn make_nullable(property: &mut Value) -> bool {
    if rewrite::accepts_null(property) {
        return false;
    }
    let Value::Object(object) = property else {
        return false;
    };
    if let Some(Value::Array(values)) = object.get_mut("enum") {
        values.push(Value::Null);
    }
    match object.get_mut("type") {
        Some(Value::String(kind)) => {
            let kind = std::mem::take(kind);
            object.insert("type".into(), json!([kind, "null"]));
            return true;
        }
        Some(Value::Array(kinds)) => {
            kinds.push(Value::from("null"));
            return true;
        }
        _ => {}
    }
    if let Some(Value::Array(branches)) = object.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
        return true;
    }
    if object.contains_key("enum") {
        return true;
    }
    // A `$ref` or a `const`: the whole schema becomes one branch, the description stays
    // outside.
    let description = object.remove("description");
    let inner = Value::Object(std::mem::take(object));
    object.insert("anyOf".into(), json!([inner, {"type": "null"}]));
    if let Some(description) = description {
        object.insert("description".into(), description);
    }
    true
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_optional_enum_takes_null_among_its_values_too() {
        let mut property = json!({"type": "string", "enum": ["a", "b"]});
        assert!(make_nullable(&mut property));
        assert_eq!(
            property,
            json!({"type": ["string", "null"], "enum": ["a", "b", null]})
        );
    }

    #[test]
    fn an_optional_reference_becomes_a_union_with_null_and_keeps_its_description() {
        let mut property = json!({"$ref": "#/$defs/Node", "description": "The tree."});
        assert!(make_nullable(&mut property));
        assert_eq!(
            property,
            json!({"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}], "description": "The tree."})
        );
    }

    #[test]
    fn a_property_that_took_null_already_is_left_alone() {
        let mut property = json!({"type": ["integer", "null"]});
        assert!(!make_nullable(&mut property));
        assert_eq!(property, json!({"type": ["integer", "null"]}));
    }
}

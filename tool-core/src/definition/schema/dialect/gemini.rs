//! The Gemini dialect: a `FunctionDeclaration` with its schema in `parametersJsonSchema`
//! (JSON Schema) or in `parameters` (the OpenAPI 3.0 subset, `Schema`, which the Live API
//! still needs).
//!
//! A `Json<T>` tool's output schema goes along, rewritten the same way, as `responseJsonSchema`
//! or `response`.
//!
//! `parametersJsonSchema` follows the Gemini API's list of supported JSON Schema keywords
//! (structured output docs, "JSON Schema support"): `const` becomes a one-value `enum`,
//! `allOf` is merged, a `$ref` keeps no siblings, enums hold strings and numbers only,
//! recursion only through properties that are not required; other keywords move into the
//! description.
//!
//! `parameters` follows the `Schema` reference: no `$schema`, `title`,
//! `additionalProperties` or exclusive bounds; `const` as `enum` with `type`; `oneOf` as
//! `anyOf`, `allOf` merged, `$ref` inlined (recursion cannot be, and refuses the tool);
//! "`T` or `null`" as `nullable: true`; an `anyOf` is the only field of its schema
//! (python-genai#625); `required` names only defined properties; arrays always have `items`;
//! enums hold strings only (others move into the description); types are written in
//! capitals as the `Type` enum spells them; an object must have properties, so a tool
//! without arguments declares no `parameters`; a parameter name outside Vertex AI's rule
//! (a letter or `_` first, then letters, digits and `_`, at most 64) refuses the tool.

use serde_json::{Map, Value, json};

use super::rewrite::{self, Rewriter, child};
use super::{ExportProblem, GeminiForm};
use crate::Tool;

/// `parametersJsonSchema`: the keywords Gemini reads.
const JSON_SCHEMA_KEYWORDS: &[&str] = &[
    "$id",
    "$defs",
    "$ref",
    "$anchor",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "oneOf",
    "properties",
    "additionalProperties",
    "required",
    "propertyOrdering",
];

/// `parameters`: the fields of `Schema` kept as they are.
const OPENAPI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

pub(super) fn definition(
    tool: &dyn Tool,
    name: &str,
    form: GeminiForm,
    rewriter: &mut Rewriter<'_>,
) -> Value {
    let spec = tool.spec();
    let mut definition = json!({"name": name, "description": spec.description});
    let Some((root, recursion)) = super::parameters(tool, rewriter) else {
        return definition;
    };
    let (parameters_field, response_field) = match form {
        GeminiForm::JsonSchema => ("parametersJsonSchema", "responseJsonSchema"),
        GeminiForm::OpenApi => ("parameters", "response"),
    };
    let has_properties = root
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| !properties.is_empty());
    let mut root = Value::Object(root);
    rewrite_schema(form, &mut root, recursion, rewriter);
    // The OpenAPI subset rejects an OBJECT without properties: no arguments, no `parameters`.
    if form == GeminiForm::JsonSchema || has_properties {
        definition[parameters_field] = root;
    }
    if let Some(response) = response(tool, form, response_field, rewriter) {
        definition[response_field] = response;
    }
    definition
}

/// Rewrites a schema (inlined, `recursion` telling whether `$defs` are left) for the form.
fn rewrite_schema(
    form: GeminiForm,
    root: &mut Value,
    recursion: bool,
    rewriter: &mut Rewriter<'_>,
) {
    match form {
        GeminiForm::JsonSchema => {
            JsonSchema { rewriter }.schema(root, "");
            if let Some(Value::Object(definitions)) = root.get_mut("$defs") {
                for (name, body) in definitions.iter_mut() {
                    JsonSchema { rewriter }.schema(body, &child("/$defs", name));
                }
            }
        }
        GeminiForm::OpenApi if recursion => rewriter.refuse(
            "/$defs",
            "a recursive type, and the OpenAPI subset has no `$ref` to express it",
            "use `parametersJsonSchema` (Dialect::Gemini { form: GeminiForm::JsonSchema })",
        ),
        GeminiForm::OpenApi => OpenApi { rewriter }.schema(root, "", true),
    }
}

/// The output schema of a `Json<T>` tool, as the declaration's `response` or
/// `responseJsonSchema`. What it loses is reported with pointers that start with that field's
/// name (`responseJsonSchema/properties/lines`); an output schema the form cannot express is
/// left out and reported, without refusing the tool, whose arguments are what a call needs.
fn response(
    tool: &dyn Tool,
    form: GeminiForm,
    field: &str,
    rewriter: &mut Rewriter<'_>,
) -> Option<Value> {
    let output = tool.output_schema()?;
    let (mut schema, recursion) = rewrite::inline_references(output.as_value());
    let mut inner = Rewriter::new(rewriter.tool, rewriter.dialect);
    rewrite_schema(form, &mut schema, recursion, &mut inner);
    if !inner.refused.is_empty() {
        let reasons: Vec<String> = inner.refused.iter().map(ToString::to_string).collect();
        rewriter.lose(
            field,
            "the output schema",
            &format!("left out: {}", reasons.join("; ")),
        );
        return None;
    }
    for mut problem in inner.lost {
        if let ExportProblem::Lost { pointer, .. } = &mut problem {
            *pointer = format!("{field}{pointer}");
        }
        rewriter.lost.push(problem);
    }
    Some(schema)
}

struct JsonSchema<'r, 'a> {
    rewriter: &'r mut Rewriter<'a>,
}

impl JsonSchema<'_, '_> {
    fn schema(&mut self, schema: &mut Value, pointer: &str) {
        let Value::Object(object) = schema else {
            return;
        };
        if let Some(value) = object.get("const").cloned()
            && (value.is_string() || value.is_number())
        {
            object.remove("const");
            object.insert("enum".into(), json!([value]));
        }
        if object.contains_key("allOf") && !rewrite::merge_all_of(object) {
            self.rewriter.refuse(
                pointer,
                "an `allOf` of schemas that are not objects",
                "take these arguments as one struct",
            );
        }
        rewrite::wrap_reference_with_siblings(object);
        if let Some(Value::Array(values)) = object.get("enum")
            && !values
                .iter()
                .all(|value| value.is_string() || value.is_number())
        {
            self.rewriter
                .move_to_description(object, &["enum"], pointer);
        }
        self.rewriter
            .keep_only_keywords(object, JSON_SCHEMA_KEYWORDS, pointer);
        let required: Vec<Value> = object
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            let here = child(pointer, "properties");
            for (name, property) in properties.iter_mut() {
                let at = child(&here, name);
                if property.get("$ref").is_some() && required.contains(&Value::from(name.as_str()))
                {
                    self.rewriter.refuse(
                        &at,
                        "a required property of a recursive type; Gemini unrolls recursion only \
                         through properties that are not required",
                        "make the field optional (`Option<T>`)",
                    );
                }
                self.schema(property, &at);
            }
        }
        for keyword in ["items", "additionalProperties"] {
            if let Some(inner) = object.get_mut(keyword)
                && inner.is_object()
            {
                self.schema(inner, &child(pointer, keyword));
            }
        }
        for keyword in ["anyOf", "oneOf", "prefixItems"] {
            if let Some(Value::Array(branches)) = object.get_mut(keyword) {
                let here = child(pointer, keyword);
                for (position, branch) in branches.iter_mut().enumerate() {
                    self.schema(branch, &child(&here, &position.to_string()));
                }
            }
        }
    }
}

struct OpenApi<'r, 'a> {
    rewriter: &'r mut Rewriter<'a>,
}

impl OpenApi<'_, '_> {
    fn schema(&mut self, schema: &mut Value, pointer: &str, is_root: bool) {
        if *schema == Value::Bool(true) {
            *schema = json!({});
        }
        let Value::Object(object) = schema else {
            return;
        };
        object.remove("$schema");
        if object.remove("title").is_some() {
            self.rewriter.lose(pointer, "`title`", "removed");
        }
        rewrite::one_of_to_any_of(self.rewriter, object, pointer);
        if object.contains_key("allOf") && !rewrite::merge_all_of(object) {
            self.rewriter.refuse(
                pointer,
                "an `allOf` of schemas that are not objects",
                "take these arguments as one struct",
            );
        }
        self.additional_properties(object, pointer, is_root);
        rewrite::tuple_to_items(self.rewriter, object, pointer);
        collapse_string_alternatives(object);
        self.constants(object, pointer);
        self.nulls(object, pointer);
        self.formats(object, pointer);
        self.rewriter
            .keep_only_keywords(object, OPENAPI_KEYWORDS, pointer);
        self.children(object, pointer);
        if let Some(Value::String(kind)) = object.get_mut("type") {
            *kind = kind.to_ascii_uppercase();
        }
    }

    fn additional_properties(
        &mut self,
        object: &mut Map<String, Value>,
        pointer: &str,
        is_root: bool,
    ) {
        let Some(additional) = object.remove("additionalProperties") else {
            return;
        };
        let has_properties = object
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|properties| !properties.is_empty());
        if additional == Value::Bool(false) {
            // The default for a declared object: Gemini sends the declared keys.
            return;
        }
        if has_properties || is_root {
            self.rewriter.lose(
                pointer,
                "`additionalProperties` (keys beyond those declared)",
                "removed: the model will send the declared keys only",
            );
        } else {
            self.rewriter.refuse(
                pointer,
                "an open map (keys not known in advance): the OpenAPI subset has no \
                 `additionalProperties` and rejects an object without properties",
                "take a list of key-value pairs, or use `parametersJsonSchema` \
                 (Dialect::Gemini { form: GeminiForm::JsonSchema })",
            );
        }
    }

    /// `const` as a one-value `enum` (strings), or in words (other values); enums of other
    /// than strings in words.
    fn constants(&mut self, object: &mut Map<String, Value>, pointer: &str) {
        if let Some(value) = object.get("const").cloned() {
            if let Value::String(_) = value {
                object.remove("const");
                object.insert("type".into(), Value::from("string"));
                object.insert("enum".into(), json!([value]));
            } else {
                if !object.contains_key("type") {
                    object.insert("type".into(), Value::from(json_type(&value)));
                }
                self.rewriter
                    .move_to_description(object, &["const"], pointer);
            }
        }
        if let Some(Value::Array(values)) = object.get_mut("enum")
            && values.contains(&Value::Null)
        {
            values.retain(|value| !value.is_null());
            object.insert("nullable".into(), Value::Bool(true));
        }
        if let Some(Value::Array(values)) = object.get("enum") {
            if values.iter().all(Value::is_string) {
                object.insert("type".into(), Value::from("string"));
            } else {
                if !object.contains_key("type")
                    && let Some(first) = values.first()
                {
                    object.insert("type".into(), Value::from(json_type(first)));
                }
                self.rewriter
                    .move_to_description(object, &["enum"], pointer);
            }
        }
    }

    /// "`T` or `null`" as `nullable: true`; several types as `anyOf`; an `anyOf` alone.
    fn nulls(&mut self, object: &mut Map<String, Value>, pointer: &str) {
        if let Some(Value::Array(kinds)) = object.get("type").cloned() {
            let mut kinds: Vec<Value> = kinds;
            if kinds.iter().any(|kind| kind == "null") {
                kinds.retain(|kind| kind != "null");
                object.insert("nullable".into(), Value::Bool(true));
            }
            match kinds.len() {
                0 => {
                    object.remove("type");
                }
                1 => {
                    object.insert("type".into(), kinds.remove(0));
                }
                _ => {
                    object.remove("type");
                    let branches = kinds
                        .into_iter()
                        .map(|kind| json!({"type": kind}))
                        .collect();
                    object.insert("anyOf".into(), Value::Array(branches));
                }
            }
        }
        let Some(Value::Array(mut branches)) = object.remove("anyOf") else {
            return;
        };
        let is_null = |branch: &Value| branch.get("type").and_then(Value::as_str) == Some("null");
        if branches.iter().any(is_null) {
            branches.retain(|branch| !is_null(branch));
            object.insert("nullable".into(), Value::Bool(true));
        }
        if branches.len() == 1 {
            if let Value::Object(only) = branches.remove(0) {
                for (key, value) in only {
                    object.entry(key).or_insert(value);
                }
            }
            return;
        }
        // `anyOf` must be the only field: what applies to every branch goes into each.
        let shared: Vec<String> = object.keys().cloned().collect();
        for key in shared {
            let Some(value) = object.remove(&key) else {
                continue;
            };
            if key == "description" {
                // The property's description, then the branch's own.
                for branch in &mut branches {
                    if let Value::Object(branch) = branch {
                        let text = match branch.get("description").and_then(Value::as_str) {
                            Some(own) => format!("{} {own}", value.as_str().unwrap_or_default()),
                            None => value.as_str().unwrap_or_default().to_owned(),
                        };
                        branch.insert(key.clone(), Value::String(text));
                    }
                }
            } else if key == "nullable" {
                for branch in &mut branches {
                    if let Value::Object(branch) = branch {
                        branch.insert(key.clone(), value.clone());
                    }
                }
            } else {
                self.rewriter.lose(
                    pointer,
                    format!("`{key}: {value}` beside `anyOf`"),
                    "removed: Gemini wants `anyOf` alone",
                );
            }
        }
        object.insert("anyOf".into(), Value::Array(branches));
    }

    fn formats(&mut self, object: &mut Map<String, Value>, pointer: &str) {
        let supported: &[&str] = match object.get("type").and_then(Value::as_str) {
            Some("string") => &["enum", "date-time"],
            Some("integer") => &["int32", "int64"],
            Some("number") => &["float", "double"],
            _ => &[],
        };
        rewrite::drop_unsupported_format(self.rewriter, object, supported, pointer);
    }

    fn children(&mut self, object: &mut Map<String, Value>, pointer: &str) {
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            let here = child(pointer, "properties");
            for (name, property) in properties.iter_mut() {
                let at = child(&here, name);
                if !is_parameter_name(name) {
                    self.rewriter.refuse(
                        &at,
                        format!(
                            "the parameter name `{name}`: Gemini's parameter names start with a \
                             letter or `_` and hold only letters, digits and `_`, at most 64"
                        ),
                        "rename the parameter (`#[arg(rename = \"...\")]` or `#[serde(rename)]`), \
                         or use `parametersJsonSchema`",
                    );
                }
                let is_empty_object = property.get("type").and_then(Value::as_str)
                    == Some("object")
                    && property
                        .get("properties")
                        .and_then(Value::as_object)
                        .is_none_or(Map::is_empty)
                    && property.get("additionalProperties") != Some(&Value::Bool(true))
                    && !property
                        .get("additionalProperties")
                        .is_some_and(Value::is_object);
                if is_empty_object {
                    self.rewriter.refuse(
                        &at,
                        "an object without properties, which Gemini rejects",
                        "give the type a field, or leave the parameter out",
                    );
                }
                self.schema(property, &at, false);
            }
            let defined: Vec<Value> = properties
                .keys()
                .map(|name| Value::from(name.as_str()))
                .collect();
            if let Some(Value::Array(required)) = object.get_mut("required") {
                required.retain(|name| defined.contains(name));
                if required.is_empty() {
                    object.remove("required");
                }
            }
        } else if object.contains_key("required") {
            object.remove("required");
        }
        let is_array = object.get("type").and_then(Value::as_str) == Some("array");
        if is_array && !object.get("items").is_some_and(Value::is_object) {
            object.insert("items".into(), json!({}));
            self.rewriter.lose(
                pointer,
                "an array without an `items` schema",
                "given `items: {}`: Gemini wants every array to say what it holds",
            );
        }
        if let Some(items) = object.get_mut("items") {
            self.schema(items, &child(pointer, "items"), false);
        }
        if let Some(Value::Array(branches)) = object.get_mut("anyOf") {
            let here = child(pointer, "anyOf");
            for (position, branch) in branches.iter_mut().enumerate() {
                self.schema(branch, &child(&here, &position.to_string()), false);
            }
        }
    }
}

/// An `anyOf` whose branches are each one string (what schemars makes of a unit enum with
/// documented variants) becomes one string `enum`, the variants' descriptions kept in words:
/// simpler for the OpenAPI subset, and no `anyOf` beside the property's description.
fn collapse_string_alternatives(object: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = object.get("anyOf") else {
        return;
    };
    let mut values = Vec::new();
    let mut described = Vec::new();
    for branch in branches {
        let Some(branch) = branch.as_object() else {
            return;
        };
        let single = match (branch.get("const"), branch.get("enum")) {
            (Some(Value::String(value)), None) => value.clone(),
            (None, Some(Value::Array(one))) if one.len() == 1 && one[0].is_string() => {
                one[0].as_str().unwrap_or_default().to_owned()
            }
            _ => return,
        };
        let other_keys = branch
            .keys()
            .any(|key| !matches!(key.as_str(), "const" | "enum" | "type" | "description"));
        if other_keys || branch.get("type").is_some_and(|kind| kind != "string") {
            return;
        }
        if let Some(text) = branch.get("description").and_then(Value::as_str) {
            described.push(format!("{single}: {text}"));
        }
        values.push(Value::String(single));
    }
    object.remove("anyOf");
    object.insert("type".into(), Value::from("string"));
    object.insert("enum".into(), Value::Array(values));
    if !described.is_empty() {
        rewrite::append_description(object, &[described.join("; ")]);
    }
}

/// Vertex AI's `FunctionDeclaration.parameters`: "Parameter names must start with a letter or
/// an underscore and must only contain chars a-z, A-Z, 0-9, or underscores with a maximum
/// length of 64."
fn is_parameter_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (1..=64).contains(&bytes.len())
        && (bytes[0].is_ascii_alphabetic() || bytes[0] == b'_')
        && bytes
            .iter()
            .all(|&byte| byte.is_ascii_alphanumeric() || byte == b'_')
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Dialect;

    fn rewritten(schema: Value) -> (Value, Vec<String>) {
        let mut rewriter = Rewriter::new(
            "t",
            Dialect::Gemini {
                form: GeminiForm::OpenApi,
            },
        );
        let mut schema = schema;
        OpenApi {
            rewriter: &mut rewriter,
        }
        .schema(&mut schema, "", false);
        let lost = rewriter.lost.iter().map(ToString::to_string).collect();
        (schema, lost)
    }

    #[test]
    fn a_type_with_null_becomes_nullable() {
        let (schema, _) = rewritten(json!({"type": ["integer", "null"], "format": "int32"}));
        assert_eq!(
            schema,
            json!({"type": "INTEGER", "format": "int32", "nullable": true})
        );
    }

    // python-genai#625: "anyOf must be the only field set".
    #[test]
    fn an_any_of_is_left_alone_with_the_description_in_each_branch() {
        let (schema, lost) = rewritten(json!({
            "description": "A number or a word.",
            "default": 3,
            "anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]
        }));
        assert_eq!(
            schema,
            json!({"anyOf": [
                {"type": "INTEGER", "description": "A number or a word.", "nullable": true},
                {"type": "STRING", "description": "A number or a word.", "nullable": true}
            ]})
        );
        assert_eq!(lost.len(), 1, "{lost:?}");
    }

    #[test]
    fn a_number_enum_moves_into_the_description() {
        let (schema, _) = rewritten(json!({"enum": [1, 2, 3]}));
        assert_eq!(
            schema,
            json!({"type": "INTEGER", "description": "(one of: 1, 2, 3)"})
        );
    }

    #[test]
    fn a_parameter_name_gemini_refuses_refuses_the_tool() {
        let mut rewriter = Rewriter::new(
            "t",
            Dialect::Gemini {
                form: GeminiForm::OpenApi,
            },
        );
        let mut schema =
            json!({"type": "object", "properties": {"alpha-value": {"type": "string"}}});
        OpenApi {
            rewriter: &mut rewriter,
        }
        .schema(&mut schema, "", true);
        assert_eq!(rewriter.refused[0].pointer(), "/properties/alpha-value");
    }

    #[test]
    fn a_string_const_becomes_a_one_value_enum() {
        let (schema, lost) = rewritten(json!({"const": "run"}));
        assert_eq!(schema, json!({"type": "STRING", "enum": ["run"]}));
        assert!(lost.is_empty());
    }
}

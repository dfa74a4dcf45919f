//! An independent checker of each provider's documented rules for tool declarations, used by
//! the dialect tests here and in tool-std (`#[path]`-included by both). It does not share
//! code with the exporter on purpose: it reads the exported JSON the way the provider's docs
//! describe, and a rule it breaks is a bug in the export.
//!
//! Sources, cited per rule below:
//! - [OpenAI-SO]: OpenAI, Structured Outputs guide, "Supported schemas" (supported types and
//!   properties, "All fields must be required", "additionalProperties: false must always be
//!   set in objects", "Root objects must not be anyOf", the limits on properties, nesting,
//!   string length and enum values).
//! - [OpenAI-FC]: OpenAI, Function calling guide and API reference (function name pattern,
//!   the chat and responses tool shapes, `strict` defaulting to true in the responses API).
//! - [Anthropic-TU]: Anthropic, "Tool use", the `tools` parameter (name pattern, `input_schema`
//!   an object schema).
//! - [Anthropic-ST]: Anthropic, "Strict tool use", "JSON Schema limitations".
//! - [Gemini-FD]: Gemini API reference, `FunctionDeclaration` (name rule, `parameters` and
//!   `parametersJsonSchema`) and `Schema` (the OpenAPI subset's fields and `Type` values).
//! - [Gemini-JS]: Gemini API, structured output, "JSON Schema support" (keywords read in
//!   JSON Schema form, `$ref` without siblings).
//! - [MCP]: Model Context Protocol 2025-11-25, "Tools" (tool name rule, `inputSchema` and
//!   `outputSchema` object schemas).

// Each including test binary uses part of it.
#![allow(dead_code)]

use serde_json::{Map, Value};
use tool_core::schema::{Dialect, GeminiForm, OpenAiApi};

/// Everything `definition` (one exported tool) breaks in `dialect`, as `pointer: rule`.
pub fn violations(dialect: Dialect, definition: &Value) -> Vec<String> {
    let mut found = Vec::new();
    match dialect {
        Dialect::Mcp => mcp(definition, &mut found),
        Dialect::OpenAi { strict, api } => openai(definition, strict, api, &mut found),
        Dialect::Anthropic { strict } => anthropic(definition, strict, &mut found),
        Dialect::Gemini { form } => gemini(definition, form, &mut found),
    }
    found
}

/// The parameters schema inside a declaration.
pub fn parameters(dialect: Dialect, definition: &Value) -> Option<&Value> {
    match dialect {
        Dialect::Mcp => definition.get("inputSchema"),
        Dialect::OpenAi {
            api: OpenAiApi::ChatCompletions,
            ..
        } => definition.get("function")?.get("parameters"),
        Dialect::OpenAi { .. } => definition.get("parameters"),
        Dialect::Anthropic { .. } => definition.get("input_schema"),
        Dialect::Gemini {
            form: GeminiForm::JsonSchema,
        } => definition.get("parametersJsonSchema"),
        Dialect::Gemini {
            form: GeminiForm::OpenApi,
        } => definition.get("parameters"),
    }
}

fn name_matches(name: &str, max: usize, extra: &[char], letter_first: bool) -> bool {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|first| {
        if letter_first {
            first.is_ascii_alphabetic() || first == '_'
        } else {
            first.is_ascii_alphanumeric() || extra.contains(&first)
        }
    });
    first_ok
        && name.len() <= max
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
}

/// Every subschema of `schema` with its pointer.
fn each_schema<'a>(schema: &'a Value, pointer: String, out: &mut Vec<(String, &'a Value)>) {
    let Some(object) = schema.as_object() else {
        return;
    };
    out.push((pointer.clone(), schema));
    for keyword in ["properties", "$defs"] {
        if let Some(Value::Object(children)) = object.get(keyword) {
            for (name, child) in children {
                each_schema(child, format!("{pointer}/{keyword}/{name}"), out);
            }
        }
    }
    for keyword in ["items", "additionalProperties", "not"] {
        if let Some(child) = object.get(keyword) {
            each_schema(child, format!("{pointer}/{keyword}"), out);
        }
    }
    for keyword in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = object.get(keyword) {
            for (position, child) in children.iter().enumerate() {
                each_schema(child, format!("{pointer}/{keyword}/{position}"), out);
            }
        }
    }
}

fn subschemas(schema: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    each_schema(schema, String::new(), &mut out);
    out
}

fn is_object(schema: &Map<String, Value>) -> bool {
    schema.get("type") == Some(&Value::from("object")) || schema.contains_key("properties")
}

fn property_names(schema: &Map<String, Value>) -> Vec<&str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

fn required_names(schema: &Map<String, Value>) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn root_is_plain_object(parameters: &Value, found: &mut Vec<String>, source: &str) {
    if parameters.get("type") != Some(&Value::from("object")) {
        found.push(format!(": the root must be `type: object` [{source}]"));
    }
    for combinator in ["anyOf", "oneOf", "allOf", "not", "enum"] {
        if parameters.get(combinator).is_some() {
            found.push(format!(": no `{combinator}` at the root [{source}]"));
        }
    }
}

/// A cycle of `$ref`s among `$defs` (or a reference to the root).
fn has_recursion(parameters: &Value) -> bool {
    let text = parameters.to_string();
    if text.contains("\"$ref\":\"#\"") {
        return true;
    }
    let Some(definitions) = parameters.get("$defs").and_then(Value::as_object) else {
        return false;
    };
    definitions.iter().any(|(name, _)| {
        let mut stack = vec![name.clone()];
        let mut seen = Vec::new();
        while let Some(next) = stack.pop() {
            let Some(body) = definitions.get(&next) else {
                continue;
            };
            for (_, schema) in subschemas(body) {
                if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
                    let target = reference.trim_start_matches("#/$defs/").to_owned();
                    if target == *name {
                        return true;
                    }
                    if !seen.contains(&target) {
                        seen.push(target.clone());
                        stack.push(target);
                    }
                }
            }
        }
        false
    })
}

fn mcp(definition: &Value, found: &mut Vec<String>) {
    let name = definition["name"].as_str().unwrap_or_default();
    // [MCP] Tool names: 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-`, `.`.
    if !name_matches(name, 128, &['_', '-', '.'], false) {
        found.push(format!(
            "/name: `{name}` breaks the MCP tool name rule [MCP]"
        ));
    }
    // [MCP] `inputSchema`: a JSON Schema object with `type: "object"`.
    if definition["inputSchema"]["type"] != "object" {
        found.push("/inputSchema: must be `type: object` [MCP]".into());
    }
    // [MCP] `outputSchema`, when present, describes an object (structured content).
    if let Some(output) = definition.get("outputSchema")
        && output["type"] != "object"
    {
        found.push("/outputSchema: must be `type: object` [MCP]".into());
    }
}

const OPENAI_STRICT_KEYWORDS: &[&str] = &[
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

const OPENAI_FORMATS: &[&str] = &[
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

fn openai(definition: &Value, strict: bool, api: OpenAiApi, found: &mut Vec<String>) {
    // [OpenAI-FC] chat completions nest the function; the responses API is flat.
    let function = match api {
        OpenAiApi::ChatCompletions => &definition["function"],
        OpenAiApi::Responses => definition,
    };
    if definition["type"] != "function" {
        found.push("/type: must be \"function\" [OpenAI-FC]".into());
    }
    let name = function["name"].as_str().unwrap_or_default();
    // [OpenAI-FC] ^[a-zA-Z0-9_-]{1,64}$
    if !name_matches(name, 64, &['_', '-'], false) {
        found.push(format!(
            "/name: `{name}` breaks ^[a-zA-Z0-9_-]{{1,64}}$ [OpenAI-FC]"
        ));
    }
    // [OpenAI-FC] the responses API defaults `strict` to true: it must be said either way.
    if function.get("strict") != Some(&Value::Bool(strict)) {
        found.push(format!("/strict: must be {strict}, explicitly [OpenAI-FC]"));
    }
    let parameters = &function["parameters"];
    // [OpenAI-SO] "Root objects must not be anyOf and must be an object".
    root_is_plain_object(parameters, found, "OpenAI-SO");
    let mut properties = 0;
    let mut string_length = 0;
    let mut enum_values = 0;
    for (pointer, schema) in subschemas(parameters) {
        let Some(object) = schema.as_object() else {
            continue;
        };
        // [OpenAI-FC] observed as "array schema missing items": every array says its items.
        if object.get("type") == Some(&Value::from("array")) && !object.contains_key("items") {
            found.push(format!("{pointer}: an array without `items` [OpenAI-FC]"));
        }
        if !strict {
            continue;
        }
        // [OpenAI-SO] supported properties only.
        for key in object.keys() {
            if !OPENAI_STRICT_KEYWORDS.contains(&key.as_str()) {
                found.push(format!(
                    "{pointer}: `{key}` is not supported in strict mode [OpenAI-SO]"
                ));
            }
        }
        // [OpenAI-SO] supported string formats.
        if let Some(format) = object.get("format").and_then(Value::as_str)
            && !OPENAI_FORMATS.contains(&format)
        {
            found.push(format!(
                "{pointer}: format `{format}` is not supported [OpenAI-SO]"
            ));
        }
        // [OpenAI-SO] `$ref` takes no sibling keywords.
        if object.contains_key("$ref") && object.len() > 1 {
            found.push(format!("{pointer}: `$ref` with siblings [OpenAI-SO]"));
        }
        // [OpenAI-SO] every value typed: no schema accepting anything.
        if object.is_empty() || object.keys().all(|key| key == "description") {
            found.push(format!("{pointer}: a schema without a type [OpenAI-SO]"));
        }
        if is_object(object) {
            // [OpenAI-SO] "additionalProperties: false must always be set in objects".
            if object.get("additionalProperties") != Some(&Value::Bool(false)) {
                found.push(format!(
                    "{pointer}: `additionalProperties` must be false [OpenAI-SO]"
                ));
            }
            // [OpenAI-SO] "All fields must be required".
            let required = required_names(object);
            for name in property_names(object) {
                if !required.contains(&name) {
                    found.push(format!(
                        "{pointer}: property `{name}` is not required [OpenAI-SO]"
                    ));
                }
                properties += 1;
                string_length += name.len();
            }
        }
        if let Some(values) = object.get("enum").and_then(Value::as_array) {
            enum_values += values.len();
            string_length += values
                .iter()
                .filter_map(Value::as_str)
                .map(str::len)
                .sum::<usize>();
        }
    }
    if strict {
        // [OpenAI-SO] limits: 5,000 properties, 120,000 characters, 1,000 enum values, and at
        // most 10 levels of nesting.
        if properties > 5_000 || string_length > 120_000 || enum_values > 1_000 {
            found.push(": over a strict-mode size limit [OpenAI-SO]".into());
        }
        if nesting(parameters) > 10 {
            found.push(": more than 10 levels of nesting [OpenAI-SO]".into());
        }
    }
}

fn nesting(schema: &Value) -> usize {
    let Some(object) = schema.as_object() else {
        return 0;
    };
    let below = subschemas(schema)
        .into_iter()
        .skip(1)
        .filter(|(pointer, _)| {
            pointer.matches("/properties/").count() == 1 && !pointer.contains("/$defs/")
        })
        .map(|(_, child)| nesting(child))
        .max()
        .unwrap_or(0);
    usize::from(is_object(object)) + below
}

const ANTHROPIC_FORMATS: &[&str] = &[
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

fn anthropic(definition: &Value, strict: bool, found: &mut Vec<String>) {
    let name = definition["name"].as_str().unwrap_or_default();
    // [Anthropic-TU] ^[a-zA-Z0-9_-]{1,128}$
    if !name_matches(name, 128, &['_', '-'], false) {
        found.push(format!(
            "/name: `{name}` breaks ^[a-zA-Z0-9_-]{{1,128}}$ [Anthropic-TU]"
        ));
    }
    let schema = &definition["input_schema"];
    // [Anthropic-TU] `input_schema` is an object schema; a root combinator is a 400
    // (claude-code#40075).
    root_is_plain_object(schema, found, "Anthropic-TU");
    if !strict {
        return;
    }
    // [Anthropic-ST] "Recursive schemas" are not supported.
    if has_recursion(schema) {
        found.push(": a recursive schema [Anthropic-ST]".into());
    }
    for (pointer, subschema) in subschemas(schema) {
        let Some(object) = subschema.as_object() else {
            continue;
        };
        // [Anthropic-ST] `additionalProperties` must be false on objects.
        if is_object(object) && object.get("additionalProperties") != Some(&Value::Bool(false)) {
            found.push(format!(
                "{pointer}: `additionalProperties` must be false [Anthropic-ST]"
            ));
        }
        // [Anthropic-ST] numerical and string constraints are not supported; array
        // constraints only `minItems` of 0 or 1.
        for key in [
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minLength",
            "maxLength",
            "maxItems",
        ] {
            if object.contains_key(key) {
                found.push(format!(
                    "{pointer}: `{key}` is not supported [Anthropic-ST]"
                ));
            }
        }
        if object
            .get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|min| min > 1)
        {
            found.push(format!("{pointer}: `minItems` above 1 [Anthropic-ST]"));
        }
        // [Anthropic-ST] supported string formats.
        if let Some(format) = object.get("format").and_then(Value::as_str)
            && !ANTHROPIC_FORMATS.contains(&format)
        {
            found.push(format!(
                "{pointer}: format `{format}` is not supported [Anthropic-ST]"
            ));
        }
        // [Anthropic-ST] complex types within enums are not supported.
        if let Some(values) = object.get("enum").and_then(Value::as_array)
            && values
                .iter()
                .any(|value| value.is_object() || value.is_array())
        {
            found.push(format!(
                "{pointer}: an enum of objects or arrays [Anthropic-ST]"
            ));
        }
    }
}

const GEMINI_JSON_KEYWORDS: &[&str] = &[
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

const GEMINI_SCHEMA_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
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

const GEMINI_TYPES: &[&str] = &[
    "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL",
];

fn gemini(definition: &Value, form: GeminiForm, found: &mut Vec<String>) {
    let name = definition["name"].as_str().unwrap_or_default();
    // [Gemini-FD] starts with a letter or `_`; letters, digits, `_`, `.`, `-`; at most 64.
    if !name_matches(name, 64, &['_', '-', '.'], true) {
        found.push(format!(
            "/name: `{name}` breaks Gemini's function name rule [Gemini-FD]"
        ));
    }
    match form {
        GeminiForm::JsonSchema => {
            let schema = &definition["parametersJsonSchema"];
            root_is_plain_object(schema, found, "Gemini-FD");
            gemini_json_schema(schema, "", found);
            // [Gemini-FD] `responseJsonSchema`: the function's output, in the same JSON Schema.
            if let Some(response) = definition.get("responseJsonSchema") {
                gemini_json_schema(response, "/responseJsonSchema", found);
            }
        }
        GeminiForm::OpenApi => {
            // [Gemini-FD] "For function with no parameters, this can be left unset."
            if let Some(schema) = definition.get("parameters") {
                if schema["type"] != "OBJECT" {
                    found.push(": the root must be `type: OBJECT` [Gemini-FD]".into());
                }
                gemini_openapi_schema(schema, "", found);
            }
            // [Gemini-FD] `response`: the function's output, as a `Schema`.
            if let Some(response) = definition.get("response") {
                gemini_openapi_schema(response, "/response", found);
            }
        }
    }
}

fn gemini_json_schema(schema: &Value, prefix: &str, found: &mut Vec<String>) {
    for (pointer, subschema) in subschemas(schema) {
        let pointer = format!("{prefix}{pointer}");
        let Some(object) = subschema.as_object() else {
            continue;
        };
        // [Gemini-JS] the keywords Gemini reads.
        for key in object.keys() {
            if !GEMINI_JSON_KEYWORDS.contains(&key.as_str()) {
                found.push(format!(
                    "{pointer}: `{key}` is not read by Gemini [Gemini-JS]"
                ));
            }
        }
        // [Gemini-JS] "If $ref is set on a sub-schema, no other properties, except for those
        // starting as a $, may be set."
        if object.contains_key("$ref") && object.keys().any(|key| !key.starts_with('$')) {
            found.push(format!("{pointer}: `$ref` with siblings [Gemini-JS]"));
        }
        // [Gemini-JS] `enum` for strings and numbers.
        if let Some(values) = object.get("enum").and_then(Value::as_array)
            && !values
                .iter()
                .all(|value| value.is_string() || value.is_number())
        {
            found.push(format!(
                "{pointer}: an enum of other than strings and numbers [Gemini-JS]"
            ));
        }
    }
}

fn gemini_openapi_schema(schema: &Value, prefix: &str, found: &mut Vec<String>) {
    for (pointer, subschema) in subschemas(schema) {
        let pointer = format!("{prefix}{pointer}");
        let Some(object) = subschema.as_object() else {
            continue;
        };
        // [Gemini-FD] `Schema`'s fields only (no `$ref`, `$defs`, `const`, `oneOf`, `allOf`,
        // `additionalProperties`, exclusive bounds).
        for key in object.keys() {
            if !GEMINI_SCHEMA_FIELDS.contains(&key.as_str()) {
                found.push(format!(
                    "{pointer}: `{key}` is not a Schema field [Gemini-FD]"
                ));
            }
        }
        // [Gemini-FD] `type` is one of the `Type` enum's values.
        if let Some(kind) = object.get("type")
            && !kind
                .as_str()
                .is_some_and(|kind| GEMINI_TYPES.contains(&kind))
        {
            found.push(format!(
                "{pointer}: type {kind} is not a Gemini Type [Gemini-FD]"
            ));
        }
        // python-genai#625: "anyOf must be the only field set".
        if object.contains_key("anyOf") && object.len() > 1 {
            found.push(format!("{pointer}: `anyOf` with siblings [Gemini-FD]"));
        }
        // [Gemini-FD] `required` names properties of the schema.
        let properties = property_names(object);
        for name in required_names(object) {
            if !properties.contains(&name) {
                found.push(format!(
                    "{pointer}: `required` names `{name}`, not a property [Gemini-FD]"
                ));
            }
        }
        // [Gemini-FD] (Vertex AI) parameter names: a letter or `_` first, then letters,
        // digits and `_`, at most 64.
        for name in &properties {
            if !name_matches(name, 64, &['_'], true) {
                found.push(format!("{pointer}: parameter name `{name}` [Gemini-FD]"));
            }
        }
        // [Gemini-FD] an ARRAY has `items`; an OBJECT has properties.
        if object.get("type") == Some(&Value::from("ARRAY")) && !object.contains_key("items") {
            found.push(format!("{pointer}: an ARRAY without `items` [Gemini-FD]"));
        }
        if object.get("type") == Some(&Value::from("OBJECT")) && properties.is_empty() {
            found.push(format!(
                "{pointer}: an OBJECT without properties [Gemini-FD]"
            ));
        }
        // [Gemini-FD] `enum` is a list of strings.
        if let Some(values) = object.get("enum").and_then(Value::as_array)
            && !values.iter().all(Value::is_string)
        {
            found.push(format!(
                "{pointer}: an enum of other than strings [Gemini-FD]"
            ));
        }
        // [Gemini-FD] `format`: `enum` and `date-time` for STRING, `int32` and `int64` for
        // INTEGER, `float` and `double` for NUMBER.
        if let Some(format) = object.get("format").and_then(Value::as_str) {
            let allowed: &[&str] = match object.get("type").and_then(Value::as_str) {
                Some("STRING") => &["enum", "date-time"],
                Some("INTEGER") => &["int32", "int64"],
                Some("NUMBER") => &["float", "double"],
                _ => &[],
            };
            if !allowed.contains(&format) {
                found.push(format!(
                    "{pointer}: format `{format}` is not supported [Gemini-FD]"
                ));
            }
        }
    }
}

/// The exported parameters as a JSON Schema a validator reads: Gemini's OpenAPI subset spells
/// types in capitals and says `nullable`, which JSON Schema says as a `null` type.
pub fn as_json_schema(dialect: Dialect, parameters: &Value) -> Value {
    if dialect
        != (Dialect::Gemini {
            form: GeminiForm::OpenApi,
        })
    {
        return parameters.clone();
    }
    fn lower(value: &mut Value) {
        match value {
            Value::Object(object) => {
                let nullable = object.remove("nullable") == Some(Value::Bool(true));
                if let Some(Value::String(kind)) = object.get_mut("type") {
                    *kind = kind.to_ascii_lowercase();
                    if nullable {
                        let kind = kind.clone();
                        object.insert("type".into(), serde_json::json!([kind, "null"]));
                    }
                }
                object.values_mut().for_each(lower);
            }
            Value::Array(items) => items.iter_mut().for_each(lower),
            _ => {}
        }
    }
    let mut schema = parameters.clone();
    lower(&mut schema);
    schema
}

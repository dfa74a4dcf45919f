//! JSON Schemas of tool arguments and outputs, and their exports in each provider's
//! [`Dialect`] (see [`Toolset::export`](crate::Toolset::export)); and, inside the crate, reading
//! a schema back to explain an argument error.
//!
//! Input schemas are JSON Schema 2020-12 objects made by schemars from the arguments type, with
//! properties in declaration order, no `$schema` and no root `title`, and
//! `additionalProperties: false` when the type rejects unknown fields. Generated tools build
//! them lazily, once, and cache them (see the `#[tool]` expansion).

pub(crate) mod dialect;

pub use dialect::{
    Dialect, Export, ExportError, ExportProblem, ExportedTool, GeminiForm, OpenAiApi, ToolNames,
    check, export_tool,
};
/// A JSON Schema (re-exported from `schemars`): what
/// [`Tool::input_schema`](crate::Tool::input_schema) and
/// [`Tool::output_schema`](crate::Tool::output_schema) return. A hand-written tool makes
/// its input schema once, from its arguments type:
///
/// ```
/// use tool_core::schema::{Schema, input_schema_for};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Lookup {
///     /// The user's email address.
///     email: String,
///     /// Include closed accounts.
///     closed: Option<bool>,
/// }
///
/// let schema: Schema = input_schema_for::<Lookup>();
/// let schema = schema.as_value();
/// assert_eq!(schema["type"], "object");
/// assert_eq!(schema["properties"]["email"]["description"], "The user's email address.");
/// assert_eq!(schema["required"], serde_json::json!(["email"]));
/// ```
pub use schemars::Schema;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value};

/// The generator the framework's input schemas are made with: they describe what the
/// arguments are deserialized from.
pub(crate) fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|settings| settings.meta_schema = None)
        .into_generator()
}

/// The generator of output schemas: they describe what a result serializes to, so a field
/// left out when empty (`skip_serializing_if`) is not required, and serde's serialize-side
/// names apply. A client checks `structuredContent` against this schema (the MCP SDKs do), and
/// refuses a result that leaves out a field the schema requires.
pub(crate) fn output_generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|settings| settings.meta_schema = None)
        .for_serialize()
        .into_generator()
}

/// The input schema of an arguments type: an object schema, normalized as the module doc says.
///
/// ```
/// // `()` takes no arguments.
/// let schema = tool_core::schema::input_schema_for::<()>();
/// assert_eq!(
///     schema.as_value(),
///     &serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false})
/// );
/// ```
#[must_use]
pub fn input_schema_for<T: JsonSchema>() -> Schema {
    input_schema(T::json_schema)
}

/// The input schema from a type's `JsonSchema::json_schema`. Taking the function rather than a
/// type parameter keeps schemars' generic root-schema code out of every tool's expansion.
pub(crate) fn input_schema(json_schema: fn(&mut SchemaGenerator) -> Schema) -> Schema {
    let mut generator = generator();
    let schema = json_schema(&mut generator);
    let mut schema = with_definitions(schema, &mut generator);
    normalize_input(&mut schema);
    schema
}

/// Attaches the definitions the generator collected (nested named types) as `$defs`.
pub(crate) fn with_definitions(mut schema: Schema, generator: &mut SchemaGenerator) -> Schema {
    let definitions = generator.take_definitions(true);
    if !definitions.is_empty() {
        schema
            .ensure_object()
            .insert("$defs".into(), Value::Object(definitions));
    }
    schema
}

/// The output schema of a structured output type, normalized like an input schema.
pub(crate) fn normalize_output(mut schema: Schema) -> Schema {
    if let Some(object) = schema.as_object_mut() {
        strip_root_metadata(object);
    }
    schema
}

/// Removes what schemars puts on a root schema that a tool definition does not carry: the
/// meta-schema and the Rust type's name as `title`.
fn strip_root_metadata(object: &mut Map<String, Value>) {
    object.remove("$schema");
    object.remove("title");
}

fn normalize_input(schema: &mut Schema) {
    let object = schema.ensure_object();
    strip_root_metadata(object);
    // `()` means "no arguments": the empty object, not `null`.
    if object.get("type").and_then(Value::as_str) == Some("null") {
        object.clear();
    }
    if !object.contains_key("type") {
        object.insert("type".into(), Value::from("object"));
    }
    if object.get("type").and_then(Value::as_str) == Some("object")
        && !object.contains_key("properties")
    {
        object.insert("properties".into(), Value::Object(Map::new()));
    }
    let no_properties = object
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty);
    if no_properties && !object.contains_key("additionalProperties") {
        object.insert("additionalProperties".into(), Value::Bool(false));
    }
    if object
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        object.remove("required");
    }
    drop_null_from_optional(object);
}

/// An optional argument takes `null` as "absent", but a schema saying `["integer", "null"]`
/// invites the model to send nulls; an optional property shows only its real type.
fn drop_null_from_optional(object: &mut Map<String, Value>) {
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
    let Some(Value::Object(properties)) = object.get_mut("properties") else {
        return;
    };
    for (name, property) in properties.iter_mut() {
        if required.contains(name) {
            continue;
        }
        let Value::Object(property) = property else {
            continue;
        };
        if let Some(Value::Array(kinds)) = property.get_mut("type") {
            kinds.retain(|kind| kind != "null");
            if let [only] = kinds.as_slice() {
                let only = only.clone();
                property.insert("type".into(), only);
            }
        }
        let is_null = |branch: &Value| branch.get("type").and_then(Value::as_str) == Some("null");
        if let Some(Value::Array(branches)) = property.get("anyOf")
            && branches.len() == 2
            && branches.iter().filter(|branch| is_null(branch)).count() == 1
        {
            let kept = branches.iter().find(|branch| !is_null(branch)).cloned();
            property.remove("anyOf");
            if let Some(Value::Object(kept)) = kept {
                for (key, value) in kept {
                    property.entry(key).or_insert(value);
                }
            }
        }
    }
}

/// One step of a path into a JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// Renders a path as `$`, `$.path`, `$.edits[2].old` (or `$["odd key"]`).
pub(crate) fn render_path(steps: &[Step]) -> String {
    let mut out = String::from("$");
    for step in steps {
        match step {
            Step::Key(key) if is_identifier(key) => {
                out.push('.');
                out.push_str(key);
            }
            Step::Key(key) => {
                out.push('[');
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(']');
            }
            Step::Index(index) => {
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
        }
    }
    out
}

fn is_identifier(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A view of a root schema that follows `$ref`s into its `$defs`.
pub(crate) struct SchemaView<'a> {
    root: &'a Value,
}

impl<'a> SchemaView<'a> {
    pub(crate) fn new(root: &'a Schema) -> Self {
        SchemaView {
            root: root.as_value(),
        }
    }

    fn resolve(&self, mut schema: &'a Value) -> &'a Value {
        for _ in 0..32 {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let Some(target) = reference
                .strip_prefix('#')
                .and_then(|pointer| self.root.pointer(pointer))
            else {
                break;
            };
            schema = target;
        }
        schema
    }

    /// The subschema at `steps` from the root, if the schema says what is there.
    pub(crate) fn at(&self, steps: &[Step]) -> Option<&'a Value> {
        let mut schema = self.resolve(self.root);
        for step in steps {
            schema = self.child(schema, step)?;
        }
        Some(schema)
    }

    fn child(&self, schema: &'a Value, step: &Step) -> Option<&'a Value> {
        let direct = match step {
            Step::Key(key) => schema
                .get("properties")
                .and_then(|properties| properties.get(key))
                .or_else(|| schema.get("additionalProperties").filter(|v| v.is_object())),
            Step::Index(index) => schema
                .get("prefixItems")
                .and_then(|items| items.get(*index))
                .or_else(|| schema.get("items").filter(|v| v.is_object())),
        };
        if let Some(found) = direct {
            return Some(self.resolve(found));
        }
        ["allOf", "anyOf", "oneOf"]
            .iter()
            .filter_map(|key| schema.get(*key).and_then(Value::as_array))
            .flatten()
            .find_map(|branch| self.child(self.resolve(branch), step))
    }

    /// The property names an object schema allows, in declaration order, and whether it rejects
    /// others.
    pub(crate) fn properties(&self, schema: &'a Value) -> (Vec<&'a str>, bool) {
        let schema = self.resolve(schema);
        let names = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| properties.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        (names, closed)
    }

    /// Whether `value` is of a JSON type `schema` allows (its `type`, or any branch's); a
    /// schema that names no type admits every value. Only the type: not bounds, formats or
    /// enums.
    pub(crate) fn admits_kind(&self, schema: &Value, value: &Value) -> bool {
        let schema = self.resolve(schema);
        let names = |name: &str| match value {
            Value::Null => name == "null",
            Value::Bool(_) => name == "boolean",
            Value::Number(number) => {
                name == "number" || (name == "integer" && (number.is_i64() || number.is_u64()))
            }
            Value::String(_) => name == "string",
            Value::Array(_) => name == "array",
            Value::Object(_) => name == "object",
        };
        let typed = match schema.get("type") {
            Some(Value::String(name)) => Some(names(name)),
            Some(Value::Array(types)) => Some(types.iter().filter_map(Value::as_str).any(names)),
            _ => None,
        };
        if let Some(admitted) = typed {
            return admitted;
        }
        let branches: Vec<&Value> = ["anyOf", "oneOf"]
            .iter()
            .filter_map(|key| schema.get(*key).and_then(Value::as_array))
            .flatten()
            .collect();
        branches.is_empty()
            || branches
                .iter()
                .any(|branch| self.admits_kind(branch, value))
    }

    /// The required property names of an object schema.
    pub(crate) fn required(&self, schema: &'a Value) -> Vec<&'a str> {
        self.resolve(schema)
            .get("required")
            .and_then(Value::as_array)
            .map(|required| required.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    /// What a value must be, in words: `an integer`, `a string (uri)`, `one of "a", "b"`.
    pub(crate) fn describe(&self, schema: &Value) -> String {
        self.describe_depth(schema, 0)
    }

    fn describe_depth(&self, schema: &Value, depth: usize) -> String {
        let schema = self.resolve(schema);
        if depth > 4 {
            return "a JSON value".into();
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            return one_of(values.iter());
        }
        if let Some(value) = schema.get("const") {
            return format!("exactly {value}");
        }
        let branches = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array);
        if let Some(branches) = branches {
            if let Some(consts) = branches
                .iter()
                .map(|branch| self.resolve(branch).get("const"))
                .collect::<Option<Vec<_>>>()
            {
                return one_of(consts.into_iter());
            }
            let mut described: Vec<String> = branches
                .iter()
                .map(|branch| self.describe_depth(branch, depth + 1))
                .collect();
            described.dedup();
            return described.join(" or ");
        }
        let format = schema.get("format").and_then(Value::as_str);
        match schema.get("type") {
            Some(Value::String(kind)) => describe_type(kind, format, schema, self, depth),
            Some(Value::Array(kinds)) => kinds
                .iter()
                .filter_map(Value::as_str)
                .map(|kind| describe_type(kind, format, schema, self, depth))
                .collect::<Vec<_>>()
                .join(" or "),
            _ => "a JSON value".into(),
        }
    }

    /// A call skeleton from an object schema, such as `{"path": <string>, "limit": <integer>}`:
    /// required properties, then the others marked optional.
    pub(crate) fn example(&self) -> String {
        let root = self.resolve(self.root);
        let (names, _) = self.properties(root);
        let required = self.required(root);
        let mut parts: Vec<String> = Vec::new();
        for name in names.iter().filter(|name| required.contains(name)) {
            parts.push(self.example_property(root, name, false));
        }
        for name in names.iter().filter(|name| !required.contains(name)) {
            parts.push(self.example_property(root, name, true));
        }
        format!("{{{}}}", parts.join(", "))
    }

    fn example_property(&self, root: &Value, name: &str, optional: bool) -> String {
        let kind = root
            .get("properties")
            .and_then(|properties| properties.get(name))
            .map(|schema| short_type(self.resolve(schema)))
            .unwrap_or("value");
        let key = Value::from(name);
        if optional {
            format!("{key}: <{kind}, optional>")
        } else {
            format!("{key}: <{kind}>")
        }
    }
}

fn describe_type(
    kind: &str,
    format: Option<&str>,
    schema: &Value,
    view: &SchemaView<'_>,
    depth: usize,
) -> String {
    let mut text = match kind {
        "integer" => "an integer".to_owned(),
        "number" => "a number".to_owned(),
        "string" => "a string".to_owned(),
        "boolean" => "a boolean (true or false)".to_owned(),
        "null" => "null".to_owned(),
        "object" => "an object".to_owned(),
        "array" => match schema.get("items").filter(|items| items.is_object()) {
            Some(items) => format!(
                "an array of {}",
                plural(&view.describe_depth(items, depth + 1))
            ),
            None => "an array".to_owned(),
        },
        other => format!("a value of type {other}"),
    };
    if let Some(format) = format.filter(|_| kind == "string") {
        text.push_str(" (");
        text.push_str(format);
        text.push(')');
    }
    let (min, max) = bounds(schema, format);
    match (min, max) {
        (Some(min), Some(max)) if kind == "integer" || kind == "number" => {
            text.push_str(&format!(" from {min} to {max}"));
        }
        (Some(min), None) if kind == "integer" || kind == "number" => {
            text.push_str(&format!(" of at least {min}"));
        }
        (None, Some(max)) if kind == "integer" || kind == "number" => {
            text.push_str(&format!(" of at most {max}"));
        }
        _ => {}
    }
    text
}

/// The bounds of a number: `minimum`/`maximum` where given, else those of its integer
/// `format` (schemars writes `minimum: 0` for `u32` but leaves the top to the format).
fn bounds(schema: &Value, format: Option<&str>) -> (Option<String>, Option<String>) {
    // 64-bit limits are too large to help a model; their lower bound still does.
    let (format_min, format_max) = match format {
        Some("int8") => (Some("-128"), Some("127")),
        Some("int16") => (Some("-32768"), Some("32767")),
        Some("int32") => (Some("-2147483648"), Some("2147483647")),
        Some("uint8") => (Some("0"), Some("255")),
        Some("uint16") => (Some("0"), Some("65535")),
        Some("uint32") => (Some("0"), Some("4294967295")),
        Some("uint64" | "uint") => (Some("0"), None),
        _ => (None, None),
    };
    let given = |key: &str| schema.get(key).map(ToString::to_string);
    (
        given("minimum").or_else(|| format_min.map(str::to_owned)),
        given("maximum").or_else(|| format_max.map(str::to_owned)),
    )
}

fn plural(description: &str) -> String {
    let bare = description
        .strip_prefix("an ")
        .or_else(|| description.strip_prefix("a "));
    match bare {
        Some(bare) if !bare.contains(' ') => format!("{bare}s"),
        _ => description.to_owned(),
    }
}

fn short_type(schema: &Value) -> &str {
    match schema.get("type") {
        Some(Value::String(kind)) => kind,
        _ if schema.get("enum").is_some() => "enum",
        _ => "value",
    }
}

fn one_of<'v>(values: impl Iterator<Item = &'v Value>) -> String {
    let values: Vec<String> = values.map(ToString::to_string).collect();
    match values.as_slice() {
        [only] => format!("exactly {only}"),
        _ => format!("one of {}", values.join(", ")),
    }
}

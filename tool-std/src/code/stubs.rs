//! The functions the code can call, written out as Python stubs (signatures with type hints
//! and docstrings) generated from the tools' schemas and descriptions: what a model reads to
//! know what it may call, in an agent's prompt or in `execute`'s answer to a `NameError`.

use std::fmt::Write as _;

use serde_json::Value;
use tool_core::Toolset;

use super::functions::{Function, FunctionTable};

/// A signature longer than this is written one parameter a line.
const MAX_LINE: usize = 100;

/// The Python stubs of the tools code run by `execute` can call: every tool of `toolset` but
/// those in [`NOT_CALLABLE_FROM_CODE`](super::NOT_CALLABLE_FROM_CODE), each a `def` with its
/// parameters (type hints from the schema, required ones first, defaults shown) and a
/// docstring holding the tool's description and each parameter's. An agent puts this in its
/// prompt next to `execute`'s description.
///
/// ```
/// use tool_core::{tool, Toolset};
///
/// /// Add two integers.
/// ///
/// /// # Arguments
/// /// * `a` - The first addend.
/// /// * `b` - The second addend.
/// #[tool(read_only, name = "doc_stubs_add")]
/// fn add(a: i64, b: Option<i64>) -> i64 { a + b.unwrap_or(0) }
///
/// let stubs = tool_std::code::python_stubs(&Toolset::named(["doc_stubs_add"]).unwrap());
/// assert!(stubs.contains("def doc_stubs_add(a: int, b: int | None = None) -> str:"));
/// assert!(stubs.contains("        a: The first addend."));
/// ```
#[must_use]
pub fn python_stubs(toolset: &Toolset) -> String {
    stubs(&FunctionTable::new(toolset))
}

/// The stubs of every function of `table`.
pub(crate) fn stubs(table: &FunctionTable) -> String {
    let mut text = String::from(
        "# Each function runs the tool of its name and returns its result: a dict for tools\n\
         # with structured results, else the text. A failed call raises an exception (a\n\
         # denied one PermissionError) that the code can catch.\n",
    );
    for function in table.iter() {
        text.push('\n');
        stub(&mut text, function);
    }
    text
}

fn stub(text: &mut String, function: &Function) {
    let parameters: Vec<String> = function
        .params
        .iter()
        .map(|param| {
            let mut hint = python_type(&param.schema, &function.schema);
            let default = match param.schema.get("default") {
                Some(value) if !param.required => Some(python_literal(value)),
                _ if param.required => None,
                _ => {
                    if !hint.ends_with("None") {
                        hint.push_str(" | None");
                    }
                    Some("None".to_owned())
                }
            };
            match default {
                Some(default) => format!("{}: {hint} = {default}", param.python_name),
                None => format!("{}: {hint}", param.python_name),
            }
        })
        .collect();
    let returns = if function.structured { "dict" } else { "str" };
    let one_line = format!(
        "def {}({}) -> {returns}:",
        function.python_name,
        parameters.join(", ")
    );
    if one_line.len() <= MAX_LINE {
        let _ = writeln!(text, "{one_line}");
    } else {
        // One parameter a line, as black formats a long signature.
        let _ = writeln!(text, "def {}(", function.python_name);
        for parameter in &parameters {
            let _ = writeln!(text, "    {parameter},");
        }
        let _ = writeln!(text, ") -> {returns}:");
    }
    let mut doc = function.description.clone();
    let described: Vec<(&str, &str)> = function
        .params
        .iter()
        .filter_map(|param| {
            let description = param.schema.get("description").and_then(Value::as_str)?;
            Some((param.python_name.as_str(), description.trim()))
        })
        .collect();
    if !described.is_empty() {
        doc.push_str("\n\nArgs:");
        for (name, description) in described {
            let _ = write!(
                doc,
                "\n    {name}: {}",
                description.replace('\n', "\n        ")
            );
        }
    }
    let doc = doc.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    let _ = writeln!(text, "    \"\"\"{}\n    \"\"\"", indent(&doc));
}

/// Every line after the first indented into the function's body.
fn indent(text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(index, line)| match (index, line.is_empty()) {
            (0, _) | (_, true) => line.to_owned(),
            _ => format!("    {line}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A JSON Schema as a Python type hint; `Any` for what has no simple one.
fn python_type(schema: &Value, root: &Value) -> String {
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        return resolve(target, root).map_or_else(|| "Any".to_owned(), |s| python_type(s, root));
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return literal(values.iter());
    }
    if let Some(value) = schema.get("const") {
        return literal(std::iter::once(value));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(choices) = schema.get(key).and_then(Value::as_array) {
            // An enum written as one `const` per variant (each with its doc) is one Literal.
            let consts: Option<Vec<&Value>> = choices.iter().map(|c| c.get("const")).collect();
            if let Some(consts) = consts {
                return literal(consts.into_iter());
            }
            return union(choices.iter().map(|choice| python_type(choice, root)));
        }
    }
    match schema.get("type") {
        Some(Value::String(kind)) => simple_type(kind, schema, root),
        Some(Value::Array(kinds)) => union(
            kinds
                .iter()
                .filter_map(Value::as_str)
                .map(|kind| simple_type(kind, schema, root)),
        ),
        _ => "Any".to_owned(),
    }
}

fn simple_type(kind: &str, schema: &Value, root: &Value) -> String {
    match kind {
        "string" => "str".to_owned(),
        "integer" => "int".to_owned(),
        "number" => "float".to_owned(),
        "boolean" => "bool".to_owned(),
        "null" => "None".to_owned(),
        "array" => match schema.get("items") {
            Some(items) if items.is_object() => format!("list[{}]", python_type(items, root)),
            _ => "list".to_owned(),
        },
        "object" => match schema.get("additionalProperties") {
            Some(values) if values.is_object() => {
                format!("dict[str, {}]", python_type(values, root))
            }
            _ => "dict".to_owned(),
        },
        _ => "Any".to_owned(),
    }
}

/// Alternatives joined with `|`, each once, `None` last.
fn union(parts: impl Iterator<Item = String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for part in parts {
        for piece in part.split(" | ") {
            if !seen.iter().any(|known| known == piece) {
                seen.push(piece.to_owned());
            }
        }
    }
    seen.sort_by_key(|part| part == "None");
    seen.join(" | ")
}

fn literal<'a>(values: impl Iterator<Item = &'a Value>) -> String {
    let values: Vec<String> = values.map(python_literal).collect();
    format!("Literal[{}]", values.join(", "))
}

/// A JSON value written as the Python literal for it.
fn python_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(number) => number.to_string(),
        // A JSON string's escapes are Python's, for the characters a default holds.
        Value::String(_) => value.to_string(),
        Value::Array(items) => {
            format!(
                "[{}]",
                items
                    .iter()
                    .map(python_literal)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        Value::Object(fields) => format!(
            "{{{}}}",
            fields
                .iter()
                .map(|(key, value)| format!(
                    "{}: {}",
                    Value::from(key.as_str()),
                    python_literal(value)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The schema a local `$ref` (`#/$defs/Name`, `#/definitions/Name`) points to.
fn resolve<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

//! The schema rewriting every provider file builds on: inlining `$ref`s (keeping only the
//! recursive definitions), merging `allOf`, turning a union at the root into one object,
//! turning tuples into arrays with `items`, moving a keyword the provider lacks into the
//! description, and recording what was lost or refused as [`ExportProblem`]s.
//!
//! Pointers in problems are JSON pointers into the exported schema (after inlining), so a
//! reader finds the place in the golden file of that dialect.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{Dialect, ExportProblem};

/// The walk of one tool's schema for one dialect: where problems go.
pub(crate) struct Rewriter<'a> {
    pub(crate) tool: &'a str,
    pub(crate) dialect: Dialect,
    /// What the export lost but could still express otherwise.
    pub(crate) lost: Vec<ExportProblem>,
    /// Why the tool cannot be exported in this dialect at all.
    pub(crate) refused: Vec<ExportProblem>,
}

impl<'a> Rewriter<'a> {
    pub(crate) fn new(tool: &'a str, dialect: Dialect) -> Self {
        Rewriter {
            tool,
            dialect,
            lost: Vec::new(),
            refused: Vec::new(),
        }
    }

    pub(crate) fn lose(&mut self, pointer: &str, what: impl Into<String>, action: &str) {
        self.lost.push(ExportProblem::Lost {
            tool: self.tool.to_owned(),
            dialect: self.dialect,
            pointer: pointer.to_owned(),
            what: what.into(),
            action: action.to_owned(),
        });
    }

    pub(crate) fn refuse(&mut self, pointer: &str, reason: impl Into<String>, fix: &str) {
        self.refused.push(ExportProblem::Refused {
            tool: self.tool.to_owned(),
            dialect: self.dialect,
            pointer: pointer.to_owned(),
            reason: reason.into(),
            fix: fix.to_owned(),
        });
    }

    /// Moves each of `keys` present in `object` into its description, as words.
    pub(crate) fn move_to_description(
        &mut self,
        object: &mut Map<String, Value>,
        keys: &[&str],
        pointer: &str,
    ) {
        let mut phrases = Vec::new();
        for key in keys {
            if let Some(value) = object.remove(*key) {
                phrases.push(phrase(key, &value));
                self.lose(
                    pointer,
                    format!("`{key}: {value}`"),
                    "moved into the description",
                );
            }
        }
        append_description(object, &phrases);
    }

    /// Moves every keyword of `object` that is not in `allowed` into its description: what a
    /// provider's subset of JSON Schema cannot say, said in words.
    pub(crate) fn keep_only_keywords(
        &mut self,
        object: &mut Map<String, Value>,
        allowed: &[&str],
        pointer: &str,
    ) {
        let unsupported: Vec<String> = object
            .keys()
            .filter(|key| !allowed.contains(&key.as_str()))
            .cloned()
            .collect();
        let unsupported: Vec<&str> = unsupported.iter().map(String::as_str).collect();
        self.move_to_description(object, &unsupported, pointer);
    }
}

/// Appends `phrases` to the description of `object`, in parentheses.
pub(crate) fn append_description(object: &mut Map<String, Value>, phrases: &[String]) {
    if phrases.is_empty() {
        return;
    }
    let added = format!("({})", phrases.join("; "));
    let text = match object.get("description").and_then(Value::as_str) {
        Some(existing) if !existing.is_empty() => format!("{existing} {added}"),
        _ => added,
    };
    object.insert("description".into(), Value::String(text));
}

/// A constraint in words, for a model reading the description.
fn phrase(key: &str, value: &Value) -> String {
    let text = match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match key {
        "minimum" => format!("at least {text}"),
        "maximum" => format!("at most {text}"),
        "exclusiveMinimum" => format!("greater than {text}"),
        "exclusiveMaximum" => format!("less than {text}"),
        "multipleOf" => format!("a multiple of {text}"),
        "minLength" => format!("at least {}", counted(&text, "character")),
        "maxLength" => format!("at most {}", counted(&text, "character")),
        "minItems" => format!("at least {}", counted(&text, "item")),
        "maxItems" => format!("at most {}", counted(&text, "item")),
        "minProperties" => format!("at least {}", counted(&text, "property")),
        "maxProperties" => format!("at most {}", counted(&text, "property")),
        "uniqueItems" if value == &Value::Bool(true) => "items are unique".to_owned(),
        "pattern" => format!("matches the regular expression `{text}`"),
        "format" => format!("format: {text}"),
        "default" => format!("default: {value}"),
        "const" => format!("exactly {value}"),
        "enum" => match value {
            Value::Array(values) => format!(
                "one of: {}",
                values
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            other => format!("one of: {other}"),
        },
        other => format!("{other}: {value}"),
    }
}

/// `1 item`, `2 items`.
fn counted(number: &str, noun: &str) -> String {
    match (number, noun) {
        ("1", _) => format!("1 {noun}"),
        (_, "property") => format!("{number} properties"),
        _ => format!("{number} {noun}s"),
    }
}

/// Appends a key to a JSON pointer, escaped (`~` as `~0`, `/` as `~1`).
pub(crate) fn child(pointer: &str, key: &str) -> String {
    let escaped = key.replace('~', "~0").replace('/', "~1");
    format!("{pointer}/{escaped}")
}

/// The schemars number width formats: the width is checked when the tool parses its
/// arguments, and `minimum: 0` already says "unsigned", so a dialect without them drops them.
pub(crate) fn is_number_width(format: &str) -> bool {
    matches!(
        format,
        "int8"
            | "int16"
            | "int32"
            | "int64"
            | "uint8"
            | "uint16"
            | "uint32"
            | "uint64"
            | "uint"
            | "int"
            | "float"
            | "double"
    )
}

/// `oneOf` as `anyOf`, for providers without `oneOf`. Branches that are each a different
/// constant (a unit enum) cannot both match, so nothing is lost then; otherwise the loss is
/// reported.
pub(crate) fn one_of_to_any_of(
    rewriter: &mut Rewriter<'_>,
    object: &mut Map<String, Value>,
    pointer: &str,
) {
    let Some(Value::Array(branches)) = object.remove("oneOf") else {
        return;
    };
    let constants: Vec<&Value> = branches
        .iter()
        .filter_map(|branch| branch.get("const"))
        .collect();
    let disjoint = constants.len() == branches.len()
        && constants
            .iter()
            .enumerate()
            .all(|(position, value)| !constants[..position].contains(value));
    if !disjoint {
        rewriter.lose(
            pointer,
            "`oneOf`",
            "became `anyOf` (the tool still checks that exactly one matches)",
        );
    }
    object.insert("anyOf".into(), Value::Array(branches));
}

/// "`T` or `null`" written as a type list (schemars' `Option<T>` in a nested struct) becomes
/// `anyOf: [T, null]`, the form strict grammars compile in every client we know of; the
/// meaning is the same. The type's own keywords go into its branch; the description stays
/// outside.
pub(crate) fn nullable_as_any_of(object: &mut Map<String, Value>) {
    let Some(Value::Array(kinds)) = object.get("type") else {
        return;
    };
    let non_null: Vec<&Value> = kinds.iter().filter(|kind| *kind != "null").collect();
    if non_null.len() != 1 || non_null.len() == kinds.len() {
        return;
    }
    let kind = non_null[0].clone();
    object.remove("type");
    let mut branch = Map::new();
    branch.insert("type".into(), kind);
    let keys: Vec<String> = object
        .keys()
        .filter(|key| !matches!(key.as_str(), "description" | "title" | "default"))
        .cloned()
        .collect();
    for key in keys {
        if let Some(value) = object.remove(&key) {
            branch.insert(key, value);
        }
    }
    object.insert(
        "anyOf".into(),
        serde_json::json!([Value::Object(branch), {"type": "null"}]),
    );
}

/// A `$ref` with siblings (left only for recursive types: the others are inlined) becomes
/// `anyOf: [{"$ref": ...}]` beside them, for providers that take no keyword beside `$ref`:
/// the description stays.
pub(crate) fn wrap_reference_with_siblings(object: &mut Map<String, Value>) {
    if object.len() > 1
        && let Some(reference) = object.remove("$ref")
    {
        object.insert("anyOf".into(), serde_json::json!([{ "$ref": reference }]));
    }
}

/// Removes a `format` the dialect does not support: number widths are dropped, other formats
/// moved into the description.
pub(crate) fn drop_unsupported_format(
    rewriter: &mut Rewriter<'_>,
    object: &mut Map<String, Value>,
    supported: &[&str],
    pointer: &str,
) {
    let Some(format) = object.get("format").and_then(Value::as_str) else {
        return;
    };
    if supported.contains(&format) {
        return;
    }
    if is_number_width(format) {
        let format = format.to_owned();
        object.remove("format");
        rewriter.lose(
            pointer,
            format!("`format: {format}`"),
            "dropped: the tool still checks the number's range when it parses the call",
        );
    } else {
        rewriter.move_to_description(object, &["format"], pointer);
    }
}

/// The names of the `$defs` of `root` that take part in a cycle of references.
fn recursive_definitions(definitions: &Map<String, Value>) -> BTreeSet<String> {
    let mut recursive = BTreeSet::new();
    for name in definitions.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<String> = references(&definitions[name]);
        while let Some(next) = stack.pop() {
            if next == *name {
                recursive.insert(name.clone());
                break;
            }
            if seen.insert(next.clone())
                && let Some(body) = definitions.get(&next)
            {
                stack.extend(references(body));
            }
        }
    }
    recursive
}

/// The definition names a schema refers to (`#/$defs/Name`); `#` (the root) as the empty name.
fn references(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    collect_references(schema, &mut found);
    found
}

fn collect_references(schema: &Value, found: &mut Vec<String>) {
    match schema {
        Value::Object(object) => {
            if let Some(reference) = object.get("$ref").and_then(Value::as_str)
                && let Some(name) = definition_name(reference)
            {
                found.push(name.to_owned());
            }
            for (key, value) in object {
                if !is_data_keyword(key) {
                    collect_references(value, found);
                }
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| collect_references(item, found)),
        _ => {}
    }
}

/// Keywords whose values are data, not schemas: never rewritten as schemas.
fn is_data_keyword(key: &str) -> bool {
    matches!(key, "default" | "const" | "enum" | "examples" | "example")
}

fn definition_name(reference: &str) -> Option<&str> {
    if reference == "#" {
        return Some("");
    }
    reference.strip_prefix("#/$defs/")
}

/// The schema with every `$ref` to a non-recursive definition replaced by the definition
/// (the `$ref`'s siblings, such as a description, kept over the definition's). Recursive
/// definitions stay in `$defs`, referred to as before. Returns whether any recursion is left.
pub(crate) fn inline_references(schema: &Value) -> (Value, bool) {
    let mut root = schema.clone();
    let definitions = match root.as_object_mut().and_then(|root| root.remove("$defs")) {
        Some(Value::Object(definitions)) => definitions,
        _ => Map::new(),
    };
    let recursive = recursive_definitions(&definitions);
    let inliner = Inliner {
        definitions: &definitions,
        recursive: &recursive,
    };
    let mut used = BTreeSet::new();
    let mut inlined = inliner.inline(&root, &mut used, 0);
    let root_recursive = used.contains("");
    // A recursive definition can refer to other recursive ones: keep every one reached.
    let mut kept = Map::new();
    let mut pending: Vec<String> = used
        .iter()
        .filter(|name| !name.is_empty())
        .cloned()
        .collect();
    while let Some(name) = pending.pop() {
        if kept.contains_key(&name) {
            continue;
        }
        let mut reached = BTreeSet::new();
        let body = inliner.inline(&definitions[&name], &mut reached, 0);
        kept.insert(name, body);
        pending.extend(reached.into_iter().filter(|name| !name.is_empty()));
    }
    let any_recursion = root_recursive || !kept.is_empty();
    if !kept.is_empty()
        && let Some(object) = inlined.as_object_mut()
    {
        // Sorted by name, as schemars writes them.
        let mut names: Vec<String> = kept.keys().cloned().collect();
        names.sort();
        let sorted: Map<String, Value> = names
            .into_iter()
            .filter_map(|name| kept.remove(&name).map(|body| (name, body)))
            .collect();
        object.insert("$defs".into(), Value::Object(sorted));
    }
    (inlined, any_recursion)
}

struct Inliner<'a> {
    definitions: &'a Map<String, Value>,
    recursive: &'a BTreeSet<String>,
}

impl Inliner<'_> {
    fn inline(&self, schema: &Value, used: &mut BTreeSet<String>, depth: usize) -> Value {
        // Non-recursive definitions nest at most as deep as the types do; this only stops a
        // malformed hand-written schema.
        if depth > 64 {
            return schema.clone();
        }
        match schema {
            Value::Object(object) => {
                let reference = object
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(definition_name);
                if let Some(name) = reference
                    && !name.is_empty()
                    && !self.recursive.contains(name)
                    && let Some(target) = self.definitions.get(name)
                {
                    let mut merged = match self.inline(target, used, depth + 1) {
                        Value::Object(target) => target,
                        other if object.len() == 1 => return other,
                        other => Map::from_iter([("allOf".to_owned(), Value::Array(vec![other]))]),
                    };
                    for (key, value) in object {
                        if key != "$ref" {
                            merged.insert(key.clone(), self.inline_value(key, value, used, depth));
                        }
                    }
                    return Value::Object(merged);
                }
                if let Some(name) = reference {
                    used.insert(name.to_owned());
                }
                Value::Object(
                    object
                        .iter()
                        .map(|(key, value)| {
                            (key.clone(), self.inline_value(key, value, used, depth))
                        })
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|item| self.inline(item, used, depth + 1))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn inline_value(
        &self,
        key: &str,
        value: &Value,
        used: &mut BTreeSet<String>,
        depth: usize,
    ) -> Value {
        if is_data_keyword(key) {
            value.clone()
        } else {
            self.inline(value, used, depth + 1)
        }
    }
}

/// `true` if the schema is an object schema (by `type` or by having `properties`).
pub(crate) fn is_object_schema(schema: &Map<String, Value>) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        || schema.contains_key("properties")
}

/// Merges `allOf` branches that are object schemas into `object`. Returns `false` (leaving
/// `allOf` in place) when a branch is not an object schema.
pub(crate) fn merge_all_of(object: &mut Map<String, Value>) -> bool {
    let Some(Value::Array(branches)) = object.get("allOf") else {
        return true;
    };
    if !branches
        .iter()
        .all(|branch| branch.as_object().is_some_and(is_object_schema))
    {
        return false;
    }
    let Some(Value::Array(branches)) = object.remove("allOf") else {
        return true;
    };
    for branch in branches {
        if let Value::Object(branch) = branch {
            merge_object_into(object, branch, true);
        }
    }
    true
}

/// Adds the properties of `branch` to `target`; `required` is kept as the union
/// (`all_required`) or left to the caller.
fn merge_object_into(
    target: &mut Map<String, Value>,
    branch: Map<String, Value>,
    all_required: bool,
) {
    target.insert("type".into(), Value::from("object"));
    let properties = target
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let (Value::Object(properties), Some(Value::Object(added))) =
        (properties, branch.get("properties"))
    {
        for (name, schema) in added {
            match properties.get_mut(name) {
                Some(existing) if existing != schema => {
                    // Two branches say different things about one property: either holds.
                    let earlier = existing.take();
                    *existing = serde_json::json!({"anyOf": [earlier, schema]});
                }
                Some(_) => {}
                None => {
                    properties.insert(name.clone(), schema.clone());
                }
            }
        }
    }
    if all_required && let Some(Value::Array(added)) = branch.get("required") {
        let required = target
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(required) = required {
            for name in added {
                if !required.contains(name) {
                    required.push(name.clone());
                }
            }
        }
    }
    for (key, value) in branch {
        if !matches!(
            key.as_str(),
            "properties" | "required" | "type" | "additionalProperties"
        ) {
            target.entry(key).or_insert(value);
        }
    }
}

/// Providers want an object at the root, not a union (`anyOf`/`oneOf`), which is what an
/// `Args<T>` over an enum with data gives. The branches become one object whose properties
/// are the union of theirs, required only where every branch requires them; the tool still
/// checks which combination it got when it parses the call.
pub(crate) fn flatten_root_union(rewriter: &mut Rewriter<'_>, root: &mut Map<String, Value>) {
    let Some(keyword) = ["anyOf", "oneOf"]
        .into_iter()
        .find(|keyword| root.contains_key(*keyword))
    else {
        return;
    };
    let Some(Value::Array(branches)) = root.get(keyword) else {
        return;
    };
    if !branches
        .iter()
        .all(|branch| branch.as_object().is_some_and(is_object_schema))
    {
        rewriter.refuse(
            "",
            format!(
                "the arguments are a `{keyword}` whose alternatives are not all objects, and \
                 a tool's arguments must be one object"
            ),
            "take the arguments as a struct (wrap the enum in a field)",
        );
        return;
    }
    let Some(Value::Array(branches)) = root.remove(keyword) else {
        return;
    };
    let mut required: Option<Vec<Value>> = None;
    let mut all_closed = true;
    let mut described = Vec::new();
    for (position, branch) in branches.into_iter().enumerate() {
        let Value::Object(mut branch) = branch else {
            continue;
        };
        let names: Vec<Value> = branch
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        described.push(format!(
            "{}: {}",
            position + 1,
            branch
                .remove("description")
                .and_then(|text| text.as_str().map(str::to_owned))
                .unwrap_or_else(|| {
                    let keys: Vec<String> = names.iter().map(ToString::to_string).collect();
                    format!("with {}", keys.join(", "))
                })
        ));
        required = Some(match required {
            None => names,
            Some(so_far) => so_far
                .into_iter()
                .filter(|name| names.contains(name))
                .collect(),
        });
        all_closed &= branch.get("additionalProperties") == Some(&Value::Bool(false));
        merge_object_into(root, branch, false);
    }
    match required {
        Some(required) if !required.is_empty() => {
            root.insert("required".into(), Value::Array(required));
        }
        _ => {
            root.remove("required");
        }
    }
    if all_closed {
        root.insert("additionalProperties".into(), Value::Bool(false));
    }
    append_description(
        root,
        &[format!(
            "exactly one of these shapes: {}",
            described.join("; ")
        )],
    );
    rewriter.lose(
        "",
        format!("the `{keyword}` at the root"),
        "became one object holding every alternative's properties, optional (the shapes are \
         listed in the description; the tool checks the combination it gets)",
    );
}

/// A tuple (`prefixItems`) becomes an array whose `items` is any of the tuple's item schemas,
/// its order written into the description. Providers that read only `items` then still see
/// what the elements are.
pub(crate) fn tuple_to_items(
    rewriter: &mut Rewriter<'_>,
    object: &mut Map<String, Value>,
    pointer: &str,
) {
    let Some(Value::Array(prefix)) = object.remove("prefixItems") else {
        return;
    };
    let mut distinct: Vec<Value> = Vec::new();
    for item in &prefix {
        if !distinct.contains(item) {
            distinct.push(item.clone());
        }
    }
    let order: Vec<String> = prefix.iter().map(short_kind).collect();
    let items = match distinct.len() {
        1 => distinct.remove(0),
        _ => serde_json::json!({ "anyOf": distinct }),
    };
    object.insert("items".into(), items);
    append_description(
        object,
        &[format!(
            "exactly {} items: {}",
            prefix.len(),
            order.join(", ")
        )],
    );
    rewriter.lose(
        pointer,
        "`prefixItems` (a tuple)",
        "became `items` with the order in the description",
    );
}

fn short_kind(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(other) => other.to_string(),
        None => "value".to_owned(),
    }
}

/// `true` if the schema accepts `null` as it stands.
pub(crate) fn accepts_null(schema: &Value) -> bool {
    match schema {
        Value::Bool(accepts) => *accepts,
        Value::Object(object) => {
            if object.is_empty() {
                return true;
            }
            let by_type = match object.get("type") {
                Some(Value::String(kind)) => kind == "null",
                Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "null"),
                _ => false,
            };
            let by_values = object
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|values| values.contains(&Value::Null))
                || object.get("const") == Some(&Value::Null);
            let by_branch = ["anyOf", "oneOf"].iter().any(|keyword| {
                object
                    .get(*keyword)
                    .and_then(Value::as_array)
                    .is_some_and(|branches| branches.iter().any(accepts_null))
            });
            by_type || by_values || by_branch
        }
        _ => false,
    }
}

/// `true` if the schema says nothing about its value (`true`, `{}`, or only annotations).
pub(crate) fn is_unconstrained(schema: &Value) -> bool {
    match schema {
        Value::Bool(accepts) => *accepts,
        Value::Object(object) => object.keys().all(|key| {
            matches!(
                key.as_str(),
                "description" | "title" | "default" | "examples"
            )
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_reference_is_inlined_with_its_description_kept() {
        let schema = json!({
            "type": "object",
            "properties": {"range": {"$ref": "#/$defs/Range", "description": "The lines."}},
            "$defs": {"Range": {"type": "object", "properties": {"start": {"type": "integer"}}}}
        });
        let (inlined, recursion) = inline_references(&schema);
        assert!(!recursion);
        assert_eq!(
            inlined,
            json!({
                "type": "object",
                "properties": {"range": {
                    "type": "object",
                    "properties": {"start": {"type": "integer"}},
                    "description": "The lines."
                }}
            })
        );
    }

    #[test]
    fn a_recursive_definition_stays_referenced() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "$defs": {
                "Node": {"type": "object", "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    "label": {"$ref": "#/$defs/Label"}
                }},
                "Label": {"type": "string"}
            }
        });
        let (inlined, recursion) = inline_references(&schema);
        assert!(recursion);
        assert_eq!(
            inlined["properties"]["tree"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            inlined["$defs"]["Node"]["properties"]["label"],
            json!({"type": "string"})
        );
        assert!(inlined["$defs"].get("Label").is_none());
    }

    #[test]
    fn a_moved_keyword_reads_as_words_in_the_description() {
        let mut rewriter = Rewriter::new("t", Dialect::Mcp);
        let mut object = json!({"type": "integer", "description": "Lines.", "minimum": 1})
            .as_object()
            .cloned()
            .unwrap();
        rewriter.move_to_description(&mut object, &["minimum", "maximum"], "/properties/n");
        assert_eq!(object["description"], "Lines. (at least 1)");
        assert!(object.get("minimum").is_none());
        assert_eq!(rewriter.lost.len(), 1);
    }

    #[test]
    fn a_union_at_the_root_becomes_one_object() {
        let mut rewriter = Rewriter::new("t", Dialect::Mcp);
        let mut root = json!({"oneOf": [
            {"type": "object", "properties": {"add": {"type": "integer"}}, "required": ["add"], "additionalProperties": false},
            {"type": "object", "properties": {"remove": {"type": "integer"}}, "required": ["remove"], "additionalProperties": false}
        ]})
        .as_object()
        .cloned()
        .unwrap();
        flatten_root_union(&mut rewriter, &mut root);
        assert_eq!(root["type"], "object");
        assert_eq!(
            root["properties"],
            json!({"add": {"type": "integer"}, "remove": {"type": "integer"}})
        );
        assert!(root.get("required").is_none());
        assert_eq!(root["additionalProperties"], false);
        assert!(rewriter.refused.is_empty());
    }
}

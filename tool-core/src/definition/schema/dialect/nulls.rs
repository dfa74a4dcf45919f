//! Taking out the `null`s OpenAI's strict mode invites: where our schema has a property
//! optional and not nullable, strict mode exported it as "`T` or `null`", and a `null` there
//! means "absent". The arguments are walked beside the tool's own input schema (following its
//! `$ref`s, so recursive types are covered at any depth), and such a `null` is removed. A
//! `null` our schema allows, or one for a required property, is left for the tool to judge.

use std::borrow::Cow;

use serde_json::Value;

use super::rewrite::accepts_null;

/// How deep the walk follows the arguments: deeper than any schema a model fills in.
const MAX_DEPTH: usize = 128;

/// `arguments` without the `null`s strict mode invited, or as they came when there are none
/// (or when they are not JSON: the tool reports that itself).
pub(super) fn strip_invited_nulls<'a>(schema: &Value, arguments: &'a str) -> Cow<'a, str> {
    // Most calls carry no `null` at all: no parsing then.
    if !arguments.contains("null") {
        return Cow::Borrowed(arguments);
    }
    let Ok(mut value) = serde_json::from_str::<Value>(arguments) else {
        return Cow::Borrowed(arguments);
    };
    let walk = Walk { root: schema };
    if walk.strip(&mut value, schema, 0) {
        Cow::Owned(value.to_string())
    } else {
        Cow::Borrowed(arguments)
    }
}

struct Walk<'s> {
    root: &'s Value,
}

impl<'s> Walk<'s> {
    fn resolve(&self, mut schema: &'s Value) -> &'s Value {
        for _ in 0..32 {
            let Some(pointer) = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| reference.strip_prefix('#'))
            else {
                break;
            };
            match self.root.pointer(pointer) {
                Some(target) => schema = target,
                None => break,
            }
        }
        schema
    }

    /// The schema itself and the branches of its combinators, resolved.
    fn alternatives(&self, schema: &'s Value, out: &mut Vec<&'s Value>, depth: usize) {
        let schema = self.resolve(schema);
        out.push(schema);
        if depth > 8 {
            return;
        }
        for keyword in ["anyOf", "oneOf", "allOf"] {
            if let Some(branches) = schema.get(keyword).and_then(Value::as_array) {
                for branch in branches {
                    self.alternatives(branch, out, depth + 1);
                }
            }
        }
    }

    /// Removes invited nulls below `value`; `true` if anything changed.
    fn strip(&self, value: &mut Value, schema: &'s Value, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let mut alternatives = Vec::new();
        self.alternatives(schema, &mut alternatives, 0);
        let mut changed = false;
        match value {
            Value::Object(object) => {
                object.retain(|key, field| {
                    let invited = field.is_null() && self.invited(&alternatives, key);
                    changed |= invited;
                    !invited
                });
                for (key, field) in object.iter_mut() {
                    if let Some(property) = self.property(&alternatives, key) {
                        changed |= self.strip(field, property, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                let item_schema = alternatives
                    .iter()
                    .find_map(|schema| schema.get("items").filter(|items| items.is_object()));
                if let Some(item_schema) = item_schema {
                    for item in items {
                        changed |= self.strip(item, item_schema, depth + 1);
                    }
                }
            }
            _ => {}
        }
        changed
    }

    /// A `null` for `key` is invited when some alternative has `key` as an optional property
    /// that does not take `null`, and none has it required or nullable.
    fn invited(&self, alternatives: &[&'s Value], key: &str) -> bool {
        let mut optional = false;
        for schema in alternatives {
            let Some(property) = schema
                .get("properties")
                .and_then(|properties| properties.get(key))
            else {
                continue;
            };
            let required = schema
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|names| names.iter().any(|name| name == key));
            if required || self.takes_null(property) {
                return false;
            }
            optional = true;
        }
        optional
    }

    fn takes_null(&self, schema: &'s Value) -> bool {
        let mut alternatives = Vec::new();
        self.alternatives(schema, &mut alternatives, 0);
        alternatives.into_iter().any(accepts_null)
    }

    /// The schema of property `key`, from the first alternative that declares it (or that
    /// has a schema for other keys).
    fn property(&self, alternatives: &[&'s Value], key: &str) -> Option<&'s Value> {
        alternatives
            .iter()
            .find_map(|schema| {
                schema
                    .get("properties")
                    .and_then(|properties| properties.get(key))
            })
            .or_else(|| {
                alternatives.iter().find_map(|schema| {
                    schema
                        .get("additionalProperties")
                        .filter(|additional| additional.is_object())
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "default": 5},
                "label": {"type": ["string", "null"]},
                "path": {"type": "string"},
                "tree": {"$ref": "#/$defs/Node"}
            },
            "required": ["path"],
            "$defs": {"Node": {"type": "object", "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }, "required": ["name"]}}
        })
    }

    #[test]
    fn a_null_for_an_optional_argument_is_removed() {
        let stripped = strip_invited_nulls(&schema(), r#"{"path": "a", "limit": null}"#);
        assert_eq!(stripped, r#"{"path":"a"}"#);
    }

    #[test]
    fn a_null_the_schema_allows_or_requires_away_is_kept() {
        let arguments = r#"{"path": null, "label": null}"#;
        assert!(matches!(
            strip_invited_nulls(&schema(), arguments),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn nulls_are_removed_inside_recursive_types() {
        let arguments = r#"{"path": "a", "tree": {"name": "r", "children": [{"name": "c", "children": null}]}}"#;
        let stripped: Value =
            serde_json::from_str(&strip_invited_nulls(&schema(), arguments)).unwrap();
        assert_eq!(
            stripped,
            json!({"path": "a", "tree": {"name": "r", "children": [{"name": "c"}]}})
        );
    }

    #[test]
    fn arguments_without_null_are_not_parsed() {
        assert!(matches!(
            strip_invited_nulls(&schema(), "not json"),
            Cow::Borrowed("not json")
        ));
    }
}

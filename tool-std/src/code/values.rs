//! Values crossing the sandbox boundary: a tool's JSON result as a Python value, and a Python
//! value (an argument, the code's last expression) as JSON, the way `json.loads` and
//! `json.dumps` would see them.

use monty_types::{DictPairs, MontyObject};
use num_bigint::BigInt;
use serde_json::{Map, Number, Value};

/// A JSON value as the Python value `json.loads` would make of it.
pub(crate) fn to_python(value: &Value) -> MontyObject {
    match value {
        Value::Null => MontyObject::None,
        Value::Bool(flag) => MontyObject::Bool(*flag),
        Value::Number(number) => {
            if let Some(int) = number.as_i64() {
                MontyObject::Int(int)
            } else if let Some(int) = number.as_u64() {
                MontyObject::BigInt(BigInt::from(int))
            } else {
                MontyObject::Float(number.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(text) => MontyObject::String(text.clone()),
        Value::Array(items) => MontyObject::List(items.iter().map(to_python).collect()),
        Value::Object(fields) => MontyObject::Dict(DictPairs::from(
            fields
                .iter()
                .map(|(key, value)| (MontyObject::String(key.clone()), to_python(value)))
                .collect::<Vec<_>>(),
        )),
    }
}

/// A Python value with no JSON form, by its type name (`bytes`, `datetime`, `float('nan')`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a `{0}` has no JSON form")]
pub(crate) struct NotJson(pub String);

/// A Python value as the JSON `json.dumps` would make of it: tuples and sets as arrays, dict
/// keys that are numbers, booleans or `None` as strings, a named tuple as an object of its
/// fields, a path as its string.
pub(crate) fn to_json(object: &MontyObject) -> Result<Value, NotJson> {
    Ok(match object {
        MontyObject::None => Value::Null,
        MontyObject::Bool(flag) => Value::Bool(*flag),
        MontyObject::Int(int) => Value::from(*int),
        MontyObject::BigInt(int) => u64::try_from(int)
            .map(Value::from)
            .map_err(|_| NotJson("int beyond 64 bits".to_owned()))?,
        MontyObject::Float(float) => Number::from_f64(*float)
            .map(Value::Number)
            .ok_or_else(|| NotJson(format!("float {}", object.py_repr())))?,
        MontyObject::String(text) | MontyObject::Path(text) => Value::String(text.clone()),
        MontyObject::List(items)
        | MontyObject::Tuple(items)
        | MontyObject::Set(items)
        | MontyObject::FrozenSet(items) => {
            Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?)
        }
        MontyObject::NamedTuple {
            field_names,
            values,
            ..
        } => Value::Object(
            field_names
                .iter()
                .zip(values)
                .map(|(name, value)| Ok((name.clone(), to_json(value)?)))
                .collect::<Result<Map<_, _>, NotJson>>()?,
        ),
        MontyObject::Dict(pairs) => Value::Object(
            pairs
                .iter()
                .map(|(key, value)| Ok((json_key(key)?, to_json(value)?)))
                .collect::<Result<Map<_, _>, NotJson>>()?,
        ),
        other => return Err(NotJson(other.type_name().to_owned())),
    })
}

/// A dict key as `json.dumps` writes it.
fn json_key(key: &MontyObject) -> Result<String, NotJson> {
    match key {
        MontyObject::String(text) => Ok(text.clone()),
        MontyObject::Int(int) => Ok(int.to_string()),
        MontyObject::BigInt(int) => Ok(int.to_string()),
        MontyObject::Bool(flag) => Ok(flag.to_string()),
        MontyObject::None => Ok("null".to_owned()),
        MontyObject::Float(_) => match to_json(key)? {
            Value::Number(number) => Ok(number.to_string()),
            _ => Err(NotJson(format!("dict key {}", key.py_repr()))),
        },
        other => Err(NotJson(format!("dict key of type {}", other.type_name()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_survives_the_round_trip_through_python() {
        let value = json!({"name": "a.rs", "lines": [1, 2, 3], "ratio": 0.5, "ok": true, "none": null, "big": u64::MAX});
        assert_eq!(to_json(&to_python(&value)).unwrap(), value);
    }

    #[test]
    fn tuples_and_sets_become_arrays_and_keys_become_strings() {
        let tuple = MontyObject::Tuple(vec![MontyObject::Int(1), MontyObject::String("a".into())]);
        assert_eq!(to_json(&tuple).unwrap(), json!([1, "a"]));
        let dict = MontyObject::Dict(DictPairs::from(vec![
            (MontyObject::Int(1), MontyObject::Bool(true)),
            (MontyObject::None, MontyObject::Float(1.5)),
        ]));
        assert_eq!(to_json(&dict).unwrap(), json!({"1": true, "null": 1.5}));
    }

    #[test]
    fn a_value_with_no_json_form_is_named() {
        let error =
            to_json(&MontyObject::List(vec![MontyObject::Bytes(b"x".to_vec())])).unwrap_err();
        assert_eq!(error.to_string(), "a `bytes` has no JSON form");
        assert!(to_json(&MontyObject::Float(f64::NAN)).is_err());
    }
}

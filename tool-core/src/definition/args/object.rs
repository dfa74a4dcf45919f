//! The pieces of the arguments struct's `Deserialize` that `#[tool]` writes itself instead of
//! deriving: a tool's arguments are always a JSON object, so the generated code reads one map,
//! and everything it does not need to repeat per tool lives here, written once.
//!
//! What serde's derive gives a struct (`deny_unknown_fields`) is kept exactly: an unknown key
//! is `unknown field `x`, expected one of ..`, a repeated one `duplicate field `x``, an absent
//! one `missing field `x`` unless its type reads a missing value as `None` (an `Option`, which
//! serde's derive also lets be absent), and each value is read by its own type's
//! `Deserialize`. What the derive adds and a tool never uses (a struct read from a JSON array,
//! an enum of the field names with its own visitor) is not generated. The diagnosis of a call
//! that fails is the schema's (`parse_arguments`), so the messages a model sees are the same.

use std::marker::PhantomData;

use serde::de::{DeserializeSeed, Error, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// Reads a key of a tool's arguments object as the index of the argument it names in
/// `names`, or fails as serde's derive does for a key the struct does not have.
#[derive(Debug, Clone, Copy)]
pub struct ArgumentKey(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for ArgumentKey {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for ArgumentKey {
    type Value = usize;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("an argument's name")
    }

    fn visit_str<E: Error>(self, key: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|name| *name == key)
            .ok_or_else(|| E::unknown_field(key, self.0))
    }
}

/// Reads the value of the argument `name` into its `slot`; a second value for it is an error.
///
/// # Errors
/// The value's own, or `duplicate field`.
pub fn argument_value<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(A::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// The value of the argument `name`, absent from the object: `None` for a type that reads a
/// missing value as `None` (an `Option`), else `missing field`.
///
/// # Errors
/// `missing field` for every type but those.
pub fn missing_argument<'de, T: Deserialize<'de>, E: Error>(name: &'static str) -> Result<T, E> {
    T::deserialize(Missing(name, PhantomData))
}

/// A value that is not there: `None` to an `Option`, `missing field` to everything else.
struct Missing<E>(&'static str, PhantomData<E>);

impl<'de, E: Error> Deserializer<'de> for Missing<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `#[tool]` generates for `fn f(a: i64, b: Option<String>)`, by hand.
    #[derive(Debug, PartialEq)]
    struct Args {
        a: i64,
        b: Option<String>,
    }

    const NAMES: &[&str] = &["a", "b"];

    impl<'de> Deserialize<'de> for Args {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Object;
            impl<'de> Visitor<'de> for Object {
                type Value = Args;
                fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    formatter.write_str("the tool's arguments, an object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Args, A::Error> {
                    let (mut a, mut b) = (None, None);
                    while let Some(key) = map.next_key_seed(ArgumentKey(NAMES))? {
                        match key {
                            0 => argument_value(&mut map, &mut a, "a")?,
                            _ => argument_value(&mut map, &mut b, "b")?,
                        }
                    }
                    Ok(Args {
                        a: match a {
                            Some(value) => value,
                            None => missing_argument("a")?,
                        },
                        b: match b {
                            Some(value) => value,
                            None => missing_argument("b")?,
                        },
                    })
                }
            }
            deserializer.deserialize_map(Object)
        }
    }

    /// The same struct with serde's derive, to compare with.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Derived {
        a: i64,
        b: Option<String>,
    }

    fn both(json: &str) -> (Result<Args, String>, Result<Derived, String>) {
        (
            serde_json::from_str::<Args>(json).map_err(|error| error.to_string()),
            serde_json::from_str::<Derived>(json).map_err(|error| error.to_string()),
        )
    }

    #[test]
    fn the_written_deserializer_answers_as_serdes_derive_does() {
        for json in [
            r#"{"a": 1, "b": "x"}"#,
            r#"{"b": "x", "a": 1}"#,
            r#"{"a": 1}"#,
            r#"{"a": 1, "b": null}"#,
            r#"{"b": "x"}"#,
            r#"{"a": 1, "c": 2}"#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": "one"}"#,
            r#"{"\u0061": 5}"#,
            r#"{}"#,
        ] {
            let (written, derived) = both(json);
            match (&written, &derived) {
                (Ok(written), Ok(derived)) => {
                    assert_eq!((written.a, &written.b), (derived.a, &derived.b), "{json}");
                }
                (Err(written), Err(derived)) => assert_eq!(written, derived, "{json}"),
                _ => panic!("{json}: {written:?} against {derived:?}"),
            }
        }
    }
}

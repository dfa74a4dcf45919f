//! Reading configuration into serde-derived types, one way: [`read`] deserializes a JSON value
//! into a `T: Deserialize` and, when it cannot, says where and what: the JSON path of the value
//! (`hookSpecificOutput.decision.behavior`, `permissions.deny[1]`), what was expected and what
//! was found, in the words of the rest of the crate ("should be a string, found a number").
//!
//! The configuration files (settings, `.mcp.json`) and hook output are described by types;
//! this is the one reader under them, a serde `Deserializer` over a `serde_json::Value` that
//! keeps the path as it descends, so no type writes its own checks of what a JSON value is.
//! `null` reads as an absent `Option`, as the files' authors (and scripts) mean it.
//!
//! What serde reads by buffering its input first (`#[serde(flatten)]`, untagged and internally
//! tagged enums) is named at the value that holds it, not deeper: the types read here avoid
//! those, and keys are read as text.
//!
//! A type that ignores keys it does not know (Claude Code's own sections: a newer Claude Code
//! may add keys) still has them found: [`read_noting_unknown`] returns, beside the value, each
//! key an object had that the struct read from it has no field for ([`UnknownKey`]), so the
//! caller can warn about `"comand"`. A type that refuses them (`#[serde(deny_unknown_fields)]`,
//! our own keys) fails with [`ReadError::unknown_field`].

use std::cell::RefCell;
use std::fmt;

use serde::Deserialize;
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::definition::args::json_kind;
use crate::definition::suggest::did_you_mean;

/// `value` as a `T`, or what was wrong with it and where. `prefix` is the path of `value` in
/// its document (empty for the whole document).
pub(crate) fn read<'de, T: Deserialize<'de>>(
    value: &'de Value,
    prefix: &str,
) -> Result<T, ReadError> {
    T::deserialize(Reader {
        value,
        path: prefix.to_owned(),
        unknown: None,
    })
}

/// [`read`], and the keys of the objects read that their structs have no field for, in the
/// order they were met.
pub(crate) fn read_noting_unknown<'de, T: Deserialize<'de>>(
    value: &'de Value,
    prefix: &str,
) -> Result<(T, Vec<UnknownKey>), ReadError> {
    let unknown = RefCell::new(Vec::new());
    let read = T::deserialize(Reader {
        value,
        path: prefix.to_owned(),
        unknown: Some(&unknown),
    })?;
    Ok((read, unknown.into_inner()))
}

/// The most a configuration file may hold: far more than any settings file or `.mcp.json`
/// does, far less than would exhaust memory.
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// A configuration file's text (settings, `.mcp.json`, the grants file). A project's files
/// come with its repository, which could make `.claude/settings.json` a FIFO (an open would
/// wait for a writer forever) or a link to `/dev/zero` (a read would never end): the file is
/// opened without blocking, judged through the handle, and read only if it is a regular file
/// of at most [`MAX_FILE_BYTES`].
///
/// # Errors
/// What the file system says, or, worded to follow "could not read `<path>`: ", what the
/// path is when it is not a regular file, or that it is too large.
pub(crate) fn read_file(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind, Read as _};
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY;
        options.custom_flags(flags.bits().cast_signed());
    }
    let file = options.open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        #[cfg(unix)]
        let special = crate::definition::workspace::special_kind(
            std::os::unix::fs::MetadataExt::mode(&metadata),
        );
        #[cfg(not(unix))]
        let special = None;
        let kind = special.unwrap_or(if metadata.is_dir() {
            "a directory"
        } else {
            "not a file"
        });
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("it is {kind}, not a regular file"),
        ));
    }
    let too_large = || {
        Error::new(
            ErrorKind::InvalidData,
            format!(
                "it is larger than {} MiB, more than a configuration file holds",
                MAX_FILE_BYTES / (1024 * 1024)
            ),
        )
    };
    if metadata.len() > MAX_FILE_BYTES {
        return Err(too_large());
    }
    // Bounded again as it is read: the file may grow after the look at its size.
    let mut text = String::new();
    file.take(MAX_FILE_BYTES + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(text)
}

/// A reader of one kind of file (settings, `.mcp.json`): [`read`] and [`read_noting_unknown`]
/// with the file's own error, which names the file. A reader says how a [`ReadError`]
/// becomes its error; the reads come with it.
pub(crate) trait FileReader {
    /// The file's error.
    type Error;

    /// `error`, as the file's error.
    fn error(&self, error: &ReadError) -> Self::Error;

    /// `value`, at `location`, as a `T`.
    fn read<'v, T: Deserialize<'v>>(
        &self,
        value: &'v Value,
        location: &str,
    ) -> Result<T, Self::Error> {
        read(value, location).map_err(|error| self.error(&error))
    }

    /// [`read`](Self::read), and the keys no field of `T` takes.
    fn read_noting_unknown<'v, T: Deserialize<'v>>(
        &self,
        value: &'v Value,
        location: &str,
    ) -> Result<(T, Vec<UnknownKey>), Self::Error> {
        read_noting_unknown(value, location).map_err(|error| self.error(&error))
    }
}

/// A key an object had that the struct read from it has no field for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnknownKey {
    /// The JSON path of the object (empty for the whole document).
    pub(crate) location: String,
    /// The key.
    pub(crate) key: String,
    /// The struct's name for itself (its `#[serde(rename)]`: "a hook group").
    pub(crate) of: &'static str,
    /// The keys the struct has.
    pub(crate) known: &'static [&'static str],
}

impl UnknownKey {
    /// The JSON path of the key itself.
    pub(crate) fn path(&self) -> String {
        if self.location.is_empty() {
            self.key.clone()
        } else {
            format!("{}.{}", self.location, self.key)
        }
    }
}

/// What was wrong with a value, and where.
#[derive(Debug)]
pub(crate) struct ReadError {
    /// The JSON path of the value; `None` until the reader that met it names it.
    location: Option<String>,
    problem: Problem,
}

#[derive(Debug)]
enum Problem {
    /// A value of the wrong kind: what was expected, and (once located) what was found.
    Kind {
        expected: String,
        found: Option<Found>,
    },
    /// A key a type that takes only its own (`#[serde(deny_unknown_fields)]`) does not know,
    /// and the keys it does.
    UnknownField {
        field: String,
        known: &'static [&'static str],
    },
    /// A key the type needs that is not there.
    MissingField(&'static str),
    /// Anything else a type said.
    Message(String),
}

/// The value a problem was found in: its kind ("a number"), and its text if it is a string.
#[derive(Debug)]
struct Found {
    kind: &'static str,
    text: Option<String>,
}

impl ReadError {
    /// The JSON path of the value the problem is with.
    pub(crate) fn location(&self) -> &str {
        self.location.as_deref().unwrap_or_default()
    }

    /// [`location`](Self::location), with the whole document called `document` ("the
    /// settings") where its path is empty.
    pub(crate) fn location_or<'a>(&'a self, document: &'a str) -> &'a str {
        match self.location() {
            "" => document,
            location => location,
        }
    }

    /// What was expected, and what was found, with a string's text (`the string "x"`), as the
    /// configuration files' errors say it.
    pub(crate) fn expected_and_found(&self) -> (String, String) {
        match &self.problem {
            Problem::Kind { expected, found } => {
                let found = match found {
                    Some(Found {
                        text: Some(text), ..
                    }) => format!("the string \"{text}\""),
                    Some(Found { kind, .. }) => (*kind).to_owned(),
                    None => String::new(),
                };
                (expected.clone(), found)
            }
            Problem::UnknownField { field, known } => (
                format!("an object of its own keys ({})", known.join(", ")),
                format!(
                    "the key `{field}`{}",
                    did_you_mean(field, known.iter().copied())
                ),
            ),
            Problem::MissingField(field) => (
                format!("an object with the key `{field}`"),
                "none".to_owned(),
            ),
            Problem::Message(message) => (message.clone(), "something else".to_owned()),
        }
    }

    /// The key a type did not know, and the keys it does, when that was the problem.
    pub(crate) fn unknown_field(&self) -> Option<(&str, &'static [&'static str])> {
        match &self.problem {
            Problem::UnknownField { field, known } => Some((field, known)),
            _ => None,
        }
    }

    /// Names the value at `path` as the one the problem is with, unless a reader deeper down
    /// already has; a wrong kind also says what `value` is.
    fn at(mut self, path: &str, value: &Value) -> Self {
        if self.location.is_none() {
            self.location = Some(path.to_owned());
            if let Problem::Kind { found, .. } = &mut self.problem {
                *found = Some(Found {
                    kind: json_kind(value),
                    text: value.as_str().map(str::to_owned),
                });
            }
        }
        self
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.problem {
            Problem::Kind { expected, found } => {
                let found = found.as_ref().map_or("something else", |found| found.kind);
                write!(
                    f,
                    "`{}` should be {expected}, found {found}",
                    self.location()
                )
            }
            Problem::UnknownField { field, known } => write!(
                f,
                "`{}.{field}` is not a key here (its keys are {})",
                self.location(),
                known.join(", ")
            ),
            Problem::MissingField(field) => write!(
                f,
                "`{}` should have the key `{field}`, which is not there",
                self.location()
            ),
            Problem::Message(message) => write!(f, "`{}`: {message}", self.location()),
        }
    }
}

impl std::error::Error for ReadError {}

impl de::Error for ReadError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        ReadError {
            location: None,
            problem: Problem::Message(message.to_string()),
        }
    }

    fn unknown_field(field: &str, known: &'static [&'static str]) -> Self {
        ReadError {
            location: None,
            problem: Problem::UnknownField {
                field: field.to_owned(),
                known,
            },
        }
    }

    fn missing_field(field: &'static str) -> Self {
        ReadError {
            location: None,
            problem: Problem::MissingField(field),
        }
    }

    /// A value of the right kind but out of what the type takes (`300` for a `u8`): worded as
    /// a wrong kind, what was expected and what was found.
    fn invalid_value(found: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        Self::invalid_type(found, expected)
    }

    fn invalid_type(_found: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        ReadError {
            location: None,
            problem: Problem::Kind {
                expected: in_our_words(&expected.to_string()),
                // Filled in where the value is known (`ReadError::at`).
                found: None,
            },
        }
    }
}

/// A value as the configuration files' errors name what was found: a string with its text
/// (`the string "x"`), anything else by its kind ("a number").
#[cfg(feature = "mcp")]
pub(crate) fn described(value: &Value) -> String {
    match value {
        Value::String(text) => quoted(text),
        other => json_kind(other).to_owned(),
    }
}

/// A string as the configuration files' errors name it when found: `the string "x"`.
pub(crate) fn quoted(text: &str) -> String {
    format!("the string \"{text}\"")
}

/// serde's name for what a type expects, as this crate says it of JSON.
fn in_our_words(expected: &str) -> String {
    match expected {
        "a map" => "an object".to_owned(),
        "a sequence" => "an array".to_owned(),
        "a borrowed string" => "a string".to_owned(),
        other if other.starts_with("struct ") => "an object".to_owned(),
        other if other.starts_with("enum ") => "a string (one of the names it takes)".to_owned(),
        // Rust's number types, by the numbers they take.
        "u8" => "a whole number from 0 to 255".to_owned(),
        "u16" => "a whole number from 0 to 65535".to_owned(),
        "u32" => "a whole number from 0 to 4294967295".to_owned(),
        "u64" | "u128" | "usize" => "a whole number, 0 or more".to_owned(),
        "i8" => "a whole number from -128 to 127".to_owned(),
        "i16" => "a whole number from -32768 to 32767".to_owned(),
        "i32" => "a whole number from -2147483648 to 2147483647".to_owned(),
        "i64" | "i128" | "isize" => "a whole number".to_owned(),
        "f32" | "f64" => "a number".to_owned(),
        other => other.to_owned(),
    }
}

/// A serde `Deserializer` over one JSON value at a path.
struct Reader<'s, 'de> {
    value: &'de Value,
    path: String,
    /// Where the keys no field takes go, when the caller asked for them.
    unknown: Option<&'s RefCell<Vec<UnknownKey>>>,
}

impl<'s, 'de> Reader<'s, 'de> {
    /// A reader of `value`, at `path`, below this one.
    fn below(&self, value: &'de Value, path: String) -> Reader<'s, 'de> {
        Reader {
            value,
            path,
            unknown: self.unknown,
        }
    }

    /// The path of the field `key` of this value.
    fn field_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }
}

impl<'de> de::Deserializer<'de> for Reader<'_, 'de> {
    type Error = ReadError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        let result = match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(flag) => visitor.visit_bool(*flag),
            Value::Number(number) => {
                if let Some(unsigned) = number.as_u64() {
                    visitor.visit_u64(unsigned)
                } else if let Some(signed) = number.as_i64() {
                    visitor.visit_i64(signed)
                } else {
                    visitor.visit_f64(number.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(text) => visitor.visit_borrowed_str(text),
            Value::Array(items) => visitor.visit_seq(Items {
                items: items.iter().enumerate(),
                parent: &self,
            }),
            Value::Object(object) => visitor.visit_map(Fields {
                fields: object.iter(),
                parent: &self,
                value: None,
            }),
        };
        result.map_err(|error| error.at(&self.path, self.value))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        if self.value.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        // A unit variant, written as its name.
        match self.value {
            Value::String(text) => visitor
                .visit_enum(text.as_str().into_deserializer())
                .map_err(|error: ReadError| error.at(&self.path, self.value)),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        // An object, never the array serde's derive would also take.
        if let Value::Object(object) = self.value {
            if let Some(unknown) = self.unknown {
                let keys = object.keys().filter(|key| !fields.contains(&key.as_str()));
                unknown.borrow_mut().extend(keys.map(|key| UnknownKey {
                    location: self.path.clone(),
                    key: key.clone(),
                    of: name,
                    known: fields,
                }));
            }
            return self.deserialize_any(visitor);
        }
        let error = <ReadError as de::Error>::invalid_type(de::Unexpected::Other(""), &"an object");
        Err(error.at(&self.path, self.value))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map identifier
    }
}

/// An array's items, each at its index.
struct Items<'a, 's, 'de> {
    items: std::iter::Enumerate<std::slice::Iter<'de, Value>>,
    parent: &'a Reader<'s, 'de>,
}

impl<'de> SeqAccess<'de> for Items<'_, '_, 'de> {
    type Error = ReadError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ReadError> {
        let Some((index, value)) = self.items.next() else {
            return Ok(None);
        };
        seed.deserialize(
            self.parent
                .below(value, format!("{}[{index}]", self.parent.path)),
        )
        .map(Some)
    }
}

/// An object's fields, each at its key.
struct Fields<'a, 's, 'de> {
    fields: serde_json::map::Iter<'de>,
    parent: &'a Reader<'s, 'de>,
    value: Option<(&'de str, &'de Value)>,
}

impl<'de> MapAccess<'de> for Fields<'_, '_, 'de> {
    type Error = ReadError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ReadError> {
        let Some((key, value)) = self.fields.next() else {
            return Ok(None);
        };
        self.value = Some((key, value));
        seed.deserialize(BorrowedStrDeserializer::new(key.as_str()))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, ReadError> {
        let (key, value) = self
            .value
            .take()
            .ok_or_else(|| <ReadError as de::Error>::custom("a value was asked before its key"))?;
        seed.deserialize(self.parent.below(value, self.parent.field_path(key)))
    }
}

/// An object of strings, as pairs in the file's key order (`env`, `headers`).
#[cfg(any(feature = "mcp", feature = "http-hooks"))]
pub(crate) struct Pairs(pub(crate) Vec<(String, String)>);

#[cfg(any(feature = "mcp", feature = "http-hooks"))]
impl<'de> Deserialize<'de> for Pairs {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = Pairs;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut fields: A) -> Result<Pairs, A::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) = fields.next_entry()? {
                    pairs.push(pair);
                }
                Ok(Pairs(pairs))
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// Deserializes a field whose `null` is a value of its own, not "absent" (`"updatedToolOutput":
/// null` replaces a tool's output with `null`): use with `#[serde(default, deserialize_with)]`.
pub(crate) fn kept_even_if_null<'de, D: de::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::{Value, json};

    use super::read;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Server {
        command: Option<String>,
        args: Option<Vec<String>>,
        mode: Option<Mode>,
        nested: Option<Nested>,
        #[serde(default, deserialize_with = "super::kept_even_if_null")]
        output: Option<Value>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Nested {
        deep: Vec<Vec<bool>>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    enum Mode {
        Plan,
        AcceptEdits,
    }

    fn error(value: Value) -> String {
        read::<Server>(&value, "servers.files")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_value_of_the_wrong_kind_is_named_by_its_path_with_what_was_found() {
        assert_eq!(
            error(json!({"command": 3})),
            "`servers.files.command` should be a string, found a number"
        );
        assert_eq!(
            error(json!({"args": ["a", true]})),
            "`servers.files.args[1]` should be a string, found a boolean"
        );
        assert_eq!(
            error(json!({"args": "--root"})),
            "`servers.files.args` should be an array, found a string"
        );
        assert_eq!(
            error(json!({"nested": {"deep": [[true], [false, "no"]]}})),
            "`servers.files.nested.deep[1][1]` should be a boolean, found a string"
        );
        assert_eq!(
            read::<&str>(&json!(3), "name").unwrap_err().to_string(),
            "`name` should be a string, found a number"
        );
        assert_eq!(
            error(json!({"nested": []})),
            "`servers.files.nested` should be an object, found an array"
        );
    }

    #[test]
    fn the_whole_value_of_the_wrong_kind_is_named_by_the_prefix() {
        assert_eq!(
            read::<Server>(&json!([]), "").unwrap_err().to_string(),
            "`` should be an object, found an array"
        );
    }

    #[test]
    fn null_is_absent_unless_a_field_keeps_it() {
        let server: Server =
            read(&json!({"command": null, "args": null, "output": null}), "").unwrap();
        assert_eq!(server.command, None);
        assert_eq!(server.args, None);
        assert_eq!(server.output, Some(Value::Null));
        let server: Server = read(&json!({}), "").unwrap();
        assert_eq!(server.output, None);
    }

    #[test]
    fn a_unit_variant_is_read_from_its_name_and_an_unknown_one_is_named() {
        let server: Server = read(&json!({"mode": "acceptEdits"}), "").unwrap();
        assert_eq!(server.mode, Some(Mode::AcceptEdits));
        let message = error(json!({"mode": "yolo"}));
        assert!(message.starts_with("`servers.files.mode`"), "{message}");
        assert!(
            message.contains("yolo") && message.contains("plan"),
            "{message}"
        );
    }

    #[test]
    fn a_newtype_reads_what_it_wraps_and_keys_borrow_their_text() {
        #[derive(Debug, Deserialize, PartialEq)]
        struct Name(String);
        #[derive(Debug, Deserialize)]
        struct Named<'a> {
            name: Name,
            #[serde(borrow)]
            env: std::collections::BTreeMap<&'a str, &'a str>,
        }
        let value = json!({"name": "files", "env": {"LEVEL": "warn"}});
        let named: Named<'_> = read(&value, "").unwrap();
        assert_eq!(named.name, Name("files".to_owned()));
        assert_eq!(named.env["LEVEL"], "warn");
        let message = read::<Named<'_>>(&json!({"name": ["files"], "env": {}}), "")
            .unwrap_err()
            .to_string();
        assert_eq!(message, "`name` should be a string, found an array");
    }

    #[test]
    fn an_enum_written_as_something_else_than_a_name_says_so() {
        assert_eq!(
            error(json!({"mode": 3})),
            "`servers.files.mode` should be a string (one of the names it takes), found a number"
        );
    }

    #[test]
    fn a_number_out_of_its_types_range_says_the_range() {
        #[derive(Debug, Deserialize)]
        struct Limits {
            #[expect(dead_code, reason = "read for its error")]
            retries: u8,
        }
        let message = read::<Limits>(&json!({"retries": 300}), "limits")
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            "`limits.retries` should be a whole number from 0 to 255, found a number"
        );
        let message = read::<Limits>(&json!({"retries": -1}), "limits")
            .unwrap_err()
            .to_string();
        assert!(message.contains("from 0 to 255"), "{message}");
    }

    #[test]
    fn a_missing_key_and_an_unknown_one_are_named_with_their_object() {
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Server {
            #[expect(dead_code, reason = "read for its error")]
            command: String,
        }
        let error = read::<Server>(&json!({}), "mcpServers.files").unwrap_err();
        assert_eq!(
            error.to_string(),
            "`mcpServers.files` should have the key `command`, which is not there"
        );
        assert_eq!(
            error.expected_and_found(),
            (
                "an object with the key `command`".to_owned(),
                "none".to_owned()
            )
        );
        let error = read::<Server>(&json!({"command": "x", "comand": "y"}), "s").unwrap_err();
        assert_eq!(error.location(), "s");
        assert_eq!(
            error.expected_and_found(),
            (
                "an object of its own keys (command)".to_owned(),
                "the key `comand`; did you mean `command`?".to_owned()
            )
        );
    }

    #[test]
    fn unknown_fields_are_left_alone() {
        let server: Server = read(&json!({"command": "x", "oauth": {"a": [1]}}), "").unwrap();
        assert_eq!(server.command.as_deref(), Some("x"));
    }
}

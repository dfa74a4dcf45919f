//! Turning a model's raw JSON arguments into a tool's arguments type, and, when that fails,
//! explaining why in terms the model can act on.
//!
//! The happy path is one `serde_json::from_str` into the arguments struct: nothing else runs.
//! Only when it fails does the diagnosis start: the text is parsed as JSON, checked against the
//! input schema (every unknown and every missing field at the top level, with the closest
//! allowed names), and serde's own error is located in the text (serde_json reports where it
//! stopped; the JSON up to there says which value it was reading). Every error carries a JSON path and what was expected, described from the schema.
//!
//! Empty arguments and `null` mean "no arguments" (`{}`), since some providers send those for
//! tools without parameters; `null` for an optional or defaulted field means it is absent.

mod object;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use object::{ArgumentKey, argument_value, missing_argument};

use crate::ToolError;
use crate::definition::error::{ArgumentError, ArgumentProblem};
use crate::definition::schema::{SchemaView, Step, render_path};
use crate::definition::suggest::closest;
use schemars::Schema;

/// Parses a call's arguments into `T`, or explains every problem found.
///
/// # Errors
/// [`ToolError::InvalidArguments`] naming the tool, each problem with its JSON path.
pub fn parse_arguments<T: DeserializeOwned>(
    tool: &str,
    schema: &Schema,
    arguments: &str,
) -> Result<T, ToolError> {
    // serde would also build a struct from a JSON array of its fields in order; a tool's
    // arguments are named, so only an object goes down the fast path.
    let error = if arguments.trim_start().starts_with('{') {
        match serde_json::from_str::<T>(arguments) {
            Ok(args) => return Ok(args),
            Err(error) => Some(error),
        }
    } else {
        None
    };
    if empty_arguments(arguments) {
        return match serde_json::from_str::<T>("{}") {
            Ok(args) => Ok(args),
            Err(error) => Err(diagnose(tool, schema, "{}", Some(&error))),
        };
    }
    Err(diagnose(tool, schema, arguments, error.as_ref()))
}

fn empty_arguments(arguments: &str) -> bool {
    let trimmed = arguments.trim();
    trimmed.is_empty() || trimmed == "null"
}

/// Not generic on purpose: this is the rare path, and keeping it out of every tool's
/// monomorphized code keeps builds fast.
fn diagnose(
    tool: &str,
    schema: &Schema,
    arguments: &str,
    error: Option<&serde_json::Error>,
) -> ToolError {
    let view = SchemaView::new(schema);
    let errors = match serde_json::from_str::<Value>(arguments) {
        Err(error) => vec![ArgumentError {
            path: "$".into(),
            problem: ArgumentProblem::Syntax {
                message: error.to_string(),
                example: view.example(),
            },
        }],
        Ok(Value::Object(object)) => {
            let mut errors = check_top_level(&view, &object);
            if let Some(deep) = error.map(|error| locate(&view, arguments, error))
                && !errors.iter().any(|known| same_problem(known, &deep))
            {
                errors.push(deep);
            }
            errors
        }
        Ok(other) => vec![ArgumentError {
            path: "$".into(),
            problem: ArgumentProblem::NotAnObject {
                found: json_kind(&other).into(),
                example: view.example(),
            },
        }],
    };
    ToolError::InvalidArguments {
        tool: tool.to_owned(),
        errors,
    }
}

/// Every unknown and every missing field at the top level, in one pass.
fn check_top_level(
    view: &SchemaView<'_>,
    object: &serde_json::Map<String, Value>,
) -> Vec<ArgumentError> {
    let Some(root) = view.at(&[]) else {
        return Vec::new();
    };
    let (allowed, closed) = view.properties(root);
    let missing: Vec<&str> = view
        .required(root)
        .into_iter()
        .filter(|name| !object.contains_key(*name))
        .collect();
    let unknown: Vec<&str> = if closed {
        object
            .keys()
            .map(String::as_str)
            .filter(|key| !allowed.contains(key))
            .collect()
    } else {
        Vec::new()
    };
    let mut errors = Vec::new();
    for field in &unknown {
        // One unknown and one missing field are, nearly always, the same argument misnamed,
        // when the value would do for it (`{"file": "a.txt"}` for `path`; not `{"nope": 1}`).
        let fits = |only: &str| {
            view.at(&[Step::Key(only.to_owned())])
                .is_none_or(|schema| view.admits_kind(schema, &object[*field]))
        };
        let suggestion = match (unknown.len(), missing.as_slice()) {
            (1, [only]) if fits(only) => Some((*only).to_owned()),
            _ => closest(field, allowed.iter().copied(), 1)
                .first()
                .map(|name| (*name).to_owned()),
        };
        errors.push(ArgumentError {
            path: "$".into(),
            problem: ArgumentProblem::Unknown {
                field: (*field).to_owned(),
                suggestion,
                allowed: allowed.iter().map(|name| (*name).to_owned()).collect(),
            },
        });
    }
    for field in missing {
        let expected = view
            .at(&[Step::Key(field.to_owned())])
            .map_or_else(|| "a value".to_owned(), |schema| view.describe(schema));
        errors.push(ArgumentError {
            path: "$".into(),
            problem: ArgumentProblem::Missing {
                field: field.to_owned(),
                expected,
            },
        });
    }
    errors
}

/// Locates serde's error in the text: serde_json reports where it stopped, and the JSON up to
/// there says which value it was reading.
fn locate(view: &SchemaView<'_>, arguments: &str, error: &serde_json::Error) -> ArgumentError {
    let full = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    let offset = byte_offset(arguments, error.line(), error.column());
    let mut steps = path_at(arguments, offset);
    if message.starts_with("missing field `") {
        // serde notices a missing field at the object's end, whose last key is irrelevant.
        if let Some(Frame::Object { .. }) = open_frames(arguments, offset).last() {
            steps.pop();
        }
    }
    interpret(view, steps, message)
}

/// Turns one of serde's messages into a problem, describing expectations from the schema.
fn interpret(view: &SchemaView<'_>, mut steps: Vec<Step>, message: &str) -> ArgumentError {
    if let Some(field) = between(message, "missing field `", "`") {
        let path = render_path(&steps);
        steps.push(Step::Key(field.to_owned()));
        let expected = view
            .at(&steps)
            .map_or_else(|| "a value".to_owned(), |schema| view.describe(schema));
        return ArgumentError {
            path,
            problem: ArgumentProblem::Missing {
                field: field.to_owned(),
                expected,
            },
        };
    }
    if let Some(field) = between(message, "unknown field `", "`") {
        // serde stops just after reading the unknown key, so the key is the last step.
        if matches!(steps.last(), Some(Step::Key(key)) if key == field) {
            steps.pop();
        }
        let allowed: Vec<String> = view
            .at(&steps)
            .map(|schema| view.properties(schema).0)
            .unwrap_or_default()
            .into_iter()
            .map(str::to_owned)
            .collect();
        let suggestion = closest(field, allowed.iter().map(String::as_str), 1)
            .first()
            .map(|name| (*name).to_owned());
        return ArgumentError {
            path: render_path(&steps),
            problem: ArgumentProblem::Unknown {
                field: field.to_owned(),
                suggestion,
                allowed,
            },
        };
    }
    let path = render_path(&steps);
    let schema = view.at(&steps);
    for prefix in ["invalid type: ", "invalid value: ", "invalid length "] {
        if let Some(rest) = message.strip_prefix(prefix) {
            let (found, serde_expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
            let expected =
                schema.map_or_else(|| serde_expected.to_owned(), |schema| view.describe(schema));
            return ArgumentError {
                path,
                problem: ArgumentProblem::Invalid {
                    expected,
                    found: found.to_owned(),
                },
            };
        }
    }
    if let Some(variant) = between(message, "unknown variant `", "`") {
        let expected = schema.map_or_else(|| message.to_owned(), |schema| view.describe(schema));
        return ArgumentError {
            path,
            problem: ArgumentProblem::Invalid {
                expected,
                found: format!("{variant:?}"),
            },
        };
    }
    ArgumentError {
        path,
        problem: ArgumentProblem::Other {
            message: message.to_owned(),
        },
    }
}

fn between<'m>(message: &'m str, start: &str, end: &str) -> Option<&'m str> {
    let rest = &message[message.find(start)? + start.len()..];
    Some(&rest[..rest.find(end)?])
}

fn same_problem(a: &ArgumentError, b: &ArgumentError) -> bool {
    match (&a.problem, &b.problem) {
        (ArgumentProblem::Missing { field: x, .. }, ArgumentProblem::Missing { field: y, .. })
        | (ArgumentProblem::Unknown { field: x, .. }, ArgumentProblem::Unknown { field: y, .. }) => {
            a.path == b.path && x == y
        }
        _ => false,
    }
}

/// The kind of a JSON value, with an article, for error messages ("a string", "null").
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Where serde stopped: `line` and `column` are 1-based, and name the character serde was
/// looking at when it failed (the start of a bad value, or the `}` or `,` after a value it
/// rejected). The scan stops just before it.
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (line_start + column.saturating_sub(1)).min(text.len())
}

/// A container open at some point of the text.
enum Frame {
    /// An object, with the key whose value is being read (or was read last).
    Object {
        key: Option<String>,
        expect_key: bool,
    },
    /// An array, with the index of the element being read.
    Array { index: usize },
}

/// The containers open at `end`, outermost first. The text is valid JSON (it parsed as a
/// `Value`), so a plain scan suffices.
fn open_frames(text: &str, end: usize) -> Vec<Frame> {
    let bytes = text.as_bytes();
    let end = end.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < end {
        match bytes[i] {
            b'{' => stack.push(Frame::Object {
                key: None,
                expect_key: true,
            }),
            b'[' => stack.push(Frame::Array { index: 0 }),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array { index }) => *index += 1,
                Some(Frame::Object { expect_key, .. }) => *expect_key = true,
                None => {}
            },
            b':' => {
                if let Some(Frame::Object { expect_key, .. }) = stack.last_mut() {
                    *expect_key = false;
                }
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if let Some(Frame::Object {
                    key,
                    expect_key: true,
                }) = stack.last_mut()
                {
                    *key = text
                        .get(start..=i.min(bytes.len() - 1))
                        .and_then(|quoted| serde_json::from_str::<String>(quoted).ok());
                }
            }
            _ => {}
        }
        i += 1;
    }
    stack
}

fn path_at(text: &str, end: usize) -> Vec<Step> {
    open_frames(text, end)
        .into_iter()
        .filter_map(|frame| match frame {
            Frame::Object { key, .. } => key.map(Step::Key),
            Frame::Array { index } => Some(Step::Index(index)),
        })
        .collect()
}

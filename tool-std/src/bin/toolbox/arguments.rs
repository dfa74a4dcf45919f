//! The arguments of `toolbox call` and `toolbox policy explain`: a JSON object given on the
//! command line, read from stdin (`-`) or from a file (`@FILE`), checked before anything
//! starts. A call's arguments that are not a JSON object are the command line's fault, so
//! they end with a usage error (exit 2) naming where the JSON went wrong; arguments that are
//! an object the tool does not accept go to the tool, which answers as the model would read.

use std::io::Read as _;

use serde_json::Value;

use crate::Failure;

/// The arguments `given` stands for, as JSON text: itself, stdin's text for `-`, a file's for
/// `@FILE`; blank means no arguments (`{}`).
pub(crate) fn read(given: &str) -> Result<String, Failure> {
    let (text, from) = if given == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|error| {
                Failure::usage(format!("cannot read the arguments from stdin: {error}"))
            })?;
        (text, "stdin".to_owned())
    } else if let Some(path) = given.strip_prefix('@') {
        let text = std::fs::read_to_string(path).map_err(|error| {
            Failure::usage(format!("cannot read the arguments from `{path}`: {error}"))
        })?;
        (text, format!("`{path}`"))
    } else {
        (given.to_owned(), "the command line".to_owned())
    };
    if text.trim().is_empty() {
        return Ok("{}".to_owned());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(_)) => Ok(text),
        Ok(other) => Err(Failure::usage(format!(
            "the arguments from {from} are {}, not a JSON object; give the tool's arguments by name, as in '{{\"path\": \"README.md\"}}'",
            kind(&other)
        ))),
        Err(error) => Err(Failure::usage(format!(
            "the arguments from {from} are not valid JSON: {error}; give a JSON object (in single quotes in a shell, as in '{{\"path\": \"README.md\"}}'), `-` to read it from stdin, or `@FILE` to read it from a file"
        ))),
    }
}

/// What a JSON value is, with its article.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

//! A running tool's question ([`Question`], a form) asked on the terminal, one field at a time,
//! by what each field is: text (length, format), a number or whole number (bounds), yes or no,
//! one choice or several (by number or by value). A default is shown and taken with Enter;
//! Enter skips an optional field; an answer that does not fit is asked again with the reason.
//! The user can decline or cancel: Enter on a required field offers both, the review at the end
//! offers both, and Ctrl-D (the terminal closing) cancels.
//!
//! Everything shown comes from the tool, often a server we do not control, so it reaches the
//! terminal through [`printable`]: control characters (an escape sequence could clear the
//! screen, move the cursor or retitle the window, and so fake a prompt) and bidirectional
//! overrides are shown escaped, never written raw.

use std::io::{BufRead, Write};

use serde_json::{Map, Value};
use tool_core::approval::{Answer, Question};

/// How the user left the form, when not by answering it.
enum Left {
    Decline,
    Cancel,
}

/// Asks `question` from the tool `tool`, reading `input` and writing to `out`.
pub fn ask(
    tool: &str,
    question: &Question,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Answer {
    let _ = writeln!(
        out,
        "\n`{}` asks: {}",
        printable(tool, false),
        printable(question.message(), true)
    );
    let _ = writeln!(
        out,
        "(Enter takes the default or skips an optional field; Enter on a required field offers to decline or cancel; Ctrl-D cancels.)"
    );
    loop {
        let content = match fill(question, input, out) {
            Ok(content) => content,
            Err(Left::Decline) => return Answer::Decline,
            Err(Left::Cancel) => return Answer::Cancel,
        };
        // Each field was checked as it was given; the whole form, required fields included,
        // is checked once more as the final word.
        if let Err(problem) = question.check(&content) {
            let _ = writeln!(
                out,
                "The answers do not fit the question: {problem}. Once more:"
            );
            continue;
        }
        let shown = Value::Object(content.clone()).to_string();
        let shown = printable(&shown, false);
        match choose(
            input,
            out,
            &format!("Send {shown}? [y]es, [e]dit, [d]ecline, [c]ancel: "),
            &["y", "e", "d", "c"],
        ) {
            Some("y") => return Answer::Accept(content),
            Some("e") => {}
            Some("d") => return Answer::Decline,
            _ => return Answer::Cancel,
        }
    }
}

/// One pass over the form's fields.
fn fill(
    question: &Question,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<Map<String, Value>, Left> {
    let schema = question.schema();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut content = Map::new();
    let empty = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&empty);
    for (name, field) in properties {
        let required = required.contains(&name.as_str());
        if let Some(value) = field_answer(question, name, field, required, input, out)? {
            content.insert(name.clone(), value);
        }
    }
    Ok(content)
}

/// Asks one field until its answer fits; `None` for an optional field left empty.
fn field_answer(
    question: &Question,
    name: &str,
    field: &Value,
    required: bool,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<Option<Value>, Left> {
    let label = printable(field["title"].as_str().unwrap_or(name), false);
    let _ = writeln!(out);
    if let Some(description) = field["description"].as_str() {
        let _ = writeln!(out, "  {}", printable(description, true));
    }
    let choices = choices(field);
    for (index, (value, title)) in choices.iter().enumerate() {
        match title {
            Some(title) if title != value => {
                let _ = writeln!(
                    out,
                    "    {}) {} ({})",
                    index + 1,
                    printable(title, false),
                    printable(value, false)
                );
            }
            _ => {
                let _ = writeln!(out, "    {}) {}", index + 1, printable(value, false));
            }
        }
    }
    let default = field.get("default");
    let mut hints = vec![kind_hint(field)];
    if !required {
        hints.push("optional".to_owned());
    }
    if let Some(default) = default {
        hints.push(format!("default {}", printable(&shown(default), false)));
    }
    let prompt = format!("  {label} ({}): ", hints.join(", "));
    loop {
        let _ = write!(out, "{prompt}");
        let _ = out.flush();
        let line = read_line(input, out).ok_or(Left::Cancel)?;
        let typed = line.trim();
        if typed.is_empty() {
            if let Some(default) = default {
                return Ok(Some(default.clone()));
            }
            if !required {
                return Ok(None);
            }
            match choose(
                input,
                out,
                &format!(
                    "  `{label}` is required: [a]nswer it, [d]ecline the question, [c]ancel it: "
                ),
                &["a", "d", "c"],
            ) {
                Some("a") => continue,
                Some("d") => return Err(Left::Decline),
                _ => return Err(Left::Cancel),
            }
        }
        // Free text is taken as typed, spaces and all; a number, a y/n or a choice without
        // the spaces around it.
        let free_text = field["type"] == "string" && choices.is_empty();
        let given = if free_text {
            line.trim_end_matches(['\r', '\n'])
        } else {
            typed
        };
        match parse(field, &choices, given).and_then(|value| fits(question, name, field, value)) {
            Ok(value) => return Ok(Some(value)),
            Err(reason) => {
                let _ = writeln!(out, "  {reason}; try again.");
            }
        }
    }
}

/// The field's choices, each a value and maybe a title: `enum` (with the legacy `enumNames`),
/// `oneOf` of `{const, title}`, or an array's `items` of either.
fn choices(field: &Value) -> Vec<(String, Option<String>)> {
    let source = if field["type"] == "array" {
        &field["items"]
    } else {
        field
    };
    if let Some(values) = source["enum"].as_array() {
        let titles = source["enumNames"].as_array();
        return values
            .iter()
            .enumerate()
            .filter_map(|(index, value)| {
                let title = titles
                    .and_then(|titles| titles.get(index))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                Some((value.as_str()?.to_owned(), title))
            })
            .collect();
    }
    source
        .get("oneOf")
        .or_else(|| source.get("anyOf"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|choice| {
            let value = choice["const"].as_str()?.to_owned();
            Some((value, choice["title"].as_str().map(str::to_owned)))
        })
        .collect()
}

/// What the field takes, in words.
fn kind_hint(field: &Value) -> String {
    let range =
        |low: &str, high: &str, unit: &str| match (field[low].as_f64(), field[high].as_f64()) {
            (Some(low), Some(high)) => format!(" {low}-{high}{unit}"),
            (Some(low), None) => format!(" at least {low}{unit}"),
            (None, Some(high)) => format!(" at most {high}{unit}"),
            (None, None) => String::new(),
        };
    match field["type"].as_str().unwrap_or("") {
        "boolean" => "y/n".to_owned(),
        "integer" => format!("whole number{}", range("minimum", "maximum", "")),
        "number" => format!("number{}", range("minimum", "maximum", "")),
        "array" => format!(
            "numbers or values, comma-separated{}",
            range("minItems", "maxItems", " choices")
        ),
        _ if !choices(field).is_empty() => "a number or a value".to_owned(),
        _ => {
            let mut hint = format!("text{}", range("minLength", "maxLength", " characters"));
            if let Some(format) = field["format"].as_str() {
                hint.push_str(&format!(", {}", format_hint(format)));
            }
            hint
        }
    }
}

fn format_hint(format: &str) -> &str {
    match format {
        "email" => "an email address",
        "uri" => "a URI such as https://example.com",
        "date" => "a date YYYY-MM-DD",
        "date-time" => "a date and time YYYY-MM-DDTHH:MM:SSZ",
        other => other,
    }
}

/// A value as the user would type it.
fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Bool(true) => "y".to_owned(),
        Value::Bool(false) => "n".to_owned(),
        Value::Array(items) => items.iter().map(shown).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// What `typed` means for `field`, or why it does not fit.
fn parse(
    field: &Value,
    choices: &[(String, Option<String>)],
    typed: &str,
) -> Result<Value, String> {
    match field["type"].as_str().unwrap_or("") {
        "boolean" => match typed.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(Value::Bool(true)),
            "n" | "no" | "false" => Ok(Value::Bool(false)),
            _ => Err(format!("`{typed}` is not y or n")),
        },
        "integer" => typed
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("`{typed}` is not a whole number")),
        "number" => typed
            .parse()
            .ok()
            .filter(|number: &f64| number.is_finite())
            .map(Value::from)
            .ok_or_else(|| format!("`{typed}` is not a number")),
        "array" => typed
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .map(|part| pick(choices, part))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::from),
        _ if !choices.is_empty() => pick(choices, typed).map(Value::from),
        _ => Ok(Value::from(typed)),
    }
}

/// `value` (what was typed, parsed) if it fits the field: within its bounds, which the
/// question itself checks ([`Question::check_field`]), and of its format, which only a form
/// looks at; else why not, in the terms of the field's hint.
fn fits(question: &Question, name: &str, field: &Value, value: Value) -> Result<Value, String> {
    if question.check_field(name, &value).is_err() {
        return Err(match &value {
            Value::Number(number) => {
                format!(
                    "{} is outside {}",
                    number.as_f64().unwrap_or_default(),
                    kind_hint(field)
                )
            }
            Value::Array(items) => format!("{} choices is not {}", items.len(), kind_hint(field)),
            other => format!(
                "{} characters is not {}",
                other.as_str().unwrap_or_default().chars().count(),
                kind_hint(field)
            ),
        });
    }
    if let (Some(format), Some(text)) = (field["format"].as_str(), value.as_str())
        && !fits_format(format, text)
    {
        return Err(format!("`{text}` is not {}", format_hint(format)));
    }
    Ok(value)
}

/// The choice `typed` names: by its number in the list, its value, or its title.
fn pick(choices: &[(String, Option<String>)], typed: &str) -> Result<String, String> {
    if let Ok(number) = typed.parse::<usize>()
        && let Some((value, _)) = number.checked_sub(1).and_then(|index| choices.get(index))
    {
        return Ok(value.clone());
    }
    choices
        .iter()
        .find(|(value, title)| {
            value == typed
                || title
                    .as_deref()
                    .is_some_and(|title| title.eq_ignore_ascii_case(typed))
        })
        .map(|(value, _)| value.clone())
        .ok_or_else(|| format!("`{typed}` is not one of the choices 1-{}", choices.len()))
}

/// A light check of MCP's string formats: enough to catch a slip, not a validator.
fn fits_format(format: &str, text: &str) -> bool {
    let date = |text: &str| {
        let parts: Vec<&str> = text.split('-').collect();
        matches!(parts.as_slice(), [year, month, day]
            if year.len() == 4 && month.len() == 2 && day.len() == 2
                && parts.iter().all(|part| part.bytes().all(|byte| byte.is_ascii_digit()))
                && (1..=12).contains(&month.parse::<u8>().unwrap_or(0))
                && (1..=31).contains(&day.parse::<u8>().unwrap_or(0)))
    };
    match format {
        "email" => text.split_once('@').is_some_and(|(user, host)| {
            !user.is_empty() && host.contains('.') && !text.contains(' ')
        }),
        "uri" => url::Url::parse(text).is_ok(),
        "date" => date(text),
        "date-time" => text
            .split_once(['T', 't'])
            .is_some_and(|(day, time)| date(day) && time.len() >= 8 && time.as_bytes()[2] == b':'),
        _ => true,
    }
}

/// `text` as it may reach the terminal: a control character (other than a newline or a tab,
/// when `newlines`) or a bidirectional override written as its escape (`\u{1b}`), so a
/// server's or a model's text cannot send the terminal an escape sequence or reorder what is
/// shown.
pub fn printable(text: &str, newlines: bool) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && !(newlines && matches!(c, '\n' | '\t')))
            || matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            shown.extend(c.escape_unicode());
        } else {
            shown.push(c);
        }
    }
    std::borrow::Cow::Owned(shown)
}

/// One of `answers`, asked until typed; `None` when the terminal closed.
fn choose(
    input: &mut impl BufRead,
    out: &mut impl Write,
    prompt: &str,
    answers: &[&'static str],
) -> Option<&'static str> {
    loop {
        let _ = write!(out, "{prompt}");
        let _ = out.flush();
        let line = read_line(input, out)?;
        let typed = line.trim().to_ascii_lowercase();
        if let Some(answer) = answers.iter().find(|answer| {
            typed
                .chars()
                .next()
                .is_some_and(|first| answer.starts_with(first))
        }) {
            return Some(answer);
        }
        let _ = writeln!(
            out,
            "`{}` is not one of the answers: type {}.",
            line.trim(),
            answers.join(", ")
        );
    }
}

/// A line, or `None` at the end of input (Ctrl-D) or on a read error. A line that is not
/// UTF-8 (a terminal set to another encoding) is asked for again, saying why.
fn read_line(input: &mut impl BufRead, out: &mut impl Write) -> Option<String> {
    loop {
        let mut bytes = Vec::new();
        match input.read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => return None,
            Ok(_) => match String::from_utf8(bytes) {
                Ok(line) => return Some(line),
                Err(_) => {
                    let _ = write!(
                        out,
                        "  that line is not UTF-8 text (is the terminal set to another encoding?); type it again: "
                    );
                    let _ = out.flush();
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answered(schema: Value, typed: &str) -> (Answer, String) {
        let question = Question::new("Tell me", schema).unwrap();
        let mut out = Vec::new();
        let answer = ask("t", &question, &mut typed.as_bytes(), &mut out);
        (answer, String::from_utf8(out).unwrap())
    }

    #[test]
    fn every_kind_of_field_is_asked_and_read() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "minLength": 2},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "ratio": {"type": "number"},
            "ok": {"type": "boolean"},
            "color": {"type": "string", "enum": ["red", "blue"], "enumNames": ["Red", "Blue"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "maxItems": 2}
        }, "required": ["name"]});
        let (answer, shown) = answered(schema, "Ada\n42\n0.5\ny\n2\nlarge\n1, c\ny\n");
        let expected = json!({"name": "Ada", "age": 42, "ratio": 0.5, "ok": true,
            "color": "blue", "size": "l", "tags": ["a", "c"]});
        assert_eq!(
            answer,
            Answer::Accept(expected.as_object().unwrap().clone()),
            "{shown}"
        );
        assert!(shown.contains("2) Blue (blue)"), "{shown}");
        assert!(
            shown.contains("age (whole number 0-150, optional)"),
            "{shown}"
        );
    }

    #[test]
    fn free_text_keeps_its_spaces_and_a_line_that_is_not_utf8_is_asked_again() {
        let schema = json!({"type": "object", "properties": {
            "motto": {"type": "string"},
            "count": {"type": "integer"}
        }, "required": ["motto"]});
        let question = Question::new("Tell me", schema).unwrap();
        let typed: &[u8] = b"\xff\xfe\n  two spaces  \n 7 \ny\n";
        let mut out = Vec::new();
        let answer = ask("t", &question, &mut &typed[..], &mut out);
        let shown = String::from_utf8(out).unwrap();
        let expected = json!({"motto": "  two spaces  ", "count": 7});
        assert_eq!(
            answer,
            Answer::Accept(expected.as_object().unwrap().clone()),
            "{shown}"
        );
        assert!(shown.contains("not UTF-8 text"), "{shown}");
    }

    #[test]
    fn an_answer_that_does_not_fit_is_asked_again_with_the_reason() {
        let schema = json!({"type": "object", "properties": {
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "email": {"type": "string", "format": "email"}
        }});
        let (answer, shown) = answered(schema, "old\n200\n7\nnope\na@b.org\ny\n");
        assert_eq!(
            answer,
            Answer::Accept(
                json!({"age": 7, "email": "a@b.org"})
                    .as_object()
                    .unwrap()
                    .clone()
            )
        );
        assert!(
            shown.contains("`old` is not a whole number; try again."),
            "{shown}"
        );
        assert!(
            shown.contains("200 is outside whole number 0-150; try again."),
            "{shown}"
        );
        assert!(
            shown.contains("`nope` is not an email address; try again."),
            "{shown}"
        );
    }

    #[test]
    fn enter_takes_the_default_and_skips_an_optional_field() {
        let schema = json!({"type": "object", "properties": {
            "copies": {"type": "integer", "default": 1},
            "note": {"type": "string"}
        }});
        let (answer, shown) = answered(schema, "\n\ny\n");
        assert_eq!(
            answer,
            Answer::Accept(json!({"copies": 1}).as_object().unwrap().clone())
        );
        assert!(shown.contains("default 1"), "{shown}");
    }

    #[test]
    fn enter_on_a_required_field_offers_decline_and_cancel() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
        assert_eq!(answered(schema.clone(), "\nd\n").0, Answer::Decline);
        assert_eq!(answered(schema.clone(), "\nc\n").0, Answer::Cancel);
        let (answer, _) = answered(schema, "\na\nAda\ny\n");
        assert_eq!(
            answer,
            Answer::Accept(json!({"name": "Ada"}).as_object().unwrap().clone())
        );
    }

    #[test]
    fn the_terminal_closing_cancels() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        assert_eq!(answered(schema, "").0, Answer::Cancel);
    }

    #[test]
    fn the_review_can_decline_or_start_over() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        assert_eq!(answered(schema.clone(), "Ada\nd\n").0, Answer::Decline);
        let (answer, _) = answered(schema, "Ada\ne\nBob\ny\n");
        assert_eq!(
            answer,
            Answer::Accept(json!({"name": "Bob"}).as_object().unwrap().clone())
        );
    }

    #[test]
    fn a_servers_escape_sequences_are_shown_escaped_not_sent_to_the_terminal() {
        let schema = json!({"type": "object", "properties": {
            "pick": {
                "type": "string",
                "title": "Pick\u{1b}[2J",
                "description": "Say\u{1b}]0;owned\u{7} it\nplease \u{202e}kcip",
                "enum": ["a\u{1b}[1A", "b"],
                "enumNames": ["A\u{9b}31m", "B"],
                "default": "a\u{1b}[1A"
            }
        }});
        let question = Question::new("Tell me\u{1b}[H\u{1b}[J\nreally", schema).unwrap();
        let mut out = Vec::new();
        let answer = ask("t\u{1b}[31m", &question, &mut "1\ny\n".as_bytes(), &mut out);
        let shown = String::from_utf8(out).unwrap();
        for raw in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
            assert!(
                !shown.contains(raw),
                "{raw:?} reached the terminal: {shown:?}"
            );
        }
        assert!(shown.contains("Pick\\u{1b}[2J"), "{shown}");
        // A message's and a description's own lines stay lines.
        assert!(
            shown.contains("Tell me\\u{1b}[H\\u{1b}[J\nreally"),
            "{shown}"
        );
        assert!(shown.contains(" it\nplease \\u{202e}kcip"), "{shown}");
        assert!(matches!(answer, Answer::Accept(_)), "{shown}");
    }
}

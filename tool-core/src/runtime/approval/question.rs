//! A running tool's own requests to the other side of its call: a question to the user, as a
//! form ([`Question`]: a message and the schema of the answer, a flat object of string,
//! number, boolean and choice fields, as MCP's elicitation allows) answered with an
//! [`Answer`] (accepted with content, declined, or cancelled); a message from the client's
//! model ([`SamplingRequest`], answered with [`Sampled`]); and the client's roots ([`Root`]).
//! Why a request could not be made: [`SchemaError`] for a malformed form, [`Unanswered`]
//! when nobody could answer.
//!
//! A tool asks through its [`Session`](crate::coordinator::Session) (`elicit`, `sample`,
//! `roots`); the call's approver, which speaks for the call's client, answers
//! ([`Approver::elicit`](crate::approval::Approver::elicit), `sample`, `list_roots`). These
//! types are reached through [`approval`](crate::approval).
//!
//! The schema is checked when the question is made, so a tool learns of a form no client
//! could show before anyone is asked; the answer is checked against it when it comes back,
//! so a tool reads only content of the shape it asked for.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// Key of the policy's approval question in an MCP `input_required` round trip: a tool's own
/// question may not use it.
pub(crate) const RESERVED_KEY: &str = "approval";

/// A form a running tool puts to the user: what to tell them, and the schema of the answer.
///
/// The schema is a JSON Schema object whose `properties` are each one of:
/// - a string (`title`, `description`, `minLength`, `maxLength`, `format`: `email`, `uri`,
///   `date` or `date-time`, `default`);
/// - a single choice: a string with `enum` (and optionally the legacy `enumNames`, one title
///   per value) or with `oneOf` of `{"const": value, "title": text}`;
/// - a number or integer (`minimum`, `maximum`, `default`);
/// - a boolean (`default`);
/// - a multiple choice: an array whose `items` are a string `enum` or an `anyOf` of
///   `{"const", "title"}` (`minItems`, `maxItems`, `default`);
///
/// and `required` names some of them. Nested objects, references and other keywords are not
/// part of what a client can show, and are refused.
///
/// ```
/// use serde_json::json;
/// use tool_core::approval::Question;
///
/// let question = Question::new(
///     "Where should the report go?",
///     json!({
///         "type": "object",
///         "properties": {
///             "email": {"type": "string", "format": "email"},
///             "copies": {"type": "integer", "minimum": 1, "default": 1}
///         },
///         "required": ["email"]
///     }),
/// )
/// .unwrap()
/// .with_key("report_target")
/// .unwrap();
/// assert_eq!(question.key(), Some("report_target"));
///
/// // A form no client can show is refused, saying why.
/// let error = Question::new("Pick", json!({"type": "object", "properties": {"x": {"type": "object"}}}))
///     .unwrap_err();
/// assert!(error.to_string().contains("`x`"), "{error}");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    message: String,
    schema: Value,
    key: Option<String>,
}

/// Why a form cannot be asked: the schema is not one MCP's elicitation allows, or the key is
/// not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The schema as a whole is wrong (not an object schema, an unknown keyword, a bad
    /// `required`).
    #[error(
        "the question's schema {problem}; expected {{\"type\": \"object\", \"properties\": {{...}}, \"required\": [...]}} with string, number, integer, boolean or choice fields"
    )]
    Schema {
        /// What is wrong.
        problem: String,
    },
    /// One field is wrong.
    #[error("the question's field `{field}` {problem}")]
    Field {
        /// The property's name.
        field: String,
        /// What is wrong, and what would be right.
        problem: String,
    },
    /// The key is empty, the one the MCP server keeps for the policy's approval question, or
    /// shaped like a key the server gives a request without one (`question-2`).
    #[error(
        "the question's key `{key}` cannot be used: a key is a non-empty name other than `approval` (kept for the policy's approval question) and not shaped like the keys given to requests without one (`question-N`, `sampling-N`, `roots-N`); choose a name of your own, such as `report_target`"
    )]
    Key {
        /// The key given.
        key: String,
    },
}

/// The user's answer to a [`Question`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// The user filled in the form: the content, checked against the question's schema.
    Accept(Map<String, Value>),
    /// The user said no.
    Decline,
    /// The user dismissed the question without answering.
    Cancel,
}

pub use crate::definition::unanswered::{Unanswered, UnansweredKind};

/// A malformed form is the tool's own failure: `?` on [`Question::new`] in a tool reports it.
impl From<SchemaError> for crate::ToolError {
    fn from(error: SchemaError) -> Self {
        crate::ToolError::from_error(error)
    }
}

/// A question as the approver gets it: which call asks, and what.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct QuestionRequest {
    /// The call's id.
    pub call_id: String,
    /// The tool that asks.
    pub tool: Cow<'static, str>,
    /// What it asks.
    pub question: Question,
}

impl QuestionRequest {
    /// The request of `question`, asked by call `call_id` of `tool`.
    pub fn new(
        call_id: impl Into<String>,
        tool: impl Into<Cow<'static, str>>,
        question: Question,
    ) -> Self {
        QuestionRequest {
            call_id: call_id.into(),
            tool: tool.into(),
            question,
        }
    }
}

/// A request for a message from the client's model (MCP's sampling): the conversation so far,
/// and how long the answer may be.
///
/// ```
/// use tool_core::approval::SamplingRequest;
///
/// let request = SamplingRequest::new("What is the capital of France?", 100)
///     .with_system_prompt("Answer in one word.")
///     .with_key("capital_question")
///     .unwrap();
/// assert_eq!(request.messages().len(), 1);
/// assert_eq!(request.max_tokens(), 100);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    messages: Vec<(Speaker, String)>,
    max_tokens: u32,
    system_prompt: Option<String>,
    key: Option<String>,
}

/// Who said a message of a [`SamplingRequest`]'s conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Speaker {
    /// The user (the tool, speaking for it).
    User,
    /// The model.
    Assistant,
}

impl SamplingRequest {
    /// A conversation of one user message, `prompt`; the answer at most `max_tokens` long.
    pub fn new(prompt: impl Into<String>, max_tokens: u32) -> Self {
        SamplingRequest {
            messages: vec![(Speaker::User, prompt.into())],
            max_tokens,
            system_prompt: None,
            key: None,
        }
    }

    /// A request of `messages` as they are (the first may be the model's, as in a
    /// conversation passed on from an MCP server), not empty.
    #[cfg(feature = "mcp")]
    pub(crate) fn from_conversation(messages: Vec<(Speaker, String)>, max_tokens: u32) -> Self {
        SamplingRequest {
            messages,
            max_tokens,
            system_prompt: None,
            key: None,
        }
    }

    /// One more message of the conversation.
    #[must_use]
    pub fn with_message(mut self, speaker: Speaker, text: impl Into<String>) -> Self {
        self.messages.push((speaker, text.into()));
        self
    }

    /// The system prompt the client's model is asked to use.
    #[must_use]
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Names the request, as [`Question::with_key`] names a question.
    ///
    /// # Errors
    /// [`SchemaError::Key`] for an empty key, `approval`, or a key shaped like a generated
    /// one (`question-N`, `sampling-N`, `roots-N`).
    pub fn with_key(mut self, key: impl Into<String>) -> Result<Self, SchemaError> {
        self.key = Some(checked_key(key.into())?);
        Ok(self)
    }

    /// The conversation, in order.
    #[must_use]
    pub fn messages(&self) -> &[(Speaker, String)] {
        &self.messages
    }

    /// How long the answer may be, in tokens.
    #[must_use]
    pub fn max_tokens(&self) -> u32 {
        self.max_tokens
    }

    /// The system prompt, if any.
    #[must_use]
    pub fn system_prompt(&self) -> Option<&str> {
        self.system_prompt.as_deref()
    }

    /// The key given with [`with_key`](Self::with_key).
    #[must_use]
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }
}

/// The client model's message, answering a [`SamplingRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Sampled {
    /// The message's text (its text parts, joined by newlines).
    pub text: String,
    /// The model that wrote it, as the client names it.
    pub model: String,
    /// Why it stopped (`endTurn`, `maxTokens`, ...), when the client says.
    pub stop_reason: Option<String>,
}

impl Sampled {
    /// A message `text` from `model`.
    pub fn new(text: impl Into<String>, model: impl Into<String>) -> Self {
        Sampled {
            text: text.into(),
            model: model.into(),
            stop_reason: None,
        }
    }
}

/// One of the client's roots: a directory or resource the user has opened to the server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Root {
    /// Its URI (`file:///home/me/project`).
    pub uri: String,
    /// Its name, if the client gives one.
    pub name: Option<String>,
}

impl Root {
    /// The root at `uri`.
    pub fn new(uri: impl Into<String>, name: Option<String>) -> Self {
        Root {
            uri: uri.into(),
            name,
        }
    }

    /// The directory `path` (absolute) as a root: its `file://` URI, named by its last
    /// component. What a workspace's roots are to an MCP peer that asks for them.
    ///
    /// ```
    /// use std::path::Path;
    /// use tool_core::approval::Root;
    ///
    /// let root = Root::directory(Path::new("/home/me/my project"));
    /// assert_eq!(root.uri, "file:///home/me/my%20project/");
    /// assert_eq!(root.name.as_deref(), Some("my project"));
    /// ```
    #[must_use]
    pub fn directory(path: &std::path::Path) -> Self {
        let uri = url::Url::from_directory_path(path)
            .map_or_else(|()| format!("file://{}", path.display()), String::from);
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned());
        Root::new(uri, name)
    }
}

/// The prefixes of the keys given to requests made without one (`question-1`, `sampling-2`,
/// `roots-3`): a key of that shape, given by a tool, could be the one generated for another
/// of its requests, and two requests would share an answer.
const GENERATED_PREFIXES: [&str; 3] = ["question", "sampling", "roots"];

fn checked_key(key: String) -> Result<String, SchemaError> {
    let generated = key.split_once('-').is_some_and(|(prefix, number)| {
        GENERATED_PREFIXES.contains(&prefix)
            && !number.is_empty()
            && number.bytes().all(|byte| byte.is_ascii_digit())
    });
    if key.trim().is_empty() || key == RESERVED_KEY || generated {
        return Err(SchemaError::Key { key });
    }
    Ok(key)
}

impl Question {
    /// A form: `message` tells the user what is asked, `schema` is what the answer holds.
    ///
    /// # Errors
    /// [`SchemaError`] naming the field and what is wrong with it, when `schema` is not a form
    /// MCP's elicitation allows (see the type's doc).
    pub fn new(message: impl Into<String>, schema: Value) -> Result<Self, SchemaError> {
        check_schema(&schema)?;
        Ok(Question {
            message: message.into(),
            schema,
            key: None,
        })
    }

    /// Names the question: the key of its answer when it travels in an MCP `input_required`
    /// round trip. Without a key it is named by its order among the call's requests to the
    /// client (`question-1`, then `sampling-2`, `roots-3`, ...), which is stable as long as
    /// the tool asks in the same order each time it runs.
    ///
    /// Each request of a call needs a key of its own: over the MCP round trip, a second
    /// request under a key already used in the same run is the tool's error.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::approval::Question;
    ///
    /// let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
    /// let question = Question::new("Go?", schema).unwrap();
    /// assert!(question.clone().with_key("go_ahead").is_ok());
    /// // Shaped like the key the question would be given without one: refused.
    /// assert!(question.with_key("question-2").is_err());
    /// ```
    ///
    /// # Errors
    /// [`SchemaError::Key`] for an empty key, `approval`, or a key shaped like a generated
    /// one (`question-N`, `sampling-N`, `roots-N`).
    pub fn with_key(mut self, key: impl Into<String>) -> Result<Self, SchemaError> {
        self.key = Some(checked_key(key.into())?);
        Ok(self)
    }

    /// What the user is told.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The schema of the answer, as given (checked).
    #[must_use]
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The key given with [`with_key`](Self::with_key).
    #[must_use]
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// Checks accepted content against the schema: only declared fields, each of its type and
    /// within its choices and bounds, every required field present.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::approval::Question;
    ///
    /// let question = Question::new("Name?", json!({
    ///     "type": "object",
    ///     "properties": {"name": {"type": "string"}},
    ///     "required": ["name"]
    /// })).unwrap();
    /// assert!(question.check(json!({"name": "Ada"}).as_object().unwrap()).is_ok());
    /// let error = question.check(json!({"name": 7}).as_object().unwrap()).unwrap_err();
    /// assert!(error.contains("`name`"), "{error}");
    /// ```
    ///
    /// # Errors
    /// What is wrong with the content, for the model or the client to read.
    pub fn check(&self, content: &Map<String, Value>) -> Result<(), String> {
        for (name, value) in content {
            self.check_field(name, value)?;
        }
        for required in self.schema["required"].as_array().into_iter().flatten() {
            if let Some(required) = required.as_str()
                && !content.contains_key(required)
            {
                return Err(format!("the answer lacks the required field `{required}`"));
            }
        }
        Ok(())
    }

    /// Checks one field's answer against the schema: a field the question asks, of its type
    /// and within its choices and bounds. [`check`](Self::check) checks each field so, and a
    /// form filled field by field (a terminal's) can check each answer as it is given.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_core::approval::Question;
    ///
    /// let question = Question::new("Age?", json!({
    ///     "type": "object",
    ///     "properties": {"age": {"type": "integer", "minimum": 0, "maximum": 150}}
    /// })).unwrap();
    /// assert!(question.check_field("age", &json!(42)).is_ok());
    /// assert!(question.check_field("age", &json!(200)).is_err());
    /// assert!(question.check_field("name", &json!("Ada")).is_err());
    /// ```
    ///
    /// # Errors
    /// What is wrong with the value, for the model or the client to read.
    pub fn check_field(&self, name: &str, value: &Value) -> Result<(), String> {
        let empty = Map::new();
        let properties = self.schema["properties"].as_object().unwrap_or(&empty);
        let Some(field) = properties.get(name) else {
            return Err(format!(
                "the answer has a field `{name}` the question did not ask for (asked: {})",
                names(properties)
            ));
        };
        check_value(name, field, value)
    }
}

fn names(properties: &Map<String, Value>) -> String {
    if properties.is_empty() {
        return "no fields".to_owned();
    }
    properties
        .keys()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn schema_error(problem: impl Into<String>) -> SchemaError {
    SchemaError::Schema {
        problem: problem.into(),
    }
}

fn field_error(field: &str, problem: impl Into<String>) -> SchemaError {
    SchemaError::Field {
        field: field.to_owned(),
        problem: problem.into(),
    }
}

/// The schema is a form MCP's elicitation allows.
fn check_schema(schema: &Value) -> Result<(), SchemaError> {
    let Some(object) = schema.as_object() else {
        return Err(schema_error(format!("is {schema}, not a JSON object")));
    };
    for key in object.keys() {
        if !matches!(
            key.as_str(),
            "$schema" | "type" | "title" | "description" | "properties" | "required"
        ) {
            return Err(schema_error(format!(
                "has the keyword `{key}`, which a form cannot have"
            )));
        }
    }
    if object.get("type").and_then(Value::as_str) != Some("object") {
        return Err(schema_error("is not of \"type\": \"object\""));
    }
    let Some(properties) = object.get("properties").and_then(Value::as_object) else {
        return Err(schema_error("has no \"properties\" object"));
    };
    for (name, field) in properties {
        check_field(name, field)?;
    }
    if let Some(required) = object.get("required") {
        let Some(required) = required.as_array() else {
            return Err(schema_error(
                "has a \"required\" that is not an array of names",
            ));
        };
        for name in required {
            match name.as_str() {
                Some(name) if properties.contains_key(name) => {}
                Some(name) => {
                    return Err(schema_error(format!(
                        "requires `{name}`, which is not among its properties ({})",
                        names(properties)
                    )));
                }
                None => {
                    return Err(schema_error(format!(
                        "has {name} in \"required\", which is not a property name"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The keywords each field type may have.
fn allowed_keywords(kind: &str) -> &'static [&'static str] {
    match kind {
        "string" => &[
            "type",
            "title",
            "description",
            "minLength",
            "maxLength",
            "format",
            "default",
            "enum",
            "enumNames",
            "oneOf",
        ],
        "number" | "integer" => &[
            "type",
            "title",
            "description",
            "minimum",
            "maximum",
            "default",
        ],
        "boolean" => &["type", "title", "description", "default"],
        "array" => &[
            "type",
            "title",
            "description",
            "minItems",
            "maxItems",
            "items",
            "default",
        ],
        _ => &[],
    }
}

fn check_field(name: &str, field: &Value) -> Result<(), SchemaError> {
    let Some(object) = field.as_object() else {
        return Err(field_error(
            name,
            format!("is {field}, not a schema object"),
        ));
    };
    let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
    let allowed = allowed_keywords(kind);
    if allowed.is_empty() {
        return Err(field_error(
            name,
            format!(
                "has type {}; a form field is a string, number, integer, boolean or array of choices",
                object
                    .get("type")
                    .map_or_else(|| "none".to_owned(), Value::to_string)
            ),
        ));
    }
    if let Some(key) = object.keys().find(|key| !allowed.contains(&key.as_str())) {
        return Err(field_error(
            name,
            format!(
                "has the keyword `{key}`, which a {kind} field cannot have (allowed: {})",
                allowed.join(", ")
            ),
        ));
    }
    for key in ["title", "description"] {
        if object.get(key).is_some_and(|v| !v.is_string()) {
            return Err(field_error(name, format!("has a `{key}` that is not text")));
        }
    }
    match kind {
        "string" => check_string_field(name, object),
        "array" => check_array_field(name, object),
        _ => {
            for key in ["minimum", "maximum"] {
                match object.get(key) {
                    Some(bound) if !bound.is_number() => {
                        return Err(field_error(
                            name,
                            format!("has a `{key}` that is not a number"),
                        ));
                    }
                    // MCP's integer bounds are 64-bit whole numbers: a client would refuse
                    // a fractional one, or read another bound than the one meant.
                    Some(bound) if kind == "integer" && !bound.is_i64() => {
                        return Err(field_error(
                            name,
                            format!(
                                "is an integer field with the `{key}` {bound}; an integer field's bounds are whole numbers (such as {}), or make it a \"number\" field",
                                bound.as_f64().unwrap_or_default().round()
                            ),
                        ));
                    }
                    _ => {}
                }
            }
            Ok(())
        }
    }?;
    if let Some(default) = object.get("default") {
        check_value(name, field, default).map_err(|problem| {
            field_error(
                name,
                format!("has a default that does not fit it: {problem}"),
            )
        })?;
    }
    Ok(())
}

/// The values of an `enum` (strings) or of a `oneOf`/`anyOf` of `{"const", "title"}`.
fn choices(name: &str, list: &Value, titled: bool) -> Result<Vec<String>, SchemaError> {
    let Some(list) = list.as_array().filter(|list| !list.is_empty()) else {
        return Err(field_error(
            name,
            "has an empty or non-array list of choices",
        ));
    };
    list.iter()
        .map(|choice| {
            let value = if titled {
                let title = choice.get("title").and_then(Value::as_str);
                match (choice.get("const").and_then(Value::as_str), title) {
                    (Some(value), Some(_)) if choice.as_object().is_some_and(|c| c.len() == 2) => {
                        Some(value)
                    }
                    _ => None,
                }
            } else {
                choice.as_str()
            };
            value.map(str::to_owned).ok_or_else(|| {
                field_error(
                    name,
                    format!(
                        "has the choice {choice}; expected {}",
                        if titled {
                            "{\"const\": \"value\", \"title\": \"shown text\"}"
                        } else {
                            "a string"
                        }
                    ),
                )
            })
        })
        .collect()
}

fn check_string_field(name: &str, object: &Map<String, Value>) -> Result<(), SchemaError> {
    for key in ["minLength", "maxLength"] {
        // MCP's string lengths are 32-bit: a longer bound would be refused by a client.
        if object
            .get(key)
            .is_some_and(|v| v.as_u64().is_none_or(|n| n > u64::from(u32::MAX)))
        {
            return Err(field_error(
                name,
                format!(
                    "has a `{key}` that is not a whole number from 0 to {}",
                    u32::MAX
                ),
            ));
        }
    }
    // A choice field is MCP's enum schema, which has no length or format: a client would
    // read the field as a choice and drop those keywords without a word.
    let is_choice = object.contains_key("enum") || object.contains_key("oneOf");
    if is_choice
        && let Some(key) = ["minLength", "maxLength", "format"]
            .into_iter()
            .find(|key| object.contains_key(*key))
    {
        return Err(field_error(
            name,
            format!(
                "has `{key}` beside its choices, which a client would drop; remove it (the choices already say what may be answered)"
            ),
        ));
    }
    if object.contains_key("oneOf") && object.contains_key("enumNames") {
        return Err(field_error(
            name,
            "has `enumNames` with `oneOf`; a `oneOf` choice carries its own `title`, so remove `enumNames`",
        ));
    }
    if let Some(format) = object.get("format")
        && !matches!(
            format.as_str(),
            Some("email" | "uri" | "date" | "date-time")
        )
    {
        return Err(field_error(
            name,
            format!("has the format {format}; a form knows email, uri, date and date-time"),
        ));
    }
    match (object.get("enum"), object.get("oneOf")) {
        (Some(_), Some(_)) => Err(field_error(name, "has both `enum` and `oneOf`; give one")),
        (Some(list), None) => {
            let values = choices(name, list, false)?;
            if let Some(titles) = object.get("enumNames") {
                let count = titles
                    .as_array()
                    .filter(|t| t.iter().all(Value::is_string))
                    .map(Vec::len);
                if count != Some(values.len()) {
                    return Err(field_error(
                        name,
                        format!(
                            "has `enumNames` that are not {} strings, one per value of `enum`",
                            values.len()
                        ),
                    ));
                }
            }
            Ok(())
        }
        (None, Some(list)) => choices(name, list, true).map(drop),
        (None, None) if object.contains_key("enumNames") => {
            Err(field_error(name, "has `enumNames` without `enum`"))
        }
        (None, None) => Ok(()),
    }
}

fn check_array_field(name: &str, object: &Map<String, Value>) -> Result<(), SchemaError> {
    for key in ["minItems", "maxItems"] {
        if object.get(key).is_some_and(|v| v.as_u64().is_none()) {
            return Err(field_error(
                name,
                format!("has a `{key}` that is not a whole number"),
            ));
        }
    }
    let items = object.get("items").and_then(Value::as_object);
    let valid = items.is_some_and(|items| match (items.get("enum"), items.get("anyOf")) {
        (Some(list), None) => {
            items.get("type").and_then(Value::as_str) == Some("string")
                && items.keys().all(|k| k == "type" || k == "enum")
                && choices(name, list, false).is_ok()
        }
        (None, Some(list)) => {
            items.keys().all(|k| k == "type" || k == "anyOf")
                && items.get("type").is_none_or(|t| t == "string")
                && choices(name, list, true).is_ok()
        }
        _ => false,
    });
    if !valid {
        return Err(field_error(
            name,
            "is an array whose `items` are not a list of choices; expected {\"type\": \"string\", \"enum\": [...]} or {\"anyOf\": [{\"const\": ..., \"title\": ...}]}",
        ));
    }
    Ok(())
}

/// The string values a choice field allows, if it is one.
fn allowed_values(field: &Value) -> Option<Vec<&str>> {
    let list = field
        .get("enum")
        .or_else(|| field.get("oneOf"))
        .or_else(|| field.get("anyOf"))?;
    Some(
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|choice| choice.as_str().or_else(|| choice["const"].as_str()))
            .collect(),
    )
}

/// `value` fits the (checked) field schema `field`.
fn check_value(name: &str, field: &Value, value: &Value) -> Result<(), String> {
    let kind = field["type"].as_str().unwrap_or("");
    let wrong = |expected: &str| Err(format!("`{name}` should be {expected}, not {value}"));
    match kind {
        "string" => {
            let Some(text) = value.as_str() else {
                return wrong("a string");
            };
            if let Some(allowed) = allowed_values(field)
                && !allowed.contains(&text)
            {
                return wrong(&format!("one of {allowed:?}"));
            }
            let length = text.chars().count() as u64;
            if field["minLength"].as_u64().is_some_and(|min| length < min)
                || field["maxLength"].as_u64().is_some_and(|max| length > max)
            {
                return wrong("a string within the allowed length");
            }
            Ok(())
        }
        "number" | "integer" => {
            let Some(number) = value.as_f64() else {
                return wrong("a number");
            };
            if kind == "integer" && !(value.is_i64() || value.is_u64()) {
                return wrong("a whole number");
            }
            if field["minimum"].as_f64().is_some_and(|min| number < min)
                || field["maximum"].as_f64().is_some_and(|max| number > max)
            {
                return wrong("a number within the allowed range");
            }
            Ok(())
        }
        "boolean" if value.is_boolean() => Ok(()),
        "boolean" => wrong("true or false"),
        "array" => {
            let Some(items) = value.as_array() else {
                return wrong("an array of choices");
            };
            let allowed = allowed_values(&field["items"]).unwrap_or_default();
            if items
                .iter()
                .any(|item| !item.as_str().is_some_and(|item| allowed.contains(&item)))
            {
                return wrong(&format!("an array of values among {allowed:?}"));
            }
            let count = items.len() as u64;
            if field["minItems"].as_u64().is_some_and(|min| count < min)
                || field["maxItems"].as_u64().is_some_and(|max| count > max)
            {
                return wrong("an array with the allowed number of choices");
            }
            Ok(())
        }
        _ => wrong("a value of a known field type"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn form(properties: Value) -> Result<Question, SchemaError> {
        Question::new("asked", json!({"type": "object", "properties": properties}))
    }

    #[test]
    fn every_field_kind_mcp_allows_is_accepted() {
        let question = Question::new(
            "all of them",
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "default": "John Doe", "minLength": 1},
                    "age": {"type": "integer", "default": 30, "minimum": 0},
                    "score": {"type": "number", "default": 95.5},
                    "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
                    "verified": {"type": "boolean", "default": true},
                    "titled": {"type": "string", "oneOf": [{"const": "v1", "title": "First"}]},
                    "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
                    "multi": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}},
                    "titled_multi": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}},
                    "mail": {"type": "string", "format": "email"}
                },
                "required": ["name"]
            }),
        );
        assert!(question.is_ok(), "{question:?}");
    }

    #[test]
    fn a_nested_object_field_is_refused_by_name() {
        let error = form(json!({"address": {"type": "object"}})).unwrap_err();
        assert!(
            matches!(&error, SchemaError::Field { field, .. } if field == "address"),
            "{error}"
        );
    }

    #[test]
    fn a_schema_that_is_not_an_object_form_is_refused() {
        assert!(matches!(
            Question::new("x", json!({"type": "array"})),
            Err(SchemaError::Schema { .. })
        ));
        assert!(matches!(
            Question::new("x", json!({"type": "object", "properties": {}, "$ref": "#/a"})),
            Err(SchemaError::Schema { problem }) if problem.contains("$ref")
        ));
    }

    #[test]
    fn required_must_name_a_property() {
        let error = Question::new(
            "x",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}),
        )
        .unwrap_err();
        assert!(error.to_string().contains("`b`"), "{error}");
    }

    #[test]
    fn a_default_outside_the_choices_is_refused() {
        let error =
            form(json!({"s": {"type": "string", "enum": ["a"], "default": "z"}})).unwrap_err();
        assert!(error.to_string().contains("default"), "{error}");
    }

    #[test]
    fn enum_names_must_match_the_values() {
        assert!(
            form(json!({"s": {"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}})).is_err()
        );
    }

    #[test]
    fn an_unknown_keyword_on_a_field_is_refused() {
        let error = form(json!({"n": {"type": "number", "pattern": "x"}})).unwrap_err();
        assert!(error.to_string().contains("`pattern`"), "{error}");
    }

    #[test]
    fn schemas_mcp_would_refuse_or_change_are_refused_naming_the_field() {
        for (properties, says) in [
            (
                json!({"n": {"type": "integer", "minimum": 1.5}}),
                "whole numbers",
            ),
            (
                json!({"n": {"type": "integer", "maximum": 1e300}}),
                "whole numbers",
            ),
            (
                json!({"s": {"type": "string", "maxLength": 5_000_000_000_u64}}),
                "4294967295",
            ),
            (
                json!({"s": {"type": "string", "enum": ["a"], "minLength": 1}}),
                "`minLength` beside its choices",
            ),
            (
                json!({"s": {"type": "string", "enum": ["a@b.c"], "format": "email"}}),
                "`format` beside its choices",
            ),
            (
                json!({"s": {"type": "string", "oneOf": [{"const": "a", "title": "A"}], "maxLength": 3}}),
                "`maxLength` beside its choices",
            ),
        ] {
            let error = form(properties.clone()).unwrap_err();
            let text = error.to_string();
            assert!(matches!(error, SchemaError::Field { .. }), "{properties}");
            assert!(text.contains(says), "{properties}: {text}");
        }
        // What stays allowed: fractional bounds on a number, whole ones on an integer.
        assert!(form(json!({"n": {"type": "number", "minimum": 0.5}})).is_ok());
        assert!(form(json!({"n": {"type": "integer", "minimum": -3, "maximum": 7}})).is_ok());
    }

    #[test]
    fn the_approval_key_is_reserved() {
        let question = form(json!({})).unwrap();
        assert!(matches!(
            question.clone().with_key("approval"),
            Err(SchemaError::Key { .. })
        ));
        assert!(matches!(
            question.with_key(" "),
            Err(SchemaError::Key { .. })
        ));
    }

    #[test]
    fn a_key_shaped_like_a_generated_one_is_refused() {
        let question = form(json!({})).unwrap();
        for key in ["question-2", "sampling-1", "roots-10"] {
            assert!(
                matches!(question.clone().with_key(key), Err(SchemaError::Key { .. })),
                "{key}"
            );
            assert!(
                SamplingRequest::new("hi", 1).with_key(key).is_err(),
                "{key}"
            );
        }
        // Only the exact shape: a name that merely starts the same way is the tool's own.
        for key in ["question-two", "questions-2", "roots-", "question-2a"] {
            assert!(question.clone().with_key(key).is_ok(), "{key}");
        }
    }

    #[test]
    fn answers_are_checked_against_the_schema() {
        let question = Question::new(
            "x",
            json!({
                "type": "object",
                "properties": {
                    "age": {"type": "integer", "maximum": 150},
                    "pick": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}
                },
                "required": ["age"]
            }),
        )
        .unwrap();
        let check = |content: Value| question.check(content.as_object().unwrap());
        assert!(check(json!({"age": 30, "pick": ["a"]})).is_ok());
        assert!(
            check(json!({"age": 30.5}))
                .unwrap_err()
                .contains("whole number")
        );
        assert!(check(json!({"age": 200})).is_err());
        assert!(
            check(json!({"pick": ["a"]}))
                .unwrap_err()
                .contains("required")
        );
        assert!(check(json!({"age": 1, "pick": ["c"]})).is_err());
        assert!(
            check(json!({"age": 1, "other": 1}))
                .unwrap_err()
                .contains("`other`")
        );
    }
}

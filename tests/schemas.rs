//! Input and output schemas as the model sees them.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use tool_core::{Args, Json, Registry, ToolError, WebUrl, WorkspacePath, tool};

/// Read a text file from the workspace.
///
/// Returns the requested lines.
///
/// # Arguments
/// * `path` - File path, relative to the workspace root.
/// * `offset` - First line to return, 1-based.
/// * `limit` - Maximum number of lines to return;
///   continues on a second line.
#[tool(read_only, name = "schema_read")]
fn read(path: WorkspacePath, offset: Option<u64>, #[arg(default = 200)] limit: u64) -> String {
    format!("{}:{offset:?}:{limit}", path.as_path().display())
}

/// No parameters at all.
#[tool(read_only, name = "schema_nothing")]
fn nothing() -> &'static str {
    "nothing"
}

/// Parameters in an unusual order, renamed and described by attribute.
#[tool(name = "schema_order")]
fn order(
    zeta: bool,
    #[arg(rename = "alpha-value", desc = "Described by attribute.")] alpha: String,
    #[arg(url)] middle: String,
    link: WebUrl,
) -> String {
    format!("{zeta}{alpha}{middle}{link}")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Query {
    /// The text to look for.
    text: String,
    /// At most this many hits.
    limit: Option<u32>,
}

/// Search with a whole-input type.
#[tool(read_only, name = "schema_search")]
fn search(Args(query): Args<Query>) -> String {
    format!("{}:{:?}", query.text, query.limit)
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Stats {
    /// Lines counted.
    lines: u64,
}

/// Structured output.
#[tool(read_only, name = "schema_stats")]
async fn stats() -> Result<Json<Stats>, ToolError> {
    Ok(Json(Stats { lines: 3 }))
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sent {
    kept: u32,
    /// Left out of the answer when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    flag: bool,
    #[serde(rename(serialize = "shownAs", deserialize = "read_as"))]
    renamed: u32,
}

/// Structured output with a field left out when empty.
#[tool(read_only, name = "schema_sent")]
fn sent() -> Json<Sent> {
    Json(Sent {
        kept: 1,
        flag: false,
        renamed: 2,
    })
}

fn schema(name: &str) -> Value {
    Registry::global()
        .get(name)
        .unwrap()
        .input_schema()
        .as_value()
        .clone()
}

#[test]
fn a_tool_without_parameters_has_the_empty_closed_object_schema() {
    assert_eq!(
        schema("schema_nothing"),
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}

#[test]
fn properties_keep_declaration_order() {
    let schema = schema("schema_order");
    let keys: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["zeta", "alpha-value", "middle", "link"]);
}

#[test]
fn descriptions_come_from_the_arguments_section_and_desc() {
    let read = schema("schema_read");
    assert_eq!(
        read["properties"]["path"]["description"],
        "File path, relative to the workspace root."
    );
    assert_eq!(
        read["properties"]["limit"]["description"],
        "Maximum number of lines to return; continues on a second line."
    );
    let order = schema("schema_order");
    assert_eq!(
        order["properties"]["alpha-value"]["description"],
        "Described by attribute."
    );
}

#[test]
fn the_tool_description_is_the_doc_without_the_arguments_section() {
    let spec = Registry::global().get("schema_read").unwrap().spec();
    assert_eq!(
        spec.description,
        "Read a text file from the workspace.\n\nReturns the requested lines."
    );
}

#[test]
fn there_is_no_stray_title_or_meta_schema() {
    for name in [
        "schema_read",
        "schema_order",
        "schema_search",
        "schema_nothing",
    ] {
        let schema = schema(name);
        assert!(schema.get("title").is_none(), "{name}: {schema}");
        assert!(schema.get("$schema").is_none(), "{name}: {schema}");
    }
}

#[test]
fn optional_and_defaulted_arguments_are_not_required() {
    let schema = schema("schema_read");
    assert_eq!(schema["required"], json!(["path"]));
    assert_eq!(
        schema["properties"]["offset"],
        json!({"description": "First line to return, 1-based.", "type": "integer", "format": "uint64", "minimum": 0})
    );
    assert_eq!(schema["properties"]["limit"]["default"], 200);
}

#[test]
fn unknown_fields_are_rejected_by_the_schema() {
    assert_eq!(schema("schema_read")["additionalProperties"], false);
}

#[test]
fn a_url_argument_is_a_uri_string() {
    assert_eq!(
        schema("schema_order")["properties"]["link"],
        json!({"type": "string", "format": "uri"})
    );
}

#[test]
fn an_args_type_gives_the_whole_schema() {
    let schema = schema("schema_search");
    assert_eq!(schema["type"], "object");
    assert_eq!(
        schema["properties"]["text"]["description"],
        "The text to look for."
    );
    assert_eq!(schema["required"], json!(["text"]));
}

#[test]
fn json_output_has_an_output_schema() {
    let tool = Registry::global().get("schema_stats").unwrap();
    let output = tool
        .output_schema()
        .expect("Json<T> output has a schema")
        .as_value();
    assert_eq!(
        output["properties"]["lines"]["description"],
        "Lines counted."
    );
    assert!(output.get("title").is_none());
    assert!(
        Registry::global()
            .get("schema_read")
            .unwrap()
            .output_schema()
            .is_none()
    );
}

#[test]
fn an_output_schema_describes_what_the_result_serializes_to() {
    let tool = Registry::global().get("schema_sent").unwrap();
    let output = tool.output_schema().unwrap().as_value();
    // `flag` is left out when false, so a client checking the result must not require it; the
    // field is named as serde writes it.
    assert_eq!(output["required"], json!(["kept", "shownAs"]));
    assert!(output["properties"].get("shownAs").is_some());
    let validator = jsonschema::draft202012::new(output).unwrap();
    let result = tool_core::Coordinator::builder()
        .toolset(tool_core::Toolset::named(["schema_sent"]).unwrap())
        .build()
        .unwrap()
        .call_blocking(tool_core::ToolCall::new("schema_sent", "{}"));
    let structured = result.structured().unwrap();
    assert_eq!(structured, &json!({"kept": 1, "shownAs": 2}));
    assert!(validator.is_valid(structured));
}

/// How many times the schema of [`Counted`] was generated.
static COUNTED_SCHEMAS: AtomicUsize = AtomicUsize::new(0);

#[derive(serde::Deserialize)]
struct Counted {
    text: String,
}

impl schemars::JsonSchema for Counted {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Counted".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        COUNTED_SCHEMAS.fetch_add(1, Ordering::SeqCst);
        schemars::json_schema!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"]
        })
    }
}

/// Echo the text, with arguments whose schema counts how often it is generated.
#[tool(read_only, name = "schema_counted")]
fn counted(Args(arguments): Args<Counted>) -> String {
    arguments.text
}

#[test]
fn schemas_are_built_once_and_cached() {
    let tool = Registry::global().get("schema_counted").unwrap();
    let first = tool.input_schema().clone();
    // Explaining an argument error reads the schema too.
    assert!(tool.prepare(r#"{"txt": "hi"}"#).is_err());
    assert_eq!(tool.input_schema(), &first);
    assert_eq!(COUNTED_SCHEMAS.load(Ordering::SeqCst), 1);
}

#[test]
fn resource_arguments_are_declared_from_types_and_attributes() {
    let spec = Registry::global().get("schema_order").unwrap().spec();
    let declared: Vec<(&str, &str)> = spec
        .resources
        .iter()
        .map(|r| (r.name.as_ref(), r.kind.as_str()))
        .collect();
    assert_eq!(declared, [("middle", "url"), ("link", "url")]);
    let spec = Registry::global().get("schema_read").unwrap().spec();
    assert_eq!(spec.resources[0].name, "path");
    assert_eq!(spec.resources[0].kind.as_str(), "path");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Range {
    start: u32,
}

/// Optional arguments of several shapes.
#[tool(read_only, name = "schema_optional")]
fn optional(range: Option<Range>, names: Option<Vec<String>>, link: Option<WebUrl>) -> String {
    format!(
        "{} {names:?} {link:?}",
        range.map_or(0, |range| range.start)
    )
}

#[test]
fn optional_arguments_show_their_type_without_null() {
    let schema = schema("schema_optional");
    let properties = &schema["properties"];
    assert!(schema.get("required").is_none(), "{schema}");
    assert_eq!(
        properties["names"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_eq!(
        properties["link"],
        json!({"type": "string", "format": "uri"})
    );
    assert!(properties["range"].get("anyOf").is_none(), "{schema}");
    assert_eq!(properties["range"]["$ref"], "#/$defs/Range", "{schema}");
    assert_eq!(
        schema["$defs"]["Range"]["required"],
        json!(["start"]),
        "{schema}"
    );
}

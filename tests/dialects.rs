//! One definition, every provider: a fixture toolset that uses every schema feature, exported
//! in every dialect. Each export is compared with its golden file (`tests/dialects/*.json`,
//! rewritten with `UPDATE_GOLDENS=1`), validated as JSON Schema, and checked against the
//! provider's documented rules by an independent checker (`tests/common/provider_rules.rs`).

#[path = "common/export_checks.rs"]
mod export_checks;
#[path = "common/provider_rules.rs"]
mod provider_rules;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tool_core::context::ToolContext;
use tool_core::schema::{
    Dialect, ExportProblem, GeminiForm, OpenAiApi, Schema, check, export_tool, input_schema_for,
};
use tool_core::spec::ToolSpec;
use tool_core::tool::{Prepared, ToolFuture};
use tool_core::{
    Args, Coordinator, Json, Registry, Tool, ToolCall, ToolError, ToolOutput, Toolset, WebUrl, tool,
};

// ---------------------------------------------------------------------------------------------
// The fixture toolset.

/// Read lines of a file.
///
/// # Arguments
/// * `path` - File path, relative to the workspace root.
/// * `offset` - First line to return, 1-based.
/// * `limit` - How many lines to return.
#[tool(read_only, name = "dialect_read")]
fn read(
    path: String,
    offset: Option<u32>,
    #[arg(default = 5)]
    #[schemars(range(min = 1, max = 2000))]
    limit: u32,
) -> String {
    format!("{path} offset={offset:?} limit={limit}")
}

/// How urgent a step is.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Priority {
    /// Whenever.
    Low,
    /// Soon.
    High,
}

/// What a step does.
// The fixture types are parsed, not read: their schemas are what is tested.
#[allow(dead_code)]
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum Action {
    /// Run a command.
    Run {
        /// The command line.
        command: String,
    },
    /// Wait a number of seconds.
    Wait {
        /// Seconds to wait.
        #[schemars(range(min = 1, max = 3600))]
        seconds: u32,
    },
}

/// Who to tell when done.
// The fixture types are parsed, not read: their schemas are what is tested.
#[allow(dead_code)]
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Contact {
    /// Their email address.
    #[schemars(email)]
    email: String,
    /// A web page about them.
    page: Option<WebUrl>,
}

/// One step of a plan.
// The fixture types are parsed, not read: their schemas are what is tested.
#[allow(dead_code)]
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Step {
    /// What the step is for.
    #[schemars(length(min = 1, max = 80))]
    title: String,
    /// What it does.
    action: Action,
    /// How urgent it is.
    priority: Priority,
    /// Lines of the file it touches, first and last.
    lines: Option<(u32, u32)>,
}

/// A plan of steps.
// The fixture types are parsed, not read: their schemas are what is tested.
#[allow(dead_code)]
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Plan {
    /// The plan's name.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9-]*$"))]
    name: String,
    /// The steps, in order.
    #[schemars(length(min = 2))]
    steps: Vec<Step>,
    /// Who to tell when done.
    notify: Option<Contact>,
    /// When to start.
    #[schemars(extend("format" = "date-time"))]
    start: Option<String>,
}

/// Make a plan of steps.
#[tool(name = "dialect_plan")]
fn plan(Args(plan): Args<Plan>) -> String {
    format!("{} steps", plan.steps.len())
}

/// Set environment variables.
///
/// # Arguments
/// * `vars` - Variable names to values.
#[tool(name = "dialect_setenv")]
fn setenv(vars: HashMap<String, String>) -> usize {
    vars.len()
}

/// A node of a tree.
// The fixture types are parsed, not read: their schemas are what is tested.
#[allow(dead_code)]
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Node {
    /// The node's label.
    label: String,
    /// The nodes below it.
    #[serde(default)]
    children: Vec<Node>,
}

/// Count the nodes of a tree.
///
/// # Arguments
/// * `tree` - The tree.
#[tool(read_only, name = "dialect_tree")]
fn tree(tree: Option<Node>) -> usize {
    fn count(node: &Node) -> usize {
        1 + node.children.iter().map(count).sum::<usize>()
    }
    tree.as_ref().map_or(0, count)
}

/// What a change does.
// The fixture types are parsed, not read: their schemas are what is tested.
#[allow(dead_code)]
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Change {
    /// Add a line.
    Add {
        /// The line.
        line: String,
    },
    /// Remove a line.
    Remove {
        /// Its number.
        number: u32,
    },
}

/// Change a list.
#[tool(name = "dialect_change")]
fn change(Args(change): Args<Change>) -> String {
    format!("{change:?}")
}

/// Store a value under a key.
///
/// # Arguments
/// * `key` - The key.
/// * `value` - Any JSON value.
#[tool(name = "dialect_store")]
fn store(key: String, value: Value) -> String {
    format!("{key}={value}")
}

/// Counts of a file.
#[derive(Serialize, schemars::JsonSchema)]
struct Counts {
    /// Lines in the file.
    lines: u64,
    /// Bytes in the file.
    bytes: u64,
}

/// Count a file's lines and bytes.
///
/// # Arguments
/// * `path` - The file.
#[tool(read_only, name = "dialect_stats", title = "File statistics")]
fn stats(path: String) -> Json<Counts> {
    Json(Counts {
        lines: path.len() as u64,
        bytes: 0,
    })
}

/// Check a two-factor code.
#[tool(read_only, name = "2fa_check")]
fn two_factor(code: String, #[arg(desc = "Seconds the code is valid.")] ttl: Option<f64>) -> bool {
    code.len() == 6 && ttl.is_none_or(|ttl| ttl > 0.0)
}

/// Say when.
#[tool(read_only, name = "dialect_now")]
fn now() -> &'static str {
    "now"
}

const FIXTURE: &[&str] = &[
    "2fa_check",
    "dialect_change",
    "dialect_now",
    "dialect_plan",
    "dialect_read",
    "dialect_setenv",
    "dialect_stats",
    "dialect_store",
    "dialect_tree",
];

fn fixture() -> Toolset {
    Toolset::named(FIXTURE).unwrap()
}

const OPENAI_STRICT: Dialect = Dialect::OpenAi {
    strict: true,
    api: OpenAiApi::Responses,
};
const GEMINI_OPENAPI: Dialect = Dialect::Gemini {
    form: GeminiForm::OpenApi,
};

// ---------------------------------------------------------------------------------------------
// Goldens, JSON Schema validity and the providers' rules.

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/dialects")
}

#[test]
fn every_dialect_matches_its_golden_file() {
    let toolset = fixture();
    for dialect in Dialect::ALL {
        export_checks::compare_with_golden(
            &golden_dir(),
            dialect,
            &export_checks::golden(&toolset.export(dialect)),
        );
    }
}

#[test]
fn every_exported_schema_is_valid_json_schema() {
    export_checks::assert_valid_json_schema(&fixture());
}

#[test]
fn every_exported_tool_follows_its_providers_documented_rules() {
    export_checks::assert_follows_documented_rules(&fixture());
}

/// Arguments a tool accepts, and the same arguments as a strict model writes them (every
/// property present, `null` for the ones left out).
const VALID_CALLS: &[(&str, &str, &str)] = &[
    (
        "dialect_read",
        r#"{"path": "a.txt"}"#,
        r#"{"path": "a.txt", "offset": null, "limit": null}"#,
    ),
    (
        "dialect_plan",
        r#"{"name": "ship", "steps": [{"title": "build", "action": {"kind": "run", "command": "make"}, "priority": "high"}, {"title": "rest", "action": {"kind": "wait", "seconds": 5}, "priority": "low", "lines": [1, 2]}]}"#,
        r#"{"name": "ship", "steps": [{"title": "build", "action": {"kind": "run", "command": "make"}, "priority": "high", "lines": null}, {"title": "rest", "action": {"kind": "wait", "seconds": 5}, "priority": "low", "lines": [1, 2]}], "notify": null, "start": null}"#,
    ),
    (
        "dialect_tree",
        r#"{"tree": {"label": "root", "children": [{"label": "leaf"}]}}"#,
        r#"{"tree": {"label": "root", "children": [{"label": "leaf", "children": []}]}}"#,
    ),
];

#[test]
fn the_exported_schemas_accept_what_the_tools_accept() {
    let toolset = fixture();
    for dialect in Dialect::ALL {
        let export = toolset.export(dialect);
        for (name, arguments, strict_arguments) in VALID_CALLS {
            let tool = Registry::global().get(name).unwrap();
            assert!(tool.prepare(arguments).is_ok(), "{name}: {arguments}");
            let provider_name = export.names.provider(name).unwrap_or(name);
            let Some(definition) = export.tools.iter().find(|definition| {
                definition
                    .get("name")
                    .or(definition.pointer("/function/name"))
                    == Some(&Value::from(provider_name))
            }) else {
                continue; // refused in this dialect, and reported
            };
            let Some(parameters) = provider_rules::parameters(dialect, definition) else {
                continue;
            };
            let schema = provider_rules::as_json_schema(dialect, parameters);
            let validator = jsonschema::draft202012::new(&schema).unwrap();
            let sent = if matches!(dialect, Dialect::OpenAi { strict: true, .. }) {
                strict_arguments
            } else {
                arguments
            };
            let sent: Value = serde_json::from_str(sent).unwrap();
            if let Err(error) = validator.validate(&sent) {
                panic!("{dialect}, {name}: {error}\n{schema:#}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Behaviours.

// spring-ai#6865: "'additionalProperties' is required to be supplied and to be false".
#[test]
fn strict_openai_makes_every_property_required_and_optional_ones_nullable() {
    let tool = Registry::global().get("dialect_read").unwrap();
    let exported = export_tool(tool, OPENAI_STRICT).unwrap();
    let parameters = &exported.definition["parameters"];
    assert_eq!(parameters["required"], json!(["path", "offset", "limit"]));
    assert_eq!(parameters["additionalProperties"], false);
    assert_eq!(
        parameters["properties"]["offset"]["type"],
        json!(["integer", "null"])
    );
    assert!(parameters["properties"]["limit"].get("default").is_none());
}

#[test]
fn the_two_openai_apis_have_their_two_tool_shapes() {
    let tool = Registry::global().get("dialect_read").unwrap();
    let chat = export_tool(
        tool,
        Dialect::OpenAi {
            strict: false,
            api: OpenAiApi::ChatCompletions,
        },
    )
    .unwrap();
    assert_eq!(chat.definition["function"]["name"], "dialect_read");
    let responses = export_tool(
        tool,
        Dialect::OpenAi {
            strict: false,
            api: OpenAiApi::Responses,
        },
    )
    .unwrap();
    assert_eq!(responses.definition["name"], "dialect_read");
    // The responses API would make it strict if `strict` were left out.
    assert_eq!(responses.definition["strict"], false);
}

#[test]
fn an_open_map_is_refused_under_openai_strict_and_exported_non_strict_only_when_asked() {
    let toolset = fixture();
    let export = toolset.export(OPENAI_STRICT);
    assert!(export.names.provider("dialect_setenv").is_none());
    assert!(export.problems.iter().any(|problem| matches!(
        problem,
        ExportProblem::Refused { tool, pointer, reason, .. }
            if tool == "dialect_setenv" && pointer == "/properties/vars/additionalProperties"
                && reason.contains("open map")
    )));
    let lenient = toolset.export_with_non_strict_fallback(OPENAI_STRICT);
    let setenv = lenient
        .tools
        .iter()
        .find(|definition| definition["name"] == "dialect_setenv")
        .expect("exported non-strict");
    assert_eq!(setenv["strict"], false);
    assert!(lenient.problems.iter().any(|problem| matches!(
        problem,
        ExportProblem::NonStrict { tool, .. } if tool == "dialect_setenv"
    )));
}

#[test]
fn a_value_of_any_type_is_refused_under_openai_strict() {
    let error = export_tool(
        Registry::global().get("dialect_store").unwrap(),
        OPENAI_STRICT,
    )
    .unwrap_err();
    assert_eq!(error.problems[0].pointer(), "/properties/value");
    assert!(
        error
            .to_string()
            .contains("strict mode needs every value typed"),
        "{error}"
    );
}

#[test]
fn recursion_is_refused_under_gemini_openapi_and_anthropic_strict() {
    let tree = Registry::global().get("dialect_tree").unwrap();
    for dialect in [GEMINI_OPENAPI, Dialect::Anthropic { strict: true }] {
        let error = export_tool(tree, dialect).unwrap_err();
        assert!(
            error.to_string().contains("recursive"),
            "{dialect}: {error}"
        );
    }
    // Where `$ref` exists, recursion stays (in an `anyOf`, so its description can stay too).
    let json_schema = export_tool(
        tree,
        Dialect::Gemini {
            form: GeminiForm::JsonSchema,
        },
    )
    .unwrap();
    assert_eq!(
        json_schema.definition["parametersJsonSchema"]["properties"]["tree"]["anyOf"][0]["$ref"],
        "#/$defs/Node"
    );
}

// claude-code#40075: Anthropic answers a root-level `anyOf` with a 400, strict or not.
#[test]
fn a_union_at_the_root_becomes_one_object_for_anthropic_even_when_not_strict() {
    let exported = export_tool(
        Registry::global().get("dialect_change").unwrap(),
        Dialect::Anthropic { strict: false },
    )
    .unwrap();
    let schema = &exported.definition["input_schema"];
    assert_eq!(schema["type"], "object");
    assert!(schema.get("oneOf").is_none() && schema.get("anyOf").is_none());
    assert!(
        schema["properties"].get("add").is_some() && schema["properties"].get("remove").is_some()
    );
    assert!(
        exported
            .problems
            .iter()
            .any(|problem| problem.pointer().is_empty())
    );
}

#[test]
fn bounds_move_into_the_description_under_anthropic_strict() {
    let exported = export_tool(
        Registry::global().get("dialect_read").unwrap(),
        Dialect::Anthropic { strict: true },
    )
    .unwrap();
    let limit = &exported.definition["input_schema"]["properties"]["limit"];
    assert!(limit.get("minimum").is_none() && limit.get("maximum").is_none());
    assert_eq!(
        limit["description"],
        "How many lines to return. (at least 1; at most 2000)"
    );
}

// zed#45552, rust-genai#162: Gemini's `Unknown name "$ref"`, `"const"`,
// `"additionalProperties"`.
#[test]
fn gemini_openapi_says_nullable_and_has_no_json_schema_only_keywords() {
    let exported = export_tool(
        Registry::global().get("dialect_plan").unwrap(),
        GEMINI_OPENAPI,
    )
    .unwrap();
    let text = exported.definition["parameters"].to_string();
    for keyword in [
        "$ref",
        "$defs",
        "const",
        "oneOf",
        "additionalProperties",
        "\"null\"",
    ] {
        assert!(!text.contains(keyword), "{keyword} in {text}");
    }
    let notify = &exported.definition["parameters"]["properties"]["notify"];
    assert_eq!(notify["type"], "OBJECT");
    let page = &notify["properties"]["page"];
    assert_eq!(page["nullable"], true, "{page}");
}

#[test]
fn a_tool_without_arguments_declares_no_gemini_parameters() {
    let exported = export_tool(
        Registry::global().get("dialect_now").unwrap(),
        GEMINI_OPENAPI,
    )
    .unwrap();
    assert!(exported.definition.get("parameters").is_none());
}

#[test]
fn names_map_to_each_providers_rule_and_back() {
    let toolset = fixture();
    for dialect in Dialect::ALL {
        let export = toolset.export(dialect);
        for tool in toolset.iter() {
            let ours = tool.spec().name.as_ref();
            let Some(theirs) = export.names.provider(ours) else {
                continue; // refused
            };
            assert_eq!(export.names.original(theirs), Some(ours), "{dialect}");
        }
    }
    let gemini = toolset.export(GEMINI_OPENAPI);
    assert_eq!(gemini.names.provider("2fa_check"), Some("_2fa_check"));
    assert_eq!(gemini.call("_2fa_check", "{}").name, "2fa_check");
    assert_eq!(
        toolset.export(Dialect::Mcp).names.provider("2fa_check"),
        Some("2fa_check")
    );
}

#[tokio::test]
async fn nulls_a_strict_model_sends_for_optional_arguments_arrive_as_absent() {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["dialect_read"]).unwrap())
        .build()
        .unwrap();
    let export = coordinator.toolset().export(OPENAI_STRICT);
    let call = export.call(
        "dialect_read",
        r#"{"path": "a.txt", "offset": null, "limit": null}"#,
    );
    let result = coordinator.call(call).await;
    assert_eq!(result.text(), "a.txt offset=None limit=5");
}

#[tokio::test]
async fn a_null_for_a_defaulted_field_of_a_nested_type_arrives_as_absent() {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["dialect_tree"]).unwrap())
        .build()
        .unwrap();
    let export = coordinator.toolset().export(OPENAI_STRICT);
    let arguments = r#"{"tree": {"label": "root", "children": null}}"#;
    let result = coordinator
        .call(export.call("dialect_tree", arguments))
        .await;
    assert_eq!(result.text(), "1");
    // Without the normalization, `#[serde(default)] children: Vec<Node>` refuses the `null`.
    let raw = coordinator
        .call(ToolCall::new("dialect_tree", arguments))
        .await;
    assert!(raw.is_error(), "{}", raw.text());
}

#[test]
fn nulls_inside_nested_types_arrive_as_absent_too() {
    let export = fixture().export(OPENAI_STRICT);
    let (_, _, strict_arguments) = VALID_CALLS[1];
    let call = export.call("dialect_plan", strict_arguments);
    let arguments: Value = serde_json::from_str(&call.arguments).unwrap();
    assert!(arguments.get("notify").is_none());
    // `Option<(u32, u32)>` in a nested struct takes `null` in our schema too: left as sent.
    assert_eq!(arguments["steps"][0]["lines"], Value::Null);
    assert_eq!(arguments["steps"][1]["lines"], json!([1, 2]));
    assert!(
        Registry::global()
            .get("dialect_plan")
            .unwrap()
            .prepare(&call.arguments)
            .is_ok()
    );
}

#[test]
fn an_export_that_made_nothing_nullable_leaves_arguments_untouched() {
    let export = fixture().export(Dialect::Anthropic { strict: true });
    let arguments = r#"{"path": "a.txt", "offset": null}"#;
    assert_eq!(
        export.normalize_arguments("dialect_read", arguments),
        arguments
    );
}

/// A hand-written tool with the schema it is given.
struct Optional(ToolSpec, Schema);

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct OptionalArgs {
    /// A count.
    count: Option<u32>,
    /// A number or a word.
    either: Option<Either>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Either {
    Number(u32),
    Word(String),
}

impl Tool for Optional {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn input_schema(&self) -> &Schema {
        &self.1
    }
    fn prepare(&self, arguments: &str) -> Result<Prepared, ToolError> {
        Ok(Prepared::new(arguments.to_owned()))
    }
    fn invoke<'a>(&'a self, prepared: Prepared, _: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::ready(prepared.take::<String>().map(ToolOutput::text))
    }
}

#[test]
fn too_many_strict_tools_for_anthropic_are_reported_over_the_whole_toolset() {
    let mut toolset = Toolset::empty();
    for number in 0..21 {
        let spec = ToolSpec::new(format!("optional_{number}"), "Take optional arguments.");
        toolset
            .add(Optional(spec, input_schema_for::<OptionalArgs>()))
            .unwrap();
    }
    let export = toolset.export(Dialect::Anthropic { strict: true });
    assert_eq!(export.tools.len(), 21);
    assert!(!export.is_acceptable());
    let over: Vec<(&str, usize, usize)> = export
        .problems
        .iter()
        .filter_map(|problem| match problem {
            ExportProblem::OverLimit {
                what,
                found,
                allowed,
                ..
            } => Some((*what, *found, *allowed)),
            _ => None,
        })
        .collect();
    assert_eq!(
        over,
        [
            ("strict tools", 21, 20),
            ("optional parameters over all strict tools", 42, 24),
            ("union-typed parameters over all strict tools", 21, 16),
        ]
    );
    // Not strict, there is no such limit.
    assert!(
        toolset
            .export(Dialect::Anthropic { strict: false })
            .is_acceptable()
    );
}

#[test]
fn check_reports_what_dialects_lose_and_what_has_no_description() {
    let problems = check(&fixture());
    let missing: Vec<(&str, &str)> = problems
        .iter()
        .filter_map(|problem| match problem {
            ExportProblem::MissingDescription { tool, pointer } => {
                Some((tool.as_str(), pointer.as_str()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(missing, [("2fa_check", "/properties/code")]);
    assert!(problems.iter().any(|problem| matches!(
        problem, ExportProblem::Refused { tool, .. } if tool == "dialect_setenv"
    )));
    let message = problems
        .iter()
        .find(|problem| matches!(problem, ExportProblem::MissingDescription { .. }))
        .unwrap()
        .to_string();
    assert_eq!(
        message,
        "tool `2fa_check`, parameter at `/properties/code`: no description; describe it in the \
         `# Arguments` section of the doc comment, or with `#[arg(desc = \"...\")]`"
    );
}

/// How often [`Counted`]'s input schema was read.
static SCHEMA_READS: AtomicUsize = AtomicUsize::new(0);

/// A tool that counts the reads of its input schema: each export reads it once.
struct Counted(ToolSpec, Schema);

impl Tool for Counted {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn input_schema(&self) -> &Schema {
        SCHEMA_READS.fetch_add(1, Ordering::SeqCst);
        &self.1
    }
    fn prepare(&self, arguments: &str) -> Result<Prepared, ToolError> {
        Ok(Prepared::new(arguments.to_owned()))
    }
    fn invoke<'a>(&'a self, prepared: Prepared, _: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::ready(prepared.take::<String>().map(ToolOutput::text))
    }
}

#[test]
fn exports_are_made_once_per_tool_and_dialect_and_again_when_the_toolset_changes() {
    let counted = Counted(
        ToolSpec::new("counted", "Count schema reads."),
        input_schema_for::<OptionalArgs>(),
    );
    let mut toolset = Toolset::empty().with(counted).unwrap();
    let clone = toolset.clone();
    for _ in 0..3 {
        for dialect in Dialect::ALL {
            let _ = toolset.export(dialect);
            let _ = clone.export(dialect);
        }
    }
    assert_eq!(SCHEMA_READS.load(Ordering::SeqCst), Dialect::ALL.len());
    toolset
        .add(Optional(
            ToolSpec::new("other", "Another."),
            input_schema_for::<OptionalArgs>(),
        ))
        .unwrap();
    let _ = toolset.export(Dialect::Mcp);
    assert_eq!(SCHEMA_READS.load(Ordering::SeqCst), Dialect::ALL.len() + 1);
}

/// List the first primes.
///
/// # Arguments
/// * `count` - How many.
#[tool(read_only, name = "dialect_primes")]
fn primes(count: u8) -> Json<Vec<u32>> {
    Json(
        [2, 3, 5, 7, 11]
            .into_iter()
            .take(usize::from(count))
            .collect(),
    )
}

#[test]
fn an_output_schema_that_is_not_an_object_is_left_out_of_mcp_and_reported() {
    let stats = export_tool(
        Registry::global().get("dialect_stats").unwrap(),
        Dialect::Mcp,
    )
    .unwrap();
    assert_eq!(stats.definition["outputSchema"]["type"], "object");
    let primes = export_tool(
        Registry::global().get("dialect_primes").unwrap(),
        Dialect::Mcp,
    )
    .unwrap();
    assert!(primes.definition.get("outputSchema").is_none());
    assert!(
        primes.problems[0]
            .to_string()
            .contains("not an object schema"),
        "{:?}",
        primes.problems
    );
}

fn hand_written(name: &str, schema: Value) -> Optional {
    Optional(
        ToolSpec::new(name.to_owned(), "A hand-written tool."),
        Schema::try_from(schema).unwrap(),
    )
}

#[test]
fn openai_strict_refuses_a_schema_over_its_enum_value_limit() {
    let values: Vec<String> = (0..1001).map(|value| format!("v{value}")).collect();
    let tool = hand_written(
        "many_values",
        json!({"type": "object", "properties": {"pick": {"type": "string", "enum": values}}, "required": ["pick"]}),
    );
    let error = export_tool(&tool, OPENAI_STRICT).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("1001 enum values; strict mode takes at most 1000"),
        "{error}"
    );
    assert!(export_tool(&tool, Dialect::Anthropic { strict: true }).is_ok());
}

#[test]
fn openai_strict_refuses_a_schema_nested_deeper_than_ten_levels() {
    let mut schema = json!({"type": "object", "properties": {"leaf": {"type": "string"}}});
    for _ in 0..10 {
        schema = json!({"type": "object", "properties": {"inner": schema}});
    }
    let error = export_tool(&hand_written("deep", schema), OPENAI_STRICT).unwrap_err();
    assert!(
        error.to_string().contains("11 levels of nesting"),
        "{error}"
    );
}

#[test]
fn more_than_128_tools_are_over_openais_limit_for_one_request() {
    let mut toolset = Toolset::empty();
    for number in 0..129 {
        toolset
            .add(hand_written(
                &format!("tool_{number}"),
                json!({"type": "object", "properties": {}}),
            ))
            .unwrap();
    }
    let export = toolset.export(OPENAI_STRICT);
    assert_eq!(export.tools.len(), 129);
    assert!(matches!(
        export.problems.as_slice(),
        [ExportProblem::OverLimit {
            what: "tools",
            found: 129,
            allowed: 128,
            ..
        }]
    ));
}

#[test]
fn a_json_output_goes_to_gemini_as_the_declarations_response() {
    let stats = Registry::global().get("dialect_stats").unwrap();
    let json_schema = export_tool(
        stats,
        Dialect::Gemini {
            form: GeminiForm::JsonSchema,
        },
    )
    .unwrap();
    assert_eq!(
        json_schema.definition["responseJsonSchema"]["properties"]["lines"]["type"],
        "integer"
    );
    let openapi = export_tool(stats, GEMINI_OPENAPI).unwrap();
    assert_eq!(openapi.definition["response"]["type"], "OBJECT");
    assert!(
        openapi
            .problems
            .iter()
            .any(|problem| problem.pointer() == "response/properties/lines")
    );
}

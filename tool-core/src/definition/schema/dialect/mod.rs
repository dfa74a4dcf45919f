//! Tool definitions in each provider's dialect: [`Dialect`], the per-tool [`export_tool`] and
//! the toolset's [`Export`] (made by [`Toolset::export`](crate::Toolset::export)), what an
//! export lost or refused ([`ExportProblem`]), the names the provider knows the tools by
//! ([`ToolNames`]), and [`check`], which runs every dialect over a toolset.
//!
//! One definition, every provider: the input schema a tool has (JSON Schema 2020-12, as MCP
//! takes it) is rewritten for each provider's rules, one file per provider (`mcp`, `openai`,
//! `anthropic`, `gemini`) over the shared rewriting in `rewrite`. What a provider cannot
//! express is moved into a description where words can carry it, and reported either way:
//! an export never hides a loss, and never sends a schema the provider is documented to
//! reject. A tool that cannot be expressed at all is left out and reported as
//! [`ExportProblem::Refused`], with what to change.
//!
//! # Strict mode's nulls, on the way back
//!
//! OpenAI's strict mode wants every property required, so an optional argument is exported
//! as "`T` or `null`" and the model sends `null` for "absent". A tool's own schema did not
//! allow that `null`, and not every tool reads it as absent: a `#[tool]` function's own
//! parameters do, but a `#[serde(default)] children: Vec<Node>` field of a nested struct, an
//! `Args<T>` type or a hand-written tool would refuse it. [`Export::normalize_arguments`]
//! takes those nulls out again, at the places strict mode made nullable and nowhere else, so
//! the tool sees the argument as absent. A provider adapter calls it (or [`Export::call`],
//! which also maps the name back) on each call it parses before handing the call to the
//! coordinator; an export that made nothing nullable returns the arguments untouched,
//! without parsing them.
//!
//! **Caching:** a toolset computes each tool's export in each dialect once, on first use, and
//! keeps it until the toolset changes; [`export_tool`] computes afresh. Exports are never on
//! the call path: a call only meets [`Export::normalize_arguments`].

mod anthropic;
mod gemini;
mod mcp;
mod names;
mod nulls;
mod openai;
mod rewrite;

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use crate::definition::tool::ToolHandle;
use crate::definition::toolset::Toolset;
use crate::{Tool, ToolCall};

use names::NameRule;
pub use names::ToolNames;
use rewrite::Rewriter;

/// A provider's way of declaring tools.
///
/// ```
/// use tool_core::schema::{Dialect, GeminiForm, OpenAiApi};
///
/// let dialect = Dialect::OpenAi { strict: true, api: OpenAiApi::Responses };
/// assert!(dialect.is_strict());
/// assert_eq!(dialect.to_string(), "OpenAI responses (strict)");
/// assert_eq!(dialect.key(), "openai-responses-strict");
/// assert_eq!(Dialect::ALL.len(), 9);
/// assert!(Dialect::ALL.contains(&Dialect::Gemini { form: GeminiForm::OpenApi }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// The Model Context Protocol: the tool's own JSON Schema 2020-12, unchanged.
    Mcp,
    /// OpenAI function tools.
    OpenAi {
        /// Structured outputs' strict mode: the model's arguments always match the schema,
        /// which must then follow OpenAI's supported subset.
        strict: bool,
        /// Which API the tools are sent to: the two tool shapes differ.
        api: OpenAiApi,
    },
    /// Anthropic's Messages API tools.
    Anthropic {
        /// Strict tool use: arguments guaranteed to match, under Anthropic's subset and
        /// per-request limits.
        strict: bool,
    },
    /// Gemini function declarations.
    Gemini {
        /// Which field carries the schema.
        form: GeminiForm,
    },
}

/// The OpenAI API a tool is declared for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpenAiApi {
    /// Chat completions: `{"type": "function", "function": {"name", "parameters", ...}}`.
    ChatCompletions,
    /// Responses: `{"type": "function", "name", "parameters", "strict", ...}`, flat. The
    /// responses API makes a tool strict when `strict` is left out, so the export always
    /// says which.
    Responses,
}

/// Where a Gemini function declaration carries its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeminiForm {
    /// `parametersJsonSchema`: JSON Schema, with `$ref`, `anyOf` and more.
    JsonSchema,
    /// `parameters`: the OpenAPI 3.0 subset (`Schema`), which the Live API still needs.
    OpenApi,
}

impl Dialect {
    /// Every dialect, strict and not, each API and form.
    pub const ALL: [Dialect; 9] = [
        Dialect::Mcp,
        Dialect::OpenAi {
            strict: false,
            api: OpenAiApi::ChatCompletions,
        },
        Dialect::OpenAi {
            strict: true,
            api: OpenAiApi::ChatCompletions,
        },
        Dialect::OpenAi {
            strict: false,
            api: OpenAiApi::Responses,
        },
        Dialect::OpenAi {
            strict: true,
            api: OpenAiApi::Responses,
        },
        Dialect::Anthropic { strict: false },
        Dialect::Anthropic { strict: true },
        Dialect::Gemini {
            form: GeminiForm::JsonSchema,
        },
        Dialect::Gemini {
            form: GeminiForm::OpenApi,
        },
    ];

    /// `true` for the strict variants of OpenAI and Anthropic.
    #[must_use]
    pub const fn is_strict(self) -> bool {
        matches!(
            self,
            Dialect::OpenAi { strict: true, .. } | Dialect::Anthropic { strict: true }
        )
    }

    /// The same dialect without strict mode (itself when it has none).
    #[must_use]
    pub const fn non_strict(self) -> Dialect {
        match self {
            Dialect::OpenAi { api, .. } => Dialect::OpenAi { strict: false, api },
            Dialect::Anthropic { .. } => Dialect::Anthropic { strict: false },
            other => other,
        }
    }

    /// A short lowercase identifier, for file names and logs: `mcp`, `openai-chat`,
    /// `openai-responses-strict`, `anthropic-strict`, `gemini-json-schema`, `gemini-openapi`.
    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Dialect::Mcp => "mcp",
            Dialect::OpenAi {
                strict: false,
                api: OpenAiApi::ChatCompletions,
            } => "openai-chat",
            Dialect::OpenAi {
                strict: true,
                api: OpenAiApi::ChatCompletions,
            } => "openai-chat-strict",
            Dialect::OpenAi {
                strict: false,
                api: OpenAiApi::Responses,
            } => "openai-responses",
            Dialect::OpenAi {
                strict: true,
                api: OpenAiApi::Responses,
            } => "openai-responses-strict",
            Dialect::Anthropic { strict: false } => "anthropic",
            Dialect::Anthropic { strict: true } => "anthropic-strict",
            Dialect::Gemini {
                form: GeminiForm::JsonSchema,
            } => "gemini-json-schema",
            Dialect::Gemini {
                form: GeminiForm::OpenApi,
            } => "gemini-openapi",
        }
    }

    /// The position in [`Dialect::ALL`], for the per-dialect caches.
    fn position(self) -> usize {
        Dialect::ALL
            .iter()
            .position(|dialect| *dialect == self)
            .unwrap_or(0)
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, strict) = match self {
            Dialect::Mcp => ("MCP", false),
            Dialect::OpenAi {
                strict,
                api: OpenAiApi::ChatCompletions,
            } => ("OpenAI chat completions", *strict),
            Dialect::OpenAi {
                strict,
                api: OpenAiApi::Responses,
            } => ("OpenAI responses", *strict),
            Dialect::Anthropic { strict } => ("Anthropic", *strict),
            Dialect::Gemini {
                form: GeminiForm::JsonSchema,
            } => ("Gemini parametersJsonSchema", false),
            Dialect::Gemini {
                form: GeminiForm::OpenApi,
            } => ("Gemini parameters (OpenAPI subset)", false),
        };
        f.write_str(name)?;
        if strict {
            f.write_str(" (strict)")?;
        }
        Ok(())
    }
}

/// What an export lost, refused, or found missing; each names the tool, the place in its
/// exported schema (a JSON pointer into the parameters, empty for their root; a place in an
/// exported output schema starts with the field carrying it, as in
/// `responseJsonSchema/properties/lines`), and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportProblem {
    /// Something the dialect cannot express: the export says it another way (in the
    /// description, as a different keyword) or drops it. The tool still checks it when it
    /// parses the call.
    #[error("{dialect}: tool `{tool}`, {}: {what} {action}", At(pointer))]
    Lost {
        /// Our name of the tool.
        tool: String,
        /// The dialect.
        dialect: Dialect,
        /// Where, in the exported schema.
        pointer: String,
        /// What was there.
        what: String,
        /// What became of it.
        action: String,
    },
    /// The tool cannot be declared in this dialect and was left out of the export.
    #[error(
        "{dialect}: tool `{tool}` is left out, {}: {reason}; {fix}",
        At(pointer)
    )]
    Refused {
        /// Our name of the tool.
        tool: String,
        /// The dialect.
        dialect: Dialect,
        /// Where, in the exported schema.
        pointer: String,
        /// Why it cannot be declared.
        reason: String,
        /// What would make it declarable.
        fix: String,
    },
    /// The tool cannot be strict, and was exported without strict mode because the export
    /// was asked to fall back (see [`Toolset::export_with_non_strict_fallback`]).
    #[error(
        "{dialect}: tool `{tool}` is exported non-strict, {}: {reason}",
        At(pointer)
    )]
    NonStrict {
        /// Our name of the tool.
        tool: String,
        /// The strict dialect asked for.
        dialect: Dialect,
        /// Where, in the exported schema.
        pointer: String,
        /// Why it cannot be strict.
        reason: String,
    },
    /// The toolset is over a limit the provider sets on one request. Every tool is still in
    /// the export: which to leave out or make non-strict is the caller's choice.
    #[error("{dialect}: {what}: {found}, where one request takes at most {allowed}; {fix}")]
    OverLimit {
        /// The dialect.
        dialect: Dialect,
        /// What is counted.
        what: &'static str,
        /// How many the toolset has.
        found: usize,
        /// How many the provider accepts.
        allowed: usize,
        /// What to do.
        fix: &'static str,
    },
    /// A tool, or one of its parameters, has no description: the model has only a name to
    /// go on. Found by [`check`].
    #[error(
        "tool `{tool}`{}: no description; {}",
        Parameter(pointer),
        MissingAdvice(pointer)
    )]
    MissingDescription {
        /// Our name of the tool.
        tool: String,
        /// The parameter's place in the input schema (`/properties/path`), empty for the
        /// tool itself.
        pointer: String,
    },
}

impl ExportProblem {
    /// The tool the problem is about (`None` for a limit over the whole toolset).
    #[must_use]
    pub fn tool(&self) -> Option<&str> {
        match self {
            ExportProblem::Lost { tool, .. }
            | ExportProblem::Refused { tool, .. }
            | ExportProblem::NonStrict { tool, .. }
            | ExportProblem::MissingDescription { tool, .. } => Some(tool),
            ExportProblem::OverLimit { .. } => None,
        }
    }

    /// The dialect the problem is about (`None` for a missing description, which is every
    /// dialect's).
    ///
    /// ```
    /// use tool_core::schema::{Dialect, ExportProblem};
    ///
    /// let dialect = Dialect::Anthropic { strict: true };
    /// let problem = ExportProblem::OverLimit {
    ///     dialect,
    ///     what: "tools",
    ///     found: 200,
    ///     allowed: 128,
    ///     fix: "send fewer".into(),
    /// };
    /// assert_eq!(problem.dialect(), Some(dialect));
    /// ```
    #[must_use]
    pub fn dialect(&self) -> Option<Dialect> {
        match self {
            ExportProblem::Lost { dialect, .. }
            | ExportProblem::Refused { dialect, .. }
            | ExportProblem::NonStrict { dialect, .. }
            | ExportProblem::OverLimit { dialect, .. } => Some(*dialect),
            ExportProblem::MissingDescription { .. } => None,
        }
    }

    /// The place in the schema (empty for the root or for the toolset).
    #[must_use]
    pub fn pointer(&self) -> &str {
        match self {
            ExportProblem::Lost { pointer, .. }
            | ExportProblem::Refused { pointer, .. }
            | ExportProblem::NonStrict { pointer, .. }
            | ExportProblem::MissingDescription { pointer, .. } => pointer,
            ExportProblem::OverLimit { .. } => "",
        }
    }

    /// `true` if a provider would reject the request as exported (a refused tool is not in
    /// the export, so its refusal is not one).
    #[must_use]
    pub fn rejects_request(&self) -> bool {
        matches!(self, ExportProblem::OverLimit { .. })
    }
}

struct At<'a>(&'a str);

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("at the root")
        } else {
            write!(f, "at `{}`", self.0)
        }
    }
}

struct Parameter<'a>(&'a str);

impl fmt::Display for Parameter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            write!(f, ", parameter at `{}`", self.0)
        }
    }
}

struct MissingAdvice<'a>(&'a str);

impl fmt::Display for MissingAdvice<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("write a doc comment on the tool function saying what it does")
        } else {
            f.write_str(
                "describe it in the `# Arguments` section of the doc comment, or with \
                 `#[arg(desc = \"...\")]`",
            )
        }
    }
}

/// One tool in one dialect: the declaration to send, the name in it, and what it lost.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ExportedTool {
    /// The name the provider knows the tool by (before a toolset resolves clashes).
    pub name: String,
    /// The tool declaration in the provider's shape, ready to go in a request's tool list.
    pub definition: Value,
    /// What the dialect could not express, and what became of it.
    pub problems: Vec<ExportProblem>,
    /// Whether the declaration is strict.
    pub strict: bool,
    stats: SchemaStats,
}

/// Counts a toolset's limits need, and what normalizing calls needs to know.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SchemaStats {
    /// Some optional property that did not take `null` was made nullable (OpenAI strict).
    pub(crate) made_nullable: bool,
    /// Properties, at any depth, that are not required.
    pub(crate) optional_parameters: usize,
    /// Properties, at any depth, whose schema is a union (`anyOf`, or several types).
    pub(crate) union_parameters: usize,
}

/// Why one tool cannot be exported in a dialect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool `{tool}` cannot be declared in {dialect}: {}", Joined(problems))]
pub struct ExportError {
    /// Our name of the tool.
    pub tool: String,
    /// The dialect.
    pub dialect: Dialect,
    /// Every reason ([`ExportProblem::Refused`]), then what else would have been lost.
    pub problems: Vec<ExportProblem>,
}

struct Joined<'a>(&'a [ExportProblem]);

impl fmt::Display for Joined<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let refused: Vec<String> = self
            .0
            .iter()
            .filter_map(|problem| match problem {
                ExportProblem::Refused {
                    pointer,
                    reason,
                    fix,
                    ..
                } => Some(format!("{}: {reason}; {fix}", At(pointer))),
                _ => None,
            })
            .collect();
        f.write_str(&refused.join(". "))
    }
}

/// One tool's declaration in a dialect, computed afresh (a [`Toolset`] caches them).
///
/// ```
/// use tool_core::schema::{export_tool, Dialect, OpenAiApi};
/// use tool_core::{tool, Registry};
///
/// /// Show the last lines of a log.
/// ///
/// /// # Arguments
/// /// * `lines` - How many lines.
/// #[tool(read_only, name = "doc_export_tail")]
/// fn tail(#[arg(default = 10)] lines: u32) -> String { lines.to_string() }
///
/// let tool = Registry::global().get("doc_export_tail").unwrap();
/// let strict = Dialect::OpenAi { strict: true, api: OpenAiApi::Responses };
/// let exported = export_tool(tool, strict).unwrap();
/// let parameters = &exported.definition["parameters"];
/// // Strict mode: every property required, the optional one nullable, the default in words.
/// assert_eq!(parameters["required"], serde_json::json!(["lines"]));
/// assert_eq!(parameters["properties"]["lines"]["type"], serde_json::json!(["integer", "null"]));
/// assert_eq!(parameters["properties"]["lines"]["description"], "How many lines. (default: 10)");
/// assert_eq!(exported.definition["strict"], true);
/// ```
///
/// # Errors
/// When the dialect cannot declare the tool: [`ExportError`] with the reasons.
pub fn export_tool(tool: &dyn Tool, dialect: Dialect) -> Result<ExportedTool, ExportError> {
    let spec = tool.spec();
    let name = NameRule::of(dialect).apply(&spec.name).into_owned();
    let mut rewriter = Rewriter::new(&spec.name, dialect);
    let mut stats = SchemaStats::default();
    let definition = match dialect {
        Dialect::Mcp => mcp::definition(tool, &name, &mut rewriter),
        Dialect::OpenAi { strict, api } => {
            openai::definition(tool, &name, strict, api, &mut rewriter, &mut stats)
        }
        Dialect::Anthropic { strict } => {
            anthropic::definition(tool, &name, strict, &mut rewriter, &mut stats)
        }
        Dialect::Gemini { form } => gemini::definition(tool, &name, form, &mut rewriter),
    };
    if !rewriter.refused.is_empty() {
        let mut problems = rewriter.refused;
        problems.append(&mut rewriter.lost);
        return Err(ExportError {
            tool: spec.name.to_string(),
            dialect,
            problems,
        });
    }
    Ok(ExportedTool {
        name,
        definition,
        problems: rewriter.lost,
        strict: dialect.is_strict(),
        stats,
    })
}

/// The parameters schema every non-MCP dialect starts from: the input schema with its
/// non-recursive `$ref`s inlined, no `$schema`, an object at the root. Returns `None` (the
/// tool refused) when the root cannot be made an object; `true` beside it when recursion is
/// left in `$defs`.
fn parameters(tool: &dyn Tool, rewriter: &mut Rewriter<'_>) -> Option<(Map<String, Value>, bool)> {
    let (schema, recursion) = rewrite::inline_references(tool.input_schema().as_value());
    let Value::Object(mut root) = schema else {
        rewriter.refuse(
            "",
            "the input schema is not an object schema",
            "give the tool an arguments struct",
        );
        return None;
    };
    root.remove("$schema");
    rewrite::flatten_root_union(rewriter, &mut root);
    if !rewrite::merge_all_of(&mut root) {
        rewriter.refuse(
            "",
            "the arguments are an `allOf` of schemas that are not objects",
            "take the arguments as one struct",
        );
    }
    if root.contains_key("$ref") {
        rewriter.refuse(
            "",
            "the arguments type refers to itself at the root",
            "wrap the recursive type in a field of an arguments struct",
        );
    }
    root.entry("type").or_insert_with(|| Value::from("object"));
    Some((root, recursion))
}

/// The tools of a toolset declared in one dialect, with everything the export lost or
/// refused and the names to map calls back.
///
/// ```
/// use tool_core::schema::{Dialect, OpenAiApi};
/// use tool_core::{tool, Toolset};
///
/// /// Show the last lines of a log.
/// ///
/// /// # Arguments
/// /// * `lines` - How many lines.
/// #[tool(read_only, name = "doc_export_set_tail")]
/// fn tail(#[arg(default = 10)] lines: u32) -> String { lines.to_string() }
///
/// let toolset = Toolset::named(["doc_export_set_tail"]).unwrap();
/// let export = toolset.export(Dialect::OpenAi { strict: true, api: OpenAiApi::ChatCompletions });
/// assert_eq!(export.tools[0]["function"]["name"], "doc_export_set_tail");
///
/// // A strict model sends `null` for an argument it leaves out; the tool sees it absent.
/// let call = export.call("doc_export_set_tail", r#"{"lines": null}"#);
/// assert_eq!(call.arguments, "{}");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Export {
    /// The dialect.
    pub dialect: Dialect,
    /// The tool declarations, in the toolset's order, in the provider's shape.
    pub tools: Vec<Value>,
    /// What the export lost or refused, tool by tool, then the limits the toolset is over.
    pub problems: Vec<ExportProblem>,
    /// The provider's names of the exported tools, both ways.
    pub names: ToolNames,
    /// The tools whose optional properties strict mode made nullable, by our name.
    nullable: FxHashMap<String, ToolHandle>,
}

impl Export {
    /// The arguments of a call of our tool `tool`, with the `null`s strict mode invited
    /// removed where the tool's own schema has the property optional and not nullable; the
    /// tool then sees those arguments as absent. Arguments that are not JSON, or that need
    /// nothing taken out, are returned as they came (the tool reports bad JSON itself).
    #[must_use]
    pub fn normalize_arguments<'a>(&self, tool: &str, arguments: &'a str) -> Cow<'a, str> {
        match self.nullable.get(tool) {
            Some(handle) => nulls::strip_invited_nulls(handle.input_schema().as_value(), arguments),
            None => Cow::Borrowed(arguments),
        }
    }

    /// A provider's tool call as ours: the name mapped back (a name nothing was exported
    /// under is kept, for the coordinator to answer "unknown tool"), and the arguments
    /// normalized ([`Export::normalize_arguments`]).
    /// Give it the provider's call id with [`ToolCall::with_call_id`].
    #[must_use]
    pub fn call(&self, provider_name: &str, arguments: &str) -> ToolCall {
        let name = self.names.original(provider_name).unwrap_or(provider_name);
        let arguments = self.normalize_arguments(name, arguments).into_owned();
        ToolCall::new(name, arguments)
    }

    /// `true` if the provider would take the request as exported: no limit of one request is
    /// exceeded. (Refused tools are simply absent.)
    #[must_use]
    pub fn is_acceptable(&self) -> bool {
        !self.problems.iter().any(ExportProblem::rejects_request)
    }
}

/// Every problem any dialect would report for the toolset (each dialect strict and not,
/// each API and form), then the tools and top-level parameters without a description.
///
/// ```
/// use tool_core::schema::{check, ExportProblem};
/// use tool_core::{tool, Toolset};
///
/// /// Greet someone.
/// #[tool(read_only, name = "doc_check_greet")]
/// fn greet(name: String) -> String { format!("hello {name}") }
///
/// let problems = check(&Toolset::named(["doc_check_greet"]).unwrap());
/// assert!(problems.iter().any(|problem| matches!(
///     problem,
///     ExportProblem::MissingDescription { pointer, .. } if pointer == "/properties/name"
/// )));
/// ```
#[must_use]
pub fn check(toolset: &Toolset) -> Vec<ExportProblem> {
    let mut problems = Vec::new();
    for dialect in Dialect::ALL {
        problems.extend(toolset.export(dialect).problems);
    }
    for tool in toolset.iter() {
        let spec = tool.spec();
        if spec.description.trim().is_empty() {
            problems.push(ExportProblem::MissingDescription {
                tool: spec.name.to_string(),
                pointer: String::new(),
            });
        }
        let schema = tool.input_schema().as_value();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                if !has_description(schema, property) {
                    problems.push(ExportProblem::MissingDescription {
                        tool: spec.name.to_string(),
                        pointer: rewrite::child("/properties", name),
                    });
                }
            }
        }
    }
    problems
}

/// A property is described by its own `description`, or by that of the type it refers to.
fn has_description(root: &Value, property: &Value) -> bool {
    let described = |schema: &Value| {
        schema
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|text| !text.trim().is_empty())
    };
    described(property)
        || property
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
            .is_some_and(described)
}

/// Each tool's export in each dialect, made on first use. Shared by clones of a toolset;
/// a toolset that changes starts a new one.
#[derive(Clone, Default)]
pub(crate) struct ExportCache {
    cells: Arc<OnceLock<Box<[ToolCells]>>>,
}

type ToolCells = [OnceLock<Result<ExportedTool, ExportError>>; Dialect::ALL.len()];

impl ExportCache {
    /// The export of the tool at `position` of `tools`.
    fn get<'a>(
        &'a self,
        tools: &[ToolHandle],
        position: usize,
        dialect: Dialect,
    ) -> &'a Result<ExportedTool, ExportError> {
        let cells = self.cells.get_or_init(|| {
            tools
                .iter()
                .map(|_| std::array::from_fn(|_| OnceLock::new()))
                .collect()
        });
        cells[position][dialect.position()].get_or_init(|| export_tool(&*tools[position], dialect))
    }
}

impl fmt::Debug for ExportCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ExportCache")
    }
}

/// OpenAI: at most 128 tools in one request.
const OPENAI_MAX_TOOLS: usize = 128;
/// Anthropic strict tool use, per request: strict tools, optional parameters and union-typed
/// parameters over all strict schemas.
const ANTHROPIC_MAX_STRICT_TOOLS: usize = 20;
const ANTHROPIC_MAX_OPTIONAL: usize = 24;
const ANTHROPIC_MAX_UNIONS: usize = 16;

/// The export of `tools` (a toolset's, in order) through `cache`.
pub(crate) fn export_toolset(
    tools: &[ToolHandle],
    cache: &ExportCache,
    dialect: Dialect,
    non_strict_fallback: bool,
) -> Export {
    let rule = NameRule::of(dialect);
    let mut export = Export {
        dialect,
        tools: Vec::with_capacity(tools.len()),
        problems: Vec::new(),
        names: ToolNames::default(),
        nullable: FxHashMap::default(),
    };
    let mut totals = SchemaStats::default();
    let mut strict_tools = 0;
    for (position, handle) in tools.iter().enumerate() {
        let exported = match cache.get(tools, position, dialect) {
            Ok(exported) => exported,
            Err(error) if non_strict_fallback && dialect.is_strict() => {
                match cache.get(tools, position, dialect.non_strict()) {
                    Ok(exported) => {
                        export
                            .problems
                            .extend(error.problems.iter().filter_map(|problem| match problem {
                                ExportProblem::Refused {
                                    tool,
                                    pointer,
                                    reason,
                                    ..
                                } => Some(ExportProblem::NonStrict {
                                    tool: tool.clone(),
                                    dialect,
                                    pointer: pointer.clone(),
                                    reason: reason.clone(),
                                }),
                                _ => None,
                            }));
                        exported
                    }
                    Err(error) => {
                        export.problems.extend(error.problems.iter().cloned());
                        continue;
                    }
                }
            }
            Err(error) => {
                export.problems.extend(error.problems.iter().cloned());
                continue;
            }
        };
        export.problems.extend(exported.problems.iter().cloned());
        let original = handle.spec().name.as_ref();
        let given = export
            .names
            .insert(rule, original, &exported.name)
            .to_owned();
        let mut definition = exported.definition.clone();
        if given != exported.name {
            rename(&mut definition, dialect, &given);
        }
        export.tools.push(definition);
        if exported.stats.made_nullable {
            export.nullable.insert(original.to_owned(), handle.clone());
        }
        if exported.strict {
            strict_tools += 1;
            totals.optional_parameters += exported.stats.optional_parameters;
            totals.union_parameters += exported.stats.union_parameters;
        }
    }
    let mut over = |what, found, allowed, fix| {
        if found > allowed {
            export.problems.push(ExportProblem::OverLimit {
                dialect,
                what,
                found,
                allowed,
                fix,
            });
        }
    };
    match dialect {
        Dialect::OpenAi { .. } => over(
            "tools",
            export.tools.len(),
            OPENAI_MAX_TOOLS,
            "offer a smaller toolset per request",
        ),
        Dialect::Anthropic { strict: true } => {
            over(
                "strict tools",
                strict_tools,
                ANTHROPIC_MAX_STRICT_TOOLS,
                "make some tools non-strict or offer fewer per request",
            );
            over(
                "optional parameters over all strict tools",
                totals.optional_parameters,
                ANTHROPIC_MAX_OPTIONAL,
                "make some tools non-strict or give parameters no default",
            );
            over(
                "union-typed parameters over all strict tools",
                totals.union_parameters,
                ANTHROPIC_MAX_UNIONS,
                "make some tools non-strict or use fewer enums with data",
            );
        }
        _ => {}
    }
    export
}

/// Renames a declaration whose name clashed with another tool's in the provider's rule.
fn rename(definition: &mut Value, dialect: Dialect, name: &str) {
    let target = match dialect {
        Dialect::OpenAi {
            api: OpenAiApi::ChatCompletions,
            ..
        } => definition.get_mut("function"),
        _ => Some(definition),
    };
    if let Some(Value::Object(target)) = target {
        target.insert("name".into(), Value::from(name));
    }
}

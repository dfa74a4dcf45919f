//! Every tool-std tool in every provider dialect: golden files (`tests/dialects/*.json`,
//! rewritten with `UPDATE_GOLDENS=1`), JSON Schema validity, and the providers' documented
//! rules, checked by the same independent checker as tool-core's dialect tests.

#[path = "../../tests/common/export_checks.rs"]
mod export_checks;
#[path = "../../tests/common/provider_rules.rs"]
mod provider_rules;

// Linked for its tools: the registry holds what is linked.
extern crate tool_std;

use std::path::PathBuf;

use serde_json::Value;
use tool_core::Toolset;
use tool_core::schema::{Dialect, ExportProblem, check};

fn tool_std() -> Toolset {
    let toolset = Toolset::from_crate("tool_std");
    assert!(!toolset.is_empty(), "tool-std's tools are linked");
    toolset
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/dialects")
}

#[test]
fn every_tool_matches_its_golden_file_in_every_dialect() {
    let toolset = tool_std();
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
    export_checks::assert_valid_json_schema(&tool_std());
}

#[test]
fn every_exported_tool_follows_its_providers_documented_rules() {
    export_checks::assert_follows_documented_rules(&tool_std());
}

#[test]
fn every_tool_is_declared_in_every_dialect() {
    let toolset = tool_std();
    for dialect in Dialect::ALL {
        let export = toolset.export(dialect);
        let refused: Vec<String> = export
            .problems
            .iter()
            .filter(|problem| matches!(problem, ExportProblem::Refused { .. }))
            .map(ToString::to_string)
            .collect();
        assert!(refused.is_empty(), "{refused:#?}");
        assert_eq!(export.tools.len(), toolset.len(), "{dialect}");
        if dialect != (Dialect::Anthropic { strict: true }) {
            assert!(export.is_acceptable(), "{dialect}: {:#?}", export.problems);
        }
    }
}

#[test]
fn all_of_tool_std_at_once_is_over_anthropics_strict_limits_on_tools_and_optional_parameters() {
    let export = tool_std().export(Dialect::Anthropic { strict: true });
    let over: Vec<(&str, usize)> = export
        .problems
        .iter()
        .filter_map(|problem| match problem {
            ExportProblem::OverLimit { what, allowed, .. } => Some((*what, *allowed)),
            _ => None,
        })
        .collect();
    assert_eq!(
        over,
        [
            ("strict tools", 20),
            ("optional parameters over all strict tools", 24)
        ]
    );
    assert!(!export.is_acceptable());
}

#[test]
fn every_tool_and_parameter_has_a_description() {
    let missing: Vec<String> = check(&tool_std())
        .iter()
        .filter(|problem| matches!(problem, ExportProblem::MissingDescription { .. }))
        .map(ToString::to_string)
        .collect();
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn a_model_s_nulls_for_optional_arguments_are_taken_out_for_every_tool() {
    // What a strict OpenAI model sends for a call that leaves every optional argument out.
    let toolset = tool_std();
    let strict = Dialect::OpenAi {
        strict: true,
        api: tool_core::schema::OpenAiApi::Responses,
    };
    let export = toolset.export(strict);
    for tool in toolset.iter() {
        let name = tool.spec().name.as_ref();
        let schema = tool.input_schema().as_value();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(properties) = schema["properties"].as_object() else {
            continue;
        };
        let nulls: serde_json::Map<String, Value> = properties
            .keys()
            .filter(|key| !required.contains(&key.as_str()))
            .map(|key| (key.clone(), Value::Null))
            .collect();
        let call = export.call(name, &Value::Object(nulls).to_string());
        assert_eq!(call.arguments, "{}", "{name}");
    }
}

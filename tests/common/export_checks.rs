//! The checks every exported toolset gets, here and in tool-std's dialect tests
//! (`#[path]`-included by both, beside `provider_rules.rs`): its golden files, JSON Schema
//! validity, and the providers' documented rules.

use std::path::Path;

use serde_json::{Value, json};
use tool_core::Toolset;
use tool_core::schema::{Dialect, Export};

use super::provider_rules;

/// An export as a reviewer reads it: the declarations, what was lost or refused, renames.
pub fn golden(export: &Export) -> Value {
    json!({
        "dialect": export.dialect.to_string(),
        "tools": export.tools,
        "problems": export.problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "renamed": export.names.renamed(),
    })
}

/// Compares `actual` with the golden file `dir/<dialect>.json`, or writes it when
/// `UPDATE_GOLDENS` is set.
pub fn compare_with_golden(dir: &Path, dialect: Dialect, actual: &Value) {
    let path = dir.join(format!("{}.json", dialect.key()));
    let text = serde_json::to_string_pretty(actual).unwrap() + "\n";
    if std::env::var_os("UPDATE_GOLDENS").is_some() {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no golden file {}: run with UPDATE_GOLDENS=1 and review it",
            path.display()
        )
    });
    assert!(
        expected == text,
        "{} differs from the export; if the change is intended, run with UPDATE_GOLDENS=1 and \
         review the diff",
        path.display()
    );
}

/// Panics unless every schema `toolset` exports, in every dialect, is valid JSON Schema.
pub fn assert_valid_json_schema(toolset: &Toolset) {
    for dialect in Dialect::ALL {
        for definition in toolset.export(dialect).tools {
            let Some(parameters) = provider_rules::parameters(dialect, &definition) else {
                continue;
            };
            let schema = provider_rules::as_json_schema(dialect, parameters);
            if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
                panic!("{dialect}: {error}\n{schema:#}");
            }
            if let Err(error) = jsonschema::draft202012::new(&schema) {
                panic!("{dialect}: {error}\n{schema:#}");
            }
        }
    }
}

/// Panics unless every tool `toolset` exports follows its provider's documented rules.
pub fn assert_follows_documented_rules(toolset: &Toolset) {
    for dialect in Dialect::ALL {
        for definition in toolset.export(dialect).tools {
            let violations = provider_rules::violations(dialect, &definition);
            assert!(
                violations.is_empty(),
                "{dialect}: {violations:#?}\n{definition:#}"
            );
        }
    }
}

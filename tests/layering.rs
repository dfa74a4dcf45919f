//! The seam between tool-core's two halves, held by a test as well as by the build without
//! default features: the definition side (`tool-core/src/definition/`: what a tool is, its
//! schema, arguments, context and errors) never names the runtime (the coordinator, policy,
//! approvals, hooks, middleware, settings, MCP). What the runtime attaches to a call reaches
//! tools through the context's extensions, read by `FromContext` impls that live with the
//! runtime (issue 25).
//!
//! Comments are left out: a doc link may point across the seam. So is a lint allowed where the
//! runtime is off (`cfg_attr(not(feature = "runtime"), allow(dead_code))` on an item only the
//! runtime calls).

use std::path::{Path, PathBuf};

/// Paths into the runtime, as the definition side would write them.
const RUNTIME_PATHS: &[&str] = &[
    "crate::runtime",
    "crate::coordinator",
    "crate::Coordinator",
    "crate::approval",
    "crate::policy",
    "crate::hooks",
    "crate::middleware",
    "crate::settings",
    "crate::budget",
    "crate::events",
    "crate::mcp",
    "super::super::runtime",
    "feature = \"runtime\"",
];

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            into.push(path);
        }
    }
}

/// `line` without its comment (`//` outside a string, roughly: the definition side's code
/// holds no `//` inside string literals that name the runtime).
fn code_of(line: &str) -> &str {
    line.split_once("//").map_or(line, |(code, _)| code)
}

#[test]
fn the_definition_side_never_names_the_runtime() {
    let definition = Path::new(env!("CARGO_MANIFEST_DIR")).join("tool-core/src/definition");
    let mut files = Vec::new();
    rust_files(&definition, &mut files);
    assert!(files.len() > 20, "the definition side was not found");
    let mut crossings = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = code_of(line);
            // A lint allowed where the runtime is off (an item only the runtime calls) is not
            // a dependency on it.
            if code.contains("cfg_attr(not(feature = \"runtime\"), allow(") {
                continue;
            }
            if let Some(path) = RUNTIME_PATHS.iter().find(|path| code.contains(*path)) {
                crossings.push(format!(
                    "{}:{}: names `{path}`: {}",
                    file.strip_prefix(env!("CARGO_MANIFEST_DIR"))
                        .unwrap_or(file)
                        .display(),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        crossings.is_empty(),
        "the definition side names the runtime; attach what a call needs as a context extension \
         (`ToolContext::extensions_mut`) and read it in a `FromContext` impl on the runtime side:\n{}",
        crossings.join("\n")
    );
}

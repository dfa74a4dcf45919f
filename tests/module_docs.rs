//! Module docs that fit (issue 25, item 7): a module's doc says what the module owns in under
//! 30 lines, and reference material lives in the guide (`docs/*.md`), where its examples are
//! compiled too. The modules still over the limit are listed with their current length: the
//! list may only shrink, and a listed module may not grow. Trimming one means moving its
//! reference into the guide and taking it off the list.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most lines a module doc may have.
const LIMIT: usize = 29;

/// Modules whose docs are still longer, with the most lines each may keep until trimmed.
const NOT_YET_TRIMMED: &[(&str, usize)] = &[];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            found.push(path);
        }
    }
}

/// The number of `//!` lines a file starts with.
fn module_doc_lines(text: &str) -> usize {
    text.lines()
        .take_while(|line| line.starts_with("//!"))
        .count()
}

/// Every source file of the three crates, by its path from the workspace root, with the
/// length of its module doc.
fn module_docs() -> BTreeMap<String, usize> {
    let mut files = Vec::new();
    for crate_dir in ["tool-core/src", "tool-std/src", "tool-macros/src"] {
        sources(&root().join(crate_dir), &mut files);
    }
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path
                .strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (name, module_doc_lines(&text))
        })
        .collect()
}

#[test]
fn module_docs_fit_in_under_thirty_lines() {
    let allowed: BTreeMap<&str, usize> = NOT_YET_TRIMMED.iter().copied().collect();
    let mut over = Vec::new();
    for (name, lines) in module_docs() {
        let limit = allowed.get(name.as_str()).copied().unwrap_or(LIMIT);
        if lines > limit {
            over.push(format!(
                "{name}: {lines} lines of module doc (at most {limit}); keep what the module owns there and move reference material into docs/*.md"
            ));
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}

#[test]
fn the_list_of_modules_not_yet_trimmed_holds_only_modules_still_over_the_limit() {
    let docs = module_docs();
    let stale: Vec<String> = NOT_YET_TRIMMED
        .iter()
        .filter(|(name, _)| docs.get(*name).is_none_or(|lines| *lines <= LIMIT))
        .map(|(name, _)| format!("{name} is trimmed (or gone): take it off NOT_YET_TRIMMED"))
        .collect();
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

#[test]
fn a_module_doc_is_counted_from_the_first_line_to_the_first_line_of_code() {
    assert_eq!(
        module_doc_lines("//! One.\n//!\n//! Two.\n\nuse x;\n//! not it"),
        3
    );
    assert_eq!(module_doc_lines("use x;\n"), 0);
}

/// Feature-gated public items say which feature (or platform) they need on docs.rs
/// (`#[cfg_attr(docsrs, doc(cfg(..)))]` beside the `#[cfg(..)]`), as tokio's do (issue 25).
#[test]
fn feature_gated_public_items_say_what_they_need() {
    let mut files = Vec::new();
    for crate_dir in ["tool-core/src", "tool-std/src"] {
        sources(&root().join(crate_dir), &mut files);
    }
    let mut missing = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (index, line) in lines.iter().enumerate() {
            let line = line.trim_start();
            if !(line.starts_with("#[cfg(feature") || line.starts_with("#[cfg(unix")) {
                continue;
            }
            let attributes: Vec<&str> = lines[index..]
                .iter()
                .map(|line| line.trim_start())
                .take_while(|line| line.starts_with("#["))
                .collect();
            let item = lines
                .get(index + attributes.len())
                .map_or("", |line| line.trim_start());
            let documented = attributes
                .iter()
                .any(|attribute| attribute.contains("doc(cfg("));
            if item.starts_with("pub ") && !documented {
                missing.push(format!(
                    "{}:{}: `{item}` is gated by `{line}` without `#[cfg_attr(docsrs, doc(cfg(..)))]`",
                    path.strip_prefix(root()).unwrap().display(),
                    index + 1
                ));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

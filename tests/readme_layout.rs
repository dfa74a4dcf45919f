//! CONTRIBUTING.md's Layout section matches the tree (issue 25): every folder of the crates' sources
//! (and of the workspace's root) is named there, and every folder it names exists. A folder
//! added, moved or removed without the Layout saying so fails here, naming it.

use std::collections::BTreeSet;
use std::path::Path;

/// The folders whose sub-folders the Layout must name.
const SOURCE_ROOTS: &[&str] = &[
    "tool-core/src/definition",
    "tool-core/src/runtime",
    "tool-std/src",
    "tool-macros/src",
];

/// The workspace's top-level folders the Layout describes (build output and tooling aside).
const IGNORED_AT_ROOT: &[&str] = &["target", ".git", ".ci", ".github", "docs"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The code block under `## Layout`.
fn layout() -> String {
    let readme = std::fs::read_to_string(root().join("CONTRIBUTING.md")).unwrap();
    let section = readme
        .split("\n## Layout\n")
        .nth(1)
        .expect("CONTRIBUTING.md has a `## Layout` section");
    let block = section
        .split("```")
        .nth(1)
        .expect("the Layout section holds a code block");
    block.to_owned()
}

/// The names written as folders in `layout` (`name/`, or `a/b/`, each part).
fn named_folders(layout: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for word in layout.split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | ':')) {
        let Some(path) = word.strip_suffix('/') else {
            continue;
        };
        for part in path.split('/') {
            if !part.is_empty() {
                names.insert(part.to_owned());
            }
        }
    }
    names
}

fn sub_folders(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
        .collect();
    found.sort();
    found
}

/// The names of every folder beneath `dir`.
fn every_folder(dir: &Path, into: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            if let Some(name) = entry.file_name().to_str() {
                into.insert(name.to_owned());
            }
            every_folder(&entry.path(), into);
        }
    }
}

/// Whether `name` is written in `layout` as a word (`walk`, `src/walk`, `walk/`).
fn mentions(layout: &str, name: &str) -> bool {
    layout
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .any(|word| word == name)
}

#[test]
fn every_source_folder_is_named_in_the_readme_layout() {
    let layout = layout();
    let mut missing = Vec::new();
    for source in SOURCE_ROOTS {
        for folder in sub_folders(&root().join(source)) {
            if !mentions(&layout, &folder) {
                missing.push(format!("{source}/{folder}"));
            }
        }
    }
    for folder in sub_folders(root()) {
        if !folder.starts_with('.')
            && !IGNORED_AT_ROOT.contains(&folder.as_str())
            && !mentions(&layout, &folder)
        {
            missing.push(folder);
        }
    }
    assert!(
        missing.is_empty(),
        "CONTRIBUTING.md's Layout section does not name these folders; add a line for each: {missing:?}"
    );
}

#[test]
fn every_folder_the_readme_layout_names_exists() {
    let layout = layout();
    let mut folders = BTreeSet::new();
    for top in [
        "tool-core",
        "tool-std",
        "tool-macros",
        "tests",
        "benches",
        "examples",
    ] {
        every_folder(&root().join(top), &mut folders);
    }
    folders.extend(sub_folders(root()));
    let stale: Vec<String> = named_folders(&layout)
        .into_iter()
        .filter(|name| !folders.contains(name))
        .collect();
    assert!(
        stale.is_empty(),
        "CONTRIBUTING.md's Layout section names folders that do not exist (moved or removed?): {stale:?}"
    );
}

//! `repo_map`: a fixture repository in several languages whose store (`src/store.rs`) every
//! other file uses, so it must rank first; focus, the token budget, files without symbols,
//! ignored files and the per-file cache.

use std::path::Path;

use serde_json::json;
use tool_core::ToolResult;
use tool_std::search::repo_map::parses_under;

mod common;

/// The shared fixture over `repo_map`, in a copy of the fixture repository.
struct Fixture(common::Fixture);

impl std::ops::Deref for Fixture {
    type Target = common::Fixture;

    fn deref(&self) -> &common::Fixture {
        &self.0
    }
}

impl Fixture {
    /// A copy of `tests/fixtures/repo_map`, with an ignored file and a hidden one added.
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        copy(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repo_map"),
            dir.path(),
        );
        // Both refer to the store many times: were they mapped, they would change the ranks.
        for ignored in ["build/generated.rs", ".hidden/gen.rs"] {
            let path = dir.path().join(ignored);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(
                &path,
                "pub fn generated() { format_row(); format_row(); renderPage(); }\n",
            )
            .unwrap();
        }
        Fixture(common::Fixture::over(dir, &["repo_map"], None))
    }

    fn call(&self, arguments: serde_json::Value) -> ToolResult {
        self.0.call("repo_map", arguments)
    }

    fn map(&self, arguments: serde_json::Value) -> String {
        common::ok(&self.call(arguments))
    }
}

fn copy(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The files of a map, in order (the lines that are not signatures or the closing note).
fn files(map: &str) -> Vec<&str> {
    map.lines()
        .filter(|line| !line.contains('│') && !line.starts_with('('))
        .collect()
}

#[test]
fn the_file_everything_uses_ranks_first_with_its_signatures() {
    let fx = Fixture::new();
    let map = fx.map(json!({}));
    assert_eq!(
        files(&map),
        [
            "src/store.rs",
            "scripts/fmt.py",
            "web/render.ts",
            "native/checksum.go",
            "scripts/sync.py",
            "src/main.rs",
            "web/client.ts",
            "README.md",
            "docs/notes.txt",
        ]
    );
    assert!(
        map.starts_with(
            "src/store.rs\n    3│ pub struct Store {\n    7│ pub fn open_store(path: &str) -> Store {\n   12│ pub fn save_record(store: &mut Store, record: &str) {\n   17│ pub fn len(&self) -> usize {\nscripts/fmt.py\n    1│ def format_row(row):\n"
        ),
        "{map}"
    );
    // Python, TypeScript and Go definitions by their first lines; bodies never.
    assert!(map.contains("web/client.ts\n    3│ export interface Client {\n    7│ export function fetchRecords(client: Client): string {\n"), "{map}");
    assert!(
        map.contains("    4│ func Checksum(data []byte) int {\n"),
        "{map}"
    );
    assert!(!map.contains("records.push"), "{map}");
    // The same map every time.
    assert_eq!(fx.map(json!({})), map);
}

#[test]
fn other_files_are_listed_without_symbols_and_ignored_ones_left_out() {
    let fx = Fixture::new();
    let map = fx.map(json!({}));
    assert!(map.ends_with("web/client.ts\n    3│ export interface Client {\n    7│ export function fetchRecords(client: Client): string {\nREADME.md\ndocs/notes.txt"), "{map}");
    assert!(
        !map.contains("build/") && !map.contains(".hidden") && !map.contains("generated"),
        "{map}"
    );
    assert!(!map.contains(".gitignore"), "{map}");
}

#[test]
fn focus_on_a_file_or_an_identifier_ranks_toward_it() {
    let fx = Fixture::new();
    let by_file = fx.map(json!({"focus": ["web/render.ts"]}));
    assert_eq!(
        files(&by_file)[..3],
        ["web/render.ts", "scripts/fmt.py", "src/store.rs"]
    );
    // A file named as its name alone, too.
    assert_eq!(fx.map(json!({"focus": ["render.ts"]})), by_file);
    let by_name = fx.map(json!({"focus": ["format_row"]}));
    assert_eq!(
        files(&by_name)[..3],
        ["scripts/fmt.py", "src/store.rs", "web/render.ts"]
    );
    let unfocused = fx.map(json!({}));
    assert_eq!(fx.map(json!({"focus": ["no_such_thing"]})), unfocused);
}

#[test]
fn the_token_budget_cuts_the_map_and_says_what_it_left_out() {
    let fx = Fixture::new();
    let map = fx.map(json!({"max_tokens": 90}));
    assert_eq!(
        map,
        "src/store.rs\n    3│ pub struct Store {\n    7│ pub fn open_store(path: &str) -> Store {\n   12│ pub fn save_record(store: &mut Store, record: &str) {\n   17│ pub fn len(&self) -> usize {\n(8 of 9 files left out to fit max_tokens=90; raise it, map a subdirectory with `path`, or set `focus`)"
    );
    let bigger = fx.map(json!({"max_tokens": 150}));
    assert!(
        bigger.contains("scripts/fmt.py") && bigger.contains("files left out"),
        "{bigger}"
    );
    assert!(bigger.len() > map.len());
    // The note included, the map keeps to its budget.
    assert!(map.len() <= 90 * 4 && bigger.len() <= 150 * 4);
    assert!(!fx.map(json!({})).contains("left out"));
}

#[test]
fn a_second_map_parses_only_the_files_that_changed() {
    let fx = Fixture::new();
    let first = fx.map(json!({}));
    // Seven files in languages with a grammar; README.md and notes.txt are never parsed.
    assert_eq!(parses_under(fx.dir.path()), 7);
    assert_eq!(fx.map(json!({})), first);
    assert_eq!(parses_under(fx.dir.path()), 7);
    let render = fx.dir.path().join("web/render.ts");
    let mut text = std::fs::read_to_string(&render).unwrap();
    text.push_str("\nexport function renderFooter(): string {\n  return \"\";\n}\n");
    std::fs::write(&render, text).unwrap();
    let third = fx.map(json!({}));
    assert_eq!(parses_under(fx.dir.path()), 8);
    assert!(
        third.contains("    5│ export function renderFooter(): string {"),
        "{third}"
    );
}

#[test]
fn every_language_with_a_grammar_gives_its_definitions() {
    let fx = Fixture::new();
    let sources = [
        (
            "langs/a.js",
            "function jsThing(a) {\n  return a;\n}\n",
            "function jsThing(a) {",
        ),
        (
            "langs/b.java",
            "class JavaThing {\n  int size() { return 1; }\n}\n",
            "int size() { return 1; }",
        ),
        (
            "langs/c.c",
            "int c_thing(int x) {\n  return x;\n}\n",
            "int c_thing(int x) {",
        ),
        (
            "langs/d.cpp",
            "class CppThing {\n public:\n  int get();\n};\n",
            "class CppThing {",
        ),
        (
            "langs/e.tsx",
            "export function TsxThing(): number {\n  return 1;\n}\n",
            "export function TsxThing(): number {",
        ),
    ];
    for (path, source, _) in sources {
        let path = fx.dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, source).unwrap();
    }
    let map = fx.map(json!({"path": "langs"}));
    for (path, _, signature) in sources {
        assert!(map.contains(&format!("{path}\n")), "{path} in {map}");
        assert!(
            map.contains(&format!("│ {signature}\n")) || map.ends_with(&format!("│ {signature}")),
            "{signature} in {map}"
        );
    }
    assert!(!map.contains("src/store.rs"), "{map}");
}

#[test]
fn a_path_that_is_not_a_directory_is_an_error() {
    let fx = Fixture::new();
    let result = fx.call(json!({"path": "README.md"}));
    assert!(result.is_error());
    assert!(
        result.text().contains("not a directory"),
        "{}",
        result.text()
    );
}

#[test]
fn references_count_in_every_language_with_a_grammar() {
    let fx = Fixture::new();
    // In each directory, a call from one language lifts the file defining the name called over
    // one the path order would put first.
    let callers = [
        ("rs", "fn main() {\n    target_fn();\n}\n"),
        ("py", "def main():\n    target_fn()\n"),
        ("js", "function main() {\n  target_fn();\n}\n"),
        ("ts", "function main(): void {\n  target_fn();\n}\n"),
        ("go", "package main\n\nfunc main() {\n\ttarget_fn()\n}\n"),
        (
            "java",
            "class Main {\n  void main() {\n    target_fn();\n  }\n}\n",
        ),
        ("c", "int main(void) {\n  return target_fn();\n}\n"),
        ("cpp", "int main() {\n  return target_fn();\n}\n"),
    ];
    for (extension, source) in callers {
        let dir = fx.dir.path().join("refs").join(extension);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a_other.py"), "def other_fn():\n    pass\n").unwrap();
        std::fs::write(dir.join("z_target.py"), "def target_fn():\n    pass\n").unwrap();
        std::fs::write(dir.join(format!("caller.{extension}")), source).unwrap();
        let map = fx.map(json!({ "path": format!("refs/{extension}") }));
        assert_eq!(
            files(&map)[0],
            format!("refs/{extension}/z_target.py"),
            "{extension}: {map}"
        );
    }
}

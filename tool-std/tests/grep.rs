//! `grep`: ripgrep's search through a coordinator: modes, context, paging, encodings, binary
//! files, and what it leaves out said (claude-code#16936).

use serde_json::json;
use tool_core::ToolResult;

mod common;
use common::{Fixture, ok};

fn fixture() -> Fixture {
    Fixture::new(&["grep"])
}

impl Fixture {
    fn grep(&self, arguments: serde_json::Value) -> ToolResult {
        self.call("grep", arguments)
    }
}

#[test]
fn the_three_output_modes() {
    let fx = fixture();
    fx.file("src/a.rs", b"fn alpha() {}\nfn beta() {}\n");
    fx.file("src/b.rs", b"// nothing\n");
    fx.file("docs/c.md", b"alpha and alpha\n");
    assert_eq!(
        ok(&fx.grep(json!({"pattern": "alpha"}))),
        "docs/c.md\nsrc/a.rs"
    );
    assert_eq!(
        ok(&fx.grep(json!({"pattern": "fn \\w+", "output_mode": "count"}))),
        "src/a.rs:2"
    );
    assert_eq!(
        ok(&fx.grep(json!({"pattern": "beta", "output_mode": "content"}))),
        "src/a.rs:2:fn beta() {}"
    );
}

/// The files are searched in parallel as they are walked, and come out in the walk's order:
/// by path, component by component (`a/x` before `a-b/y`, though `-` sorts before `/`).
#[test]
fn matches_come_out_in_path_order_from_a_parallel_search() {
    let fx = fixture();
    let mut expected = Vec::new();
    for dir in ["a", "a-b", "b"] {
        for file in 0..40 {
            let path = format!("{dir}/f{file:02}.txt");
            fx.file(&path, b"needle\n");
            expected.push(path);
        }
    }
    fx.file("a.rs", b"needle\n");
    expected.insert(80, "a.rs".to_owned());
    let found = ok(&fx.grep(json!({"pattern": "needle", "head_limit": 1000})));
    assert_eq!(found.lines().collect::<Vec<_>>(), expected);
}

#[test]
fn context_glob_type_and_case() {
    let fx = fixture();
    fx.file("a.py", b"one\ntwo\nTHREE\nfour\nfive\n");
    fx.file("b.txt", b"three\n");
    assert_eq!(
        ok(&fx.grep(json!({"pattern": "three", "-i": true, "-C": 1, "output_mode": "content", "glob": "*.py"}))),
        "a.py-2-two\na.py:3:THREE\na.py-4-four"
    );
    assert_eq!(
        ok(&fx.grep(json!({"pattern": "three", "-i": true, "type": "py"}))),
        "a.py"
    );
    assert_eq!(
        ok(&fx.grep(json!({"pattern": "three", "include": "*.txt"}))),
        "b.txt"
    );
}

#[test]
fn paging_has_no_gaps_or_repeats() {
    let fx = fixture();
    let text: String = (1..=10).map(|i| format!("match {i}\n")).collect();
    fx.file("a.txt", text.as_bytes());
    let first =
        ok(&fx.grep(json!({"pattern": "match", "output_mode": "content", "head_limit": 4})));
    assert!(
        first.ends_with("(lines 1-4 of 10; continue with offset=4)"),
        "{first}"
    );
    let second = ok(&fx
        .grep(json!({"pattern": "match", "output_mode": "content", "head_limit": 4, "offset": 4})));
    assert!(second.starts_with("a.txt:5:match 5\n"), "{second}");
}

#[test]
fn ignored_and_hidden_files_left_out_are_said_and_searched_on_request() {
    let fx = fixture();
    fx.file(".gitignore", b"build/\n");
    fx.file("build/gen.rs", b"needle\n");
    fx.file(".hidden/x.txt", b"needle\n");
    fx.file(".git/config", b"needle\n");
    let none = ok(&fx.grep(json!({"pattern": "needle"})));
    assert!(
        none.contains("no match") && none.contains("2 files that the search left out"),
        "{none}"
    );
    assert!(none.contains("no_ignore=true"), "{none}");
    assert_eq!(
        ok(&fx.grep(json!({"pattern": "needle", "no_ignore": true, "include_hidden": true}))),
        ".hidden/x.txt\nbuild/gen.rs"
    );
}

#[test]
fn binary_files_are_skipped_and_other_encodings_searched() {
    let fx = fixture();
    fx.file("blob.bin", b"needle\0\x01\x02");
    fx.file("latin1.txt", b"caf\xe9 needle\n");
    fx.file("crlf.txt", b"a\r\nneedle here\r\n");
    assert_eq!(
        ok(&fx.grep(json!({"pattern": "needle", "output_mode": "content"}))),
        "crlf.txt:2:needle here\nlatin1.txt:1:café needle"
    );
}

#[test]
fn long_lines_are_cut_and_multiline_patterns_span_lines() {
    let fx = fixture();
    fx.file(
        "wide.txt",
        format!("needle{}\n", "x".repeat(1_000_000)).as_bytes(),
    );
    let wide = ok(&fx.grep(json!({"pattern": "needle", "output_mode": "content"})));
    assert!(
        wide.len() < 700 && wide.contains("[line cut: 1000006 characters]"),
        "{} bytes",
        wide.len()
    );
    fx.file("m.rs", b"fn a(\n    x: u8,\n) {}\n");
    assert_eq!(
        ok(&fx.grep(json!({"pattern": "fn a\\(\\n\\s+x", "multiline": true}))),
        "m.rs"
    );
}

#[test]
fn content_can_carry_hashline_anchors() {
    let fx = fixture();
    fx.file("a.rs", b"fn main() {}\n");
    let expected = format!(
        "a.rs:1#{}|fn main() {{}}",
        tool_std::fs::anchor("fn main() {}")
    );
    assert_eq!(
        ok(&fx.grep(json!({"pattern": "main", "output_mode": "content", "anchors": true}))),
        expected
    );
}

#[test]
fn a_bad_pattern_says_how_to_write_it() {
    let fx = fixture();
    let result = fx.grep(json!({"pattern": "fn (("}));
    assert!(
        result.is_error() && result.text().contains("fixed_strings=true"),
        "{}",
        result.text()
    );
    fx.file("a.txt", b"fn ((\n");
    assert_eq!(
        ok(&fx.grep(json!({"pattern": "fn ((", "fixed_strings": true}))),
        "a.txt"
    );
}

#[test]
fn a_bad_pattern_is_explained_on_the_pattern_as_written_in_one_line() {
    let fx = fixture();
    let result = fx.grep(json!({"pattern": "("}));
    let text = result.text();
    assert!(
        text.contains("`(` is not a valid regular expression: unclosed group (at character 1);"),
        "{text}"
    );
    // Not the wrapping grep-regex puts around it, and not its caret drawing.
    assert!(!text.contains("(?:") && !text.contains('\n'), "{text}");
}

/// Found by an exploratory run: `read_file` decoded `garçon` in a Latin-1 file and `日本語` in
/// a Shift_JIS one, but `grep` found neither (it searched their bytes as UTF-8) while its
/// description promised that files in any encoding are searched.
#[test]
fn files_in_legacy_encodings_are_searched_as_text() {
    let fx = fixture();
    let (latin1, _, _) = encoding_rs::WINDOWS_1252.encode("le garçon et la fille\n");
    fx.file("latin1.txt", &latin1);
    let (sjis, _, _) =
        encoding_rs::SHIFT_JIS.encode("これは日本語のテキストです。漢字とかなを含みます。\n");
    fx.file("sjis.txt", &sjis);
    fx.file("utf8.txt", "un autre garçon\n".as_bytes());
    let text = ok(&fx.grep(json!({"pattern": "garçon", "output_mode": "content"})));
    assert!(
        text.contains("latin1.txt:1:le garçon et la fille"),
        "{text}"
    );
    assert!(text.contains("utf8.txt:1:un autre garçon"), "{text}");
    let text = ok(&fx.grep(json!({"pattern": "日本語", "output_mode": "content"})));
    assert!(
        text.contains("sjis.txt:1:これは日本語のテキストです"),
        "{text}"
    );
}

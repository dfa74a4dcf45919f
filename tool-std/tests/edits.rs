//! `edit_file` and `multi_edit` as a model uses them: the ladder's findings reported, files kept
//! byte for byte in their own format outside the edit, all-or-nothing, clear refusals.

use serde_json::json;

mod common;
use common::{Fixture, err, ok};

/// `read_file`, `edit_file` and `multi_edit`, edits allowed.
fn fixture() -> Fixture {
    Fixture::allowing(
        &["read_file", "edit_file", "multi_edit"],
        &["edit_file", "multi_edit"],
    )
}

#[test]
fn an_edit_keeps_every_byte_outside_it_in_every_format() {
    let fx = fixture();
    let utf16 = |text: &str| -> Vec<u8> {
        b"\xFF\xFE"
            .iter()
            .copied()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect()
    };
    let (sjis_before, _, _) = encoding_rs::SHIFT_JIS
        .encode("日本語のテキストです。\r\n古い行です。\r\nこれは三行目のテキストです。\r\n");
    let (sjis_after, _, _) = encoding_rs::SHIFT_JIS
        .encode("日本語のテキストです。\r\n新しい行です。\r\nこれは三行目のテキストです。\r\n");
    for (name, before, old, new, after) in [
        (
            "crlf.txt",
            b"one\r\ntwo\r\nthree\r\n".to_vec(),
            "two\nthree",
            "2\n3",
            b"one\r\n2\r\n3\r\n".to_vec(),
        ),
        (
            "mixed.txt",
            b"a\r\nb\nc\r\n".to_vec(),
            "b",
            "B",
            b"a\r\nB\nc\r\n".to_vec(),
        ),
        (
            "bom.txt",
            b"\xEF\xBB\xBFkeep\nold\n".to_vec(),
            "old",
            "new",
            b"\xEF\xBB\xBFkeep\nnew\n".to_vec(),
        ),
        (
            "latin1.txt",
            b"caf\xe9\nna\xefve\n".to_vec(),
            "naïve",
            "naïf",
            b"caf\xe9\nna\xeff\n".to_vec(),
        ),
        (
            "utf16.txt",
            utf16("x\r\ny\r\n"),
            "y",
            "ÿ",
            utf16("x\r\nÿ\r\n"),
        ),
        (
            "sjis.txt",
            sjis_before.into_owned(),
            "古い",
            "新しい",
            sjis_after.into_owned(),
        ),
    ] {
        fx.file(name, &before);
        ok(&fx.call(
            "edit_file",
            json!({"path": name, "old_string": old, "new_string": new}),
        ));
        assert_eq!(fx.bytes(name), after, "{name}");
    }
}

#[test]
fn a_loose_match_is_named_and_the_lines_around_the_edit_shown() {
    let fx = fixture();
    fx.file("a.py", b"def f():\n\tx = 1   \n\treturn x\n");
    let reply = ok(&fx.call(
        "edit_file",
        json!({"path": "a.py", "old_string": "\tx = 1\n\treturn x", "new_string": "\tx = 2\n\treturn x"}),
    ));
    assert!(reply.contains("trailing whitespace"), "{reply}");
    assert!(reply.contains("     2\t\tx = 2"), "{reply}");
    assert_eq!(fx.bytes("a.py"), b"def f():\n\tx = 2\n\treturn x\n");
}

#[test]
fn tabs_stay_tabs_when_the_model_indents_with_spaces() {
    let fx = fixture();
    fx.file("a.go", b"func f() {\n\tif x {\n\t\treturn\n\t}\n}\n");
    ok(&fx.call("edit_file", json!({"path": "a.go", "old_string": "    if x {\n        return\n    }", "new_string": "    if y {\n        return\n    }"})));
    assert_eq!(
        fx.bytes("a.go"),
        b"func f() {\n\tif y {\n\t\treturn\n\t}\n}\n"
    );
}

#[test]
fn several_matches_name_their_lines_and_nothing_changes() {
    let fx = fixture();
    fx.file("a.txt", b"x = 1\ny = 2\nx = 1\n");
    let error = err(&fx.call(
        "edit_file",
        json!({"path": "a.txt", "old_string": "x = 1", "new_string": "x = 3"}),
    ));
    assert!(
        error.contains("1") && error.contains("3") && error.contains("replace_all"),
        "{error}"
    );
    assert_eq!(fx.bytes("a.txt"), b"x = 1\ny = 2\nx = 1\n");
    ok(&fx.call(
        "edit_file",
        json!({"path": "a.txt", "old_string": "x = 1", "new_string": "x = 3", "replace_all": true}),
    ));
    assert_eq!(fx.bytes("a.txt"), b"x = 3\ny = 2\nx = 3\n");
}

#[test]
fn no_match_shows_the_closest_text_and_where_it_differs() {
    let fx = fixture();
    fx.file("a.rs", b"fn main() {\n    println!(\"hello\");\n}\n");
    let error = err(&fx.call("edit_file", json!({"path": "a.rs", "old_string": "fn main() {\n    println!(\"helo\");\n}", "new_string": "x"})));
    assert!(error.contains("line") && error.contains("helo"), "{error}");
    assert_eq!(
        fx.bytes("a.rs"),
        b"fn main() {\n    println!(\"hello\");\n}\n"
    );
}

#[test]
fn other_agents_parameter_names_are_accepted() {
    let fx = fixture();
    fx.file("a.txt", b"old\n");
    ok(&fx.call(
        "Edit",
        json!({"file_path": "a.txt", "oldString": "old", "newString": "new", "replaceAll": false}),
    ));
    assert_eq!(fx.bytes("a.txt"), b"new\n");
}

#[test]
fn multi_edit_is_all_or_nothing() {
    let fx = fixture();
    fx.file("a.txt", b"alpha\nbeta\ngamma\n");
    let error = err(&fx.call(
        "multi_edit",
        json!({"path": "a.txt", "edits": [
            {"old_string": "alpha", "new_string": "ALPHA"},
            {"old_string": "missing", "new_string": "x"},
        ]}),
    ));
    assert!(
        error.contains("edit 2 of 2") && error.contains("No edit was made"),
        "{error}"
    );
    assert_eq!(fx.bytes("a.txt"), b"alpha\nbeta\ngamma\n");
    ok(&fx.call(
        "MultiEdit",
        json!({"path": "a.txt", "edits": [
            {"old_string": "alpha", "new_string": "ALPHA"},
            {"oldString": "ALPHA\nbeta", "newString": "ALPHA\nBETA"},
        ]}),
    ));
    assert_eq!(fx.bytes("a.txt"), b"ALPHA\nBETA\ngamma\n");
}

#[test]
fn an_edit_to_a_file_changed_since_it_was_read_says_so() {
    let fx = fixture();
    fx.file("a.txt", b"one\ntwo\n");
    ok(&fx.call("read_file", json!({"path": "a.txt"})));
    fx.file("a.txt", b"one\ntwo\nthree\n");
    let reply = ok(&fx.call(
        "edit_file",
        json!({"path": "a.txt", "old_string": "two", "new_string": "2"}),
    ));
    assert!(
        reply.contains("had changed on disk since this session read it"),
        "{reply}"
    );
    assert_eq!(fx.bytes("a.txt"), b"one\n2\nthree\n");
    fx.file("a.txt", b"rewritten\n");
    let error = err(&fx.call(
        "edit_file",
        json!({"path": "a.txt", "old_string": "2", "new_string": "3"}),
    ));
    assert!(
        error.contains("changed on disk since this session last read it"),
        "{error}"
    );
}

#[test]
fn identical_strings_binary_files_and_escapes_are_refused() {
    let fx = fixture();
    fx.file("a.txt", b"x\n");
    let same = err(&fx.call(
        "edit_file",
        json!({"path": "a.txt", "old_string": "x", "new_string": "x"}),
    ));
    assert!(!same.is_empty());
    fx.file("b.bin", b"\x7fELF\0\0\x01");
    let binary = err(&fx.call(
        "edit_file",
        json!({"path": "b.bin", "old_string": "ELF", "new_string": "FLE"}),
    ));
    assert!(binary.contains("binary"), "{binary}");
    for path in ["../x.txt", "/etc/hosts"] {
        let escape = err(&fx.call(
            "edit_file",
            json!({"path": path, "old_string": "a", "new_string": "b"}),
        ));
        assert!(escape.contains("outside"), "{escape}");
    }
}

#[test]
fn a_failed_edit_of_a_file_changed_since_it_was_read_shows_what_changed() {
    let fx = fixture();
    fx.file("a.txt", b"one\ntwo\nthree\n");
    ok(&fx.call("read_file", json!({"path": "a.txt"})));
    fx.file("a.txt", b"one\nTWO\nthree\n");
    let error = err(&fx.call(
        "edit_file",
        json!({"path": "a.txt", "old_string": "two", "new_string": "2"}),
    ));
    assert!(
        error.contains("from line 2: it was `two`, it is `TWO`"),
        "{error}"
    );
}

/// Found by an exploratory run: multi_edit's reply showed only the last edit's lines, so the
/// model could not check the others.
#[test]
fn multi_edit_shows_where_every_edit_is_now() {
    let fx = fixture();
    let lines: String = (1..=30).map(|n| format!("line {n}\n")).collect();
    fx.file("a.txt", lines.as_bytes());
    // The second edit adds two lines above the first edit's: its lines move down by two.
    let reply = ok(&fx.call(
        "multi_edit",
        json!({"path": "a.txt", "edits": [
            {"old_string": "line 20\n", "new_string": "LINE 20\n"},
            {"old_string": "line 1\n", "new_string": "line 1\nnew a\nnew b\n"},
        ]}),
    ));
    assert!(reply.contains("Lines 1-3, 22 now:"), "{reply}");
    assert!(reply.contains("     2\tnew a\n"), "{reply}");
    assert!(reply.contains("    22\tLINE 20\n"), "{reply}");
    // One edit: its lines, as before.
    let reply = ok(&fx.call(
        "edit_file",
        json!({"path": "a.txt", "old_string": "line 10\n", "new_string": "LINE 10\n"}),
    ));
    assert!(reply.contains("Line 12 now:"), "{reply}");
}

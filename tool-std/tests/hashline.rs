//! `hashline_edit`: edits by the anchors `read_file` shows, validated before anything changes,
//! applied bottom-up, relocated when a line moved a little, refused with fresh anchors when stale.

use serde_json::json;
use tool_core::{ToolCall, ToolResult};
use tool_std::fs::anchor;

mod common;
use common::Fixture;

impl Fixture {
    /// `read_file` and `hashline_edit` over a workspace holding `name`.
    fn with(name: &str, bytes: &[u8]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), bytes).unwrap();
        Fixture::over(
            dir,
            &["read_file", "hashline_edit"],
            Some(common::allowing(&["hashline_edit"])),
        )
    }

    fn edit(&self, name: &str, edits: serde_json::Value) -> ToolResult {
        self.call("hashline_edit", json!({"path": name, "edits": edits}))
    }
}

fn at(line: usize, text: &str) -> String {
    format!("{line}#{}", anchor(text))
}

#[test]
fn anchors_from_read_file_address_replacements_and_insertions() {
    let fx = Fixture::with("a.txt", b"one\ntwo\nthree\nfour\n");
    let shown = fx.coordinator.call_blocking(ToolCall::new(
        "read_file",
        r#"{"path": "a.txt", "anchors": true}"#,
    ));
    assert!(
        shown.text().contains(&format!("{}|two", at(2, "two"))),
        "{}",
        shown.text()
    );
    let result = fx.edit(
        "a.txt",
        json!([
            {"op": "replace", "anchor": at(2, "two"), "end": at(3, "three"), "text": "TWO-THREE"},
            {"op": "insert_before", "anchor": at(1, "one"), "text": "zero"},
            {"op": "insert_after", "anchor": at(4, "four"), "text": "five\nsix"},
        ]),
    );
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        fx.bytes("a.txt"),
        b"zero\none\nTWO-THREE\nfour\nfive\nsix\n"
    );
}

#[test]
fn a_crlf_file_keeps_its_breaks_and_a_missing_final_break_stays_missing() {
    let fx = Fixture::with("a.txt", b"a\r\nb\r\nc");
    let result = fx.edit(
        "a.txt",
        json!([
            {"op": "replace", "anchor": at(3, "c"), "text": "C"},
            {"op": "insert_after", "anchor": at(1, "a"), "text": "a2"},
        ]),
    );
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(fx.bytes("a.txt"), b"a\r\na2\r\nb\r\nC");
}

#[test]
fn a_line_that_moved_a_little_is_found_by_its_hash_and_the_reply_says_so() {
    let fx = Fixture::with("a.txt", b"new first line\none\ntwo\n");
    let result = fx.edit(
        "a.txt",
        json!([{"op": "replace", "anchor": at(2, "two"), "text": "2"}]),
    );
    assert!(
        result.text().contains("had moved to line 3"),
        "{}",
        result.text()
    );
    assert_eq!(fx.bytes("a.txt"), b"new first line\none\n2\n");
}

#[test]
fn a_stale_anchor_rejects_every_edit_and_shows_the_current_anchors() {
    let fx = Fixture::with("a.txt", b"one\nTWO CHANGED\nthree\n");
    let result = fx.edit(
        "a.txt",
        json!([
            {"op": "replace", "anchor": at(1, "one"), "text": "1"},
            {"op": "replace", "anchor": at(2, "two"), "text": "2"},
        ]),
    );
    assert!(result.is_error());
    let text = result.text();
    assert!(
        text.contains("edit 2 of 2") && text.contains("no edit was made"),
        "{text}"
    );
    assert!(
        text.contains(&format!("{}|TWO CHANGED", at(2, "TWO CHANGED"))),
        "{text}"
    );
    assert_eq!(
        fx.bytes("a.txt"),
        b"one\nTWO CHANGED\nthree\n",
        "nothing changed, the first edit included"
    );
}

#[test]
fn malformed_anchors_and_overlapping_edits_are_refused() {
    let fx = Fixture::with("a.txt", b"a\nb\nc\n");
    let bad = fx.edit(
        "a.txt",
        json!([{"op": "replace", "anchor": "line 2", "text": "x"}]),
    );
    assert!(
        bad.text().contains("anchors look like `12#QK`"),
        "{}",
        bad.text()
    );
    let overlap = fx.edit(
        "a.txt",
        json!([
            {"op": "replace", "anchor": at(1, "a"), "end": at(2, "b"), "text": "x"},
            {"op": "replace", "anchor": at(2, "b"), "end": at(3, "c"), "text": "y"},
        ]),
    );
    assert!(overlap.text().contains("overlapping"), "{}", overlap.text());
    assert_eq!(fx.bytes("a.txt"), b"a\nb\nc\n");
}

fn twelve_lines() -> (Fixture, Vec<u8>) {
    let text: String = (1..=12).map(|n| format!("l{n}\n")).collect();
    (Fixture::with("a.txt", text.as_bytes()), text.into_bytes())
}

fn l(n: usize) -> String {
    at(n, &format!("l{n}"))
}

#[test]
fn an_insertion_inside_a_replaced_range_is_refused_not_dropped() {
    let (fx, original) = twelve_lines();
    let result = fx.edit(
        "a.txt",
        json!([
            {"op": "replace", "anchor": l(3), "end": l(5), "text": "X"},
            {"op": "insert_after", "anchor": l(4), "text": "Y"},
        ]),
    );
    assert!(result.text().contains("overlapping"), "{}", result.text());
    assert!(result.text().contains("lines 3-5"), "{}", result.text());
    assert_eq!(fx.bytes("a.txt"), original);
}

#[test]
fn a_replace_nested_in_another_is_refused_even_with_an_edit_between_them() {
    let (fx, original) = twelve_lines();
    let result = fx.edit(
        "a.txt",
        json!([
            {"op": "replace", "anchor": l(1), "end": l(10), "text": "A"},
            {"op": "replace", "anchor": l(6), "end": l(7), "text": ""},
            {"op": "insert_after", "anchor": l(4), "text": "I"},
        ]),
    );
    assert!(result.text().contains("overlapping"), "{}", result.text());
    assert_eq!(fx.bytes("a.txt"), original);
}

#[test]
fn insertions_at_the_outer_edges_of_a_replaced_range_are_kept() {
    let (fx, _) = twelve_lines();
    let result = fx.edit(
        "a.txt",
        json!([
            {"op": "replace", "anchor": l(3), "end": l(5), "text": "X"},
            {"op": "insert_before", "anchor": l(3), "text": "B"},
            {"op": "insert_after", "anchor": l(5), "text": "A"},
        ]),
    );
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        fx.bytes("a.txt"),
        b"l1\nl2\nB\nX\nA\nl6\nl7\nl8\nl9\nl10\nl11\nl12\n"
    );
}

//! `list_artifacts` and `read_artifact`: outputs the output limit cut, kept whole in the
//! coordinator's store, listed and paged through, each page under the limit itself.

use serde_json::json;
use tool_core::middleware::Artifacts;
use tool_core::{Coordinator, State, Toolset, tool};

mod common;
use common::{call, err, ok};

/// Print `count` numbered lines, each `width` characters long at least.
#[tool(read_only, name = "art_lines")]
fn lines(count: usize, #[arg(default = 0)] width: usize) -> String {
    (1..=count)
        .map(|i| format!("{:<width$}", format!("line {i}")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Say how many artifacts the store holds.
#[tool(read_only, name = "art_count")]
fn count(artifacts: State<Artifacts>) -> usize {
    artifacts.list().len()
}

/// A coordinator that cuts outputs past 2,000 characters.
fn coordinator() -> Coordinator {
    Coordinator::builder()
        .toolset(
            Toolset::named(["art_lines", "art_count", "list_artifacts", "read_artifact"]).unwrap(),
        )
        .output_limit(2_000)
        .build()
        .unwrap()
}

/// Runs `art_lines` so that its output is cut; the id of the artifact it left.
fn spill(coordinator: &Coordinator, count: usize) -> String {
    let cut = ok(&call(coordinator, "art_lines", json!({ "count": count })));
    let start = cut.find("artifact `").expect("the output was cut") + "artifact `".len();
    let id = &cut[start..];
    id[..id.find('`').unwrap()].to_owned()
}

#[test]
fn list_artifacts_says_when_nothing_is_kept_and_why() {
    let text = ok(&call(&coordinator(), "list_artifacts", json!({})));
    assert!(
        text.starts_with("No outputs are kept in this session"),
        "{text}"
    );
}

#[test]
fn a_long_output_is_listed_with_its_tool_call_lines_and_bytes() {
    let coordinator = coordinator();
    let long = tool_core::ToolCall::new("art_lines", r#"{"count": 1000}"#).with_call_id("call_9");
    assert!(coordinator.call_blocking(long).text().contains("art_1"));
    let text = ok(&call(&coordinator, "list_artifacts", json!({})));
    let bytes = lines(1000, 0).len();
    assert_eq!(
        text,
        format!(
            "1 artifact kept, oldest first (id, tool, call id, lines, bytes):\nart_1  art_lines  call_9  1000 lines  {bytes} bytes"
        )
    );
}

#[test]
fn the_cut_output_tells_the_model_to_read_it_with_read_artifact() {
    let text = ok(&call(&coordinator(), "art_lines", json!({ "count": 1000 })));
    assert!(
        text.contains("read it with read_artifact(id = \"art_1\", offset, limit)"),
        "{text}"
    );
}

#[test]
fn read_artifact_pages_through_a_long_output_without_gaps_or_repeats() {
    let coordinator = coordinator();
    let id = spill(&coordinator, 1000);
    let mut offset = 1;
    let mut seen = Vec::new();
    loop {
        let page = ok(&call(
            &coordinator,
            "read_artifact",
            json!({ "id": id, "offset": offset, "limit": 100 }),
        ));
        let (body, note) = page.rsplit_once('\n').unwrap();
        for line in body.lines() {
            let (number, text) = line.split_once('\t').unwrap();
            let number: usize = number.trim().parse().unwrap();
            assert_eq!(text, format!("line {number}"));
            seen.push(number);
        }
        match note.split_once("read on with offset=") {
            Some((_, next)) => offset = next.trim_end_matches(']').parse().unwrap(),
            None => {
                assert_eq!(
                    note,
                    format!("[lines {offset}-1000 of 1000 of artifact `{id}`: the end]")
                );
                break;
            }
        }
    }
    assert_eq!(seen, (1..=1000).collect::<Vec<_>>());
}

#[test]
fn a_page_stays_under_the_output_limit_so_it_is_not_cut_and_kept_again() {
    let coordinator = coordinator();
    let id = spill(&coordinator, 1000);
    // The default limit, 2000 lines, would be far more than 2,000 characters.
    let page = ok(&call(&coordinator, "read_artifact", json!({ "id": id })));
    assert!(
        page.chars().count() <= 2_000,
        "{} characters",
        page.chars().count()
    );
    assert!(!page.contains("characters omitted"), "{page}");
    let last = page.lines().rev().nth(1).unwrap();
    let (number, _) = last.split_once('\t').unwrap();
    let next = number.trim().parse::<usize>().unwrap() + 1;
    assert!(
        page.ends_with(&format!("read on with offset={next}]")),
        "{page}"
    );
    assert_eq!(ok(&call(&coordinator, "art_count", json!({}))), "1");
}

#[test]
fn a_line_longer_than_a_page_is_read_whole_page_by_page() {
    let coordinator = coordinator();
    let cut = ok(&call(
        &coordinator,
        "art_lines",
        json!({ "count": 2, "width": 5_000 }),
    ));
    assert!(cut.contains("art_1"), "{cut}");
    // Follow each page's "read on" until the artifact's end; the pieces of line 1 make it whole.
    let mut line_one = String::new();
    let mut arguments = json!({ "id": "art_1" });
    let mut pages = 0;
    loop {
        let page = ok(&call(&coordinator, "read_artifact", arguments.clone()));
        pages += 1;
        assert!(pages < 10, "paging does not end: {page}");
        assert!(
            page.chars().count() <= 2_000,
            "a page stays under the limit"
        );
        let (body, note) = page.rsplit_once('[').unwrap();
        for entry in body.lines() {
            let (number, text) = entry.split_once('\t').unwrap();
            if number.trim() == "1" {
                line_one.push_str(text);
            }
        }
        if note.contains("the end") {
            break;
        }
        if note.contains("column=") {
            assert!(
                note.contains("of its 5000 characters"),
                "says how long the line is: {note}"
            );
        }
        let read_on = note
            .split_once("read on with ")
            .unwrap()
            .1
            .trim_end_matches(']');
        let mut next = json!({ "id": "art_1" });
        for part in read_on.split_whitespace() {
            let (key, value) = part.split_once('=').unwrap();
            next[key] = json!(value.parse::<usize>().unwrap());
        }
        arguments = next;
    }
    assert_eq!(line_one, format!("{:<5000}", "line 1"));
    assert!(
        pages >= 6,
        "two lines of 5,000 characters take three pages of 2,000 each"
    );
    assert_eq!(ok(&call(&coordinator, "art_count", json!({}))), "1");
}

#[test]
fn a_column_past_the_lines_end_is_refused_saying_how_long_the_line_is() {
    let coordinator = coordinator();
    ok(&call(
        &coordinator,
        "art_lines",
        json!({ "count": 2, "width": 5_000 }),
    ));
    let text = err(&call(
        &coordinator,
        "read_artifact",
        json!({ "id": "art_1", "offset": 2, "column": 6_000 }),
    ));
    assert!(text.contains("5000 characters"), "{text}");
}

#[test]
fn an_unknown_id_is_refused_naming_the_ids_there_are() {
    let coordinator = coordinator();
    let empty = err(&call(
        &coordinator,
        "read_artifact",
        json!({ "id": "art_7" }),
    ));
    assert!(
        empty.contains("no artifact `art_7`: no output has been kept in this session"),
        "{empty}"
    );
    spill(&coordinator, 1000);
    let text = err(&call(
        &coordinator,
        "read_artifact",
        json!({ "id": "art_7" }),
    ));
    assert!(
        text.contains("no artifact `art_7`; the artifacts are: art_1"),
        "{text}"
    );
    assert!(text.contains("list_artifacts"), "{text}");
}

#[test]
fn an_offset_past_the_end_is_refused_saying_how_long_the_artifact_is() {
    let coordinator = coordinator();
    let id = spill(&coordinator, 1000);
    let text = err(&call(
        &coordinator,
        "read_artifact",
        json!({ "id": id, "offset": 1001 }),
    ));
    assert!(
        text.contains("has 1000 lines, so offset 1001 is past its end"),
        "{text}"
    );
}

#[test]
fn a_zero_offset_or_limit_is_refused_saying_what_is_meant() {
    let coordinator = coordinator();
    let id = spill(&coordinator, 1000);
    let zero_offset = err(&call(
        &coordinator,
        "read_artifact",
        json!({ "id": id, "offset": 0 }),
    ));
    assert!(zero_offset.contains("counts lines from 1"), "{zero_offset}");
    let zero_limit = err(&call(
        &coordinator,
        "read_artifact",
        json!({ "id": id, "limit": 0 }),
    ));
    assert!(zero_limit.contains("`limit` is 0"), "{zero_limit}");
}

#[test]
fn without_an_output_limit_a_page_is_as_long_as_asked() {
    let artifacts = Artifacts::new(1 << 20);
    let id = artifacts.store("art_lines", "call_1", lines(3_000, 0));
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["read_artifact"]).unwrap())
        .state(artifacts)
        .build()
        .unwrap();
    let page = ok(&call(&coordinator, "read_artifact", json!({ "id": id })));
    assert!(page.ends_with(&format!(
        "[lines 1-2000 of 3000 of artifact `{id}`; read on with offset=2001]"
    )));
}

#[test]
fn a_page_deep_in_a_large_artifact_starts_at_its_line() {
    // 300,000 lines, 4 MB: the page starts many scan chunks in.
    let artifacts = Artifacts::new(usize::MAX);
    let id = artifacts.store("art_lines", "call_1", lines(300_000, 0));
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["read_artifact"]).unwrap())
        .state(artifacts)
        .build()
        .unwrap();
    for offset in [1, 65_537, 299_999] {
        let page = ok(&call(
            &coordinator,
            "read_artifact",
            json!({ "id": id, "offset": offset, "limit": 2 }),
        ));
        let first = page.lines().next().unwrap();
        assert_eq!(first, format!("{offset:>6}\tline {offset}"));
    }
}

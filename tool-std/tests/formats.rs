//! Every tool that changes a file keeps the bytes outside its change, in every format a file
//! is found in: CRLF, mixed line endings, UTF-8 with a BOM, UTF-16, Latin-1, Shift_JIS. And no
//! tool writes outside the workspace.

use serde_json::json;
use tool_core::Coordinator;
use tool_std::fs::anchor;

mod common;
use common::call;

fn coordinator(dir: &std::path::Path) -> Coordinator {
    let tools = [
        "read_file",
        "write_file",
        "edit_file",
        "multi_edit",
        "hashline_edit",
        "apply_patch",
    ];
    common::coordinator(dir, &tools, Some(common::allowing(&tools)))
}

/// A file's bytes with its second line `old` written in `encode`'s format, and with `new`.
struct Case {
    name: &'static str,
    before: Vec<u8>,
    after: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let utf16 = |text: &str| -> Vec<u8> {
        b"\xFF\xFE"
            .iter()
            .copied()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect()
    };
    let sjis = |text: &str| encoding_rs::SHIFT_JIS.encode(text).0.into_owned();
    let sjis_text = |middle: &str| {
        format!("日本語のテキストです。\r\n{middle}\r\nこれは三行目のテキストです。\r\n")
    };
    vec![
        Case {
            name: "crlf.txt",
            before: b"first\r\nold\r\nlast\r\n".to_vec(),
            after: b"first\r\nnew\r\nlast\r\n".to_vec(),
        },
        Case {
            name: "mixed.txt",
            before: b"first\r\nold\nlast\r\n".to_vec(),
            after: b"first\r\nnew\nlast\r\n".to_vec(),
        },
        Case {
            name: "bom.txt",
            before: b"\xEF\xBB\xBFfirst\nold\nlast\n".to_vec(),
            after: b"\xEF\xBB\xBFfirst\nnew\nlast\n".to_vec(),
        },
        Case {
            name: "utf16.txt",
            before: utf16("first\r\nold\r\nlast\r\n"),
            after: utf16("first\r\nnew\r\nlast\r\n"),
        },
        Case {
            name: "latin1.txt",
            before: b"premi\xe8re\nold\nderni\xe8re\n".to_vec(),
            after: b"premi\xe8re\nnew\nderni\xe8re\n".to_vec(),
        },
        Case {
            name: "sjis.txt",
            before: sjis(&sjis_text("old")),
            after: sjis(&sjis_text("new")),
        },
    ]
}

#[test]
fn hashline_edits_and_patches_keep_every_byte_outside_their_change() {
    for tool in ["hashline_edit", "apply_patch", "multi_edit"] {
        for case in cases() {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join(case.name), &case.before).unwrap();
            let coordinator = coordinator(dir.path());
            let arguments = match tool {
                "hashline_edit" => json!({"path": case.name, "edits": [
                    {"op": "replace", "anchor": format!("2#{}", anchor("old")), "text": "new"}
                ]}),
                "apply_patch" => json!({"patch": format!(
                    "*** Begin Patch\n*** Update File: {}\n@@\n-old\n+new\n*** End Patch", case.name
                )}),
                _ => {
                    json!({"path": case.name, "edits": [{"old_string": "old", "new_string": "new"}]})
                }
            };
            let result = call(&coordinator, tool, arguments);
            assert!(
                !result.is_error(),
                "{tool} on {}: {}",
                case.name,
                result.text()
            );
            assert_eq!(
                std::fs::read(dir.path().join(case.name)).unwrap(),
                case.after,
                "{tool} on {}",
                case.name
            );
        }
    }
}

/// A model rewrites a file whole as it read it, with `\n` breaks and one line changed: every
/// other byte stays, mixed line endings included (issue 28).
#[test]
fn whole_file_rewrites_keep_every_byte_outside_their_change() {
    let mut cases = cases();
    cases.push(Case {
        name: "three-crlf-one-lf.txt",
        before: b"one\r\ntwo\r\nthree\nfour\r\n".to_vec(),
        after: b"one\r\nTWO\r\nthree\nfour\r\n".to_vec(),
    });
    for case in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(case.name), &case.before).unwrap();
        let coordinator = coordinator(dir.path());
        let read = call(&coordinator, "read_file", json!({"path": case.name}));
        assert!(!read.is_error(), "{}: {}", case.name, read.text());
        let content = tool_std::fs::TextFile::decode(&case.after)
            .unwrap()
            .text
            .replace("\r\n", "\n");
        let result = call(
            &coordinator,
            "write_file",
            json!({"path": case.name, "content": content}),
        );
        assert!(!result.is_error(), "{}: {}", case.name, result.text());
        assert_eq!(
            std::fs::read(dir.path().join(case.name)).unwrap(),
            case.after,
            "{}",
            case.name
        );
    }
}

#[test]
fn no_tool_writes_outside_the_workspace() {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(parent.path().join("outside.txt"), "outside\n").unwrap();
    let coordinator = coordinator(&root);
    for (tool, arguments) in [
        (
            "write_file",
            json!({"path": "../outside.txt", "content": "x", "overwrite": true}),
        ),
        (
            "edit_file",
            json!({"path": "../outside.txt", "old_string": "outside", "new_string": "x"}),
        ),
        (
            "multi_edit",
            json!({"path": "../outside.txt", "edits": [{"old_string": "outside", "new_string": "x"}]}),
        ),
        (
            "hashline_edit",
            json!({"path": "../outside.txt", "edits": [{"op": "replace", "anchor": format!("1#{}", anchor("outside")), "text": "x"}]}),
        ),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Update File: ../outside.txt\n@@\n-outside\n+x\n*** End Patch"}),
        ),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Add File: ../new.txt\n+x\n*** End Patch"}),
        ),
    ] {
        let result = call(&coordinator, tool, arguments);
        assert!(
            result.is_error() && result.text().contains("outside"),
            "{tool}: {}",
            result.text()
        );
    }
    assert_eq!(
        std::fs::read_to_string(parent.path().join("outside.txt")).unwrap(),
        "outside\n"
    );
    assert!(!parent.path().join("new.txt").exists());
}

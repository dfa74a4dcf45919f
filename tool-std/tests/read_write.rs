//! `read_file` and `write_file` as a model uses them, through a coordinator: text as found,
//! paging, the read-before-replace rule, and files kept byte for byte in their own format.

use std::path::Path;

use serde_json::json;
use tool_core::ToolResult;
use tool_core::output::Content;

mod common;
use common::{Fixture, err, ok};

/// `read_file` and `write_file`, writing allowed.
fn fixture() -> Fixture {
    Fixture::allowing(&["read_file", "write_file"], &["write_file"])
}

impl Fixture {
    fn read(&self, arguments: serde_json::Value) -> ToolResult {
        self.call("read_file", arguments)
    }

    fn write(&self, arguments: serde_json::Value) -> ToolResult {
        self.call("write_file", arguments)
    }
}

#[test]
fn lines_come_numbered_like_cat_n_without_carriage_returns() {
    let fx = fixture();
    fx.file("a.txt", b"first\r\nsecond\r\n");
    assert_eq!(
        ok(&fx.read(json!({"path": "a.txt"}))),
        "     1\tfirst\n     2\tsecond\n"
    );
}

#[test]
fn offset_and_limit_pick_lines_and_the_reply_says_how_to_read_on() {
    let fx = fixture();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    fx.file("ten.txt", text.as_bytes());
    let page = ok(&fx.read(json!({"path": "ten.txt", "offset": 4, "limit": 3})));
    assert!(
        page.starts_with("     4\tline 4\n     5\tline 5\n     6\tline 6\n"),
        "{page}"
    );
    assert!(
        page.ends_with("(lines 4-6 of 10; continue with offset=7)"),
        "{page}"
    );
    let past = err(&fx.read(json!({"path": "ten.txt", "offset": 11})));
    assert!(
        past.contains("has 10 lines; offset 11 is past its end"),
        "{past}"
    );
}

#[test]
fn a_whole_file_read_over_the_default_limit_returns_the_first_page() {
    let fx = fixture();
    let text: String = (1..=2_500).map(|i| format!("{i}\n")).collect();
    fx.file("long.txt", text.as_bytes());
    let page = ok(&fx.read(json!({"path": "long.txt"})));
    assert!(
        page.ends_with("(lines 1-2000 of 2500; continue with offset=2001)"),
        "{}",
        &page[page.len() - 80..]
    );
}

#[test]
fn output_is_capped_a_whole_read_pages_and_an_explicit_range_is_told_a_limit_that_fits() {
    let fx = fixture();
    let line = "x".repeat(1_000);
    let text: String = (0..1_000).map(|_| format!("{line}\n")).collect();
    fx.file("wide.txt", text.as_bytes());
    let page = ok(&fx.read(json!({"path": "wide.txt"})));
    assert!(page.len() <= 256 * 1024 + 100, "{} bytes", page.len());
    assert!(
        page.contains("of 1000; continue with offset="),
        "{}",
        &page[page.len() - 80..]
    );
    let too_much = err(&fx.read(json!({"path": "wide.txt", "offset": 1, "limit": 1000})));
    assert!(
        too_much.contains("more than the 256 KB one read returns; ask for limit="),
        "{too_much}"
    );
}

#[test]
fn a_long_line_is_cut_with_a_marker() {
    let fx = fixture();
    fx.file("minified.js", format!("{}\n", "a".repeat(5_000)).as_bytes());
    let text = ok(&fx.read(json!({"path": "minified.js"})));
    assert!(
        text.contains("… [line cut: 5000 characters]"),
        "{}",
        &text[text.len() - 60..]
    );
    assert!(text.len() < 2_100);
}

#[test]
fn anchors_prefix_each_line_for_hashline_edit() {
    let fx = fixture();
    fx.file("a.rs", b"fn main() {\n}\n");
    let text = ok(&fx.read(json!({"path": "a.rs", "anchors": true})));
    let expected = format!(
        "1#{}|fn main() {{\n2#{}|}}\n",
        tool_std::fs::anchor("fn main() {"),
        tool_std::fs::anchor("}")
    );
    assert_eq!(text, expected);
}

#[test]
fn text_in_legacy_encodings_and_utf16_reads_as_text() {
    let fx = fixture();
    fx.file("latin1.txt", b"caf\xe9 cr\xe8me\n");
    assert_eq!(
        ok(&fx.read(json!({"path": "latin1.txt"}))),
        "     1\tcafé crème\n"
    );
    let utf16: Vec<u8> = b"\xFF\xFE"
        .iter()
        .copied()
        .chain("añb\r\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    fx.file("utf16.txt", &utf16);
    assert_eq!(ok(&fx.read(json!({"path": "utf16.txt"}))), "     1\tañb\n");
}

#[test]
fn a_directory_answers_with_its_entries() {
    let fx = fixture();
    fx.file("src/lib.rs", b"");
    fx.file("src/util/mod.rs", b"");
    assert_eq!(
        ok(&fx.read(json!({"path": "src"}))),
        "`src` is a directory; its entries:\nlib.rs\nutil/"
    );
}

#[test]
fn a_binary_file_is_an_error_with_its_size_and_kind() {
    let fx = fixture();
    fx.file("doc.pdf", b"%PDF-1.7\n\0\x01\x02");
    let error = err(&fx.read(json!({"path": "doc.pdf"})));
    assert!(
        error.contains("binary file (12 bytes, a PDF document)"),
        "{error}"
    );
}

#[test]
fn an_image_comes_back_as_an_image() {
    let fx = fixture();
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
    fx.file("pixel.png", png);
    let result = fx.read(json!({"path": "pixel.png"}));
    assert!(!result.is_error(), "{}", result.text());
    assert!(
        matches!(&result.content[1], Content::Image { mime_type, .. } if mime_type == "image/png")
    );
    assert!(result.text().contains("1×1 pixels"), "{}", result.text());
}

/// Issue 28: a PNG signature followed by garbage is not sent to a model as an image.
#[test]
fn an_image_signature_without_a_valid_header_is_a_binary_file() {
    let fx = fixture();
    let mut garbage = b"\x89PNG\r\n\x1a\n".to_vec();
    garbage.extend(std::iter::repeat_n(b'x', 92));
    fx.file("fake.png", &garbage);
    let error = err(&fx.read(json!({"path": "fake.png"})));
    assert!(
        error.contains(
            "binary file (100 bytes, a PNG signature, but not a valid PNG: its first chunk is not a 13-byte IHDR)"
        ),
        "{error}"
    );
    // A JPEG whose segments break off before any frame header, likewise.
    fx.file(
        "fake.jpg",
        b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00",
    );
    let error = err(&fx.read(json!({"path": "fake.jpg"})));
    assert!(error.contains("not a valid JPEG"), "{error}");
}

#[test]
fn other_agents_parameter_names_are_accepted_but_not_in_the_schema() {
    let fx = fixture();
    fx.file("a.txt", b"x\n");
    for name in ["file_path", "filePath", "absolute_path"] {
        assert_eq!(
            ok(&fx.read(json!({ name: "a.txt" }))),
            "     1\tx\n",
            "{name}"
        );
    }
    let schema = serde_json::to_string(
        fx.coordinator
            .toolset()
            .get("read_file")
            .unwrap()
            .input_schema(),
    )
    .unwrap();
    assert!(
        !schema.contains("file_path") && !schema.contains("filePath"),
        "{schema}"
    );
    assert!(
        fx.coordinator.toolset().get("Read").is_some()
            && fx.coordinator.toolset().get("Write").is_some()
    );
}

#[test]
fn a_missing_file_names_the_closest_existing_one() {
    let fx = fixture();
    fx.file("src/main.rs", b"");
    let error = err(&fx.read(json!({"path": "src/mian.rs"})));
    assert!(error.contains("did you mean `src/main.rs`?"), "{error}");
}

#[test]
fn no_path_leaves_the_workspace() {
    let fx = fixture();
    for path in ["../outside.txt", "/etc/passwd"] {
        let read = err(&fx.read(json!({ "path": path })));
        assert!(read.contains("outside"), "{read}");
        let write = err(&fx.write(json!({ "path": path, "content": "x" })));
        assert!(write.contains("outside"), "{write}");
    }
    assert!(!fx.dir.path().parent().unwrap().join("outside.txt").exists());
}

#[test]
fn a_new_file_is_created_with_its_directories_and_lf_line_breaks() {
    let fx = fixture();
    ok(&fx.write(json!({"path": "new/dir/a.txt", "content": "one\r\ntwo\n"})));
    assert_eq!(fx.bytes("new/dir/a.txt"), b"one\ntwo\n");
}

/// Found by an exploratory run: with no `docs` directory, `docs/notes.txt` was taken for the
/// existing `notes.txt` (the first component dropped, a repair meant for reading), and the
/// top-level file was overwritten.
#[test]
fn a_new_file_in_a_new_directory_never_lands_on_an_existing_file() {
    let fx = fixture();
    fx.file("notes.txt", b"kept\n");
    for overwrite in [false, true] {
        let arguments =
            json!({"path": "docs/notes.txt", "content": "new\n", "overwrite": overwrite});
        assert_eq!(
            ok(&fx.write(arguments)),
            "Created `docs/notes.txt` (1 line, 4 bytes)"
        );
        assert_eq!(fx.bytes("docs/notes.txt"), b"new\n");
        assert_eq!(fx.bytes("notes.txt"), b"kept\n");
        std::fs::remove_dir_all(fx.root.join("docs")).unwrap();
    }
    // A read still finds the file the model most likely meant.
    assert!(ok(&fx.read(json!({"path": "docs/notes.txt"}))).contains("kept"));
}

#[test]
fn a_write_is_checked_where_it_lands_as_well_as_where_a_read_would_look() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"kept\n").unwrap();
    let policy = common::allowing(&["write_file"]).deny("Write(docs/**)");
    let fx = Fixture::over(dir, &["write_file"], Some(policy));
    let result = fx.write(json!({"path": "docs/notes.txt", "content": "new\n"}));
    assert_eq!(
        result.error().map(tool_core::ToolError::kind),
        Some("denied"),
        "{}",
        result.text()
    );
    assert!(!fx.root.join("docs").exists());
    assert_eq!(fx.bytes("notes.txt"), b"kept\n");
}

#[cfg(unix)]
#[test]
fn a_replaced_file_keeps_its_owner_and_permissions() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let fx = fixture();
    fx.file("owned.sh", b"echo old\n");
    let path = fx.dir.path().join("owned.sh");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o750)).unwrap();
    if std::os::unix::fs::chown(&path, Some(4242), Some(4343)).is_err() {
        return; // only root can give a file away; nothing to check elsewhere
    }
    ok(&fx.read(json!({"path": "owned.sh"})));
    ok(&fx.write(json!({"path": "owned.sh", "content": "echo new\n"})));
    let metadata = std::fs::metadata(&path).unwrap();
    assert_eq!((metadata.uid(), metadata.gid()), (4242, 4343));
    assert_eq!(metadata.permissions().mode() & 0o777, 0o750);
}

#[test]
fn replacing_a_file_needs_a_read_in_this_session_or_overwrite() {
    let fx = fixture();
    fx.file("a.txt", b"old\n");
    let refused = err(&fx.write(json!({"path": "a.txt", "content": "new\n"})));
    assert!(
        refused.contains("has not been read in this session"),
        "{refused}"
    );
    assert_eq!(fx.bytes("a.txt"), b"old\n");
    ok(&fx.read(json!({"path": "a.txt"})));
    ok(&fx.write(json!({"path": "a.txt", "content": "new\n"})));
    assert_eq!(fx.bytes("a.txt"), b"new\n");
    fx.file("b.txt", b"old\n");
    ok(&fx.write(json!({"path": "b.txt", "content": "forced\n", "overwrite": true})));
    assert_eq!(fx.bytes("b.txt"), b"forced\n");
}

#[test]
fn a_file_changed_on_disk_since_it_was_read_is_not_replaced() {
    let fx = fixture();
    fx.file("a.txt", b"v1\n");
    ok(&fx.read(json!({"path": "a.txt"})));
    fx.file("a.txt", b"v2 by someone else\n");
    let refused = err(&fx.write(json!({"path": "a.txt", "content": "mine\n"})));
    assert!(refused.contains("changed on disk since"), "{refused}");
    assert_eq!(fx.bytes("a.txt"), b"v2 by someone else\n");
}

#[test]
fn empty_content_never_wipes_a_file_unless_asked() {
    let fx = fixture();
    fx.file("a.txt", b"precious\n");
    ok(&fx.read(json!({"path": "a.txt"})));
    let refused = err(&fx.write(json!({"path": "a.txt", "content": ""})));
    assert!(refused.contains("would wipe"), "{refused}");
    assert_eq!(fx.bytes("a.txt"), b"precious\n");
}

#[test]
fn a_replaced_file_keeps_its_encoding_bom_and_line_endings() {
    let fx = fixture();
    let utf16: Vec<u8> = b"\xFF\xFE"
        .iter()
        .copied()
        .chain("a\r\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let expected16: Vec<u8> = b"\xFF\xFE"
        .iter()
        .copied()
        .chain("añ\r\nb\r\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    for (name, before, after) in [
        ("crlf.txt", b"a\r\nb\r\n".to_vec(), b"x\r\ny\r\n".to_vec()),
        (
            "bom.txt",
            b"\xEF\xBB\xBFa\n".to_vec(),
            b"\xEF\xBB\xBFx\ny\n".to_vec(),
        ),
        ("latin1.txt", b"caf\xe9\n".to_vec(), b"x\xe9\ny\n".to_vec()),
        ("utf16.txt", utf16, expected16),
    ] {
        fx.file(name, &before);
        ok(&fx.read(json!({ "path": name })));
        let content = if name == "latin1.txt" {
            "xé\ny\n"
        } else if name == "utf16.txt" {
            "añ\nb\n"
        } else {
            "x\ny\n"
        };
        ok(&fx.write(json!({ "path": name, "content": content })));
        assert_eq!(fx.bytes(name), after, "{name}");
    }
}

#[test]
fn a_character_the_files_encoding_cannot_hold_is_refused_and_nothing_changes() {
    let fx = fixture();
    fx.file("latin1.txt", b"caf\xe9\n");
    ok(&fx.read(json!({"path": "latin1.txt"})));
    let refused = err(&fx.write(json!({"path": "latin1.txt", "content": "snow ☃\n"})));
    assert!(
        refused.contains("U+2603") && refused.contains("windows-1252"),
        "{refused}"
    );
    assert_eq!(fx.bytes("latin1.txt"), b"caf\xe9\n");
    assert!(Path::new(&fx.dir.path().join("latin1.txt")).exists());
}

/// Two coordinators over one workspace, each with its own record of what was read unless
/// `shared` is given to both.
fn two_coordinators(
    root: &Path,
    shared: Option<std::sync::Arc<tool_std::fs::FileSession>>,
) -> [tool_core::Coordinator; 2] {
    let build = || {
        let builder = tool_core::Coordinator::builder()
            .toolset(tool_core::Toolset::named(["read_file", "write_file"]).unwrap())
            .workspace(tool_core::Workspace::new(root).unwrap())
            .policy(common::allowing(&["write_file"]));
        match &shared {
            Some(record) => builder.shared_state(std::sync::Arc::clone(record)),
            None => builder,
        }
        .build()
        .unwrap()
    };
    [build(), build()]
}

#[test]
fn coordinators_in_one_process_keep_separate_records_of_what_was_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Notes\n").unwrap();
    let [a, b] = two_coordinators(dir.path(), None);
    ok(&common::call(&a, "read_file", json!({"path": "notes.md"})));
    let refused = err(&common::call(
        &b,
        "write_file",
        json!({"path": "notes.md", "content": "# Replaced\n"}),
    ));
    assert!(
        refused.contains("has not been read in this session"),
        "{refused}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.md")).unwrap(),
        "# Notes\n"
    );
    ok(&common::call(
        &a,
        "write_file",
        json!({"path": "notes.md", "content": "# Replaced\n"}),
    ));
}

#[test]
fn coordinators_given_one_record_share_what_was_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Notes\n").unwrap();
    let record = std::sync::Arc::new(tool_std::fs::FileSession::default());
    let [a, b] = two_coordinators(dir.path(), Some(record));
    ok(&common::call(&a, "read_file", json!({"path": "notes.md"})));
    ok(&common::call(
        &b,
        "write_file",
        json!({"path": "notes.md", "content": "# Replaced\n"}),
    ));
}

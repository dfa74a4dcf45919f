//! `apply_patch` over the workspace: Codex's format, every file changed or none, each kept in
//! its own format, every path the patch names confined and seen by the policy.

use serde_json::json;
use tool_core::ToolResult;

mod common;

/// The shared fixture over `apply_patch`, its workspace `ws` inside the temporary directory so
/// that a path escaping it still lands somewhere a test can look.
struct Fixture(common::Fixture);

impl std::ops::Deref for Fixture {
    type Target = common::Fixture;

    fn deref(&self) -> &common::Fixture {
        &self.0
    }
}

impl Fixture {
    fn new(policy: tool_core::policy::PolicyBuilder) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir(&root).unwrap();
        Fixture(common::Fixture::build(
            dir,
            root,
            &["apply_patch"],
            Some(policy.allow("apply_patch")),
        ))
    }

    /// The bytes of `name` in the workspace, if it is there.
    fn bytes(&self, name: &str) -> Option<Vec<u8>> {
        std::fs::read(self.root.join(name)).ok()
    }

    fn patch(&self, patch: &str) -> ToolResult {
        self.call("apply_patch", json!({ "patch": patch }))
    }
}

#[test]
fn add_update_move_and_delete_land_together_with_codexs_report() {
    let fx = Fixture::new(tool_core::policy::PolicyBuilder::default());
    fx.file("src/a.rs", b"fn a() {\n    1\n}\n");
    fx.file("old.txt", b"gone\n");
    fx.file("src/b.rs", b"fn b() {}\n");
    let result = fx.patch(
        "*** Begin Patch\n*** Add File: docs/new.md\n+# New\n*** Update File: src/a.rs\n@@ fn a() {\n-    1\n+    2\n*** Update File: src/b.rs\n*** Move to: src/c.rs\n@@\n-fn b() {}\n+fn c() {}\n*** Delete File: old.txt\n*** End Patch",
    );
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        result.text(),
        "Success. Updated the following files:\nA docs/new.md\nM src/a.rs\nM src/c.rs\nD old.txt\n"
    );
    assert_eq!(fx.bytes("docs/new.md").unwrap(), b"# New\n");
    assert_eq!(fx.bytes("src/a.rs").unwrap(), b"fn a() {\n    2\n}\n");
    assert_eq!(fx.bytes("src/c.rs").unwrap(), b"fn c() {}\n");
    assert!(fx.bytes("src/b.rs").is_none() && fx.bytes("old.txt").is_none());
}

#[test]
fn one_hunk_that_does_not_apply_changes_no_file() {
    let fx = Fixture::new(tool_core::policy::PolicyBuilder::default());
    fx.file("a.txt", b"one\n");
    fx.file("b.txt", b"two\n");
    let result = fx.patch(
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: b.txt\n@@\n-missing\n+x\n*** End Patch",
    );
    assert!(result.is_error());
    assert!(
        result.text().contains("b.txt") && result.text().contains("no file changed"),
        "{}",
        result.text()
    );
    assert_eq!(fx.bytes("a.txt").unwrap(), b"one\n");
    assert_eq!(fx.bytes("b.txt").unwrap(), b"two\n");
}

#[test]
fn each_file_keeps_its_encoding_bom_and_line_endings() {
    let fx = Fixture::new(tool_core::policy::PolicyBuilder::default());
    fx.file("crlf.txt", b"a\r\nb\r\nc\r\n");
    fx.file("latin1.txt", b"caf\xe9\nna\xefve\n");
    fx.file("bom.txt", b"\xEF\xBB\xBFx\ny\n");
    let result = fx.patch(
        "*** Begin Patch\n*** Update File: crlf.txt\n@@\n a\n-b\n+B\n*** Update File: latin1.txt\n@@\n-naïve\n+naïf\n*** Update File: bom.txt\n@@\n-y\n+Y\n*** End Patch",
    );
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(fx.bytes("crlf.txt").unwrap(), b"a\r\nB\r\nc\r\n");
    assert_eq!(fx.bytes("latin1.txt").unwrap(), b"caf\xe9\nna\xeff\n");
    assert_eq!(fx.bytes("bom.txt").unwrap(), b"\xEF\xBB\xBFx\nY\n");
}

#[test]
fn no_path_of_a_patch_leaves_the_workspace() {
    let fx = Fixture::new(tool_core::policy::PolicyBuilder::default());
    fx.file("a.txt", b"x\n");
    for patch in [
        "*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch",
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../moved.txt\n@@\n-x\n+y\n*** End Patch",
        "*** Begin Patch\n*** Delete File: /etc/hostname\n*** End Patch",
    ] {
        let result = fx.patch(patch);
        assert!(result.is_error(), "{patch}");
        assert!(result.text().contains("outside"), "{}", result.text());
    }
    assert!(
        !fx.dir.path().join("escape.txt").exists() && !fx.dir.path().join("moved.txt").exists()
    );
    assert_eq!(fx.bytes("a.txt").unwrap(), b"x\n");
}

#[test]
fn path_rules_apply_to_the_files_a_patch_names() {
    let fx = Fixture::new(tool_core::policy::PolicyBuilder::default().deny("Edit(secrets/**)"));
    let result = fx.patch("*** Begin Patch\n*** Add File: secrets/key.txt\n+x\n*** End Patch");
    assert_eq!(
        result.error().map(tool_core::ToolError::kind),
        Some("denied"),
        "{}",
        result.text()
    );
    assert!(fx.bytes("secrets/key.txt").is_none());
}

/// Found by an exploratory run: with no `docs` (or `old`, or `archive`) directory, a path in
/// it was taken for the existing top-level file of the same name (a repair meant for reading),
/// so adding overwrote that file, deleting deleted it, and a move into a new directory was
/// refused as naming the file itself.
#[test]
fn a_path_in_a_new_directory_never_lands_on_an_existing_file() {
    let fx = Fixture::new(tool_core::policy::PolicyBuilder::default());
    fx.file("notes.txt", b"kept\n");
    let added = fx.patch("*** Begin Patch\n*** Add File: docs/notes.txt\n+new\n*** End Patch");
    assert!(!added.is_error(), "{}", added.text());
    assert_eq!(fx.bytes("docs/notes.txt").unwrap(), b"new\n");
    assert_eq!(fx.bytes("notes.txt").unwrap(), b"kept\n");

    let deleted = fx.patch("*** Begin Patch\n*** Delete File: old/notes.txt\n*** End Patch");
    assert!(deleted.is_error(), "{}", deleted.text());
    assert_eq!(fx.bytes("notes.txt").unwrap(), b"kept\n");

    let moved = fx.patch(
        "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: archive/notes.txt\n@@\n-kept\n+moved\n*** End Patch",
    );
    assert!(!moved.is_error(), "{}", moved.text());
    assert_eq!(fx.bytes("archive/notes.txt").unwrap(), b"moved\n");
    assert!(fx.bytes("notes.txt").is_none());
}

#[test]
fn a_malformed_patch_says_which_line_and_what_was_expected() {
    let fx = Fixture::new(tool_core::policy::PolicyBuilder::default());
    let result = fx.patch("*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch");
    assert!(result.is_error());
    assert!(result.text().contains("line 2"), "{}", result.text());
}

#[test]
fn a_failed_patch_puts_back_a_file_it_added_over() {
    let fx = Fixture::new(tool_core::policy::PolicyBuilder::default());
    fx.file("keep.txt", b"original\n");
    fx.file("notadir", b"a regular file\n");
    let result = fx.patch(
        "*** Begin Patch\n*** Add File: keep.txt\n+replaced\n*** Add File: notadir/x.txt\n+x\n*** End Patch",
    );
    assert!(result.is_error(), "{}", result.text());
    assert_eq!(fx.bytes("keep.txt").unwrap(), b"original\n");
    assert_eq!(fx.bytes("notadir").unwrap(), b"a regular file\n");
}

#[test]
fn a_failed_patch_puts_back_a_file_a_move_landed_on() {
    let fx = Fixture::new(tool_core::policy::PolicyBuilder::default());
    fx.file("src.txt", b"moving\n");
    fx.file("dest.txt", b"already here\n");
    fx.file("notadir", b"a regular file\n");
    let result = fx.patch(
        "*** Begin Patch\n*** Update File: src.txt\n*** Move to: dest.txt\n@@\n-moving\n+moved\n*** Add File: notadir/x.txt\n+x\n*** End Patch",
    );
    assert!(result.is_error(), "{}", result.text());
    assert_eq!(fx.bytes("dest.txt").unwrap(), b"already here\n");
    assert_eq!(fx.bytes("src.txt").unwrap(), b"moving\n");
}

#[test]
fn two_spellings_of_one_file_are_refused_instead_of_losing_an_update() {
    let fx = Fixture::new(tool_core::policy::PolicyBuilder::default());
    fx.file("a.txt", b"one\ntwo\n");
    let result = fx.patch(
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: ./a.txt\n@@\n-two\n+TWO\n*** End Patch",
    );
    assert!(result.is_error(), "{}", result.text());
    assert!(
        result.text().contains("name the same file"),
        "{}",
        result.text()
    );
    assert_eq!(fx.bytes("a.txt").unwrap(), b"one\ntwo\n");
}

//! Cases ported from Codex (`codex-rs/apply-patch`: `src/parser.rs`, `src/lib.rs`,
//! `src/seek_sequence.rs`, `tests/fixtures/scenarios/*`; each names its source) and our own,
//! as tables.

use super::apply::seek;
use super::{
    Chunk, ChunkLine, FileChange, Operation, PatchError, apply_update, parse, plan, summary,
};

/// `body` between `*** Begin Patch` and `*** End Patch`, as Codex's `wrap_patch`.
fn wrap(body: &str) -> String {
    format!("*** Begin Patch\n{body}\n*** End Patch")
}

fn ctx(s: &str) -> ChunkLine {
    ChunkLine::Context(s.to_owned())
}
fn del(s: &str) -> ChunkLine {
    ChunkLine::Remove(s.to_owned())
}
fn add(s: &str) -> ChunkLine {
    ChunkLine::Add(s.to_owned())
}
fn chunk(context: Option<&str>, lines: Vec<ChunkLine>, end_of_file: bool, line: usize) -> Chunk {
    Chunk {
        context: context.map(str::to_owned),
        lines,
        end_of_file,
        line,
    }
}
fn add_op(path: &str, contents: &str, line: usize) -> Operation {
    Operation::Add {
        path: path.to_owned(),
        contents: contents.to_owned(),
        line,
    }
}
fn delete_op(path: &str, line: usize) -> Operation {
    Operation::Delete {
        path: path.to_owned(),
        line,
    }
}
fn update_op(path: &str, move_to: Option<&str>, chunks: Vec<Chunk>, line: usize) -> Operation {
    Operation::Update {
        path: path.to_owned(),
        move_to: move_to.map(str::to_owned),
        chunks,
        line,
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing

/// What a parse case expects: the operations, or the error's message.
enum Parsed {
    Ops(Vec<Operation>),
    Error(&'static str),
}

#[test]
fn parse_cases() {
    let cases: Vec<(&str, String, Parsed)> = vec![
        // Codex parser.rs test_parse_patch: no begin marker.
        (
            "codex: bad first line",
            "bad".into(),
            Parsed::Error("line 1: expected `*** Begin Patch` as the first line, found `bad`"),
        ),
        // Codex parser.rs test_parse_patch: no end marker.
        (
            "codex: bad last line",
            "*** Begin Patch\nbad".into(),
            Parsed::Error("line 2: expected `*** End Patch` as the last line, found `bad`"),
        ),
        // Codex parser.rs test_parse_patch: markers padded with spaces.
        (
            "codex: padded markers",
            "*** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch".into(),
            Parsed::Ops(vec![add_op("foo", "hi\n", 2)]),
        ),
        // Codex parser.rs test_parse_patch: an update without hunks.
        (
            "codex: empty update",
            "*** Begin Patch\n*** Update File: test.py\n*** End Patch".into(),
            Parsed::Error(
                "line 2: `*** Update File: test.py` has no hunks; expected `@@` then lines \
                 starting with ` ` (context), `-` (removed) or `+` (added)",
            ),
        ),
        // Codex parser.rs test_parse_patch: nothing between the markers parses.
        (
            "codex: no operations",
            "*** Begin Patch\n*** End Patch".into(),
            Parsed::Ops(vec![]),
        ),
        // Codex parser.rs test_parse_patch: add, delete, update with a move and `@@ context`.
        (
            "codex: add delete update move",
            wrap(
                "*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n\
                 *** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n\
                 -    pass\n+    return 123",
            ),
            Parsed::Ops(vec![
                add_op("path/add.py", "abc\ndef\n", 2),
                delete_op("path/delete.py", 5),
                update_op(
                    "path/update.py",
                    Some("path/update2.py"),
                    vec![chunk(
                        Some("def f():"),
                        vec![del("    pass"), add("    return 123")],
                        false,
                        8,
                    )],
                    6,
                ),
            ]),
        ),
        // Codex parser.rs test_parse_patch: an update followed by an add.
        (
            "codex: update then add",
            wrap("*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content"),
            Parsed::Ops(vec![
                update_op(
                    "file.py",
                    None,
                    vec![chunk(None, vec![add("line")], false, 3)],
                    2,
                ),
                add_op("other.py", "content\n", 5),
            ]),
        ),
        // Codex parser.rs test_parse_patch: a first hunk without `@@`.
        (
            "codex: first hunk without @@",
            wrap("*** Update File: file2.py\n import foo\n+bar"),
            Parsed::Ops(vec![update_op(
                "file2.py",
                None,
                vec![chunk(None, vec![ctx("import foo"), add("bar")], false, 3)],
                2,
            )]),
        ),
        // Codex parser.rs test_parse_one_hunk: not a section header.
        (
            "codex: bad section header",
            wrap("bad"),
            Parsed::Error(
                "line 2: expected `*** Add File: <path>`, `*** Update File: <path>` or \
                 `*** Delete File: <path>`, found `bad`",
            ),
        ),
        // Codex parser.rs test_update_file_chunk: a second hunk must start with `@@`.
        (
            "codex: second hunk without @@",
            wrap("*** Update File: a\n@@\n-x\n*** End of File\nbad"),
            Parsed::Error(
                "line 6: expected `@@` (or `@@ <a line of the file>`) to start hunk 2 of `a`, \
                 found `bad`",
            ),
        ),
        // Codex parser.rs test_update_file_chunk: `@@` with nothing after it.
        (
            "codex: @@ without lines",
            wrap("*** Update File: a\n@@"),
            Parsed::Error(
                "line 4: hunk 1 of `a` has no lines; expected lines starting with ` ` \
                 (context), `-` (removed) or `+` (added)",
            ),
        ),
        // Codex parser.rs test_update_file_chunk: `@@` then `*** End of File` only.
        (
            "codex: @@ then end of file",
            wrap("*** Update File: a\n@@\n*** End of File"),
            Parsed::Error(
                "line 4: hunk 1 of `a` has no lines; expected lines starting with ` ` \
                 (context), `-` (removed) or `+` (added)",
            ),
        ),
        // Codex parser.rs test_update_file_chunk: context, an empty line, `*** End of File`.
        (
            "codex: context and empty line",
            wrap(
                "*** Update File: a\n@@ change_context\n\n context\n-remove\n+add\n context2\n\
                 *** End of File",
            ),
            Parsed::Ops(vec![update_op(
                "a",
                None,
                vec![chunk(
                    Some("change_context"),
                    vec![
                        ctx(""),
                        ctx("context"),
                        del("remove"),
                        add("add"),
                        ctx("context2"),
                    ],
                    true,
                    3,
                )],
                2,
            )]),
        ),
        // Codex parser.rs test_update_file_chunk: a bad first line of a hunk.
        (
            "codex: unexpected hunk line",
            wrap("*** Update File: a\n@@\nbad"),
            Parsed::Error(
                "line 4: hunk 1 of `a`: expected a line starting with ` ` (context), `-` \
                 (removed) or `+` (added), found `bad`",
            ),
        ),
        // Codex scenario 017_whitespace_padded_hunk_header.
        (
            "codex: padded section header",
            "*** Begin Patch\n  *** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\n".into(),
            Parsed::Ops(vec![update_op(
                "foo.txt",
                None,
                vec![chunk(None, vec![del("old"), add("new")], false, 3)],
                2,
            )]),
        ),
        // Codex scenario 018_whitespace_padded_patch_markers.
        (
            "codex: padded begin and end",
            " *** Begin Patch\n*** Delete File: file.txt\n*** End Patch \n".into(),
            Parsed::Ops(vec![delete_op("file.txt", 2)]),
        ),
        // Codex parser.rs test_parse_patch_lenient: heredoc forms.
        (
            "codex: heredoc <<'EOF'",
            "<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n".into(),
            Parsed::Ops(vec![delete_op("a", 3)]),
        ),
        (
            "codex: heredoc <<EOF",
            "<<EOF\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n".into(),
            Parsed::Ops(vec![delete_op("a", 3)]),
        ),
        (
            "codex: heredoc <<\"EOF\"",
            "<<\"EOF\"\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n".into(),
            Parsed::Ops(vec![delete_op("a", 3)]),
        ),
        (
            "codex: heredoc with mismatched quotes",
            "<<\"EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n".into(),
            Parsed::Error("line 1: expected `*** Begin Patch` as the first line, found `<<\"EOF'`"),
        ),
        // Ours: the heredoc as a shell command would write it, with another delimiter.
        (
            "own: apply_patch <<'PATCH'",
            "apply_patch <<'PATCH'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nPATCH"
                .into(),
            Parsed::Ops(vec![delete_op("a", 3)]),
        ),
        // Ours: a heredoc whose body lacks the end marker reports the body's last line (as
        // Codex, which checks the body once it sees the wrapper).
        (
            "own: heredoc without end marker",
            "<<'EOF'\n*** Begin Patch\n*** Delete File: a\nEOF".into(),
            Parsed::Error(
                "line 3: expected `*** End Patch` as the last line, found `*** Delete File: a`",
            ),
        ),
        // Ours: blank lines around the patch are ignored; line numbers stay the sender's.
        (
            "own: blank lines around",
            "\n\n*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch\n\n".into(),
            Parsed::Ops(vec![update_op(
                "a",
                None,
                vec![chunk(None, vec![del("x"), add("y")], false, 5)],
                4,
            )]),
        ),
        // Ours: a patch sent with CRLF line ends.
        (
            "own: CRLF patch",
            "*** Begin Patch\r\n*** Add File: a\r\n+x\r\n*** End Patch\r\n".into(),
            Parsed::Ops(vec![add_op("a", "x\n", 2)]),
        ),
        // Ours: a padded `*** Move to:`.
        (
            "own: padded move",
            wrap("*** Update File: a\n  *** Move to: b  \n@@\n-x\n+y"),
            Parsed::Ops(vec![update_op(
                "a",
                Some("b"),
                vec![chunk(None, vec![del("x"), add("y")], false, 4)],
                2,
            )]),
        ),
        // Ours: several hunks, the second with context, each with its patch line.
        (
            "own: hunks numbered by patch line",
            wrap("*** Update File: a\n-x\n+y\n@@ fn b()\n-z\n+w"),
            Parsed::Ops(vec![update_op(
                "a",
                None,
                vec![
                    chunk(None, vec![del("x"), add("y")], false, 3),
                    chunk(Some("fn b()"), vec![del("z"), add("w")], false, 5),
                ],
                2,
            )]),
        ),
        // Ours: the second hunk's missing `@@`, named by hunk.
        (
            "own: second hunk without @@",
            wrap("*** Update File: a\n@@\n-x\n*** End of File\n-y"),
            Parsed::Error(
                "line 6: expected `@@` (or `@@ <a line of the file>`) to start hunk 2 of `a`, \
                 found `-y`",
            ),
        ),
        (
            "own: empty patch",
            " \n".into(),
            Parsed::Error(
                "line 1: the patch is empty; expected `*** Begin Patch`, the file sections, \
                 then `*** End Patch`",
            ),
        ),
    ];
    for (name, patch, want) in cases {
        let got = parse(&patch);
        match (want, got) {
            (Parsed::Ops(ops), Ok(p)) => assert_eq!(p.operations, ops, "{name}"),
            (Parsed::Error(msg), Err(e)) => assert_eq!(e.to_string(), msg, "{name}"),
            (_, got) => panic!("{name}: unexpected {got:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Matching (Codex's seek_sequence tests)

#[test]
fn seek_cases() {
    type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str], Option<usize>);
    let cases: &[Case] = &[
        // Codex seek_sequence.rs test_exact_match_finds_sequence.
        ("exact", &["foo", "bar", "baz"], &["bar", "baz"], Some(1)),
        // Codex seek_sequence.rs test_rstrip_match_ignores_trailing_whitespace.
        ("rstrip", &["foo   ", "bar\t\t"], &["foo", "bar"], Some(0)),
        // Codex seek_sequence.rs test_trim_match_ignores_leading_and_trailing_whitespace.
        (
            "trim",
            &["    foo   ", "   bar\t"],
            &["foo", "bar"],
            Some(0),
        ),
        // Codex seek_sequence.rs test_pattern_longer_than_input_returns_none.
        (
            "too long",
            &["just one line"],
            &["too", "many", "lines"],
            None,
        ),
        // Ours: punctuation both ways.
        (
            "punctuation",
            &["a \u{201C}b\u{201D}"],
            &["a \"b\""],
            Some(0),
        ),
    ];
    for (name, lines, pattern, want) in cases {
        assert_eq!(seek(lines, pattern, 0, false), *want, "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// Updates

/// An update of `f` by `hunks` (the lines after `*** Update File: f`), applied to `text`.
fn update(text: &str, hunks: &str) -> Result<String, PatchError> {
    let patch = parse(&wrap(&format!("*** Update File: f\n{hunks}"))).expect("parses");
    let [Operation::Update { chunks, .. }] = patch.operations.as_slice() else {
        panic!("one update");
    };
    apply_update("f", text, chunks)
}

#[test]
fn update_cases() {
    let cases: &[(&str, &str, &str, &str)] = &[
        // Codex lib.rs test_update_file_hunk_modifies_content.
        (
            "codex: modify",
            "foo\nbar\n",
            "@@\n foo\n-bar\n+baz",
            "foo\nbaz\n",
        ),
        // Codex lib.rs test_multiple_update_chunks_apply_to_single_file.
        (
            "codex: two chunks",
            "foo\nbar\nbaz\nqux\n",
            "@@\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX",
            "foo\nBAR\nbaz\nQUX\n",
        ),
        // Codex lib.rs test_update_file_hunk_interleaved_changes.
        (
            "codex: interleaved",
            "a\nb\nc\nd\ne\nf\n",
            "@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File",
            "a\nB\nc\nd\nE\nf\ng\n",
        ),
        // Codex lib.rs test_pure_addition_chunk_followed_by_removal (added-only hunks append).
        (
            "codex: pure addition then removal",
            "line1\nline2\nline3\n",
            "@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement",
            "line1\nline2-replacement\nafter-context\nsecond-line\n",
        ),
        // Codex lib.rs test_update_line_with_unicode_dash.
        (
            "codex: unicode dash",
            "import asyncio  # local import \u{2013} avoids top\u{2011}level dep\n",
            "@@\n-import asyncio  # local import - avoids top-level dep\n+import asyncio  # HELLO",
            "import asyncio  # HELLO\n",
        ),
        // Codex lib.rs test_unified_diff_first_line_replacement (a trailing empty line).
        (
            "codex: first line",
            "foo\nbar\nbaz\n",
            "@@\n-foo\n+FOO\n bar\n",
            "FOO\nbar\nbaz\n",
        ),
        // Codex lib.rs test_unified_diff_last_line_replacement.
        (
            "codex: last line",
            "foo\nbar\nbaz\n",
            "@@\n foo\n bar\n-baz\n+BAZ\n",
            "foo\nbar\nBAZ\n",
        ),
        // Codex lib.rs test_derive_new_contents_lf_trailing_newline.
        (
            "codex: lf trailing newline",
            "foo\nbar\n",
            "@@\n foo\n-bar\n+BAR\n",
            "foo\nBAR\n",
        ),
        // Codex lib.rs test_unified_diff_insert_at_eof.
        (
            "codex: insert at eof",
            "foo\nbar\nbaz\n",
            "@@\n+quux\n*** End of File\n",
            "foo\nbar\nbaz\nquux\n",
        ),
        // Codex lib.rs test_preserve_crlf_line_endings_on_update.
        (
            "codex: crlf kept",
            "a\r\nb\r\nc\r\n",
            "@@\n a\n-b\n+B\n@@\n c\n+d\n*** End of File",
            "a\r\nB\r\nc\r\nd\r\n",
        ),
        // Codex lib.rs test_preserve_crlf_embedded_carriage_returns_on_append.
        (
            "codex: crlf with embedded cr",
            "foo\r\r\nbar\r\n",
            "@@\n+BAZ\n*** End of File",
            "foo\r\r\nbar\r\nBAZ\r\n",
        ),
        // Codex scenario 014_update_file_appends_trailing_newline.
        (
            "codex: replaced last line gets a newline",
            "no newline at end",
            "@@\n-no newline at end\n+first line\n+second line",
            "first line\nsecond line\n",
        ),
        // Codex scenario 016_pure_addition_update_chunk.
        (
            "codex: pure addition",
            "line1\nline2\n",
            "@@\n+added line 1\n+added line 2",
            "line1\nline2\nadded line 1\nadded line 2\n",
        ),
        // Codex scenario 021_update_file_deletion_only.
        (
            "codex: deletion only",
            "line1\nline2\nline3\n",
            "@@\n line1\n-line2\n line3",
            "line1\nline3\n",
        ),
        // Codex scenario 022_update_file_end_of_file_marker.
        (
            "codex: end of file marker",
            "first\nsecond\n",
            "@@\n first\n-second\n+second updated\n*** End of File",
            "first\nsecond updated\n",
        ),
        // Ours: `*** End of File` anchors at the end though the lines also match earlier.
        (
            "own: end of file anchors",
            "x\ny\nx\ny\n",
            "@@\n x\n-y\n+Y\n*** End of File",
            "x\ny\nx\nY\n",
        ),
        // Ours: `@@ context` moves the search past its line.
        (
            "own: context line",
            "fn a() {\n    1\n}\nfn b() {\n    1\n}\n",
            "@@ fn b() {\n-    1\n+    2",
            "fn a() {\n    1\n}\nfn b() {\n    2\n}\n",
        ),
        // Ours: a second hunk searches from where the first ended.
        (
            "own: hunks in order",
            "x\nx\n",
            "@@\n-x\n+a\n@@\n-x\n+b",
            "a\nb\n",
        ),
        // Ours: trailing whitespace ignored; the file's context lines are kept as found.
        (
            "own: trailing whitespace",
            "a  \nb\t\n",
            "@@\n a\n-b\n+c",
            "a  \nc\n",
        ),
        // Ours: trimmed; the context keeps the file's indentation.
        (
            "own: trimmed",
            "    a\n    b\n",
            "@@\n a\n-b\n+    c",
            "    a\n    c\n",
        ),
        // Ours: typographic quotes and a no-break space in the file, ASCII in the patch.
        (
            "own: unicode punctuation",
            "say \u{201C}hi\u{201D}\u{00A0}now\n",
            "@@\n-say \"hi\" now\n+say hello",
            "say hello\n",
        ),
        // Ours: CRLF file, new lines take CRLF.
        (
            "own: crlf",
            "a\r\nb\r\n",
            "@@\n-a\n+x\n+y",
            "x\r\ny\r\nb\r\n",
        ),
        // Ours: mixed line ends, each untouched line keeps its own; new lines take the
        // replaced block's.
        (
            "own: mixed line ends",
            "a\r\nb\nc\r\n",
            "@@\n a\n-b\n+B",
            "a\r\nB\nc\r\n",
        ),
        // Ours: a file without a final line break keeps it missing when its end is untouched.
        ("own: no final newline kept", "a\nb", "@@\n-a\n+A", "A\nb"),
        // Ours: appending to a file without a final line break ends its last line first.
        (
            "own: append after no newline",
            "a\nb",
            "@@\n+c",
            "a\nb\nc\n",
        ),
        // Ours: an empty file takes added lines.
        ("own: empty file", "", "@@\n+a", "a\n"),
        // Ours: a lone `\r` is content, not a line break.
        ("own: lone cr", "a\rb\nc\n", "@@\n-c\n+d", "a\rb\nd\n"),
    ];
    for (name, text, hunks, want) in cases {
        match update(text, hunks) {
            Ok(got) => assert_eq!(got, *want, "{name}"),
            Err(e) => panic!("{name}: {e}"),
        }
    }
}

#[test]
fn update_errors() {
    let cases: &[(&str, &str, &str, &str)] = &[
        // Codex scenario 006_rejects_missing_context (our wording).
        (
            "codex: missing lines",
            "line1\nline2\n",
            "@@\n-missing\n+changed",
            "could not find these lines in `f` (hunk 1, patch line 3):\n  missing\n\
             nothing in the file is close; re-read it and resend the hunk with its context and \
             `-` lines as the file has them.",
        ),
        // Ours: the closest block, with its line numbers.
        (
            "own: closest",
            "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n",
            "@@\n fn main() {\n-    let x = 2;\n+    let x = 3;",
            "could not find these lines in `f` (hunk 1, patch line 3):\n  fn main() {\n      \
             let x = 2;\nthe closest is at line 1:\n     1 | fn main() {\n     2 |     let x = \
             1;\nRe-read the file and resend the hunk with its context and `-` lines as the \
             file has them.",
        ),
        // Ours: the hunk number and patch line of the second hunk.
        (
            "own: second hunk",
            "a\nb\n",
            "@@\n-a\n+A\n@@\n-zzzz\n+Z",
            "could not find these lines in `f` (hunk 2, patch line 6):\n  zzzz\nnothing in \
             the file is close; re-read it and resend the hunk with its context and `-` lines \
             as the file has them.",
        ),
        // Codex lib.rs "Failed to find context" (our wording).
        (
            "own: context not found",
            "a\nb\n",
            "@@ fn nowhere()\n-a\n+A",
            "could not find the context line `@@ fn nowhere()` in `f` (hunk 1, patch line 3)",
        ),
        (
            "own: context not found after a hunk",
            "fn x\na\nb\n",
            "@@\n-a\n+A\n@@ fn x\n-b\n+B",
            "could not find the context line `@@ fn x` in `f` (hunk 2, patch line 6) after \
             line 2, where hunk 1 ended",
        ),
        // Ours: `*** End of File` demands the end.
        (
            "own: end of file not at end",
            "a\nb\n",
            "@@\n-a\n+A\n*** End of File",
            "could not find these lines in `f` (hunk 1, patch line 3):\n  a\nthe closest is \
             at line 1:\n     1 | a\nRe-read the file and resend the hunk with its context and \
             `-` lines as the file has them.",
        ),
    ];
    for (name, text, hunks, want) in cases {
        match update(text, hunks) {
            Ok(got) => panic!("{name}: applied: {got:?}"),
            Err(e) => assert_eq!(e.to_string(), *want, "{name}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Whole patches

/// Plans `patch` over `files` (path, text); `Err` paths cannot be read.
fn run(files: &[(&str, &str)], patch: &str) -> Result<super::Plan, PatchError> {
    let patch = parse(patch)?;
    plan(&patch, |path| {
        if path == "unreadable" {
            return Err("not valid text".to_owned());
        }
        Ok(files
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| (*t).to_owned()))
    })
}

fn write(path: &str, text: &str, format_of: Option<&str>) -> FileChange {
    FileChange::Write {
        path: path.to_owned(),
        text: text.to_owned(),
        format_of: format_of.map(str::to_owned),
    }
}
fn remove(path: &str) -> FileChange {
    FileChange::Delete {
        path: path.to_owned(),
    }
}

#[test]
fn plan_cases() {
    type Case = (
        &'static str,
        Vec<(&'static str, &'static str)>,
        String,
        Vec<FileChange>,
        &'static str,
    );
    let cases: Vec<Case> = vec![
        // Codex lib.rs test_add_file_hunk_creates_file_with_contents.
        (
            "codex: add",
            vec![],
            wrap("*** Add File: add.txt\n+ab\n+cd"),
            vec![write("add.txt", "ab\ncd\n", None)],
            "Success. Updated the following files:\nA add.txt\n",
        ),
        // Codex lib.rs test_delete_file_hunk_removes_file.
        (
            "codex: delete",
            vec![("delete.txt", "x\n")],
            wrap("*** Delete File: delete.txt"),
            vec![remove("delete.txt")],
            "Success. Updated the following files:\nD delete.txt\n",
        ),
        // Codex lib.rs test_update_file_hunk_can_move_file: reported as `M` of the destination.
        (
            "codex: move",
            vec![("src.txt", "line\n")],
            wrap("*** Update File: src.txt\n*** Move to: dst.txt\n@@\n-line\n+line2"),
            vec![
                remove("src.txt"),
                write("dst.txt", "line2\n", Some("src.txt")),
            ],
            "Success. Updated the following files:\nM dst.txt\n",
        ),
        // Codex scenario 002_multiple_operations: A, then M, then D, whatever the order.
        (
            "codex: multiple operations",
            vec![
                ("modify.txt", "line1\nline2\n"),
                ("delete.txt", "obsolete\n"),
            ],
            wrap(
                "*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n\
                 *** Update File: modify.txt\n@@\n-line2\n+changed",
            ),
            vec![
                write("nested/new.txt", "created\n", None),
                remove("delete.txt"),
                write("modify.txt", "line1\nchanged\n", Some("modify.txt")),
            ],
            "Success. Updated the following files:\nA nested/new.txt\nM modify.txt\n\
             D delete.txt\n",
        ),
        // Codex scenario 010_move_overwrites_existing_destination.
        (
            "codex: move overwrites",
            vec![
                ("old/name.txt", "from\n"),
                ("renamed/dir/name.txt", "existing\n"),
            ],
            wrap(
                "*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-from\n\
                 +new",
            ),
            vec![
                remove("old/name.txt"),
                write("renamed/dir/name.txt", "new\n", Some("old/name.txt")),
            ],
            "Success. Updated the following files:\nM renamed/dir/name.txt\n",
        ),
        // Codex scenario 011_add_overwrites_existing_file.
        (
            "codex: add overwrites",
            vec![("duplicate.txt", "old content\n")],
            wrap("*** Add File: duplicate.txt\n+new content"),
            vec![write("duplicate.txt", "new content\n", None)],
            "Success. Updated the following files:\nA duplicate.txt\n",
        ),
        // Ours: an update sees an earlier add of the same file.
        (
            "own: add then update",
            vec![],
            wrap("*** Add File: a\n+x\n*** Update File: a\n@@\n-x\n+y"),
            vec![write("a", "y\n", None)],
            "Success. Updated the following files:\nA a\nM a\n",
        ),
        // Ours: a file added then deleted was never there.
        (
            "own: add then delete",
            vec![],
            wrap("*** Add File: a\n+x\n*** Delete File: a"),
            vec![],
            "Success. Updated the following files:\nA a\nD a\n",
        ),
        // Ours: a move onto itself is an update in place.
        (
            "own: move to itself",
            vec![("a", "x\r\n")],
            wrap("*** Update File: a\n*** Move to: a\n@@\n-x\n+y"),
            vec![write("a", "y\r\n", Some("a"))],
            "Success. Updated the following files:\nM a\n",
        ),
    ];
    for (name, files, patch, changes, summary) in cases {
        match run(&files, &patch) {
            Ok(p) => {
                assert_eq!(p.changes, changes, "{name}");
                assert_eq!(p.summary, summary, "{name}");
            }
            Err(e) => panic!("{name}: {e}"),
        }
    }
}

#[test]
fn plan_errors() {
    type Case = (
        &'static str,
        Vec<(&'static str, &'static str)>,
        String,
        &'static str,
    );
    let cases: Vec<Case> = vec![
        // Codex scenario 005_rejects_empty_patch.
        (
            "codex: empty patch",
            vec![],
            "*** Begin Patch\n*** End Patch".into(),
            "the patch changes no files: add `*** Add File:`, `*** Update File:` or \
             `*** Delete File:` sections between `*** Begin Patch` and `*** End Patch`",
        ),
        // Codex scenario 007_rejects_missing_file_delete.
        (
            "codex: delete missing",
            vec![],
            wrap("*** Delete File: missing.txt"),
            "`missing.txt` does not exist (patch line 2: `*** Delete File`); use \
             `*** Add File:` to create it",
        ),
        // Codex scenario 009_requires_existing_file_for_update.
        (
            "codex: update missing",
            vec![],
            wrap("*** Update File: missing.txt\n@@\n-old\n+new"),
            "`missing.txt` does not exist (patch line 2: `*** Update File`); use \
             `*** Add File:` to create it",
        ),
        // Codex scenario 015_failure_after_partial_success_leaves_changes: Codex keeps
        // `created.txt`; we return an error and no changes at all.
        (
            "codex: all or nothing",
            vec![],
            wrap("*** Add File: created.txt\n+hello\n*** Update File: missing.txt\n@@\n-old\n+new"),
            "`missing.txt` does not exist (patch line 4: `*** Update File`); use \
             `*** Add File:` to create it",
        ),
        // Ours: one bad hunk in the second file fails the whole patch.
        (
            "own: one bad chunk fails all",
            vec![("a", "1\n"), ("b", "value = 2\n")],
            wrap("*** Update File: a\n@@\n-1\n+one\n*** Update File: b\n@@\n-value = 3\n+x"),
            "could not find these lines in `b` (hunk 1, patch line 7):\n  value = 3\nthe \
             closest is at line 1:\n     1 | value = 2\nRe-read the file and resend the hunk with its context and \
             `-` lines as the file has them.",
        ),
        // Ours: a file moved away is gone for later operations.
        (
            "own: update after move",
            vec![("a", "x\n")],
            wrap("*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n*** Delete File: a"),
            "`a` does not exist (patch line 7: `*** Delete File`); use `*** Add File:` to \
             create it",
        ),
        // Ours: a read error names the file and the line.
        (
            "own: unreadable",
            vec![],
            wrap("*** Delete File: unreadable"),
            "could not read `unreadable` (patch line 2): not valid text",
        ),
    ];
    for (name, files, patch, want) in cases {
        match run(&files, &patch) {
            Ok(p) => panic!("{name}: applied: {p:?}"),
            Err(e) => assert_eq!(e.to_string(), want, "{name}"),
        }
    }
}

// Codex lib.rs print_summary: added, modified (a move under its destination), deleted, each in
// patch order, whatever order the patch has them in.
#[test]
fn summary_groups_by_kind() {
    let operations = [
        delete_op("gone", 2),
        update_op("from", Some("to"), vec![], 3),
        add_op("new", "x\n", 4),
        update_op("same", None, vec![], 5),
    ];
    assert_eq!(
        summary(&operations),
        "Success. Updated the following files:\nA new\nM to\nM same\nD gone\n"
    );
}

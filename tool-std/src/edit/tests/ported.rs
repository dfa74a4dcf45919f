//! Cases carried over from other agents' public test suites: their inputs and, where our
//! ladder agrees, their expected outputs. Where we deliberately differ (we never accept a
//! block whose lines differ, nor pick one of several matches), the case says so and expects
//! our answer. Each case names its source.

use super::super::{Edit, MatchLevel as L, apply_edits};
use super::{Want::*, all, case, run};

/// openai/codex, codex-rs/apply-patch/src/seek_sequence.rs and lib.rs tests.
#[test]
fn codex_seek_sequence() {
    run(&[
        // seek_sequence.rs: test_exact_match_finds_sequence
        case(
            "codex exact",
            "foo\nbar\nbaz\n",
            "bar\nbaz",
            "qux",
            Text("foo\nqux\n", L::Exact),
        ),
        // seek_sequence.rs: test_rstrip_match_ignores_trailing_whitespace
        case(
            "codex rstrip",
            "foo   \nbar\t\t\n",
            "foo\nbar",
            "x\ny",
            Text("x\ny\n", L::TrailingWhitespace),
        ),
        // seek_sequence.rs: test_trim_match_ignores_leading_and_trailing_whitespace. Codex
        // inserts patch lines as written; our block moved, so the new lines follow it.
        case(
            "codex trim",
            "    foo   \n   bar\t\n",
            "foo\nbar",
            "FOO\nBAR",
            Text("    FOO\n    BAR\n", L::Indentation),
        ),
        // seek_sequence.rs: test_pattern_longer_than_input_returns_none
        case(
            "codex longer pattern",
            "just one line",
            "too\nmany\nlines",
            "x",
            NotFound(None),
        ),
        // lib.rs: test_update_line_with_unicode_dash (EN DASH and NON-BREAKING HYPHEN in the
        // file, ASCII from the model)
        case(
            "codex unicode dash",
            "import asyncio  # local import \u{2013} avoids top\u{2011}level dep\n",
            "import asyncio  # local import - avoids top-level dep",
            "import asyncio  # HELLO",
            Text("import asyncio  # HELLO\n", L::Punctuation),
        ),
    ]);
}

/// google-gemini/gemini-cli, packages/core/src/tools/edit.test.ts (`calculateReplacement`).
#[test]
fn gemini_calculate_replacement() {
    const CONFIG: &str = "const myConfig = {\n  enableFeature: true,\n  retries: 3\n};";
    const DO_IT_TWICE: &str = "\nfunction doIt() {\n  console.log(\"hello\");\n}\n\n\
                               function doIt() {\n  console.log(\"hello\");\n}\n";
    run(&[
        // 'perform an exact replacement'
        case(
            "gemini exact",
            "hello world",
            "world",
            "moon",
            Text("hello moon", L::Exact),
        ),
        // 'perform a flexible, whitespace-insensitive replacement'
        case(
            "gemini flexible",
            "  hello\n    world\n",
            "hello\nworld",
            "goodbye\nmoon",
            Text("  goodbye\n  moon\n", L::Indentation),
        ),
        // 'return 0 occurrences if no match is found'
        case(
            "gemini no match",
            "hello world",
            "nomatch",
            "moon",
            NotFound(None),
        ),
        // 'regex-based replacement for flexible intra-line whitespace': Gemini accepts; we do
        // not collapse whitespace inside a line, and point at the line instead.
        case(
            "gemini intra-line whitespace",
            "  function  myFunc( a, b ) {\n    return a + b;\n  }",
            "function myFunc(a, b) {",
            "const yourFunc = (a, b) => {",
            NotFound(Some((1, 1))),
        ),
        // 'fuzzy replacement when exact match fails but similarity is high' (a missing comma):
        // Gemini accepts; an inner line differs, so we report the block instead.
        case(
            "gemini fuzzy typo",
            CONFIG,
            "const myConfig = {\n  enableFeature: true\n  retries: 3\n};",
            "const myConfig = {\n  enableFeature: false,\n  retries: 5\n};",
            NotFound(Some((1, 4))),
        ),
        // 'NOT perform a fuzzy replacement when similarity is below threshold'
        case(
            "gemini below threshold",
            CONFIG,
            "function somethingElse() {\n  return false;\n}",
            "x",
            NotFound(None),
        ),
        // 'multiple fuzzy replacements if multiple valid matches are found' (single quotes
        // against double): Gemini replaces both; ASCII quotes are not punctuation we
        // normalize, so nothing matches and the first block is offered.
        case(
            "gemini multiple fuzzy",
            DO_IT_TWICE,
            "function doIt() {\n  console.log('hello');\n}",
            "function doIt() {\n  console.log(\"bye\");\n}",
            NotFound(Some((2, 4))),
        ),
        // 'correctly rebase indentation in flexible replacement without double-indenting'
        case(
            "gemini rebase",
            "    if (a) {\n        foo();\n    }\n",
            "if (a) {\n    foo();\n}",
            "if (a) {\n    bar();\n}",
            Text("    if (a) {\n        bar();\n    }\n", L::Indentation),
        ),
        // 'rebase indentation in fuzzy replacement without double-indenting': the missing
        // comma again, so not found for us.
        case(
            "gemini fuzzy rebase",
            "    const myConfig = {\n      enableFeature: true,\n      retries: 3\n    };",
            "const myConfig = {\n  enableFeature: true\n  retries: 3\n};",
            "const myConfig = {\n  enableFeature: false,\n  retries: 5\n};",
            NotFound(Some((1, 4))),
        ),
        // 'NOT insert extra newlines when replacing a block preceded by a blank line': the
        // model's first line has two spaces inside it, which we do not ignore.
        case(
            "gemini blank line before block",
            "\n  function oldFunc() {\n    // some code\n  }",
            "function  oldFunc() {\n    // some code\n  }",
            "function newFunc() {\n  // new code\n}",
            NotFound(Some((2, 4))),
        ),
        // 'NOT insert extra newlines in flexible replacement when old_string starts with a
        // blank line'. Gemini keeps new_string's own indentation; we shift it by the block's
        // (the model put old at column 0 and new at column 2, so new lands 2 deeper).
        case(
            "gemini old starts with blank line",
            "  // some comment\n\n  function oldFunc() {}",
            "\nfunction oldFunc() {}",
            "\n  function newFunc() {}",
            Text(
                "  // some comment\n\n    function newFunc() {}",
                L::Indentation,
            ),
        ),
    ]);
}

/// google-gemini/gemini-cli, packages/core/src/tools/edit.test.ts (`applyReplacement`): the
/// new text goes in literally, `$` sequences included.
#[test]
fn gemini_apply_replacement_literal() {
    run(&[
        // '$ literal'
        case(
            "gemini $",
            "price is $100 and pattern end is ' '",
            "price is $100",
            "price is $200",
            Text("price is $200 and pattern end is ' '", L::Exact),
        ),
        // "$' literal"
        case(
            "gemini $'",
            "foo",
            "foo",
            "bar$'baz",
            Text("bar$'baz", L::Exact),
        ),
        // '$& literal'
        case(
            "gemini $&",
            "hello world",
            "hello",
            "$&-replacement",
            Text("$&-replacement world", L::Exact),
        ),
        // '$` literal'
        case(
            "gemini $`",
            "prefix-middle-suffix",
            "middle",
            "new$`content",
            Text("prefix-new$`content-suffix", L::Exact),
        ),
        // '$1, $2 capture groups literal'
        case(
            "gemini $1$2",
            "test string",
            "test",
            "$1$2replacement",
            Text("$1$2replacement string", L::Exact),
        ),
        // 'complex regex patterns with $ at end'
        case(
            "gemini regex-like",
            "| select('match', '^[sv]d[a-z]$')",
            "'^[sv]d[a-z]$'",
            "'^[sv]d[a-z]$' # updated",
            Text("| select('match', '^[sv]d[a-z]$' # updated)", L::Exact),
        ),
        // '$$ (escaped dollar)'
        case(
            "gemini $$",
            "price value",
            "value",
            "$$100",
            Text("price $$100", L::Exact),
        ),
        // 'replace oldString with newString in currentContent' (replaces every occurrence)
        all(
            "gemini replace all",
            "hello old world old",
            "old",
            "new",
            Text("hello new world new", L::Exact),
        ),
        // 'multiple occurrences with $ sequences'
        all(
            "gemini replace all $",
            "foo bar foo baz",
            "foo",
            "test$'end",
            Text("test$'end bar test$'end baz", L::Exact),
        ),
    ]);
}

/// google-gemini/gemini-cli, edit.test.ts (`execute`, error scenarios) and line-endings.test.ts.
#[test]
fn gemini_execute_and_line_endings() {
    run(&[
        // edit.test.ts: 'edit an existing file and return diff with fileName'
        case(
            "gemini edit existing",
            "This is some old text.",
            "old",
            "new",
            Text("This is some new text.", L::Exact),
        ),
        // edit.test.ts: 'preserve CRLF line endings when editing a file'
        case(
            "gemini crlf",
            "line one\r\nline two\r\n",
            "line two",
            "line three",
            Text("line one\r\nline three\r\n", L::Exact),
        ),
        // edit.test.ts: 'create a new file with CRLF line endings if new_string has them'
        // (here: an empty file takes the new text as sent)
        case(
            "gemini new file crlf",
            "",
            "",
            "new line one\r\nnew line two\r\n",
            Text("new line one\r\nnew line two\r\n", L::Exact),
        ),
        // edit.test.ts: Error Scenarios, NO_OCCURRENCE_FOUND
        case(
            "gemini no occurrence",
            "content",
            "not-found",
            "new",
            NotFound(None),
        ),
        // edit.test.ts: Error Scenarios, ATTEMPT_TO_CREATE_EXISTING_FILE
        case(
            "gemini create existing",
            "existing content",
            "",
            "new content",
            Empty,
        ),
        // line-endings.test.ts: 'should preserve CRLF when editing a file'
        case(
            "gemini line-endings crlf",
            "line1\r\nline2\r\nline3\r\n",
            "line2",
            "modified",
            Text("line1\r\nmodified\r\nline3\r\n", L::Exact),
        ),
    ]);
}

/// sst/opencode (now anomalyco/opencode), packages/opencode/test/tool/edit.test.ts.
#[test]
fn opencode_edit() {
    run(&[
        // 'creates new file when oldString is empty'
        case(
            "opencode create",
            "",
            "",
            "new content",
            Text("new content", L::Exact),
        ),
        // 'replaces text in existing file'
        case(
            "opencode replace",
            "old content here",
            "old content",
            "new content",
            Text("new content here", L::Exact),
        ),
        // 'throws error when oldString equals newString'
        case("opencode identical", "content", "same", "same", Identical),
        // 'throws error when oldString not found in file'
        case(
            "opencode not found",
            "actual content",
            "not in file",
            "replacement",
            NotFound(None),
        ),
        // 'replaces all occurrences with replaceAll option'
        all(
            "opencode replace all",
            "foo bar foo baz foo",
            "foo",
            "qux",
            Text("qux bar qux baz qux", L::Exact),
        ),
        // 'handles multiline replacements'
        case(
            "opencode multiline",
            "line1\nline2\nline3",
            "line2",
            "new line 2\nextra line",
            Text("line1\nnew line 2\nextra line\nline3", L::Exact),
        ),
        // 'handles CRLF line endings'
        case(
            "opencode crlf",
            "line1\r\nold\r\nline3",
            "old",
            "new",
            Text("line1\r\nnew\r\nline3", L::Exact),
        ),
        // 'throws error when oldString equals newString' (both empty)
        case("opencode identical empty", "content", "", "", Identical),
    ]);
}

/// sst/opencode, packages/opencode/test/tool/edit.test.ts, describe("line endings"): the file
/// keeps its line ends whatever the model sends.
#[test]
fn opencode_line_endings() {
    run(&[
        // 'preserves LF with LF multi-line strings'
        case(
            "lf/lf",
            "alpha\nbeta\ngamma\n",
            "alpha\nbeta\ngamma",
            "alpha\nbeta-updated\ngamma",
            Text("alpha\nbeta-updated\ngamma\n", L::Exact),
        ),
        // 'preserves CRLF with CRLF multi-line strings'
        case(
            "crlf/crlf",
            "alpha\r\nbeta\r\ngamma\r\n",
            "alpha\r\nbeta\r\ngamma",
            "alpha\r\nbeta-updated\r\ngamma",
            Text("alpha\r\nbeta-updated\r\ngamma\r\n", L::Exact),
        ),
        // 'preserves LF when old/new use CRLF'
        case(
            "lf file, crlf edit",
            "alpha\nbeta\ngamma\n",
            "alpha\r\nbeta\r\ngamma",
            "alpha\r\nbeta-updated\r\ngamma",
            Text("alpha\nbeta-updated\ngamma\n", L::LineEndings),
        ),
        // 'preserves CRLF when old/new use LF'
        case(
            "crlf file, lf edit",
            "alpha\r\nbeta\r\ngamma\r\n",
            "alpha\nbeta\ngamma",
            "alpha\nbeta-updated\ngamma",
            Text("alpha\r\nbeta-updated\r\ngamma\r\n", L::LineEndings),
        ),
        // 'preserves LF when newString uses CRLF'
        case(
            "lf file, crlf new",
            "alpha\nbeta\ngamma\n",
            "alpha\nbeta\ngamma",
            "alpha\r\nbeta-updated\r\ngamma",
            Text("alpha\nbeta-updated\ngamma\n", L::Exact),
        ),
        // 'preserves CRLF when newString uses LF'
        case(
            "crlf file, lf new",
            "alpha\r\nbeta\r\ngamma\r\n",
            "alpha\r\nbeta\r\ngamma",
            "alpha\nbeta-updated\ngamma",
            Text("alpha\r\nbeta-updated\r\ngamma\r\n", L::Exact),
        ),
        // 'preserves LF with mixed old/new line endings'
        case(
            "lf file, mixed edit",
            "alpha\nbeta\ngamma\n",
            "alpha\nbeta\r\ngamma",
            "alpha\r\nbeta\nomega",
            Text("alpha\nbeta\nomega\n", L::LineEndings),
        ),
        // 'preserves CRLF with mixed old/new line endings'
        case(
            "crlf file, mixed edit",
            "alpha\r\nbeta\r\ngamma\r\n",
            "alpha\r\nbeta\ngamma",
            "alpha\nbeta\r\nomega",
            Text("alpha\r\nbeta\r\nomega\r\n", L::LineEndings),
        ),
        // 'replaceAll preserves LF for multi-line blocks'
        all(
            "replace all lf",
            "alpha\nbeta\nalpha\nbeta\n",
            "alpha\nbeta",
            "alpha\nbeta-updated",
            Text("alpha\nbeta-updated\nalpha\nbeta-updated\n", L::Exact),
        ),
        // 'replaceAll preserves CRLF for multi-line blocks'
        all(
            "replace all crlf",
            "alpha\r\nbeta\r\nalpha\r\nbeta\r\n",
            "alpha\r\nbeta",
            "alpha\r\nbeta-updated",
            Text(
                "alpha\r\nbeta-updated\r\nalpha\r\nbeta-updated\r\n",
                L::Exact,
            ),
        ),
    ]);
}

/// sst/opencode, edit.test.ts: 'preserves concurrent edits to different sections of the same
/// file', here as two edits of one multi_edit.
#[test]
fn opencode_two_sections() {
    let edits = [
        Edit {
            old: "top = 0",
            new: "top = 1",
            replace_all: false,
        },
        Edit {
            old: "bottom = 0",
            new: "bottom = 2",
            replace_all: false,
        },
    ];
    let (text, applied) = apply_edits("top = 0\nmiddle = keep\nbottom = 0\n", &edits).unwrap();
    assert_eq!(text, "top = 1\nmiddle = keep\nbottom = 2\n");
    assert_eq!(
        applied.iter().map(|a| a.span).collect::<Vec<_>>(),
        [(1, 1), (3, 3)]
    );
}

/// Aider-AI/aider, tests/basic/test_editblock.py (`replace_most_similar_chunk`, full edits).
#[test]
fn aider_editblock() {
    run(&[
        // test_replace_part_with_missing_varied_leading_whitespace
        case(
            "aider varied leading whitespace",
            "\n    line1\n    line2\n        line3\n    line4\n",
            "line2\n    line3\n",
            "new_line2\n    new_line3\n",
            Text(
                "\n    line1\n    new_line2\n        new_line3\n    line4\n",
                L::Indentation,
            ),
        ),
        // test_replace_part_with_missing_leading_whitespace
        case(
            "aider missing leading whitespace",
            "    line1\n    line2\n    line3\n",
            "line1\nline2\n",
            "new_line1\nnew_line2\n",
            Text("    new_line1\n    new_line2\n    line3\n", L::Indentation),
        ),
        // test_replace_multiple_matches: Aider replaces the first; we ask for context.
        case(
            "aider multiple matches",
            "line1\nline2\nline1\nline3\n",
            "line1\n",
            "new_line\n",
            Ambiguous(L::Exact, &[1, 3]),
        ),
        // test_replace_multiple_matches_missing_whitespace: same, found as a substring.
        case(
            "aider multiple matches missing whitespace",
            "    line1\n    line2\n    line1\n    line3\n",
            "line1\n",
            "new_line\n",
            Ambiguous(L::Exact, &[1, 3]),
        ),
        // test_replace_part_with_just_some_missing_leading_whitespace
        case(
            "aider some missing leading whitespace",
            "    line1\n    line2\n    line3\n",
            " line1\n line2\n",
            " new_line1\n     new_line2\n",
            Text(
                "    new_line1\n        new_line2\n    line3\n",
                L::Indentation,
            ),
        ),
        // test_replace_part_with_missing_leading_whitespace_including_blank_line (aider#25):
        // Aider drops the model's leading blank line; the file has none there, so for us the
        // block's first line differs and the lines are offered instead.
        case(
            "aider leading blank line",
            "    line1\n    line2\n    line3\n",
            "\n  line1\n  line2\n",
            "  new_line1\n  new_line2\n",
            NotFound(Some((1, 3))),
        ),
        // test_full_edit
        case(
            "aider full edit",
            "one\ntwo\nthree\n",
            "two",
            "new",
            Text("one\nnew\nthree\n", L::Exact),
        ),
    ]);
}

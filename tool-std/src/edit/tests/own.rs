//! Our own cases: each level found and missed, ambiguity at each level, line ends and bytes
//! outside the edit, tabs, replace_all's limits, the error texts and the reply's snippet.

use super::super::{
    Applied, Candidate, Difference, Edit, EditError, MatchLevel as L, apply_edit, apply_edits,
    snippet, visible,
};
use super::{Want::*, all, case, run};

#[test]
fn each_level_found() {
    run(&[
        case("exact", "a\nb\nc\n", "b", "B", Text("a\nB\nc\n", L::Exact)),
        case(
            "line endings: LF block in a CRLF file",
            "x\r\ny\r\nz\r\n",
            "x\ny",
            "X\nY",
            Text("X\r\nY\r\nz\r\n", L::LineEndings),
        ),
        case(
            "trailing whitespace in the file",
            "fn a() {   \n    b();\t\n}\n",
            "fn a() {\n    b();",
            "fn a() {\n    c();",
            Text("fn a() {\n    c();\n}\n", L::TrailingWhitespace),
        ),
        case(
            "trailing whitespace from the model",
            "let x = 1;\nlet y = 2;\n",
            "let x = 1;  \nlet y = 2;  ",
            "let x = 3;\nlet y = 4;",
            Text("let x = 3;\nlet y = 4;\n", L::TrailingWhitespace),
        ),
        case(
            "trimmed lines: first line as written, an inner one not",
            "  a\n      b\n",
            "  a\n  b",
            "  a\n  c",
            Text("  a\n  c\n", L::TrimmedLines),
        ),
        case(
            "punctuation: curly quotes in the file",
            "print(\u{201C}hello\u{201D})\nx = 1\n",
            "print(\"hello\")\nx = 1",
            "print(\"bye\")\nx = 1",
            Text("print(\"bye\")\nx = 1\n", L::Punctuation),
        ),
        case(
            "punctuation: no-break space and em dash",
            "// a\u{00A0}b \u{2014} c\n",
            "// a b - c",
            "// d",
            Text("// d\n", L::Punctuation),
        ),
        case(
            "indentation: model dedented",
            "impl A {\n    fn f() {\n        g();\n    }\n}\n",
            "fn f() {\n    g();\n}",
            "fn f() {\n    h();\n    i();\n}",
            Text(
                "impl A {\n    fn f() {\n        h();\n        i();\n    }\n}\n",
                L::Indentation,
            ),
        ),
        case(
            "indentation: model over-indented",
            "if a:\n    x = 1\n",
            "    if a:\n        x = 1",
            "    if a:\n        x = 2\n    y = 3",
            Text("if a:\n    x = 2\ny = 3\n", L::Indentation),
        ),
        case(
            "unescaped: literal \\n",
            "a\nb\nc\n",
            "a\\nb",
            "a\\nB",
            Text("a\nB\nc\n", L::Unescaped),
        ),
        case(
            "unescaped: literal \\t and \\\"",
            "\tsay(\"hi\")\n",
            "\\tsay(\\\"hi\\\")",
            "\\tsay(\\\"bye\\\")",
            Text("\tsay(\"bye\")\n", L::Unescaped),
        ),
        case(
            "unescaped old, new with real line breaks stays as written",
            "a\nb\n",
            "a\\nb",
            "a\nprint(\"\\n\")",
            Text("a\nprint(\"\\n\")\n", L::Unescaped),
        ),
    ]);
}

#[test]
fn each_level_missed() {
    run(&[
        // Line endings aside, the text differs.
        case(
            "line endings miss",
            "x\r\ny\r\n",
            "x\nz",
            "q",
            NotFound(Some((1, 2))),
        ),
        // Trailing whitespace is not leading whitespace: that is a later level.
        case(
            "trailing whitespace miss goes on to indentation",
            "  a  \n  b\n",
            "a\nb",
            "c\nd",
            Text("  c\n  d\n", L::Indentation),
        ),
        // Trimmed lines still compare every line: an inner line differs.
        case(
            "trimmed miss on an inner line",
            "  first\n  middle\n  last\n",
            "first\n  muddle\nlast",
            "x",
            NotFound(Some((1, 3))),
        ),
        // First and last lines alike is not enough (no anchor-only matching).
        case(
            "no anchor-only match",
            "fn f() {\n    one();\n    two();\n}\n",
            "fn f() {\n    one();\n    three();\n}",
            "fn f() {}",
            NotFound(Some((1, 4))),
        ),
        // ASCII quote kinds are not punctuation we normalize.
        case(
            "punctuation miss",
            "say('hi')\n",
            "say(\"hi\")",
            "x",
            NotFound(Some((1, 1))),
        ),
        // Unescaping does not rescue a different text.
        case(
            "unescaped miss",
            "a\nb\n",
            "a\\nc",
            "x",
            NotFound(Some((1, 2))),
        ),
    ]);
}

#[test]
fn ambiguity_at_each_level() {
    run(&[
        case(
            "exact",
            "x = 1\ny\nx = 1\n",
            "x = 1",
            "x = 2",
            Ambiguous(L::Exact, &[1, 3]),
        ),
        case(
            "line endings",
            "a\r\nb\r\na\r\nb\r\n",
            "a\nb",
            "c",
            Ambiguous(L::LineEndings, &[1, 3]),
        ),
        case(
            "trailing whitespace",
            "x  \ny\nx \ny\n",
            "x\ny",
            "z",
            Ambiguous(L::TrailingWhitespace, &[1, 3]),
        ),
        case(
            "trimmed lines",
            "  a\n b\n  a\n   b\n",
            "  a\nb",
            "c",
            Ambiguous(L::TrimmedLines, &[1, 3]),
        ),
        case(
            "punctuation",
            "\u{201C}x\u{201D}\n\u{201C}x\u{201D}\n",
            "\"x\"",
            "y",
            Ambiguous(L::Punctuation, &[1, 2]),
        ),
        case(
            "indentation",
            "  a\n  b\n    a\n    b\n",
            "a\nb",
            "c",
            Ambiguous(L::Indentation, &[1, 3]),
        ),
        case(
            "unescaped",
            "a\nb\na\nb\n",
            "a\\nb",
            "c",
            Ambiguous(L::Unescaped, &[1, 3]),
        ),
        // A level that finds it several times decides: a looser one is not asked to pick.
        case(
            "ambiguous exact is final",
            "foo\nfoobar\n",
            "foo",
            "baz",
            Ambiguous(L::Exact, &[1, 2]),
        ),
    ]);
}

#[test]
fn line_ends_and_bytes_outside_the_edit() {
    run(&[
        case(
            "multi-line new text in a CRLF file",
            "a\r\nb\r\nc\r\n",
            "b",
            "b1\nb2",
            Text("a\r\nb1\r\nb2\r\nc\r\n", L::Exact),
        ),
        case(
            "mixed file: the CRLF block gets CRLF, the rest is untouched",
            "lf\ncrlf1\r\ncrlf2\r\nlf\n",
            "crlf1\ncrlf2",
            "one\ntwo\nthree",
            Text("lf\none\r\ntwo\r\nthree\r\nlf\n", L::LineEndings),
        ),
        case(
            "mixed file: the LF block gets LF",
            "crlf\r\nlf1\nlf2\ncrlf\r\n",
            "lf1\nlf2",
            "x\ny",
            Text("crlf\r\nx\ny\ncrlf\r\n", L::Exact),
        ),
        case(
            "a line without its own end takes the next one's",
            "a\r\nb",
            "a",
            "a1\na2",
            Text("a1\r\na2\r\nb", L::Exact),
        ),
        case(
            "old_string's final line end, file's last line without one",
            "x\nlast",
            "last  \n",
            "LAST\n",
            Text("x\nLAST", L::TrailingWhitespace),
        ),
        case(
            "deleting whole lines in a CRLF file",
            "a\r\nb\r\nc\r\n",
            "b\n",
            "",
            Text("a\r\nc\r\n", L::LineEndings),
        ),
    ]);
    // Arbitrary bytes around the edit (lone \r, trailing spaces, no final line end) survive.
    let text = "head \r tail\r\n\t mixed\nmiddle\r\nend  ";
    let a = apply_edit(text, "middle", "MIDDLE\nMORE", false).unwrap();
    assert_eq!(a.text, "head \r tail\r\n\t mixed\nMIDDLE\r\nMORE\r\nend  ");
}

#[test]
fn tabs_stay_tabs() {
    run(&[
        // claude-code#9163: the model writes spaces, the file has tabs.
        case(
            "spaces from the model, tabs in the file",
            "fn main() {\n\tif x {\n\t\tfoo();\n\t}\n}\n",
            "    if x {\n        foo();\n    }",
            "    if x {\n        bar();\n        if y {\n            baz();\n        }\n    }",
            Text(
                "fn main() {\n\tif x {\n\t\tbar();\n\t\tif y {\n\t\t\tbaz();\n\t\t}\n\t}\n}\n",
                L::Indentation,
            ),
        ),
        case(
            "two-space model, tabs in the file",
            "\t\tcall();\n\t\tother();\n",
            "  call();\n  other();",
            "  call(1);\n    nested();",
            Text("\t\tcall(1);\n\t\t\tnested();\n", L::Indentation),
        ),
        case(
            "tabs from the model, spaces in the file",
            "    a\n        b\n",
            "\ta\n\t\tb",
            "\ta\n\t\tc",
            Text("    a\n        c\n", L::Indentation),
        ),
        case(
            "tabs matched exactly stay as written",
            "\tx = 1\n",
            "\tx = 1",
            "\tx = 2",
            Text("\tx = 2\n", L::Exact),
        ),
    ]);
}

/// Indentation maps step by step, not by the first line's offset (issue 28).
#[test]
fn indentation_maps_by_unit() {
    run(&[
        // Issue 28, a case ported into the hidden edit ladder: a 2-space model, a file of
        // 4-space steps. Shifting by the first line's offset (+2) gave the body 6 spaces.
        case(
            "two-space model, four-space file",
            "def f():\n    if x:\n        a()\n    return 1\n",
            "  if x:\n    a()",
            "  if x:\n    b()\n    c()",
            Text(
                "def f():\n    if x:\n        b()\n        c()\n    return 1\n",
                L::Indentation,
            ),
        ),
        case(
            "four-space model, two-space file",
            "a:\n  b:\n    c\n",
            "    b:\n        c",
            "    b:\n        d\n        e:\n            f",
            Text("a:\n  b:\n    d\n    e:\n      f\n", L::Indentation),
        ),
        // The block shows no depth of its own; the units of both sides decide.
        case(
            "units from new_string and the whole file",
            "class A:\n    def f(self):\n        a()\n        b()\n",
            "  a()\n  b()",
            "  a()\n  if c:\n    b()",
            Text(
                "class A:\n    def f(self):\n        a()\n        if c:\n            b()\n",
                L::Indentation,
            ),
        ),
        // An alignment remainder (a continuation under an opening parenthesis, off the
        // model's 4-column grid) stays beside the converted steps.
        case(
            "alignment kept beside the steps",
            "fn f() {\n  if x {\n    g();\n  }\n}\n",
            "    if x {\n        g();\n    }",
            "    if x {\n        g(a,\n          b);\n    }",
            Text(
                "fn f() {\n  if x {\n    g(a,\n      b);\n  }\n}\n",
                L::Indentation,
            ),
        ),
        // The file steps by 2 and by 4 equally often: deeper lines cannot be placed.
        case(
            "file unit unclear and new_string nests",
            "p\n  q\nr\n    s\nt\n",
            " r\n s",
            " r\n   u",
            UnclearIndent,
        ),
        // ...but lines all at the first line's depth need no unit.
        case(
            "file unit unclear, new_string flat",
            "p\n  q\nr\n    s\nt\n",
            " r\n s",
            " R\n S",
            Text("p\n  q\nR\nS\nt\n", L::Indentation),
        ),
    ]);
}

#[test]
fn unclear_indentation_says_what_to_do() {
    let err = apply_edit("p\n  q\nr\n    s\nt\n", " r\n s", " r\n   u", false).unwrap_err();
    let message = err.to_string();
    assert!(message.contains("found at line 3"), "{message}");
    assert!(message.contains("nothing was changed"), "{message}");
    assert!(message.contains("yours: 2 columns"), "{message}");
    assert!(
        message.contains("with the file's own indentation"),
        "{message}"
    );
}

#[test]
fn replace_all_uses_only_the_first_two_levels() {
    run(&[
        all("exact", "a b a", "a", "c", Text("c b c", L::Exact)),
        all(
            "line endings",
            "a\r\nb\r\na\r\nb\r\n",
            "a\nb",
            "c",
            Text("c\r\nc\r\n", L::LineEndings),
        ),
        // Found by trailing whitespace alone: replace_all will not take it.
        all(
            "not trailing whitespace",
            "x  \ny\nx  \ny\n",
            "x\ny",
            "z",
            NotFound(Some((1, 2))),
        ),
        all(
            "not indentation",
            "  a\n  b\n",
            "a\nb",
            "c",
            NotFound(Some((1, 2))),
        ),
    ]);
    let a = apply_edit("x\nx\nx\n", "x", "y", true).unwrap();
    assert_eq!((a.replacements, a.span), (3, (1, 3)));
    match apply_edit("x  \n", "x\n", "y", true) {
        Err(
            e @ EditError::NotFound {
                exact_only: true, ..
            },
        ) => {
            assert!(
                e.to_string()
                    .contains("with replace_all only exact matches count"),
                "{e}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn refusals() {
    run(&[
        case("old == new", "abc", "b", "b", Identical),
        case(
            "old == new, not even in the file",
            "abc",
            "zz",
            "zz",
            Identical,
        ),
        case("empty old on a file with content", "abc", "", "x", Empty),
        case(
            "empty old on an empty file",
            "",
            "",
            "x\n",
            Text("x\n", L::Exact),
        ),
        // Found only by ignoring what new_string changes: nothing would change.
        case("unchanged", "foo\n", "foo  ", "foo", Unchanged),
    ]);
    assert!(EditError::Identical.to_string().contains("identical"));
    assert!(EditError::Empty.to_string().contains("write_file"));
}

#[test]
fn not_found_names_the_closest_block() {
    let text = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";
    let old = "fn main() {\n    let x = 2;\n    println!(\"{x}\");\n}";
    let Err(err) = apply_edit(text, old, "fn main() {}", false) else {
        panic!("applied")
    };
    let EditError::NotFound {
        closest: Some(c),
        exact_only: false,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(c.lines, (1, 4));
    assert!(c.similarity > 0.9 && c.similarity < 1.0, "{}", c.similarity);
    assert_eq!(
        c.first_difference,
        Difference {
            line: 2,
            expected: "····let·x·=·2;".to_owned(),
            found: "····let·x·=·1;".to_owned()
        }
    );
    let message = err.to_string();
    for part in [
        "lines 1-4",
        "% similar",
        "line 2:",
        "····let·x·=·2;",
        "· space, → tab",
    ] {
        assert!(message.contains(part), "{part:?} missing from:\n{message}");
    }

    // Whitespace the model got wrong shows up, tab against spaces.
    let Err(EditError::NotFound {
        closest: Some(Candidate {
            first_difference, ..
        }),
        ..
    }) = apply_edit(
        "\tlet a = 1; \n\tlet b = 2;\n",
        "\tlet a = 1;\n    let b = 3;",
        "x",
        false,
    )
    else {
        panic!("applied")
    };
    assert_eq!(first_difference.line, 1);
    assert_eq!(first_difference.found, "→let·a·=·1;·");
    assert_eq!(first_difference.expected, "→let·a·=·1;");

    // Nothing alike: no candidate, and the message says to re-read.
    let Err(err) = apply_edit("alpha\nbeta\n", "something else entirely", "x", false) else {
        panic!("applied")
    };
    assert_eq!(
        err,
        EditError::NotFound {
            closest: None,
            exact_only: false
        }
    );
    assert!(err.to_string().contains("no part of the file is similar"));
}

#[test]
fn closest_stays_cheap_on_a_large_file() {
    let text: String = (0..20_000)
        .map(|i| format!("    let value_{i} = compute({i});\n"))
        .collect();
    let old = "    let value_12345 = compute(12346);\n    let value_12346 = compute(12346);";
    let Err(EditError::NotFound {
        closest: Some(c), ..
    }) = apply_edit(&text, old, "x", false)
    else {
        panic!("applied")
    };
    assert_eq!(c.lines, (12346, 12347));
}

#[test]
fn ambiguous_message_lists_lines_and_the_way_out() {
    let err = apply_edit("a\nb\na\n", "a", "c", false).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("found 2 times, at lines 1 and 3"),
        "{message}"
    );
    assert!(message.contains("set replace_all"), "{message}");

    let err = apply_edit("  a\n  b\n    a\n    b\n", "a\nb", "c", false).unwrap_err();
    let message = err.to_string();
    assert!(message.contains(L::Indentation.describe()), "{message}");
    assert!(
        message.contains("replace_all only takes exact matches"),
        "{message}"
    );

    let text = "x\n".repeat(12);
    let message = apply_edit(&text, "x", "y", false).unwrap_err().to_string();
    assert!(message.contains("found 12 times, at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …"));
}

#[test]
fn multi_edit_is_sequential_and_all_or_nothing() {
    let text = "one\ntwo\nthree\n";
    // The second edit sees the first one's result.
    let edits = [
        Edit {
            old: "two",
            new: "2",
            replace_all: false,
        },
        Edit {
            old: "one\n2",
            new: "1\n2",
            replace_all: false,
        },
    ];
    let (out, applied): (String, Vec<Applied>) = apply_edits(text, &edits).unwrap();
    assert_eq!(out, "1\n2\nthree\n");
    assert_eq!(applied.len(), 2);
    assert_eq!(applied[1].text, out);

    // A failing edit names its index; nothing is returned to write.
    let edits = [
        Edit {
            old: "one",
            new: "1",
            replace_all: false,
        },
        Edit {
            old: "four",
            new: "4",
            replace_all: false,
        },
        Edit {
            old: "three",
            new: "3",
            replace_all: false,
        },
    ];
    let (index, err) = apply_edits(text, &edits).unwrap_err();
    assert_eq!(index, 1);
    assert!(matches!(err, EditError::NotFound { .. }));

    let edits = [Edit {
        old: "x",
        new: "x",
        replace_all: false,
    }];
    assert_eq!(
        apply_edits(text, &edits).unwrap_err(),
        (0, EditError::Identical)
    );
}

#[test]
fn span_and_snippet() {
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    let a = apply_edit(&text, "line 5\n", "five\nfive and a half\n", false).unwrap();
    assert_eq!(a.span, (5, 6));
    assert_eq!(
        snippet(&a.text, a.span, 2),
        "     3\tline 3\n     4\tline 4\n     5\tfive\n     6\tfive and a half\n     7\tline 6\n     8\tline 7\n"
    );
    // Deleting lines: the span is the line now where they were.
    let a = apply_edit(&text, "line 5\nline 6\n", "", false).unwrap();
    assert_eq!(a.span, (5, 5));
    assert!(snippet(&a.text, a.span, 0).starts_with("     5\tline 7\n"));
    // CRLF files show no \r; at the file's edges the context is cut short.
    assert_eq!(snippet("a\r\nb\r\n", (1, 1), 3), "     1\ta\n     2\tb\n");
    // A long span shows its ends around a ⋮.
    let long: String = (1..=100).map(|i| format!("{i}\n")).collect();
    let s = snippet(&long, (10, 90), 1);
    assert!(s.contains("    19\t19\n     ⋮\n    81\t81\n"), "{s}");
    assert_eq!(s.lines().count(), 1 + 10 + 1 + 10 + 1);
}

#[test]
fn levels_describe_themselves() {
    let levels = [
        L::Exact,
        L::LineEndings,
        L::TrailingWhitespace,
        L::TrimmedLines,
        L::Punctuation,
        L::Indentation,
        L::Unescaped,
    ];
    let described: std::collections::HashSet<_> = levels.iter().map(|l| l.describe()).collect();
    assert_eq!(described.len(), levels.len());
    assert_eq!(
        L::TrailingWhitespace.describe(),
        "matched after ignoring trailing whitespace"
    );
    assert!(
        levels.windows(2).all(|w| w[0] < w[1]),
        "the ladder's order is the enum's"
    );
}

#[test]
fn whitespace_made_visible() {
    assert_eq!(visible("\t a\u{00A0}b \r\n"), "→·a⍽b·␍⏎");
}

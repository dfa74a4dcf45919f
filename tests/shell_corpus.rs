//! Real command lines, as they appear in well-known projects' package scripts, CI files,
//! Makefiles, Dockerfiles and READMEs, read by the shell analyzer: every one of them parses,
//! and what it runs and writes is checked in as golden output, so a change to the analyzer
//! that changes what a real command is seen to run shows up in review.
//!
//! `tests/shell_corpus/commands.txt` holds the command lines (its head says the format),
//! `tests/shell_corpus/analysis.golden` their analysis. After a deliberate change to the
//! analyzer, `UPDATE_GOLDEN=1 cargo test --test shell_corpus` writes the golden file anew;
//! review its diff line by line before committing it.
//!
//! `tests/shell_corpus/known_unparsable.txt` holds real command lines tree-sitter-bash does
//! not read, each with the reason: they must keep being reported as problems (never silently
//! analysed as something they are not), and one that starts to parse moves to the corpus.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use tool_core::policy::shell::{Beneath, CommandLine, Run};

/// One command line of a corpus file and where it comes from.
struct Entry {
    /// The `# source:` comment in force where it appears.
    source: String,
    /// The command line, its lines joined by newlines.
    command: String,
    /// The line of the file it starts on, for messages.
    line: usize,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shell_corpus")
}

/// Reads a corpus file: entries are separated by blank lines; in each block, the `#` lines
/// before the first command line are comments about it (`# source: owner/repo path` names the
/// source of the entries that follow, until the next one); every line after that, up to the
/// next blank line, is the command, comments and all.
fn read_corpus(name: &str) -> Vec<Entry> {
    let path = corpus_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    let mut entries = Vec::new();
    let mut source = String::new();
    let mut command: Vec<&str> = Vec::new();
    let mut start = 0;
    for (index, line) in text.lines().chain(std::iter::once("")).enumerate() {
        if line.trim().is_empty() {
            if !command.is_empty() {
                entries.push(Entry {
                    source: source.clone(),
                    command: command.join("\n"),
                    line: start,
                });
                command.clear();
            }
            continue;
        }
        if command.is_empty() && line.starts_with('#') {
            if let Some(named) = line.strip_prefix("# source:") {
                source = named.trim().to_owned();
            }
            continue;
        }
        if command.is_empty() {
            start = index + 1;
        }
        command.push(line);
    }
    entries
}

/// A text on one line of the golden file: a newline inside it is shown as `⏎`.
fn one_line(text: &str) -> String {
    text.replace('\n', "⏎")
}

/// A run as one line: its canonical text, then what else is known of it.
fn render_run(run: &Run) -> String {
    let mut facts = vec![match run.program() {
        Some(program) => format!("program={}", one_line(program)),
        None => "program=?".to_owned(),
    }];
    if let Some(via) = run.via() {
        facts.push(format!("via={via}"));
    }
    if !run.assignments.is_empty() {
        facts.push(format!("assign={}", one_line(&run.assignments.join(" "))));
    }
    if run.transparent {
        facts.push("transparent".to_owned());
    }
    if run.writes_output {
        facts.push(format!("writes {}", one_line(&run.redirects.join(" "))));
    }
    format!("  run: {}  [{}]", one_line(&run.text()), facts.join("; "))
}

/// The analysis of every entry, in the golden file's form.
fn render(entries: &[Entry]) -> String {
    let mut out = String::from(
        "# The analysis of tests/shell_corpus/commands.txt by CommandLine::analyze, written by\n\
         # tests/shell_corpus.rs (UPDATE_GOLDEN=1 writes it anew). For each command: its lines\n\
         # (`$` the first, `>` the next), then one line per run, in order: its canonical text,\n\
         # then [program (? when only known at run time); via: the wrapper running it; assign:\n\
         # assignments made for it; transparent: a wrapper that only changes how its command\n\
         # runs; writes: its output redirections to files]; one line per write, one per problem.\n\
         # A newline inside a text is shown as ⏎.\n",
    );
    let mut source = "";
    for entry in entries {
        if entry.source != source {
            source = &entry.source;
            let _ = write!(out, "\n# source: {source}\n");
        }
        out.push('\n');
        for (index, line) in entry.command.lines().enumerate() {
            let prompt = if index == 0 { '$' } else { '>' };
            let _ = writeln!(out, "{prompt} {line}");
        }
        let line = CommandLine::analyze(&entry.command);
        for run in line.runs() {
            out.push_str(&render_run(run));
            out.push('\n');
        }
        for write in line.writes() {
            let mode = if write.append { "append" } else { "replace" };
            let known = if write.target.is_exact() {
                ""
            } else {
                ", known at run time"
            };
            let beneath = match &write.beneath {
                Beneath::Nothing => String::new(),
                Beneath::Everything => ", and all beneath".to_owned(),
                Beneath::Selected(selection) => format!(", and beneath: {selection:?}"),
                other => format!(", and beneath: {other:?}"),
            };
            let _ = writeln!(
                out,
                "  write: {}  [{mode}{known}{beneath}]",
                one_line(&write.target.text)
            );
        }
        for problem in line.problems() {
            let _ = writeln!(out, "  problem: {}", one_line(problem));
        }
    }
    out
}

#[test]
fn real_command_lines_parse_and_match_their_golden_analysis() {
    let entries = read_corpus("commands.txt");
    assert!(!entries.is_empty(), "the corpus is empty");

    let mut failures = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for entry in &entries {
        if entry.source.is_empty() {
            failures.push(format!(
                "line {}: no `# source:` names where it comes from",
                entry.line
            ));
        }
        if !seen.insert(entry.command.as_str()) {
            failures.push(format!(
                "line {}: a duplicate of an earlier entry",
                entry.line
            ));
        }
        let problems = CommandLine::analyze(&entry.command).problems().to_vec();
        if !problems.is_empty() {
            failures.push(format!(
                "line {} ({}): {}\n    {}",
                entry.line,
                entry.source,
                one_line(&entry.command),
                problems.join("\n    ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus entries are wrong:\n{}",
        failures.len(),
        entries.len(),
        failures.join("\n")
    );

    let rendered = render(&entries);
    let golden_path = corpus_dir().join("analysis.golden");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden_path, &rendered)
            .unwrap_or_else(|error| panic!("cannot write {}: {error}", golden_path.display()));
        return;
    }
    let golden = std::fs::read_to_string(&golden_path)
        .unwrap_or_else(|error| {
            panic!(
                "cannot read {} ({error}); UPDATE_GOLDEN=1 writes it",
                golden_path.display()
            )
        })
        // A checkout that turned line ends into CRLF.
        .replace("\r\n", "\n");
    if golden != rendered {
        panic!(
            "the analysis differs from {}:\n{}\n\
             If the change is intended, UPDATE_GOLDEN=1 writes the golden file anew: review its diff.",
            golden_path.display(),
            first_difference(&golden, &rendered)
        );
    }
}

/// Where two texts first differ, with a few lines of each from there.
fn first_difference(golden: &str, now: &str) -> String {
    const SHOWN: usize = 8;
    let golden: Vec<&str> = golden.lines().collect();
    let now: Vec<&str> = now.lines().collect();
    let at = golden
        .iter()
        .zip(&now)
        .position(|(expected, actual)| expected != actual)
        .unwrap_or_else(|| golden.len().min(now.len()));
    let excerpt = |lines: &[&str]| {
        let shown: Vec<&str> = lines.iter().skip(at).take(SHOWN).copied().collect();
        if shown.is_empty() {
            "    (end of file)".to_owned()
        } else {
            shown
                .iter()
                .map(|line| format!("    {line}"))
                .collect::<Vec<_>>()
                .join("\n")
        }
    };
    format!(
        "from line {} ({} lines golden, {} now)\n  golden:\n{}\n  now:\n{}",
        at + 1,
        golden.len(),
        now.len(),
        excerpt(&golden),
        excerpt(&now)
    )
}

#[test]
fn real_command_lines_tree_sitter_bash_cannot_read_are_reported_as_problems() {
    let entries = read_corpus("known_unparsable.txt");
    let parsed: Vec<String> = entries
        .iter()
        .filter(|entry| CommandLine::analyze(&entry.command).problems().is_empty())
        .map(|entry| format!("line {}: {}", entry.line, one_line(&entry.command)))
        .collect();
    assert!(
        parsed.is_empty(),
        "these now parse: move them to commands.txt and review their analysis:\n{}",
        parsed.join("\n")
    );
}

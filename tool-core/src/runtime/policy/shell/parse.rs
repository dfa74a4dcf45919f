//! The walk over tree-sitter-bash's syntax tree that finds every simple command a command line
//! would run, its words after quote removal, and where its output goes.

use std::borrow::Cow;
use std::cell::RefCell;

use tree_sitter::{Node, Parser};

use super::words::{
    Word, decode_ansi_c, has_unquoted_pattern, unescape_double_quoted, unescape_unquoted,
};
use super::wrappers::{Wrapped, changes_directory, output_file, unwrap};
use super::writers::{Beneath, written_files};
use super::{CommandLine, Run, Write};

/// Scripts inside scripts (`bash -c "eval 'sh -c ..'"`) are followed this deep; deeper is a
/// problem, not a guess.
const MAX_SCRIPT_DEPTH: usize = 8;
/// Syntax nested deeper than this (a thousand subshells) is a problem too: it bounds the walk's
/// recursion on input that comes from a model.
const MAX_NODE_DEPTH: usize = 256;
/// Longer command lines are not parsed.
pub(super) const MAX_LEN: usize = 64 * 1024;

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses a command line and adds what it runs to `out`.
pub(super) fn analyze_into(text: &str, out: &mut CommandLine) {
    analyze_script(text, out, 0, None, Cwd::Start);
    super::runtime::mark(out, text);
    if let Cow::Owned(joined) = super::runtime::join_continuations(text) {
        super::runtime::mark(out, &joined);
    }
}

/// Whether the tree holds a `;;`, `;&` or `;;&` outside a `case` item: tree-sitter reads
/// `ls ;; pwd` as two commands, bash refuses the line, so it must not be read as harmless.
fn has_stray_case_terminator(root: tree_sitter::Node<'_>) -> bool {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if matches!(node.kind(), ";;" | ";&" | ";;&") {
            let mut ancestor = node.parent();
            let mut in_case = false;
            while let Some(parent) = ancestor {
                if matches!(parent.kind(), "case_item" | "case_statement") {
                    in_case = true;
                    break;
                }
                ancestor = parent.parent();
            }
            if !in_case {
                return true;
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    false
}

/// Parses `text` and adds what it runs to `out`; `via` names the wrapper that runs it, `cwd`
/// is where it starts. Returns where it ends (what `eval 'cd x'` leaves behind).
fn analyze_script(
    text: &str,
    out: &mut CommandLine,
    depth: usize,
    via: Option<&str>,
    cwd: Cwd,
) -> Cwd {
    if depth > MAX_SCRIPT_DEPTH {
        out.problems.push(format!(
            "scripts are nested more than {MAX_SCRIPT_DEPTH} deep (`sh -c`, `eval`, ...)"
        ));
        return Cwd::Unknown;
    }
    if text.len() > MAX_LEN {
        out.problems.push(format!(
            "the command is {} bytes long, more than the {MAX_LEN} analysed",
            text.len()
        ));
        return Cwd::Unknown;
    }
    // Bash removes a backslash-newline before it splits words, but not in a comment or a
    // quoted here-document, which the join cannot tell apart: a line holding one is read both
    // ways, joined and as written, and what either reading runs counts (a script of `sh -c` or
    // `eval` too).
    let end = read_tree(text, out, depth, via, cwd.clone());
    if let Cow::Owned(joined) = super::runtime::join_continuations(text) {
        let mut second = CommandLine::default();
        read_tree(&joined, &mut second, depth, via, cwd);
        out.absorb(second);
    }
    end
}

/// Parses `text` and adds what it runs to `out`, as [`analyze_script`] says.
fn read_tree(text: &str, out: &mut CommandLine, depth: usize, via: Option<&str>, cwd: Cwd) -> Cwd {
    let Some(tree) = parse(text) else {
        out.problems
            .push("the command could not be parsed".to_owned());
        return Cwd::Unknown;
    };
    let root = tree.root_node();
    if root.has_error() || has_stray_case_terminator(root) {
        out.problems.push(format!(
            "`{}` does not parse as a shell command",
            super::shorten(text)
        ));
    }
    let mut walker = Walker {
        src: text.as_bytes(),
        out,
        depth,
        via: via.map(str::to_owned),
        stdin: None,
        trailing_args: Vec::new(),
        cwd,
        in_test: false,
    };
    walker.statement(root, 0);
    walker.cwd
}

/// The syntax tree of `text`, from this thread's parser. The parser is free again before the
/// tree is walked, so a script found in the walk is parsed the same way.
fn parse(text: &str) -> Option<tree_sitter::Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(text, None)
    })
}

struct Walker<'s, 'o> {
    src: &'s [u8],
    out: &'o mut CommandLine,
    /// How deep in scripts inside scripts this text is.
    depth: usize,
    via: Option<String>,
    /// A here-document or here-string given to the command being walked: the script a shell
    /// reading its standard input runs.
    stdin: Option<Word>,
    /// Words the grammar put inside a redirection of the command being walked: its arguments.
    trailing_args: Vec<Word>,
    /// Where relative writes go, as far as `cd` has moved it.
    cwd: Cwd,
    /// Inside `[[ .. ]]`, where `=` compares (arithmetic inside it assigns again).
    in_test: bool,
}

/// The directory a command line has moved to with `cd` (or `pushd`).
#[derive(Debug, Clone)]
enum Cwd {
    /// Where the command line started: the workspace root, for the coordinator.
    Start,
    /// A literal directory, relative to the start or absolute.
    Dir(String),
    /// Somewhere known only at run time.
    Unknown,
}

impl Walker<'_, '_> {
    fn text(&self, node: Node<'_>) -> &str {
        node.utf8_text(self.src).unwrap_or("")
    }

    fn too_deep(&mut self, level: usize) -> bool {
        if level > MAX_NODE_DEPTH {
            self.out.problems.push(format!(
                "the command nests more than {MAX_NODE_DEPTH} levels deep"
            ));
            return true;
        }
        false
    }

    /// Any node that may hold statements.
    fn statement(&mut self, node: Node<'_>, level: usize) {
        if self.too_deep(level) {
            return;
        }
        match node.kind() {
            "command" => self.command(node, level),
            "redirected_statement" => self.redirected(node, level),
            "declaration_command" | "unset_command" => self.declaration(node, level),
            "test_command" => {
                // `[[ $x -eq 'a[$(cmd)]' ]]`: bash evaluates an arithmetic operand's array
                // subscript, running a substitution even inside single quotes.
                if quoted_substitution(node, self.src) || tests_a_subscript(node, self.src) {
                    let text = self.text(node).to_owned();
                    self.unknown_script("[[", &text);
                }
                let outer = std::mem::replace(&mut self.in_test, true);
                self.children(node, level);
                self.in_test = outer;
            }
            "comment" | "heredoc_start" | "heredoc_end" => {}
            "arithmetic_expansion" => {
                let outer = std::mem::replace(&mut self.in_test, false);
                self.children(node, level);
                self.in_test = outer;
            }
            // `X=1` alone: the variable is set in this shell, for every command after it.
            "variable_assignment" => {
                if let Some(name) = node.child_by_field_name("name") {
                    let name = self.text(name).to_owned();
                    self.out.assigned.push(name);
                }
                self.assignment_value(node, level);
            }
            "for_statement" => {
                if let Some(name) = node.child_by_field_name("variable") {
                    let name = self.text(name).to_owned();
                    self.out.assigned.push(name);
                }
                self.children(node, level);
            }
            // `$((X=1))`, `((X++))`: arithmetic that assigns. (In `[[ a = b ]]` the `=` compares.)
            "binary_expression" | "postfix_expression" | "unary_expression"
                if !self.in_test && self.assigns(node) =>
            {
                let target = node
                    .child_by_field_name("left")
                    .or_else(|| node.named_child(0))
                    .map_or_else(|| self.text(node).to_owned(), |n| self.text(n).to_owned());
                self.out.assigned.push(target);
                self.children(node, level);
            }
            _ => self.children(node, level),
        }
    }

    /// An arithmetic node whose operator assigns (`=`, `+=`, ..., `++`, `--`).
    fn assigns(&self, node: Node<'_>) -> bool {
        (0..node.child_count())
            .filter_map(|i| node.child(i))
            .filter(|child| !child.is_named())
            .any(|child| {
                matches!(
                    self.text(child),
                    "=" | "+="
                        | "-="
                        | "*="
                        | "/="
                        | "%="
                        | "**="
                        | "<<="
                        | ">>="
                        | "&="
                        | "^="
                        | "|="
                        | "++"
                        | "--"
                )
            })
    }

    fn children(&mut self, node: Node<'_>, level: usize) {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            self.statement(child, level + 1);
        }
    }

    /// `body > file`, `body <<EOF ..`: the redirections apply to every command of the body.
    fn redirected(&mut self, node: Node<'_>, level: usize) {
        let first_run = self.out.runs.len();
        let mut stdin = None;
        let mut cursor = node.walk();
        let redirects: Vec<Node<'_>> = node
            .named_children(&mut cursor)
            .filter(|child| child.kind().ends_with("redirect"))
            .collect();
        // Before the body: what it reads, and the words the grammar hid in a redirection.
        for redirect in &redirects {
            if redirect.kind() == "file_redirect" {
                self.file_redirect_args(*redirect, level);
            } else if let Redirect::Stdin(word) = self.redirect(*redirect, level) {
                stdin = Some(word);
            }
        }
        let outer_stdin = std::mem::replace(&mut self.stdin, stdin);
        let trailing = std::mem::take(&mut self.trailing_args);
        if let Some(body) = node.child_by_field_name("body") {
            if body.kind() == "command" {
                self.trailing_args = trailing;
            } else if !trailing.is_empty() {
                self.out.problems.push(format!(
                    "words follow a redirection of a compound command: `{}`",
                    super::shorten(self.text(node))
                ));
            }
            self.statement(body, level + 1);
        }
        self.stdin = outer_stdin;
        // After the body: the grammar gives `cd / && echo x > f` the redirection of the whole
        // list, where bash gives it to `echo`; reading the file where `cd` went is the safer
        // of the two.
        let mut written = Vec::new();
        for redirect in &redirects {
            if redirect.kind() == "file_redirect"
                && let Redirect::File = self.file_redirect_target(*redirect, level)
            {
                written.push(self.text(*redirect).to_owned());
            }
        }
        self.mark_written(first_run, &written);
    }

    /// The runs from `first_run` on write their output to these files.
    fn mark_written(&mut self, first_run: usize, written: &[String]) {
        if written.is_empty() {
            return;
        }
        for run in &mut self.out.runs[first_run..] {
            run.writes_output = true;
            run.redirects.extend(written.iter().cloned());
        }
    }

    /// One redirection: a write to a file is recorded; a here-document or here-string is what
    /// the command reads.
    fn redirect(&mut self, node: Node<'_>, level: usize) -> Redirect {
        match node.kind() {
            "file_redirect" => {
                self.file_redirect_args(node, level);
                self.file_redirect_target(node, level)
            }
            "heredoc_redirect" => {
                let mut dynamic = false;
                let mut body_text = String::new();
                let mut writes_file = false;
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    match child.kind() {
                        "heredoc_body" => {
                            body_text = self.text(child).to_owned();
                            let mut inner = child.walk();
                            for part in child.named_children(&mut inner) {
                                if part.kind() != "heredoc_content" {
                                    dynamic = true;
                                    self.statement(part, level + 1);
                                }
                            }
                        }
                        // `cmd <<EOF > out`
                        "file_redirect" => {
                            writes_file |= matches!(self.redirect(child, level), Redirect::File);
                        }
                        "heredoc_start" | "heredoc_end" | "file_descriptor" => {}
                        // The rest of the line after `<<EOF`, which the grammar keeps inside the
                        // redirection: `| cmd`, `&& cmd`, `|| cmd` run too.
                        _ => self.statement(child, level + 1),
                    }
                }
                if writes_file {
                    return Redirect::File;
                }
                Redirect::Stdin(Word {
                    text: body_text,
                    dynamic,
                    pattern: false,
                })
            }
            "herestring_redirect" => {
                let mut cursor = node.walk();
                let word = node
                    .named_children(&mut cursor)
                    .last()
                    .map(|child| self.word(child, level));
                word.map_or(Redirect::Other, Redirect::Stdin)
            }
            _ => Redirect::Other,
        }
    }

    /// The grammar keeps the words after a redirection (`echo >&2 "msg"`,
    /// `sudo >/dev/null rm x`) inside it: they are the command's arguments.
    fn file_redirect_args(&mut self, node: Node<'_>, level: usize) {
        let mut cursor = node.walk();
        let destinations: Vec<Node<'_>> = node
            .children_by_field_name("destination", &mut cursor)
            .collect();
        for word in destinations.iter().skip(1) {
            let word = self.word(*word, level);
            self.trailing_args.push(word);
        }
    }

    /// Where a file redirection writes, recorded when it is a file.
    fn file_redirect_target(&mut self, node: Node<'_>, level: usize) -> Redirect {
        let operator = (0..node.child_count())
            .filter_map(|i| node.child(i))
            .find(|child| !child.is_named())
            .map(|child| self.text(child).to_owned())
            .unwrap_or_default();
        let Some(destination) = node.child_by_field_name("destination") else {
            return Redirect::Other;
        };
        let target = self.word(destination, level);
        let output = matches!(
            operator.as_str(),
            ">" | ">>" | "&>" | "&>>" | ">|" | ">&" | "<>"
        );
        if !output {
            // `< file`, `<&file` (not `<&0`, `<&-`): what it reads, which may be a network
            // connection (`/dev/tcp/host/port`).
            let duplicate = operator == "<&"
                && !target.dynamic
                && (target.text == "-" || target.text.bytes().all(|b| b.is_ascii_digit()));
            if matches!(operator.as_str(), "<" | "<&") && !duplicate {
                self.out.reads.push(target);
            }
            return Redirect::Other;
        }
        let duplicate = operator == ">&"
            && !target.dynamic
            && (target.text == "-" || target.text.bytes().all(|b| b.is_ascii_digit()));
        if duplicate || (target.is_exact() && target.text == "/dev/null") {
            return Redirect::Other;
        }
        let target = self.in_cwd(target);
        self.out.writes.push(Write {
            target,
            append: operator.contains(">>"),
            beneath: Beneath::Nothing,
            follows_link: true,
        });
        Redirect::File
    }

    /// `export A=1`, `local x`, `unset y`: a builtin run with its words.
    fn declaration(&mut self, node: Node<'_>, level: usize) {
        let mut words = Vec::new();
        if let Some(keyword) = node.child(0) {
            words.push(Word::literal(self.text(keyword)));
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.kind() == "variable_assignment" {
                self.assignment_value(child, level);
                words.push(Word::literal(self.text(child)));
            } else {
                let word = self.word(child, level);
                words.push(word);
            }
        }
        self.push_run(words, Vec::new(), false);
    }

    fn assignment_value(&mut self, node: Node<'_>, level: usize) -> String {
        if let Some(value) = node.child_by_field_name("value") {
            // Walked for the substitutions it runs; its value does not matter here.
            let _ = self.word(value, level);
        }
        self.text(node).to_owned()
    }

    fn command(&mut self, node: Node<'_>, level: usize) {
        // Arguments found in the redirection of a `redirected_statement` around this command.
        let outer_trailing = std::mem::take(&mut self.trailing_args);
        let mut assignments = Vec::new();
        let mut words = Vec::new();
        let mut written = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => assignments.push(self.assignment_value(child, level)),
                "command_name" => {
                    let mut inner = child.walk();
                    let name = child.named_children(&mut inner).next().unwrap_or(child);
                    words.push(self.word(name, level));
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    match self.redirect(child, level) {
                        Redirect::File => written.push(self.text(child).to_owned()),
                        Redirect::Stdin(word) => self.stdin = Some(word),
                        Redirect::Other => {}
                    }
                }
                "subshell" => self.statement(child, level + 1),
                _ => {
                    let word = self.word(child, level);
                    words.push(word);
                }
            }
        }
        words.append(&mut self.trailing_args);
        words.extend(outer_trailing);
        let first_run = self.out.runs.len();
        self.run_words(words, assignments, level);
        self.mark_written(first_run, &written);
    }

    /// A simple command's words: a run of its own, and, for a wrapper, what it runs.
    fn run_words(&mut self, words: Vec<Word>, assignments: Vec<String>, level: usize) {
        if self.too_deep(level) {
            return;
        }
        let Some(program) = words.first() else {
            // `FOO=1` alone sets a variable; its substitutions were walked.
            return;
        };
        let wrapped = if program.is_exact() {
            unwrap(&program.text, &words[1..])
        } else {
            None
        };
        let program_name = program.text.clone();
        let files = output_file(&program_name, &words[1..])
            .into_iter()
            .map(|(file, append)| (file, append, Beneath::Nothing, true))
            .chain(
                written_files(&program_name, &words[1..])
                    .into_iter()
                    .map(|written| {
                        (
                            written.file,
                            written.append,
                            written.beneath,
                            written.follows_link,
                        )
                    }),
            );
        for (file, append, beneath, follows_link) in files {
            let target = self.in_cwd(file);
            self.out.writes.push(Write {
                target,
                append,
                beneath,
                follows_link,
            });
        }
        // What a wrapper runs in another directory writes where this walk cannot follow.
        let outer_cwd = self.cwd.clone();
        let elsewhere = wrapped.is_some() && changes_directory(&program_name, &words[1..]);
        if elsewhere {
            self.cwd = Cwd::Unknown;
        }
        self.wrapped(words, assignments, wrapped, program_name, level);
        if elsewhere {
            self.cwd = outer_cwd;
        }
    }

    fn wrapped(
        &mut self,
        words: Vec<Word>,
        assignments: Vec<String>,
        wrapped: Option<Wrapped>,
        program_name: String,
        level: usize,
    ) {
        match wrapped {
            None => self.push_run(words, assignments, false),
            Some(Wrapped::Command {
                words: inner,
                assignments: more,
                transparent,
            }) => {
                // `./nice ls` runs `./nice`, whatever it is: only a wrapper found by its name
                // on the PATH is known to be one, so an allow rule must cover one named by a
                // path itself.
                let transparent = transparent && !program_name.contains('/');
                self.push_run(words, assignments.clone(), transparent);
                if !inner.is_empty() {
                    let mut all = assignments;
                    all.extend(more);
                    let outer_via = self.via.replace(program_name);
                    self.run_words(inner, all, level + 1);
                    self.via = outer_via;
                }
            }
            Some(Wrapped::Commands(commands)) => {
                self.push_run(words, assignments, false);
                let outer_via = self.via.replace(program_name);
                for command in commands {
                    self.run_words(command, Vec::new(), level + 1);
                }
                self.via = outer_via;
            }
            Some(Wrapped::Script(script)) => {
                self.push_run(words, assignments, false);
                self.script(&script, &program_name);
            }
            Some(Wrapped::ScriptFile(file)) => {
                self.push_run(words, assignments, false);
                self.unknown_script(&program_name, &format!("the script {}", file.text));
            }
            Some(Wrapped::Stdin) => {
                self.push_run(words, assignments, false);
                match self.stdin.take() {
                    Some(script) => self.script(&script, &program_name),
                    None => {
                        self.unknown_script(&program_name, "the commands it reads from its input")
                    }
                }
            }
        }
    }

    /// A script a wrapper runs: analysed like the command line itself when it is known.
    fn script(&mut self, script: &Word, runner: &str) {
        if script.dynamic {
            self.unknown_script(runner, &script.text);
            return;
        }
        let via = format!("{runner} script");
        let end = analyze_script(
            &script.text,
            self.out,
            self.depth + 1,
            Some(&via),
            self.cwd.clone(),
        );
        // `eval` and `source` run in this shell: a `cd` in their script moves it too. Other
        // runners (`sh -c`, `trap`, `find -exec`) start a shell of their own or run later.
        if matches!(runner.rsplit('/').next(), Some("eval" | "source" | ".")) {
            self.cwd = end;
        }
    }

    /// A run whose commands are only known at run time.
    fn unknown_script(&mut self, runner: &str, what: &str) {
        let outer_via = self.via.replace(runner.to_owned());
        self.push_run(
            vec![Word {
                text: what.to_owned(),
                dynamic: true,
                pattern: false,
            }],
            Vec::new(),
            false,
        );
        self.via = outer_via;
    }

    fn push_run(&mut self, words: Vec<Word>, assignments: Vec<String>, transparent: bool) {
        self.follow_cd(&words);
        self.out.runs.push(Run {
            words,
            assignments,
            transparent,
            writes_output: false,
            redirects: Vec::new(),
            via: self.via.clone(),
        });
    }

    /// `cd DIR` and `pushd DIR` move where relative writes go; `cd` alone, `cd -`, `popd` or a
    /// directory known only at run time make it unknown. (Subshells are not told apart: a
    /// `cd` inside one counts for what follows, which only ever makes a write less known.)
    fn follow_cd(&mut self, words: &[Word]) {
        let Some(program) = words.first().filter(|word| word.is_exact()) else {
            return;
        };
        match program.text.as_str() {
            "cd" | "pushd" => {
                let target = words[1..]
                    .iter()
                    .find(|word| !word.text.starts_with('-') || word.text == "-");
                self.cwd = match (target, &self.cwd) {
                    (Some(dir), _)
                        if !dir.is_exact() || dir.text == "-" || dir.text.starts_with('~') =>
                    {
                        Cwd::Unknown
                    }
                    (None, _) | (_, Cwd::Unknown) => Cwd::Unknown,
                    (Some(dir), _) if dir.text.starts_with('/') => Cwd::Dir(dir.text.clone()),
                    (Some(dir), Cwd::Start) => Cwd::Dir(dir.text.clone()),
                    (Some(dir), Cwd::Dir(base)) => {
                        Cwd::Dir(format!("{}/{}", base.trim_end_matches('/'), dir.text))
                    }
                };
            }
            "popd" => self.cwd = Cwd::Unknown,
            _ => {}
        }
    }

    /// A write's target where it lands: relative to where `cd` moved, when it did.
    fn in_cwd(&self, target: Word) -> Word {
        if target.dynamic || target.text.starts_with('/') || target.text.starts_with('~') {
            return target;
        }
        match &self.cwd {
            Cwd::Start => target,
            Cwd::Dir(dir) => Word {
                text: format!("{}/{}", dir.trim_end_matches('/'), target.text),
                ..target
            },
            Cwd::Unknown => Word {
                dynamic: true,
                ..target
            },
        }
    }

    /// A word after quote removal; substitutions inside it are walked for the commands they run.
    fn word(&mut self, node: Node<'_>, level: usize) -> Word {
        if self.too_deep(level) {
            return Word {
                text: self.text(node).to_owned(),
                dynamic: true,
                pattern: false,
            };
        }
        match node.kind() {
            "word" | "number" => {
                let source = self.text(node);
                Word {
                    text: unescape_unquoted(source),
                    // `~user`, `~+`, `~-`: directories the shell knows, not this analysis.
                    dynamic: source.starts_with('~')
                        && !(source == "~" || source.starts_with("~/")),
                    pattern: has_unquoted_pattern(source),
                }
            }
            "raw_string" => {
                let source = self.text(node);
                let inner = source
                    .strip_prefix('\'')
                    .and_then(|s| s.strip_suffix('\''))
                    .unwrap_or(source);
                Word::literal(inner)
            }
            "ansi_c_string" => {
                let source = self.text(node);
                let body = source
                    .strip_prefix("$'")
                    .and_then(|s| s.strip_suffix('\''))
                    .unwrap_or(source);
                match decode_ansi_c(body) {
                    Some(text) => Word::literal(text),
                    None => Word {
                        text: source.to_owned(),
                        dynamic: true,
                        pattern: false,
                    },
                }
            }
            "string" | "translated_string" => self.double_quoted(node, level),
            "concatenation" => {
                let mut text = String::new();
                let mut unquoted = String::new();
                let mut dynamic = false;
                let mut pattern = false;
                let mut cursor = node.walk();
                let parts: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for part in parts {
                    if !part.is_named() || part.kind() == "word" {
                        unquoted.push_str(self.text(part));
                    }
                    let piece = if part.is_named() {
                        self.word(part, level + 1)
                    } else {
                        // Punctuation the grammar keeps unnamed inside a word (`=`, `:`).
                        let source = self.text(part);
                        Word {
                            text: unescape_unquoted(source),
                            dynamic: false,
                            pattern: has_unquoted_pattern(source),
                        }
                    };
                    text.push_str(&piece.text);
                    dynamic |= piece.dynamic;
                    pattern |= piece.pattern;
                }
                if dynamic {
                    text = self.text(node).to_owned();
                }
                // A brace expansion spans several parts (`{a,b}.txt`).
                pattern |= has_unquoted_pattern(&unquoted);
                Word {
                    text,
                    dynamic,
                    pattern,
                }
            }
            "command_substitution" | "process_substitution" => {
                self.children(node, level);
                self.dynamic_word(node)
            }
            _ => {
                // Expansions (`$X`, `${X}`, `$((..))`), and anything else: its value is only
                // known at run time. Substitutions inside it still run.
                if node.kind() == "expansion" {
                    self.default_assignment(node);
                }
                let outer = std::mem::replace(&mut self.in_test, false);
                self.children(node, level);
                self.in_test = outer;
                self.dynamic_word(node)
            }
        }
    }

    /// `${X:=v}`, `${X=v}`: the default is assigned to the variable in this shell.
    fn default_assignment(&mut self, node: Node<'_>) {
        let assigns = (0..node.child_count())
            .filter_map(|i| node.child(i))
            .any(|child| !child.is_named() && matches!(self.text(child), ":=" | "="));
        if assigns {
            let name = node
                .named_child(0)
                .map_or_else(|| self.text(node).to_owned(), |n| self.text(n).to_owned());
            self.out.assigned.push(name);
        }
    }

    fn dynamic_word(&self, node: Node<'_>) -> Word {
        Word {
            text: self.text(node).to_owned(),
            dynamic: true,
            pattern: false,
        }
    }

    /// `"..."`: literal parts unescaped, expansions make the word dynamic.
    fn double_quoted(&mut self, node: Node<'_>, level: usize) -> Word {
        let source = self.text(node).to_owned();
        let mut dynamic = false;
        let mut cursor = node.walk();
        let parts: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for part in &parts {
            if part.kind() != "string_content" {
                dynamic = true;
                let _ = self.word(*part, level + 1);
            }
        }
        if dynamic {
            return Word {
                text: source,
                dynamic: true,
                pattern: false,
            };
        }
        let inner = source
            .strip_prefix('$')
            .unwrap_or(&source)
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .unwrap_or(&source);
        Word::literal(unescape_double_quoted(inner))
    }
}

/// `true` when a single-quoted string under `node` holds `$(` or a backtick.
fn quoted_substitution(node: Node<'_>, src: &[u8]) -> bool {
    // A stack, not recursion: the tree comes from a model's text and may be deep.
    let mut pending = vec![node];
    while let Some(node) = pending.pop() {
        if node.kind() == "raw_string" {
            let text = node.utf8_text(src).unwrap_or("");
            if text.contains("$(") || text.contains('`') {
                return true;
            }
            continue;
        }
        let mut cursor = node.walk();
        pending.extend(node.named_children(&mut cursor));
    }
    false
}

/// `true` when `node` (a `[ .. ]` or `[[ .. ]]`) asks `-v` or `-R` of a name that may hold a
/// subscript: bash evaluates it (`[ -v "a[$(cat f)]" ]` runs what the file says).
fn tests_a_subscript(node: Node<'_>, src: &[u8]) -> bool {
    let text = node.utf8_text(src).unwrap_or("");
    let inner = text.trim_start_matches('[').trim_end_matches(']').trim();
    if !(inner.contains('[') || inner.contains('$') || inner.contains('`')) {
        return false;
    }
    let mut pending = vec![node];
    while let Some(node) = pending.pop() {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if matches!(child.utf8_text(src), Ok("-v" | "-R")) {
                return true;
            }
            pending.push(child);
        }
    }
    false
}

enum Redirect {
    /// Output goes to a file.
    File,
    /// The command reads this here-document or here-string.
    Stdin(Word),
    /// Input from a file, or a duplicated descriptor, or `/dev/null`.
    Other,
}

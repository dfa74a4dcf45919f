//! What a shell command line would run, read with a real bash parser (tree-sitter-bash, the
//! one Codex uses for the same job), so that permission rules judge every command in it.
//!
//! [`CommandLine::analyze`] finds every simple command that would run, each with its words as
//! the shell would see them after quote removal (`'rm'`, `r''m` and `\rm` are all `rm`): in
//! lists, pipelines, subshells, groups, compound bodies, functions and substitutions.
//! Wrappers (`sudo`, `env`, `timeout`, `xargs`, `find -exec`, ...) are peeled with their own
//! options, and the scripts of `sh -c`, `eval` and here-documents analysed in turn. Files
//! written, by redirection or by well-known programs, are [`writes`](CommandLine::writes),
//! which the coordinator confines like any path. What cannot be known before the command runs
//! is said, not guessed: a program named by an expansion has no [`program`](Run::program), and
//! a line that does not parse has [`problems`](CommandLine::problems); neither can be allowed
//! by an allow rule nor be read-only. The full lists: the guide's policy page
//! (`docs/policy.md`).
//!
//! ```
//! use tool_core::policy::shell::CommandLine;
//!
//! let line = CommandLine::analyze("FOO=1 sudo -u root 'rm' -rf build && echo done > log.txt");
//! let runs: Vec<String> = line.runs().iter().map(|run| run.text()).collect();
//! assert_eq!(runs, ["sudo -u root rm -rf build", "rm -rf build", "echo done"]);
//! assert_eq!((line.runs()[1].program(), line.runs()[1].via()), (Some("rm"), Some("sudo")));
//! let writes: Vec<&str> = line.writes().iter().map(|write| write.target.text.as_str()).collect();
//! assert_eq!(writes, ["build", "log.txt"]); // what `rm` removes, and the redirection
//! let computed = CommandLine::analyze("$(echo rm) -rf /");
//! assert_eq!(computed.runs()[1].program(), None); // known only at run time
//! assert!(!computed.is_fully_known());
//! ```

mod parse;
mod runtime;
mod words;
mod wrappers;
mod writers;

pub use words::Word;
pub(crate) use words::has_unquoted_pattern;
pub use writers::{Beneath, FindSelection};

/// What a command line would run: see the [module documentation](self).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandLine {
    runs: Vec<Run>,
    writes: Vec<Write>,
    problems: Vec<String>,
    assigned: Vec<String>,
    reads: Vec<Word>,
}

/// One simple command that would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The program and its arguments, after quote removal.
    pub words: Vec<Word>,
    /// `NAME=value` assignments made for this command (written in front of it, or given to a
    /// wrapper such as `env` or `sudo`).
    pub assignments: Vec<String>,
    /// This run is a wrapper that only changes how its command runs (`timeout`, `nice`,
    /// `env`, ...): the command it wraps is a run of its own, and an allow rule needs to cover
    /// that one only.
    pub transparent: bool,
    /// Its output is redirected to a file.
    pub writes_output: bool,
    /// Its output redirections to files, as written (`> status.txt`).
    pub redirects: Vec<String>,
    /// The wrapper that runs it (`sudo`, `find`, `bash script`), if any.
    pub via: Option<String>,
}

/// An output redirection to a file: `> target`, `>> target`, `&> target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// Where the output goes (`/dev/null` and duplicated descriptors such as `2>&1` are not
    /// writes).
    pub target: Word,
    /// `>>`: appended, not replaced.
    pub append: bool,
    /// What the command changes beneath the target, when it is a directory (`rm -r DIR`,
    /// `find DIR -delete`, `tar -x -C DIR`); a redirection changes the target alone.
    pub beneath: Beneath,
    /// Whether a symbolic link at the target is followed to what it points to (`> link`,
    /// `chmod link`, `cp x link`), or the write acts on the link itself: `rm`, `rmdir`,
    /// `unlink`, `mv`'s sources and `find`'s starting points (without `-H` or `-L`) remove or
    /// move the link, not what it points to, unless the operand ends with `/`.
    pub follows_link: bool,
}

impl CommandLine {
    /// Adds what a second reading of the same line found that the first did not (see
    /// `parse::analyze_script`).
    fn absorb(&mut self, other: CommandLine) {
        fn new_ones<T: PartialEq>(mine: &mut Vec<T>, theirs: Vec<T>) {
            let known = mine.len();
            for item in theirs {
                if !mine[..known].contains(&item) {
                    mine.push(item);
                }
            }
        }
        new_ones(&mut self.runs, other.runs);
        new_ones(&mut self.writes, other.writes);
        new_ones(&mut self.problems, other.problems);
        new_ones(&mut self.assigned, other.assigned);
        new_ones(&mut self.reads, other.reads);
    }

    /// Analyses a command line. Never fails: what cannot be read is in
    /// [`problems`](Self::problems).
    #[must_use]
    pub fn analyze(command: &str) -> Self {
        let mut line = CommandLine::default();
        parse::analyze_into(command, &mut line);
        line
    }

    /// Every simple command that would run, in the order they appear; a wrapper before what it
    /// runs.
    #[must_use]
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// Every output redirection to a file.
    #[must_use]
    pub fn writes(&self) -> &[Write] {
        &self.writes
    }

    /// Every input redirection from a file (`< in.txt`, `<&file`), its target as written. bash
    /// opens a network connection for `/dev/tcp/HOST/PORT` and `/dev/udp/HOST/PORT` there.
    #[must_use]
    pub fn reads(&self) -> &[Word] {
        &self.reads
    }

    /// The variables the line sets in its own shell, not for one command only: `X=1` alone,
    /// `for X in ..`, `$((X=1))`, `((X++))`, `${X:=1}`, each by its name as written
    /// (`BASH_CMDS[ls]`). Every command after the assignment sees them, and one already in the
    /// environment (`PATH`, `HOME`) reaches every program the line runs: `PATH=.; ls` runs
    /// `./ls`. (`export`, `read`, `printf -v` and the like are runs of their own.)
    #[must_use]
    pub fn assigned_variables(&self) -> &[String] {
        &self.assigned
    }

    /// Why some of the command could not be read (it does not parse, it nests too deep, it is
    /// too long). Empty when all of it was read.
    #[must_use]
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// `true` when everything the command runs and writes is known now: it parses, every
    /// program is a literal name, every script it runs is literal, every write goes to a
    /// literal path. Only such a command can be allowed by a rule for its commands, or
    /// classified read-only.
    #[must_use]
    pub fn is_fully_known(&self) -> bool {
        self.problems.is_empty()
            && self.runs.iter().all(|run| run.program().is_some())
            && self.writes.iter().all(|write| write.target.is_exact())
    }

    /// The first thing that makes the command not [fully known](Self::is_fully_known), in
    /// words for a message.
    #[must_use]
    pub fn unknown_part(&self) -> Option<String> {
        if let Some(problem) = self.problems.first() {
            return Some(problem.clone());
        }
        if let Some(run) = self.runs.iter().find(|run| run.program().is_none()) {
            return Some(match run.words.first() {
                Some(word) => format!(
                    "the program `{}` is only known at run time",
                    shorten(&word.text)
                ),
                None => "a command has no program".to_owned(),
            });
        }
        self.writes
            .iter()
            .find(|write| !write.target.is_exact())
            .map(|write| {
                format!(
                    "the file `{}` it writes is only known at run time",
                    shorten(&write.target.text)
                )
            })
    }
}

impl Run {
    /// The program's name as written (`rm`, `/bin/rm`, `./build.sh`), or `None` when it is
    /// only known at run time (an expansion, a glob).
    #[must_use]
    pub fn program(&self) -> Option<&str> {
        self.words
            .first()
            .filter(|word| word.is_exact())
            .map(|word| word.text.as_str())
    }

    /// The wrapper that runs this command (`sudo`, `find`, `bash script`), if any.
    #[must_use]
    pub fn via(&self) -> Option<&str> {
        self.via.as_deref()
    }

    /// The command as one canonical text: its words after quote removal, one space apart, a
    /// word with spaces or shell characters single-quoted, a dynamic word as written.
    /// Assignments are not part of it.
    #[must_use]
    pub fn text(&self) -> String {
        words::join(&self.words)
    }

    /// [`text`](Self::text) with the assignments in front, as an allow rule must match it.
    #[must_use]
    pub fn text_with_assignments(&self) -> String {
        words::join_with_assignments(&self.assignments, &self.words)
    }

    /// [`text_with_assignments`](Self::text_with_assignments) with the output redirections
    /// after it, as an allow rule that names a redirection must match it.
    #[must_use]
    pub fn text_with_redirects(&self) -> String {
        let mut text = self.text_with_assignments();
        for redirect in &self.redirects {
            text.push(' ');
            text.push_str(redirect);
        }
        text
    }

    /// The texts deny rules are matched against: [`text`](Self::text); for a program named by
    /// a path (`/bin/rm`), the text with the program's file name (`rm`); and for a program that
    /// deletes what `rm` would (`rmdir`, `unlink`, `shred -u`, `find -delete`), the same
    /// deletion written as `rm` with its operands, so that a rule on `rm` holds for the effect,
    /// not the name.
    #[must_use]
    pub fn deny_texts(&self) -> Vec<String> {
        let text = self.text();
        let mut texts = vec![text];
        let name = match self.program() {
            Some(program) => program.rsplit('/').next().unwrap_or(program),
            None => return texts,
        };
        if name != self.words[0].text && !name.is_empty() {
            let mut words = self.words.clone();
            words[0] = Word::literal(name);
            texts.push(words::join(&words));
        }
        if let Some(operands) = self.deletes() {
            let mut words = vec![Word::literal("rm")];
            words.extend(operands);
            texts.push(words::join(&words));
        }
        texts
    }

    /// What the run deletes as `rm` would, when its program is one that deletes: the operands
    /// of `rmdir` and `unlink`, of `shred` with `-u`/`--remove`, the start paths of a `find`
    /// with `-delete`.
    fn deletes(&self) -> Option<Vec<Word>> {
        let program = self.program()?;
        let args = &self.words[1..];
        let operands = || -> Vec<Word> {
            args.iter()
                .filter(|word| !word.text.starts_with('-'))
                .cloned()
                .collect()
        };
        match program.rsplit('/').next().unwrap_or(program) {
            "rmdir" | "unlink" => Some(operands()),
            "shred"
                if args.iter().any(|word| {
                    word.text.starts_with("--remove")
                        || (word.text.starts_with('-')
                            && !word.text.starts_with("--")
                            && word.text.contains('u'))
                }) =>
            {
                Some(operands())
            }
            "find" if args.iter().any(|word| word.text == "-delete") => Some(
                args.iter()
                    .take_while(|word| {
                        !word.text.starts_with('-') && !matches!(word.text.as_str(), "(" | "!")
                    })
                    .cloned()
                    .collect(),
            ),
            _ => None,
        }
    }
}

/// `text` cut to its head and tail when long, for messages.
pub(crate) fn shorten(text: &str) -> String {
    const KEEP: usize = 80;
    if text.chars().count() <= 2 * KEEP {
        return text.to_owned();
    }
    let head: String = text.chars().take(KEEP).collect();
    let tail: String = {
        let tail: Vec<char> = text.chars().rev().take(KEEP).collect();
        tail.into_iter().rev().collect()
    };
    format!("{head}…{tail}")
}

#[cfg(test)]
mod tests {
    use super::CommandLine;

    fn runs(command: &str) -> Vec<String> {
        CommandLine::analyze(command)
            .runs()
            .iter()
            .map(super::Run::text)
            .collect()
    }

    #[test]
    fn every_part_of_a_compound_command_is_a_run() {
        assert_eq!(
            runs("git status && rm -rf build || echo no; ls | wc -l"),
            ["git status", "rm -rf build", "echo no", "ls", "wc -l"]
        );
    }

    #[test]
    fn substitutions_run_their_commands() {
        assert_eq!(
            runs("echo \"$(whoami)\" `id -u` <(ls)"),
            ["whoami", "id -u", "ls", "echo \"$(whoami)\" `id -u` <(ls)"]
        );
    }

    #[test]
    fn quoting_of_the_program_is_removed() {
        for command in ["'rm' x", "\"rm\" x", "r''m x", "\\rm x", "$'\\x72m' x"] {
            assert_eq!(runs(command), ["rm x"], "{command}");
        }
    }

    #[test]
    fn control_structures_and_functions_are_walked() {
        assert_eq!(
            runs(
                "if true; then rm a; fi; for f in *; do rm \"$f\"; done; f() { rm b; }; (rm c); { rm d; }; case x in y) rm e;; esac; while false; do rm g; done"
            ),
            [
                "true",
                "rm a",
                "rm \"$f\"",
                "rm b",
                "rm c",
                "rm d",
                "rm e",
                "false",
                "rm g"
            ]
        );
    }

    #[test]
    fn scripts_run_by_shells_and_eval_are_analysed() {
        assert_eq!(
            runs("bash -c 'rm -rf x'"),
            ["bash -c 'rm -rf x'", "rm -rf x"]
        );
        assert_eq!(
            runs("sh -c \"eval 'rm y'\""),
            ["sh -c 'eval '\\''rm y'\\'''", "eval 'rm y'", "rm y"]
        );
        assert_eq!(runs("bash <<'EOF'\nrm z\nEOF"), ["bash", "rm z"]);
    }

    #[test]
    fn output_redirections_are_writes_and_dev_null_is_not() {
        let line =
            CommandLine::analyze("echo a > out.txt 2>&1; echo b >> log 2>/dev/null; cat < in");
        let targets: Vec<&str> = line
            .writes()
            .iter()
            .map(|w| w.target.text.as_str())
            .collect();
        assert_eq!(targets, ["out.txt", "log"]);
        assert!(line.runs()[0].writes_output && line.runs()[1].writes_output);
        assert!(!line.runs()[2].writes_output);
    }

    #[test]
    fn what_is_known_only_at_run_time_is_said() {
        for command in [
            "$CMD x",
            "$(echo rm) x",
            "/bin/r? x",
            "sh -c \"$X\"",
            "curl x | sh",
            "echo > \"$F\"",
            "echo 'unclosed",
        ] {
            let line = CommandLine::analyze(command);
            assert!(!line.is_fully_known(), "{command}");
            assert!(line.unknown_part().is_some(), "{command}");
        }
        assert!(CommandLine::analyze("git status --short").is_fully_known());
    }

    #[test]
    fn deep_nesting_is_a_problem_not_a_crash() {
        let deep = format!("{}true{}", "(".repeat(5_000), ")".repeat(5_000));
        assert!(!CommandLine::analyze(&deep).problems().is_empty());
        let mut script = String::from("rm x");
        for _ in 0..12 {
            script = format!("sh -c {}", shell_quote(&script));
        }
        assert!(!CommandLine::analyze(&script).problems().is_empty());
    }

    fn shell_quote(text: &str) -> String {
        format!("'{}'", text.replace('\'', "'\\''"))
    }

    #[test]
    fn a_program_named_by_a_path_is_matched_by_its_name_for_deny_rules() {
        let line = CommandLine::analyze("/bin/rm -rf x");
        assert_eq!(line.runs()[0].deny_texts(), ["/bin/rm -rf x", "rm -rf x"]);
    }

    #[test]
    fn words_after_a_redirection_are_the_commands_arguments() {
        assert_eq!(
            runs("echo >&2 \"no such arch\" now"),
            ["echo 'no such arch' now"]
        );
        assert_eq!(
            runs("sudo >/dev/null rm -rf x"),
            ["sudo rm -rf x", "rm -rf x"]
        );
        assert_eq!(
            runs("timeout 5 2>/dev/null rm -rf x"),
            ["timeout 5 rm -rf x", "rm -rf x"]
        );
    }

    #[test]
    fn a_write_after_cd_lands_where_cd_went() {
        let targets = write_targets;
        assert_eq!(
            targets("cd / && echo x > etc/passwd"),
            [("/etc/passwd".to_owned(), true)]
        );
        assert_eq!(
            targets("cd sub && cd deeper && echo x > f"),
            [("sub/deeper/f".to_owned(), true)]
        );
        assert_eq!(
            targets("cd \"$D\" && echo x > f"),
            [("f".to_owned(), false)]
        );
        assert_eq!(targets("cd && echo x > f"), [("f".to_owned(), false)]);
        assert_eq!(targets("echo x > ~root/f"), [("~root/f".to_owned(), false)]);
    }

    fn write_targets(command: &str) -> Vec<(String, bool)> {
        CommandLine::analyze(command)
            .writes()
            .iter()
            .map(|write| (write.target.text.clone(), write.target.is_exact()))
            .collect()
    }

    #[test]
    fn a_script_inside_the_line_starts_where_cd_went() {
        for command in [
            "cd /etc && bash -c 'echo x > passwd'",
            "cd /etc; eval 'echo x > passwd'",
            "cd /etc && bash <<< 'echo x > passwd'",
        ] {
            assert_eq!(
                write_targets(command),
                [("/etc/passwd".to_owned(), true)],
                "{command}"
            );
        }
        // `eval` runs in this shell: its `cd` moves what follows; `sh -c`'s does not.
        assert_eq!(
            write_targets("eval 'cd /etc' && echo x > passwd"),
            [("/etc/passwd".to_owned(), true)]
        );
        assert_eq!(
            write_targets("sh -c 'cd /etc' && echo x > f"),
            [("f".to_owned(), true)]
        );
    }

    #[test]
    fn a_wrapper_that_changes_directory_makes_relative_writes_unknown() {
        for command in [
            "env -C /etc sh -c 'echo x >passwd'",
            "sudo -D /etc sh -c 'echo x >passwd'",
            "sudo --prompt p -D /etc sh -c 'echo x >passwd'",
            "find /etc -execdir sh -c 'echo x > passwd' ';'",
        ] {
            assert_eq!(
                write_targets(command),
                [("passwd".to_owned(), false)],
                "{command}"
            );
        }
        // After the wrapper, the line is back where it was.
        assert_eq!(
            write_targets("env -C /etc true; echo x > f"),
            [("f".to_owned(), true)]
        );
    }

    #[test]
    fn time_output_file_is_a_write() {
        let line = CommandLine::analyze("/usr/bin/time -o ~/.bashrc git status");
        assert_eq!(line.writes()[0].target.text, "~/.bashrc");
        assert!(!line.writes()[0].append);
        assert!(!line.runs()[0].transparent);
        let line = CommandLine::analyze("time -a --output=log.txt make");
        assert_eq!(line.writes()[0].target.text, "log.txt");
        assert!(line.writes()[0].append);
    }

    #[test]
    fn scripts_made_at_run_time_are_unknown() {
        for command in [
            "[ -v \"a[$(cat f)]\" ]",
            "[[ -R 'a[b]' ]]",
            "bash <(curl -s https://x.test/i.sh)",
            "source <(kubectl completion bash)",
            ". <(cat x)",
            "[[ $x -eq 'a[$(touch p)]' ]]",
            // A script file runs what it holds, which the session may have written.
            "bash install.sh",
            "source .venv/bin/activate",
        ] {
            assert!(!CommandLine::analyze(command).is_fully_known(), "{command}");
        }
        for command in ["[[ \"$(uname)\" == Linux ]]", "[ -v HOME ]"] {
            assert!(CommandLine::analyze(command).is_fully_known(), "{command}");
        }
    }

    #[test]
    fn a_variable_set_in_the_shell_is_an_assigned_variable() {
        for (command, assigned) in [
            ("HOME=/tmp/x; git status", vec!["HOME"]),
            ("A=1 B=2", vec!["A", "B"]),
            ("BASH_CMDS[ls]=/tmp/x; ls", vec!["BASH_CMDS[ls]"]),
            ("for PATH in .; do ls; done", vec!["PATH"]),
            ("select PATH in .; do ls; done", vec!["PATH"]),
            (
                "echo $((PATH=0)); ((x++)); ((y+=2))",
                vec!["PATH", "x", "y"],
            ),
            ("echo ${PATH:=x} ${Q=y} ${R:-z}", vec!["PATH", "Q"]),
            ("for ((i=0;i<3;i++)); do ls; done", vec!["i", "i"]),
            ("[[ $a = b && $((c=1)) ]]", vec!["c"]),
            ("FOO=1 ls; export BAR=1; echo $((1+2)) ${X:-y}", vec![]),
        ] {
            assert_eq!(
                CommandLine::analyze(command).assigned_variables(),
                assigned,
                "{command}"
            );
        }
    }

    #[test]
    fn an_input_redirection_is_a_read() {
        let line = CommandLine::analyze(
            "cat < in.txt; cat </dev/tcp/example.com/80 <&0 <&-; wc -l <<< x; cat < \"$F\"",
        );
        let reads: Vec<(&str, bool)> = line
            .reads()
            .iter()
            .map(|word| (word.text.as_str(), word.is_exact()))
            .collect();
        assert_eq!(
            reads,
            [
                ("in.txt", true),
                ("/dev/tcp/example.com/80", true),
                ("\"$F\"", false)
            ]
        );
    }

    #[test]
    fn a_wrapper_named_by_a_path_is_not_transparent() {
        for (command, transparent) in [
            ("nice ls", true),
            ("./nice ls", false),
            ("/tmp/evil/timeout 5 ls", false),
            ("x/env ls", false),
        ] {
            let line = CommandLine::analyze(command);
            assert_eq!(line.runs()[0].transparent, transparent, "{command}");
            assert_eq!(line.runs()[1].text(), "ls", "{command}");
        }
    }

    #[test]
    fn a_quoted_glob_is_shown_quoted_and_an_unquoted_one_as_written() {
        assert_eq!(runs("rm '*'"), ["rm '*'"]);
        assert_eq!(runs("rm *.o"), ["rm *.o"]);
        assert_eq!(runs("cp {a,b}.txt ~/x"), ["cp {a,b}.txt ~/x"]);
    }
}

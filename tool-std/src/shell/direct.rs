//! Running a command line without a shell where the shell would add nothing.
//!
//! Most command lines a model writes are one program and its arguments: `cargo test -p core`,
//! `git status`, `ls -la src`. For such a line `bash -c` parses the words, finds the program
//! on the `PATH` and replaces itself with it (bash executes the last simple command of `-c`
//! without forking), so the program runs with the same arguments, environment, directory,
//! process group and exit status as if started directly, and starting bash first only costs
//! its start-up, about half a millisecond here. Ruby's `Kernel#system` skips the shell by the
//! same rule.
//!
//! A line is run directly only when nothing in it means anything to a shell beyond splitting
//! words and removing quotes, so the result cannot differ:
//!
//! - words of letters, digits and `_ - . / , : @ % + =`, and quoted parts: `'...'` (anything but
//!   `'`) and `"..."` (anything but `" $ \` and backquote), separated by spaces or tabs. Any other
//!   character (`$ ~ * ? [ { } ( ) < > | & ; # ! \` and backquote, a newline) leaves it to the shell;
//! - the program's name is a plain word without `/` or `=` (not a path, not an assignment), not a
//!   reserved word and not a builtin of bash (whose builtins differ from the programs of the
//!   same name in corner cases: `echo`, `printf`, `pwd`, `kill`, `test`). `true` and `false`
//!   without arguments are the exception: they ignore everything and exit 0 and 1 whichever
//!   runs them;
//! - the program is found as an executable file in a `PATH` of absolute directories (the shell
//!   resolves an empty or relative entry against the working directory, left to it);
//! - the environment gives bash nothing to read first: no `BASH_ENV` or `ENV` file and no
//!   exported function (`BASH_FUNC_*`), either of which could redefine the name.
//!
//! What bash sets for the program is set too: `PWD` (the directory it runs in) and `_` (the
//! program's path). Anything else (a program not found, not executable, or one the kernel
//! cannot execute) goes to the shell, which reports it as users know it.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A command line that runs directly: the program found on the `PATH` and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Direct {
    /// The executable found, an absolute path.
    pub(crate) program: PathBuf,
    /// The words as the program receives them, its name first (`argv[0]` as typed, as a shell
    /// passes it).
    pub(crate) words: Vec<String>,
}

impl Direct {
    /// `command` as a [`Direct`], if nothing in it needs the shell.
    pub(crate) fn plan(command: &str) -> Option<Direct> {
        Direct::plan_in(command, std::env::vars_os())
    }

    /// [`plan`](Self::plan) in the environment `env` (the variables the shell would inherit).
    fn plan_in(
        command: &str,
        env: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Option<Direct> {
        let words = literal_words(command)?;
        let (name, arguments) = words.split_first()?;
        if !runs_the_same_without_bash(name, arguments) {
            return None;
        }
        let mut path = None;
        for (key, value) in env {
            let read_first = (key == "BASH_ENV" || key == "ENV") && !value.is_empty();
            if read_first || key.as_encoded_bytes().starts_with(b"BASH_FUNC_") {
                return None;
            }
            if key == "PATH" {
                path = Some(value);
            }
        }
        let program = find_on_path(name, &path?)?;
        Some(Direct { program, words })
    }

    /// The command to start: the program with its words, in `workdir`, with the variables bash
    /// would have set for it.
    pub(crate) fn command(&self, workdir: &Path) -> Command {
        let mut command = Command::new(&self.program);
        std::os::unix::process::CommandExt::arg0(&mut command, &self.words[0]);
        command
            .args(&self.words[1..])
            .env("PWD", workdir)
            .env("_", &self.program);
        command
    }
}

/// The words of `command` with their quotes removed, if it holds nothing but literal words.
fn literal_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut chars = command.chars().peekable();
    loop {
        while chars.next_if(|c| matches!(c, ' ' | '\t')).is_some() {}
        if chars.peek().is_none() {
            return Some(words);
        }
        let mut word = String::new();
        while let Some(&c) = chars.peek() {
            match c {
                ' ' | '\t' => break,
                '\'' => {
                    chars.next();
                    loop {
                        match chars.next()? {
                            '\'' => break,
                            inner => word.push(inner),
                        }
                    }
                }
                '"' => {
                    chars.next();
                    loop {
                        match chars.next()? {
                            '"' => break,
                            '$' | '\\' | '`' => return None,
                            inner => word.push(inner),
                        }
                    }
                }
                c if c.is_ascii_alphanumeric() || "_-./,:@%+=".contains(c) => {
                    chars.next();
                    word.push(c);
                }
                _ => return None,
            }
        }
        words.push(word);
    }
}

/// Whether `name` with `arguments` is a program whose run bash would not change: not a path
/// or an assignment, not a word bash gives a meaning of its own.
fn runs_the_same_without_bash(name: &str, arguments: &[String]) -> bool {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.,:@%+".contains(c));
    if !plain {
        return false;
    }
    if matches!(name, "true" | "false") {
        return arguments.is_empty();
    }
    BASH_RESERVED.binary_search(&name).is_err() && BASH_BUILTINS.binary_search(&name).is_err()
}

/// Where the shell would find `name`: the first executable regular file of that name in the
/// directories of `path`, if every directory before it is absolute.
fn find_on_path(name: &str, path: &OsStr) -> Option<PathBuf> {
    for dir in std::env::split_paths(path) {
        if !dir.is_absolute() {
            return None;
        }
        let candidate = dir.join(name);
        let is_file = std::fs::metadata(&candidate).is_ok_and(|metadata| metadata.is_file());
        if is_file && rustix::fs::access(&candidate, rustix::fs::Access::EXEC_OK).is_ok() {
            return Some(candidate);
        }
    }
    None
}

/// bash's reserved words (`compgen -k`), sorted.
const BASH_RESERVED: &[&str] = &[
    "!", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for",
    "function", "if", "in", "select", "then", "time", "until", "while", "{", "}",
];

/// bash 5's builtins (`compgen -b`), sorted.
const BASH_BUILTINS: &[&str] = &[
    ".",
    ":",
    "[",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "getopts",
    "hash",
    "help",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan for `command` in an environment of `PATH` and `more`.
    fn plan_with(command: &str, path: &str, more: &[(&str, &str)]) -> Option<Direct> {
        let env = std::iter::once(("PATH", path))
            .chain(more.iter().copied())
            .map(|(key, value)| (OsString::from(key), OsString::from(value)));
        Direct::plan_in(command, env)
    }

    /// The plan for `command` with the test process's `PATH` and nothing read first.
    fn plan(command: &str) -> Option<Direct> {
        plan_with(command, &std::env::var("PATH").unwrap(), &[])
    }

    #[test]
    fn the_word_lists_are_sorted_for_binary_search() {
        assert!(BASH_RESERVED.is_sorted());
        assert!(BASH_BUILTINS.is_sorted());
    }

    #[test]
    fn a_program_with_plain_and_quoted_arguments_runs_directly() {
        let direct = plan(r#"ls -la 'a b' "c d" e'f'"g" --x=1,2:3@4%5+6"#).unwrap();
        assert!(direct.program.is_absolute() && direct.program.ends_with("ls"));
        assert_eq!(
            direct.words,
            ["ls", "-la", "a b", "c d", "efg", "--x=1,2:3@4%5+6"]
        );
        assert_eq!(plan("  ls\t''  ").unwrap().words, ["ls", ""]);
    }

    #[test]
    fn anything_the_shell_would_expand_or_interpret_is_left_to_it() {
        for command in [
            "ls *.rs",
            "ls src/?.rs",
            "ls [ab]",
            "echo {a,b}",
            "ls ~",
            "ls $HOME",
            r#"ls "$HOME""#,
            "ls `pwd`",
            r#"ls "`pwd`""#,
            r"ls a\ b",
            r#"ls "a\"b""#,
            "ls > out",
            "ls < in",
            "ls | wc",
            "ls && ls",
            "ls; ls",
            "ls &",
            "ls # comment",
            "ls\nls",
            "(ls)",
            "ls 'unterminated",
            r#"ls "unterminated"#,
            "FOO=1 ls",
            "",
            "   ",
        ] {
            assert_eq!(plan(command), None, "{command:?}");
        }
    }

    #[test]
    fn builtins_reserved_words_and_paths_are_left_to_the_shell() {
        for command in [
            "cd src",
            "echo hi",
            "printf %s x",
            "pwd",
            "kill 1",
            "test -f x",
            "exit 3",
            "time ls",
            "if",
            "./script.sh",
            "/bin/ls",
            "'cd' src",
            "'if'",
            "true --help",
            "false x",
            "no-such-program-anywhere",
        ] {
            assert_eq!(plan(command), None, "{command:?}");
        }
        // Quotes keep a reserved word from being one, and nothing else: `'ls'` is `ls`.
        assert_eq!(plan("'ls'").unwrap().words, ["ls"]);
        assert!(plan("true").is_some());
        assert!(plan("false").is_some());
    }

    #[test]
    fn a_file_bash_reads_first_or_an_exported_function_keeps_the_shell() {
        let path = std::env::var("PATH").unwrap();
        for variable in [
            ("BASH_ENV", "/etc/profile"),
            ("ENV", "/etc/profile"),
            ("BASH_FUNC_ls%%", "() { echo shadowed; }"),
        ] {
            assert_eq!(plan_with("ls", &path, &[variable]), None, "{variable:?}");
        }
        assert!(plan_with("ls", &path, &[("BASH_ENV", "")]).is_some());
    }

    #[test]
    fn a_relative_or_empty_path_entry_before_the_program_keeps_the_shell() {
        assert!(plan_with("ls", "/usr/bin:/bin", &[]).is_some());
        assert_eq!(plan_with("ls", "bin:/usr/bin:/bin", &[]), None);
        assert_eq!(plan_with("ls", ":/usr/bin:/bin", &[]), None);
        assert_eq!(plan_with("ls", "/nonexistent", &[]), None);
    }

    #[test]
    fn a_file_without_the_execute_permission_is_skipped_as_the_shell_skips_it() {
        use std::os::unix::fs::PermissionsExt as _;
        let first = tempfile::tempdir().unwrap();
        let second = tempfile::tempdir().unwrap();
        for (dir, mode) in [(&first, 0o644), (&second, 0o755)] {
            let tool = dir.path().join("tool");
            std::fs::write(&tool, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        let path = std::env::join_paths([first.path(), second.path()]).unwrap();
        let planned = plan_with("tool", path.to_str().unwrap(), &[]).unwrap();
        assert_eq!(planned.program, second.path().join("tool"));
    }
}

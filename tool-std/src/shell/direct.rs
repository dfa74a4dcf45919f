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
//! When a line may run directly, and what bash would change for the program that is changed
//! here too, is [`Direct::plan`]'s to say: a line with anything in it that means more to a
//! shell than splitting words and removing quotes is left to the shell.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// A command line that runs directly: the program found on the `PATH` and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Direct {
    /// The executable found, an absolute path.
    pub(crate) program: PathBuf,
    /// The words as the program receives them, its name first (`argv[0]` as typed, as a shell
    /// passes it).
    pub(crate) words: Vec<String>,
    /// The `PWD` inherited, which bash keeps when it names the directory the program runs in.
    inherited_pwd: Option<OsString>,
    /// The `SHLVL` bash leaves for the program it execs.
    shell_level: String,
    /// The `OLDPWD` inherited (absolute), which bash keeps only when it names a directory.
    inherited_oldpwd: Option<OsString>,
}

impl Direct {
    /// `command` as a [`Direct`], if nothing in it needs the shell and the shell is bash 5 or
    /// later.
    ///
    /// A line is run directly only when nothing in it means anything to a shell beyond splitting
    /// words and removing quotes, so the result cannot differ:
    ///
    /// - words of letters, digits and `_ - . / , : @ % + =`, and quoted parts: `'...'` (anything but
    ///   `'`) and `"..."` (anything but `" $ \` and backquote), separated by spaces or tabs. Any other
    ///   character (`$ ~ * ? [ { } ( ) < > | & ; # ! \` and backquote, a newline) leaves it to the shell;
    /// - the program's name is a plain word without `/` or `=` (not a path, not an assignment), not
    ///   starting with `%` (a job to bash: `%1` is `fg %1`), not a reserved word and not a builtin
    ///   of bash (whose builtins differ from the programs of the same name in corner cases:
    ///   `echo`, `printf`, `pwd`, `kill`, `test`). `true` and `false`
    ///   without arguments are the exception: they ignore everything and exit 0 and 1 whichever
    ///   runs them;
    /// - the program is found as an executable file in a `PATH` of absolute directories (the shell
    ///   resolves an empty or relative entry against the working directory, left to it);
    /// - the shell is bash (where there is none, `/bin/sh` runs every line: its rules differ);
    /// - the environment gives bash nothing to read first or to change: no `BASH_ENV` or `ENV`
    ///   file, no exported function (`BASH_FUNC_*`), no option it takes from the environment
    ///   (`SHELLOPTS`, `BASHOPTS`, `POSIXLY_CORRECT`, `EXECIGNORE`, which could trace the line or
    ///   hide the program), none of the variables bash replaces or drops when it starts (`IFS`,
    ///   `PPID`, `RANDOM`, `PS1`, ... and every `BASH*`), and a `SHLVL` bash would take without a
    ///   warning.
    ///
    /// What bash changes for the program is changed too: `PWD` (the inherited one when it names
    /// the directory the program runs in, else that directory's physical path, as bash takes it
    /// from `getcwd`), `SHLVL` (bash raises it and lowers it again before its exec: the same
    /// number, `0` when unset), `OLDPWD` (which bash drops unless it names a directory) and `_`
    /// (the program's path); as bash 5.2 does, against which the tests compare. Anything else (a
    /// program not found, not executable, or one the kernel cannot execute) goes to the shell,
    /// which reports it as users know it.
    pub(crate) fn plan(command: &str) -> Option<Direct> {
        let shell = super::spawn::shell();
        if !is_bash(shell) {
            return None;
        }
        let direct = Direct::plan_in(command, std::env::vars_os())?;
        static BASH_5: OnceLock<bool> = OnceLock::new();
        BASH_5
            .get_or_init(|| bash_major(shell).is_some_and(|major| major >= 5))
            .then_some(direct)
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
        let mut inherited_pwd = None;
        let mut shell_level = String::from("0");
        let mut inherited_oldpwd = None;
        for (key, value) in env {
            let read_first = (key == "BASH_ENV" || key == "ENV") && !value.is_empty();
            let bash_changes = key.as_encoded_bytes().starts_with(b"BASH") && key != "BASH_ENV"
                || BASH_TAKES_OR_REPLACES
                    .binary_search(&key.to_str().unwrap_or(""))
                    .is_ok();
            if read_first || bash_changes {
                return None;
            }
            if key == "PATH" {
                path = Some(value);
            } else if key == "PWD" {
                inherited_pwd = Some(value);
            } else if key == "SHLVL" {
                shell_level = level_bash_leaves(&value)?;
            } else if key == "OLDPWD" {
                // A relative one bash looks for from the directory it starts in; left to it.
                if !Path::new(&value).is_absolute() {
                    return None;
                }
                inherited_oldpwd = Some(value);
            }
        }
        let program = find_on_path(name, &path?)?;
        Some(Direct {
            program,
            words,
            inherited_pwd,
            shell_level,
            inherited_oldpwd,
        })
    }

    /// The command to start: the program with its words, in `workdir`, with the variables bash
    /// would have set for it.
    pub(crate) fn command(&self, workdir: &Path) -> Command {
        let mut command = Command::new(&self.program);
        std::os::unix::process::CommandExt::arg0(&mut command, &self.words[0]);
        command.args(&self.words[1..]);
        self.set_environment(&mut command, workdir);
        command
    }

    /// Sets on `command` the variables bash changes before it execs the program in `workdir`.
    fn set_environment(&self, command: &mut Command, workdir: &Path) {
        command
            .env("PWD", self.pwd(workdir))
            .env("SHLVL", &self.shell_level)
            .env("_", &self.program);
        let keeps_oldpwd = self
            .inherited_oldpwd
            .as_ref()
            .is_some_and(|oldpwd| Path::new(oldpwd).is_dir());
        if !keeps_oldpwd {
            command.env_remove("OLDPWD");
        }
    }

    /// The `PWD` bash gives a program it runs in `workdir`: the inherited one if it is
    /// absolute and names that directory, else the directory's physical path (bash's
    /// `getcwd`).
    fn pwd(&self, workdir: &Path) -> OsString {
        use std::os::unix::fs::MetadataExt as _;
        let same_directory = |inherited: &Path| {
            let (Ok(a), Ok(b)) = (std::fs::metadata(inherited), std::fs::metadata(workdir)) else {
                return false;
            };
            a.dev() == b.dev() && a.ino() == b.ino()
        };
        match &self.inherited_pwd {
            Some(inherited)
                if Path::new(inherited).is_absolute() && same_directory(Path::new(inherited)) =>
            {
                inherited.clone()
            }
            _ => std::fs::canonicalize(workdir)
                .unwrap_or_else(|_| workdir.to_owned())
                .into_os_string(),
        }
    }
}

/// The `SHLVL` bash leaves for the program it execs when it inherited `value`: bash adds one
/// at start-up and takes it off again before the exec, so a plain number stays (written
/// plainly) and anything else becomes `0`. `None` for a level bash would warn about (999 and
/// up: it resets it with a message) or a number in a form bash reads its own way.
fn level_bash_leaves(value: &OsStr) -> Option<String> {
    let value = value.to_str()?;
    if value.is_empty() {
        return Some(String::from("0"));
    }
    if !value.bytes().all(|b| b.is_ascii_digit()) {
        // `+3`, ` 3`, `-2` and `x` are each read by bash's own rules; leave them to it.
        return None;
    }
    let level: u64 = value.parse().ok()?;
    (level < 999).then(|| level.to_string())
}

/// Whether `shell` is bash, whose behaviour [`Direct`] reproduces. Another `sh` has rules of
/// its own (dash leaves `SHLVL` and `OLDPWD` alone; busybox's runs its applets before the
/// `PATH`'s programs), so without bash every line is the shell's.
fn is_bash(shell: &Path) -> bool {
    shell.file_name() == Some(OsStr::new("bash"))
}

/// The major version of the bash at `shell` (asked once per process, in an empty
/// environment, so that no `BASH_ENV` runs). What [`Direct`] reproduces is bash 5's, which the
/// tests compare against; another major version (macOS ships 3.2) may set `SHLVL` or `OLDPWD`
/// otherwise, so it runs every line itself.
fn bash_major(shell: &Path) -> Option<u32> {
    let output = Command::new(shell)
        .args(["-c", "echo ${BASH_VERSINFO[0]}"])
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    String::from_utf8(output.stdout).ok()?.trim().parse().ok()
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
    // A first word starting with `%` is a job to bash (`%1` is `fg %1`), never a program.
    if !plain || name.starts_with('%') {
        return false;
    }
    if matches!(name, "true" | "false") {
        return arguments.is_empty();
    }
    BASH_RESERVED.binary_search(&name).is_err() && BASH_BUILTINS.binary_search(&name).is_err()
}

/// Where the shell would find `name`: the first executable regular file of that name in the
/// directories of `path`, if every directory before it is absolute.
pub(crate) fn find_on_path(name: &str, path: &OsStr) -> Option<PathBuf> {
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

/// Variables bash takes options from, or replaces or drops when it starts, so that a program
/// it runs sees something else than was inherited (besides `PWD`, `SHLVL`, `OLDPWD` and `_`,
/// which [`Direct::command`] sets as bash does, and the `BASH*` names, all left to bash),
/// sorted.
const BASH_TAKES_OR_REPLACES: &[&str] = &[
    "COMP_WORDBREAKS",
    "EPOCHREALTIME",
    "EPOCHSECONDS",
    "EXECIGNORE",
    "HISTCMD",
    "IFS",
    "LINENO",
    "OPTERR",
    "OPTIND",
    "POSIXLY_CORRECT",
    "PPID",
    "PS1",
    "PS2",
    "PS4",
    "RANDOM",
    "SHELLOPTS",
    "SRANDOM",
];

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
        assert!(BASH_TAKES_OR_REPLACES.is_sorted());
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
    fn the_major_version_of_bash_is_read_from_the_shell_itself() {
        assert!(
            bash_major(crate::shell::spawn::shell()).is_some_and(|major| major >= 3),
            "the bash found answers"
        );
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("bash");
        // Written by a child `sh`: a descriptor open for writing in this process, inherited
        // by another test's fork, would make running it fail with "Text file busy".
        let written = std::process::Command::new("/bin/sh")
            .args([
                "-c",
                r#"printf '#!/bin/sh\necho 3\n' > "$1" && chmod 755 "$1""#,
                "sh",
            ])
            .arg(&old)
            .status()
            .unwrap();
        assert!(written.success());
        assert_eq!(bash_major(&old), Some(3));
        assert_eq!(bash_major(&dir.path().join("missing")), None);
    }

    #[test]
    fn a_shell_other_than_bash_is_not_stood_in_for() {
        assert!(is_bash(Path::new("/usr/bin/bash")));
        for shell in [
            "/bin/sh",
            "/bin/dash",
            "/bin/busybox",
            "/usr/bin/bash-static",
        ] {
            assert!(!is_bash(Path::new(shell)), "{shell}");
        }
    }

    #[test]
    fn a_program_named_like_a_job_is_left_to_the_shell() {
        let dir = tempfile::tempdir().unwrap();
        let job = dir.path().join("%1");
        std::fs::write(&job, "#!/bin/sh\necho ran\n").unwrap();
        std::fs::set_permissions(&job, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        assert_eq!(plan_with("%1", dir.path().to_str().unwrap(), &[]), None);
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

    /// What a command printed on stdout and its exit status.
    type Outcome = (Vec<u8>, Option<i32>);

    /// Output and exit status of `command` in `workdir` with exactly the variables `env`, run
    /// by bash and run directly.
    fn both_ways(command: &str, workdir: &Path, env: &[(&str, &str)]) -> (Outcome, Outcome) {
        let env: Vec<(OsString, OsString)> = env
            .iter()
            .map(|(key, value)| (OsString::from(key), OsString::from(value)))
            .collect();
        let outcome = |mut command: Command| {
            let output = command
                .env_clear()
                .envs(env.iter().cloned())
                .current_dir(workdir)
                .output()
                .unwrap();
            (output.stdout, output.status.code())
        };
        let mut bash = Command::new("bash");
        bash.arg("-c").arg(command);
        let direct = Direct::plan_in(command, env.iter().cloned())
            .unwrap_or_else(|| panic!("{command:?} in {env:?} is not run directly"));
        let mut program = Command::new(&direct.program);
        std::os::unix::process::CommandExt::arg0(&mut program, &direct.words[0]);
        program.args(&direct.words[1..]);
        let program_outcome = {
            let env = env.clone();
            move |mut program: Command| {
                program.env_clear().envs(env).current_dir(workdir);
                direct.set_environment(&mut program, workdir);
                let output = program.output().unwrap();
                (output.stdout, output.status.code())
            }
        };
        (outcome(bash), program_outcome(program))
    }

    #[test]
    fn a_program_run_directly_is_given_pwd_shlvl_and_oldpwd_as_bash_gives_them() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let path = std::env::var("PATH").unwrap();
        let (link_text, real_text) = (link.to_str().unwrap(), real.to_str().unwrap());
        for workdir in [&link, &real] {
            for more in [
                &[][..],
                &[("SHLVL", "5")],
                &[("SHLVL", "007")],
                &[("SHLVL", "")],
                &[("OLDPWD", "/")],
                &[("OLDPWD", "/nonexistent")],
                &[("PWD", "/")],
                &[("PWD", link_text)],
                &[("PWD", real_text)],
            ] {
                let env: Vec<_> = [("PATH", path.as_str())]
                    .into_iter()
                    .chain(more.iter().copied())
                    .collect();
                let (by_bash, direct) = both_ways("printenv PWD SHLVL OLDPWD", workdir, &env);
                assert_eq!(
                    String::from_utf8_lossy(&direct.0),
                    String::from_utf8_lossy(&by_bash.0),
                    "in {workdir:?} with {more:?}"
                );
                assert_eq!(direct.1, by_bash.1, "in {workdir:?} with {more:?}");
            }
        }
    }

    #[test]
    fn an_environment_bash_would_act_on_keeps_the_shell() {
        let path = std::env::var("PATH").unwrap();
        for variable in [
            ("SHELLOPTS", "xtrace"),
            ("BASHOPTS", "xpg_echo"),
            ("BASH_XTRACEFD", "2"),
            ("EXECIGNORE", "*/ls"),
            ("POSIXLY_CORRECT", "1"),
            ("IFS", ":"),
            ("PPID", "1"),
            ("PS4", "> "),
            ("RANDOM", "4"),
            ("SHLVL", "999"),
            ("SHLVL", "x"),
            ("SHLVL", "-1"),
            ("SHLVL", " 2"),
        ] {
            assert_eq!(plan_with("ls", &path, &[variable]), None, "{variable:?}");
        }
        assert!(plan_with("ls", &path, &[("SHLVL", "998")]).is_some());
    }
}

//! The forms whose program or effect only bash knows when it runs them, marked so: a run with
//! no [`program`](super::Run::program) is added for each, so that no allow rule covers the line,
//! it is never read-only, and under a deny rule for the tool's commands it is asked about (or
//! denied where nobody can be asked). The analysis names what a line runs as written; these are
//! the ways to run something else:
//!
//! - a script file run or sourced (`bash s.sh`, `./s.sh`, `source s.sh`, `. ./s.sh`), and any
//!   program named by a path outside the system's directories (a file the session could write);
//! - variables that make a shell run code (`BASH_ENV`, `ENV`, `PROMPT_COMMAND`) or that name a
//!   program another one runs (`GIT_SSH_COMMAND`, `PAGER`, `EDITOR`, `LD_PRELOAD`, ...);
//! - aliases (`alias`, `shopt -s expand_aliases`, `BASH_ALIASES`) and the hash table
//!   (`hash -p`, `BASH_CMDS`), which map a name to another program;
//! - strings evaluated as arithmetic or as an array subscript (`$((x))`, `${a[x]}`, `let`,
//!   `(( ))`, `declare -i`, `[[ x -eq y ]]`), where `x='a[$(rm f)]'` runs `rm`;
//! - interpreters given code or a script (`python -c`, `perl -e`, `node -e`, `ruby`, `php`,
//!   ...), `awk` programs that can run or write (`system`, `|`, `>`, `getline`), `sed` scripts
//!   with the `e` command or flag;
//! - options that run commands: `tar --checkpoint-action`, `--to-command`, `-I`, `-F`;
//!   `git -c` with a key that names a program (`alias.*`, `core.fsmonitor`, `core.pager`,
//!   `core.sshCommand`, `*.command`, ...); `rg -z` / `--search-zip` and `--pre`.
//!
//! And before parsing, a backslash-newline is removed as bash removes it (outside single
//! quotes), so `r\<newline>m` is `rm`.

use std::borrow::Cow;

use super::words::Word;
use super::wrappers::SHELLS;
use super::{CommandLine, Run};

/// `text` with every backslash-newline outside single quotes removed, as bash does before it
/// splits words. (Inside single quotes, and after a `\` that is itself escaped, it stays.)
pub(super) fn join_continuations(text: &str) -> Cow<'_, str> {
    if !text.contains("\\\n") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let (mut single, mut double) = (false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => match chars.peek() {
                Some('\n') => {
                    chars.next();
                    continue;
                }
                Some(&next) => {
                    out.push(c);
                    out.push(next);
                    chars.next();
                    continue;
                }
                None => {}
            },
            _ => {}
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// Adds a run known only at run time for each form of the module documentation found in
/// `line` (analysed from `text`).
pub(super) fn mark(line: &mut CommandLine, text: &str) {
    let mut unknown: Vec<(String, String)> = Vec::new();
    for run in &line.runs {
        if let Some(found) = run_unknown(run) {
            unknown.push(found);
        }
        let exported = run.program().is_some_and(|program| {
            matches!(
                base(program),
                "export" | "declare" | "typeset" | "local" | "readonly"
            )
        });
        let given = run
            .words
            .iter()
            .skip(1)
            .map(|word| &word.text)
            .filter(|_| exported);
        for assignment in run.assignments.iter().chain(given) {
            if let Some(found) = dangerous_assignment(assignment) {
                unknown.push(found);
            }
        }
    }
    for name in &line.assigned {
        if let Some(found) = dangerous_assignment(&format!("{name}=")) {
            unknown.push(found);
        }
    }
    if let Some(found) = evaluated_as_arithmetic(text) {
        unknown.push(found);
    }
    if let Some(found) = hidden_in_an_expansion(text) {
        unknown.push(found);
    }
    if let Some(found) = misread(line, text) {
        unknown.push(found);
    }
    for (what, via) in unknown {
        let said = |run: &Run| {
            run.program().is_none()
                && run.via() == Some(&via)
                && run.words.first().is_some_and(|word| word.text == what)
        };
        if line.runs.iter().any(said) {
            continue;
        }
        line.runs.push(Run {
            words: vec![Word {
                text: what,
                dynamic: true,
                pattern: false,
            }],
            assignments: Vec::new(),
            transparent: false,
            writes_output: false,
            redirects: Vec::new(),
            via: Some(via),
        });
    }
}

/// Programs every system keeps in these directories; a program named by another path is a file
/// the session could have written.
const SYSTEM_DIRS: &[&str] = &[
    "/bin/",
    "/sbin/",
    "/usr/bin/",
    "/usr/sbin/",
    "/usr/local/bin/",
    "/usr/local/sbin/",
];

/// Interpreters that run code given to them (`-c`, `-e`) or a script file.
const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "php",
    "lua",
    "luajit",
    "deno",
    "bun",
    "tclsh",
    "wish",
    "Rscript",
    "R",
    "pwsh",
    "osascript",
    "groovy",
    "irb",
    "jshell",
    "julia",
    "guile",
    "racket",
    "expect",
    "fish",
];

const AWKS: &[&str] = &["awk", "gawk", "mawk", "nawk"];

/// Variables whose value a shell runs, or that name a program another program runs.
const DANGEROUS_VARIABLES: &[&str] = &[
    "PATH",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "PS0",
    "PS4",
    "BASH_ALIASES",
    "BASH_CMDS",
    "BASH_LOADABLES_PATH",
    "SHELLOPTS",
    "BASHOPTS",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EDITOR",
    "GIT_PAGER",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
    "GIT_EXEC_PATH",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "PAGER",
    "MANPAGER",
    "EDITOR",
    "VISUAL",
    "LESSOPEN",
    "LESSCLOSE",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PERL5OPT",
    "PERL5LIB",
    "RUBYOPT",
    "NODE_OPTIONS",
];

/// `NAME=value` (or `NAME[..]=value`) setting one of [`DANGEROUS_VARIABLES`].
fn dangerous_assignment(assignment: &str) -> Option<(String, String)> {
    let name = assignment.split(['=', '[', '+']).next().unwrap_or("");
    let dangerous = DANGEROUS_VARIABLES.contains(&name)
        || name.starts_with("GIT_CONFIG_KEY_")
        || name.starts_with("GIT_CONFIG_VALUE_");
    dangerous.then(|| {
        (
            format!("what ${name} makes run"),
            format!("the variable {name}, which names code to run"),
        )
    })
}

/// The program's name without its directory.
fn base(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// The literal texts of a run's arguments (a dynamic one as written).
fn args(run: &Run) -> Vec<&str> {
    run.words[1..]
        .iter()
        .map(|word| word.text.as_str())
        .collect()
}

/// Why `run` is known only at run time: what stands for the program, and how it is run.
fn run_unknown(run: &Run) -> Option<(String, String)> {
    let program = run.program()?;
    let name = base(program);
    let args = args(run);
    // What stands for the program in a message ("the program `..` is only known at run
    // time"), and how it is run.
    let found = |what: String, via: &str| Some((what, via.to_owned()));
    if program.contains('/') && !SYSTEM_DIRS.iter().any(|dir| program.starts_with(dir)) {
        return found(
            program.to_owned(),
            "a program file the session could have written",
        );
    }
    if args
        .iter()
        .any(|arg| arg.contains("BASH_CMDS") || arg.contains("BASH_ALIASES"))
    {
        return found(
            "what the hash table or an alias maps a name to".to_owned(),
            "the hash table or the aliases of the shell",
        );
    }
    let arithmetic = || {
        found(
            format!("a string {name} evaluates as arithmetic"),
            "a string evaluated as arithmetic",
        )
    };
    match name {
        "alias" if args.iter().any(|arg| arg.contains('=')) => {
            return found("what an alias stands for".to_owned(), "an alias");
        }
        "shopt" if args.contains(&"expand_aliases") => {
            return found("what an alias stands for".to_owned(), "an alias");
        }
        "hash"
            if args
                .iter()
                .any(|arg| arg.starts_with('-') && arg.contains('p')) =>
        {
            return found(
                "what the hash table maps a name to".to_owned(),
                "the hash table",
            );
        }
        "let" => return arithmetic(),
        // A name with a subscript (`read 'a[$(cmd)]'`, `test -v 'a[x]'`): the subscript is
        // evaluated as arithmetic.
        "read" | "unset" | "printf" | "declare" | "typeset" | "local" | "export" | "readonly"
        | "test" | "[" | "mapfile" | "readarray" | "wait"
            if args.iter().any(|arg| evaluated_subscript(arg)) =>
        {
            return arithmetic();
        }
        "mapfile" | "readarray" if args.iter().any(|arg| arg.starts_with("-C")) => {
            return found(
                format!("the callback {name} runs"),
                "a callback run for each line read",
            );
        }
        "eval" if args.first() == Some(&"--") => {
            return found("the text eval runs".to_owned(), "eval");
        }
        "declare" | "typeset" | "local" | "readonly" | "export"
            if args
                .iter()
                .any(|arg| arg.starts_with('-') && arg.contains('i')) =>
        {
            return arithmetic();
        }
        _ => {}
    }
    if SHELLS.contains(&name) {
        // An interactive or login shell runs its startup files first.
        let startup = args.iter().any(|arg| {
            matches!(*arg, "--login" | "--interactive")
                || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains(['i', 'l']))
        });
        if startup {
            return found(
                format!("the startup files {name} reads"),
                "a shell's startup files",
            );
        }
        return None;
    }
    // `python3.12`, `perl5.36`: the version is part of the name.
    let interpreter = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if INTERPRETERS.contains(&name) || INTERPRETERS.contains(&interpreter) {
        let only_asks = !args.is_empty()
            && args
                .iter()
                .all(|arg| matches!(*arg, "--version" | "-V" | "--help" | "-h" | "-v"));
        return (!only_asks).then(|| (format!("the code {name} runs"), format!("{name} code")));
    }
    if AWKS.contains(&name) {
        return awk_runs(&args).then(|| (format!("the code {name} runs"), format!("{name} code")));
    }
    match name {
        "sed" if sed_runs(&args) => {
            found("the command sed's e runs".to_owned(), "sed's `e` command")
        }
        "tar" if tar_runs(&args) => found(
            "the command tar is told to run".to_owned(),
            "tar running a command",
        ),
        "git" if git_runs(run) => found(
            "the program git's configuration names".to_owned(),
            "git configuration that names a program",
        ),
        "rg" if rg_runs(&args) => found(
            "the program rg runs on each file".to_owned(),
            "rg's preprocessors",
        ),
        _ => None,
    }
}

/// Whether an awk command can run or write something: a program from a file, or one that
/// mentions `system`, a pipe, a redirection or `getline` (a comparison `>` counts too: the
/// analysis does not parse awk).
fn awk_runs(args: &[&str]) -> bool {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match *arg {
            "-f" | "--file" | "-E" | "--exec" | "-i" | "--include" | "-l" | "--load" => {
                return true;
            }
            "-F" | "-v" | "--assign" | "--field-separator" => {
                args.next();
            }
            option if option.starts_with("-f") || option.starts_with("--file=") => return true,
            option if option.starts_with('-') && option.len() > 1 => {}
            program => {
                return ["system", "|", ">", "getline", "close", "ENVIRON"]
                    .iter()
                    .any(|needle| program.contains(needle));
            }
        }
    }
    false
}

/// Whether a sed command runs its script's `e` command (or `s///e`), or reads its script from
/// a file.
fn sed_runs(args: &[&str]) -> bool {
    let mut scripts: Vec<&str> = Vec::new();
    let mut explicit = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match *arg {
            "-f" | "--file" => return true,
            "-e" | "--expression" => {
                explicit = true;
                scripts.extend(args.next().copied());
            }
            option if option.starts_with("--file=") || option.starts_with("-f") => return true,
            option if option.starts_with("--expression=") => {
                explicit = true;
                scripts.push(&option["--expression=".len()..]);
            }
            option if option.starts_with('-') && option.len() > 1 => {}
            script if !explicit && scripts.is_empty() => scripts.push(script),
            _ => {}
        }
    }
    scripts.iter().any(|script| sed_script_runs(script))
}

/// A sed script with an `e` command, or an `s` command whose flags include `e`.
fn sed_script_runs(script: &str) -> bool {
    for command in script.split(['\n', ';']) {
        let command = command.trim_start_matches(|c: char| {
            c.is_whitespace() || c.is_ascii_digit() || matches!(c, '$' | ',' | '{' | '}' | '!')
        });
        if command.starts_with('e') {
            return true;
        }
        if let Some(rest) = command.strip_prefix('s') {
            let mut chars = rest.chars();
            let Some(delimiter) = chars.next() else {
                continue;
            };
            // The flags follow the third delimiter.
            let mut seen = 0;
            let mut escaped = false;
            let mut flags = String::new();
            for c in chars {
                if seen == 2 {
                    flags.push(c);
                } else if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == delimiter {
                    seen += 1;
                }
            }
            if seen == 2 && flags.contains('e') {
                return true;
            }
        }
        // An address given by a regular expression, then the command: `/x/e`.
        if let Some(rest) = command.strip_prefix('/')
            && let Some((_, after)) = rest.split_once('/')
            && after.trim_start_matches(['!', ' ']).starts_with('e')
        {
            return true;
        }
    }
    false
}

/// Whether a tar command runs a program of the caller's choosing.
fn tar_runs(args: &[&str]) -> bool {
    args.iter().enumerate().any(|(index, arg)| {
        let long = [
            "--checkpoint-action",
            "--to-command",
            "--use-compress-program",
            "--info-script",
            "--new-volume-script",
            "--rsh-command",
            "--rmt-command",
            "--index-file",
        ];
        if long.iter().any(|option| arg.starts_with(option)) {
            return true;
        }
        // Short options bundled (`-xvI prog`), or the old style without a dash (`xIf`).
        let short = if let Some(bundle) = arg.strip_prefix('-') {
            (!bundle.starts_with('-')).then_some(bundle)
        } else {
            (index == 0).then_some(*arg)
        };
        short.is_some_and(|bundle| bundle.contains(['I', 'F']))
    })
}

/// Whether a git command is given configuration that names a program (`-c alias.x=!cmd`,
/// `-c core.fsmonitor=cmd`, ...), or an exec path of the caller's.
fn git_runs(run: &Run) -> bool {
    let args = args(run);
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let setting = match *arg {
            "-c" => iter.next().copied(),
            "--config-env" => iter.next().copied(),
            option if option.starts_with("--exec-path") => return true,
            // Another repository's configuration names programs too (`core.fsmonitor`).
            option if option.starts_with("--git-dir") || option.starts_with("--work-tree") => {
                return true;
            }
            option if option.starts_with("--config-env=") => Some(&option["--config-env=".len()..]),
            option if option.starts_with("-c") && option.len() > 2 => Some(&option[2..]),
            "-C" | "--namespace" => {
                iter.next();
                continue;
            }
            option if option.starts_with('-') => continue,
            // The subcommand: options after it are its own.
            _ => return false,
        };
        let Some(setting) = setting else {
            return true;
        };
        let key = setting.split('=').next().unwrap_or("").to_ascii_lowercase();
        if names_program(&key) {
            return true;
        }
    }
    false
}

/// Whether a git configuration key may name a program git runs: every key but a short list
/// known to only change how output looks or who commits (git runs programs from dozens of
/// keys, `alias.*`, `core.fsmonitor`, `core.pager`, `core.sshCommand`, `*.command`,
/// `filter.*`, and more with each release: a list of the dangerous ones would fall behind).
fn names_program(key: &str) -> bool {
    const HARMLESS: &[&str] = &[
        "user.name",
        "user.email",
        "core.quotepath",
        "core.abbrev",
        "core.autocrlf",
        "init.defaultbranch",
        "log.date",
        "log.decorate",
        "diff.noprefix",
        "diff.renames",
        "pull.rebase",
        "column.ui",
    ];
    let harmless = HARMLESS.contains(&key)
        || key.starts_with("color.")
        || key.starts_with("advice.")
        || key.starts_with("i18n.");
    !harmless
}

/// Whether an rg command runs decompressors (`-z`) or a preprocessor (`--pre`).
fn rg_runs(args: &[&str]) -> bool {
    args.iter().any(|arg| {
        *arg == "--search-zip"
            || arg.starts_with("--pre")
            || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains('z'))
    })
}

/// `name[index]` with an index bash would evaluate to more than a number: a variable, a
/// substitution.
fn evaluated_subscript(arg: &str) -> bool {
    let Some((name, rest)) = arg.split_once('[') else {
        return false;
    };
    let is_name = !name.is_empty()
        && name
            .trim_start_matches('-')
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    let index = rest.rsplit_once(']').map_or(rest, |(index, _)| index);
    is_name
        && !matches!(index, "@" | "*")
        && index
            .chars()
            .any(|c| c.is_ascii_alphabetic() || matches!(c, '$' | '`' | '_'))
}

/// What runs from inside a parameter expansion, which the analysis does not read: a value
/// expanded as a prompt (`${x@P}` runs the command substitutions in it), or a substitution in
/// an operand (``${x:-`cmd`}``, `${x:-$(cmd)}`).
fn hidden_in_an_expansion(text: &str) -> Option<(String, String)> {
    for (start, _) in text.match_indices("${") {
        let inside = &text[start + 2..];
        let end = inside.find('}').unwrap_or(inside.len());
        let body = &inside[..end];
        // `${!x}` expands the variable x names, `a[$(cmd)]` included; `${y:x}` and
        // `${y:1:x}` evaluate their offset and length as arithmetic.
        let name_end = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(body.len());
        let offset = body[name_end..]
            .strip_prefix(':')
            .filter(|rest| !rest.starts_with(['-', '=', '+', '?']))
            .is_some_and(|rest| rest.chars().any(|c| c.is_ascii_alphabetic() || c == '$'));
        if body.starts_with('!')
            || offset
            || body.ends_with("@P")
            || ["`", "$(", "<(", ">("].iter().any(|s| body.contains(s))
        {
            return Some((
                format!("what the expansion ${{{body}}} runs"),
                "a command inside a parameter expansion".to_owned(),
            ));
        }
    }
    None
}

/// Bash's reserved words that open or continue a compound command: none is a program, so a
/// run the analysis names by one is a line tree-sitter-bash read otherwise than bash
/// (`! { x; }`, `time if ..; then x; fi`). `time` and `!` themselves are left out: before a
/// simple command (`time ls`) the analysis reads them as bash does.
const RESERVED_WORDS: &[&str] = &[
    "{", "}", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for",
    "function", "if", "in", "select", "then", "until", "while",
];

/// A form tree-sitter-bash is known to read otherwise than bash, found by the differential
/// fuzzing (`tests/shell_differential`): what it hides is known only at run time.
///
/// - a run named by a reserved word (`time` or `!` before a compound command);
/// - backquotes nested in backquotes (`` `echo \`x\`` ``);
/// - a backquote in an unquoted here-document, or any substitution in an unquoted `<<-` one
///   (whose lines' leading tabs hide them from the analysis);
/// - a function defined inside a pipeline (`a | f() { ..; } | b`).
fn misread(line: &CommandLine, text: &str) -> Option<(String, String)> {
    let found = |what: &str| {
        Some((
            format!("what bash runs in {what}"),
            "a line the analysis reads otherwise than bash".to_owned(),
        ))
    };
    let named_by_reserved_word = line.runs.iter().any(|run| {
        run.words
            .first()
            .is_some_and(|word| RESERVED_WORDS.contains(&word.text.as_str()))
    });
    if named_by_reserved_word {
        return found("a compound command it reads as programs");
    }
    if nested_backquotes(text) {
        return found("backquotes nested in backquotes");
    }
    for (start, _) in text.match_indices("<<") {
        let after = &text[start + 2..];
        if after.starts_with('<') || text[..start].ends_with('<') {
            continue;
        }
        let strips_tabs = after.starts_with('-');
        let delimiter = after
            .trim_start_matches('-')
            .trim_start_matches([' ', '\t']);
        let delimiter_end = delimiter
            .find([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')'])
            .unwrap_or(delimiter.len());
        // A quoted delimiter (`'EOF'`, `"EOF"`, `\EOF`, `E"O"F`) makes the body plain text.
        if delimiter[..delimiter_end].contains(['\'', '"', '\\']) {
            continue;
        }
        let body = after.find('\n').map_or("", |newline| &after[newline + 1..]);
        if body.contains('`') || (strips_tabs && body.contains("$(")) {
            return found("a substitution in a here-document");
        }
    }
    let bytes = text.as_bytes();
    for (bar, _) in text.match_indices('|') {
        let single = bytes.get(bar + 1) != Some(&b'|') && (bar == 0 || bytes[bar - 1] != b'|');
        if !single {
            continue;
        }
        let rest = text[bar + 1..].trim_start();
        if rest.starts_with("function ") {
            return found("a function defined inside a pipeline");
        }
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        let after_name = rest[name_end..].trim_start();
        if name_end > 0
            && after_name.starts_with('(')
            && after_name[1..].trim_start().starts_with(')')
        {
            return found("a function defined inside a pipeline");
        }
    }
    None
}

/// Whether `text` holds an escaped backquote inside a backquoted substitution (`` `a \`b\`` ``),
/// which bash runs as a substitution nested in it. Outside one (`echo \``, or within single
/// or double quotes) an escaped backquote is text.
fn nested_backquotes(text: &str) -> bool {
    let (mut single, mut double, mut backquoted) = (false, false, false);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if single {
            single = c != '\'';
            continue;
        }
        match c {
            '\\' if chars.next() == Some('`') && backquoted => return true,
            '\\' => {}
            '\'' if !double => single = true,
            '"' => double = !double,
            '`' => backquoted = !backquoted,
            _ => {}
        }
    }
    false
}

/// A string bash evaluates as arithmetic (`$((x))`, `(( x ))`, `$[x]`, `${a[x]}`, an indexed
/// assignment `a[x]=1`, `[[ x -eq 1 ]]`) naming a variable, whose value bash evaluates in
/// turn: `x='a[$(rm f)]'; echo $((x))` runs `rm`. Read from the text as written (quoted or
/// not: a quoted one only costs a question).
fn evaluated_as_arithmetic(text: &str) -> Option<(String, String)> {
    let names_variable = |inside: &str| {
        inside
            .chars()
            .any(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
    };
    let found = |what: &str| {
        Some((
            format!("a string evaluated as arithmetic in {what}"),
            "a string evaluated as arithmetic".to_owned(),
        ))
    };
    for (start, _) in text.match_indices("((") {
        let inside = &text[start + 2..];
        let end = inside.find("))").unwrap_or(inside.len());
        if names_variable(&inside[..end]) {
            let from = if text[..start].ends_with('$') {
                start - 1
            } else {
                start
            };
            return found(&text[from..(start + 2 + end + 2).min(text.len())]);
        }
    }
    for (start, _) in text.match_indices("$[") {
        let inside = &text[start + 2..];
        let end = inside.find(']').unwrap_or(inside.len());
        if names_variable(&inside[..end]) {
            return found(&text[start..(start + 2 + end + 1).min(text.len())]);
        }
    }
    // A subscript: `name[...]`, in `${a[x]}` or `a[x]=1`; `[@]` and `[*]` are not evaluated.
    let bytes = text.as_bytes();
    for (open, _) in text.match_indices('[') {
        let preceded_by_name = open > 0
            && (bytes[open - 1].is_ascii_alphanumeric() || bytes[open - 1] == b'_')
            && !text[..open].ends_with("[[");
        if !preceded_by_name {
            continue;
        }
        let inside = &text[open + 1..];
        // The matching `]`: a subscript may hold brackets of its own (`a[$(x 'b[1]')]`).
        let mut depth = 0usize;
        let Some(end) = inside.char_indices().find_map(|(at, c)| match c {
            '[' => {
                depth += 1;
                None
            }
            ']' if depth == 0 => Some(at),
            ']' => {
                depth -= 1;
                None
            }
            _ => None,
        }) else {
            continue;
        };
        let index = &inside[..end];
        let after = &inside[end + 1..];
        let is_subscript =
            text[..open].contains("${") || after.starts_with('=') || after.starts_with("+=");
        if is_subscript && !matches!(index, "@" | "*") && names_variable(index) {
            return found(&text[open..open + 1 + end + 1]);
        }
    }
    // `[[ .. -eq .. ]]`: the test command's operands are arithmetic (a bracket expression
    // such as `[[:space:]]` is not a test).
    for (start, _) in text.match_indices("[[") {
        let inside = &text[start + 2..];
        if !inside.starts_with([' ', '\t', '\n']) {
            continue;
        }
        let end = inside.find("]]").unwrap_or(inside.len());
        for operator in ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"] {
            if inside[..end].contains(&format!(" {operator} ")) {
                return found(operator);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::CommandLine;
    use super::join_continuations;

    fn known(command: &str) -> bool {
        CommandLine::analyze(command).is_fully_known()
    }

    #[test]
    fn forms_tree_sitter_reads_otherwise_than_bash_are_known_only_at_run_time() {
        for line in [
            "! { hit; }",
            "time { hit; }",
            "time if true; then hit; fi",
            "echo `echo \\`hit\\``",
            "x=\"`echo \\`hit\\``\"",
            "cat <<EOF\n`hit`\nEOF",
            "cat <<-EOF\n\t$(hit)\n\tEOF",
            "pwd | f() { :; } | cat\nhit || g() { :; }",
            "pwd | function f { :; }",
        ] {
            assert!(!known(line), "{line:?} was read as fully known");
        }
        for line in [
            "cat <<'EOF'\n`x`\nEOF",
            "cat <<-\"EOF\"\n\t$(x)\n\tEOF",
            "ls | grep -c x",
            "printf 'run \\`fmt\\` to fix'",
            "echo \"a \\` b\"",
            "time ls",
            "true || false",
        ] {
            assert!(known(line), "{line:?} was not read as fully known");
        }
    }

    #[test]
    fn a_backslash_newline_is_removed_as_bash_removes_it() {
        assert_eq!(join_continuations("r\\\nm f"), "rm f");
        assert_eq!(join_continuations("echo 'a\\\nb'"), "echo 'a\\\nb'");
        assert_eq!(join_continuations("echo \"a\\\nb\""), "echo \"ab\"");
        assert_eq!(join_continuations("echo a\\\\\nb"), "echo a\\\\\nb");
        // Read both ways (see the next test): the joined reading names `rm`.
        let line = CommandLine::analyze("r\\\nm -f x");
        assert!(line.runs().iter().any(|run| run.program() == Some("rm")));
    }

    /// Bash keeps a backslash-newline in a comment and in a quoted here-document: joining
    /// there would hide the next line's command from the analysis (checked against bash 5.2).
    #[test]
    fn a_backslash_newline_in_a_comment_or_a_quoted_here_document_hides_nothing() {
        for command in [
            "# a note \\\nrm -f x",
            "cat <<'EOF'\nfoo\\\nEOF\nrm -f x\nEOF",
            "echo ok # \\\nrm -f x",
        ] {
            let line = CommandLine::analyze(command);
            assert!(
                line.runs().iter().any(|run| run.program() == Some("rm")),
                "{command:?}: {:?}",
                line.runs()
            );
        }
    }

    #[test]
    fn scripts_run_or_sourced_are_known_only_at_run_time() {
        for command in [
            "bash s.sh",
            "sh s.sh",
            "sh -e s.sh",
            "./s.sh",
            "tools/run",
            "/tmp/x/rm-copy f",
            "source s.sh",
            ". ./s.sh",
        ] {
            assert!(!known(command), "{command}");
        }
        for command in ["bash -c 'ls'", "/bin/ls", "/usr/bin/git status", "ls -la"] {
            assert!(known(command), "{command}");
        }
    }

    #[test]
    fn variables_that_name_code_are_known_only_at_run_time() {
        for command in [
            "BASH_ENV=x.sh bash -c ls",
            "export BASH_ENV=x.sh; bash -c ls",
            "ENV=x sh -c ls",
            "GIT_SSH_COMMAND='rm f' git fetch",
            "BASH_CMDS[ls]=/bin/rm; ls",
            "printf -v 'BASH_CMDS[cat]' /bin/rm; cat f",
        ] {
            assert!(!known(command), "{command}");
        }
    }

    #[test]
    fn aliases_and_the_hash_table_are_known_only_at_run_time() {
        for command in [
            "shopt -s expand_aliases; alias ls='rm -f'; ls f",
            "alias x='rm f'",
            "hash -p /bin/rm ls; ls f",
        ] {
            assert!(!known(command), "{command}");
        }
    }

    #[test]
    fn strings_evaluated_as_arithmetic_are_known_only_at_run_time() {
        for command in [
            "x='a[$(rm f)]'; echo $((x))",
            "echo ${a[x]}",
            "let x",
            "declare -i y; y=z",
            "(( x > 1 ))",
            "[[ $x -eq 1 ]]",
            "a[i]=1",
        ] {
            assert!(!known(command), "{command}");
        }
        for command in ["echo $((1 + 2))", "echo ${a[@]}", "echo ${a[0]}"] {
            assert!(known(command), "{command}");
        }
    }

    #[test]
    fn interpreters_given_code_and_options_that_run_commands_are_known_only_at_run_time() {
        for command in [
            "python3 -c 'import os'",
            "python3.12 script.py",
            "perl -e 'unlink q(f)'",
            "node -e 1",
            "awk 'BEGIN{system(\"rm f\")}'",
            "awk -f prog.awk",
            "sed e",
            "sed -n '1e rm f' x",
            "sed 's/a/rm f/e' x",
            "tar --checkpoint=1 --checkpoint-action=exec='rm f' -cf a.tar x",
            "tar -cI 'rm f' -f a.tar x",
            "git -c alias.x='!rm f' x",
            "git -c core.fsmonitor='rm f' status",
            "git -c core.sshCommand=x fetch",
            "rg -z needle",
            "rg --pre ./pre needle",
        ] {
            assert!(!known(command), "{command}");
        }
        for command in [
            "python3 --version",
            "awk '{print $1}' f",
            "sed -n 's/a/b/p' f",
            "sed 's/x/e/' f",
            "tar -cf a.tar x",
            "git -c color.ui=never status",
            "rg -i needle",
        ] {
            assert!(known(command), "{command}");
        }
    }
}

#[cfg(test)]
mod deny_tests {
    use super::super::CommandLine;

    fn deny_texts(command: &str) -> Vec<String> {
        CommandLine::analyze(command)
            .runs()
            .iter()
            .flat_map(super::super::Run::deny_texts)
            .collect()
    }

    #[test]
    fn programs_that_delete_are_matched_as_rm_too() {
        for (command, rm) in [
            ("rmdir build", "rm build"),
            ("unlink f", "rm f"),
            ("/usr/bin/unlink f", "rm f"),
            ("shred -u f", "rm f"),
            ("shred --remove -n 1 f", "rm 1 f"),
            ("find . -name '*.o' -delete", "rm ."),
        ] {
            let texts = deny_texts(command);
            assert!(texts.iter().any(|text| text == rm), "{command}: {texts:?}");
        }
        assert!(
            !deny_texts("shred f")
                .iter()
                .any(|text| text.starts_with("rm"))
        );
        assert!(
            !deny_texts("find . -name x")
                .iter()
                .any(|text| text.starts_with("rm"))
        );
    }

    #[test]
    fn a_line_bash_rejects_is_a_problem() {
        for command in ["ls ;; pwd", ";; ls", "ls && && pwd", "&& ls"] {
            assert!(
                !CommandLine::analyze(command).problems().is_empty(),
                "{command}"
            );
        }
        assert!(
            CommandLine::analyze("case x in a) ls ;; b) pwd ;; esac")
                .problems()
                .is_empty()
        );
    }
}

//! Programs that run another program: `sudo rm x` runs `rm x`, `bash -c 'rm x'` runs a script,
//! `find . -exec rm {} \;` runs `rm` once per file. Each is peeled with its own options, so
//! the command it runs is judged like any other.
//!
//! A wrapper is *transparent* when it only changes how its command runs (a time limit, a
//! priority, the environment), not what it may do: an allow rule then needs to cover the
//! wrapped command alone. `sudo`, `xargs`, `find`, shells and `eval` are not transparent: the
//! wrapper itself must be allowed too.

use super::words::Word;

/// What a wrapper runs.
#[derive(Debug)]
pub(super) enum Wrapped {
    /// This command (its words may be empty: `sudo -l`), with assignments made before it
    /// (`env FOO=1 cmd`, `sudo FOO=1 cmd`).
    Command {
        words: Vec<Word>,
        assignments: Vec<String>,
        transparent: bool,
    },
    /// Each of these commands (`find -exec .. ;`, once per file).
    Commands(Vec<Vec<Word>>),
    /// This text as a shell script (`sh -c`, `eval`, `env -S`, `watch`, `su -c`).
    Script(Word),
    /// Commands read from standard input (a shell given no script).
    Stdin,
}

/// What `program` (a literal program name, as written) runs with these arguments, if it is a
/// wrapper.
pub(super) fn unwrap(program: &str, args: &[Word]) -> Option<Wrapped> {
    let name = program.rsplit('/').next().unwrap_or(program);
    let command = |rest: &[Word], transparent: bool| Wrapped::Command {
        words: rest.to_vec(),
        assignments: Vec::new(),
        transparent,
    };
    Some(match name {
        "sudo" => {
            let at = skip_options(
                args,
                b"ugCDhprtTU",
                &[
                    "user",
                    "group",
                    "close-from",
                    "chdir",
                    "host",
                    "prompt",
                    "role",
                    "type",
                    "command-timeout",
                    "other-user",
                ],
            );
            with_assignments(&args[at..], false)
        }
        "doas" => command(&args[skip_options(args, b"uC", &[])..], false),
        "env" => {
            if let Some(script) = split_string(args) {
                return Some(Wrapped::Script(script));
            }
            let at = skip_options(args, b"uCP", &["unset", "chdir"]);
            with_assignments(&args[at..], true)
        }
        "command" => {
            // `command -v x` and `command -V x` only say what `x` is.
            if args
                .iter()
                .take_while(|a| a.text.starts_with('-'))
                .any(|a| a.text.contains(['v', 'V']))
            {
                return None;
            }
            command(&args[skip_options(args, b"", &[])..], true)
        }
        "builtin" | "nohup" => command(&args[skip_options(args, b"", &[])..], true),
        "exec" => command(&args[skip_options(args, b"a", &[])..], true),
        "setsid" => command(&args[skip_options(args, b"", &[])..], true),
        "nice" => command(&args[skip_options(args, b"n", &["adjustment"])..], true),
        "ionice" => command(
            &args[skip_options(
                args,
                b"cnpPu",
                &["class", "classdata", "pid", "pgid", "uid"],
            )..],
            true,
        ),
        "stdbuf" => command(
            &args[skip_options(args, b"ioe", &["input", "output", "error"])..],
            true,
        ),
        "time" => command(
            &args[skip_options(args, b"fo", &["format", "output"])..],
            true,
        ),
        "timeout" => {
            let at = skip_options(args, b"sk", &["signal", "kill-after"]);
            // The duration comes first.
            command(args.get(at + 1..).unwrap_or_default(), true)
        }
        "xargs" => {
            let at = skip_options(
                args,
                b"adEILlnPs",
                &[
                    "arg-file",
                    "delimiter",
                    "eof",
                    "replace",
                    "max-lines",
                    "max-args",
                    "max-procs",
                    "max-chars",
                    "process-slot-var",
                ],
            );
            let rest = &args[at..];
            if rest.is_empty() {
                command(&[Word::literal("echo")], false)
            } else {
                command(rest, false)
            }
        }
        "busybox" => command(args, false),
        "find" => Wrapped::Commands(find_exec(args)),
        "watch" => {
            let at = skip_options(args, b"ndq", &["interval", "differences", "equexit"]);
            script_of(&args[at..])?
        }
        "eval" => script_of(args)?,
        "su" => {
            let script = option_value(args, b'c', "command")?;
            Wrapped::Script(script.clone())
        }
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "busybox-sh" => shell(args)?,
        // `source <(curl ..)`: a script made at run time. A script file is read as named.
        "source" | "." => match args.first() {
            Some(file) if is_process_substitution(file) => Wrapped::Script(file.clone()),
            _ => return None,
        },
        _ => return None,
    })
}

/// `<(cmd)`: a file whose content a command makes at run time. (A script file named by a
/// variable is read like one named literally: its name is not what is unknown, its content.)
fn is_process_substitution(word: &Word) -> bool {
    word.dynamic && (word.text.starts_with("<(") || word.text.starts_with(">("))
}

/// `NAME=value` words after a wrapper's options are assignments for its command.
fn with_assignments(rest: &[Word], transparent: bool) -> Wrapped {
    let count = rest
        .iter()
        .take_while(|word| is_assignment(&word.text))
        .count();
    Wrapped::Command {
        words: rest[count..].to_vec(),
        assignments: rest[..count].iter().map(|word| word.text.clone()).collect(),
        transparent,
    }
}

pub(super) fn is_assignment(text: &str) -> bool {
    text.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !name.as_bytes()[0].is_ascii_digit()
    })
}

/// The index of the first argument that is not an option. `valued` lists the short options
/// that take a value (in the next word unless attached), `long_valued` the long ones (in the
/// next word unless written `--name=value`). `--` ends the options.
fn skip_options(args: &[Word], valued: &[u8], long_valued: &[&str]) -> usize {
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        let text = arg.text.as_str();
        if text == "--" {
            return at + 1;
        }
        if let Some(long) = text.strip_prefix("--") {
            at += 1;
            if !long.contains('=') && long_valued.contains(&long) {
                at += 1;
            }
            continue;
        }
        let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            return at;
        };
        at += 1;
        // `-n 10`, `-10` (nice's old form), `-oL` (a value attached).
        if cluster.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        for (index, flag) in cluster.bytes().enumerate() {
            if valued.contains(&flag) {
                if index + 1 == cluster.len() {
                    at += 1;
                }
                break;
            }
        }
    }
    at
}

/// The value of `-c VALUE`, `-cVALUE`, `--command VALUE` or `--command=VALUE`.
fn option_value<'a>(args: &'a [Word], short: u8, long: &str) -> Option<&'a Word> {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let text = arg.text.as_str();
        if let Some(value) = text.strip_prefix("--").and_then(|l| l.strip_prefix(long)) {
            if value.is_empty() {
                return iter.next();
            }
            if value.starts_with('=') {
                return Some(arg);
            }
        } else if text.starts_with('-')
            && !text.starts_with("--")
            && text.as_bytes().get(1) == Some(&short)
        {
            return if text.len() == 2 {
                iter.next()
            } else {
                Some(arg)
            };
        }
    }
    None
}

/// `env -S 'cmd args'` / `env --split-string=..`: the string, run as a command line.
fn split_string(args: &[Word]) -> Option<Word> {
    for (index, arg) in args.iter().enumerate() {
        let text = arg.text.as_str();
        if text == "-S" || text == "--split-string" {
            return args.get(index + 1).cloned();
        }
        if let Some(value) = text
            .strip_prefix("--split-string=")
            .or_else(|| text.strip_prefix("-S"))
        {
            return Some(Word {
                text: value.to_owned(),
                ..arg.clone()
            });
        }
        if !text.starts_with('-') {
            return None;
        }
    }
    None
}

/// Words joined by spaces, as `eval` and `watch` join their arguments into one script.
fn script_of(args: &[Word]) -> Option<Wrapped> {
    if args.is_empty() {
        return None;
    }
    let text = args
        .iter()
        .map(|word| word.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    Some(Wrapped::Script(Word {
        text,
        dynamic: args.iter().any(|word| word.dynamic),
        pattern: false,
    }))
}

/// A shell's arguments: `-c SCRIPT` runs the script; a file argument runs that file (the
/// shell is then an ordinary command); no argument (or `-s`) reads commands from stdin.
fn shell(args: &[Word]) -> Option<Wrapped> {
    let mut at = 0;
    let mut reads_script_arg = false;
    let mut stdin = false;
    while let Some(arg) = args.get(at) {
        let text = arg.text.as_str();
        at += 1;
        if text == "--" {
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            if matches!(long, "rcfile" | "init-file") {
                at += 1;
            }
            continue;
        }
        let Some(cluster) = text.strip_prefix(['-', '+']).filter(|c| !c.is_empty()) else {
            at -= 1;
            break;
        };
        reads_script_arg |= cluster.contains('c');
        stdin |= cluster.contains('s');
        // `-o option`, `-O shopt`: the next word is the option's name.
        if cluster.ends_with(['o', 'O']) {
            at += 1;
        }
    }
    if reads_script_arg {
        return args.get(at).cloned().map(Wrapped::Script);
    }
    match args.get(at) {
        // `bash <(curl ..)`: a script made at run time.
        Some(file) if is_process_substitution(file) && !stdin => {
            Some(Wrapped::Script(file.clone()))
        }
        // A script file named here: the shell is an ordinary command.
        Some(_) if !stdin => None,
        _ => Some(Wrapped::Stdin),
    }
}

/// The commands of `find`'s `-exec`, `-execdir`, `-ok` and `-okdir` actions.
fn find_exec(args: &[Word]) -> Vec<Vec<Word>> {
    let mut commands = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if matches!(arg.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let words: Vec<Word> = iter
                .by_ref()
                .take_while(|word| !matches!(word.text.as_str(), ";" | "+"))
                .cloned()
                .collect();
            if !words.is_empty() {
                commands.push(words);
            }
        }
    }
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Word> {
        text.split_whitespace().map(Word::literal).collect()
    }

    fn inner(line: &str) -> String {
        let all = words(line);
        match unwrap(&all[0].text, &all[1..]) {
            Some(Wrapped::Command { words, .. }) => words
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            Some(Wrapped::Script(word)) => format!("script: {}", word.text),
            Some(Wrapped::Commands(commands)) => format!("{} commands", commands.len()),
            Some(Wrapped::Stdin) => "stdin".into(),
            None => "not a wrapper".into(),
        }
    }

    #[test]
    fn wrappers_are_peeled_with_their_own_options() {
        for (line, expected) in [
            ("sudo -u root -E rm x", "rm x"),
            ("sudo --user root rm x", "rm x"),
            ("doas -u root rm x", "rm x"),
            ("env -i FOO=1 rm x", "rm x"),
            ("nice -n 10 rm x", "rm x"),
            ("nice -10 rm x", "rm x"),
            ("ionice -c 3 rm x", "rm x"),
            ("timeout -s KILL 5 rm x", "rm x"),
            ("timeout --signal KILL 5s rm x", "rm x"),
            ("stdbuf -oL rm x", "rm x"),
            ("time -p rm x", "rm x"),
            ("nohup rm x", "rm x"),
            ("setsid -f rm x", "rm x"),
            ("exec -a name rm x", "rm x"),
            ("xargs -0 -n 1 rm", "rm"),
            ("xargs -I {} rm {}", "rm {}"),
            ("xargs", "echo"),
            ("busybox rm x", "rm x"),
            ("bash -c x", "script: x"),
            ("bash -lc x", "script: x"),
            ("sh -e -c x", "script: x"),
            ("bash", "stdin"),
            ("bash script.sh", "not a wrapper"),
            ("source env.sh", "not a wrapper"),
            ("command -v rm", "not a wrapper"),
            ("find . -exec rm {} ; -execdir touch {} +", "2 commands"),
            ("eval rm x", "script: rm x"),
            ("su -c x root", "script: x"),
            ("ls -la", "not a wrapper"),
        ] {
            assert_eq!(inner(line), expected, "{line}");
        }
    }

    #[test]
    fn assignments_after_sudo_and_env_go_with_the_command() {
        let all = words("sudo FOO=1 BAR=2 rm x");
        let Some(Wrapped::Command {
            words, assignments, ..
        }) = unwrap("sudo", &all[1..])
        else {
            panic!("sudo is a wrapper");
        };
        assert_eq!(assignments, ["FOO=1", "BAR=2"]);
        assert_eq!(words[0].text, "rm");
    }
}

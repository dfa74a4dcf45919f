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
    /// The commands of a script file (`bash s.sh`, `source s.sh`): what it holds is only known
    /// when it runs, and the session may have written it.
    ScriptFile(Word),
}

/// The shells whose options [`unwrap`] reads.
pub(super) const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "yash",
    "busybox-sh",
];

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
        "sudo" => with_assignments(&args[SUDO.skip(args)..], false),
        "doas" => command(&args[skip_options(args, b"uC", &[])..], false),
        "env" => {
            let options = &args[..ENV.skip(args)];
            // `env -S 'cmd args'`: the string, run as a command line.
            if let Some(script) = ENV.value(options, b'S', "split-string") {
                return Some(Wrapped::Script(script));
            }
            // `env -C dir` runs its command elsewhere, `env -a name` under another name, and
            // (BSD) `env -P dir` finds it in another search path: more than a change of
            // environment, so the wrapper must be allowed itself.
            let plain = !ENV.has(options, b"CaP", &["chdir", "argv0"]);
            with_assignments(&args[options.len()..], plain)
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
        "time" => {
            let at = TIME.skip(args);
            // `time -o file` writes the file: the wrapper must be allowed itself.
            command(&args[at..], !TIME.has(&args[..at], b"o", &["output"]))
        }
        "timeout" => {
            let at = skip_options(args, b"sk", &["signal", "kill-after"]);
            // The duration comes first.
            command(args.get(at + 1..).unwrap_or_default(), true)
        }
        "xargs" => {
            let at = skip_options(
                args,
                // GNU's `-l`, `-i` and `-e` take a value only when it is attached, as do
                // `--eof`, `--replace` and `--max-lines`; BSD's `-J`, `-R` and `-S` take one.
                b"adEIJLnPRsS",
                &[
                    "arg-file",
                    "delimiter",
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
            let script = SU
                .value(args, b'c', "command")
                .or_else(|| SU.value(args, b'c', "session-command"))?;
            Wrapped::Script(script)
        }
        // `trap 'cmd' EXIT`: the script runs later, on the signal. (`trap -p`, `trap -l`
        // only print.)
        "trap" => {
            let rest = match args.first() {
                Some(first) if first.text == "--" => &args[1..],
                Some(first) if first.text.starts_with('-') => return None,
                _ => args,
            };
            // `trap SIGNAL` alone resets the signal; with a script, the script comes first.
            if rest.len() < 2 {
                return None;
            }
            Wrapped::Script(rest[0].clone())
        }
        // `coproc cmd args` runs the command in the background; `coproc NAME { ..; }` names a
        // compound command, which the grammar does not read: its words are not a command.
        "coproc" => {
            if args
                .iter()
                .any(|word| matches!(word.text.as_str(), "{" | "}" | "(" | ")" | ";"))
            {
                let text = args
                    .iter()
                    .map(|word| word.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                return Some(Wrapped::Script(Word {
                    text,
                    dynamic: true,
                    pattern: false,
                }));
            }
            command(args, false)
        }
        shell_name if SHELLS.contains(&shell_name) => shell(args)?,
        // `source <(curl ..)`: a script made at run time; `source file`: a script file.
        "source" | "." => match args.first() {
            Some(file) if is_process_substitution(file) => Wrapped::Script(file.clone()),
            Some(file) if is_stdin_file(file) => Wrapped::Stdin,
            Some(file) => Wrapped::ScriptFile(file.clone()),
            None => return None,
        },
        _ => return None,
    })
}

/// Whether the wrapper runs its command in another directory (`env -C dir`, `sudo -D dir`,
/// `find -execdir`): relative writes of what it runs land somewhere not known here.
pub(super) fn changes_directory(program: &str, args: &[Word]) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    match name {
        "env" => ENV.has(&args[..ENV.skip(args)], b"C", &["chdir"]),
        "sudo" => SUDO.has(&args[..SUDO.skip(args)], b"D", &["chdir"]),
        "find" => args
            .iter()
            .any(|word| matches!(word.text.as_str(), "-execdir" | "-okdir")),
        _ => false,
    }
}

/// The file a wrapper writes by itself: `time -o FILE` (`-a`: appended).
pub(super) fn output_file(program: &str, args: &[Word]) -> Option<(Word, bool)> {
    let name = program.rsplit('/').next().unwrap_or(program);
    if name != "time" {
        return None;
    }
    let options = &args[..TIME.skip(args)];
    let file = TIME.value(options, b'o', "output")?;
    let append = TIME.has(options, b"a", &["append"]);
    Some((file, append))
}

/// `<(cmd)`: a file whose content a command makes at run time. (A script file named by a
/// variable is read like one named literally: its name is not what is unknown, its content.)
fn is_process_substitution(word: &Word) -> bool {
    word.dynamic && (word.text.starts_with("<(") || word.text.starts_with(">("))
}

/// `/dev/stdin` and its aliases: a script read from there is the command's standard input.
fn is_stdin_file(word: &Word) -> bool {
    word.is_exact()
        && matches!(
            word.text.as_str(),
            "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
        )
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

/// A wrapper's options that take a value: short flags (the value in the next word unless
/// attached, `-uNAME`) and long names (the next word unless written `--name=value`). One table
/// per wrapper answers every question asked about its options, so the answers agree. (The
/// programs that write files by argument read theirs with it too: see `writers`.)
pub(super) struct Valued {
    pub(super) short: &'static [u8],
    pub(super) long: &'static [&'static str],
}

const SUDO: Valued = Valued {
    short: b"ugCDhprRtTU",
    long: &[
        "chroot",
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
};
const ENV: Valued = Valued {
    short: b"uCPaS",
    long: &["unset", "chdir", "argv0", "split-string"],
};
const TIME: Valued = Valued {
    short: b"fo",
    long: &["format", "output"],
};
const SU: Valued = Valued {
    short: b"cgGsw",
    long: &[
        "command",
        "session-command",
        "group",
        "supp-group",
        "shell",
        "whitelist-environment",
    ],
};

impl Valued {
    /// The index of the first argument that is not an option.
    fn skip(&self, args: &[Word]) -> usize {
        skip_options(args, self.short, self.long)
    }

    /// Whether one of these options (short flags in `short`, long names in `long`) is among
    /// `options`. A cluster is read up to its first flag that takes a value: the rest is the
    /// value (`-uCOLOR` unsets `COLOR`; it is not `-C`).
    pub(super) fn has(&self, options: &[Word], short: &[u8], long: &[&str]) -> bool {
        options.iter().any(|word| {
            let text = word.text.as_str();
            if let Some(name) = text.strip_prefix("--") {
                let name = name.split_once('=').map_or(name, |(name, _)| name);
                return long.contains(&name);
            }
            let Some(cluster) = text.strip_prefix('-') else {
                return false;
            };
            for flag in cluster.bytes() {
                if short.contains(&flag) {
                    return true;
                }
                if self.short.contains(&flag) {
                    return false;
                }
            }
            false
        })
    }

    /// The value of `-X VALUE`, `-XVALUE`, `-lX VALUE` (in a cluster), `--long VALUE` or
    /// `--long=VALUE`: the value alone, without the option. Options after a non-option word
    /// count too (`su root -c cmd`); for a wrapper whose options end at its command, pass
    /// only the options.
    pub(super) fn value(&self, args: &[Word], short: u8, long: &str) -> Option<Word> {
        self.values(args, short, long).next()
    }

    /// Every value of the option, in order (`curl -o a -o b`), read as [`value`](Self::value)
    /// reads the first; `short` 0 or `long` empty when the option has no such spelling.
    pub(super) fn values<'a>(
        &'a self,
        args: &'a [Word],
        short: u8,
        long: &'a str,
    ) -> impl Iterator<Item = Word> + 'a {
        let value_of = |arg: &Word, text: &str| Word {
            text: text.to_owned(),
            ..arg.clone()
        };
        let mut at = 0;
        std::iter::from_fn(move || {
            while let Some(arg) = args.get(at) {
                let text = arg.text.as_str();
                at += 1;
                if text == "--" {
                    at = args.len();
                    return None;
                }
                if let Some(name) = text.strip_prefix("--") {
                    match name.split_once('=') {
                        Some((name, value)) if !long.is_empty() && name == long => {
                            return Some(value_of(arg, value));
                        }
                        None if !long.is_empty() && name == long => {
                            at += 1;
                            return args.get(at - 1).cloned();
                        }
                        None if self.long.contains(&name) => at += 1,
                        _ => {}
                    }
                    continue;
                }
                let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
                    continue;
                };
                for (index, flag) in cluster.bytes().enumerate() {
                    let attached = &cluster[index + 1..];
                    if short != 0 && flag == short {
                        if attached.is_empty() {
                            at += 1;
                            return args.get(at - 1).cloned();
                        }
                        return Some(value_of(arg, attached));
                    }
                    if self.short.contains(&flag) {
                        if attached.is_empty() {
                            at += 1;
                        }
                        break;
                    }
                }
            }
            None
        })
    }
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
        // A lone `-` ends the options, and the shell reads its commands from stdin.
        if text == "-" {
            stdin = true;
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
        Some(file) if is_stdin_file(file) => Some(Wrapped::Stdin),
        Some(file) if !stdin => Some(Wrapped::ScriptFile(file.clone())),
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
            Some(Wrapped::ScriptFile(word)) => format!("script file: {}", word.text),
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
            ("bash script.sh", "script file: script.sh"),
            ("source env.sh", "script file: env.sh"),
            ("command -v rm", "not a wrapper"),
            ("find . -exec rm {} ; -execdir touch {} +", "2 commands"),
            ("eval rm x", "script: rm x"),
            ("su -c x root", "script: x"),
            ("ls -la", "not a wrapper"),
            // Options whose value is only ever attached do not swallow the program.
            ("xargs -l rm -rf git status", "rm -rf git status"),
            ("xargs --replace rm -rf x {}", "rm -rf x {}"),
            ("xargs --eof rm x", "rm x"),
            ("xargs -J % rm %", "rm %"),
            ("sudo -R / rm -rf x", "rm -rf x"),
            ("sudo --chroot / rm -rf x", "rm -rf x"),
            ("env -u FOO -S rm", "script: rm"),
            ("env -iSrm", "script: rm"),
            ("env -C /tmp -S rm", "script: rm"),
            ("bash - x", "stdin"),
            ("bash /dev/stdin", "stdin"),
            (". /dev/stdin", "stdin"),
            ("source /dev/fd/0", "stdin"),
            ("trap rm EXIT", "script: rm"),
            ("trap -- rm EXIT", "script: rm"),
            ("trap -p", "not a wrapper"),
            ("trap INT", "not a wrapper"),
            ("coproc rm -rf x", "rm -rf x"),
            ("su --session-command=rm", "script: rm"),
            ("su --command=rm", "script: rm"),
            ("su -crm", "script: rm"),
            ("su -lc rm root", "script: rm"),
            ("su -s /bin/sh -c rm root", "script: rm"),
        ] {
            assert_eq!(inner(line), expected, "{line}");
        }
    }

    #[test]
    fn a_wrapper_option_that_acts_by_itself_makes_the_wrapper_opaque() {
        let transparent = |line: &str| {
            let all = words(line);
            match unwrap(&all[0].text, &all[1..]) {
                Some(Wrapped::Command { transparent, .. }) => transparent,
                other => panic!("{line}: {other:?}"),
            }
        };
        assert!(transparent("time -p git status"));
        assert!(!transparent("time -o out git status"));
        assert!(!transparent("time --output=out git status"));
        assert!(transparent("env FOO=1 git status"));
        assert!(!transparent("env -C /elsewhere make"));
        assert!(!transparent("env --chdir=/elsewhere make"));
        assert!(!transparent("env -a name git rm -rf x"));
        assert!(!transparent("env -P /tmp/evil ls"));
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

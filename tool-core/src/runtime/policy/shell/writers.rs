//! The files well-known programs write or remove through their arguments rather than through
//! a redirection: `tee FILE`, `cp SRC DEST`, `sed -i .. FILE`, `rm FILE`, `dd of=FILE`,
//! `find DIR -delete`, `tar -x -C DIR`, `rsync SRC DEST`, `git -C DIR commit`. Each is a write
//! of the command line like `> FILE`, so the workspace boundary and the protected paths
//! (`.git`) judge it: `echo x | tee .git/hooks/post-merge` is refused as
//! `echo x > .git/hooks/post-merge` is, and `find .. -name x -delete` as `rm ../x` is.
//!
//! This reads the common programs by their documented options; it is not a sandbox. A program
//! not listed here (an interpreter, a build tool) writes where this cannot see, as it always
//! could: the kernel sandbox of `run_shell` is what bounds those.

use super::words::Word;
use super::wrappers::Valued;

/// What a write changes beneath its target, when the target is a directory: nothing but the
/// target itself (`tee`, `touch`, `mkdir`, a non-recursive `rm`), everything beneath it (a
/// recursive `rm`, `chmod -R`, an extraction into it, a directory moved), or what `find`
/// selects beneath it before its `-delete`. A rule that keeps a path from being changed
/// (a protected `.git`, an `Edit(..)` deny rule) holds against a write at one of its
/// ancestors that reaches it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Beneath {
    /// The target alone.
    #[default]
    Nothing,
    /// The target and everything beneath it.
    Everything,
    /// The entries `find` selects, beneath and including its starting point.
    Selected(FindSelection),
}

/// What `find` deletes: the entries its tests before `-delete` select, when those tests are a
/// plain conjunction of the ones read here (`-name`, `-iname`, `-type`, depths). A test not
/// read here only narrows the selection further, so leaving it out can only count more
/// entries as deleted, never fewer; operators (`-o`, `!`, parentheses, `,`), `-prune` and
/// `-L` make the selection [`Beneath::Everything`] instead.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct FindSelection {
    /// `-name` and `-iname` globs, each with whether it ignores case: a selected entry's name
    /// matches every one.
    pub names: Vec<(String, bool)>,
    /// `-type`'s letters (`f`, `d`, `l`, ...): a selected entry is of one of the types given
    /// by each `-type`; empty, of any type.
    pub types: Vec<Vec<char>>,
    /// `-mindepth` (0, the starting point itself, when not given).
    pub min_depth: usize,
    /// `-maxdepth`, when given.
    pub max_depth: Option<usize>,
}

impl FindSelection {
    /// Whether `find` selects an entry named `name`, of type `kind` (find's letter: `f`, `d`,
    /// `l`, ...), `depth` levels beneath its starting point.
    ///
    /// ```
    /// use tool_core::policy::shell::{Beneath, CommandLine};
    ///
    /// let line = CommandLine::analyze("find . -maxdepth 2 -name '*.o' -type f -delete");
    /// let Beneath::Selected(selection) = &line.writes()[0].beneath else { panic!() };
    /// assert!(selection.selects("main.o", 'f', 1));
    /// assert!(!selection.selects("config", 'f', 2));
    /// assert!(!selection.selects("deep.o", 'f', 3));
    /// assert!(!selection.selects("dir.o", 'd', 1));
    /// ```
    #[must_use]
    pub fn selects(&self, name: &str, kind: char, depth: usize) -> bool {
        depth >= self.min_depth
            && self.max_depth.is_none_or(|max| depth <= max)
            && self.types.iter().all(|types| types.contains(&kind))
            && self.names.iter().all(|(glob, ignore_case)| {
                globset::GlobBuilder::new(glob)
                    .case_insensitive(*ignore_case)
                    .backslash_escape(true)
                    .build()
                    // A glob find would take but globset cannot read: count it as selecting.
                    .map_or(true, |glob| glob.compile_matcher().is_match(name))
            })
    }
}

/// One file a program writes through its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Written {
    pub(super) file: Word,
    /// Appended to, not replaced.
    pub(super) append: bool,
    /// What it changes beneath the file, when it is a directory.
    pub(super) beneath: Beneath,
    /// Whether a symbolic link at the file is followed to what it points to (see
    /// [`Write::follows_link`](super::Write::follows_link)).
    pub(super) follows_link: bool,
}

impl Written {
    fn replaced(file: Word) -> Self {
        Written {
            file,
            append: false,
            beneath: Beneath::Nothing,
            follows_link: true,
        }
    }

    fn tree(file: Word) -> Self {
        Written {
            file,
            append: false,
            beneath: Beneath::Everything,
            follows_link: true,
        }
    }

    /// This write, acting on a symbolic link at the file itself (removing or moving it), as
    /// `rm`, `rmdir`, `unlink`, `mv`'s sources and `find`'s starting points (without `-H` or
    /// `-L`) do. An operand whose last part is empty, `.` or `..` (`link/`, `link/.`) goes
    /// through the link.
    fn on_the_link(self) -> Self {
        let last = self.file.text.rsplit('/').next().unwrap_or_default();
        let follows_link = matches!(last, "" | "." | "..");
        Written {
            follows_link,
            ..self
        }
    }
}

const NONE: Valued = Valued {
    short: b"",
    long: &[],
};
const TOUCH: Valued = Valued {
    short: b"dtr",
    long: &["date", "reference"],
};
const TRUNCATE: Valued = Valued {
    short: b"sr",
    long: &["size", "reference"],
};
const SHRED: Valued = Valued {
    short: b"ns",
    long: &["iterations", "size", "random-source"],
};
const COPY: Valued = Valued {
    short: b"St",
    long: &["suffix", "target-directory"],
};
const INSTALL: Valued = Valued {
    short: b"gmoStC",
    long: &["suffix", "target-directory", "group", "mode", "owner"],
};
const SED: Valued = Valued {
    short: b"efl",
    long: &["expression", "file", "line-length"],
};
const MKDIR: Valued = Valued {
    short: b"m",
    long: &["mode"],
};
const CHOWN: Valued = Valued {
    short: b"",
    long: &["from", "reference"],
};
const TAR: Valued = Valued {
    short: b"bCfFgHIKLNTVX",
    long: &[
        "blocking-factor",
        "directory",
        "file",
        "info-script",
        "new-volume-script",
        "listed-incremental",
        "format",
        "use-compress-program",
        "starting-file",
        "tape-length",
        "newer",
        "after-date",
        "files-from",
        "label",
        "exclude-from",
        "exclude",
        "owner",
        "group",
        "mode",
        "mtime",
        "transform",
        "xform",
        "suffix",
    ],
};
const RSYNC: Valued = Valued {
    short: b"BefMT",
    long: &[
        "rsh",
        "rsync-path",
        "filter",
        "exclude",
        "include",
        "exclude-from",
        "include-from",
        "files-from",
        "temp-dir",
        "compare-dest",
        "copy-dest",
        "link-dest",
        "partial-dir",
        "backup-dir",
        "suffix",
        "chmod",
        "chown",
        "usermap",
        "groupmap",
        "block-size",
        "max-size",
        "min-size",
        "max-delete",
        "timeout",
        "contimeout",
        "port",
        "address",
        "sockopts",
        "log-file",
        "log-file-format",
        "out-format",
        "password-file",
        "bwlimit",
        "write-batch",
        "only-write-batch",
        "read-batch",
        "iconv",
        "checksum-choice",
        "compress-choice",
        "compress-level",
        "skip-compress",
        "info",
        "debug",
        "outbuf",
        "modify-window",
        "stop-after",
        "stop-at",
        "protocol",
        "remote-option",
    ],
};
const GIT: Valued = Valued {
    short: b"Cc",
    long: &[
        "git-dir",
        "work-tree",
        "namespace",
        "config-env",
        "super-prefix",
        "list-cmds",
        "attr-source",
    ],
};
const CURL: Valued = Valued {
    short: b"AbcCdDeEFHKmoPQrTtuUwxXyYz",
    long: &[
        "output",
        "output-dir",
        "dump-header",
        "cookie-jar",
        "trace",
        "trace-ascii",
        "stderr",
        "etag-save",
        "user-agent",
        "cookie",
        "data",
        "data-binary",
        "data-raw",
        "data-urlencode",
        "form",
        "header",
        "request",
        "url",
        "user",
        "proxy",
        "referer",
        "range",
        "upload-file",
        "max-time",
        "connect-timeout",
        "config",
        "cert",
        "key",
        "cacert",
        "write-out",
    ],
};
const WGET: Valued = Valued {
    short: b"aABDeilLoOPQRtTUwXI",
    long: &[
        "output-document",
        "output-file",
        "append-output",
        "directory-prefix",
        "input-file",
        "tries",
        "timeout",
        "wait",
        "quota",
        "level",
        "accept",
        "reject",
        "domains",
        "user-agent",
        "header",
        "user",
        "password",
    ],
};
const UNZIP: Valued = Valued {
    short: b"dPIO",
    long: &[],
};

/// `git` subcommands that leave the repository as it is: `-C` and `--git-dir` before them
/// only say where to read.
const GIT_READS: &[&str] = &[
    "status",
    "log",
    "show",
    "diff",
    "blame",
    "grep",
    "ls-files",
    "ls-tree",
    "ls-remote",
    "rev-parse",
    "rev-list",
    "describe",
    "shortlog",
    "cat-file",
    "whatchanged",
    "help",
    "version",
    "--version",
    "--help",
];

/// The files `program` (its name, or a path to it) writes or removes, given its arguments,
/// each with whether it is appended to and what it changes beneath.
pub(super) fn written_files(program: &str, args: &[Word]) -> Vec<Written> {
    let name = program.rsplit('/').next().unwrap_or(program);
    let replaced = |words: Vec<Word>| words.into_iter().map(Written::replaced).collect();
    let trees = |words: Vec<Word>| words.into_iter().map(Written::tree).collect();
    match name {
        "tee" => {
            let (options, files) = split(args, &NONE);
            let append = NONE.has(&options, b"a", &["append"]);
            files
                .into_iter()
                .map(|file| Written {
                    append,
                    ..Written::replaced(file)
                })
                .collect()
        }
        "touch" => replaced(split(args, &TOUCH).1),
        "truncate" => replaced(split(args, &TRUNCATE).1),
        "rm" => {
            let (options, files) = split(args, &NONE);
            let files: Vec<Written> = if NONE.has(&options, b"rR", &["recursive"]) {
                trees(files)
            } else {
                replaced(files)
            };
            files.into_iter().map(Written::on_the_link).collect()
        }
        "rmdir" | "unlink" => replaced(split(args, &NONE).1)
            .into_iter()
            .map(Written::on_the_link)
            .collect(),
        "shred" => replaced(split(args, &SHRED).1),
        "mkdir" => replaced(split(args, &MKDIR).1),
        "chmod" => {
            let (files, recursive) = chmod_files(args);
            if recursive {
                trees(files)
            } else {
                replaced(files)
            }
        }
        "chown" | "chgrp" => {
            let (options, mut operands) = split(args, &CHOWN);
            // The owner comes first unless another file's is taken.
            if !CHOWN.has(&options, b"", &["reference"]) && !operands.is_empty() {
                operands.remove(0);
            }
            if CHOWN.has(&options, b"R", &["recursive"]) {
                trees(operands)
            } else {
                replaced(operands)
            }
        }
        "find" => find_files(args),
        "tar" => tar_files(args),
        "rsync" => rsync_files(args),
        "git" => replaced(git_files(args)),
        "curl" => {
            let (options, _) = split(args, &CURL);
            replaced(
                [
                    (b'o', "output"),
                    (b'D', "dump-header"),
                    (b'c', "cookie-jar"),
                    (0, "output-dir"),
                    (0, "trace"),
                    (0, "trace-ascii"),
                    (0, "stderr"),
                    (0, "etag-save"),
                ]
                .into_iter()
                .flat_map(|(short, long)| CURL.values(&options, short, long))
                .filter(|file| file.text != "-")
                .collect(),
            )
        }
        "wget" => {
            let (options, _) = split(args, &WGET);
            let mut files: Vec<Written> = [
                (b'O', "output-document"),
                (b'o', "output-file"),
                (b'P', "directory-prefix"),
            ]
            .into_iter()
            .flat_map(|(short, long)| WGET.values(&options, short, long))
            .filter(|file| file.text != "-")
            .map(Written::replaced)
            .collect();
            files.extend(
                WGET.values(&options, b'a', "append-output")
                    .map(|file| Written {
                        append: true,
                        ..Written::replaced(file)
                    }),
            );
            files
        }
        // An archive's entries land anywhere beneath the folder it is unpacked into.
        "unzip" => trees(UNZIP.values(&split(args, &UNZIP).0, b'd', "").collect()),
        "cp" | "mv" | "ln" | "install" => copied_files(name, args),
        "sed" => {
            let (options, mut operands) = split(args, &SED);
            if !SED.has(&options, b"i", &["in-place"]) {
                return Vec::new();
            }
            // Without -e or -f the first operand is the script, not a file.
            if !SED.has(&options, b"ef", &["expression", "file"]) && !operands.is_empty() {
                operands.remove(0);
            }
            replaced(operands)
        }
        "dd" => args
            .iter()
            .filter_map(|word| {
                let file = word.text.strip_prefix("of=")?;
                Some(Written::replaced(Word {
                    text: file.to_owned(),
                    ..word.clone()
                }))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// What `cp`, `mv`, `ln` and `install` write: the destination, or the target directory
/// (`-t`), and what lands in it: `DIR/NAME` for each source, which is what a copy into a
/// directory writes (`cp -r x/.git .` writes `./.git`), with everything beneath it for a
/// recursive copy or a move. A source ending in `/.` (`cp -a backup/. .`) spills its
/// contents into the directory itself. A move also removes its sources, and everything
/// beneath them.
fn copied_files(name: &str, args: &[Word]) -> Vec<Written> {
    let valued = if name == "install" { &INSTALL } else { &COPY };
    let (options, mut operands) = split(args, valued);
    if name == "install" && valued.has(&options, b"d", &["directory"]) {
        return operands.into_iter().map(Written::replaced).collect();
    }
    let recursive =
        name == "mv" || (name == "cp" && valued.has(&options, b"rRa", &["recursive", "archive"]));
    // The `-t` folder, else the last of two or more operands.
    let target = valued.value(&options, b't', "target-directory");
    let several = operands.len() >= 2;
    let Some(directory) = target.or_else(|| operands.pop_if(|_| several)) else {
        return Vec::new();
    };
    let mut files = vec![Written::replaced(directory.clone())];
    for source in &operands {
        let text = source.text.trim_end_matches('/');
        let landed = if text.ends_with("/.") || text == "." {
            directory.clone()
        } else {
            let base = text.rsplit('/').next().unwrap_or(text);
            if base.is_empty() || base == ".." {
                continue;
            }
            Word {
                text: format!("{}/{base}", directory.text.trim_end_matches('/')),
                ..directory.clone()
            }
        };
        files.push(Written {
            beneath: if recursive {
                Beneath::Everything
            } else {
                Beneath::Nothing
            },
            ..Written::replaced(landed)
        });
        if name == "mv" {
            files.push(Written::tree(source.clone()).on_the_link());
        }
    }
    files
}

/// `chmod`'s files: its operands after the mode, which may look like an option (`-x`); and
/// whether it recurses (`-R`).
fn chmod_files(args: &[Word]) -> (Vec<Word>, bool) {
    let mut files = Vec::new();
    let mut recursive = false;
    let mut mode_seen = false;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        if text == "--" {
            files.extend(words.by_ref().cloned());
            break;
        }
        if text.starts_with("--reference") {
            mode_seen = true;
            if !text.contains('=') {
                words.next();
            }
        } else if text.starts_with("--")
            || (text.len() > 1
                && text.starts_with('-')
                && text[1..].bytes().all(|b| b"cfvR".contains(&b)))
        {
            // --recursive, --verbose, -R, -cfv: flags.
            recursive |= text == "--recursive" || (!text.starts_with("--") && text.contains('R'));
        } else if !mode_seen {
            mode_seen = true;
        } else {
            files.push(word.clone());
        }
    }
    if !mode_seen {
        return (Vec::new(), false);
    }
    (files, recursive)
}

/// What `find` writes: its starting points when it deletes what it finds (`.` when it names
/// none), with what it selects beneath them; and the files its `-fprint`, `-fprint0`,
/// `-fprintf` and `-fls` actions write.
fn find_files(args: &[Word]) -> Vec<Written> {
    // Leading options, then the starting points up to the first word of the expression.
    let mut at = 0;
    let mut follows_links = false;
    // Whether a starting point that is a symbolic link is followed (`-H`, `-L`) or taken as
    // the link itself (`-P`, the default: `find link -delete` removes the link); the last
    // of them wins.
    let mut follows_starts = false;
    while let Some(word) = args.get(at) {
        match word.text.as_str() {
            "-H" => {
                follows_starts = true;
                at += 1;
            }
            "-P" => {
                follows_starts = false;
                at += 1;
            }
            "-L" => {
                follows_links = true;
                follows_starts = true;
                at += 1;
            }
            "-D" => at += 2,
            text if text.starts_with("-O") => at += 1,
            _ => break,
        }
    }
    let starts = args[at.min(args.len())..]
        .iter()
        .take_while(|w| !w.text.starts_with('-') && !matches!(w.text.as_str(), "(" | "!" | ")"))
        .cloned()
        .collect::<Vec<_>>();
    let expression = &args[(at + starts.len()).min(args.len())..];
    let mut files = Vec::new();
    let mut deletes = None;
    let mut words = expression.iter();
    while let Some(word) = words.next() {
        match word.text.as_str() {
            "-delete" => {
                deletes.get_or_insert(word);
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                files.extend(words.next().cloned().map(Written::replaced));
            }
            _ => {}
        }
    }
    let Some(delete) = deletes else {
        return files;
    };
    let beneath = if follows_links {
        Beneath::Everything
    } else {
        find_selection(expression).map_or(Beneath::Everything, Beneath::Selected)
    };
    let starts = if starts.is_empty() {
        vec![Word {
            text: ".".to_owned(),
            ..delete.clone()
        }]
    } else {
        starts
    };
    files.extend(starts.into_iter().map(|start| {
        let written = Written {
            beneath: beneath.clone(),
            ..Written::replaced(start)
        };
        if follows_starts {
            written
        } else {
            written.on_the_link()
        }
    }));
    files
}

/// What `find`'s tests before its first `-delete` select, when the expression is a plain
/// conjunction (see [`FindSelection`]); `None` when it is not.
fn find_selection(expression: &[Word]) -> Option<FindSelection> {
    let mut selection = FindSelection::default();
    let mut before_delete = true;
    let mut words = expression.iter();
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        match text {
            "-o" | "-or" | "!" | "-not" | "(" | ")" | "," | "-prune" => return None,
            "-delete" => before_delete = false,
            "-name" | "-iname" => {
                let glob = words.next()?;
                if before_delete {
                    selection.names.push((glob.text.clone(), text == "-iname"));
                }
            }
            "-type" => {
                let types = words.next()?;
                if before_delete {
                    selection.types.push(
                        types
                            .text
                            .split(',')
                            .filter_map(|t| t.chars().next())
                            .collect(),
                    );
                }
            }
            // Global options: wherever they are written, they hold for the whole walk.
            "-maxdepth" | "-mindepth" => {
                let depth: usize = words.next()?.text.parse().ok()?;
                if text == "-maxdepth" {
                    selection.max_depth = Some(depth);
                } else {
                    selection.min_depth = depth;
                }
            }
            // Their command is read as a command of its own; its words are not tests.
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                for word in words.by_ref() {
                    if word.text == ";" || word.text == "+" {
                        break;
                    }
                }
            }
            // Any other test only narrows what is selected (or is an action): leaving it out
            // counts more entries as deleted, never fewer.
            _ => {}
        }
    }
    Some(selection)
}

/// What `tar` writes: the archive when it creates, appends to, updates or deletes from one;
/// the directory it extracts into (`-C`, else the current one), anywhere beneath; a snapshot
/// file (`-g`); the files it removes after archiving them (`--remove-files`), with what is
/// beneath them.
fn tar_files(args: &[Word]) -> Vec<Written> {
    // Old style: `tar xzf a.tgz dir` is `tar -x -z -f a.tgz dir`.
    let expanded: Vec<Word>;
    let args = match args.first() {
        Some(first)
            if !first.text.starts_with('-')
                && !first.text.is_empty()
                && first.text.bytes().all(|b| b.is_ascii_alphabetic()) =>
        {
            let mut rest = args[1..].iter();
            let mut words = Vec::new();
            for flag in first.text.chars() {
                words.push(Word {
                    text: format!("-{flag}"),
                    ..first.clone()
                });
                if TAR.short.contains(&(flag as u8))
                    && let Some(value) = rest.next()
                {
                    words.push(value.clone());
                }
            }
            words.extend(rest.cloned());
            expanded = words;
            &expanded
        }
        _ => args,
    };
    let (options, operands) = split(args, &TAR);
    let mut files: Vec<Written> = TAR
        .values(&options, b'g', "listed-incremental")
        .map(Written::replaced)
        .collect();
    let archive = TAR.values(&options, b'f', "file").filter(|f| f.text != "-");
    let creates = TAR.has(
        &options,
        b"cruA",
        &[
            "create",
            "append",
            "update",
            "catenate",
            "concatenate",
            "delete",
        ],
    );
    if creates {
        files.extend(archive.map(Written::replaced));
    }
    if TAR.has(&options, b"x", &["extract", "get"]) {
        let into: Vec<Word> = TAR.values(&options, b'C', "directory").collect();
        if into.is_empty() {
            files.push(Written::tree(Word::literal(".")));
        } else {
            files.extend(into.into_iter().map(Written::tree));
        }
    }
    if TAR.has(&options, b"", &["remove-files"]) {
        files.extend(operands.into_iter().map(Written::tree));
    }
    files
}

/// What `rsync` writes: its destination (the last operand, unless on another host) and
/// anything beneath it, the sources it removes files from (`--remove-source-files`), and the
/// files and folders its options name for it to write.
fn rsync_files(args: &[Word]) -> Vec<Written> {
    let (options, operands) = split(args, &RSYNC);
    let local = |w: &Word| {
        !w.text.starts_with("rsync://")
            && w.text
                .split_once(':')
                .is_none_or(|(host, _)| host.contains('/'))
    };
    let mut files: Vec<Word> = [
        (0, "log-file"),
        (0, "write-batch"),
        (0, "only-write-batch"),
        (0, "backup-dir"),
        (b'T', "temp-dir"),
        (0, "partial-dir"),
    ]
    .into_iter()
    .flat_map(|(short, long)| RSYNC.values(&options, short, long))
    .collect();
    files.sort_by(|a, b| a.text.cmp(&b.text));
    files.dedup_by(|a, b| a.text == b.text);
    let mut files: Vec<Written> = files.into_iter().map(Written::replaced).collect();
    if let [sources @ .., destination] = operands.as_slice()
        && !sources.is_empty()
    {
        files.extend(Some(destination.clone()).filter(local).map(Written::tree));
        if RSYNC.has(&options, b"", &["remove-source-files"]) {
            files.extend(
                sources
                    .iter()
                    .filter(|w| local(w))
                    .cloned()
                    .map(Written::tree),
            );
        }
    }
    files
}

/// What `git` writes through its global options: the folders `-C`, `--git-dir` and
/// `--work-tree` point at, unless the subcommand only reads.
fn git_files(args: &[Word]) -> Vec<Word> {
    let at = args
        .iter()
        .scan(false, |value_next, word| {
            let takes = *value_next;
            *value_next = !takes
                && ((word.text == "-C" || word.text == "-c")
                    || word
                        .text
                        .strip_prefix("--")
                        .is_some_and(|long| GIT.long.contains(&long)));
            Some(takes || word.text.starts_with('-'))
        })
        .take_while(|&option| option)
        .count();
    let options = &args[..at];
    match args.get(at) {
        Some(command) if GIT_READS.contains(&command.text.as_str()) => return Vec::new(),
        None => return Vec::new(),
        Some(_) => {}
    }
    [(b'C', "C"), (0, "git-dir"), (0, "work-tree")]
        .into_iter()
        .flat_map(|(short, long)| GIT.values(options, short, long))
        .collect()
}

/// `args` as options (each followed by the value it takes) and operands. Unlike a wrapper's,
/// these programs take options after operands too (GNU programs permute them); `--` ends
/// them.
fn split(args: &[Word], valued: &Valued) -> (Vec<Word>, Vec<Word>) {
    let (mut options, mut operands) = (Vec::new(), Vec::new());
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        if text == "--" {
            operands.extend(words.cloned());
            break;
        }
        let takes_next = if let Some(long) = text.strip_prefix("--") {
            !long.contains('=') && valued.long.contains(&long)
        } else if let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) {
            // A cluster is read up to its first flag that takes a value: the rest of it is
            // the value, or, when that flag ends it, the next word is.
            cluster
                .bytes()
                .position(|flag| valued.short.contains(&flag))
                .is_some_and(|at| at + 1 == cluster.len())
        } else {
            operands.push(word.clone());
            continue;
        };
        options.push(word.clone());
        if takes_next && let Some(value) = words.next() {
            options.push(value.clone());
        }
    }
    (options, operands)
}

#[cfg(test)]
mod tests {
    use super::written_files;
    use crate::runtime::policy::shell::words::Word;

    fn files(line: &str) -> Vec<(String, bool)> {
        let mut words = line.split(' ').map(Word::literal);
        let program = words.next().unwrap().text;
        let args: Vec<Word> = words.collect();
        written_files(&program, &args)
            .into_iter()
            .map(|written| (written.file.text, written.append))
            .collect()
    }

    fn written(line: &str) -> Vec<String> {
        files(line).into_iter().map(|(file, _)| file).collect()
    }

    /// Each write of `line` with whether it follows a link at its target.
    fn following(line: &str) -> Vec<(String, bool)> {
        super::super::CommandLine::analyze(line)
            .writes()
            .iter()
            .map(|write| (write.target.text.clone(), write.follows_link))
            .collect()
    }

    #[test]
    fn removals_moves_and_finds_starting_points_act_on_a_link_unless_told_to_follow_it() {
        let own = |text: &str, follows: bool| (text.to_owned(), follows);
        assert_eq!(following("rm -rf link"), [own("link", false)]);
        for through in ["link/", "link/.", "link/..", "link//"] {
            let line = format!("rm -rf {through}");
            assert_eq!(following(&line), [own(through, true)], "{line}");
        }
        assert_eq!(following("unlink link"), [own("link", false)]);
        assert_eq!(following("rmdir link"), [own("link", false)]);
        assert_eq!(following("find link -delete"), [own("link", false)]);
        assert_eq!(following("find -P link -delete"), [own("link", false)]);
        for follows in [
            "find -H link -delete",
            "find -L link -delete",
            "find -P -L link -delete",
        ] {
            assert_eq!(following(follows), [own("link", true)], "{follows}");
        }
        assert_eq!(following("find -L -P link -delete"), [own("link", false)]);
        // mv moves the link itself; what lands in the destination follows it.
        assert!(following("mv link dest").contains(&own("link", false)));
        assert!(following("mv link dest").contains(&own("dest", true)));
        // Everything else writes through the link.
        assert_eq!(following("echo x > link"), [own("link", true)]);
        assert_eq!(following("chmod 600 link"), [own("link", true)]);
        assert_eq!(following("touch link"), [own("link", true)]);
    }

    #[test]
    fn tee_writes_each_file_and_appends_with_a() {
        assert_eq!(
            written("tee .git/hooks/post-merge"),
            [".git/hooks/post-merge"]
        );
        assert_eq!(
            files("tee -a log out"),
            [("log".into(), true), ("out".into(), true)]
        );
    }

    #[test]
    fn a_copy_or_move_writes_its_destination_or_target_directory() {
        assert_eq!(
            written("cp -r src .git/hooks/post-checkout"),
            [".git/hooks/post-checkout", ".git/hooks/post-checkout/src"]
        );
        assert_eq!(
            written("mv a b c dir"),
            ["dir", "dir/a", "a", "dir/b", "b", "dir/c", "c"]
        );
        assert_eq!(
            written("cp -t .git/hooks a b"),
            [".git/hooks", ".git/hooks/a", ".git/hooks/b"]
        );
        assert_eq!(written("cp --target-directory=out a"), ["out", "out/a"]);
        assert_eq!(written("cp -S .bak a b"), ["b", "b/a"]);
        assert_eq!(
            written("install -m 755 tool bin/tool"),
            ["bin/tool", "bin/tool/tool"]
        );
        assert_eq!(written("install -d x y"), ["x", "y"]);
        assert!(written("cp onlyone").is_empty());
    }

    #[test]
    fn sed_writes_its_files_only_in_place() {
        assert_eq!(
            written("sed -i s/a/b/ .git/description"),
            [".git/description"]
        );
        assert_eq!(written("sed -i.bak -e s/a/b/ f g"), ["f", "g"]);
        assert_eq!(written("sed --in-place s/a/b/ f"), ["f"]);
        assert_eq!(written("sed -Ei s/a/b/ f"), ["f"]);
        assert!(written("sed s/a/b/ f").is_empty());
        assert!(written("sed -e s/i/j/ f").is_empty());
    }

    #[test]
    fn removals_touches_and_dd_name_their_files() {
        assert_eq!(written("rm -rf .git/index build"), [".git/index", "build"]);
        assert_eq!(written("touch -d yesterday a"), ["a"]);
        assert_eq!(written("truncate -s 0 log"), ["log"]);
        assert_eq!(written("dd if=/dev/zero of=.git/x bs=1"), [".git/x"]);
        assert_eq!(written("/bin/rm -- -weird"), ["-weird"]);
    }

    /// Issue 26: deletes and writes named by options are writes.
    #[test]
    fn find_writes_where_it_deletes_and_what_it_prints_to() {
        assert_eq!(written("find .. -maxdepth 2 -name x -delete"), [".."]);
        assert_eq!(written("find -name '*.o' -delete"), ["."]);
        assert_eq!(written("find -L a b -type f -delete"), ["a", "b"]);
        assert_eq!(written("find . -fprint ../list"), ["../list"]);
        assert_eq!(
            written("find . -fprintf ../out %p -fls ../ls"),
            ["../out", "../ls"]
        );
        assert!(written("find .. -name x -print").is_empty());
    }

    #[test]
    fn tar_writes_its_archive_or_where_it_extracts() {
        assert_eq!(written("tar -x -f a.tar -C ../out"), ["../out"]);
        assert_eq!(written("tar -xzf a.tgz --directory=../out"), ["../out"]);
        assert_eq!(written("tar xzf a.tgz -C ../out"), ["../out"]);
        assert_eq!(written("tar -xf a.tar"), ["."]);
        assert_eq!(written("tar -czf ../backup.tgz src"), ["../backup.tgz"]);
        assert_eq!(written("tar cf ../b.tar src"), ["../b.tar"]);
        assert_eq!(written("tar --create --file ../c.tar src"), ["../c.tar"]);
        assert_eq!(written("tar -rf ../c.tar more"), ["../c.tar"]);
        assert_eq!(written("tar -cf - src --remove-files"), ["src"]);
        assert!(written("tar -tf ../a.tar").is_empty());
        assert!(written("tar -cf - src").is_empty());
    }

    #[test]
    fn rsync_writes_its_local_destination() {
        assert_eq!(written("rsync -a src/ ../dest"), ["../dest"]);
        assert_eq!(written("rsync -av -e ssh src host:dest").len(), 0);
        assert_eq!(
            written("rsync -a --remove-source-files ../in/ out"),
            ["out", "../in/"]
        );
        assert_eq!(
            written("rsync -a --log-file=../log src dest"),
            ["../log", "dest"]
        );
        assert!(written("rsync --list-only src").is_empty());
    }

    #[test]
    fn git_writes_where_c_points_unless_it_only_reads() {
        assert_eq!(written("git -C ../other commit -am x"), ["../other"]);
        assert_eq!(
            written("git --git-dir=../r/.git reset --hard"),
            ["../r/.git"]
        );
        assert_eq!(written("git -c user.name=x -C .. push"), [".."]);
        assert!(written("git -C ../other status").is_empty());
        assert!(written("git -C ../other log --oneline").is_empty());
        assert!(written("git commit -m x").is_empty());
    }

    #[test]
    fn a_move_writes_its_sources_too() {
        assert_eq!(written("mv ../x y"), ["y", "y/x", "../x"]);
        assert_eq!(
            written("mv -t dir ../a b"),
            ["dir", "dir/a", "../a", "dir/b", "b"]
        );
        assert_eq!(
            written("ln -s target ../link"),
            ["../link", "../link/target"]
        );
        assert_eq!(written("ln -t ../dir a"), ["../dir", "../dir/a"]);
    }

    #[test]
    fn modes_owners_folders_and_downloads_name_their_files() {
        assert_eq!(written("chmod -R 755 ../bin"), ["../bin"]);
        assert_eq!(written("chmod -x ../script"), ["../script"]);
        assert_eq!(written("chmod --reference=a ../b"), ["../b"]);
        assert_eq!(written("chown -R me:me ../dir"), ["../dir"]);
        assert_eq!(written("mkdir -p -m 700 ../new"), ["../new"]);
        assert_eq!(
            written("curl -sSo ../page.html https://x"),
            ["../page.html"]
        );
        assert_eq!(written("curl -o - https://x").len(), 0);
        assert_eq!(written("curl --output=../a https://x"), ["../a"]);
        assert_eq!(written("wget -O ../f https://x"), ["../f"]);
        assert_eq!(written("wget -P ../dl https://x"), ["../dl"]);
        assert_eq!(written("unzip a.zip -d ../out"), ["../out"]);
    }

    #[test]
    fn other_programs_write_nothing_here() {
        assert!(written("cat a b").is_empty());
        assert!(written("grep -r x .git").is_empty());
    }

    fn beneath(line: &str) -> Vec<(String, super::Beneath)> {
        let mut words = line.split(' ').map(Word::literal);
        let program = words.next().unwrap().text;
        let args: Vec<Word> = words.collect();
        written_files(&program, &args)
            .into_iter()
            .map(|written| (written.file.text, written.beneath))
            .collect()
    }

    fn trees(line: &str) -> Vec<String> {
        beneath(line)
            .into_iter()
            .filter(|(_, beneath)| *beneath == super::Beneath::Everything)
            .map(|(file, _)| file)
            .collect()
    }

    #[test]
    fn recursive_removals_and_changes_reach_everything_beneath() {
        for line in [
            "rm -rf .",
            "rm -r .",
            "rm -R .",
            "rm --recursive .",
            "rm -fr .",
        ] {
            assert_eq!(trees(line), ["."], "{line}");
        }
        assert!(trees("rm -f a").is_empty());
        assert_eq!(trees("chmod -R 000 ."), ["."]);
        assert!(trees("chmod 644 a").is_empty());
        assert_eq!(trees("chown -R ada ."), ["."]);
        assert_eq!(trees("tar -xf a.tar"), ["."]);
        assert_eq!(trees("tar xf a.tar -C out"), ["out"]);
        assert_eq!(trees("unzip a.zip -d out"), ["out"]);
        assert_eq!(trees("rsync -a backup/ ."), ["."]);
    }

    #[test]
    fn a_copy_into_a_directory_writes_each_sources_name_there() {
        // `cp -r x/.git .` writes `./.git`, everything beneath it.
        assert_eq!(trees("cp -r x/.git ."), ["./.git"]);
        assert_eq!(trees("cp -a backup/. ."), ["."]);
        // Files copied, not trees: the name alone.
        assert!(trees("cp x/config .git").is_empty());
        // A move takes its sources, and all beneath them, away.
        assert_eq!(trees("mv sub other"), ["other/sub", "sub"]);
    }

    #[test]
    fn find_deletes_what_its_tests_select_beneath_its_starting_points() {
        let selected = |line: &str| match beneath(line).pop() {
            Some((_, super::Beneath::Selected(selection))) => selection,
            other => panic!("{line}: {other:?}"),
        };
        let objects = selected("find . -name *.o -type f -delete");
        assert!(objects.selects("main.o", 'f', 3));
        assert!(!objects.selects("config", 'f', 1));
        assert!(!objects.selects("lib.o", 'd', 1));
        assert!(selected("find . -iname *.O -delete").selects("main.o", 'f', 1));
        let shallow = selected("find . -maxdepth 1 -mindepth 1 -delete");
        assert!(shallow.selects(".git", 'd', 1));
        assert!(!shallow.selects("config", 'f', 2));
        assert!(!shallow.selects(".", 'd', 0));
        // A test after -delete does not narrow what it deletes.
        assert!(selected("find . -delete -name x").selects("config", 'f', 2));
        // A test not read here narrows further: leaving it out selects more.
        assert!(selected("find . -newer stamp -delete").selects("config", 'f', 2));
        // Operators and links: everything.
        for line in [
            "find . -name a -o -name b -delete",
            "find . ! -name keep -delete",
            "find . -path ./.git -prune -o -delete",
            "find -L . -name x -delete",
        ] {
            assert_eq!(
                beneath(line).pop().map(|(_, beneath)| beneath),
                Some(super::Beneath::Everything),
                "{line}"
            );
        }
    }
}

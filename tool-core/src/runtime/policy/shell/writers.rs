//! The files well-known programs write or remove through their arguments rather than through
//! a redirection: `tee FILE`, `cp SRC DEST`, `sed -i .. FILE`, `rm FILE`, `dd of=FILE`. Each is
//! a write of the command line like `> FILE`, so the workspace boundary and the protected
//! paths (`.git`) judge it: `echo x | tee .git/hooks/post-merge` is refused as
//! `echo x > .git/hooks/post-merge` is.
//!
//! This reads the common programs by their documented options; it is not a sandbox. A program
//! not listed here (an interpreter, a build tool) writes where this cannot see, as it always
//! could: the kernel sandbox of `run_shell` is what bounds those.

use super::words::Word;
use super::wrappers::Valued;

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

/// The files `program` (its name, or a path to it) writes or removes, given its arguments,
/// each with whether it is appended to.
pub(super) fn written_files(program: &str, args: &[Word]) -> Vec<(Word, bool)> {
    let name = program.rsplit('/').next().unwrap_or(program);
    let replaced = |words: Vec<Word>| words.into_iter().map(|word| (word, false)).collect();
    match name {
        "tee" => {
            let (options, files) = split(args, &NONE);
            let append = NONE.has(&options, b"a", &["append"]);
            files.into_iter().map(|word| (word, append)).collect()
        }
        "touch" => replaced(split(args, &TOUCH).1),
        "truncate" => replaced(split(args, &TRUNCATE).1),
        "rm" | "rmdir" | "unlink" => replaced(split(args, &NONE).1),
        "shred" => replaced(split(args, &SHRED).1),
        "cp" | "mv" | "ln" | "install" => {
            let valued = if name == "install" { &INSTALL } else { &COPY };
            let (options, operands) = split(args, valued);
            if let Some(directory) = valued.value(&options, b't', "target-directory") {
                return vec![(directory, false)];
            }
            if name == "install" && valued.has(&options, b"d", &["directory"]) {
                return replaced(operands);
            }
            match operands.as_slice() {
                [_, .., destination] => vec![(destination.clone(), false)],
                _ => Vec::new(),
            }
        }
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
                Some((
                    Word {
                        text: file.to_owned(),
                        ..word.clone()
                    },
                    false,
                ))
            })
            .collect(),
        _ => Vec::new(),
    }
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
            .map(|(word, append)| (word.text, append))
            .collect()
    }

    fn written(line: &str) -> Vec<String> {
        files(line).into_iter().map(|(file, _)| file).collect()
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
            [".git/hooks/post-checkout"]
        );
        assert_eq!(written("mv a b c dir"), ["dir"]);
        assert_eq!(written("cp -t .git/hooks a b"), [".git/hooks"]);
        assert_eq!(written("cp --target-directory=out a"), ["out"]);
        assert_eq!(written("cp -S .bak a b"), ["b"]);
        assert_eq!(written("install -m 755 tool bin/tool"), ["bin/tool"]);
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

    #[test]
    fn other_programs_write_nothing_here() {
        assert!(written("cat a b").is_empty());
        assert!(written("grep -r x .git").is_empty());
    }
}

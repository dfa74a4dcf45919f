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

/// The files `program` (its name, or a path to it) writes or removes, given its arguments,
/// each with whether it is appended to.
pub(super) fn written_files(program: &str, args: &[Word]) -> Vec<(Word, bool)> {
    let name = program.rsplit('/').next().unwrap_or(program);
    let replaced = |words: Vec<Word>| words.into_iter().map(|word| (word, false)).collect();
    match name {
        "tee" => {
            let (options, files) = split(args, b"", &[]);
            let append = has(&options, b'a', "append");
            files.into_iter().map(|word| (word, append)).collect()
        }
        "touch" => replaced(split(args, b"dtr", &["date", "reference"]).1),
        "truncate" => replaced(split(args, b"sr", &["size", "reference"]).1),
        "rm" | "rmdir" | "unlink" => replaced(split(args, b"", &[]).1),
        "shred" => replaced(split(args, b"ns", &["iterations", "size", "random-source"]).1),
        "cp" | "mv" | "ln" | "install" => {
            let valued: &[u8] = if name == "install" { b"gmoStC" } else { b"St" };
            let long = ["suffix", "target-directory", "group", "mode", "owner"];
            let (options, operands) = split(args, valued, &long);
            if let Some(directory) = value(&options, b't', "target-directory") {
                return vec![(directory, false)];
            }
            if name == "install" && has(&options, b'd', "directory") {
                return replaced(operands);
            }
            match operands.as_slice() {
                [_, .., destination] => vec![(destination.clone(), false)],
                _ => Vec::new(),
            }
        }
        "sed" => {
            let (options, mut operands) =
                split(args, b"efl", &["expression", "file", "line-length"]);
            let in_place = options.iter().any(|word| {
                let text = word.text.as_str();
                text.starts_with("--in-place")
                    || text
                        .strip_prefix('-')
                        .filter(|cluster| !cluster.starts_with('-'))
                        .is_some_and(|cluster| short_flags(cluster, b"efl").contains(&b'i'))
            });
            if !in_place {
                return Vec::new();
            }
            // Without -e or -f the first operand is the script, not a file.
            if !options.iter().any(|word| gives_script(&word.text)) && !operands.is_empty() {
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

/// `args` as options (with the values they take) and operands. Options may come after
/// operands (GNU programs permute them); `--` ends them. `valued`: the short options that take
/// a value (in the next word unless attached); `long_valued`: the long ones (in the next word
/// unless written `--name=value`).
fn split(args: &[Word], valued: &[u8], long_valued: &[&str]) -> (Vec<Word>, Vec<Word>) {
    let (mut options, mut operands) = (Vec::new(), Vec::new());
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        if text == "--" {
            operands.extend(words.cloned());
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            options.push(word.clone());
            if !long.contains('=')
                && long_valued.contains(&long)
                && let Some(value) = words.next()
            {
                options.push(value.clone());
            }
            continue;
        }
        match text.strip_prefix('-').filter(|cluster| !cluster.is_empty()) {
            Some(cluster) => {
                options.push(word.clone());
                let flags = short_flags(cluster, valued);
                // A value-taking flag last in its cluster takes the next word.
                if flags.last().is_some_and(|flag| valued.contains(flag))
                    && flags.len() == cluster.len()
                    && let Some(value) = words.next()
                {
                    options.push(value.clone());
                }
            }
            None => operands.push(word.clone()),
        }
    }
    (options, operands)
}

/// The flags of a short-option cluster, up to and including the first that takes a value
/// (the rest of the cluster is that value).
fn short_flags(cluster: &str, valued: &[u8]) -> Vec<u8> {
    let mut flags = Vec::new();
    for flag in cluster.bytes() {
        flags.push(flag);
        if valued.contains(&flag) {
            break;
        }
    }
    flags
}

/// Whether `-x` (in a cluster) or `--long` is among `options`.
fn has(options: &[Word], short: u8, long: &str) -> bool {
    options.iter().any(|word| {
        let text = word.text.as_str();
        match text.strip_prefix("--") {
            Some(name) => name.split_once('=').map_or(name, |(name, _)| name) == long,
            None => text
                .strip_prefix('-')
                .is_some_and(|cluster| cluster.as_bytes().contains(&short)),
        }
    })
}

/// The value of `-x VALUE`, `-xVALUE`, `--long VALUE` or `--long=VALUE` among `options` (as
/// [`split`] gave them: a value follows its option).
fn value(options: &[Word], short: u8, long: &str) -> Option<Word> {
    let with_text = |word: &Word, text: &str| Word {
        text: text.to_owned(),
        ..word.clone()
    };
    let mut words = options.iter();
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        if let Some(rest) = text.strip_prefix("--") {
            match rest.split_once('=') {
                Some((name, value)) if name == long => return Some(with_text(word, value)),
                None if rest == long => return words.next().cloned(),
                _ => continue,
            }
        }
        let Some(cluster) = text.strip_prefix('-') else {
            continue;
        };
        if let Some(at) = cluster.bytes().position(|flag| flag == short) {
            let attached = &cluster[at + 1..];
            return if attached.is_empty() {
                words.next().cloned()
            } else {
                Some(with_text(word, attached))
            };
        }
    }
    None
}

/// `-e`, `-f` (alone or in a cluster), `--expression`, `--file`: sed is given its script.
fn gives_script(text: &str) -> bool {
    if let Some(name) = text.strip_prefix("--") {
        let name = name.split_once('=').map_or(name, |(name, _)| name);
        return matches!(name, "expression" | "file");
    }
    text.strip_prefix('-').is_some_and(|cluster| {
        short_flags(cluster, b"efl")
            .iter()
            .any(|f| matches!(f, b'e' | b'f'))
    })
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

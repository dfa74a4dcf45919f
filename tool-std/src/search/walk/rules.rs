//! The ignore rules a directory's entries are judged by, and a listing walked by them, for
//! `list_dir`.
//!
//! The rules are ripgrep's (its `ignore` crate, which `glob`, `grep` and `repo_map` walk
//! with, so that every tool hides the same files): the `.ignore`, `.gitignore` and
//! `.git/info/exclude` of the directory and of every directory above it, then git's global
//! excludes file; any `.ignore` match wins over any `.gitignore` match, which wins over the
//! excludes, the deepest directory first within each kind; a name starting with `.` is hidden
//! unless a rule lets it through. `.gitignore` counts outside a git repository too.
//!
//! Why not that crate's walker: it compiles every rule file from the directory up to `/` on
//! every walk, and reads the listing of each directory it reaches, even one it will not enter,
//! to look for rule files. A listing one level deep then reads ten directories instead of one.
//! Here each rule file is compiled once and kept while its stamp (size, modification time,
//! inode) is unchanged; a listing reads the directories it shows, and checks the stamps of
//! the rule files above them.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs::{self, Metadata};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use tool_core::Workspace;

use super::{HeldBack, Kind};

/// One entry of a [`list`]: shown, or a directory the rules hide (listed so that the model
/// knows it is there; its files are not walked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    /// The absolute path.
    pub path: PathBuf,
    /// How deep below the listed directory (its children are 1).
    pub depth: usize,
    pub kind: Kind,
    /// False for a directory that is ignored or hidden (never for a file: those are left out).
    pub shown: bool,
}

/// The entries below `root` (an absolute directory), `depth` levels deep, judged by the rules:
/// shown entries, and the ignored or hidden directories (except `.git`), sorted by path.
/// Symbolic links are listed, never followed; a directory that cannot be read is left out.
///
/// Each directory is listed through `ws` as a walk's entry ([`Workspace::read_entry_dir`]:
/// no link followed below the root), and an entry the workspace's access rules deny is left
/// out and counted in `held_back`. The rule files of directories above the workspace's roots
/// are looked for again only every [`OUTSIDE_KEPT`], as git's global excludes are (see
/// [`Rules::above`]).
pub(crate) fn list(ws: &Workspace, root: &Path, depth: usize, held_back: &HeldBack) -> Vec<Listed> {
    let mut listed = Vec::new();
    let walk = Walk { ws, held_back };
    if let Some(children) = walk.read(root) {
        let rules = Rules::above(root, ws.roots()).with_dir(root, &children);
        walk.visit(&rules, root, children, 1, depth, &mut listed);
    }
    listed
}

/// A directory's entries: name and kind.
type Children = Vec<(std::ffi::OsString, Kind)>;

/// The entries of `dir`, sorted by name. Visited in that order, depth first, they come out
/// sorted by path (`a`, `a/x`, `a.rs`: paths compare component by component), without
/// sorting whole paths afterwards, which parses each into components at every comparison.
struct Walk<'a> {
    ws: &'a Workspace,
    held_back: &'a HeldBack,
}

impl Walk<'_> {
    fn read(&self, dir: &Path) -> Option<Children> {
        let mut children: Children = self
            .ws
            .read_entry_dir(dir)
            .ok()?
            .filter_map(Result::ok)
            .filter(|entry| self.held_back.admits(self.ws, &dir.join(entry.file_name())))
            .map(|entry| {
                let kind = match entry.file_type() {
                    Ok(kind) if kind.is_symlink() => Kind::Link,
                    Ok(kind) if kind.is_dir() => Kind::Dir,
                    _ => Kind::File,
                };
                (entry.file_name(), kind)
            })
            .collect();
        children.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
        Some(children)
    }

    fn visit(
        &self,
        rules: &Rules,
        dir: &Path,
        children: Children,
        level: usize,
        depth: usize,
        listed: &mut Vec<Listed>,
    ) {
        for (name, kind) in children {
            let path = dir.join(&name);
            let is_dir = kind == Kind::Dir;
            let shown = rules.admits(&path, &name, is_dir);
            if !shown && (!is_dir || name == ".git") {
                continue;
            }
            listed.push(Listed {
                path: path.clone(),
                depth: level,
                kind,
                shown,
            });
            if shown
                && is_dir
                && level < depth
                && let Some(grandchildren) = self.read(&path)
            {
                let rules = rules.with_dir(&path, &grandchildren);
                self.visit(&rules, &path, grandchildren, level + 1, depth, listed);
            }
        }
    }
}

/// The rule files of one directory.
#[derive(Clone)]
struct Level {
    ignore: Option<Arc<Gitignore>>,
    gitignore: Option<Arc<Gitignore>>,
    exclude: Option<Arc<Gitignore>>,
}

impl Level {
    /// The rule files of `dir`, found by looking for them (only for those its entries hold:
    /// see [`RuleFiles::in_dir`]).
    fn of(dir: &Path) -> Level {
        let has = RuleFiles::in_dir(dir);
        Level {
            ignore: has
                .ignore
                .then(|| compiled(dir, &dir.join(".ignore")))
                .flatten(),
            gitignore: has
                .gitignore
                .then(|| compiled(dir, &dir.join(".gitignore")))
                .flatten(),
            exclude: has.git.then(|| exclude(dir)).flatten(),
        }
    }
}

/// Which of the names that hold rules a directory's entries include.
#[derive(Clone, Copy)]
struct RuleFiles {
    ignore: bool,
    gitignore: bool,
    git: bool,
}

impl RuleFiles {
    /// The rule files `dir` holds. A directory's stamp changes when an entry is added,
    /// removed or renamed, so while it is unchanged the names it holds are those it held:
    /// one `stat` of the directory instead of one for each name (a listing looks in every
    /// directory up to the workspace root, and most hold none). The files found are still
    /// checked by their own stamps, which an edit in place changes.
    fn in_dir(dir: &Path) -> RuleFiles {
        static KNOWN: LazyLock<Mutex<HashMap<PathBuf, (Stamp, RuleFiles)>>> =
            LazyLock::new(|| Mutex::new(HashMap::new()));
        let look = || RuleFiles {
            ignore: dir.join(".ignore").exists(),
            gitignore: dir.join(".gitignore").exists(),
            git: dir.join(".git").exists(),
        };
        let Ok(metadata) = fs::metadata(dir) else {
            return look();
        };
        let stamp = Stamp::of(&metadata);
        {
            let known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((known_stamp, files)) = known.get(dir)
                && *known_stamp == stamp
            {
                return *files;
            }
        }
        let files = look();
        if stamp.settled() {
            keep(&KNOWN, dir.to_owned(), (stamp, files));
        }
        files
    }
}

/// How long the rule files found in a directory above the workspace are kept before they are
/// looked for again. Those directories are outside what the tools edit; a rule file added or
/// changed there counts within this time, as a change to git's global excludes does.
const OUTSIDE_KEPT: Duration = GLOBAL_KEPT;

/// [`Level::of`] a directory above the workspace, looked for at most every [`OUTSIDE_KEPT`].
fn outside_level(dir: &Path) -> Level {
    static OUTSIDE: LazyLock<Mutex<HashMap<PathBuf, (Instant, Level)>>> =
        LazyLock::new(|| Mutex::new(HashMap::new()));
    {
        let outside = OUTSIDE.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((found, level)) = outside.get(dir)
            && found.elapsed() < OUTSIDE_KEPT
        {
            return level.clone();
        }
    }
    let level = Level::of(dir);
    keep(&OUTSIDE, dir.to_owned(), (Instant::now(), level.clone()));
    level
}

/// The rules in force in a directory: its own and its ancestors', the deepest last.
#[derive(Clone)]
struct Rules {
    levels: Vec<Level>,
    global: Arc<Gitignore>,
}

impl Rules {
    /// The rules of the directories strictly above `dir`, found by looking for their files:
    /// each call for the directories inside the `workspace` roots, which the agent edits, and
    /// every [`OUTSIDE_KEPT`] for those above the roots (three probes a directory, `/` and
    /// `/home` and the like, on every listing otherwise).
    fn above(dir: &Path, workspace: &[PathBuf]) -> Rules {
        let mut levels: Vec<Level> = dir
            .ancestors()
            .skip(1)
            .map(|ancestor| {
                if workspace.iter().any(|root| ancestor.starts_with(root)) {
                    Level::of(ancestor)
                } else {
                    outside_level(ancestor)
                }
            })
            .collect();
        levels.reverse();
        Rules {
            levels,
            global: global(),
        }
    }

    /// These rules with those of `dir` (a child of the last directory), whose entries are
    /// `children`: only the rule files the listing holds are looked at.
    fn with_dir(&self, dir: &Path, children: &Children) -> Rules {
        let has = |file: &str| children.iter().any(|(name, _)| name == file);
        let level = Level {
            ignore: has(".ignore")
                .then(|| compiled(dir, &dir.join(".ignore")))
                .flatten(),
            gitignore: has(".gitignore")
                .then(|| compiled(dir, &dir.join(".gitignore")))
                .flatten(),
            exclude: has(".git").then(|| exclude(dir)).flatten(),
        };
        let mut rules = self.clone();
        rules.levels.push(level);
        rules
    }

    /// Whether the entry at `path` (named `name`) is shown: not ignored, and not hidden unless
    /// a rule lets it through.
    fn admits(&self, path: &Path, name: &OsStr, is_dir: bool) -> bool {
        let deepest_first = || self.levels.iter().rev();
        let first = |pick: fn(&Level) -> Option<&Arc<Gitignore>>| {
            deepest_first()
                .filter_map(pick)
                .map(|rules| rules.matched(path, is_dir))
                .find(|verdict| !verdict.is_none())
        };
        let verdict = first(|level| level.ignore.as_ref())
            .or_else(|| first(|level| level.gitignore.as_ref()))
            .or_else(|| first(|level| level.exclude.as_ref()))
            .unwrap_or_else(|| self.global.matched(path, is_dir));
        match verdict {
            Match::Ignore(_) => false,
            Match::Whitelist(_) => true,
            Match::None => !name.as_encoded_bytes().starts_with(b"."),
        }
    }
}

/// `.git/info/exclude` of the repository whose root is `dir`, if `dir` has a `.git` (a
/// directory, or a file naming the git directory, as a worktree's does).
fn exclude(dir: &Path) -> Option<Arc<Gitignore>> {
    let dot_git = dir.join(".git");
    let metadata = fs::metadata(&dot_git).ok()?;
    let git_dir = if metadata.is_file() {
        common_dir(&dot_git)?
    } else {
        dot_git
    };
    compiled(dir, &git_dir.join("info/exclude"))
}

/// The common git directory of a worktree whose `.git` file is `dot_git`: the `gitdir:` it
/// names, then that directory's `commondir` (relative to it, or absolute).
fn common_dir(dot_git: &Path) -> Option<PathBuf> {
    let text = fs::read_to_string(dot_git).ok()?;
    let git_dir = PathBuf::from(text.lines().next()?.strip_prefix("gitdir: ")?);
    let common = fs::read_to_string(git_dir.join("commondir")).ok()?;
    let common = common.lines().next()?;
    Some(if common.starts_with('.') {
        git_dir.join(common)
    } else {
        PathBuf::from(common)
    })
}

/// What a rule file's stamp says about its content: unchanged while the stamp is.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
    device: u64,
}

impl Stamp {
    fn of(metadata: &Metadata) -> Stamp {
        Stamp {
            len: metadata.len(),
            modified: metadata.modified().ok(),
            inode: metadata.ino(),
            device: metadata.dev(),
        }
    }

    /// Whether what it stamps last changed at least [`SETTLED`] ago, so that a change now
    /// would change the stamp.
    fn settled(&self) -> bool {
        self.modified
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age >= SETTLED)
    }
}

/// A file or directory changed this recently may change again within the file system's
/// timestamp granularity without its stamp changing (git's "racily clean" entries): it is
/// read again on each use until it is older than this.
const SETTLED: Duration = Duration::from_secs(2);

/// At most this many entries are kept in each cache here; past it the cache starts again.
const CACHE_LIMIT: usize = 4096;

/// Puts `value` in `cache` under `key`, emptying the cache first when it holds
/// [`CACHE_LIMIT`] entries (a walk over many trees must not grow it without bound).
fn keep<K: std::hash::Hash + Eq, V>(cache: &Mutex<HashMap<K, V>>, key: K, value: V) {
    let mut cache = cache.lock().unwrap_or_else(PoisonError::into_inner);
    if cache.len() >= CACHE_LIMIT {
        cache.clear();
    }
    cache.insert(key, value);
}

struct Cached {
    stamp: Stamp,
    rules: Arc<Gitignore>,
}

/// Compiled rule files by (matcher root, file).
static CACHE: LazyLock<Mutex<HashMap<(PathBuf, PathBuf), Cached>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The rules of `file`, matched relative to `root`; `None` when there is no such file (or it
/// cannot be read, as the walkers treat it).
fn compiled(root: &Path, file: &Path) -> Option<Arc<Gitignore>> {
    let metadata = fs::metadata(file).ok().filter(Metadata::is_file)?;
    let stamp = Stamp::of(&metadata);
    let key = (root.to_owned(), file.to_owned());
    {
        let cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(cached) = cache.get(&key).filter(|cached| cached.stamp == stamp) {
            return Some(Arc::clone(&cached.rules));
        }
    }
    let mut builder = GitignoreBuilder::new(root);
    // A line that is not a valid glob is skipped and the others kept, as ripgrep does.
    let _ = builder.add(file);
    let rules = Arc::new(builder.build().unwrap_or_else(|_| Gitignore::empty()));
    if stamp.settled() {
        keep(
            &CACHE,
            key,
            Cached {
                stamp,
                rules: Arc::clone(&rules),
            },
        );
    }
    Some(rules)
}

/// How long git's global excludes are kept before git's configuration is read again (to find
/// the file, which `core.excludesFile` may move).
const GLOBAL_KEPT: Duration = Duration::from_secs(2);

/// Git's global excludes (`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`).
fn global() -> Arc<Gitignore> {
    static GLOBAL: Mutex<Option<(Instant, Arc<Gitignore>)>> = Mutex::new(None);
    let mut global = GLOBAL.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((read, rules)) = global.as_ref()
        && read.elapsed() < GLOBAL_KEPT
    {
        return Arc::clone(rules);
    }
    let rules = Arc::new(Gitignore::global().0);
    *global = Some((Instant::now(), Arc::clone(&rules)));
    rules
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::walk::{builder, entries};

    /// Writes `files` (path, content) under a new directory.
    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, content) in files {
            let path = dir.path().join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, content).unwrap();
        }
        dir
    }

    /// The shown entries of [`list`], as paths relative to `root`.
    fn shown(root: &Path, depth: usize) -> Vec<String> {
        list(
            &Workspace::new(root).unwrap(),
            root,
            depth,
            &HeldBack::default(),
        )
        .into_iter()
        .filter(|entry| entry.shown)
        .map(|entry| relative(root, &entry.path))
        .collect()
    }

    /// What ripgrep's walker admits, as paths relative to `root`.
    fn walker(root: &Path, depth: usize) -> Vec<String> {
        let ws = Workspace::new(root).unwrap();
        let mut paths: Vec<String> = entries(&builder(&ws, root, Some(depth), false, false).0)
            .into_iter()
            .map(|entry| relative(root, &entry.path))
            .collect();
        paths.sort();
        paths
    }

    fn relative(root: &Path, path: &Path) -> String {
        path.strip_prefix(root).unwrap().display().to_string()
    }

    /// Trees whose rules meet each of the precedence cases.
    fn trees() -> Vec<tempfile::TempDir> {
        vec![
            // Nested .gitignore with a negation, a directory pattern, an anchored pattern.
            tree(&[
                (".gitignore", "*.log\n/build/\n!keep.log\n"),
                ("a.log", ""),
                ("keep.log", ""),
                ("build/out.o", ""),
                ("src/build/x.rs", ""),
                ("src/.gitignore", "!b.log\ngen/\n"),
                ("src/b.log", ""),
                ("src/c.log", ""),
                ("src/gen/g.rs", ""),
                ("src/main.rs", ""),
            ]),
            // .ignore wins over .gitignore at any depth; hidden files, one let through.
            tree(&[
                (".ignore", "!wanted.tmp\n"),
                ("sub/.gitignore", "*.tmp\n!.config\n"),
                ("sub/wanted.tmp", ""),
                ("sub/other.tmp", ""),
                ("sub/.config", ""),
                ("sub/.secret", ""),
                (".hidden/file", ""),
            ]),
            // A repository's exclude file, and a rule file above the repository.
            tree(&[
                (".gitignore", "*.bak\n"),
                ("repo/.git/info/exclude", "local/\n"),
                ("repo/local/x", ""),
                ("repo/y.bak", ""),
                ("repo/z.rs", ""),
            ]),
        ]
    }

    #[test]
    fn a_listing_shows_what_ripgreps_walker_admits() {
        for dir in trees() {
            for depth in 1..=3 {
                assert_eq!(
                    shown(dir.path(), depth),
                    walker(dir.path(), depth),
                    "depth {depth} in {:?}",
                    dir.path()
                );
            }
            // Listed from below, the rules of the directories above apply.
            for sub in ["src", "sub", "repo"] {
                let below = dir.path().join(sub);
                if below.is_dir() {
                    assert_eq!(shown(&below, 2), walker(&below, 2), "from {sub}");
                }
            }
        }
    }

    #[test]
    fn a_rule_file_added_inside_the_workspace_counts_at_once_above_it_within_outside_kept() {
        let dir = tree(&[("workspace/sub/a.txt", ""), ("workspace/sub/b.txt", "")]);
        let workspace = dir.path().join("workspace");
        let sub = workspace.join("sub");
        let shown = |sub: &Path| -> Vec<String> {
            list(
                &Workspace::new(&workspace).unwrap(),
                sub,
                1,
                &HeldBack::default(),
            )
            .into_iter()
            .map(|entry| relative(sub, &entry.path))
            .collect()
        };
        assert_eq!(shown(&sub), ["a.txt", "b.txt"]);
        fs::write(workspace.join(".gitignore"), "a.txt\n").unwrap();
        assert_eq!(
            shown(&sub),
            ["b.txt"],
            "the workspace root's rules: at once"
        );
        fs::write(dir.path().join(".gitignore"), "b.txt\n").unwrap();
        std::thread::sleep(OUTSIDE_KEPT + Duration::from_millis(100));
        assert_eq!(
            shown(&sub),
            Vec::<String>::new(),
            "the rules above it, once looked for again"
        );
    }

    /// Sets `path`'s modification time a minute back: old enough for its stamp to be kept.
    fn age(path: &Path) {
        fs::File::open(path)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(60))
            .unwrap();
    }

    #[test]
    fn a_rule_file_added_to_or_edited_in_a_known_directory_above_counts_at_once() {
        let dir = tree(&[("sub/deeper/a.log", ""), ("sub/deeper/b.tmp", "")]);
        let workspace = dir.path().to_owned();
        let (sub, deeper) = (workspace.join("sub"), workspace.join("sub/deeper"));
        let shown = || -> Vec<String> {
            list(
                &Workspace::new(&workspace).unwrap(),
                &deeper,
                1,
                &HeldBack::default(),
            )
            .into_iter()
            .map(|entry| relative(&deeper, &entry.path))
            .collect()
        };
        age(&workspace);
        age(&sub);
        // Both directories known to hold no rule file.
        assert_eq!(shown(), ["a.log", "b.tmp"]);
        assert_eq!(shown(), ["a.log", "b.tmp"]);
        fs::write(sub.join(".gitignore"), "*.log\n").unwrap();
        assert_eq!(shown(), ["b.tmp"], "a rule file added");
        age(&sub);
        age(&sub.join(".gitignore"));
        assert_eq!(shown(), ["b.tmp"]);
        // Edited in place: the directory's entries, and so its stamp, stay as they were.
        fs::write(sub.join(".gitignore"), "*.tmp\n").unwrap();
        age(&sub);
        assert_eq!(shown(), ["a.log"], "a rule file edited in place");
        fs::remove_file(sub.join(".gitignore")).unwrap();
        assert_eq!(shown(), ["a.log", "b.tmp"], "a rule file removed");
    }

    #[test]
    fn a_listing_comes_out_sorted_by_path() {
        let dir = tree(&[
            ("a/x", ""),
            ("a/b/y", ""),
            ("a.rs", ""),
            ("a-b", ""),
            ("a b/z", ""),
            ("B", ""),
            ("ab", ""),
        ]);
        let listed: Vec<PathBuf> = list(
            &Workspace::new(dir.path()).unwrap(),
            dir.path(),
            3,
            &HeldBack::default(),
        )
        .into_iter()
        .map(|entry| entry.path)
        .collect();
        let mut sorted = listed.clone();
        sorted.sort();
        assert_eq!(listed, sorted);
        assert_eq!(listed.len(), 10);
    }

    #[test]
    fn ignored_and_hidden_directories_are_listed_as_such_but_not_git() {
        let dir = tree(&[
            (".gitignore", "target/\n"),
            ("target/debug/x", ""),
            (".cache/y", ""),
            (".git/HEAD", ""),
            ("src/lib.rs", ""),
        ]);
        let hidden: Vec<String> = list(
            &Workspace::new(dir.path()).unwrap(),
            dir.path(),
            2,
            &HeldBack::default(),
        )
        .into_iter()
        .filter(|entry| !entry.shown)
        .map(|entry| relative(dir.path(), &entry.path))
        .collect();
        assert_eq!(hidden, [".cache", "target"]);
    }

    #[test]
    fn a_changed_rule_file_is_read_again() {
        let dir = tree(&[(".gitignore", "a.txt\n"), ("a.txt", ""), ("b.txt", "")]);
        let gitignore = dir.path().join(".gitignore");
        // Old enough to be cached.
        let old = SystemTime::now() - Duration::from_secs(60);
        fs::File::options()
            .write(true)
            .open(&gitignore)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(shown(dir.path(), 1), ["b.txt"]);
        // Same size, same modification time: only the inode tells (an editor's atomic save).
        let replacement = dir.path().join("new");
        fs::write(&replacement, "b.txt\n").unwrap();
        fs::File::options()
            .write(true)
            .open(&replacement)
            .unwrap()
            .set_modified(old)
            .unwrap();
        fs::rename(&replacement, &gitignore).unwrap();
        assert_eq!(shown(dir.path(), 1), ["a.txt"]);
        // Rewritten in place just now: too fresh to trust its stamp, compiled again.
        fs::write(&gitignore, "*.txt\n").unwrap();
        assert!(shown(dir.path(), 1).is_empty());
    }

    #[test]
    fn symbolic_links_are_listed_not_followed() {
        let dir = tree(&[("real/file", "")]);
        std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link")).unwrap();
        let listed = list(
            &Workspace::new(dir.path()).unwrap(),
            dir.path(),
            3,
            &HeldBack::default(),
        );
        let link = listed
            .iter()
            .find(|entry| entry.path.ends_with("link"))
            .unwrap();
        assert_eq!(link.kind, Kind::Link);
        assert!(
            !listed
                .iter()
                .any(|entry| entry.path.parent() == Some(link.path.as_path()))
        );
    }
}

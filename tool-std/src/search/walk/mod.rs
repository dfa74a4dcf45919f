//! The walking engine under `glob`, `grep`, `repo_map` and `list_dir`: a tree walked as ripgrep walks it (its own
//! `ignore` crate: `.gitignore`, `.ignore` and hidden files respected, even outside a git
//! repository), never following a symbolic link, so a walk that starts inside the workspace
//! stays inside it; and paths shown relative to the workspace root. `list_dir` lists by the
//! same rules through [`rules`], which keeps them compiled between calls.
//!
//! The workspace's access rules (the policy's `Read(..)` deny rules) hold in every walk: an
//! entry they deny is skipped, a directory they deny is not entered, and [`HeldBack`] counts
//! both so the reply can say so; a walk of a directory they cover whole is refused
//! ([`root`]). What a walk found is then opened or stat'ed with
//! [`Workspace::open_entry`] and [`Workspace::entry_metadata`], which follow no symlink below
//! the root: a directory swapped for a link after the walk passed makes them fail, not read
//! what the link points to.

pub(crate) mod rules;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use ignore::WalkBuilder;
use tool_core::workspace::Access;
use tool_core::{ToolError, Workspace};

/// One entry of a walk.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The absolute path.
    pub path: PathBuf,
    pub kind: Kind,
}

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    /// A symbolic link, never followed.
    Link,
}

impl Kind {
    /// The suffix a listing gives entries of this kind.
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Kind::File => "",
            Kind::Dir => "/",
            Kind::Link => "@",
        }
    }
}

/// What the workspace's access rules held back from a walk: how many entries, and by which
/// rules. Shared by the walk's threads.
#[derive(Clone, Default)]
pub(crate) struct HeldBack(Arc<HeldBackInner>);

#[derive(Default)]
struct HeldBackInner {
    count: AtomicUsize,
    rules: Mutex<Vec<String>>,
}

impl HeldBack {
    /// Whether the workspace's access rules let a walk read `path`; when not, it is counted
    /// here and left out.
    pub(crate) fn admits(&self, ws: &Workspace, path: &Path) -> bool {
        match ws.check_access(Access::Read, path) {
            Ok(()) => true,
            Err(denied) => {
                self.hold(denied.rule);
                false
            }
        }
    }

    fn hold(&self, rule: String) {
        self.0.count.fetch_add(1, Ordering::Relaxed);
        let mut rules = self.0.rules.lock().unwrap_or_else(PoisonError::into_inner);
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }

    /// Forgets what was counted, for a walk that starts again.
    fn reset(&self) {
        self.0.count.store(0, Ordering::Relaxed);
        self.0
            .rules
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// How many entries were held back.
    pub(crate) fn count(&self) -> usize {
        self.0.count.load(Ordering::Relaxed)
    }

    /// A note for the reply, when something was held back: `(3 entries held back by the rule
    /// `Read(./secrets/**)`)`.
    pub(crate) fn note(&self) -> Option<String> {
        let count = self.count();
        if count == 0 {
            return None;
        }
        let mut rules = self
            .0
            .rules
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        rules.sort();
        let named: Vec<String> = rules.iter().map(|rule| format!("`{rule}`")).collect();
        Some(format!(
            "({count} {} held back by the rule{} {}: the user keeps {} from the tools)",
            if count == 1 { "entry" } else { "entries" },
            if named.len() == 1 { "" } else { "s" },
            named.join(", "),
            if count == 1 { "it" } else { "them" },
        ))
    }
}

/// A walk from `root` (an absolute path inside the workspace), sorted by file name, leaving
/// out what the workspace's access rules deny (counted in the [`HeldBack`]) and, with
/// `skip_git`, every `.git` directory.
pub(crate) fn builder(
    ws: &Workspace,
    root: &Path,
    max_depth: Option<usize>,
    include_hidden: bool,
    skip_git: bool,
) -> (WalkBuilder, HeldBack) {
    let mut builder = WalkBuilder::new(root);
    builder
        .follow_links(false)
        .hidden(!include_hidden)
        // `.gitignore` counts in a directory that is not a git repository too.
        .require_git(false)
        .max_depth(max_depth)
        .threads(threads())
        .sort_by_file_name(|a, b| a.cmp(b));
    let held_back = HeldBack::default();
    let governed = ws
        .access_rules()
        .is_some_and(|rules| rules.governs(Access::Read));
    if governed || skip_git {
        let (ws, held) = (ws.clone(), held_back.clone());
        builder.filter_entry(move |entry| {
            if skip_git && entry.file_name() == ".git" {
                return false;
            }
            entry.depth() == 0 || held.admits(&ws, entry.path())
        });
    }
    (builder, held_back)
}

/// Every entry below `root` the walk admits (the root itself left out).
pub(crate) fn entries(walk: &WalkBuilder) -> Vec<Entry> {
    walk.build()
        .filter_map(Result::ok)
        .filter(|entry| entry.depth() > 0)
        .map(|entry| {
            let kind = match entry.file_type() {
                Some(kind) if kind.is_symlink() => Kind::Link,
                Some(kind) if kind.is_dir() => Kind::Dir,
                _ => Kind::File,
            };
            Entry {
                path: entry.into_path(),
                kind,
            }
        })
        .collect()
}

/// What a [`parallel`] walk does with an entry.
pub(crate) enum Visit<T> {
    /// Nothing: go on.
    Skip,
    /// Keep this, and go on.
    Keep(T),
    /// Stop the walk (a time limit ran out).
    Stop,
}

/// How many entries a walk reads on the calling thread before it hands the tree to a thread
/// per core.
const SERIAL_BUDGET: usize = 2_000;

/// Walks on every core, each thread making what it keeps of the entries it comes to with a
/// visitor of its own from `visitor` (the root itself left out), so that the work on each
/// entry overlaps the walk, as in ripgrep. What is kept comes in the threads' order: sort it.
///
/// A tree of at most [`SERIAL_BUDGET`] entries is walked and visited on the calling thread
/// instead: starting the threads, and waiting for the last of them to notice the walk is over
/// (ignore's idle workers sleep a millisecond at a time), cost more than such a walk. A
/// larger tree costs those entries read twice; `held` (the walk's [`HeldBack`], counted by
/// its filter) is counted again from zero for the parallel walk.
pub(crate) fn parallel<T, F>(
    walk: &WalkBuilder,
    held: &HeldBack,
    mut visitor: impl FnMut() -> F,
) -> Vec<T>
where
    T: Send,
    F: FnMut(ignore::DirEntry) -> Visit<T> + Send,
{
    use std::sync::{Mutex, PoisonError};
    if let Some(entries) = small_tree(walk) {
        let mut visit = visitor();
        let mut kept = Vec::new();
        for entry in entries {
            match visit(entry) {
                Visit::Skip => {}
                Visit::Keep(value) => kept.push(value),
                Visit::Stop => break,
            }
        }
        return kept;
    }
    held.reset();
    let kept = Mutex::new(Vec::new());
    walk.build_parallel().run(|| {
        let mut visit = visitor();
        let kept = &kept;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return ignore::WalkState::Continue;
            };
            if entry.depth() == 0 {
                return ignore::WalkState::Continue;
            }
            match visit(entry) {
                Visit::Skip => ignore::WalkState::Continue,
                Visit::Keep(value) => {
                    kept.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(value);
                    ignore::WalkState::Continue
                }
                Visit::Stop => ignore::WalkState::Quit,
            }
        })
    });
    kept.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// Every entry below the walk's root, in the walk's order, when there are at most
/// [`SERIAL_BUDGET`] of them.
fn small_tree(walk: &WalkBuilder) -> Option<Vec<ignore::DirEntry>> {
    let mut entries = Vec::new();
    for entry in walk.build().flatten() {
        if entry.depth() == 0 {
            continue;
        }
        if entries.len() == SERIAL_BUDGET {
            return None;
        }
        entries.push(entry);
    }
    Some(entries)
}

/// The threads a parallel walk uses, asked of the system once: ignore asks on every walk,
/// which reads the process's cgroup and CPU quota each time.
fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(12)
    })
}

/// `path` as the model should see it: relative to the workspace root it is under.
pub(crate) fn shown(ws: &Workspace, path: &Path) -> String {
    let relative = ws
        .roots()
        .iter()
        .find_map(|root| path.strip_prefix(root).ok())
        .unwrap_or(path);
    let text = relative.to_string_lossy();
    if text.is_empty() {
        ".".to_owned()
    } else {
        text.replace('\\', "/")
    }
}

/// The directory a search starts in: the path given, which must be a directory the access
/// rules let a walk read (not one they deny, nor one whose every entry they deny).
pub(crate) fn root(ws: &Workspace, path: &Path, sent: &str) -> Result<PathBuf, ToolError> {
    let path = &real(ws, path);
    let metadata = ws
        .entry_metadata(path)
        .map_err(|error| crate::fs::io_error(ws, sent, &error))?;
    if !metadata.is_dir() {
        return Err(ToolError::failed(format!(
            "`{sent}` is not a directory; give the directory to search in"
        )));
    }
    check_walk(ws, path)?;
    Ok(path.to_owned())
}

/// Where `path` really is, symlinks followed as the boundary follows them (when that is
/// inside the workspace): a walk starts from there, so that nothing below its root is a link
/// and [`Workspace::open_entry`] can refuse every link it meets.
pub(crate) fn real(ws: &Workspace, path: &Path) -> PathBuf {
    match path.to_str().map(|text| ws.confine("path", text)) {
        Some(resolved) if resolved.is_inside() => resolved.absolute,
        _ => path.to_owned(),
    }
}

/// Refuses a walk of `dir` the access rules cover whole.
pub(crate) fn check_walk(ws: &Workspace, dir: &Path) -> Result<(), ToolError> {
    ws.check_walk(dir)
        .map_err(|denied| ToolError::failed(denied.to_string()))
}

//! `repo_map`: the map of a repository Aider made popular. Its files, each with the
//! signatures of its most important definitions, ranked by PageRank over who refers to what
//! (personalized toward the files and names the caller is focused on) and cut to a token
//! budget. Symbols come from tree-sitter tags queries (`tags.rs`), the ranking from `rank.rs`;
//! the tags of each file are kept per process, by path, mtime and size, so a second map of a
//! large repository parses only what changed.

mod rank;
mod tags;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::SystemTime;

use tool_core::{ToolError, Workspace, WorkspacePath, tool};

use crate::search::walk::{self, Kind};
use rank::Edge;
use tags::{FileTags, Lang};

/// Files larger than this are listed without symbols: generated or vendored, not read.
const MAX_FILE_BYTES: u64 = 1 << 20;
/// At most this many definitions are shown under a file.
const MAX_DEFS_PER_FILE: usize = 12;
/// Definitions nothing else refers to are shown only to make up this many under a file.
const MIN_DEFS_PER_FILE: usize = 3;
/// Room kept for the note that says how many files the budget left out.
const NOTE_CHARS: usize = 120;
/// A name defined in more files than this is too common to say much about who uses whom.
const COMMON_NAME_FILES: usize = 5;

/// The tags of one file, as of its mtime and size.
struct Cached {
    modified: Option<SystemTime>,
    size: u64,
    tags: Arc<FileTags>,
    /// How many times the file was parsed, for [`parses_under`].
    parses: usize,
}

static CACHE: LazyLock<Mutex<HashMap<PathBuf, Cached>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// How many times files under `root` were parsed by `repo_map` in this process: a second map
/// of an unchanged tree parses none. For tests of the cache.
#[doc(hidden)]
pub fn parses_under(root: &Path) -> usize {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
    CACHE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter(|(path, _)| path.starts_with(&root))
        .map(|(_, cached)| cached.parses)
        .sum()
}

/// The tags of `path` in `lang`, from the cache when its mtime and size are unchanged.
/// `None` when the file is not there as the walk found it.
fn tags_of(ws: &Workspace, path: &Path) -> Option<Arc<FileTags>> {
    // Stat'ed and read beneath the root with no link followed (see `walk`): a name the walk
    // read through a folder swapped for a link is not there, and is left out of the map.
    let metadata = ws.entry_metadata(path).ok()?;
    let Some(lang) = Lang::of(path) else {
        return Some(Arc::default());
    };
    let (modified, size) = (
        metadata.modified().ok().map(|time| time.into_std()),
        metadata.len(),
    );
    if size > MAX_FILE_BYTES {
        return Some(Arc::default());
    }
    // The walk's path: its root is real and nothing below it is a link.
    let key = path.to_owned();
    let parses = {
        let cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
        match cache.get(&key) {
            Some(cached) if cached.modified == modified && cached.size == size => {
                return Some(Arc::clone(&cached.tags));
            }
            Some(cached) => cached.parses,
            None => 0,
        }
    };
    let read = ws.open_entry(path).and_then(|mut file| {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).map(|_| bytes)
    });
    let tags = Arc::new(tags::extract(lang, &String::from_utf8_lossy(&read.ok()?)));
    CACHE.lock().unwrap_or_else(PoisonError::into_inner).insert(
        key,
        Cached {
            modified,
            size,
            tags: Arc::clone(&tags),
            parses: parses + 1,
        },
    );
    Some(tags)
}

/// The tags of every file, parsed on every core (each file once, through the cache); `None`
/// for a file that is not there as the walk found it.
fn all_tags(ws: &Workspace, files: &[PathBuf]) -> Vec<Option<Arc<FileTags>>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(files.len().max(1));
    let chunk = files.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|chunk| {
                let handle = scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|file| tags_of(ws, file))
                        .collect::<Vec<_>>()
                });
                (chunk.len(), handle)
            })
            .collect();
        // A grammar that panicked leaves its files without symbols, still in their places.
        handles
            .into_iter()
            .flat_map(|(len, handle)| {
                handle
                    .join()
                    .unwrap_or_else(|_| vec![Some(Arc::default()); len])
            })
            .collect()
    })
}

/// A map of the repository: its files, most referred-to first, each with the signature lines
/// of its important definitions (Rust, Python, JavaScript, TypeScript, Go, Java, C, C++;
/// files of other languages are listed without symbols), cut to fit `max_tokens`. Use it to
/// find your way around code you have not read. `.gitignore`d and hidden files are left out.
///
/// # Arguments
/// * `path` - The directory to map (default: the workspace root).
/// * `focus` - Files (paths relative to the workspace root) or identifiers to rank the map toward.
/// * `max_tokens` - The map's budget in tokens, about 4 characters each (default 2048).
#[tool(
    read_only,
    closed_world,
    blocking,
    name = "repo_map",
    tags("fs", "search")
)]
fn repo_map(
    ws: &Workspace,
    #[serde(alias = "dir_path", alias = "directory")] path: Option<WorkspacePath>,
    #[arg(default)] focus: Vec<String>,
    #[arg(default = 2048)] max_tokens: usize,
) -> Result<String, ToolError> {
    let (root, sent) = match &path {
        Some(path) => (path.in_workspace(ws), path.sent().display().to_string()),
        None => (ws.root().to_owned(), ".".to_owned()),
    };
    let root = walk::root(ws, &root, &sent)?;
    let (walk, held_back) = walk::builder(ws, &root, None, false, false);
    let files: Vec<PathBuf> = walk::entries(&walk)
        .into_iter()
        .filter(|entry| entry.kind == Kind::File)
        .map(|entry| entry.path)
        .collect();
    let note = held_back
        .note()
        .map(|note| format!("\n{note}"))
        .unwrap_or_default();
    if files.is_empty() {
        return Ok(format!(
            "no files in `{sent}` (ignored and hidden files are left out){note}"
        ));
    }
    let (files, tags): (Vec<PathBuf>, Vec<Arc<FileTags>>) = files
        .iter()
        .zip(all_tags(ws, &files))
        .filter_map(|(file, tags)| Some((file.clone(), tags?)))
        .unzip();
    let shown: Vec<String> = files.iter().map(|file| walk::shown(ws, file)).collect();
    let ranked = rank_files(&shown, &tags, &focus);
    Ok(render(&shown, &tags, &ranked, max_tokens) + &note)
}

/// The files in rank order, each with its definitions' scores (index into `defs`, score).
struct Ranked {
    order: Vec<usize>,
    def_scores: Vec<HashMap<String, f64>>,
}

fn rank_files(shown: &[String], tags: &[Arc<FileTags>], focus: &[String]) -> Ranked {
    let n = shown.len();
    // Who defines each name, and how often each file refers to it.
    let mut definers: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    let mut referrers: BTreeMap<&str, BTreeMap<usize, usize>> = BTreeMap::new();
    for (file, tags) in tags.iter().enumerate() {
        for def in &tags.defs {
            definers.entry(&def.name).or_default().insert(file);
        }
        for name in &tags.refs {
            *referrers.entry(name).or_default().entry(file).or_default() += 1;
        }
    }
    let focus_names: BTreeSet<&str> = focus.iter().map(String::as_str).collect();
    let focus_files: BTreeSet<usize> = (0..n)
        .filter(|&file| {
            focus.iter().any(|f| {
                let f = f.trim_start_matches("./");
                shown[file] == f || shown[file].ends_with(&format!("/{f}"))
            })
        })
        .collect();
    // Every file keeps a little of the walker's jumps, so the files away from the focus are
    // still ranked among themselves; the focused ones share at least half of them.
    let mut personalization = vec![1.0; n];
    let focused = n as f64;
    for &file in &focus_files {
        personalization[file] = focused;
    }
    for name in &focus_names {
        for &file in definers.get(name).into_iter().flatten() {
            personalization[file] = focused;
        }
    }
    // Aider's weights: a focused name counts ten times, a private (`_`) or common one a tenth,
    // and many references to a name count as their square root.
    let mut edges: Vec<(Edge, &str)> = Vec::new();
    for (name, files) in &referrers {
        let Some(defined_in) = definers.get(name) else {
            continue;
        };
        let mut weight = 1.0;
        if focus_names.contains(name) {
            weight *= 10.0;
        }
        if name.starts_with('_') {
            weight *= 0.1;
        }
        if defined_in.len() > COMMON_NAME_FILES {
            weight *= 0.1;
        }
        for (&from, &count) in files {
            for &to in defined_in {
                if from != to {
                    let weight = weight * (count as f64).sqrt();
                    edges.push((Edge { from, to, weight }, name));
                }
            }
        }
    }
    let plain: Vec<Edge> = edges.iter().map(|(edge, _)| *edge).collect();
    let rank = rank::pagerank(n, &plain, &personalization);
    // Each file's rank flows out along its edges to the definitions it uses.
    let mut out_weight = vec![0.0; n];
    for edge in &plain {
        out_weight[edge.from] += edge.weight;
    }
    let mut def_scores: Vec<HashMap<String, f64>> = vec![HashMap::new(); n];
    for (edge, name) in &edges {
        *def_scores[edge.to].entry((*name).to_owned()).or_default() +=
            rank[edge.from] * edge.weight / out_weight[edge.from];
    }
    let mut order: Vec<usize> = (0..n).collect();
    // Files with symbols before those without at equal rank; ties by path, for a stable map.
    order.sort_by(|&a, &b| {
        rank[b]
            .total_cmp(&rank[a])
            .then_with(|| {
                tags[b]
                    .defs
                    .is_empty()
                    .cmp(&tags[a].defs.is_empty())
                    .reverse()
            })
            .then_with(|| shown[a].cmp(&shown[b]))
    });
    Ranked { order, def_scores }
}

/// The map, files in rank order, as many as `max_tokens` holds.
fn render(shown: &[String], tags: &[Arc<FileTags>], ranked: &Ranked, max_tokens: usize) -> String {
    let budget = max_tokens.saturating_mul(4);
    let mut text = String::new();
    let mut listed = 0;
    for (at, &file) in ranked.order.iter().enumerate() {
        let block = file_block(&shown[file], &tags[file], &ranked.def_scores[file]);
        let note = if at + 1 < ranked.order.len() {
            NOTE_CHARS
        } else {
            0
        };
        if text.len() + block.len() + note > budget {
            break;
        }
        text.push_str(&block);
        listed += 1;
    }
    let left = ranked.order.len() - listed;
    if left > 0 {
        let _ = write!(
            text,
            "({left} of {} files left out to fit max_tokens={max_tokens}; raise it, map a subdirectory with `path`, or set `focus`)",
            ranked.order.len()
        );
    }
    text.trim_end().to_owned()
}

/// One file's lines: its path, then its top definitions (by how much they are referred to,
/// then in file order; those nothing refers to only to make up a few), shown in file order as
/// `line│ signature`.
fn file_block(shown: &str, tags: &FileTags, scores: &HashMap<String, f64>) -> String {
    let mut block = format!("{shown}\n");
    let mut defs: Vec<&tags::Def> = tags.defs.iter().collect();
    defs.sort_by(|a, b| {
        let score = |def: &tags::Def| scores.get(&def.name).copied().unwrap_or(0.0);
        score(b)
            .total_cmp(&score(a))
            .then_with(|| a.line.cmp(&b.line))
    });
    let referred = defs
        .iter()
        .filter(|def| scores.get(&def.name).is_some_and(|score| *score > 0.0))
        .count();
    defs.truncate(referred.clamp(MIN_DEFS_PER_FILE, MAX_DEFS_PER_FILE));
    defs.sort_by_key(|def| def.line);
    for def in defs {
        let _ = writeln!(block, "{:>5}│ {}", def.line, def.signature);
    }
    block
}

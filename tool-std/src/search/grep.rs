//! `grep`: a regular expression searched in the workspace with ripgrep's own crates (`ignore`
//! for the walk, `grep-regex` and `grep-searcher` for the search), its output paged and what it
//! left out said.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use schemars::JsonSchema;
use serde::Deserialize;
use tool_core::{ToolError, Workspace, WorkspacePath, tool};

use crate::fs::anchor;
use crate::search::walk::{self, Visit};

/// Lines longer than this many characters are cut in the output.
const MAX_COLUMNS: usize = 500;
/// A search stops after this long, saying how far it got.
const TIME_LIMIT: Duration = Duration::from_secs(30);

/// What `grep` answers with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// The paths of the files that match.
    #[default]
    FilesWithMatches,
    /// The matching lines, `path:line:text`, with any context lines (`path-line-text`).
    Content,
    /// How many lines match in each file, `path:count`.
    Count,
}

/// Search file contents with a regular expression (Rust regex syntax, as ripgrep), in the
/// workspace. `.gitignore`d and hidden files and `.git` are skipped unless asked; binary files
/// are skipped; files in any encoding are searched. When nothing matches but ignored or hidden
/// files would, the reply says so.
///
/// # Arguments
/// * `pattern` - The regular expression (or literal text, with `fixed_strings`).
/// * `path` - A directory to search in, or one file (default: the workspace root).
/// * `glob` - Only files whose path matches this glob (`*.rs`, `src/**/*.{ts,tsx}`).
/// * `type` - Only files of this type, as ripgrep names them (`rust`, `py`, `js`, `md`, ...).
/// * `output_mode` - `files_with_matches` (default), `content` or `count`.
/// * `case_insensitive` - Ignore case (`-i`).
/// * `line_numbers` - In `content` mode, show line numbers (`-n`, default true).
/// * `after` - Lines of context after each match (`-A`).
/// * `before` - Lines of context before each match (`-B`).
/// * `context` - Lines of context around each match (`-C`).
/// * `multiline` - Let the pattern span lines (`.` matches a line break too).
/// * `fixed_strings` - Take the pattern as literal text.
/// * `head_limit` - At most this many output lines (default 250).
/// * `offset` - Skip this many output lines first, to page on.
/// * `include_hidden` - Search hidden files and directories too.
/// * `no_ignore` - Search files `.gitignore` (and `.ignore`) leave out too.
/// * `anchors` - In `content` mode, prefix each line with its `LINE#HASH` anchor for `hashline_edit`.
#[tool(
    read_only,
    closed_world,
    blocking(quick),
    name = "grep",
    aliases("Grep"),
    tags("fs", "search")
)]
#[allow(clippy::too_many_arguments, clippy::fn_params_excessive_bools)]
fn grep(
    ws: &Workspace,
    pattern: String,
    #[serde(alias = "dir_path")] path: Option<WorkspacePath>,
    #[serde(alias = "include", alias = "include_pattern")] glob: Option<String>,
    r#type: Option<String>,
    #[arg(default)] output_mode: OutputMode,
    #[serde(alias = "-i")]
    #[arg(default)]
    case_insensitive: bool,
    #[serde(alias = "-n")]
    #[arg(default = true)]
    line_numbers: bool,
    #[serde(alias = "-A")] after: Option<usize>,
    #[serde(alias = "-B")] before: Option<usize>,
    #[serde(alias = "-C")] context: Option<usize>,
    #[arg(default)] multiline: bool,
    #[arg(default)] fixed_strings: bool,
    #[arg(default = 250)] head_limit: usize,
    #[arg(default)] offset: usize,
    #[arg(default)] include_hidden: bool,
    #[arg(default)] no_ignore: bool,
    #[arg(default)] anchors: bool,
) -> Result<String, ToolError> {
    let (root, sent) = match &path {
        Some(path) => (path.in_workspace(ws), path.sent().display().to_string()),
        None => (ws.root().to_owned(), ".".to_owned()),
    };
    // Where the path really leads: nothing below it is a link, so it is looked at as a
    // walk's entry is (its metadata, without following it).
    let root = walk::real(ws, &root);
    let is_file = !ws
        .entry_metadata(&root)
        .map_err(|error| crate::fs::io_error(ws, &sent, &error))?
        .is_dir();
    if !is_file {
        walk::check_walk(ws, &root)?;
    }
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(case_insensitive)
        .fixed_strings(fixed_strings)
        .multi_line(multiline)
        .dot_matches_new_line(multiline)
        .line_terminator(if multiline { None } else { Some(b'\n') })
        .build(&pattern)
        .map_err(|error| {
            ToolError::failed(format!(
                "`{pattern}` is not a valid regular expression: {}; escape special characters such as `(` or `{{` with `\\`, or set fixed_strings=true to search the text as written",
                regex_problem(&pattern, &error.to_string())
            ))
        })?;
    let mut builder = SearcherBuilder::new();
    builder
        .line_number(true)
        .binary_detection(BinaryDetection::quit(0))
        .multi_line(multiline)
        .before_context(before.or(context).unwrap_or(0))
        .after_context(after.or(context).unwrap_or(0));
    let searcher = FileSearcher {
        searcher: builder.build(),
        builder,
    };
    let filters = Filters {
        glob: glob.as_deref(),
        file_type: r#type.as_deref(),
        include_hidden,
        no_ignore,
    };
    let with_context = before.or(context).or(after).unwrap_or(0) > 0;
    let Searched {
        found,
        searched,
        stopped,
        held_back,
    } = search(
        ws, &root, is_file, &filters, &matcher, &searcher, TIME_LIMIT,
    )?;
    let mut out: Vec<String> = Vec::new();
    for (file, sink) in found {
        let shown = walk::shown(ws, &file);
        match output_mode {
            OutputMode::FilesWithMatches => out.push(shown),
            OutputMode::Count => out.push(format!("{shown}:{}", sink.matches)),
            OutputMode::Content => {
                let mut last: Option<u64> = None;
                for line in sink.lines {
                    // Groups of context are set apart, as rg does.
                    if with_context
                        && let Some(last) = last
                        && line.number > last + 1
                    {
                        out.push("--".to_owned());
                    }
                    last = Some(line.number);
                    out.push(render(&shown, &line, line_numbers, anchors));
                }
            }
        }
    }
    if out.is_empty() {
        let mut text = nothing_found(
            ws, &root, is_file, &sent, &pattern, &filters, &searcher, &matcher,
        );
        if let Some(note) = held_back.note() {
            let _ = write!(text, "\n{note}");
        }
        return Ok(text);
    }
    let total = out.len();
    let page: Vec<String> = out
        .into_iter()
        .skip(offset)
        .take(head_limit.max(1))
        .collect();
    let end = offset + page.len();
    let mut text = page.join("\n");
    if end < total || offset > 0 {
        let _ = write!(text, "\n(lines {}-{end} of {total}", offset + 1);
        if end < total {
            let _ = write!(text, "; continue with offset={end}");
        }
        text.push(')');
    }
    if stopped {
        let _ = write!(
            text,
            "\n(the search stopped after {} s, with {searched} files searched: narrow it with `path`, `glob` or `type`)",
            TIME_LIMIT.as_secs(),
        );
    }
    if let Some(note) = held_back.note() {
        let _ = write!(text, "\n{note}");
    }
    Ok(text)
}

struct Filters<'a> {
    glob: Option<&'a str>,
    file_type: Option<&'a str>,
    include_hidden: bool,
    no_ignore: bool,
}

/// What [`search`] found: the files that match, sorted by path, with their matches; how many
/// files were searched; whether the time limit stopped it; what the access rules held back.
struct Searched {
    found: Vec<(PathBuf, Collect)>,
    searched: usize,
    stopped: bool,
    held_back: walk::HeldBack,
}

/// Searches `root` (a file, or the files below a directory that the filters admit) on every
/// core. The walk and the search overlap, as in ripgrep: each thread searches the files it
/// comes to while the others walk on. Walked first and then searched, a large tree's walk
/// (a third of the time, for the crates of `~/.cargo/registry`) ran on one thread while the
/// others waited.
fn search(
    ws: &Workspace,
    root: &Path,
    is_file: bool,
    filters: &Filters<'_>,
    matcher: &grep_regex::RegexMatcher,
    searcher: &FileSearcher,
    time_limit: Duration,
) -> Result<Searched, ToolError> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    if is_file {
        // One file named by the call: opened as `read_file` would open it (links inside the
        // workspace followed, the rules asked, a FIFO or device refused).
        let file = ws
            .open(root)
            .map_err(|error| crate::fs::io_error(ws, &walk::shown(ws, root), &error))?;
        let mut sink = Collect::default();
        let matched = searcher.clone().search(matcher, file, &mut sink) && sink.matches > 0;
        return Ok(Searched {
            found: if matched {
                vec![(root.to_owned(), sink)]
            } else {
                Vec::new()
            },
            searched: 1,
            stopped: false,
            held_back: walk::HeldBack::default(),
        });
    }
    let started = Instant::now();
    let searched = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let (walk, held_back) = walker(ws, root, filters)?;
    let mut found = walk::parallel(&walk, &held_back, || {
        let (matcher, mut searcher) = (matcher.clone(), searcher.clone());
        let (searched, stopped) = (&searched, &stopped);
        move |entry: ignore::DirEntry| {
            if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                return Visit::Skip;
            }
            if started.elapsed() > time_limit {
                stopped.store(true, Ordering::Relaxed);
                return Visit::Stop;
            }
            // Beneath the root with no link followed: a directory swapped for a link since
            // the walk listed it makes the open fail, not read where the link leads.
            let Ok(file) = ws.open_entry(entry.path()) else {
                return Visit::Skip;
            };
            searched.fetch_add(1, Ordering::Relaxed);
            let mut sink = Collect::default();
            if searcher.search(&matcher, file, &mut sink) && sink.matches > 0 {
                Visit::Keep((entry.into_path(), sink))
            } else {
                Visit::Skip
            }
        }
    });
    // Paths compare component by component: the order of a walk sorted by name.
    found.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
    Ok(Searched {
        found,
        searched: searched.into_inner(),
        stopped: stopped.into_inner(),
        held_back,
    })
}

/// The walk below `root` that the filters admit.
fn walker(
    ws: &Workspace,
    root: &Path,
    filters: &Filters<'_>,
) -> Result<(ignore::WalkBuilder, walk::HeldBack), ToolError> {
    // A version-control directory is never searched.
    let (mut builder, held_back) = walk::builder(ws, root, None, filters.include_hidden, true);
    builder
        .ignore(!filters.no_ignore)
        .git_ignore(!filters.no_ignore)
        .git_exclude(!filters.no_ignore)
        .git_global(!filters.no_ignore)
        .parents(!filters.no_ignore);
    if let Some(glob) = filters.glob {
        let mut overrides = ignore::overrides::OverrideBuilder::new(root);
        overrides.add(glob).map_err(|error| {
            ToolError::failed(format!(
                "`{glob}` is not a valid glob ({error}); write one like `*.rs`"
            ))
        })?;
        builder.overrides(
            overrides
                .build()
                .map_err(|error| ToolError::failed(error.to_string()))?,
        );
    }
    if let Some(name) = filters.file_type {
        let mut types = ignore::types::TypesBuilder::new();
        types.add_defaults();
        types.select(name);
        let types = types.build().map_err(|error| {
            ToolError::failed(format!("`{name}` is not a file type ripgrep knows ({error}); use one such as `rust`, `py`, `js`, `ts`, `go`, `java`, `md`, or a `glob`"))
        })?;
        builder.types(types);
    }
    Ok((builder, held_back))
}

/// The answer when nothing matched: whether files the search left out would have.
#[allow(clippy::too_many_arguments)]
fn nothing_found(
    ws: &Workspace,
    root: &Path,
    is_file: bool,
    sent: &str,
    pattern: &str,
    filters: &Filters<'_>,
    searcher: &FileSearcher,
    matcher: &grep_regex::RegexMatcher,
) -> String {
    let mut text = format!("no match for `{pattern}` in `{sent}`");
    if filters.include_hidden && filters.no_ignore {
        return text;
    }
    let everything = Filters {
        include_hidden: true,
        no_ignore: true,
        ..*filters
    };
    // Nothing the search admitted matched, so every match found now is in a file it left out.
    let Ok(all) = search(
        ws,
        root,
        is_file,
        &everything,
        matcher,
        searcher,
        TIME_LIMIT / 3,
    ) else {
        return text;
    };
    let left_out: Vec<String> = all
        .found
        .iter()
        .map(|(file, _)| walk::shown(ws, file))
        .collect();
    if !left_out.is_empty() {
        let example: Vec<&str> = left_out.iter().take(3).map(String::as_str).collect();
        let _ = write!(
            text,
            "; but {} file{} that the search left out (ignored by .gitignore or hidden) match{}, such as {}: search again with no_ignore=true and include_hidden=true to include them",
            left_out.len(),
            if left_out.len() == 1 { "" } else { "s" },
            if left_out.len() == 1 { "es" } else { "" },
            example
                .iter()
                .map(|path| format!("`{path}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    text
}

/// One line of a file's results.
struct Line {
    number: u64,
    is_match: bool,
    text: Vec<u8>,
}

/// A file's matching lines (and context lines), in order.
#[derive(Default)]
struct Collect {
    matches: u64,
    lines: Vec<Line>,
}

/// A searcher that reads each file in its own encoding, as `read_file` does: a file in a
/// legacy one (Latin-1, Windows-1252, Shift_JIS: no byte order mark, not UTF-8) is transcoded
/// to UTF-8 as it is searched, so a pattern, which is UTF-8, finds its text. (UTF-8 and UTF-16
/// with a byte order mark the searcher reads by itself.) The first bytes of the file decide;
/// they are read once and searched with the rest.
#[derive(Clone)]
struct FileSearcher {
    searcher: Searcher,
    /// The searcher's settings, for one that transcodes.
    builder: SearcherBuilder,
}

impl FileSearcher {
    /// How many bytes decide a file's encoding.
    const SNIFF: usize = 8 * 1024;

    /// Searches `file` into `sink`; `false` when it cannot be read.
    fn search(
        &mut self,
        matcher: &grep_regex::RegexMatcher,
        mut file: std::fs::File,
        sink: &mut Collect,
    ) -> bool {
        use std::io::Read as _;
        let mut head = Vec::with_capacity(Self::SNIFF);
        if (&mut file)
            .take(Self::SNIFF as u64)
            .read_to_end(&mut head)
            .is_err()
        {
            return false;
        }
        let legacy = match crate::fs::detect(&head) {
            Ok((encoding, 0)) if encoding != encoding_rs::UTF_8 => {
                grep_searcher::Encoding::new(encoding.name()).ok()
            }
            _ => None,
        };
        let reader = std::io::Cursor::new(head).chain(file);
        match legacy {
            None => self.searcher.search_reader(matcher, reader, sink).is_ok(),
            Some(encoding) => self
                .builder
                .clone()
                .encoding(Some(encoding))
                .build()
                .search_reader(matcher, reader, sink)
                .is_ok(),
        }
    }
}

impl Sink for Collect {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let first = found.line_number().unwrap_or(0);
        for (index, line) in found.lines().enumerate() {
            self.matches += 1;
            self.lines.push(Line {
                number: first + index as u64,
                is_match: true,
                text: line.to_vec(),
            });
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, Self::Error> {
        self.lines.push(Line {
            number: context.line_number().unwrap_or(0),
            is_match: false,
            text: context.bytes().to_vec(),
        });
        Ok(true)
    }
}

/// `path:12:text` for a match, `path-12-text` for context; the text without its line break,
/// decoded leniently (a file in another encoding is still shown), cut at [`MAX_COLUMNS`].
fn render(shown: &str, line: &Line, line_numbers: bool, anchors: bool) -> String {
    let text = String::from_utf8_lossy(&line.text);
    let text = text.trim_end_matches(['\n', '\r']);
    let mut cut: String = text.chars().take(MAX_COLUMNS).collect();
    let columns = text.chars().count();
    if columns > MAX_COLUMNS {
        let _ = write!(cut, "… [line cut: {columns} characters]");
    }
    let separator = if line.is_match { ':' } else { '-' };
    if anchors {
        format!("{shown}{separator}{}#{}|{cut}", line.number, anchor(text))
    } else if line_numbers {
        format!("{shown}{separator}{}{separator}{cut}", line.number)
    } else {
        format!("{shown}{separator}{cut}")
    }
}
/// What is wrong with `pattern`, in one line and about the pattern as the model wrote it.
/// grep-regex reports on the pattern it wrapped (`(?:(`), over several lines with a caret;
/// the regex crate's parser, given the pattern alone, says the same of the model's own text.
/// A pattern that only grep's rules refuse (a literal line break without `multiline`) keeps
/// grep-regex's words.
fn regex_problem(pattern: &str, grep_error: &str) -> String {
    let report = match regex::Regex::new(pattern) {
        Err(regex::Error::Syntax(report)) => report,
        Err(other) => return other.to_string(),
        Ok(_) => grep_error.to_owned(),
    };
    let lines: Vec<&str> = report.lines().collect();
    let Some(problem) = lines
        .iter()
        .rev()
        .find_map(|line| line.strip_prefix("error: "))
    else {
        return lines.join(" ");
    };
    // The caret line: spaces, then `^` under the character at fault, indented as the pattern
    // line above it.
    let column = lines.windows(2).find_map(|pair| {
        let caret = pair[1].find('^')?;
        let indent = pair[0].len() - pair[0].trim_start().len();
        pair[1]
            .trim()
            .chars()
            .all(|c| c == '^')
            .then(|| caret.saturating_sub(indent) + 1)
    });
    match column {
        Some(column) if lines.len() <= 4 => format!("{problem} (at character {column})"),
        _ => problem.to_owned(),
    }
}

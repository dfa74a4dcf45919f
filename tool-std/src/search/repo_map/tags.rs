//! Definitions and references in one source file, by tree-sitter tags queries: the queries
//! each grammar crate ships (`TAGS_QUERY`, the ones GitHub's code navigation runs), with a few
//! lines added where a grammar's own query leaves out references the map needs.

use std::collections::HashSet;
use std::path::Path;
use std::sync::OnceLock;

use tree_sitter::{Language, Parser, Query, QueryCursor, StreamingIterator};

/// Signature lines longer than this many characters are cut.
const MAX_SIGNATURE: usize = 120;

/// A language the map reads symbols from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Java,
    C,
    Cpp,
}

const LANGS: [Lang; 9] = [
    Lang::Rust,
    Lang::Python,
    Lang::JavaScript,
    Lang::TypeScript,
    Lang::Tsx,
    Lang::Go,
    Lang::Java,
    Lang::C,
    Lang::Cpp,
];

/// References the crates' own queries leave out: Rust's and C's name no type uses, and
/// Rust's no path calls (`store::open()`).
const RUST_EXTRA: &str = r"
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(type_identifier) @name @reference.type
";
const C_EXTRA: &str = r"
(call_expression function: (identifier) @name) @reference.call
(type_identifier) @name @reference.type
";

impl Lang {
    /// The language of a file, by its extension.
    pub(crate) fn of(path: &Path) -> Option<Lang> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match extension.as_str() {
            "rs" => Lang::Rust,
            "py" | "pyi" => Lang::Python,
            "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "c" | "h" => Lang::C,
            "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" => Lang::Cpp,
            _ => return None,
        })
    }

    fn index(self) -> usize {
        LANGS.iter().position(|lang| *lang == self).unwrap_or(0)
    }

    fn language(self) -> Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::C => tree_sitter_c::LANGUAGE.into(),
            Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        }
    }

    /// The query's sources, tried in order until one compiles: TypeScript's own query names
    /// only what TypeScript adds to JavaScript, so JavaScript's comes with it.
    fn query_sources(self) -> Vec<String> {
        match self {
            Lang::Rust => vec![format!("{}\n{RUST_EXTRA}", tree_sitter_rust::TAGS_QUERY)],
            Lang::Python => vec![tree_sitter_python::TAGS_QUERY.to_owned()],
            Lang::JavaScript => vec![tree_sitter_javascript::TAGS_QUERY.to_owned()],
            Lang::TypeScript | Lang::Tsx => vec![
                format!(
                    "{}\n{}",
                    tree_sitter_javascript::TAGS_QUERY,
                    tree_sitter_typescript::TAGS_QUERY
                ),
                tree_sitter_typescript::TAGS_QUERY.to_owned(),
            ],
            Lang::Go => vec![tree_sitter_go::TAGS_QUERY.to_owned()],
            Lang::Java => vec![tree_sitter_java::TAGS_QUERY.to_owned()],
            Lang::C => vec![format!("{}\n{C_EXTRA}", tree_sitter_c::TAGS_QUERY)],
            Lang::Cpp => vec![
                format!("{}\n{C_EXTRA}", tree_sitter_cpp::TAGS_QUERY),
                tree_sitter_cpp::TAGS_QUERY.to_owned(),
            ],
        }
    }

    /// The compiled query, compiled once per process (`None` if none compiles).
    fn query(self) -> Option<&'static Query> {
        static QUERIES: [OnceLock<Option<Query>>; LANGS.len()] =
            [const { OnceLock::new() }; LANGS.len()];
        QUERIES[self.index()]
            .get_or_init(|| {
                let language = self.language();
                self.query_sources()
                    .iter()
                    .find_map(|source| Query::new(&language, source).ok())
            })
            .as_ref()
    }
}

/// One definition: its name, its line (from 1) and its signature (the first line of the
/// definition, trimmed and cut).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Def {
    pub name: String,
    pub line: usize,
    pub signature: String,
}

/// What one file defines and refers to.
#[derive(Debug, Clone, Default)]
pub(crate) struct FileTags {
    pub defs: Vec<Def>,
    /// Every identifier referred to, once per reference.
    pub refs: Vec<String>,
}

/// The tags of `source`, written in `lang`.
pub(crate) fn extract(lang: Lang, source: &str) -> FileTags {
    let Some(query) = lang.query() else {
        return FileTags::default();
    };
    let mut parser = Parser::new();
    if parser.set_language(&lang.language()).is_err() {
        return FileTags::default();
    }
    let Some(tree) = parser.parse(source, None) else {
        return FileTags::default();
    };
    let names = query.capture_names();
    let name_index = names.iter().position(|name| *name == "name");
    let mut tags = FileTags::default();
    // The nodes already taken as a definition's name, so the same identifier is no reference.
    let mut defined: HashSet<(usize, usize)> = HashSet::new();
    let mut refs: Vec<((usize, usize), String)> = Vec::new();
    let mut seen: HashSet<(String, usize)> = HashSet::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), source.as_bytes());
    while let Some(found) = matches.next() {
        let mut name = None;
        let mut role: Option<(bool, tree_sitter::Node<'_>)> = None;
        for capture in found.captures() {
            let capture_name = names[capture.index as usize];
            if Some(capture.index as usize) == name_index {
                name = Some(capture.node);
            } else if capture_name.starts_with("definition.") {
                role = Some((true, capture.node));
            } else if capture_name.starts_with("reference.") {
                role = Some((false, capture.node));
            }
        }
        let (Some(name), Some((is_def, node))) = (name, role) else {
            continue;
        };
        let Ok(text) = name.utf8_text(source.as_bytes()) else {
            continue;
        };
        if text.is_empty() {
            continue;
        }
        let span = (name.start_byte(), name.end_byte());
        if is_def {
            defined.insert(span);
            let line = node.start_position().row + 1;
            if seen.insert((text.to_owned(), line)) {
                tags.defs.push(Def {
                    name: text.to_owned(),
                    line,
                    signature: signature(source, node.start_byte()),
                });
            }
        } else {
            refs.push((span, text.to_owned()));
        }
    }
    let mut counted: HashSet<(usize, usize)> = HashSet::new();
    tags.refs = refs
        .into_iter()
        .filter(|(span, _)| !defined.contains(span) && counted.insert(*span))
        .map(|(_, name)| name)
        .collect();
    tags.defs
        .sort_by(|a, b| a.line.cmp(&b.line).then_with(|| a.name.cmp(&b.name)));
    tags
}

/// The line a definition starts on, from its first character, trimmed and cut.
fn signature(source: &str, start: usize) -> String {
    let line_start = source[..start].rfind('\n').map_or(0, |at| at + 1);
    let line = source[line_start..].lines().next().unwrap_or("").trim();
    if line.chars().count() > MAX_SIGNATURE {
        let cut: String = line.chars().take(MAX_SIGNATURE).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

//! The docs hold together (issue 31): every relative link of the README, CONTRIBUTING,
//! BENCHMARKS, the CHANGELOG and the guide (`docs/*.md`) leads to a file that exists, and every
//! `#anchor` to a heading of that file (as GitHub makes anchors); every page of the guide is
//! listed in its index and compiled as doctests by `docs/lib.rs`. The blocks themselves are
//! compiled and run as doctests of this package's library.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files whose links are checked.
fn documents() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = [
        "README.md",
        "CONTRIBUTING.md",
        "BENCHMARKS.md",
        "CHANGELOG.md",
    ]
    .iter()
    .map(|name| root().join(name))
    .collect();
    files.extend(guide_pages());
    files
}

/// The pages of the guide, `docs/*.md`.
fn guide_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect();
    pages.sort();
    pages
}

/// `text` with fenced code blocks and inline code spans blanked out (their brackets are not
/// links), the lines kept.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        if fenced {
            out.push('\n');
            continue;
        }
        let mut in_code = false;
        for character in line.chars() {
            if character == '`' {
                in_code = !in_code;
                out.push(' ');
            } else {
                out.push(if in_code { ' ' } else { character });
            }
        }
        out.push('\n');
    }
    out
}

/// The targets of the inline links `[text](target)` in `text` (the text may span lines).
fn link_targets(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut targets = Vec::new();
    let mut rest = prose.as_str();
    while let Some(close) = rest.find("](") {
        let after = &rest[close + 2..];
        let opened_before = rest[..close].rfind('[');
        if let (Some(_), Some(end)) = (opened_before, after.find(')')) {
            let target = after[..end].trim();
            if !target.is_empty() && !target.contains(char::is_whitespace) {
                targets.push(target.to_owned());
            }
        }
        rest = after;
    }
    targets
}

/// The anchors GitHub makes for the headings of `text`: lower case, every character but
/// letters, digits, spaces, `-` and `_` dropped, spaces made `-`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut found = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#').trim();
        let anchor: String = heading
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        found.insert(anchor);
    }
    found
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    let made = anchors("# The attribute: `#[tool(..)]`\n## Importing MCP servers' tools\n");
    assert!(made.contains("the-attribute-tool"), "{made:?}");
    assert!(made.contains("importing-mcp-servers-tools"), "{made:?}");
}

#[test]
fn every_relative_link_leads_to_a_file_and_every_anchor_to_a_heading() {
    let mut broken = Vec::new();
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        let folder = document.parent().unwrap();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let linked = if path.is_empty() {
                document.clone()
            } else {
                folder.join(path)
            };
            let name = document.strip_prefix(root()).unwrap().display().to_string();
            if !linked.exists() {
                broken.push(format!("{name}: `{target}` leads nowhere"));
                continue;
            }
            if let Some(anchor) = anchor {
                let headings = std::fs::read_to_string(&linked)
                    .map(|text| anchors(&text))
                    .unwrap_or_default();
                if !headings.contains(anchor) {
                    broken.push(format!(
                        "{name}: `{target}` names no heading of {} (it has: {headings:?})",
                        linked.display()
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_links_checked_include_multi_line_ones_and_skip_code() {
    let targets = link_targets(
        "see [dialects and\nproviders](docs/providers.md), `[x](not/a/link)`\n\
         ```rust\nlet a = [1](2);\n```\n[`blocking`](docs/tools.md#the-attribute-tool)\n",
    );
    assert_eq!(
        targets,
        ["docs/providers.md", "docs/tools.md#the-attribute-tool"]
    );
}

#[test]
fn every_guide_page_is_in_the_index_and_compiled_as_doctests() {
    let index = std::fs::read_to_string(root().join("docs/README.md")).unwrap();
    let compiled = std::fs::read_to_string(root().join("docs/lib.rs")).unwrap();
    for page in guide_pages() {
        let name = page.file_name().unwrap().to_str().unwrap().to_owned();
        assert!(
            compiled.contains(&format!("include_str!(\"{name}\")")),
            "docs/lib.rs does not compile the blocks of docs/{name}: add an item including it"
        );
        if name != "README.md" {
            assert!(
                index.contains(&format!("]({name})")),
                "the guide's index (docs/README.md) does not list docs/{name}"
            );
        }
    }
}

//! Descriptions from doc comments: the function's doc, minus its `# Arguments` section, is the
//! tool's description; the section's entries (`* `name` - text`, rustdoc's convention) describe
//! the parameters.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

pub(crate) struct Docs {
    /// The description, trimmed; empty when the function has no doc outside `# Arguments`.
    pub(crate) description: String,
    /// The `# Arguments` entries, in order.
    pub(crate) arguments: Vec<ArgumentDoc>,
}

pub(crate) struct ArgumentDoc {
    pub(crate) name: String,
    pub(crate) text: String,
    /// The doc attribute the entry is in.
    pub(crate) span: Span,
}

struct Line {
    text: String,
    span: Span,
}

pub(crate) fn parse(attrs: &[Attribute]) -> Docs {
    let lines = doc_lines(attrs);
    let mut description: Vec<&str> = Vec::new();
    let mut arguments: Vec<ArgumentDoc> = Vec::new();
    let mut in_arguments = false;
    let mut in_fence = false;
    for line in &lines {
        let trimmed = line.text.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        }
        if !in_fence && let Some(heading) = heading(trimmed) {
            in_arguments = heading.eq_ignore_ascii_case("arguments");
            if in_arguments {
                continue;
            }
        }
        if !in_arguments {
            description.push(&line.text);
            continue;
        }
        if let Some((name, text)) = entry(trimmed) {
            arguments.push(ArgumentDoc {
                name,
                text,
                span: line.span,
            });
        } else if let Some(last) = arguments.last_mut().filter(|_| !trimmed.is_empty()) {
            // A continuation line of the previous entry.
            last.text.push(' ');
            last.text.push_str(trimmed);
        }
    }
    Docs {
        description: tidy(&description),
        arguments,
    }
}

/// The lines of every `#[doc = "..."]`, with rustdoc's one leading space removed.
fn doc_lines(attrs: &[Attribute]) -> Vec<Line> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("doc")) {
        let Meta::NameValue(name_value) = &attr.meta else {
            continue;
        };
        let Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) = &name_value.value
        else {
            continue;
        };
        for line in text.value().split('\n') {
            lines.push(Line {
                text: line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned(),
                span: attr.span(),
            });
        }
    }
    lines
}

fn heading(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('#')?.trim_start_matches('#');
    rest.starts_with(' ').then(|| rest.trim())
}

/// `* `name` - text`, `- `name`: text`, `* `name` — text`.
fn entry(line: &str) -> Option<(String, String)> {
    let rest = line
        .strip_prefix('*')
        .or_else(|| line.strip_prefix('-'))
        .or_else(|| line.strip_prefix('+'))?
        .trim_start();
    let rest = rest.strip_prefix('`')?;
    let end = rest.find('`')?;
    let name = rest[..end].trim().to_owned();
    let text = rest[end + 1..]
        .trim_start()
        .trim_start_matches(['-', ':', '\u{2013}', '\u{2014}'])
        .trim()
        .to_owned();
    (!name.is_empty()).then_some((name, text))
}

/// Joins lines, dropping leading and trailing blank lines and runs of blank lines.
fn tidy(lines: &[&str]) -> String {
    let mut out = String::new();
    let mut blank_pending = false;
    for line in lines {
        if line.trim().is_empty() {
            blank_pending = !out.is_empty();
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank_pending { "\n\n" } else { "\n" });
        }
        blank_pending = false;
        out.push_str(line);
    }
    out
}

//! Parsing attributes into typed values, each keeping its span: the `#[tool(..)]` arguments
//! ([`ToolAttrs`]) and the parameter attributes `#[arg(..)]` and `#[ctx]` ([`ParamAttrs`]).
//! Unknown and repeated keys are reported here, spanned at the key; semantic rules live in
//! `valid.rs`.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, LitInt, LitStr, Path, Token};

use crate::ctxt::Ctxt;

/// A flag's presence, at the span of its key.
pub(crate) type Flag = Option<Span>;

#[derive(Default)]
pub(crate) struct ToolAttrs {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) read_only: Flag,
    pub(crate) destructive: Flag,
    pub(crate) idempotent: Flag,
    pub(crate) open_world: Flag,
    pub(crate) closed_world: Flag,
    pub(crate) aliases: Vec<LitStr>,
    pub(crate) tags: Vec<LitStr>,
    pub(crate) blocking: Flag,
    pub(crate) timeout_ms: Option<LitInt>,
    pub(crate) self_approving: Flag,
    pub(crate) read_only_if: Option<Path>,
    pub(crate) krate: Option<Path>,
}

const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "closed_world",
    "aliases",
    "tags",
    "blocking",
    "timeout_ms",
    "self_approving",
    "read_only_if",
    "crate",
];

pub(crate) fn parse_tool_attrs(cx: &Ctxt, args: TokenStream) -> ToolAttrs {
    let mut attrs = ToolAttrs::default();
    let mut seen: Vec<String> = Vec::new();
    let parser = syn::meta::parser(|meta| {
        let key = key_of(&meta);
        if seen.contains(&key) {
            cx.error_spanned_by(&meta.path, format_args!("`{key}` is given twice; keep one"));
            return skip_value(&meta);
        }
        seen.push(key.clone());
        match key.as_str() {
            "name" => attrs.name = Some(string_value(&meta)?),
            "title" => attrs.title = Some(string_value(&meta)?),
            "description" => attrs.description = Some(string_value(&meta)?),
            "read_only" => attrs.read_only = flag(cx, &meta)?,
            "destructive" => attrs.destructive = flag(cx, &meta)?,
            "idempotent" => attrs.idempotent = flag(cx, &meta)?,
            "open_world" => attrs.open_world = flag(cx, &meta)?,
            "closed_world" => attrs.closed_world = flag(cx, &meta)?,
            "blocking" => attrs.blocking = flag(cx, &meta)?,
            "self_approving" => attrs.self_approving = flag(cx, &meta)?,
            "aliases" => attrs.aliases = string_list(&meta)?,
            "tags" => attrs.tags = string_list(&meta)?,
            "timeout_ms" => attrs.timeout_ms = Some(meta.value()?.parse()?),
            "read_only_if" => attrs.read_only_if = Some(path_value(&meta)?),
            "crate" => attrs.krate = Some(path_value(&meta)?),
            _ => {
                cx.error_spanned_by(&meta.path, unknown_key("#[tool]", &key, TOOL_KEYS));
                return skip_value(&meta);
            }
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
    }
    attrs
}

/// What `#[arg(..)]` and `#[ctx]` say about a parameter; the attributes themselves are removed
/// from the re-emitted function, and `#[serde]`/`#[schemars]` are kept for the args field.
#[derive(Default)]
pub(crate) struct ParamAttrs {
    pub(crate) ctx: Flag,
    /// The span of the first `#[arg]`, if any.
    pub(crate) arg: Flag,
    pub(crate) default: Option<Expr>,
    pub(crate) rename: Option<LitStr>,
    pub(crate) desc: Option<LitStr>,
    pub(crate) path: Flag,
    pub(crate) url: Flag,
    pub(crate) command: Flag,
    /// `#[serde(..)]` and `#[schemars(..)]`, passed through to the field.
    pub(crate) passthrough: Vec<Attribute>,
}

const ARG_KEYS: &[&str] = &["default", "rename", "desc", "path", "url", "command"];

pub(crate) fn parse_param_attrs(cx: &Ctxt, attrs: &[Attribute]) -> ParamAttrs {
    let mut parsed = ParamAttrs::default();
    let mut seen: Vec<String> = Vec::new();
    for attr in attrs {
        let path = attr.path();
        if path.is_ident("ctx") {
            if attr.meta.require_path_only().is_err() {
                cx.error_spanned_by(attr, "`#[ctx]` takes no arguments");
            }
            parsed.ctx = Some(span_of(path));
        } else if path.is_ident("arg") {
            parsed.arg.get_or_insert(span_of(path));
            let result = attr.parse_nested_meta(|meta| {
                let key = key_of(&meta);
                if seen.contains(&key) {
                    cx.error_spanned_by(
                        &meta.path,
                        format_args!("`{key}` is given twice; keep one"),
                    );
                    return skip_value(&meta);
                }
                seen.push(key.clone());
                match key.as_str() {
                    "default" => parsed.default = Some(meta.value()?.parse()?),
                    "rename" => parsed.rename = Some(string_value(&meta)?),
                    "desc" => parsed.desc = Some(string_value(&meta)?),
                    "path" => parsed.path = flag(cx, &meta)?,
                    "url" => parsed.url = flag(cx, &meta)?,
                    "command" => parsed.command = flag(cx, &meta)?,
                    _ => {
                        cx.error_spanned_by(&meta.path, unknown_key("#[arg]", &key, ARG_KEYS));
                        return skip_value(&meta);
                    }
                }
                Ok(())
            });
            if let Err(error) = result {
                cx.syn_error(error);
            }
        } else if path.is_ident("serde") || path.is_ident("schemars") {
            parsed.passthrough.push(attr.clone());
        } else {
            // Other attributes (`cfg`, lints) stay on the function's parameter.
        }
    }
    parsed
}

/// `true` for the attributes this macro consumes from parameters.
pub(crate) fn is_param_attr(attr: &Attribute) -> bool {
    ["ctx", "arg", "serde", "schemars"]
        .iter()
        .any(|name| attr.path().is_ident(name))
}

fn key_of(meta: &ParseNestedMeta<'_>) -> String {
    let path = &meta.path;
    path.segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

fn span_of(path: &Path) -> Span {
    path.segments
        .first()
        .map_or_else(Span::call_site, |segment| segment.ident.span())
}

fn flag(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Flag> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        let key = key_of(meta);
        cx.error_spanned_by(
            &meta.path,
            format_args!("`{key}` is a flag and takes no value: write `{key}` alone"),
        );
        skip_value(meta)?;
    }
    Ok(Some(span_of(&meta.path)))
}

fn string_value(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    let key = key_of(meta);
    let value = meta.value()?;
    value.parse::<LitStr>().map_err(|error| {
        syn::Error::new(
            error.span(),
            format_args!("`{key}` takes a string literal: `{key} = \"...\"`"),
        )
    })
}

fn string_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    let key = key_of(meta);
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format_args!(
            "`{key}` takes a list of strings: `{key}(\"a\", \"b\")`"
        )));
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let list = Punctuated::<LitStr, Token![,]>::parse_terminated(&content).map_err(|error| {
        syn::Error::new(
            error.span(),
            format_args!("`{key}` takes a list of strings: `{key}(\"a\", \"b\")`"),
        )
    })?;
    Ok(list.into_iter().collect())
}

/// A path, written bare (`crate = my::path`) or as a string (`crate = "my::path"`).
fn path_value(meta: &ParseNestedMeta<'_>) -> syn::Result<Path> {
    let key = key_of(meta);
    let value = meta.value()?;
    if value.peek(LitStr) {
        let text: LitStr = value.parse()?;
        return text.parse();
    }
    value.call(Path::parse_mod_style).map_err(|error| {
        syn::Error::new(
            error.span(),
            format_args!("`{key}` takes a path: `{key} = some::path`"),
        )
    })
}

/// Consumes whatever value follows an unknown or repeated key, so parsing can go on.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

fn unknown_key(attribute: &str, key: &str, known: &[&str]) -> String {
    let close = known
        .iter()
        .filter(|candidate| similar(key, candidate))
        .min_by_key(|candidate| distance(key, candidate));
    let list = known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match close {
        Some(close) => {
            format!("unknown {attribute} key `{key}`; did you mean `{close}`? (known keys: {list})")
        }
        None => format!("unknown {attribute} key `{key}` (known keys: {list})"),
    }
}

fn similar(a: &str, b: &str) -> bool {
    let strip = |s: &str| s.replace(['_', '-'], "").to_ascii_lowercase();
    let (a, b) = (strip(a), strip(b));
    a == b || distance(&a, &b) <= a.len().max(b.len()) / 3
}

/// Levenshtein distance, for suggestions among a handful of short keys.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            current.push(
                (previous[j] + cost)
                    .min(previous[j + 1] + 1)
                    .min(current[j] + 1),
            );
        }
        previous = current;
    }
    previous[b.len()]
}

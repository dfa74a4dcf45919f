//! Parsing attributes into typed values, each keeping its span: the `#[tool(..)]` arguments
//! ([`ToolAttrs`]) and the parameter attributes `#[arg(..)]` and `#[ctx]` ([`ParamAttrs`]).
//! Unknown and repeated keys are reported here, spanned at the key; semantic rules live in
//! `valid.rs`.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
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
    /// `blocking(quick)`: the body may run in place when quick (see `run_blocking`).
    pub(crate) blocking_quick: Flag,
    pub(crate) timeout_ms: Option<LitInt>,
    pub(crate) self_approving: Flag,
    pub(crate) read_only_if: Option<Path>,
    pub(crate) krate: Option<Path>,
    /// Not written by the user: the type a `#[tools]` method is called on, which the tool
    /// requires as state.
    pub(crate) receiver: Option<syn::Type>,
    /// Not written by the user: the impl type of a `#[tools]` method. The tool then calls the
    /// method itself (`<Type>::method`), and the function it was given (a stand-in with the
    /// method's signature, `self` as a context parameter) is read for its signature only.
    pub(crate) method_of: Option<syn::Type>,
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
        let parsed = match key.as_str() {
            "name" => string_value(&meta).map(|v| attrs.name = Some(v)),
            "title" => string_value(&meta).map(|v| attrs.title = Some(v)),
            "description" => string_value(&meta).map(|v| attrs.description = Some(v)),
            "read_only" => flag(cx, &meta).map(|v| attrs.read_only = v),
            "destructive" => flag(cx, &meta).map(|v| attrs.destructive = v),
            "idempotent" => flag(cx, &meta).map(|v| attrs.idempotent = v),
            "open_world" => flag(cx, &meta).map(|v| attrs.open_world = v),
            "closed_world" => flag(cx, &meta).map(|v| attrs.closed_world = v),
            "blocking" => blocking(cx, &meta).map(|quick| {
                attrs.blocking = Some(span_of(&meta.path));
                attrs.blocking_quick = quick;
            }),
            "self_approving" => flag(cx, &meta).map(|v| attrs.self_approving = v),
            "aliases" => string_list(&meta).map(|v| attrs.aliases = v),
            "tags" => string_list(&meta).map(|v| attrs.tags = v),
            "timeout_ms" => integer_value(&meta).map(|v| attrs.timeout_ms = Some(v)),
            "read_only_if" => path_value(&meta).map(|v| attrs.read_only_if = Some(v)),
            "crate" => path_value(&meta).map(|v| attrs.krate = Some(v)),
            _ => {
                cx.error_spanned_by(&meta.path, unknown_key("#[tool]", &key, TOOL_KEYS));
                return skip_value(&meta);
            }
        };
        recover(cx, &meta, parsed)
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
                let result = match key.as_str() {
                    "default" => default_value(&meta).map(|v| parsed.default = Some(v)),
                    "rename" => string_value(&meta).map(|v| parsed.rename = Some(v)),
                    "desc" => string_value(&meta).map(|v| parsed.desc = Some(v)),
                    "path" => flag(cx, &meta).map(|v| parsed.path = v),
                    "url" => flag(cx, &meta).map(|v| parsed.url = v),
                    "command" => flag(cx, &meta).map(|v| parsed.command = v),
                    _ => {
                        cx.error_spanned_by(&meta.path, unknown_key("#[arg]", &key, ARG_KEYS));
                        return skip_value(&meta);
                    }
                };
                recover(cx, &meta, result)
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

/// Reports a bad value and skips to the next key, so the keys after it are still checked.
fn recover(cx: &Ctxt, meta: &ParseNestedMeta<'_>, result: syn::Result<()>) -> syn::Result<()> {
    if let Err(error) = result {
        cx.syn_error(error);
        while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
            meta.input.parse::<proc_macro2::TokenTree>()?;
        }
    }
    Ok(())
}

/// `default = expr`, or `default` alone for `Default::default()` (as in serde).
fn default_value(meta: &ParseNestedMeta<'_>) -> syn::Result<Expr> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse()
    } else {
        Ok(syn::parse_quote_spanned!(meta.path.span()=> ::core::default::Default::default()))
    }
}

fn integer_value(meta: &ParseNestedMeta<'_>) -> syn::Result<LitInt> {
    let key = key_of(meta);
    let value = meta.value()?;
    value.parse::<LitInt>().map_err(|error| {
        syn::Error::new(
            error.span(),
            format_args!("`{key}` takes a whole number of milliseconds: `{key} = 30000`"),
        )
    })
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

/// `blocking` alone, or `blocking(quick)`: whether (and where) it says `quick`.
fn blocking(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Flag> {
    if !meta.input.peek(syn::token::Paren) {
        // `blocking = ..` is refused there, as for any flag.
        return flag(cx, meta).map(|_| None);
    }
    let mut quick = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("quick") && quick.is_none() {
            quick = Some(span_of(&inner.path));
            Ok(())
        } else {
            cx.error_spanned_by(
                &inner.path,
                "`blocking` takes only `quick`: write `blocking`, or `blocking(quick)` for a body that is usually quick and never enters the async runtime (no `Handle::block_on`)",
            );
            skip_value(&inner)
        }
    })?;
    Ok(quick)
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

/// Keys people write from other libraries, and what they mean here.
const SYNONYMS: &[(&str, &str)] = &[
    ("description", "desc"),
    ("doc", "desc"),
    ("readonly", "read_only"),
    ("alias", "aliases"),
    ("tag", "tags"),
    ("timeout", "timeout_ms"),
];

fn unknown_key(attribute: &str, key: &str, known: &[&str]) -> String {
    let synonym = SYNONYMS
        .iter()
        .find(|(other, ours)| *other == key && known.contains(ours))
        .map(|(_, ours)| ours);
    let close = synonym.or_else(|| {
        known
            .iter()
            .filter(|candidate| similar(key, candidate))
            .min_by_key(|candidate| distance(key, candidate))
    });
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

//! A model of the annotated function that borrows the syn nodes: its parameters classified as
//! the whole input (`Args<T>`), context, or one JSON argument each, and its return type.
//!
//! Building the model reports what cannot be modelled at all (a receiver, a pattern that is no
//! identifier); every other rule is checked on the model, in `valid.rs`.

use proc_macro2::Span;
use proc_macro2::{Delimiter, Group, TokenStream};
use quote::{ToTokens, TokenStreamExt};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, Pat, PathArguments, ReturnType, Signature, Type,
    Visibility,
};

use crate::attr::{self, ParamAttrs};
use crate::ctxt::Ctxt;
use crate::docs::{self, Docs};

/// The built-in context types, recognized by the last segment of their path.
pub(crate) const CONTEXT_TYPES: &[&str] = &[
    "ToolContext",
    "Workspace",
    "State",
    "CancellationToken",
    "Progress",
    "CallInfo",
    "ToolCaller",
];

/// The annotated function: like `syn::ItemFn`, except that the body stays an opaque token
/// group. The macro never looks inside the body, and parsing and printing it again for every
/// tool is measurable compile time.
#[derive(Clone)]
pub(crate) struct ToolItem {
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) vis: Visibility,
    pub(crate) sig: Signature,
    pub(crate) body: Group,
}

impl Parse for ToolItem {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        let sig = input.parse()?;
        let body: Group = input.parse()?;
        if body.delimiter() != Delimiter::Brace {
            return Err(syn::Error::new(
                body.span(),
                "expected the function's body in `{ .. }`",
            ));
        }
        Ok(ToolItem {
            attrs,
            vis,
            sig,
            body,
        })
    }
}

impl ToTokens for ToolItem {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.append_all(&self.attrs);
        self.vis.to_tokens(tokens);
        self.sig.to_tokens(tokens);
        self.body.to_tokens(tokens);
    }
}

pub(crate) struct ToolFn<'a> {
    pub(crate) item: &'a ToolItem,
    pub(crate) docs: Docs,
    pub(crate) params: Vec<Param<'a>>,
}

pub(crate) struct Param<'a> {
    /// The binding name (`x` in `x: T`, or in `Args(x): Args<T>`).
    pub(crate) ident: Ident,
    pub(crate) ty: &'a Type,
    pub(crate) attrs: ParamAttrs,
    pub(crate) kind: ParamKind<'a>,
}

pub(crate) enum ParamKind<'a> {
    /// `Args(x): Args<T>`: the whole input is `T`.
    Args { inner: Option<&'a Type> },
    /// Injected through `FromContext`.
    Context,
    /// One field of the generated args struct.
    Json(JsonParam<'a>),
}

pub(crate) struct JsonParam<'a> {
    /// The name the model sends.
    pub(crate) wire_name: String,
    /// `T` when the parameter is `Option<T>`.
    pub(crate) option_inner: Option<&'a Type>,
    /// The resource kind, explicit or implied by the type, with where it was declared.
    pub(crate) resource: Option<(ResourceKind, Span)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResourceKind {
    Path,
    Url,
    Command,
}

impl ResourceKind {
    pub(crate) fn variant(self) -> &'static str {
        match self {
            ResourceKind::Path => "Path",
            ResourceKind::Url => "Url",
            ResourceKind::Command => "Command",
        }
    }
}

impl<'a> ToolFn<'a> {
    pub(crate) fn from_item(cx: &Ctxt, item: &'a ToolItem) -> Self {
        let params = item
            .sig
            .inputs
            .iter()
            .filter_map(|input| Param::from_input(cx, input))
            .collect();
        ToolFn {
            item,
            docs: docs::parse(&item.attrs),
            params,
        }
    }

    pub(crate) fn is_async(&self) -> bool {
        self.item.sig.asyncness.is_some()
    }

    /// The declared return type, `None` for `()`.
    pub(crate) fn return_type(&self) -> Option<&'a Type> {
        match &self.item.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some(ty),
        }
    }

    pub(crate) fn json_params(&self) -> impl Iterator<Item = (&Param<'a>, &JsonParam<'a>)> {
        self.params.iter().filter_map(|param| match &param.kind {
            ParamKind::Json(json) => Some((param, json)),
            _ => None,
        })
    }

    pub(crate) fn args_param(&self) -> Option<&Param<'a>> {
        self.params
            .iter()
            .find(|param| matches!(param.kind, ParamKind::Args { .. }))
    }
}

impl<'a> Param<'a> {
    fn from_input(cx: &Ctxt, input: &'a FnArg) -> Option<Self> {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                cx.error_spanned_by(
                    receiver,
                    "a method is a tool inside a `#[tools]` impl: put `#[tools]` on the impl block (`#[tools] impl Type { #[tool] fn name(&self, ..) }`), or make the tool a free function taking `State<T>`",
                );
                return None;
            }
            FnArg::Typed(typed) => typed,
        };
        let attrs = attr::parse_param_attrs(cx, &typed.attrs);
        let ty: &Type = &typed.ty;
        let (ident, is_args_pattern) = match &*typed.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                (pat.ident.clone(), false)
            }
            Pat::TupleStruct(pat)
                if pat.path.segments.last().is_some_and(|s| s.ident == "Args")
                    && pat.elems.len() == 1 =>
            {
                match pat.elems.first() {
                    Some(Pat::Ident(inner)) if inner.by_ref.is_none() && inner.subpat.is_none() => {
                        (inner.ident.clone(), true)
                    }
                    _ => {
                        cx.error_spanned_by(
                            &pat.elems,
                            "write `Args(name): Args<T>` with a plain identifier inside `Args(..)`",
                        );
                        return None;
                    }
                }
            }
            other => {
                cx.error_spanned_by(
                    other,
                    "a tool parameter must be a plain identifier (`name: Type`) or `Args(name): Args<T>`; destructure inside the function instead",
                );
                return None;
            }
        };
        // `#[ctx]` says what the parameter is, whatever its type is called (a `#[tools]`
        // method of a type named `Args` takes it as `#[ctx] &Args`).
        let kind = if is_args_pattern || (attrs.ctx.is_none() && last_segment_is(ty, "Args")) {
            ParamKind::Args {
                inner: single_generic(ty, "Args"),
            }
        } else if attrs.ctx.is_some() || is_context_type(ty) {
            ParamKind::Context
        } else {
            ParamKind::Json(JsonParam {
                wire_name: attrs
                    .rename
                    .as_ref()
                    .map_or_else(|| unraw(&ident), syn::LitStr::value),
                option_inner: single_generic(ty, "Option"),
                resource: resource_kind(&attrs, ty),
            })
        };
        Some(Param {
            ident,
            ty,
            attrs,
            kind,
        })
    }
}

fn resource_kind(attrs: &ParamAttrs, ty: &Type) -> Option<(ResourceKind, Span)> {
    let explicit = [
        (attrs.path, ResourceKind::Path),
        (attrs.url, ResourceKind::Url),
        (attrs.command, ResourceKind::Command),
    ]
    .into_iter()
    .find_map(|(flag, kind)| flag.map(|span| (kind, span)));
    explicit.or_else(|| {
        if mentions_type(ty, "WorkspacePath") {
            Some((ResourceKind::Path, ty.span()))
        } else if mentions_type(ty, "WebUrl") {
            Some((ResourceKind::Url, ty.span()))
        } else {
            None
        }
    })
}

/// An identifier as the model and the docs spell it: `type` for `r#type`.
pub(crate) fn unraw(ident: &Ident) -> String {
    syn::ext::IdentExt::unraw(ident).to_string()
}

/// The type with references and parentheses removed.
pub(crate) fn strip_refs(mut ty: &Type) -> &Type {
    loop {
        match ty {
            Type::Reference(reference) => ty = &reference.elem,
            Type::Paren(paren) => ty = &paren.elem,
            Type::Group(group) => ty = &group.elem,
            _ => return ty,
        }
    }
}

pub(crate) fn last_segment_is(ty: &Type, name: &str) -> bool {
    match strip_refs(ty) {
        Type::Path(path) => path.path.segments.last().is_some_and(|s| s.ident == name),
        _ => false,
    }
}

/// A built-in context type, by value or reference, or an `Option` of one.
fn is_context_type(ty: &Type) -> bool {
    let ty = single_generic(strip_refs(ty), "Option").unwrap_or(ty);
    CONTEXT_TYPES.iter().any(|name| last_segment_is(ty, name))
}

/// `T` in `Name<T>` (by the last path segment), for `Option<T>` and `Args<T>`.
fn single_generic<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last()?;
    if segment.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(arguments) = &segment.arguments else {
        return None;
    };
    match arguments.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(inner)] => Some(inner),
        _ => None,
    }
}

/// A part of a type, as visited by [`any_part`].
pub(crate) enum TypePart<'a> {
    Type(&'a Type),
    Lifetime(&'a syn::Lifetime),
}

/// `true` if `found` holds for the type or any type or lifetime nested in it (generic
/// arguments, references, slices, arrays, tuples).
pub(crate) fn any_part(ty: &Type, found: &impl Fn(TypePart<'_>) -> bool) -> bool {
    if found(TypePart::Type(ty)) {
        return true;
    }
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .iter()
            .any(|segment| match &segment.arguments {
                PathArguments::AngleBracketed(arguments) => {
                    arguments.args.iter().any(|argument| match argument {
                        GenericArgument::Type(inner) => any_part(inner, found),
                        GenericArgument::Lifetime(lifetime) => found(TypePart::Lifetime(lifetime)),
                        _ => false,
                    })
                }
                _ => false,
            }),
        Type::Reference(reference) => any_part(&reference.elem, found),
        Type::Paren(paren) => any_part(&paren.elem, found),
        Type::Group(group) => any_part(&group.elem, found),
        Type::Slice(slice) => any_part(&slice.elem, found),
        Type::Array(array) => any_part(&array.elem, found),
        Type::Tuple(tuple) => tuple.elems.iter().any(|elem| any_part(elem, found)),
        _ => false,
    }
}

/// `true` if `name` appears as a path segment anywhere in the type (`Option<Vec<WebUrl>>`).
fn mentions_type(ty: &Type, name: &str) -> bool {
    any_part(
        ty,
        &|part| matches!(part, TypePart::Type(Type::Path(path)) if path.path.segments.iter().any(|s| s.ident == name)),
    )
}

/// `true` if the type contains `impl Trait` anywhere.
pub(crate) fn contains_impl_trait(ty: &Type) -> bool {
    any_part(ty, &|part| {
        matches!(part, TypePart::Type(Type::ImplTrait(_)))
    })
}

/// `true` if the type borrows anywhere (`&str`, `Option<&Path>`, `Cow<'a, str>`).
pub(crate) fn contains_reference(ty: &Type) -> bool {
    any_part(ty, &|part| match part {
        TypePart::Type(Type::Reference(_)) => true,
        TypePart::Lifetime(lifetime) => lifetime.ident != "static",
        TypePart::Type(_) => false,
    })
}

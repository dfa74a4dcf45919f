//! `#[tools]` on an inherent impl block: each method marked `#[tool(..)]` becomes a tool, as a
//! free function would, whose receiver is the coordinator's state of the impl's type.
//!
//! For each such method this builds (as syntax, never printed and parsed again) a stand-in free
//! function with the method's documentation and parameters and a hidden first parameter, the
//! receiver, and runs it through `#[tool]`'s own phases, so a method gets exactly what a
//! function gets (schema, extraction, effect, aliases, resources, docs). The stand-in is read
//! for its signature only: the tool borrows the receiver from the coordinator's state
//! (`__private::receiver`: a `State<Type>`, or a `State<Arc<Type>>`) and calls the method
//! itself (`<Type>::method`), so a method costs no second function to compile, and a method
//! with errors needs no stand-in emitted to keep its callers compiling. Its spec names the
//! state it requires, so a coordinator built without that state fails at `build()`. All of a
//! tool's code sits in the `const _: () = { .. };` `#[tool]` writes, so methods of the same
//! name on two types do not collide. The impl itself is emitted unchanged but for the
//! attributes this macro consumes.
//!
//! What cannot be a tool method is refused here, spanned: a generic or trait impl, a receiver
//! other than `&self` (`&mut self` names interior mutability as the way), a generic method,
//! and an output that borrows from `self`.

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::parse::discouraged::Speculative;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, FnArg, ImplItem, ItemImpl, LitStr, PatType, ReturnType, Signature, Token, Type,
    TypePath, Visibility, parse_quote, parse_quote_spanned,
};

use crate::ast::{ToolItem, unraw};
use crate::attr::is_param_attr;
use crate::ctxt::Ctxt;

/// Expands `#[tools]` with `args` on `input`.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let Some((mut item, mut members)) = parse_impl(input.clone()) else {
        let error = syn::Error::new(
            Span::call_site(),
            "#[tools] goes on an impl block: `#[tools] impl Server { #[tool] fn name(&self, ..) -> .. { .. } }`",
        )
        .to_compile_error();
        return quote!(#error #input);
    };
    let cx = Ctxt::new();
    if !args.is_empty() {
        cx.error_spanned_by(
            &args,
            "#[tools] takes no arguments; give each tool's options in its own #[tool(..)]",
        );
    }
    if let Some((_, trait_path, _)) = &item.trait_ {
        cx.error_spanned_by(
            trait_path,
            "#[tools] goes on an inherent impl (`impl Server { .. }`), not a trait impl: write the tools as methods of the type itself",
        );
    }
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &item.generics,
            "#[tools] cannot be on a generic impl: a tool's schema and state type must be known at compile time; implement the tools for a concrete type",
        );
    }
    let self_ty = (*item.self_ty).clone();
    let mut tools = Vec::new();
    for member in &mut members {
        let Member::Method(method) = member else {
            continue;
        };
        let Some(position) = method.attrs.iter().position(is_tool_attr) else {
            continue;
        };
        let attr = method.attrs.remove(position);
        if let Some(wrapper) = wrapper(&cx, &self_ty, method, &attr) {
            tools.push(wrapper);
        }
        // What #[tool] consumes from the parameters is not valid on a method's.
        for input in &mut method.sig.inputs {
            if let FnArg::Typed(typed) = input {
                typed.attrs.retain(|attr| !is_param_attr(attr));
            }
        }
    }
    item.items = members.iter().map(Member::to_impl_item).collect();
    // One stream of all the tools, made at once: appending them one by one copies what is
    // already there each time, which for 200 tools cost more than their expansion.
    let tools: TokenStream = tools.into_iter().collect();
    match cx.check() {
        Ok(()) => quote! {
            #item
            #tools
        },
        Err(errors) => {
            let errors = errors.to_compile_error();
            quote!(#item #errors)
        }
    }
}

/// The impl block, and its members apart: a method's body is kept as the group of tokens it
/// came in, never parsed into statements and printed again (the compiler rebuilds each group
/// a proc macro hands back, and 200 method bodies cost more to hand back than their tools).
/// `None` when `input` is no impl block.
fn parse_impl(input: TokenStream) -> Option<(ItemImpl, Vec<Member>)> {
    let mut tokens: Vec<TokenTree> = input.into_iter().collect();
    let Some(TokenTree::Group(body)) = tokens.pop() else {
        return None;
    };
    if body.delimiter() != Delimiter::Brace {
        return None;
    }
    // The header is parsed with an empty body, so syn reads it exactly as it reads any impl.
    let mut header: TokenStream = tokens.into_iter().collect();
    header.extend([TokenTree::Group(Group::new(
        Delimiter::Brace,
        TokenStream::new(),
    ))]);
    let mut item: ItemImpl = syn::parse2(header).ok()?;
    item.brace_token.span = body.delim_span();
    let members = (|input: ParseStream<'_>| {
        item.attrs.extend(input.call(Attribute::parse_inner)?);
        let mut members = Vec::new();
        while !input.is_empty() {
            members.push(input.parse()?);
        }
        Ok(members)
    })
    .parse2(body.stream())
    .ok()?;
    Some((item, members))
}

/// A member of the impl: a method, with its body as it came, or any other item, as tokens.
enum Member {
    Method(Box<Method>),
    Other(TokenStream),
}

/// A method whose body is the group of tokens it was written as.
struct Method {
    attrs: Vec<Attribute>,
    vis: Visibility,
    defaultness: Option<Token![default]>,
    sig: Signature,
    body: Group,
}

impl Parse for Member {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let ahead = input.fork();
        if let Ok(method) = ahead.parse::<Method>() {
            input.advance_to(&ahead);
            return Ok(Member::Method(Box::new(method)));
        }
        input
            .parse::<ImplItem>()
            .map(|item| Member::Other(item.into_token_stream()))
    }
}

impl Parse for Method {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        let defaultness = input.parse()?;
        let sig = input.parse()?;
        let body: Group = input.parse()?;
        if body.delimiter() != Delimiter::Brace {
            return Err(syn::Error::new(body.span(), "expected the method's body"));
        }
        Ok(Method {
            attrs,
            vis,
            defaultness,
            sig,
            body,
        })
    }
}

impl Member {
    /// The member as the impl emits it; a method's body is the group it came in.
    fn to_impl_item(&self) -> ImplItem {
        match self {
            Member::Method(method) => {
                let Method {
                    attrs,
                    vis,
                    defaultness,
                    sig,
                    body,
                } = &**method;
                ImplItem::Verbatim(quote!(#(#attrs)* #vis #defaultness #sig #body))
            }
            Member::Other(item) => ImplItem::Verbatim(item.clone()),
        }
    }
}

fn is_tool_attr(attr: &Attribute) -> bool {
    attr.path().is_ident("tool")
}

/// The tool of `method`: its stand-in free function, run through `#[tool]` with the method's
/// attribute; `None` (with errors in `cx`) when the method cannot be a tool.
fn wrapper(cx: &Ctxt, self_ty: &Type, method: &Method, attr: &Attribute) -> Option<TokenStream> {
    let sig = &method.sig;
    let method_ident = &sig.ident;
    let mut receiver = None;
    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(found) => {
                if found.reference.is_some()
                    && found.mutability.is_none()
                    && found.colon_token.is_none()
                {
                    receiver = Some(found);
                } else if found.mutability.is_some() && found.reference.is_some() {
                    cx.error_spanned_by(
                        found,
                        "a tool method takes `&self`, not `&mut self`: calls may run at once, so state a tool changes goes behind interior mutability (a `Mutex`, an `RwLock`, an atomic) in a field",
                    );
                } else {
                    cx.error_spanned_by(
                        found,
                        "a tool method takes `&self`: the coordinator keeps the value and lends it to each call",
                    );
                }
            }
            FnArg::Typed(typed) => {
                let mut typed = typed.clone();
                ReplaceSelf(self_ty).visit_type_mut(&mut typed.ty);
                params.push(typed);
            }
        }
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            "a tool cannot be generic: its schema must be known at compile time; use concrete types",
        );
        return None;
    }
    let mut output = sig.output.clone();
    if let ReturnType::Type(_, ty) = &mut output {
        if receiver.is_some() && borrows_elided(ty) {
            cx.error_spanned_by(
                &**ty,
                "a tool's output cannot borrow from `self`: it outlives the call; return an owned value (`String` for text)",
            );
            return None;
        }
        ReplaceSelf(self_ty).visit_type_mut(ty);
    }
    // The method's options, with its name as the tool's unless they give one, and the value
    // it is called on as the state the tool requires.
    let options = match &attr.meta {
        syn::Meta::Path(_) => TokenStream::new(),
        syn::Meta::List(list) => list.tokens.clone(),
        syn::Meta::NameValue(value) => {
            cx.error_spanned_by(value, "write `#[tool]` or `#[tool(..)]`");
            return None;
        }
    };
    let tool_cx = Ctxt::new();
    let mut attrs = crate::attr::parse_tool_attrs(&tool_cx, options);
    attrs
        .name
        .get_or_insert_with(|| LitStr::new(&unraw(method_ident), method_ident.span()));
    attrs.receiver = receiver.map(|_| self_ty.clone());
    attrs.method_of = Some(self_ty.clone());
    let docs: Vec<&Attribute> = method
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .collect();
    // The method's `#[cfg]`s, which its tool gets too.
    let cfgs: Vec<&Attribute> = method
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
        .collect();
    // The stand-in is built as syntax, not written out and parsed again: its name is the
    // method's, at its span, so errors and the registry's `line!()` point at the method.
    let mut inputs = Punctuated::new();
    if let Some(found) = receiver {
        let span = found.span();
        let receiver_ident = Ident::new("__tool_receiver", Span::mixed_site());
        inputs.push(FnArg::Typed(PatType {
            attrs: vec![parse_quote_spanned!(span=> #[ctx])],
            pat: Box::new(parse_quote!(#receiver_ident)),
            colon_token: Token![:](span),
            ty: Box::new(parse_quote_spanned!(span=> &#self_ty)),
        }));
    }
    inputs.extend(params.into_iter().map(FnArg::Typed));
    let item = ToolItem {
        attrs: docs.into_iter().cloned().collect(),
        vis: Visibility::Inherited,
        // The method's ABI is its own: the tool calls it from Rust either way.
        sig: Signature {
            inputs,
            output,
            abi: None,
            ..sig.clone()
        },
        // Never emitted: the tool calls the method, and a method with errors stays in its impl.
        body: Group::new(Delimiter::Brace, TokenStream::new()),
    };
    // The options' errors are reported with the tool's own, all at once.
    let tool = crate::tool_tokens(tool_cx, &attrs, &item);
    // A method compiled out takes its tool with it, errors and all: under its `#[cfg]`, the
    // tool's items (or its errors) sit in one block.
    if cfgs.is_empty() {
        return Some(tool);
    }
    Some(quote! {
        #(#cfgs)*
        const _: () = { #tool };
    })
}

/// `true` when `ty` holds a reference whose lifetime is elided (`&str`, `&'_ T`): in a method
/// with `&self`, one borrowed from `self`.
fn borrows_elided(ty: &Type) -> bool {
    struct Finder(bool);
    impl VisitMut for Finder {
        fn visit_type_reference_mut(&mut self, reference: &mut syn::TypeReference) {
            if reference
                .lifetime
                .as_ref()
                .is_none_or(|lifetime| lifetime.ident == "_")
            {
                self.0 = true;
            }
            syn::visit_mut::visit_type_reference_mut(self, reference);
        }
    }
    let mut finder = Finder(false);
    finder.visit_type_mut(&mut ty.clone());
    finder.0
}

/// Replaces `Self` in a type by the impl's type: the free function has no `Self`.
struct ReplaceSelf<'a>(&'a Type);

impl VisitMut for ReplaceSelf<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(TypePath { qself: None, path }) = ty
            && path
                .segments
                .first()
                .is_some_and(|first| first.ident == "Self")
        {
            if path.segments.len() == 1 {
                *ty = self.0.clone();
                return;
            }
            // `Self::Output` as `<Type>::Output`.
            let self_ty = self.0;
            let rest: Vec<_> = path.segments.iter().skip(1).collect();
            *ty = syn::parse_quote!(<#self_ty>::#(#rest)::*);
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

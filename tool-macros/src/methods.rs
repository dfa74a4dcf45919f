//! `#[tools]` on an inherent impl block: each method marked `#[tool(..)]` becomes a tool, as a
//! free function would, whose receiver is the coordinator's state of the impl's type.
//!
//! For each such method this writes a stand-in free function with the method's documentation
//! and parameters and a hidden first parameter that takes the receiver from the coordinator's
//! state (`__private::Receiver<'_, Type>`: a `State<Type>`, or a `State<Arc<Type>>`, borrowed), and runs it
//! through `#[tool]`'s own phases, so a method gets exactly what a function gets (schema,
//! extraction, effect, aliases, resources, docs); its tool also says which state it requires,
//! so a coordinator built without that state fails at `build()`. The stand-in is read for its
//! signature only: the tool calls the method itself (`<Type>::method`, the receiver lent as
//! `&self`), so a method costs no second function to compile. Each registration sits in a
//! `const _: () = { .. };` of its own, so methods of the same name on two types do not
//! collide. The impl itself is emitted unchanged but for the attributes this macro consumes.
//!
//! What cannot be a tool method is refused here, spanned: a generic or trait impl, a receiver
//! other than `&self` (`&mut self` names interior mutability as the way), a generic method,
//! and an output that borrows from `self`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, FnArg, ImplItem, ImplItemFn, ItemImpl, LitStr, Pat, ReturnType, Type, TypePath,
};

use crate::ast::{ToolItem, unraw};
use crate::attr::is_param_attr;
use crate::ctxt::Ctxt;

/// Expands `#[tools]` with `args` on `input`.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: ItemImpl = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let error = syn::Error::new(
                Span::call_site(),
                "#[tools] goes on an impl block: `#[tools] impl Server { #[tool] fn name(&self, ..) -> .. { .. } }`",
            )
            .to_compile_error();
            return quote!(#error #input);
        }
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
    for member in &mut item.items {
        let ImplItem::Fn(method) = member else {
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
    match cx.check() {
        Ok(()) => quote! {
            #item
            #(#tools)*
        },
        Err(errors) => {
            let errors = errors.to_compile_error();
            quote!(#item #errors)
        }
    }
}

fn is_tool_attr(attr: &Attribute) -> bool {
    attr.path().is_ident("tool")
}

/// The tool of `method`: its stand-in free function, run through `#[tool]` with the method's
/// attribute; `None` (with errors in `cx`) when the method cannot be a tool.
fn wrapper(
    cx: &Ctxt,
    self_ty: &Type,
    method: &ImplItemFn,
    attr: &Attribute,
) -> Option<TokenStream> {
    let sig = &method.sig;
    let method_ident = &sig.ident;
    let mut receiver = None;
    let mut params = Vec::new();
    let mut call_args = Vec::new();
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
                call_args.push(argument(&typed.pat));
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
    let krate: syn::Path = attrs
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::tool_core));
    let docs: Vec<&Attribute> = method
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .collect();
    // A method compiled out takes its tool with it: the whole block, not the function alone.
    let cfgs: Vec<&Attribute> = method
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
        .collect();
    let asyncness = sig.asyncness;
    let awaited = asyncness.map(|_| quote!(.await));
    // The wrapper's name is the method's, at its span: errors and the registry's `line!()`
    // point at the method.
    let wrapper_ident = method_ident.clone();
    let receiver_ident = format_ident!("__tool_receiver", span = Span::mixed_site());
    let (receiver_param, call) = match receiver {
        Some(found) => (
            quote_spanned! {found.span()=>
                #[ctx] #receiver_ident: #krate::__private::Receiver<'_, #self_ty>,
            },
            quote!(<#self_ty>::#method_ident(&#receiver_ident, #(#call_args),*) #awaited),
        ),
        None => (
            TokenStream::new(),
            quote!(<#self_ty>::#method_ident(#(#call_args),*) #awaited),
        ),
    };
    let item_tokens = quote! {
        #(#docs)*
        #asyncness fn #wrapper_ident(#receiver_param #(#params),*) #output {
            #call
        }
    };
    let item: ToolItem = match syn::parse2(item_tokens) {
        Ok(item) => item,
        Err(error) => {
            // The options' own errors go with it.
            if let Err(options) = tool_cx.check() {
                cx.syn_error(options);
            }
            cx.syn_error(error);
            return None;
        }
    };
    let tool = crate::tool_tokens(tool_cx, &attrs, &item);
    Some(quote! {
        #(#cfgs)*
        const _: () = { #tool };
    })
}

/// How a parameter's binding is passed on: `x`, or `Args(x)` rebuilt as written.
fn argument(pat: &Pat) -> TokenStream {
    match pat {
        Pat::Ident(pat) => {
            let ident = &pat.ident;
            quote!(#ident)
        }
        Pat::TupleStruct(pat) => {
            let path = &pat.path;
            let elems = &pat.elems;
            quote!(#path(#elems))
        }
        // Refused by #[tool]'s own checks, spanned at the pattern.
        other => quote!(#other),
    }
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

//! The `#[tool]` attribute. Use it through `tool_core::tool`; the reference is in tool-core's
//! documentation and the repository's guide (`docs/tools.md`).
//!
//! The crate is split by phase, like thiserror's: `attr` parses attributes into typed values
//! with spans, `docs` reads doc comments, `ast` models the function, `valid` holds every rule,
//! `expand` generates code, `fallback` emits errors without cascading, and `ctxt` collects the
//! errors of an item so they are all reported together; `methods` turns the `#[tool]` methods
//! of a `#[tools]` impl into functions those phases take. This file only parses and
//! dispatches.

mod ast;
mod attr;
mod ctxt;
mod docs;
mod expand;
mod fallback;
mod methods;
mod valid;

use proc_macro::TokenStream;

/// Turns a function into a tool. See `tool_core::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match syn::parse::<ast::ToolItem>(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let error = syn::Error::new(
                proc_macro2::Span::call_site(),
                "#[tool] goes on a function: `#[tool] fn name(..) -> .. { .. }` (or on a method of a `#[tools] impl`)",
            )
            .to_compile_error();
            let mut output = TokenStream::from(error);
            output.extend(input);
            return output;
        }
    };
    let cx = ctxt::Ctxt::new();
    let attrs = attr::parse_tool_attrs(&cx, args.into());
    tool_tokens(cx, &attrs, &item).into()
}

/// Turns the methods marked `#[tool]` of an impl block into tools. See `tool_core::tools`.
#[proc_macro_attribute]
pub fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    methods::expand(args.into(), input.into()).into()
}

/// `#[tool]`'s phases after the options are parsed (into `attrs`, with their errors in `cx`):
/// model `item`, check it, expand it or emit the errors.
fn tool_tokens(
    cx: ctxt::Ctxt,
    attrs: &attr::ToolAttrs,
    item: &ast::ToolItem,
) -> proc_macro2::TokenStream {
    let model = ast::ToolFn::from_item(&cx, item);
    valid::check(&cx, attrs, &model);
    let cleaned = fallback::clean(item);
    match cx.check() {
        Ok(()) => expand::expand(attrs, &model, &cleaned),
        // A method stays in its impl, so its stand-in has nothing to keep compiling.
        Err(errors) if attrs.method_of.is_some() => errors.to_compile_error(),
        Err(errors) => fallback::emit(&cleaned, &errors),
    }
}

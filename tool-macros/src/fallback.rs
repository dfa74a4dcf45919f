//! What is emitted when an item has errors: the errors, plus the user's function cleaned of the
//! parameter attributes this macro consumes. Re-emitting the function keeps every other use of
//! it compiling, so one mistake in `#[tool]` does not cascade into errors elsewhere.

use proc_macro2::TokenStream;
use quote::quote;
use syn::FnArg;

use crate::ast::ToolItem;

use crate::attr::is_param_attr;

/// The function without `#[arg]`, `#[ctx]`, `#[serde]` and `#[schemars]` on its parameters,
/// which are not valid there once the macro is done.
pub(crate) fn clean(item: &ToolItem) -> ToolItem {
    let mut cleaned = item.clone();
    for input in &mut cleaned.sig.inputs {
        if let FnArg::Typed(typed) = input {
            typed.attrs.retain(|attr| !is_param_attr(attr));
        }
    }
    cleaned
}

pub(crate) fn emit(cleaned: &ToolItem, errors: &syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    quote! {
        #cleaned
        #errors
    }
}

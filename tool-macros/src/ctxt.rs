//! Error collection: every phase reports into one [`Ctxt`], so a user sees all the mistakes of
//! an item at once. A `Ctxt` must be checked before it is dropped; forgetting to is a bug in
//! this crate, caught by a panic in its own tests rather than by lost diagnostics.

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

pub(crate) struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Reports an error spanned at `tokens`.
    pub(crate) fn error_spanned_by(&self, tokens: impl ToTokens, message: impl Display) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Reports an error at a span.
    pub(crate) fn error_at(&self, span: proc_macro2::Span, message: impl Display) {
        self.syn_error(syn::Error::new(span, message));
    }

    /// Reports a parse error.
    pub(crate) fn syn_error(&self, error: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Ctxt used after check")
            .push(error);
    }

    /// Ends collection: all errors combined into one, or `Ok`.
    pub(crate) fn check(self) -> Result<(), syn::Error> {
        let errors = self.errors.borrow_mut().take().expect("Ctxt checked twice");
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("tool-macros: a Ctxt was dropped without being checked");
        }
    }
}

//! Collects every error of one macro invocation, so the user sees all of
//! them in one build instead of one per build.

use std::fmt::Display;

use quote::ToTokens;

/// An error accumulator. Each error is spanned on the user's token that
/// caused it.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Records an error at `tokens`.
    pub(crate) fn error_spanned_by(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records a `syn` error as it is.
    pub(crate) fn syn_error(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// All errors combined into one, or `Ok` if there were none.
    pub(crate) fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.into_iter();
        let Some(mut first) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            first.combine(error);
        }
        Err(first)
    }
}

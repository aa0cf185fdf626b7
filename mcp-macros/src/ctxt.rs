//! Collects every error of one macro invocation, so the user sees all of
//! them in one build instead of one per build.

use std::fmt::Display;

use quote::ToTokens;

/// An error accumulator. Each error is spanned on the user's token that
/// caused it. It must be consumed with [`Ctxt::check`]: dropping one that
/// unchecked is a bug in the macro, and panics, so no error can be lost on
/// the way (as in serde_derive).
pub(crate) struct Ctxt {
    /// `None` once checked.
    errors: Option<Vec<syn::Error>>,
}

impl Ctxt {
    /// An empty accumulator.
    pub(crate) fn new() -> Self {
        Self {
            errors: Some(Vec::new()),
        }
    }

    /// Records an error at `tokens`.
    pub(crate) fn error_spanned_by(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.syn_error(syn::Error::new_spanned(tokens, message));
    }

    /// Records a `syn` error as it is.
    pub(crate) fn syn_error(&mut self, error: syn::Error) {
        self.errors.get_or_insert_with(Vec::new).push(error);
    }

    /// All errors combined into one, or `Ok` if there were none.
    pub(crate) fn check(mut self) -> syn::Result<()> {
        let mut errors = self.errors.take().unwrap_or_default().into_iter();
        let Some(mut first) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            first.combine(error);
        }
        Err(first)
    }
}

impl Drop for Ctxt {
    #[allow(clippy::panic)] // a bug in this crate, never the user's input
    fn drop(&mut self) {
        if self.errors.is_some() && !std::thread::panicking() {
            panic!(
                "mcp-runtime-macros: a Ctxt was dropped without being checked (call `Ctxt::check`)"
            );
        }
    }
}

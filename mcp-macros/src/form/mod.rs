//! `#[derive(ElicitForm)]` and `#[derive(ElicitChoice)]`: parse the item,
//! check it, emit the impl. On error the impl is still emitted as a stub
//! beside the errors, so code that uses the type reports nothing more.

mod attr;
mod choice;
mod struct_form;

pub(crate) use choice::derive_choice;
pub(crate) use struct_form::derive_form;

//! The typed side of elicitation: forms derived from structs, choices
//! derived from enums, and typed answers.
//!
//! `#[derive(ElicitForm)]` on a struct with named fields implements
//! [`ElicitForm`]: the struct becomes an `ElicitRequestedSchema`, and an
//! accepted answer decodes back into the struct after every constraint the
//! schema declared has been checked (the client is not trusted).
//! `#[derive(ElicitChoice)]` on a fieldless enum implements
//! [`ElicitChoice`], which makes the enum usable as a single-select field,
//! and a `Vec`/set of it as a multi-select field.

mod answer;
mod bounds;
mod decode;
mod field;
mod formats;
mod schema;
mod url;

pub use answer::{Answer, FormError};
pub use bounds::FormBoundsError;
#[cfg(feature = "server")]
pub(crate) use bounds::check_forms;
pub use decode::FormDecoder;
pub use field::{ChoiceOption, DefaultValue, ElicitChoice, ElicitField, FieldOptions};
pub use schema::FormSchema;
pub use url::UrlConsent;

use std::collections::BTreeMap;

use crate::schema::{
    ElicitRequestFormParams, ElicitRequestParams, ElicitRequestedSchema, ElicitValue, InputRequest,
    RenderedSchema, RequestedSchema,
};

/// A flat form the server can ask the user to fill in.
///
/// Derive it with `#[derive(ElicitForm)]`; implementing it by hand is
/// possible but rarely useful.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an elicitation form",
    note = "derive it: `#[derive(ElicitForm)]` on a struct with named fields"
)]
pub trait ElicitForm: Sized {
    /// The form's schema, built and rendered to JSON once per type (the
    /// derive keeps it in a `static`).
    fn form_schema() -> &'static RenderedSchema;

    /// Builds the value from a decoder that has already checked each field
    /// against the schema (generated code calls `decoder.field(name)`).
    fn decode(decoder: &mut FormDecoder<'_>) -> Result<Self, FormError>;

    /// The form's schema.
    fn requested_schema() -> &'static ElicitRequestedSchema {
        Self::form_schema().schema()
    }

    /// Decodes submitted form content, enforcing the schema's constraints.
    fn from_content(content: &BTreeMap<String, ElicitValue>) -> Result<Self, FormError> {
        let mut decoder = FormDecoder::new(Self::requested_schema(), content);
        Self::decode(&mut decoder)
    }

    /// An `elicitation/create` input request (form mode) for this form. The
    /// schema is shared, not copied, and goes out as the JSON rendered once.
    fn form(message: impl Into<String>) -> InputRequest {
        InputRequest::Elicitation(ElicitRequestParams::Form(ElicitRequestFormParams {
            mode: None,
            message: message.into(),
            requested_schema: RequestedSchema::Shared(Self::form_schema()),
        }))
    }

    /// This form asked again after an answer that did not pass its checks
    /// ([`Answer::Invalid`]): `message`, preceded by the sentence
    /// [`FormError::explain`] writes, which names the field at fault (by
    /// its title, else its name) and what is wrong with it.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(ElicitForm)]
    /// struct Booking {
    ///     /// Number of seats.
    ///     #[elicit(title = "Seats", minimum = 1, maximum = 4)]
    ///     seats: u8,
    /// }
    ///
    /// #[derive(Serialize, Deserialize)]
    /// enum Step {
    ///     Asked,
    /// }
    ///
    /// /// Books seats.
    /// #[tool]
    /// async fn book(ctx: Ctx, step: Resume<Step>) -> Reply<Step> {
    ///     let ask = |request| Reply::ask("booking", request).resume(Step::Asked);
    ///     if step.is_first_call() {
    ///         return ask(Booking::form("How many seats?"));
    ///     }
    ///     match ctx.answer::<Booking>("booking") {
    ///         Answer::Accept(Booking { seats }) => Reply::text(format!("Booked {seats}.")),
    ///         Answer::Decline | Answer::Cancel => Reply::text("Not booked."),
    ///         Answer::Missing => ask(Booking::form("How many seats?")),
    ///         // "Seats: must be at most 4, got 9. How many seats?"
    ///         Answer::Invalid(error) => ask(Booking::form_again(&error, "How many seats?")),
    ///     }
    /// }
    ///
    /// let error = mcp_runtime::form::FormError::field("seats", "must be at most 4, got 9");
    /// let request = serde_json::to_value(Booking::form_again(&error, "How many seats?"))?;
    /// assert_eq!(request["params"]["message"], "Seats: must be at most 4, got 9. How many seats?");
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    fn form_again(error: &FormError, message: impl Into<String>) -> InputRequest {
        Self::form(format!("{} {}", error.explain::<Self>(), message.into()))
    }
}

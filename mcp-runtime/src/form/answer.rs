//! Typed answers to form elicitations, and why an answer was refused.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde_json::Value;

use super::{ElicitForm, FormDecoder};
use crate::schema::{ElicitAction, ElicitValue, JsonKey, JsonObject};

/// Why submitted form content could not become the form's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormError {
    /// The offending field, when the problem is one field's.
    pub field: Option<String>,
    /// What is wrong, e.g. `missing` or `must be at most 200 characters long, got 201`.
    pub reason: String,
}

impl FormError {
    /// An error about field `field`.
    pub fn field(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            field: Some(field.into()),
            reason: reason.into(),
        }
    }

    /// An error about the answer as a whole.
    pub fn whole(reason: impl Into<String>) -> Self {
        Self {
            field: None,
            reason: reason.into(),
        }
    }

    /// One sentence for the user, to show when asking form `T` again: the
    /// field by its title in `T` (by its name when it has no title), then
    /// the reason, e.g. `Seats: must be at most 4, got 9.`; for an answer
    /// that could not be read at all, `The answer could not be used: ...`.
    ///
    /// [`ElicitForm::form_again`] asks with this sentence in front of the
    /// message; `Display` (`field "seats": must be at most 4, got 9`) is
    /// the form meant for logs.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::form::FormError;
    ///
    /// #[derive(ElicitForm)]
    /// struct Booking {
    ///     #[elicit(title = "Seats", minimum = 1, maximum = 4)]
    ///     seats: u8,
    ///     /// Contact e-mail (no title: the field's name is used).
    ///     #[elicit(format = "email")]
    ///     email: String,
    /// }
    ///
    /// let error = FormError::field("seats", "must be at most 4, got 9");
    /// assert_eq!(error.explain::<Booking>(), "Seats: must be at most 4, got 9.");
    /// let error = FormError::field("email", "missing");
    /// assert_eq!(error.explain::<Booking>(), "email: missing.");
    /// ```
    pub fn explain<T: ElicitForm>(&self) -> String {
        let Some(field) = &self.field else {
            return format!("The answer could not be used: {}.", self.reason);
        };
        let label = T::requested_schema()
            .properties
            .get(field)
            .and_then(|property| property.title())
            .unwrap_or(field);
        format!("{label}: {}.", self.reason)
    }
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "field {field:?}: {}", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

impl std::error::Error for FormError {}

/// What became of a form elicitation, read from one round's input
/// responses (see [`Ctx::answer`](crate::server::handler::Ctx::answer)).
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub enum Answer<T> {
    /// The user submitted the form, and every field passed the schema's
    /// checks and decoded into `T`.
    Accept(T),
    /// The user explicitly refused (`action: "decline"`).
    Decline,
    /// The user dismissed the request without choosing
    /// (`action: "cancel"`).
    Cancel,
    /// No response under that key this round: typically the first call,
    /// before the form was asked for. Ask (again).
    Missing,
    /// A response arrived but cannot be used: it is not an `ElicitResult`
    /// at all, or the accepted content has a required field missing, a
    /// value of the wrong type, or a value violating a declared constraint
    /// (length, format, range, options, number of selections). The error
    /// names the field when one is at fault.
    Invalid(FormError),
}

impl<T> Answer<T> {
    /// Whether the user submitted a valid form.
    pub fn is_accept(&self) -> bool {
        matches!(self, Self::Accept(_))
    }

    /// The submitted form, if the user submitted a valid one.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accept(value) => Some(value),
            _ => None,
        }
    }
}

impl<T: ElicitForm> Answer<T> {
    /// Reads one raw input response (`None` when there is none).
    ///
    /// `null` values in `content` are taken as fields left out (the schema
    /// has no `null`, but some clients send it for an empty field). An
    /// accepted answer without `content` decodes as an empty form, so a
    /// form whose fields are all optional is accepted.
    pub fn from_response(response: Option<&Value>) -> Self {
        match response {
            None => Self::Missing,
            Some(value) => Self::decide(ElicitAnswer::deserialize(value)),
        }
    }

    /// Reads one input response from the JSON text the client sent, with
    /// no tree in between (`None` when there is none). Otherwise as
    /// [`Self::from_response`].
    pub fn from_json(response: Option<&str>) -> Self {
        match response {
            None => Self::Missing,
            Some(json) => Self::decide(serde_json::from_str(json)),
        }
    }

    fn decide(parsed: Result<ElicitAnswer<'_>, serde_json::Error>) -> Self {
        let answer = match parsed {
            Ok(answer) => answer,
            Err(error) => {
                // Where in the answer's own text it failed means nothing to
                // the handler: the message reads the same from a tree.
                let mut why = error.to_string();
                if error.line() > 0
                    && let Some(at) = why.rfind(" at line ")
                {
                    why.truncate(at);
                }
                return Self::Invalid(FormError::whole(format!(
                    "not an elicitation result: {why}"
                )));
            }
        };
        match answer.action {
            ElicitAction::Decline => Self::Decline,
            ElicitAction::Cancel => Self::Cancel,
            ElicitAction::Accept => {
                let mut members = answer.content.map(|c| c.0).unwrap_or_default();
                let mut decoder = FormDecoder::read(T::requested_schema(), &mut members);
                match T::decode(&mut decoder) {
                    Ok(value) => Self::Accept(value),
                    Err(error) => Self::Invalid(error),
                }
            }
        }
    }
}

/// What an answer needs of an `ElicitResult`: read as one would be, except
/// that `null` content values are fields left out.
#[derive(Deserialize)]
struct ElicitAnswer<'a> {
    action: ElicitAction,
    #[serde(default, borrow)]
    content: Option<Content<'a>>,
    /// Checked to be an object, as in an `ElicitResult`; not used.
    #[serde(rename = "_meta", default)]
    #[allow(dead_code)]
    meta: Option<JsonObject>,
}

/// Submitted form values as read, names borrowed where they can be; a
/// `null` is a field left out (see `FormDecoder`).
struct Content<'a>(Vec<(Cow<'a, str>, Option<ElicitValue>)>);

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ContentVisitor<'a>(std::marker::PhantomData<&'a ()>);

        impl<'de: 'a, 'a> serde::de::Visitor<'de> for ContentVisitor<'a> {
            type Value = Content<'a>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Content<'a>, A::Error> {
                let mut members = Vec::new();
                while let Some(JsonKey(name)) = map.next_key()? {
                    members.push((name, map.next_value()?));
                }
                Ok(Content(members))
            }
        }

        d.deserialize_map(ContentVisitor(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_the_field() {
        assert_eq!(
            FormError::field("age", "missing").to_string(),
            r#"field "age": missing"#
        );
        assert_eq!(FormError::whole("bad").to_string(), "bad");
    }

    /// `struct Pair { #[elicit(title = "First")] a: bool, b: bool }`, by hand.
    #[derive(Debug)]
    struct Pair;

    impl ElicitForm for Pair {
        fn form_schema() -> &'static crate::schema::RenderedSchema {
            static SCHEMA: std::sync::OnceLock<crate::schema::RenderedSchema> =
                std::sync::OnceLock::new();
            SCHEMA.get_or_init(|| {
                let titled = super::super::FieldOptions {
                    title: Some("First"),
                    ..super::super::FieldOptions::EMPTY
                };
                super::super::FormSchema::new()
                    .field::<bool>("a", titled)
                    .field::<bool>("b", super::super::FieldOptions::EMPTY)
                    .render()
            })
        }

        fn decode(decoder: &mut FormDecoder<'_>) -> Result<Self, FormError> {
            decoder.field::<bool>("a")?;
            decoder.field::<bool>("b")?;
            Ok(Self)
        }
    }

    #[test]
    fn explain_names_the_field_by_its_title_else_its_name() {
        assert_eq!(
            FormError::field("a", "missing").explain::<Pair>(),
            "First: missing."
        );
        assert_eq!(
            FormError::field("b", "expected a boolean, got a string").explain::<Pair>(),
            "b: expected a boolean, got a string."
        );
        assert_eq!(
            FormError::field("zz", "is not a field of this form").explain::<Pair>(),
            "zz: is not a field of this form.",
            "a name the form does not have is shown as it is"
        );
        assert_eq!(
            FormError::whole("not an elicitation result").explain::<Pair>(),
            "The answer could not be used: not an elicitation result."
        );
    }

    #[test]
    fn an_invalid_answer_explains_itself() {
        let answer = Answer::<Pair>::from_response(Some(
            &serde_json::json!({"action": "accept", "content": {"b": true}}),
        ));
        let Answer::Invalid(error) = answer else {
            panic!("a required field is missing: {answer:?}")
        };
        assert_eq!(error.field.as_deref(), Some("a"));
        assert_eq!(error.explain::<Pair>(), "First: missing.");
    }

    #[test]
    fn helpers() {
        assert!(Answer::Accept(1).is_accept());
        assert!(!Answer::<i32>::Decline.is_accept());
        assert_eq!(Answer::Accept(1).accepted(), Some(1));
        assert_eq!(Answer::<i32>::Missing.accepted(), None);
        assert_eq!(
            Answer::<i32>::Invalid(FormError::whole("x")).accepted(),
            None
        );
    }
}

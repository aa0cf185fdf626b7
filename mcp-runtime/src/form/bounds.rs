//! A form's bounds: no field may ask for what no answer can give
//! ([`mcp_runtime_rules::RANGE_RULE`]).
//!
//! `#[derive(ElicitForm)]` checks the bounds it is given at compile time.
//! A form built at run time (with [`FormSchema`](super::FormSchema) and
//! [`FieldOptions`](super::FieldOptions), or an `ElicitRequestedSchema`
//! written out) is checked here, on the finished schema, so that the
//! bounds an integer field's type adds are checked too. The runtime
//! refuses to send a form that breaks the rule (`-32603`, the field and the
//! fix in the log): the user could only ever see their answer refused.

use crate::rules;
use crate::schema::{
    ElicitRequestParams, ElicitRequestedSchema, InputRequest, McpError, NumberType,
    PrimitiveSchemaDefinition,
};

/// A form field whose bounds no answer can satisfy: a lower bound above
/// its upper bound ([`mcp_runtime_rules::RANGE_RULE`]), or a number bound that is
/// not a finite number (JSON has no NaN nor infinity; it would go out as
/// `null`).
///
/// ```
/// use mcp_runtime::form::{FieldOptions, FormSchema};
///
/// let schema = FormSchema::new()
///     .field::<u8>("seats", FieldOptions { minimum: Some(5.0), maximum: Some(1.0), ..FieldOptions::EMPTY })
///     .build();
/// let error = schema.check_bounds().unwrap_err();
/// assert_eq!(error.field(), "seats");
/// assert!(error.to_string().contains("`minimum` 5 is above `maximum` 1"), "{error}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormBoundsError {
    field: String,
    detail: String,
}

impl FormBoundsError {
    /// The name of the field at fault.
    pub fn field(&self) -> &str {
        &self.field
    }
}

impl std::fmt::Display for FormBoundsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "form field {:?}: {}", self.field, self.detail)
    }
}

impl std::error::Error for FormBoundsError {}

impl ElicitRequestedSchema {
    /// Checks that every field's bounds can be met
    /// ([`mcp_runtime_rules::RANGE_RULE`]; a number bound must also be finite):
    /// the first field that breaks the rule, otherwise `Ok`. The runtime
    /// makes the same check before it sends a form, and refuses to send
    /// one that fails it; call it in a test to find out sooner.
    pub fn check_bounds(&self) -> Result<(), FormBoundsError> {
        for (name, field) in &self.properties {
            if let Some(detail) = field_problem(field) {
                return Err(FormBoundsError {
                    field: name.clone(),
                    detail,
                });
            }
        }
        Ok(())
    }
}

/// What is wrong with the bounds of `field`, if anything.
fn field_problem(field: &PrimitiveSchemaDefinition) -> Option<String> {
    match field {
        PrimitiveSchemaDefinition::String(s) => {
            range_problem(s.min_length, s.max_length, "min_length", "max_length", "")
        }
        PrimitiveSchemaDefinition::Number(n) => {
            let bounds = [("minimum", n.minimum), ("maximum", n.maximum)];
            if let Some((key, value)) = bounds
                .into_iter()
                .find_map(|(key, value)| Some((key, value?)).filter(|(_, v)| !v.is_finite()))
            {
                return Some(format!(
                    "`{key}` is {value}, which JSON cannot carry (it would be sent as null): \
                     give a finite number, or no `{key}`"
                ));
            }
            let note = match n.kind {
                NumberType::Integer => {
                    " (an integer field is also bounded by its type: a `u8` field's `maximum` is at most 255)"
                }
                NumberType::Number => "",
            };
            range_problem(n.minimum, n.maximum, "minimum", "maximum", note)
        }
        PrimitiveSchemaDefinition::UntitledMultiSelect(m) => {
            range_problem(m.min_items, m.max_items, "min_items", "max_items", "")
        }
        PrimitiveSchemaDefinition::TitledMultiSelect(m) => {
            range_problem(m.min_items, m.max_items, "min_items", "max_items", "")
        }
        PrimitiveSchemaDefinition::Boolean(_)
        | PrimitiveSchemaDefinition::UntitledSingleSelect(_)
        | PrimitiveSchemaDefinition::TitledSingleSelect(_)
        | PrimitiveSchemaDefinition::LegacyTitled(_) => None,
    }
}

/// The message for a lower bound `low` (named `lower`) above its upper
/// bound `high` (named `upper`), if it is.
fn range_problem<T: PartialOrd + std::fmt::Display + Copy>(
    low: Option<T>,
    high: Option<T>,
    lower: &str,
    upper: &str,
    note: &str,
) -> Option<String> {
    if rules::valid_range(low, high) {
        return None;
    }
    let (low, high) = (low?, high?);
    Some(format!(
        "`{lower}` {low} is above `{upper}` {high}, so no answer can satisfy both: \
         lower `{lower}` or raise `{upper}`{note}"
    ))
}

/// Refuses to send a form whose bounds no answer can satisfy: `-32603`,
/// with the input request, the field and the fix in the log (the client
/// learns only that the server failed). Every way out of an ask goes
/// through it: the `InputRequiredResult`, the bridge to a 2025-era client,
/// and a task's questions.
#[cfg_attr(not(feature = "server"), allow(dead_code))]
pub(crate) fn check_forms<'a>(
    requests: impl IntoIterator<Item = (&'a String, &'a InputRequest)>,
) -> Result<(), McpError> {
    for (key, request) in requests {
        if let InputRequest::Elicitation(ElicitRequestParams::Form(form)) = request
            && let Err(error) = form.requested_schema.check_bounds()
        {
            return Err(McpError::internal(format!(
                "a handler asked for input {key:?} with a form no answer can fill in: {error}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::{ElicitChoice, FieldOptions, FormSchema};
    use crate::schema::{
        ArrayType, NumberSchema, StringSchema, StringType, TitledItems,
        TitledMultiSelectEnumSchema, UntitledItems, UntitledMultiSelectEnumSchema,
    };

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Colour {
        Red,
        Blue,
    }

    impl ElicitChoice for Colour {
        const OPTIONS: &'static [crate::form::ChoiceOption] = &[
            crate::form::ChoiceOption {
                value: "red",
                title: None,
            },
            crate::form::ChoiceOption {
                value: "blue",
                title: None,
            },
        ];

        fn from_value(value: &str) -> Option<Self> {
            match value {
                "red" => Some(Self::Red),
                "blue" => Some(Self::Blue),
                _ => None,
            }
        }

        fn value(&self) -> &'static str {
            match self {
                Self::Red => "red",
                Self::Blue => "blue",
            }
        }
    }

    fn options() -> FieldOptions {
        FieldOptions::EMPTY
    }

    #[test]
    fn bounds_that_agree_pass() {
        let schema = FormSchema::new()
            .field::<String>(
                "name",
                FieldOptions {
                    min_length: Some(2),
                    max_length: Some(2),
                    ..options()
                },
            )
            .field::<f64>(
                "ratio",
                FieldOptions {
                    minimum: Some(-0.5),
                    maximum: Some(0.5),
                    ..options()
                },
            )
            .field::<Vec<Colour>>(
                "colours",
                FieldOptions {
                    min_items: Some(1),
                    ..options()
                },
            )
            .field::<u8>(
                "seats",
                FieldOptions {
                    minimum: Some(-5.0),
                    ..options()
                },
            )
            .field::<bool>("ok", options())
            .build();
        assert_eq!(schema.check_bounds(), Ok(()));
    }

    #[test]
    fn each_contradictory_pair_is_found() {
        let cases = [
            (
                FormSchema::new().field::<Option<String>>(
                    "note",
                    FieldOptions {
                        min_length: Some(8),
                        max_length: Some(4),
                        ..options()
                    },
                ),
                "`min_length` 8 is above `max_length` 4",
            ),
            (
                FormSchema::new().field::<f32>(
                    "ratio",
                    FieldOptions {
                        minimum: Some(1.5),
                        maximum: Some(0.5),
                        ..options()
                    },
                ),
                "`minimum` 1.5 is above `maximum` 0.5",
            ),
            (
                FormSchema::new().field::<Vec<Colour>>(
                    "colours",
                    FieldOptions {
                        min_items: Some(2),
                        max_items: Some(1),
                        ..options()
                    },
                ),
                "`min_items` 2 is above `max_items` 1",
            ),
            // The type's bound counts: a `u8` is at most 255.
            (
                FormSchema::new().field::<u8>(
                    "seats",
                    FieldOptions {
                        minimum: Some(300.0),
                        ..options()
                    },
                ),
                "`minimum` 300 is above `maximum` 255",
            ),
            (
                FormSchema::new().field::<f64>(
                    "ratio",
                    FieldOptions {
                        maximum: Some(f64::NAN),
                        ..options()
                    },
                ),
                "`maximum` is NaN, which JSON cannot carry",
            ),
        ];
        for (form, expected) in cases {
            let schema = form.field::<bool>("fine", options()).build();
            let error = schema.check_bounds().expect_err(expected);
            let message = error.to_string();
            assert!(message.contains(expected), "{message}");
            assert!(message.contains("lower `") || message.contains("give a finite"));
            assert_ne!(error.field(), "fine");
        }
    }

    #[test]
    fn hand_written_schemas_are_checked_too() {
        let mut schema = ElicitRequestedSchema::default();
        schema.properties.insert(
            "pin".to_owned(),
            PrimitiveSchemaDefinition::String(StringSchema {
                min_length: Some(6),
                max_length: Some(4),
                ..StringSchema::default()
            }),
        );
        assert_eq!(
            schema.check_bounds().map_err(|e| e.field),
            Err("pin".into())
        );

        let mut schema = ElicitRequestedSchema::default();
        schema.properties.insert(
            "n".to_owned(),
            PrimitiveSchemaDefinition::Number(NumberSchema {
                minimum: Some(f64::INFINITY),
                ..NumberSchema::default()
            }),
        );
        assert!(schema.check_bounds().is_err());

        for (low, high, fails) in [(Some(3), Some(2), true), (Some(2), Some(3), false)] {
            let mut schema = ElicitRequestedSchema::default();
            schema.properties.insert(
                "titled".to_owned(),
                PrimitiveSchemaDefinition::TitledMultiSelect(TitledMultiSelectEnumSchema {
                    kind: ArrayType::Array,
                    title: None,
                    description: None,
                    min_items: low,
                    max_items: high,
                    items: TitledItems { options: vec![] },
                    default: None,
                }),
            );
            schema.properties.insert(
                "untitled".to_owned(),
                PrimitiveSchemaDefinition::UntitledMultiSelect(UntitledMultiSelectEnumSchema {
                    kind: ArrayType::Array,
                    title: None,
                    description: None,
                    min_items: None,
                    max_items: None,
                    items: UntitledItems {
                        kind: StringType::String,
                        values: vec![],
                    },
                    default: None,
                }),
            );
            assert_eq!(schema.check_bounds().is_err(), fails, "{low:?} {high:?}");
        }
    }

    #[test]
    fn a_form_with_contradictory_bounds_is_not_sent() {
        let bad = FormSchema::new()
            .field::<u8>(
                "seats",
                FieldOptions {
                    minimum: Some(5.0),
                    maximum: Some(1.0),
                    ..options()
                },
            )
            .build();
        let good = FormSchema::new().field::<u8>("seats", options()).build();
        let url = InputRequest::elicit_url("Visit.", "https://example.com/");
        let key = "k".to_owned();

        let fine = [
            (&key, &InputRequest::elicit_form("Seats?", good)),
            (&key, &url),
        ];
        assert_eq!(check_forms(fine), Ok(()));

        let request = InputRequest::elicit_form("Seats?", bad);
        let error = check_forms([(&key, &url), (&key, &request)]).unwrap_err();
        let McpError::Internal { detail } = &error else {
            panic!("{error:?}")
        };
        assert!(detail.contains("input \"k\""), "{detail}");
        assert!(detail.contains("form field \"seats\""), "{detail}");
        // The client learns nothing of the handler's bug.
        assert_eq!(error.to_object().message, "Internal error");
    }
}

//! Checking submitted content against a form's schema, field by field.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use super::answer::FormError;
use super::field::{ElicitField, MISSING, expected, whole_number};
use super::formats;
use crate::schema::{
    ElicitRequestedSchema, ElicitValue, EnumOption, NumberSchema, NumberType,
    PrimitiveSchemaDefinition, StringFormat, StringSchema,
};

/// Reads the fields of submitted form content, checking each against the
/// form's schema before it is converted (the client is not trusted).
///
/// Generated `ElicitForm::decode` implementations call
/// [`field`](Self::field) once per struct field. Keys of the content that
/// the form does not read are ignored.
///
/// ```
/// use std::collections::BTreeMap;
/// use mcp_runtime::form::{FieldOptions, FormDecoder, FormSchema};
/// use mcp_runtime::schema::ElicitValue;
///
/// let schema = FormSchema::new()
///     .field::<u8>("age", FieldOptions::EMPTY)
///     .build();
/// let mut content = BTreeMap::new();
/// content.insert("age".to_owned(), ElicitValue::Number(300.into()));
/// let error = FormDecoder::new(&schema, &content).field::<u8>("age").unwrap_err();
/// assert_eq!(error.field.as_deref(), Some("age"));
/// ```
#[derive(Debug)]
pub struct FormDecoder<'a> {
    schema: &'a ElicitRequestedSchema,
    content: Content<'a>,
}

/// Submitted values, by name.
#[derive(Debug)]
enum Content<'a> {
    /// A map.
    Map(&'a BTreeMap<String, ElicitValue>),
    /// Members as they were read, in order: of a repeated name the last
    /// counts, and `None` (a `null` sent) means the field was left out. A
    /// field's value is taken when it is read.
    Read(&'a mut [(Cow<'a, str>, Option<ElicitValue>)]),
}

/// One field's value: borrowed from a map, or taken from the members read.
enum FieldValue<'a> {
    Borrowed(&'a ElicitValue),
    Taken(ElicitValue),
}

impl<'a> FormDecoder<'a> {
    /// A decoder of `content`, submitted for a form described by `schema`.
    pub fn new(
        schema: &'a ElicitRequestedSchema,
        content: &'a BTreeMap<String, ElicitValue>,
    ) -> Self {
        Self {
            schema,
            content: Content::Map(content),
        }
    }

    /// A decoder of content members as read from JSON (see
    /// [`Content::Read`]), without building a map first.
    pub(crate) fn read(
        schema: &'a ElicitRequestedSchema,
        members: &'a mut [(Cow<'a, str>, Option<ElicitValue>)],
    ) -> Self {
        Self {
            schema,
            content: Content::Read(members),
        }
    }

    /// Field `name` as a `T`: the submitted value is checked against the
    /// field's schema (type, length, format, range, options, selections),
    /// then converted. A field the user left out is `None` for an `Option`
    /// and an error ("missing") otherwise. Every error names the field.
    /// Read each field once (as generated code does): a value read straight
    /// from the client's JSON is taken by the first read.
    pub fn field<T: ElicitField>(&mut self, name: &str) -> Result<T, FormError> {
        let fail = |reason: String| FormError {
            field: Some(name.to_owned()),
            reason,
        };
        // Forms are small: a scan beats hashing the name.
        let property = self
            .schema
            .properties
            .iter()
            .find_map(|(field, property)| (field == name).then_some(property))
            .ok_or_else(|| fail("is not a field of this form".to_owned()))?;
        let value = match &mut self.content {
            Content::Map(map) => map.get(name).map(FieldValue::Borrowed),
            Content::Read(members) => members
                .iter_mut()
                .rev()
                .find(|(key, _)| key == name)
                .and_then(|(_, value)| value.take())
                .map(FieldValue::Taken),
        };
        match value {
            Some(FieldValue::Borrowed(value)) => {
                check(property, value).map_err(fail)?;
                T::decode(Some(value)).map_err(fail)
            }
            Some(FieldValue::Taken(value)) => {
                check(property, &value).map_err(fail)?;
                T::decode_owned(Some(value)).map_err(fail)
            }
            None => {
                let required = self
                    .schema
                    .required
                    .as_ref()
                    .is_some_and(|required| required.iter().any(|r| r == name));
                if required {
                    return Err(fail(MISSING.to_owned()));
                }
                T::decode(None).map_err(fail)
            }
        }
    }
}

/// Checks `value` against the field schema `property`.
pub(crate) fn check(
    property: &PrimitiveSchemaDefinition,
    value: &ElicitValue,
) -> Result<(), String> {
    use PrimitiveSchemaDefinition as P;
    match property {
        P::String(schema) => check_string(schema, value),
        P::Number(schema) => check_number(schema, value),
        P::Boolean(_) => match value {
            ElicitValue::Bool(_) => Ok(()),
            other => Err(expected("a boolean", other)),
        },
        P::UntitledSingleSelect(schema) => check_single(schema.values.iter(), value),
        P::LegacyTitled(schema) => check_single(schema.values.iter(), value),
        P::TitledSingleSelect(schema) => check_single(values_of(&schema.options), value),
        P::UntitledMultiSelect(schema) => check_multi(
            schema.items.values.iter(),
            schema.min_items,
            schema.max_items,
            value,
        ),
        P::TitledMultiSelect(schema) => check_multi(
            values_of(&schema.items.options),
            schema.min_items,
            schema.max_items,
            value,
        ),
    }
}

fn values_of(options: &[EnumOption]) -> impl Iterator<Item = &String> {
    options.iter().map(|option| &option.value)
}

fn check_string(schema: &StringSchema, value: &ElicitValue) -> Result<(), String> {
    let ElicitValue::String(s) = value else {
        return Err(expected("a string", value));
    };
    let length = s.chars().count() as u64;
    if let Some(min) = schema.min_length.filter(|&min| length < min) {
        return Err(format!(
            "must be at least {min} characters long, got {length}"
        ));
    }
    if let Some(max) = schema.max_length.filter(|&max| length > max) {
        return Err(format!(
            "must be at most {max} characters long, got {length}"
        ));
    }
    let Some(format) = schema.format else {
        return Ok(());
    };
    if formats::matches(format, s) {
        return Ok(());
    }
    let what = match format {
        StringFormat::Email => "an e-mail address",
        StringFormat::Uri => "a URI",
        StringFormat::Date => "a date (YYYY-MM-DD)",
        StringFormat::DateTime => "an RFC 3339 date-time",
    };
    Err(format!("{s:?} is not {what}"))
}

fn check_number(schema: &NumberSchema, value: &ElicitValue) -> Result<(), String> {
    let ElicitValue::Number(number) = value else {
        let what = match schema.kind {
            NumberType::Integer => "a whole number",
            NumberType::Number => "a number",
        };
        return Err(expected(what, value));
    };
    if schema.kind == NumberType::Integer && whole_number(number).is_none() {
        return Err(format!("expected a whole number, got {number}"));
    }
    let Some(f) = number.as_f64().filter(|f| f.is_finite()) else {
        return Err(format!("{number} is not a finite number"));
    };
    if let Some(min) = schema.minimum.filter(|&min| f < min) {
        return Err(format!("must be at least {min}, got {number}"));
    }
    if let Some(max) = schema.maximum.filter(|&max| f > max) {
        return Err(format!("must be at most {max}, got {number}"));
    }
    Ok(())
}

fn check_single<'s>(
    mut options: impl Iterator<Item = &'s String>,
    value: &ElicitValue,
) -> Result<(), String> {
    let ElicitValue::String(s) = value else {
        return Err(expected("one of the options", value));
    };
    if options.any(|option| option == s) {
        Ok(())
    } else {
        Err(format!("{s:?} is not one of the options"))
    }
}

fn check_multi<'s>(
    options: impl Iterator<Item = &'s String>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    value: &ElicitValue,
) -> Result<(), String> {
    let ElicitValue::Strings(chosen) = value else {
        return Err(expected("a list of options", value));
    };
    let options: BTreeSet<&str> = options.map(String::as_str).collect();
    let mut seen = BTreeSet::new();
    for choice in chosen {
        if !options.contains(choice.as_str()) {
            return Err(format!("{choice:?} is not one of the options"));
        }
        if !seen.insert(choice.as_str()) {
            return Err(format!("{choice:?} is selected more than once"));
        }
    }
    let count = chosen.len() as u64;
    if let Some(min) = min_items.filter(|&min| count < min) {
        return Err(format!("must select at least {min}, got {count}"));
    }
    if let Some(max) = max_items.filter(|&max| count > max) {
        return Err(format!("must select at most {max}, got {count}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{
        LegacyTitledEnumSchema, TitledItems, TitledMultiSelectEnumSchema, UntitledItems,
        UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
    };

    fn string(format: StringFormat) -> PrimitiveSchemaDefinition {
        PrimitiveSchemaDefinition::String(StringSchema {
            format: Some(format),
            ..StringSchema::default()
        })
    }

    fn text(s: &str) -> ElicitValue {
        ElicitValue::String(s.to_owned())
    }

    fn num(json: &str) -> ElicitValue {
        ElicitValue::Number(serde_json::from_str(json).unwrap_or_else(|_| 0.into()))
    }

    fn strs(items: &[&str]) -> ElicitValue {
        ElicitValue::Strings(items.iter().map(|s| (*s).to_owned()).collect())
    }

    #[test]
    fn string_lengths_count_characters() {
        let schema = PrimitiveSchemaDefinition::String(StringSchema {
            min_length: Some(2),
            max_length: Some(3),
            ..StringSchema::default()
        });
        assert!(
            check(&schema, &text("ééé")).is_ok(),
            "6 bytes, 3 characters"
        );
        assert!(check(&schema, &text("é")).is_err());
        assert!(check(&schema, &text("éééé")).is_err());
        assert!(check(&schema, &text("ab")).is_ok());
        assert!(check(&schema, &num("1")).is_err());
        assert!(check(&string(StringFormat::Date), &text("2024-02-30")).is_err());
        assert!(check(&string(StringFormat::Date), &text("2024-02-29")).is_ok());
    }

    #[test]
    fn integers_accept_zero_fractions_only() {
        let schema = PrimitiveSchemaDefinition::Number(NumberSchema {
            kind: NumberType::Integer,
            minimum: Some(-2.0),
            maximum: Some(10.0),
            ..NumberSchema::default()
        });
        for good in ["3", "3.0", "-2", "10", "10.0", "-0.0"] {
            assert_eq!(check(&schema, &num(good)), Ok(()), "{good}");
        }
        for bad in ["3.5", "11", "-3", "10.000001", "1e300"] {
            assert!(check(&schema, &num(bad)).is_err(), "{bad}");
        }
        assert!(check(&schema, &text("3")).is_err());
        assert!(check(&schema, &ElicitValue::Bool(true)).is_err());
    }

    #[test]
    fn numbers_accept_fractions() {
        let schema = PrimitiveSchemaDefinition::Number(NumberSchema {
            kind: NumberType::Number,
            minimum: Some(0.5),
            ..NumberSchema::default()
        });
        assert_eq!(check(&schema, &num("0.5")), Ok(()));
        assert_eq!(check(&schema, &num("7")), Ok(()));
        assert!(check(&schema, &num("0.49")).is_err());
    }

    #[test]
    fn single_selects_check_membership() {
        let untitled =
            PrimitiveSchemaDefinition::UntitledSingleSelect(UntitledSingleSelectEnumSchema {
                values: vec!["a".into(), "b".into()],
                ..Default::default()
            });
        let legacy = PrimitiveSchemaDefinition::LegacyTitled(LegacyTitledEnumSchema {
            values: vec!["a".into(), "b".into()],
            enum_names: Some(vec!["A".into(), "B".into()]),
            ..Default::default()
        });
        for schema in [&untitled, &legacy] {
            assert_eq!(check(schema, &text("b")), Ok(()));
            assert!(check(schema, &text("B")).is_err(), "titles are not values");
            assert!(check(schema, &strs(&["a"])).is_err());
        }
    }

    #[test]
    fn multi_selects_check_count_membership_and_duplicates() {
        let options = || vec!["a".to_owned(), "b".to_owned(), "c".to_owned()];
        let untitled =
            PrimitiveSchemaDefinition::UntitledMultiSelect(UntitledMultiSelectEnumSchema {
                min_items: Some(1),
                max_items: Some(2),
                items: UntitledItems {
                    values: options(),
                    ..Default::default()
                },
                ..Default::default()
            });
        let titled = PrimitiveSchemaDefinition::TitledMultiSelect(TitledMultiSelectEnumSchema {
            min_items: Some(1),
            max_items: Some(2),
            items: TitledItems {
                options: options()
                    .into_iter()
                    .map(|value| EnumOption {
                        title: value.to_uppercase(),
                        value,
                    })
                    .collect(),
            },
            ..Default::default()
        });
        for schema in [&untitled, &titled] {
            assert_eq!(check(schema, &strs(&["a", "c"])), Ok(()));
            assert!(check(schema, &strs(&[])).is_err(), "too few");
            assert!(check(schema, &strs(&["a", "b", "c"])).is_err(), "too many");
            assert!(check(schema, &strs(&["a", "a"])).is_err(), "duplicate");
            assert!(check(schema, &strs(&["A"])).is_err(), "not a value");
            assert!(check(schema, &text("a")).is_err(), "not a list");
        }
    }

    #[test]
    fn decoder_names_the_field_and_ignores_extra_keys() {
        let schema = super::super::FormSchema::new()
            .field::<u8>("n", super::super::FieldOptions::EMPTY)
            .field::<Option<bool>>("b", super::super::FieldOptions::EMPTY)
            .build();
        let mut content = BTreeMap::new();
        content.insert("extra".to_owned(), text("whatever"));
        let mut decoder = FormDecoder::new(&schema, &content);
        assert_eq!(decoder.field::<Option<bool>>("b"), Ok(None));
        assert_eq!(
            decoder.field::<u8>("n"),
            Err(FormError {
                field: Some("n".into()),
                reason: "missing".into()
            })
        );
        assert_eq!(
            decoder.field::<u8>("extra").map_err(|e| e.field),
            Err(Some("extra".into())),
            "a key the schema does not declare is not a field"
        );
        content.insert("n".to_owned(), num("255.0"));
        assert_eq!(
            FormDecoder::new(&schema, &content).field::<u8>("n"),
            Ok(255)
        );
        content.insert("n".to_owned(), num("256"));
        assert!(
            FormDecoder::new(&schema, &content)
                .field::<u8>("n")
                .is_err()
        );
    }
}

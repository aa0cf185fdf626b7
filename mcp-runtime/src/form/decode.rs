//! Checking submitted content against a form's schema, field by field.

use std::collections::{BTreeMap, BTreeSet};

use super::answer::FormError;
use super::field::{ElicitField, MISSING, expected, whole_number};
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
    content: &'a BTreeMap<String, ElicitValue>,
}

impl<'a> FormDecoder<'a> {
    /// A decoder of `content`, submitted for a form described by `schema`.
    pub fn new(
        schema: &'a ElicitRequestedSchema,
        content: &'a BTreeMap<String, ElicitValue>,
    ) -> Self {
        Self { schema, content }
    }

    /// Field `name` as a `T`: the submitted value is checked against the
    /// field's schema (type, length, format, range, options, selections),
    /// then converted. A field the user left out is `None` for an `Option`
    /// and an error ("missing") otherwise. Every error names the field.
    pub fn field<T: ElicitField>(&mut self, name: &str) -> Result<T, FormError> {
        let fail = |reason: String| FormError {
            field: Some(name.to_owned()),
            reason,
        };
        let property = self
            .schema
            .properties
            .get(name)
            .ok_or_else(|| fail("is not a field of this form".to_owned()))?;
        match self.content.get(name) {
            Some(value) => {
                check(property, value).map_err(fail)?;
                T::decode(Some(value)).map_err(fail)
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
    let (valid, what) = match format {
        StringFormat::Email => (is_email(s), "an e-mail address"),
        StringFormat::Uri => (is_uri(s), "a URI"),
        StringFormat::Date => (is_date(s.as_bytes()), "a date (YYYY-MM-DD)"),
        StringFormat::DateTime => (is_date_time(s.as_bytes()), "an RFC 3339 date-time"),
    };
    if valid {
        Ok(())
    } else {
        Err(format!("{s:?} is not {what}"))
    }
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

// --- Formats -----------------------------------------------------------------

/// The number the ASCII digits `digits` spell, if they are all digits.
fn number(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u32, |n, &d| {
        d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
    })
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        _ => 0,
    }
}

/// `YYYY-MM-DD`, a real calendar date.
fn is_date(s: &[u8]) -> bool {
    let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = *s else {
        return false;
    };
    let (Some(year), Some(month), Some(day)) = (
        number(&[y0, y1, y2, y3]),
        number(&[m0, m1]),
        number(&[d0, d1]),
    ) else {
        return false;
    };
    (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month)
}

/// `HH:MM`, hours 00–23 and minutes 00–59.
fn is_hours_minutes(s: &[u8]) -> bool {
    let [h0, h1, b':', m0, m1] = *s else {
        return false;
    };
    number(&[h0, h1]).is_some_and(|h| h <= 23) && number(&[m0, m1]).is_some_and(|m| m <= 59)
}

/// RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`; `T` and `Z`
/// in either case, a leap second (`:60`) allowed.
fn is_date_time(s: &[u8]) -> bool {
    let Some((date, rest)) = s.split_at_checked(10) else {
        return false;
    };
    let Some((&separator, time)) = rest.split_first() else {
        return false;
    };
    if !is_date(date) || !matches!(separator, b'T' | b't') {
        return false;
    }
    let Some((hms, mut rest)) = time.split_at_checked(8) else {
        return false;
    };
    let [h0, h1, b':', m0, m1, b':', s0, s1] = *hms else {
        return false;
    };
    let seconds_ok = number(&[s0, s1]).is_some_and(|s| s <= 60);
    if !is_hours_minutes(&[h0, h1, b':', m0, m1]) || !seconds_ok {
        return false;
    }
    if let Some(fraction) = rest.strip_prefix(b".") {
        let digits = fraction.iter().take_while(|d| d.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        rest = &fraction[digits..];
    }
    match rest {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', offset @ ..] => is_hours_minutes(offset),
        _ => false,
    }
}

/// A scheme (`[a-zA-Z][a-zA-Z0-9+.-]*`), a colon, and no whitespace or
/// control characters anywhere.
fn is_uri(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once(':') else {
        return false;
    };
    let mut scheme = scheme.chars();
    scheme.next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// `local@domain.tld`: a dot-atom local part (no spaces, no leading,
/// trailing or doubled dots) and a domain of at least two dot-separated
/// labels of letters, digits and inner hyphens.
fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && local.split('.').all(|atom| {
            !atom.is_empty()
                && atom
                    .chars()
                    .all(|c| !c.is_whitespace() && !c.is_control() && !"@()<>[]:;,\\\"".contains(c))
        });
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = domain.len() <= 253
        && labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && label.chars().count() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        });
    local_ok && domain_ok
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
    fn dates() {
        for good in ["2024-02-29", "2000-02-29", "1999-12-31", "0001-01-01"] {
            assert!(is_date(good.as_bytes()), "{good}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-04-31",
            "2024-01-00",
            "2024-1-01",
            "24-01-01",
            "2024/01/01",
            "2024-01-01T",
            "",
            "２０２４-01-01",
        ] {
            assert!(!is_date(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn date_times() {
        for good in [
            "2024-05-06T07:08:09Z",
            "2024-05-06t07:08:09z",
            "2024-05-06T23:59:60.123456+05:30",
            "2024-05-06T00:00:00-00:00",
            "2024-05-06T00:00:00.5Z",
        ] {
            assert!(is_date_time(good.as_bytes()), "{good}");
        }
        for bad in [
            "2024-05-06T07:08:09",
            "2024-05-06 07:08:09Z",
            "2024-05-06T24:00:00Z",
            "2024-05-06T07:60:00Z",
            "2024-05-06T07:08:61Z",
            "2024-05-06T07:08:09.Z",
            "2024-05-06T07:08:09+0530",
            "2024-05-06T07:08:09+24:00",
            "2024-02-30T07:08:09Z",
            "2024-05-06T07:08Z",
            "2024-05-06T07:08:09Zjunk",
            "2024-05-06",
        ] {
            assert!(!is_date_time(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn uris() {
        for good in [
            "https://example.com/a?b#c",
            "mailto:a@b.c",
            "urn:isbn:0451450523",
            "a+b.c-d:x",
        ] {
            assert!(is_uri(good), "{good}");
        }
        for bad in [
            "example.com",
            "/relative/path",
            "1http://x",
            "://x",
            "http://exa mple.com",
            "ht tp://x",
            "",
            "http://x\n",
        ] {
            assert!(!is_uri(bad), "{bad}");
        }
    }

    #[test]
    fn emails() {
        for good in [
            "a@b.co",
            "first.last+tag@sub.example.org",
            "x_y@münchen.de",
            "1@2.3",
        ] {
            assert!(is_email(good), "{good}");
        }
        for bad in [
            "plain",
            "@b.co",
            "a@",
            "a@b",
            "a@b.",
            "a@.b",
            "a@b..c",
            "a b@c.de",
            "a@b c.de",
            ".a@b.co",
            "a.@b.co",
            "a..b@c.de",
            "a@b@c.de",
            "a@-b.co",
            "a@b-.co",
            "a@b_c.de",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
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

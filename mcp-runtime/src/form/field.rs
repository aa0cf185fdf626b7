//! What may be a form field, and the options a field carries.

use std::collections::{BTreeSet, HashSet};
use std::hash::{BuildHasher, Hash};

use crate::schema::{
    ArrayType, BooleanSchema, BooleanType, ElicitValue, EnumOption, NumberSchema, NumberType,
    PrimitiveSchemaDefinition, StringFormat, StringSchema, StringType, TitledItems,
    TitledMultiSelectEnumSchema, TitledSingleSelectEnumSchema, UntitledItems,
    UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};

/// A type that can be one field of an elicitation form.
///
/// Implemented for `String`, `bool`, the integer types up to 64 bits
/// (`type: integer`; not `i128`/`u128`), `f32`/`f64` (`type: number`),
/// every [`ElicitChoice`] enum (single select), `Vec`, `BTreeSet` and
/// `HashSet` of such an enum (multi select), and `Option` of any of these
/// (a field the user may leave empty).
///
/// Every impl is `#[diagnostic::do_not_recommend]`, so a type that is not a
/// field gets the message below, not rustc's list of the types that are,
/// nor a note about the `ElicitChoice` bound of the impl for choices.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not a form field type",
    note = "a form field is a `String`, `bool`, integer (`i8`..`i64`, `u8`..`u64`, `isize`, `usize`), `f32`/`f64`, a fieldless enum that derives `ElicitChoice`, a `Vec`/`BTreeSet`/`HashSet` of such an enum, or an `Option` of one of these",
    note = "a fieldless enum of yours becomes a choice with `#[derive(ElicitChoice)]`; a struct cannot be nested in a form: put its fields in the form itself"
)]
pub trait ElicitField: Sized {
    /// Whether the user must fill the field in (`false` for `Option`).
    const REQUIRED: bool = true;

    /// The field's schema, with the options the form declared for it.
    fn schema(options: &FieldOptions) -> PrimitiveSchemaDefinition;

    /// Converts a submitted value, already checked against the schema, into
    /// the field type. `None` when the user left the field out.
    fn decode(value: Option<&ElicitValue>) -> Result<Self, String>;

    /// Like [`Self::decode`], taking the value, so that a string need not
    /// be copied.
    fn decode_owned(value: Option<ElicitValue>) -> Result<Self, String> {
        Self::decode(value.as_ref())
    }
}

/// A fieldless enum that can be a single-select field (and, in a `Vec` or
/// set, a multi-select field). Derive it with `#[derive(ElicitChoice)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a choice",
    note = "derive it: `#[derive(ElicitChoice)]` on a fieldless enum"
)]
pub trait ElicitChoice: Sized + 'static {
    /// The options in declaration order.
    const OPTIONS: &'static [ChoiceOption];

    /// The variant whose wire value is `value`.
    fn from_value(value: &str) -> Option<Self>;

    /// This variant's wire value.
    fn value(&self) -> &'static str;
}

/// One option of a choice: its wire value and, optionally, a display title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChoiceOption {
    /// What is sent back.
    pub value: &'static str,
    /// What the user sees; when any option has one, the field is titled.
    pub title: Option<&'static str>,
}

/// A field's default, as written in `#[elicit(default = ...)]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DefaultValue {
    /// `default = true`.
    Bool(bool),
    /// `default = 3`.
    Int(i64),
    /// `default = 0.5`.
    Float(f64),
    /// `default = "text"` (also a choice's wire value).
    Str(&'static str),
    /// `default = ["a", "b"]` (a multi-select's values).
    Strs(&'static [&'static str]),
}

/// What a form declares about one field, beyond its type.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FieldOptions {
    /// Label.
    pub title: Option<&'static str>,
    /// Help text (from the doc comment unless given).
    pub description: Option<&'static str>,
    /// Shortest string, in characters.
    pub min_length: Option<u64>,
    /// Longest string, in characters.
    pub max_length: Option<u64>,
    /// String format.
    pub format: Option<StringFormat>,
    /// Smallest number.
    pub minimum: Option<f64>,
    /// Largest number.
    pub maximum: Option<f64>,
    /// Fewest selections of a multi-select.
    pub min_items: Option<u64>,
    /// Most selections of a multi-select.
    pub max_items: Option<u64>,
    /// Pre-filled value.
    pub default: Option<DefaultValue>,
}

impl FieldOptions {
    /// No options: what a field without `#[elicit(...)]` gets.
    pub const EMPTY: Self = Self {
        title: None,
        description: None,
        min_length: None,
        max_length: None,
        format: None,
        minimum: None,
        maximum: None,
        min_items: None,
        max_items: None,
        default: None,
    };
}

// ---------------------------------------------------------------------------
// Implementations.
// ---------------------------------------------------------------------------

/// The reason a required field the user left out is refused with.
pub(crate) const MISSING: &str = "missing";

/// The largest integer a JSON number (an IEEE double) holds exactly.
const MAX_EXACT: i128 = (1 << 53) - 1;

fn text(value: Option<&'static str>) -> Option<String> {
    value.map(str::to_owned)
}

/// What kind of value `value` is, for error messages.
pub(crate) fn kind_of(value: &ElicitValue) -> &'static str {
    match value {
        ElicitValue::Bool(_) => "a boolean",
        ElicitValue::Number(_) => "a number",
        ElicitValue::String(_) => "a string",
        ElicitValue::Strings(_) => "a list of strings",
    }
}

/// "expected X, got Y".
pub(crate) fn expected(what: &str, got: &ElicitValue) -> String {
    format!("expected {what}, got {}", kind_of(got))
}

#[diagnostic::do_not_recommend]
impl ElicitField for String {
    fn schema(options: &FieldOptions) -> PrimitiveSchemaDefinition {
        PrimitiveSchemaDefinition::String(StringSchema {
            kind: StringType::String,
            title: text(options.title),
            description: text(options.description),
            min_length: options.min_length,
            max_length: options.max_length,
            format: options.format,
            default: match options.default {
                Some(DefaultValue::Str(value)) => Some(value.to_owned()),
                _ => None,
            },
        })
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        match value {
            Some(ElicitValue::String(s)) => Ok(s.clone()),
            Some(other) => Err(expected("a string", other)),
            None => Err(MISSING.to_owned()),
        }
    }

    fn decode_owned(value: Option<ElicitValue>) -> Result<Self, String> {
        match value {
            Some(ElicitValue::String(s)) => Ok(s),
            other => Self::decode(other.as_ref()),
        }
    }
}

#[diagnostic::do_not_recommend]
impl ElicitField for bool {
    fn schema(options: &FieldOptions) -> PrimitiveSchemaDefinition {
        PrimitiveSchemaDefinition::Boolean(BooleanSchema {
            kind: BooleanType::Boolean,
            title: text(options.title),
            description: text(options.description),
            default: match options.default {
                Some(DefaultValue::Bool(value)) => Some(value),
                _ => None,
            },
        })
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        match value {
            Some(ElicitValue::Bool(b)) => Ok(*b),
            Some(other) => Err(expected("a boolean", other)),
            None => Err(MISSING.to_owned()),
        }
    }
}

/// The whole number `number` holds, if it holds one: integers as sent, and
/// floats with no fractional part (clients may send `3.0` for `3`).
pub(crate) fn whole_number(number: &serde_json::Number) -> Option<i128> {
    if let Some(i) = number.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = number.as_u64() {
        return Some(i128::from(u));
    }
    let f = number.as_f64()?;
    // 2^127: every integer-valued float below it converts exactly.
    let limit = 170_141_183_460_469_231_731_687_303_715_884_105_728.0_f64;
    (f.is_finite() && f.fract() == 0.0 && f.abs() < limit).then_some(f as i128)
}

/// The schema of an integer field whose type holds `min..=max`: the type's
/// bounds become the schema's when they are tighter than what a JSON number
/// holds exactly, and a declared bound looser than the type's is tightened.
fn integer_schema(options: &FieldOptions, min: i128, max: i128) -> PrimitiveSchemaDefinition {
    let type_min = (min > -MAX_EXACT).then_some(min as f64);
    let type_max = (max < MAX_EXACT).then_some(max as f64);
    let minimum = match (options.minimum, type_min) {
        (Some(declared), Some(bound)) => Some(declared.max(bound)),
        (declared, bound) => declared.or(bound),
    };
    let maximum = match (options.maximum, type_max) {
        (Some(declared), Some(bound)) => Some(declared.min(bound)),
        (declared, bound) => declared.or(bound),
    };
    let fits = |i: i128| (min..=max).contains(&i);
    let default = match options.default {
        Some(DefaultValue::Int(i)) if fits(i128::from(i)) => Some(i as f64),
        Some(DefaultValue::Float(f)) if f.fract() == 0.0 && fits(f as i128) => Some(f),
        _ => None,
    };
    PrimitiveSchemaDefinition::Number(NumberSchema {
        kind: NumberType::Integer,
        title: text(options.title),
        description: text(options.description),
        minimum,
        maximum,
        default,
    })
}

/// The schema of a `type: number` field.
fn number_schema(options: &FieldOptions) -> PrimitiveSchemaDefinition {
    PrimitiveSchemaDefinition::Number(NumberSchema {
        kind: NumberType::Number,
        title: text(options.title),
        description: text(options.description),
        minimum: options.minimum,
        maximum: options.maximum,
        default: match options.default {
            Some(DefaultValue::Int(i)) => Some(i as f64),
            Some(DefaultValue::Float(f)) => Some(f),
            _ => None,
        },
    })
}

macro_rules! integer_fields {
    ($($ty:ty),* $(,)?) => {$(
        #[diagnostic::do_not_recommend]
        impl ElicitField for $ty {
            fn schema(options: &FieldOptions) -> PrimitiveSchemaDefinition {
                integer_schema(options, <$ty>::MIN as i128, <$ty>::MAX as i128)
            }

            fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
                match value {
                    Some(ElicitValue::Number(n)) => {
                        let whole = whole_number(n)
                            .ok_or_else(|| format!("expected a whole number, got {n}"))?;
                        <$ty>::try_from(whole).map_err(|_| {
                            format!("{n} is out of range ({}..={})", <$ty>::MIN, <$ty>::MAX)
                        })
                    }
                    Some(other) => Err(expected("a whole number", other)),
                    None => Err(MISSING.to_owned()),
                }
            }
        }
    )*};
}

integer_fields!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

#[diagnostic::do_not_recommend]
impl ElicitField for f64 {
    fn schema(options: &FieldOptions) -> PrimitiveSchemaDefinition {
        number_schema(options)
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        match value {
            Some(ElicitValue::Number(n)) => n
                .as_f64()
                .filter(|f| f.is_finite())
                .ok_or_else(|| format!("{n} is not a finite number")),
            Some(other) => Err(expected("a number", other)),
            None => Err(MISSING.to_owned()),
        }
    }
}

#[diagnostic::do_not_recommend]
impl ElicitField for f32 {
    fn schema(options: &FieldOptions) -> PrimitiveSchemaDefinition {
        number_schema(options)
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        let wide = f64::decode(value)?;
        let narrow = wide as f32;
        if narrow.is_finite() {
            Ok(narrow)
        } else {
            Err(format!("{wide} is out of range for a 32-bit float"))
        }
    }
}

/// The options of choice `C` as the wire's titled options (a missing title
/// is the value itself).
fn titled_options<C: ElicitChoice>() -> Vec<EnumOption> {
    C::OPTIONS
        .iter()
        .map(|option| EnumOption {
            value: option.value.to_owned(),
            title: option.title.unwrap_or(option.value).to_owned(),
        })
        .collect()
}

fn is_titled<C: ElicitChoice>() -> bool {
    C::OPTIONS.iter().any(|option| option.title.is_some())
}

fn values<C: ElicitChoice>() -> Vec<String> {
    C::OPTIONS
        .iter()
        .map(|option| option.value.to_owned())
        .collect()
}

fn is_option<C: ElicitChoice>(value: &str) -> bool {
    C::OPTIONS.iter().any(|option| option.value == value)
}

/// The choice whose wire value is `value`, or why there is none.
fn choice<C: ElicitChoice>(value: &str) -> Result<C, String> {
    C::from_value(value).ok_or_else(|| format!("{value:?} is not one of the options"))
}

#[diagnostic::do_not_recommend]
impl<T: ElicitChoice> ElicitField for T {
    fn schema(options: &FieldOptions) -> PrimitiveSchemaDefinition {
        let title = text(options.title);
        let description = text(options.description);
        let default = match options.default {
            Some(DefaultValue::Str(value)) if is_option::<T>(value) => Some(value.to_owned()),
            _ => None,
        };
        if is_titled::<T>() {
            PrimitiveSchemaDefinition::TitledSingleSelect(TitledSingleSelectEnumSchema {
                kind: StringType::String,
                title,
                description,
                options: titled_options::<T>(),
                default,
            })
        } else {
            PrimitiveSchemaDefinition::UntitledSingleSelect(UntitledSingleSelectEnumSchema {
                kind: StringType::String,
                title,
                description,
                values: values::<T>(),
                default,
            })
        }
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        match value {
            Some(ElicitValue::String(s)) => choice(s),
            Some(other) => Err(expected("one of the options", other)),
            None => Err(MISSING.to_owned()),
        }
    }
}

/// The schema of a multi-select over choice `C`.
fn multi_select_schema<C: ElicitChoice>(options: &FieldOptions) -> PrimitiveSchemaDefinition {
    let title = text(options.title);
    let description = text(options.description);
    let default = match options.default {
        Some(DefaultValue::Strs(chosen)) if chosen.iter().all(|v| is_option::<C>(v)) => {
            Some(chosen.iter().map(|v| (*v).to_owned()).collect())
        }
        _ => None,
    };
    if is_titled::<C>() {
        PrimitiveSchemaDefinition::TitledMultiSelect(TitledMultiSelectEnumSchema {
            kind: ArrayType::Array,
            title,
            description,
            min_items: options.min_items,
            max_items: options.max_items,
            items: TitledItems {
                options: titled_options::<C>(),
            },
            default,
        })
    } else {
        PrimitiveSchemaDefinition::UntitledMultiSelect(UntitledMultiSelectEnumSchema {
            kind: ArrayType::Array,
            title,
            description,
            min_items: options.min_items,
            max_items: options.max_items,
            items: UntitledItems {
                kind: StringType::String,
                values: values::<C>(),
            },
            default,
        })
    }
}

/// The choices of a submitted multi-select, in the order sent.
fn decode_many<C: ElicitChoice, Out: FromIterator<C>>(
    value: Option<&ElicitValue>,
) -> Result<Out, String> {
    match value {
        Some(ElicitValue::Strings(chosen)) => chosen.iter().map(|v| choice::<C>(v)).collect(),
        Some(other) => Err(expected("a list of options", other)),
        None => Err(MISSING.to_owned()),
    }
}

#[diagnostic::do_not_recommend]
impl<T: ElicitChoice> ElicitField for Vec<T> {
    fn schema(options: &FieldOptions) -> PrimitiveSchemaDefinition {
        multi_select_schema::<T>(options)
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        decode_many::<T, _>(value)
    }
}

#[diagnostic::do_not_recommend]
impl<T: ElicitChoice + Ord> ElicitField for BTreeSet<T> {
    fn schema(options: &FieldOptions) -> PrimitiveSchemaDefinition {
        multi_select_schema::<T>(options)
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        decode_many::<T, _>(value)
    }
}

#[diagnostic::do_not_recommend]
impl<T, S> ElicitField for HashSet<T, S>
where
    T: ElicitChoice + Eq + Hash,
    S: BuildHasher + Default,
{
    fn schema(options: &FieldOptions) -> PrimitiveSchemaDefinition {
        multi_select_schema::<T>(options)
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        decode_many::<T, _>(value)
    }
}

#[diagnostic::do_not_recommend]
impl<T: ElicitField> ElicitField for Option<T> {
    const REQUIRED: bool = false;

    fn schema(options: &FieldOptions) -> PrimitiveSchemaDefinition {
        T::schema(options)
    }

    fn decode(value: Option<&ElicitValue>) -> Result<Self, String> {
        value.map(|v| T::decode(Some(v))).transpose()
    }

    fn decode_owned(value: Option<ElicitValue>) -> Result<Self, String> {
        value.map(|v| T::decode_owned(Some(v))).transpose()
    }
}

//! Elicitation: form and URL requests, the flat field vocabulary, answers.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::JsonObject;

/// Parameters of an `elicitation/create` input request: a form or a URL.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitRequestParams {
    /// Form mode: the client renders a flat form.
    Form(ElicitRequestFormParams),
    /// URL mode: the user visits a server-named URL.
    Url(ElicitRequestUrlParams),
}

impl ElicitRequestParams {
    /// The message shown to the user.
    pub fn message(&self) -> &str {
        match self {
            Self::Form(f) => &f.message,
            Self::Url(u) => &u.message,
        }
    }
}

impl Serialize for ElicitRequestParams {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Form(form) => form.serialize(s),
            Self::Url(url) => url.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(d)?;
        match value.get("mode").and_then(Value::as_str) {
            None | Some("form") => serde_json::from_value(value)
                .map(Self::Form)
                .map_err(D::Error::custom),
            Some("url") => serde_json::from_value(value)
                .map(Self::Url)
                .map_err(D::Error::custom),
            Some(other) => Err(D::Error::custom(format!(
                "unknown elicitation mode {other:?}"
            ))),
        }
    }
}

/// Form-mode elicitation parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// `"form"`; optional on the wire, a missing mode means form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormMode>,
    /// What the user is asked.
    pub message: String,
    /// The flat form.
    pub requested_schema: RequestedSchema,
}

/// The schema of a form request: one built for this request, or a form
/// type's schema shared by every request and rendered to JSON once.
///
/// It reads as an [`ElicitRequestedSchema`] (it dereferences to one), and
/// an owned schema converts into it with `.into()`. Deserialised schemas
/// are always [`Self::Owned`].
#[derive(Debug, Clone)]
pub enum RequestedSchema {
    /// A schema built for this request (boxed: an input request stays small).
    Owned(Box<ElicitRequestedSchema>),
    /// A schema rendered once, as `ElicitForm::form` sends it: sending it
    /// copies its JSON, and cloning it copies a pointer.
    Shared(&'static RenderedSchema),
}

impl std::ops::Deref for RequestedSchema {
    type Target = ElicitRequestedSchema;

    fn deref(&self) -> &ElicitRequestedSchema {
        match self {
            Self::Owned(schema) => schema,
            Self::Shared(rendered) => rendered.schema(),
        }
    }
}

impl From<ElicitRequestedSchema> for RequestedSchema {
    fn from(schema: ElicitRequestedSchema) -> Self {
        Self::Owned(Box::new(schema))
    }
}

impl From<&'static RenderedSchema> for RequestedSchema {
    fn from(rendered: &'static RenderedSchema) -> Self {
        Self::Shared(rendered)
    }
}

impl PartialEq for RequestedSchema {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Serialize for RequestedSchema {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Owned(schema) => schema.serialize(s),
            Self::Shared(rendered) => rendered.json.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for RequestedSchema {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ElicitRequestedSchema::deserialize(d).map(Self::from)
    }
}

/// A form schema together with its compact JSON, rendered once: what a
/// form type keeps in a `static` so that asking for it costs no
/// serialisation.
#[derive(Debug)]
pub struct RenderedSchema {
    schema: ElicitRequestedSchema,
    json: Box<serde_json::value::RawValue>,
}

impl RenderedSchema {
    /// Renders `schema` to JSON.
    pub fn new(schema: ElicitRequestedSchema) -> Self {
        // Serialising a schema of strings, numbers and maps with string
        // keys cannot fail; the fallback (`null`) is only a formality.
        let json = serde_json::value::to_raw_value(&schema).unwrap_or_default();
        Self { schema, json }
    }

    /// The schema.
    pub fn schema(&self) -> &ElicitRequestedSchema {
        &self.schema
    }

    /// Its JSON, as sent.
    pub fn json(&self) -> &str {
        self.json.get()
    }
}

/// The literal `"form"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FormMode {
    /// Form mode.
    #[default]
    #[serde(rename = "form")]
    Form,
}

/// The literal `"url"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum UrlMode {
    /// URL mode.
    #[default]
    #[serde(rename = "url")]
    Url,
}

/// URL-mode elicitation parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElicitRequestUrlParams {
    /// Always `"url"`.
    pub mode: UrlMode,
    /// Why the user should visit the URL.
    pub message: String,
    /// The URL (no credentials or personal data in it).
    pub url: String,
}

/// The literal `"object"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ObjectType {
    /// `"object"`.
    #[default]
    #[serde(rename = "object")]
    Object,
}

/// The fields of a form in the order they are declared (and shown).
pub type FormProperties = indexmap::IndexMap<String, PrimitiveSchemaDefinition>;

/// The schema of a flat elicitation form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitRequestedSchema {
    /// An optional `$schema` dialect URI.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `"object"`.
    #[serde(rename = "type")]
    pub kind: ObjectType,
    /// The fields, by name.
    pub properties: FormProperties,
    /// Names of the fields the user must fill in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
}

/// One field of a form: a string, number, boolean or choice.
#[derive(Debug, Clone, PartialEq)]
pub enum PrimitiveSchemaDefinition {
    /// Free text.
    String(StringSchema),
    /// A number or an integer.
    Number(NumberSchema),
    /// Yes or no.
    Boolean(BooleanSchema),
    /// One of several values, shown as they are.
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// One of several values, each with a display title.
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// Several of several values, shown as they are.
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    /// Several of several values, each with a display title.
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// The legacy `enum` + `enumNames` form (to be removed from the spec).
    LegacyTitled(LegacyTitledEnumSchema),
}

impl PrimitiveSchemaDefinition {
    /// The field's display label (`title`), if it has one.
    pub fn title(&self) -> Option<&str> {
        match self {
            Self::String(x) => x.title.as_deref(),
            Self::Number(x) => x.title.as_deref(),
            Self::Boolean(x) => x.title.as_deref(),
            Self::UntitledSingleSelect(x) => x.title.as_deref(),
            Self::TitledSingleSelect(x) => x.title.as_deref(),
            Self::UntitledMultiSelect(x) => x.title.as_deref(),
            Self::TitledMultiSelect(x) => x.title.as_deref(),
            Self::LegacyTitled(x) => x.title.as_deref(),
        }
    }
}

impl Serialize for PrimitiveSchemaDefinition {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::String(x) => x.serialize(s),
            Self::Number(x) => x.serialize(s),
            Self::Boolean(x) => x.serialize(s),
            Self::UntitledSingleSelect(x) => x.serialize(s),
            Self::TitledSingleSelect(x) => x.serialize(s),
            Self::UntitledMultiSelect(x) => x.serialize(s),
            Self::TitledMultiSelect(x) => x.serialize(s),
            Self::LegacyTitled(x) => x.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(d)?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        let has = |key: &str| value.get(key).is_some();
        let parsed = match kind {
            "boolean" => serde_json::from_value(value).map(Self::Boolean),
            "number" | "integer" => serde_json::from_value(value).map(Self::Number),
            "array" => {
                let titled = value
                    .get("items")
                    .is_some_and(|items| items.get("anyOf").is_some());
                if titled {
                    serde_json::from_value(value).map(Self::TitledMultiSelect)
                } else {
                    serde_json::from_value(value).map(Self::UntitledMultiSelect)
                }
            }
            "string" if has("oneOf") => serde_json::from_value(value).map(Self::TitledSingleSelect),
            "string" if has("enumNames") => serde_json::from_value(value).map(Self::LegacyTitled),
            "string" if has("enum") => {
                serde_json::from_value(value).map(Self::UntitledSingleSelect)
            }
            "string" => serde_json::from_value(value).map(Self::String),
            other => {
                return Err(D::Error::custom(format!(
                    "unsupported elicitation field type {other:?}"
                )));
            }
        };
        parsed.map_err(D::Error::custom)
    }
}

/// The literal `"string"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum StringType {
    /// `"string"`.
    #[default]
    #[serde(rename = "string")]
    String,
}

/// The literal `"boolean"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BooleanType {
    /// `"boolean"`.
    #[default]
    #[serde(rename = "boolean")]
    Boolean,
}

/// The literal `"array"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArrayType {
    /// `"array"`.
    #[default]
    #[serde(rename = "array")]
    Array,
}

/// `"number"` or `"integer"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// Any JSON number.
    #[default]
    Number,
    /// Whole numbers only.
    Integer,
}

/// String formats a form field may declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StringFormat {
    /// An e-mail address.
    Email,
    /// A URI.
    Uri,
    /// A calendar date (`YYYY-MM-DD`).
    Date,
    /// A date and time (RFC 3339).
    DateTime,
}

/// A free-text field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Expected format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// A number or integer field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub kind: NumberType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Smallest allowed value.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "whole_as_integer"
    )]
    pub minimum: Option<f64>,
    /// Largest allowed value.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "whole_as_integer"
    )]
    pub maximum: Option<f64>,
    /// Pre-filled value.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "whole_as_integer"
    )]
    pub default: Option<f64>,
}

/// Writes whole numbers as JSON integers (`255`, not `255.0`), as the
/// specification asks; other values as they are.
fn whole_as_integer<S: serde::Serializer>(value: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 => {
            s.serialize_i64(*v as i64)
        }
        Some(v) => s.serialize_f64(*v),
        None => s.serialize_none(),
    }
}

/// A yes/no field.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub kind: BooleanType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// A value paired with its display title.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumOption {
    /// The value sent back.
    #[serde(rename = "const")]
    pub value: String,
    /// What the user sees.
    pub title: String,
}

/// A single choice among values shown as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// A single choice among titled values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The options.
    #[serde(rename = "oneOf")]
    pub options: Vec<EnumOption>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The `items` of an untitled multi-select.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntitledItems {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// The values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// The `items` of a titled multi-select.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TitledItems {
    /// The options.
    #[serde(rename = "anyOf")]
    pub options: Vec<EnumOption>,
}

/// Several choices among values shown as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The values.
    pub items: UntitledItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Several choices among titled values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The options.
    pub items: TitledItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// The legacy titled single-select (`enum` with parallel `enumNames`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Display names, parallel to `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted (form) or consented (URL).
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// One submitted form value: a string, number, boolean or list of strings.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitValue {
    /// A boolean.
    Bool(bool),
    /// A number (integer or not).
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// Several strings (multi-select).
    Strings(Vec<String>),
}

/// Reads a value by its JSON type directly, where `#[serde(untagged)]`
/// would buffer it and try each variant in turn.
impl<'de> Deserialize<'de> for ElicitValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::{Error, SeqAccess, Unexpected, Visitor};

        struct ValueVisitor;

        impl<'de> Visitor<'de> for ValueVisitor {
            type Value = ElicitValue;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string, a number, a boolean or a list of strings")
            }

            fn visit_bool<E: Error>(self, value: bool) -> Result<ElicitValue, E> {
                Ok(ElicitValue::Bool(value))
            }

            fn visit_i64<E: Error>(self, value: i64) -> Result<ElicitValue, E> {
                Ok(ElicitValue::Number(value.into()))
            }

            fn visit_u64<E: Error>(self, value: u64) -> Result<ElicitValue, E> {
                Ok(ElicitValue::Number(value.into()))
            }

            fn visit_f64<E: Error>(self, value: f64) -> Result<ElicitValue, E> {
                serde_json::Number::from_f64(value)
                    .map(ElicitValue::Number)
                    .ok_or_else(|| E::invalid_value(Unexpected::Float(value), &self))
            }

            fn visit_str<E: Error>(self, value: &str) -> Result<ElicitValue, E> {
                Ok(ElicitValue::String(value.to_owned()))
            }

            fn visit_string<E: Error>(self, value: String) -> Result<ElicitValue, E> {
                Ok(ElicitValue::String(value))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ElicitValue, A::Error> {
                let mut strings = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(item) = seq.next_element::<String>()? {
                    strings.push(item);
                }
                Ok(ElicitValue::Strings(strings))
            }
        }

        deserializer.deserialize_any(ValueVisitor)
    }
}

/// The client's answer to an elicitation input request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (form mode, accept only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ElicitValue>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl ElicitResult {
    /// An accepted form with these values.
    pub fn accept(content: BTreeMap<String, ElicitValue>) -> Self {
        Self {
            action: ElicitAction::Accept,
            content: Some(content),
            meta: None,
        }
    }

    /// A declined elicitation.
    pub fn decline() -> Self {
        Self {
            action: ElicitAction::Decline,
            content: None,
            meta: None,
        }
    }

    /// A cancelled elicitation.
    pub fn cancel() -> Self {
        Self {
            action: ElicitAction::Cancel,
            content: None,
            meta: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode(value: serde_json::Value) -> Result<ElicitValue, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    #[test]
    fn form_values_decode_by_json_type_and_round_trip() {
        for value in [
            json!(true),
            json!(-3),
            json!(18446744073709551615u64),
            json!(2.5),
            json!("x"),
            json!(["a", "b"]),
            json!([]),
        ] {
            let decoded = decode(value.clone()).unwrap();
            assert_eq!(serde_json::to_value(&decoded).unwrap(), value);
        }
        assert_eq!(decode(json!(7)), Ok(ElicitValue::Number(7.into())));
        assert_eq!(
            serde_json::from_str::<ElicitValue>("\"caf\\u00e9\"").unwrap(),
            ElicitValue::String("café".into())
        );
    }

    #[test]
    fn other_json_types_are_refused_with_what_was_expected() {
        for value in [json!(null), json!({"a": 1}), json!([1]), json!(["a", null])] {
            let error = decode(value.clone()).unwrap_err();
            assert!(error.contains("expected a string"), "{value}: {error}");
        }
    }

    #[test]
    fn a_rendered_schema_is_sent_as_the_owned_one_would_be() {
        let mut schema = ElicitRequestedSchema::default();
        schema.properties.insert(
            "caf\u{e9} \"x\"".into(),
            PrimitiveSchemaDefinition::String(StringSchema {
                description: Some("a <b> & \\ c".into()),
                ..StringSchema::default()
            }),
        );
        schema.required = Some(vec!["caf\u{e9} \"x\"".into()]);
        let rendered: &'static RenderedSchema =
            Box::leak(Box::new(RenderedSchema::new(schema.clone())));
        let shared = RequestedSchema::Shared(rendered);
        let owned = RequestedSchema::from(schema.clone());
        let wire = serde_json::to_string(&shared).unwrap();
        assert_eq!(wire, serde_json::to_string(&owned).unwrap());
        assert_eq!(rendered.json(), wire);
        assert_eq!(shared, owned, "equal by content");
        assert_eq!(*shared, schema, "reads as the schema");
        // Inside a larger value, through serde_json's `Value` too.
        let form = ElicitRequestFormParams {
            mode: None,
            message: "m".into(),
            requested_schema: shared,
        };
        let as_value = serde_json::to_value(&form).unwrap();
        assert_eq!(
            as_value["requestedSchema"],
            serde_json::to_value(&schema).unwrap()
        );
        // What comes back from the wire is owned.
        let back: ElicitRequestFormParams = serde_json::from_value(as_value).unwrap();
        assert!(matches!(back.requested_schema, RequestedSchema::Owned(_)));
        assert_eq!(back, form);
    }
}

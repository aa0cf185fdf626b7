//! Building a form's schema field by field.

use super::field::{ElicitField, FieldOptions};
use crate::schema::{ElicitRequestedSchema, FormProperties, ObjectType, RenderedSchema};

/// Builds an [`ElicitRequestedSchema`] one typed field at a time.
///
/// This is what `#[derive(ElicitForm)]` generates; written by hand:
///
/// ```
/// use mcp_runtime::form::{FieldOptions, FormSchema};
///
/// let schema = FormSchema::new()
///     .field::<bool>("ok", FieldOptions { description: Some("Deploy?"), ..FieldOptions::EMPTY })
///     .field::<Option<String>>("note", FieldOptions { max_length: Some(200), ..FieldOptions::EMPTY })
///     .build();
/// assert_eq!(schema.required, Some(vec!["ok".to_owned()]));
/// assert_eq!(schema.properties.len(), 2);
/// ```
///
/// The options are taken as given. A field whose bounds no answer can meet
/// (a `minimum` above its `maximum`, or above what the field's type holds,
/// such as `minimum: Some(300.0)` on a `u8`) makes a form the runtime
/// refuses to send: the handler's call fails with `-32603` and the log
/// names the field and the fix. [`ElicitRequestedSchema::check_bounds`]
/// finds it sooner, in a test.
#[derive(Debug, Clone, Default)]
pub struct FormSchema {
    properties: FormProperties,
    required: Vec<String>,
}

impl FormSchema {
    /// A form with no fields yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds field `name` of type `T` with `options`; the field is required
    /// unless `T` is an `Option`. Adding a name twice replaces the field.
    #[must_use]
    pub fn field<T: ElicitField>(mut self, name: &str, options: FieldOptions) -> Self {
        self.properties.insert(name.to_owned(), T::schema(&options));
        self.required.retain(|n| n != name);
        if T::REQUIRED {
            self.required.push(name.to_owned());
        }
        self
    }

    /// The finished schema (`required` is left out when no field is).
    pub fn build(self) -> ElicitRequestedSchema {
        ElicitRequestedSchema {
            schema: None,
            kind: ObjectType::Object,
            properties: self.properties,
            required: (!self.required.is_empty()).then_some(self.required),
        }
    }

    /// The schema, rendered to JSON once: what `ElicitForm::form_schema`
    /// keeps in its `static`.
    pub fn render(self) -> RenderedSchema {
        RenderedSchema::new(self.build())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_keep_their_declaration_order() {
        let schema = FormSchema::new()
            .field::<String>("zebra", FieldOptions::EMPTY)
            .field::<bool>("apple", FieldOptions::EMPTY)
            .build();
        let json = serde_json::to_string(&schema).unwrap_or_default();
        let (zebra, apple) = (json.find("zebra"), json.find("apple"));
        assert!(zebra.is_some() && zebra < apple, "{json}");
    }

    #[test]
    fn empty_form_has_no_required_list() {
        let schema = FormSchema::new()
            .field::<Option<bool>>("x", FieldOptions::EMPTY)
            .build();
        assert_eq!(schema.required, None);
        assert_eq!(
            serde_json::to_value(&schema).ok(),
            Some(serde_json::json!({"type": "object", "properties": {"x": {"type": "boolean"}}}))
        );
    }

    #[test]
    fn redeclaring_a_field_replaces_it() {
        let schema = FormSchema::new()
            .field::<bool>("x", FieldOptions::EMPTY)
            .field::<Option<String>>("x", FieldOptions::EMPTY)
            .build();
        assert_eq!(schema.required, None);
        assert!(matches!(
            schema.properties.get("x"),
            Some(crate::schema::PrimitiveSchemaDefinition::String(_))
        ));
    }
}

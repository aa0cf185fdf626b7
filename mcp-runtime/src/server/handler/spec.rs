//! What the macros read off a handler function (`ToolSpec`, `PromptSpec`,
//! `ResourceSpec`), and the descriptors built from it together with what
//! the parameter and return types contribute (input and output schemas).

use serde_json::Value;

use crate::schema::{
    JsonObject, Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolAnnotations,
};

/// A function that yields one parameter's part of the input schema.
pub type SchemaFn = fn() -> Option<JsonObject>;

/// The [`SchemaFn`] of a part that adds nothing.
fn no_schema() -> Option<JsonObject> {
    None
}

/// What `#[tool]` knows about a tool.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// Human-readable name.
    pub title: Option<&'static str>,
    /// From the doc comment or `description = "..."`.
    pub description: &'static str,
    /// `read_only`.
    pub read_only: Option<bool>,
    /// `destructive`.
    pub destructive: Option<bool>,
    /// `idempotent`.
    pub idempotent: Option<bool>,
    /// `open_world`.
    pub open_world: Option<bool>,
    /// Each parameter's schema contribution.
    pub input: &'static [SchemaFn],
    /// The return type's output schema.
    pub output: SchemaFn,
}

impl ToolSpec {
    /// A spec with every optional part unset, to fill in with
    /// `ToolSpec { name, description, .., ..ToolSpec::DEFAULT }`.
    pub const DEFAULT: Self = Self {
        name: "",
        title: None,
        description: "",
        read_only: None,
        destructive: None,
        idempotent: None,
        open_world: None,
        input: &[],
        output: no_schema,
    };

    /// The tool descriptor. Its input schema's `properties` are written in
    /// the order the arguments type declares its fields (then any others,
    /// by name).
    pub fn build(self) -> Tool {
        let annotations = ToolAnnotations {
            title: None,
            read_only_hint: self.read_only,
            destructive_hint: self.destructive,
            idempotent_hint: self.idempotent,
            open_world_hint: self.open_world,
        };
        let (schema, order) = merge_input_schemas(self.input);
        let mut tool = Tool::new(self.name, self.description)
            .with_input_schema(schema)
            .with_property_order(order);
        tool.title = self.title.map(str::to_owned);
        tool.output_schema = (self.output)();
        tool.annotations = (annotations != ToolAnnotations::default()).then_some(annotations);
        tool
    }
}

/// What `#[prompt]` knows about a prompt.
#[derive(Debug, Clone, Copy)]
pub struct PromptSpec {
    /// The prompt's name.
    pub name: &'static str,
    /// Human-readable name.
    pub title: Option<&'static str>,
    /// From the doc comment or `description = "..."`.
    pub description: &'static str,
    /// Each parameter's schema contribution: its properties become the
    /// prompt's declared arguments.
    pub input: &'static [SchemaFn],
}

impl PromptSpec {
    /// The prompt descriptor. Its arguments come in the order the
    /// arguments type declares its fields (then any others, by name).
    pub fn build(self) -> Prompt {
        let (schema, order) = merge_input_schemas(self.input);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut prompt = Prompt::new(self.name, self.description);
        prompt.title = self.title.map(str::to_owned);
        if let Some(Value::Object(properties)) = schema.get("properties") {
            let mut properties: Vec<(&String, &Value)> = properties.iter().collect();
            // Stable: names the order does not know keep their sorted place
            // after the ones it does.
            properties.sort_by_key(|(name, _)| {
                order
                    .iter()
                    .position(|declared| declared == *name)
                    .unwrap_or(usize::MAX)
            });
            for (name, property) in properties {
                prompt = prompt.with_argument(PromptArgument {
                    name: name.clone(),
                    title: property
                        .get("title")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    description: property
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    required: Some(required.contains(&name.as_str())),
                });
            }
        }
        prompt
    }
}

/// What `#[resource]` knows about a resource or a resource template.
#[derive(Debug, Clone, Copy)]
pub struct ResourceSpec {
    /// The URI, or the URI template.
    pub uri: &'static str,
    /// The resource's name.
    pub name: &'static str,
    /// Human-readable name.
    pub title: Option<&'static str>,
    /// From the doc comment or `description = "..."`.
    pub description: Option<&'static str>,
    /// MIME type.
    pub mime_type: Option<&'static str>,
}

impl ResourceSpec {
    /// The descriptor of a resource with a fixed URI.
    pub fn resource(self) -> Resource {
        let mut resource = Resource::new(self.uri, self.name);
        resource.title = self.title.map(str::to_owned);
        resource.description = self.description.map(str::to_owned);
        resource.mime_type = self.mime_type.map(str::to_owned);
        resource
    }

    /// The descriptor of a resource template.
    pub fn template(self) -> ResourceTemplate {
        let mut template = ResourceTemplate::new(self.uri, self.name);
        template.title = self.title.map(str::to_owned);
        template.description = self.description.map(str::to_owned);
        template.mime_type = self.mime_type.map(str::to_owned);
        template
    }
}

/// The JSON Schema (draft 2020-12) of `T` as an object; `None` for the rare
/// schema that is a bare boolean.
pub(crate) fn schema_of<T: schemars::JsonSchema>() -> Option<JsonObject> {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    match schema.to_value() {
        Value::Object(object) => Some(object),
        _ => None,
    }
}

/// The key under which an input schema contribution carries the order its
/// type declares its fields in; [`merge_input_schemas`] takes it out, so it
/// never reaches a descriptor.
const DECLARED_ORDER: &str = "x-mcp-declared-order";

/// `schema` (the schema of `T`) carrying the names of `T`'s fields in the
/// order `T` declares them, as serde reads them (renames applied), when `T`
/// deserializes as a struct with named fields.
pub(crate) fn with_declared_order<T: serde::de::DeserializeOwned>(
    mut schema: JsonObject,
) -> JsonObject {
    if let Some(fields) = declared_fields::<T>() {
        schema.insert(DECLARED_ORDER.to_owned(), Value::from(fields.to_vec()));
    }
    schema
}

/// The field names serde's derive gives `deserialize_struct` for `T`, in
/// declared order; `None` for anything that does not deserialize as such a
/// struct (a map, a flattened struct, a hand-written impl).
fn declared_fields<T: serde::de::DeserializeOwned>() -> Option<&'static [&'static str]> {
    let mut fields = None;
    // It always ends in an error: it reads the names and nothing else.
    let _ = T::deserialize(FieldNames(&mut fields));
    fields
}

/// A deserializer that only records the field names of a struct.
struct FieldNames<'a>(&'a mut Option<&'static [&'static str]>);

impl<'de> serde::Deserializer<'de> for FieldNames<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = Some(fields);
        Err(serde::de::Error::custom("the field names were read"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// One input schema from the parameters' contributions: `{"type":"object"}`
/// when none contributes, the contribution when one does, and the union of
/// `properties`, `required` and `$defs` when several do; with the declared
/// order of their fields, one contribution after another.
fn merge_input_schemas(parts: &[SchemaFn]) -> (JsonObject, Vec<String>) {
    let mut order = Vec::new();
    let schemas: Vec<JsonObject> = parts
        .iter()
        .filter_map(|part| part())
        .map(|mut schema| {
            if let Some(Value::Array(names)) = schema.remove(DECLARED_ORDER) {
                order.extend(names.into_iter().filter_map(|name| match name {
                    Value::String(name) => Some(name),
                    _ => None,
                }));
            }
            schema
        })
        .collect();
    let mut schemas = schemas.into_iter();
    let Some(mut merged) = schemas.next() else {
        let mut empty = JsonObject::new();
        empty.insert("type".into(), Value::from("object"));
        return (empty, order);
    };
    for schema in schemas {
        for key in ["properties", "$defs"] {
            if let Some(Value::Object(more)) = schema.get(key) {
                let entry = merged
                    .entry(key)
                    .or_insert_with(|| Value::Object(JsonObject::new()));
                if let Value::Object(existing) = entry {
                    existing.extend(more.clone());
                }
            }
        }
        if let Some(Value::Array(more)) = schema.get("required") {
            let entry = merged
                .entry("required")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(existing) = entry {
                existing.extend(more.iter().cloned());
            }
        }
    }
    (merged, order)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Ordered {
        zeta: String,
        #[serde(rename = "Alpha")]
        alpha: String,
        mid: Option<u32>,
    }

    /// Declared as `zeta`, `alpha`, `mid`.
    fn ordered() -> Option<JsonObject> {
        schema_of::<Ordered>().map(with_declared_order::<Ordered>)
    }

    #[test]
    fn declared_fields_are_serde_names_in_declared_order() {
        assert_eq!(
            declared_fields::<Ordered>(),
            Some(&["zeta", "Alpha", "mid"][..])
        );
        assert_eq!(
            declared_fields::<std::collections::BTreeMap<String, String>>(),
            None
        );
        assert_eq!(declared_fields::<String>(), None);
    }

    #[test]
    fn prompt_arguments_and_tool_properties_keep_declared_order_without_an_order_key() {
        let prompt = PromptSpec {
            name: "letter",
            title: None,
            description: "A letter.",
            input: &[ordered],
        }
        .build();
        let names: Vec<&str> = prompt
            .arguments
            .iter()
            .flatten()
            .map(|argument| argument.name.as_str())
            .collect();
        assert_eq!(names, ["zeta", "Alpha", "mid"]);
        let tool = ToolSpec {
            name: "letter",
            description: "A letter.",
            input: &[ordered],
            ..ToolSpec::DEFAULT
        }
        .build();
        assert!(!tool.input_schema.contains_key(DECLARED_ORDER));
        assert_eq!(tool.property_order, ["zeta", "Alpha", "mid"]);
        let written = serde_json::to_string(&tool).unwrap();
        let at = |name: &str| written.find(&(format!("\"{name}\":") + "\u{7b}")).unwrap();
        assert!(
            at("zeta") < at("Alpha") && at("Alpha") < at("mid"),
            "{written}"
        );
    }
}

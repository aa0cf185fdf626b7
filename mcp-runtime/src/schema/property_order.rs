//! An object schema written with its top-level `properties` in a given
//! order. A [`JsonObject`] keeps its keys sorted (serde_json's
//! `preserve_order` stays off: it grows every JSON value), so the order a
//! type declares its fields in is kept beside the schema and applied here,
//! as the schema is written: one pass, no copy of the schema.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use super::JsonObject;

/// `schema` as it is written, its `properties` member (when it is an
/// object) listing the names of `order` first, in that order, then any
/// others by name. With an empty `order`, the schema as it is.
pub(crate) struct OrderedSchema<'a> {
    /// The schema.
    pub(crate) schema: &'a JsonObject,
    /// The names of properties in the order they are written.
    pub(crate) order: &'a [String],
}

impl Serialize for OrderedSchema<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.order.is_empty() {
            return self.schema.serialize(serializer);
        }
        let mut map = serializer.serialize_map(Some(self.schema.len()))?;
        for (key, value) in self.schema {
            match value {
                Value::Object(properties) if key == "properties" => {
                    map.serialize_entry(
                        key,
                        &OrderedProperties {
                            properties,
                            order: self.order,
                        },
                    )?;
                }
                _ => map.serialize_entry(key, value)?,
            }
        }
        map.end()
    }
}

/// The members of `properties`: those `order` names, in its order (a name
/// it repeats counts once, a name no property has is passed over), then
/// the rest, by name.
struct OrderedProperties<'a> {
    properties: &'a JsonObject,
    order: &'a [String],
}

impl Serialize for OrderedProperties<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.properties.len()))?;
        for (at, name) in self.order.iter().enumerate() {
            let repeated = self.order.iter().take(at).any(|earlier| earlier == name);
            if let (false, Some(value)) = (repeated, self.properties.get(name)) {
                map.serialize_entry(name, value)?;
            }
        }
        for (name, value) in self.properties {
            if !self.order.contains(name) {
                map.serialize_entry(name, value)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn written(schema: &Value, order: &[&str]) -> String {
        let Value::Object(schema) = schema else {
            unreachable!("the tests give objects")
        };
        let order: Vec<String> = order.iter().map(|name| (*name).to_owned()).collect();
        serde_json::to_string(&OrderedSchema {
            schema,
            order: &order,
        })
        .unwrap()
    }

    #[test]
    fn properties_come_in_order_then_the_rest_by_name() {
        let schema = json!({
            "type": "object",
            "properties": {"alpha": {}, "mid": {"type": "string"}, "zeta": {}, "extra": {}},
            "required": ["zeta"]
        });
        assert_eq!(
            written(&schema, &["zeta", "gone", "alpha", "zeta", "mid"]),
            r#"{"properties":{"zeta":{},"alpha":{},"mid":{"type":"string"},"extra":{}},"required":["zeta"],"type":"object"}"#
        );
    }

    #[test]
    fn no_order_writes_the_schema_as_it_is() {
        let schema = json!({"type": "object", "properties": {"b": {}, "a": {}}});
        assert_eq!(
            written(&schema, &[]),
            serde_json::to_string(&schema).unwrap()
        );
        assert_eq!(
            written(&schema, &["b"]),
            r#"{"properties":{"b":{},"a":{}},"type":"object"}"#
        );
    }
}

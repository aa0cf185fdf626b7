//! Reading a request's `params`: an object's members into a tree, but for
//! those kept apart as the JSON text sent (`_meta`, `arguments`) and what a
//! retry carries (`inputResponses`, `requestState`).

use serde::de::{DeserializeSeed, Deserializer, MapAccess};
use serde_json::Value;
use serde_json::value::RawValue;

use super::arguments::{ARGUMENTS, within_depth};
use super::meta::{META, MetaSeed};
use crate::schema::{JsonKey, JsonObject, ObjectOr, ReadObject};
use crate::server::handler::{AnswersReader, INPUT_RESPONSES, REQUEST_STATE, RoundTrip};

/// `params`: any JSON value, with an object's `_meta`, `arguments` and
/// round-trip members apart.
pub(super) struct Params {
    pub(super) value: Value,
    pub(super) meta: Option<Box<super::meta::MetaText>>,
    pub(super) arguments: Option<Box<RawValue>>,
    pub(super) round_trip: RoundTrip,
}

/// Reads `params`, keeping an object's `_meta`, `arguments` and round-trip
/// members apart.
pub(super) struct ParamsReader;

impl<'de> ReadObject<'de> for ParamsReader {
    type Output = Params;

    fn object<A: MapAccess<'de>>(self, mut map: A) -> Result<Params, A::Error> {
        let mut object = JsonObject::new();
        let mut meta = None;
        let mut arguments = None;
        let mut round_trip = RoundTrip::default();
        while let Some(JsonKey(key)) = map.next_key()? {
            match &*key {
                ARGUMENTS => arguments = Some(map.next_value_seed(Text)?),
                META => meta = Some(Box::new(map.next_value_seed(MetaSeed)?)),
                INPUT_RESPONSES => {
                    round_trip.input_responses =
                        Some(map.next_value_seed(ObjectOr(AnswersReader))?);
                }
                REQUEST_STATE => round_trip.request_state = Some(map.next_value()?),
                _ => {
                    object.insert(key.into_owned(), map.next_value()?);
                }
            }
        }
        Ok(Params {
            value: Value::Object(object),
            meta,
            arguments,
            round_trip,
        })
    }

    fn other(value: Value) -> Params {
        Params {
            value,
            meta: None,
            arguments: None,
            round_trip: RoundTrip::default(),
        }
    }
}

/// A member kept as the JSON text sent: read without the depth limit a
/// tree has, so held to it here.
struct Text;

impl<'de> DeserializeSeed<'de> for Text {
    type Value = Box<RawValue>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Box<RawValue>, D::Error> {
        let raw: Box<RawValue> = serde::Deserialize::deserialize(d)?;
        within_depth(raw.get(), 0)?;
        Ok(raw)
    }
}

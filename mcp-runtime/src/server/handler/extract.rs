//! What a macro-generated handler takes as parameters: its arguments as
//! one typed value, the request context, the verified resume state, and
//! shared application state.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::arguments::invalid_arguments;
use super::{Ctx, ToolArguments};
use crate::schema::{JsonObject, McpError};

/// The parts of a call the parameters are drawn from.
#[derive(Debug)]
pub struct CallParts {
    arguments: Arguments,
    ctx: Ctx,
}

/// A call's arguments: a JSON object (tools), or strings (prompt arguments
/// and resource-template variables), which typed fields parse.
#[derive(Debug)]
enum Arguments {
    /// A tool's arguments, as sent.
    Raw(ToolArguments),
    /// The parts of a completion request.
    Json(JsonObject),
    Strings(std::collections::BTreeMap<String, String>),
}

impl CallParts {
    /// The parts of one tool call: its arguments and its context (for a
    /// prompt or a resource template, see [`Self::from_strings`]).
    pub fn new(arguments: ToolArguments, ctx: Ctx) -> Self {
        Self {
            arguments: Arguments::Raw(arguments),
            ctx,
        }
    }

    /// The parts of a request whose parameters read a JSON object.
    pub(crate) fn from_object(parts: JsonObject, ctx: Ctx) -> Self {
        Self {
            arguments: Arguments::Json(parts),
            ctx,
        }
    }

    /// The JSON part under `key` of a request made [`Self::from_object`].
    pub(crate) fn json_argument(&self, key: &str) -> Option<&serde_json::Value> {
        match &self.arguments {
            Arguments::Json(object) => object.get(key),
            Arguments::Raw(_) | Arguments::Strings(_) => None,
        }
    }

    /// The parts of a prompt call or a resource-template read, whose
    /// arguments (variables) are strings. A field of another type than
    /// `String` (`id: u32`, `verbose: bool`) is parsed from its string.
    pub fn from_strings(arguments: std::collections::BTreeMap<String, String>, ctx: Ctx) -> Self {
        Self {
            arguments: Arguments::Strings(arguments),
            ctx,
        }
    }

    /// The request context.
    pub fn ctx(&self) -> &Ctx {
        &self.ctx
    }
}

/// A type a handler can take as a parameter.
///
/// Implemented for every `T: Deserialize + JsonSchema` (the arguments, whose
/// schema becomes the input schema), [`Ctx`], [`Resume<S>`] and [`Shared<T>`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of an MCP handler",
    label = "not a handler parameter",
    note = "a handler takes its arguments as one type deriving `serde::Deserialize` and `schemars::JsonSchema`, and any of: `Ctx` (the request context), `Resume<S>` (the verified resume state), `Shared<T>` (state given to `ServerBuilder::share`)"
)]
pub trait FromCall: Sized {
    /// The value this parameter needs from `ServerBuilder::share`, if any;
    /// `ServerBuilder::build` refuses a server that lacks it.
    const SHARED: Option<SharedNeed> = None;

    /// Whether this parameter is a state the server signs (true for
    /// [`Resume<S>`]): `ServerBuilder::build` then refuses a server without
    /// `ServerBuilder::request_state_signer`. Read off the type, so an alias
    /// of `Resume<S>` counts too.
    const NEEDS_SIGNER: bool = false;

    /// The JSON Schema this parameter adds to the input schema, if any.
    fn input_schema() -> Option<JsonObject> {
        None
    }

    /// Draws the parameter from the call.
    fn from_call(parts: &mut CallParts) -> Result<Self, McpError>;
}

impl<T: DeserializeOwned + JsonSchema> FromCall for T {
    /// The schema of `T`, carrying the order its fields are declared in
    /// (which the schema's sorted `properties` lose) for the descriptor to
    /// read: a prompt lists its arguments, and a tool its input schema's
    /// `properties`, in that order.
    fn input_schema() -> Option<JsonObject> {
        super::spec::schema_of::<T>().map(super::spec::with_declared_order::<T>)
    }

    fn from_call(parts: &mut CallParts) -> Result<Self, McpError> {
        match &parts.arguments {
            // Read in place: several parameters may read the arguments.
            Arguments::Raw(arguments) => arguments.decode(),
            Arguments::Json(object) => {
                serde_path_to_error::deserialize(object).map_err(invalid_arguments)
            }
            Arguments::Strings(strings) => {
                let entries = strings
                    .iter()
                    .map(|(k, v)| (k.as_str(), StrArg(v.as_str())));
                let map = serde::de::value::MapDeserializer::new(entries);
                serde_path_to_error::deserialize(map).map_err(invalid_arguments)
            }
        }
    }
}

/// A string argument that a typed field may parse: a number, a boolean, a
/// unit enum variant, or the string itself.
struct StrArg<'a>(&'a str);

impl<'de> serde::de::IntoDeserializer<'de, serde::de::value::Error> for StrArg<'de> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

macro_rules! parse_as {
    ($($method:ident => $visit:ident as $ty:ty),* $(,)?) => {$(
        fn $method<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            match self.0.trim().parse::<$ty>() {
                Ok(value) => visitor.$visit(value),
                Err(_) => Err(serde::de::Error::invalid_value(
                    serde::de::Unexpected::Str(self.0),
                    &concat!("a string holding ", stringify!($ty)),
                )),
            }
        }
    )*};
}

impl<'de> serde::Deserializer<'de> for StrArg<'de> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_borrowed_str(self.0)
    }

    parse_as!(
        deserialize_bool => visit_bool as bool,
        deserialize_i8 => visit_i8 as i8,
        deserialize_i16 => visit_i16 as i16,
        deserialize_i32 => visit_i32 as i32,
        deserialize_i64 => visit_i64 as i64,
        deserialize_u8 => visit_u8 as u8,
        deserialize_u16 => visit_u16 as u16,
        deserialize_u32 => visit_u32 as u32,
        deserialize_u64 => visit_u64 as u64,
        deserialize_f32 => visit_f32 as f32,
        deserialize_f64 => visit_f64 as f64,
    );

    fn deserialize_option<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_enum(serde::de::IntoDeserializer::<Self::Error>::into_deserializer(self.0))
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

/// The former name of [`Ctx`].
#[deprecated(since = "0.1.0", note = "one name per type: use `Ctx`")]
pub type Context = Ctx;

impl FromCall for Ctx {
    fn from_call(parts: &mut CallParts) -> Result<Self, McpError> {
        Ok(parts.ctx.clone())
    }
}

/// The verified resume state of a multi-round handler: `None` on a first
/// call, the value the handler minted in the previous round otherwise.
///
/// The state is verified (signature, binding, expiry, single use) before
/// the handler runs and decoded into `S`; a state that verifies but does
/// not decode (minted by an older build, say) is refused with the same
/// `-32602` as a forged one. Needs a `RequestStateSigner` on the server:
/// `ServerBuilder::build` refuses a server whose macro handler takes a
/// `Resume<S>` (by that name or behind a type alias) without one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume<S>(pub Option<S>);

impl<S> Resume<S> {
    /// The state, `None` on a first call.
    pub fn into_inner(self) -> Option<S> {
        self.0
    }

    /// True on a first call.
    pub fn is_first_call(&self) -> bool {
        self.0.is_none()
    }
}

impl<S: DeserializeOwned> FromCall for Resume<S> {
    const NEEDS_SIGNER: bool = true;

    fn from_call(parts: &mut CallParts) -> Result<Self, McpError> {
        parts.ctx.state::<S>().map(Resume)
    }
}

/// Application state registered with `ServerBuilder::share`, as a handler
/// parameter.
///
/// A macro handler with a `Shared<T>` parameter (by that name or behind a
/// type alias) declares it, and `ServerBuilder::build` refuses a server
/// where no `T` was shared.
#[derive(Debug)]
pub struct Shared<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> std::ops::Deref for Shared<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Send + Sync + 'static> FromCall for Shared<T> {
    const SHARED: Option<SharedNeed> = Some(SharedNeed::of::<T>());

    fn from_call(parts: &mut CallParts) -> Result<Self, McpError> {
        parts.ctx.shared::<T>().map(Shared).ok_or_else(|| {
            McpError::internal(format!(
                "a handler takes Shared<{}> but no such value was given to ServerBuilder::share",
                std::any::type_name::<T>()
            ))
        })
    }
}

/// A value of type `T` that a handler takes as `Shared<T>`: what
/// `ServerBuilder::build` checks was given to `ServerBuilder::share`, so a
/// forgotten `.share(value)` stops the server from being built instead of
/// failing every call.
#[derive(Clone, Copy)]
pub struct SharedNeed {
    type_id: fn() -> std::any::TypeId,
    type_name: fn() -> &'static str,
}

impl SharedNeed {
    /// The need for a value of type `T`.
    pub const fn of<T: ?Sized + 'static>() -> Self {
        Self {
            type_id: std::any::TypeId::of::<T>,
            type_name: std::any::type_name::<T>,
        }
    }

    /// The type's name, as `std::any::type_name` gives it.
    pub fn type_name(&self) -> &'static str {
        (self.type_name)()
    }

    /// The type's id, the key `ServerBuilder::share` stores under.
    pub(crate) fn type_id(&self) -> std::any::TypeId {
        (self.type_id)()
    }
}

impl std::fmt::Debug for SharedNeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SharedNeed")
            .field(&self.type_name())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    use super::*;
    use crate::schema::{ClientCapabilities, RequestMeta};

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Mode {
        Fast,
        Safe,
    }

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    struct Vars {
        id: u32,
        name: String,
        verbose: Option<bool>,
        mode: Mode,
    }

    fn parts(strings: &[(&str, &str)]) -> CallParts {
        let map: BTreeMap<String, String> = strings
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let ctx = Ctx::detached(
            "prompts/get",
            RequestMeta::new(ClientCapabilities::default()),
        );
        CallParts::from_strings(map, ctx)
    }

    #[test]
    fn string_arguments_parse_into_typed_fields() {
        let mut p = parts(&[
            ("id", "42"),
            ("name", "7"),
            ("verbose", "true"),
            ("mode", "safe"),
        ]);
        let vars = Vars::from_call(&mut p).unwrap();
        assert_eq!(
            vars,
            Vars {
                id: 42,
                name: "7".into(),
                verbose: Some(true),
                mode: Mode::Safe
            }
        );
    }

    #[test]
    fn an_unparsable_string_names_the_field() {
        let mut p = parts(&[("id", "forty-two"), ("name", "x"), ("mode", "fast")]);
        let error = Vars::from_call(&mut p).unwrap_err();
        assert_eq!(error.code(), -32602);
        assert!(error.to_string().contains("`id`"), "{error}");
    }
}

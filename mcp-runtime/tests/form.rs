//! Typed elicitation forms, with hand-written `ElicitForm`/`ElicitChoice`
//! impls shaped exactly like what `#[derive(ElicitForm)]` and
//! `#[derive(ElicitChoice)]` generate: the schema they produce (checked
//! against the specification's JSON Schema), the checks decoding enforces,
//! and how `Ctx::answer` maps each kind of response.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet, HashSet};

use mcp_runtime::form::{Answer, ChoiceOption, ElicitForm, FormError};
use mcp_runtime::schema::{
    ClientCapabilities, ElicitRequestParams, ElicitValue, InputRequest, RequestMeta, StringFormat,
};
use mcp_runtime::server::handler::Ctx;
use serde_json::{Value, json};

mod support;

use support::schema::validate;

// --- Hand-written "generated" code ------------------------------------------

/// `#[derive(ElicitChoice)] enum Env { Staging, #[elicit(title = "Production!")] Production }`
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Env {
    Staging,
    Production,
}

impl ::mcp_runtime::form::ElicitChoice for Env {
    const OPTIONS: &'static [::mcp_runtime::form::ChoiceOption] = &[
        ChoiceOption {
            value: "staging",
            title: None,
        },
        ChoiceOption {
            value: "production",
            title: Some("Production!"),
        },
    ];
    fn from_value(v: &str) -> Option<Self> {
        match v {
            "staging" => Some(Self::Staging),
            "production" => Some(Self::Production),
            _ => None,
        }
    }
    fn value(&self) -> &'static str {
        match self {
            Self::Staging => "staging",
            Self::Production => "production",
        }
    }
}

/// `#[derive(ElicitChoice)] enum Color { Red, Green, Blue }` (no titles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Color {
    Red,
    Green,
    Blue,
}

impl ::mcp_runtime::form::ElicitChoice for Color {
    const OPTIONS: &'static [::mcp_runtime::form::ChoiceOption] = &[
        ChoiceOption {
            value: "red",
            title: None,
        },
        ChoiceOption {
            value: "green",
            title: None,
        },
        ChoiceOption {
            value: "blue",
            title: None,
        },
    ];
    fn from_value(v: &str) -> Option<Self> {
        match v {
            "red" => Some(Self::Red),
            "green" => Some(Self::Green),
            "blue" => Some(Self::Blue),
            _ => None,
        }
    }
    fn value(&self) -> &'static str {
        match self {
            Self::Red => "red",
            Self::Green => "green",
            Self::Blue => "blue",
        }
    }
}

/// The brief's two-field form.
#[derive(Debug, PartialEq)]
struct Confirm {
    ok: bool,
    note: Option<String>,
}

impl ::mcp_runtime::form::ElicitForm for Confirm {
    fn form_schema() -> &'static ::mcp_runtime::schema::RenderedSchema {
        static SCHEMA: ::std::sync::OnceLock<::mcp_runtime::schema::RenderedSchema> =
            ::std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| {
            ::mcp_runtime::form::FormSchema::new()
                .field::<bool>(
                    "ok",
                    ::mcp_runtime::form::FieldOptions {
                        description: Some("Deploy?"),
                        ..::mcp_runtime::form::FieldOptions::EMPTY
                    },
                )
                .field::<Option<String>>(
                    "note",
                    ::mcp_runtime::form::FieldOptions {
                        max_length: Some(200),
                        ..::mcp_runtime::form::FieldOptions::EMPTY
                    },
                )
                .render()
        })
    }
    fn decode(
        decoder: &mut ::mcp_runtime::form::FormDecoder<'_>,
    ) -> Result<Self, ::mcp_runtime::form::FormError> {
        Ok(Self {
            ok: decoder.field("ok")?,
            note: decoder.field("note")?,
        })
    }
}

/// A form with every field kind and every constraint.
#[derive(Debug, PartialEq)]
struct Everything {
    name: String,
    email: Option<String>,
    homepage: Option<String>,
    born: Option<String>,
    meeting: Option<String>,
    subscribe: bool,
    age: u8,
    level: i32,
    big: i64,
    count: u64,
    ratio: f64,
    weight: Option<f32>,
    env: Env,
    color: Option<Color>,
    colors: Vec<Color>,
    envs: BTreeSet<Env>,
    palette: HashSet<Color>,
}

impl ::mcp_runtime::form::ElicitForm for Everything {
    fn form_schema() -> &'static ::mcp_runtime::schema::RenderedSchema {
        use ::mcp_runtime::form::{DefaultValue, FieldOptions};
        static SCHEMA: ::std::sync::OnceLock<::mcp_runtime::schema::RenderedSchema> =
            ::std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| {
            ::mcp_runtime::form::FormSchema::new()
                .field::<String>(
                    "name",
                    FieldOptions {
                        title: Some("Name"),
                        description: Some("Your name."),
                        min_length: Some(2),
                        max_length: Some(5),
                        default: Some(DefaultValue::Str("Ada")),
                        ..FieldOptions::EMPTY
                    },
                )
                .field::<Option<String>>(
                    "email",
                    FieldOptions {
                        format: Some(StringFormat::Email),
                        ..FieldOptions::EMPTY
                    },
                )
                .field::<Option<String>>(
                    "homepage",
                    FieldOptions {
                        format: Some(StringFormat::Uri),
                        ..FieldOptions::EMPTY
                    },
                )
                .field::<Option<String>>(
                    "born",
                    FieldOptions {
                        format: Some(StringFormat::Date),
                        ..FieldOptions::EMPTY
                    },
                )
                .field::<Option<String>>(
                    "meeting",
                    FieldOptions {
                        format: Some(StringFormat::DateTime),
                        ..FieldOptions::EMPTY
                    },
                )
                .field::<bool>(
                    "subscribe",
                    FieldOptions {
                        default: Some(DefaultValue::Bool(true)),
                        ..FieldOptions::EMPTY
                    },
                )
                .field::<u8>(
                    "age",
                    FieldOptions {
                        default: Some(DefaultValue::Int(30)),
                        ..FieldOptions::EMPTY
                    },
                )
                .field::<i32>(
                    "level",
                    FieldOptions {
                        minimum: Some(-5.0),
                        maximum: Some(5.0),
                        ..FieldOptions::EMPTY
                    },
                )
                .field::<i64>("big", FieldOptions::EMPTY)
                .field::<u64>("count", FieldOptions::EMPTY)
                .field::<f64>(
                    "ratio",
                    FieldOptions {
                        minimum: Some(0.0),
                        maximum: Some(1.0),
                        default: Some(DefaultValue::Float(0.5)),
                        ..FieldOptions::EMPTY
                    },
                )
                .field::<Option<f32>>("weight", FieldOptions::EMPTY)
                .field::<Env>(
                    "env",
                    FieldOptions {
                        default: Some(DefaultValue::Str("staging")),
                        ..FieldOptions::EMPTY
                    },
                )
                .field::<Option<Color>>("color", FieldOptions::EMPTY)
                .field::<Vec<Color>>(
                    "colors",
                    FieldOptions {
                        min_items: Some(1),
                        max_items: Some(2),
                        default: Some(DefaultValue::Strs(&["red"])),
                        ..FieldOptions::EMPTY
                    },
                )
                .field::<BTreeSet<Env>>("envs", FieldOptions::EMPTY)
                .field::<HashSet<Color>>("palette", FieldOptions::EMPTY)
                .render()
        })
    }
    fn decode(
        decoder: &mut ::mcp_runtime::form::FormDecoder<'_>,
    ) -> Result<Self, ::mcp_runtime::form::FormError> {
        Ok(Self {
            name: decoder.field("name")?,
            email: decoder.field("email")?,
            homepage: decoder.field("homepage")?,
            born: decoder.field("born")?,
            meeting: decoder.field("meeting")?,
            subscribe: decoder.field("subscribe")?,
            age: decoder.field("age")?,
            level: decoder.field("level")?,
            big: decoder.field("big")?,
            count: decoder.field("count")?,
            ratio: decoder.field("ratio")?,
            weight: decoder.field("weight")?,
            env: decoder.field("env")?,
            color: decoder.field("color")?,
            colors: decoder.field("colors")?,
            envs: decoder.field("envs")?,
            palette: decoder.field("palette")?,
        })
    }
}

/// A form with no required field.
#[derive(Debug, PartialEq)]
struct Optional {
    note: Option<String>,
}

impl ::mcp_runtime::form::ElicitForm for Optional {
    fn form_schema() -> &'static ::mcp_runtime::schema::RenderedSchema {
        static SCHEMA: ::std::sync::OnceLock<::mcp_runtime::schema::RenderedSchema> =
            ::std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| {
            ::mcp_runtime::form::FormSchema::new()
                .field::<Option<String>>("note", ::mcp_runtime::form::FieldOptions::EMPTY)
                .render()
        })
    }
    fn decode(
        decoder: &mut ::mcp_runtime::form::FormDecoder<'_>,
    ) -> Result<Self, ::mcp_runtime::form::FormError> {
        Ok(Self {
            note: decoder.field("note")?,
        })
    }
}

// --- Helpers -----------------------------------------------------------------

fn form_params<T: ElicitForm>() -> Value {
    let InputRequest::Elicitation(params @ ElicitRequestParams::Form(_)) = T::form("Fill it in.")
    else {
        panic!("not a form request");
    };
    serde_json::to_value(params).unwrap()
}

fn content(value: Value) -> BTreeMap<String, ElicitValue> {
    serde_json::from_value(value).unwrap()
}

fn good_everything() -> Value {
    json!({
        "name": "Ada",
        "email": "ada@example.org",
        "homepage": "https://example.org/ada",
        "born": "1815-12-10",
        "meeting": "2024-02-29T10:00:00.5+01:00",
        "subscribe": false,
        "age": 36.0,
        "level": -5,
        "big": -9_000_000_000_000_000_000_i64,
        "count": 18_000_000_000_000_000_000_u64,
        "ratio": 0.25,
        "weight": 70.5,
        "env": "production",
        "color": "blue",
        "colors": ["green", "red"],
        "envs": ["production", "staging"],
        "palette": [],
        "ignored extra key": "whatever",
    })
}

fn decode_everything(value: Value) -> Result<Everything, FormError> {
    Everything::from_content(&content(value))
}

fn context_with(responses: Value) -> Ctx {
    let Value::Object(responses) = responses else {
        panic!("not an object");
    };
    Ctx::detached(
        "tools/call",
        RequestMeta::new(ClientCapabilities::default()),
    )
    .with_input_responses(responses)
}

// --- Schema --------------------------------------------------------------------

#[test]
fn the_briefs_form_has_the_expected_schema() {
    let params = form_params::<Confirm>();
    assert_eq!(
        params,
        json!({
            "message": "Fill it in.",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "ok": {"type": "boolean", "description": "Deploy?"},
                    "note": {"type": "string", "maxLength": 200}
                },
                "required": ["ok"]
            }
        })
    );
    validate("ElicitRequestFormParams", &params);
}

#[test]
fn every_field_kind_has_the_expected_schema() {
    let params = form_params::<Everything>();
    let expected = json!({
        "type": "object",
        "properties": {
            "name": {
                "type": "string", "title": "Name", "description": "Your name.",
                "minLength": 2, "maxLength": 5, "default": "Ada"
            },
            "email": {"type": "string", "format": "email"},
            "homepage": {"type": "string", "format": "uri"},
            "born": {"type": "string", "format": "date"},
            "meeting": {"type": "string", "format": "date-time"},
            "subscribe": {"type": "boolean", "default": true},
            "age": {"type": "integer", "minimum": 0, "maximum": 255, "default": 30},
            "level": {"type": "integer", "minimum": -5, "maximum": 5},
            "big": {"type": "integer"},
            "count": {"type": "integer", "minimum": 0},
            "ratio": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5},
            "weight": {"type": "number"},
            "env": {
                "type": "string",
                "oneOf": [
                    {"const": "staging", "title": "staging"},
                    {"const": "production", "title": "Production!"}
                ],
                "default": "staging"
            },
            "color": {"type": "string", "enum": ["red", "green", "blue"]},
            "colors": {
                "type": "array", "minItems": 1, "maxItems": 2,
                "items": {"type": "string", "enum": ["red", "green", "blue"]},
                "default": ["red"]
            },
            "envs": {
                "type": "array",
                "items": {"anyOf": [
                    {"const": "staging", "title": "staging"},
                    {"const": "production", "title": "Production!"}
                ]}
            },
            "palette": {
                "type": "array",
                "items": {"type": "string", "enum": ["red", "green", "blue"]}
            }
        },
        "required": [
            "name", "subscribe", "age", "level", "big", "count", "ratio", "env",
            "colors", "envs", "palette"
        ]
    });
    assert_eq!(
        params["requestedSchema"], expected,
        "{:#}",
        params["requestedSchema"]
    );
    validate("ElicitRequestFormParams", &params);
}

#[test]
fn integer_types_get_their_range_when_narrower_than_a_json_number() {
    use mcp_runtime::form::{FieldOptions, FormSchema};
    let schema = FormSchema::new()
        .field::<i8>("i8", FieldOptions::EMPTY)
        .field::<u32>("u32", FieldOptions::EMPTY)
        .field::<i64>("i64", FieldOptions::EMPTY)
        .field::<usize>("usize", FieldOptions::EMPTY)
        // A declared bound looser than the type's is tightened to it;
        // a tighter one is kept.
        .field::<u16>(
            "u16",
            FieldOptions {
                minimum: Some(-10.0),
                maximum: Some(1000.0),
                ..FieldOptions::EMPTY
            },
        )
        .build();
    let json = serde_json::to_value(&schema).unwrap();
    assert_eq!(
        json["properties"]["i8"],
        json!({"type": "integer", "minimum": -128, "maximum": 127})
    );
    assert_eq!(
        json["properties"]["u32"],
        json!({"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64})
    );
    assert_eq!(json["properties"]["i64"], json!({"type": "integer"}));
    assert_eq!(json["properties"]["usize"]["minimum"], json!(0));
    assert_eq!(
        json["properties"]["u16"],
        json!({"type": "integer", "minimum": 0, "maximum": 1000})
    );
}

#[test]
fn mismatched_defaults_are_left_out() {
    use mcp_runtime::form::{DefaultValue, FieldOptions, FormSchema};
    let with = |default| FieldOptions {
        default: Some(default),
        ..FieldOptions::EMPTY
    };
    let schema = FormSchema::new()
        .field::<bool>("bool", with(DefaultValue::Str("yes")))
        .field::<String>("string", with(DefaultValue::Int(3)))
        .field::<u8>("u8_too_big", with(DefaultValue::Int(256)))
        .field::<u8>("u8_fraction", with(DefaultValue::Float(1.5)))
        .field::<f64>("f64_int", with(DefaultValue::Int(2)))
        .field::<Env>("env_unknown", with(DefaultValue::Str("prod")))
        .field::<Vec<Color>>("colors_one", with(DefaultValue::Str("red")))
        .field::<Vec<Color>>("colors_unknown", with(DefaultValue::Strs(&["red", "pink"])))
        .build();
    let json = serde_json::to_value(&schema).unwrap();
    for (name, property) in json["properties"].as_object().unwrap() {
        let expected = (name == "f64_int").then_some(json!(2));
        assert_eq!(property.get("default").cloned(), expected, "{name}");
    }
}

// --- Decoding ---------------------------------------------------------------------

#[test]
fn good_content_decodes() {
    let decoded = decode_everything(good_everything()).unwrap();
    assert_eq!(
        decoded,
        Everything {
            name: "Ada".into(),
            email: Some("ada@example.org".into()),
            homepage: Some("https://example.org/ada".into()),
            born: Some("1815-12-10".into()),
            meeting: Some("2024-02-29T10:00:00.5+01:00".into()),
            subscribe: false,
            age: 36,
            level: -5,
            big: -9_000_000_000_000_000_000,
            count: 18_000_000_000_000_000_000,
            ratio: 0.25,
            weight: Some(70.5),
            env: Env::Production,
            color: Some(Color::Blue),
            colors: vec![Color::Green, Color::Red],
            envs: BTreeSet::from([Env::Staging, Env::Production]),
            palette: HashSet::new(),
        }
    );
}

#[test]
fn optional_fields_may_be_left_out() {
    let mut value = good_everything();
    for optional in ["email", "homepage", "born", "meeting", "weight", "color"] {
        value.as_object_mut().unwrap().remove(optional);
    }
    let decoded = decode_everything(value).unwrap();
    assert_eq!(decoded.email, None);
    assert_eq!(decoded.weight, None);
    assert_eq!(decoded.color, None);
}

#[test]
fn each_violated_constraint_is_refused_naming_the_field() {
    let cases: &[(&str, Value)] = &[
        ("name", json!("A")),
        ("name", json!("Adaline")),
        ("name", json!(5)),
        ("email", json!("ada@localhost")),
        ("email", json!("not an email")),
        ("homepage", json!("example.org/ada")),
        ("born", json!("1815-02-29")),
        ("born", json!("10/12/1815")),
        ("meeting", json!("2024-02-29 10:00:00")),
        ("meeting", json!("2024-02-29T10:00:00")),
        ("subscribe", json!("true")),
        ("age", json!(256)),
        ("age", json!(-1)),
        ("age", json!(36.5)),
        ("age", json!("36")),
        ("level", json!(6)),
        ("level", json!(-5.5)),
        ("big", json!(1.5)),
        ("big", json!(1e30)),
        ("count", json!(-1)),
        ("ratio", json!(1.01)),
        ("ratio", json!(true)),
        ("weight", json!(1e300)),
        ("env", json!("Production!")),
        ("env", json!(["staging"])),
        ("color", json!("pink")),
        ("colors", json!([])),
        ("colors", json!(["red", "green", "blue"])),
        ("colors", json!(["red", "red"])),
        ("colors", json!(["pink"])),
        ("colors", json!("red")),
        ("envs", json!(["Production!"])),
        ("palette", json!(["blue", "blue"])),
    ];
    for (field, bad) in cases {
        let mut value = good_everything();
        value[*field] = bad.clone();
        let error = decode_everything(value)
            .map(|_| ())
            .expect_err(&format!("{field} = {bad} was accepted"));
        assert_eq!(
            error.field.as_deref(),
            Some(*field),
            "{field} = {bad}: {error}"
        );
        assert!(!error.reason.is_empty());
    }
}

#[test]
fn each_missing_required_field_is_refused_naming_it() {
    let required = Everything::requested_schema().required.clone().unwrap();
    for field in required {
        let mut value = good_everything();
        value.as_object_mut().unwrap().remove(&field);
        let error = decode_everything(value).expect_err(&field);
        assert_eq!(
            error,
            FormError {
                field: Some(field.clone()),
                reason: "missing".into()
            }
        );
        assert_eq!(error.to_string(), format!("field {field:?}: missing"));
    }
}

// --- Ctx::answer ------------------------------------------------------------------

#[test]
fn answer_maps_every_kind_of_response() {
    let ctx = context_with(json!({
        "accepted": {"action": "accept", "content": {"ok": true, "note": "go"}},
        "nulls": {"action": "accept", "content": {"ok": false, "note": null}},
        "declined": {"action": "decline"},
        "cancelled": {"action": "cancel", "content": {"ok": true}},
        "garbage": {"action": "maybe"},
        "not_an_object": "accept",
        "too_long": {"action": "accept", "content": {"ok": true, "note": "x".repeat(201)}},
        "wrong_type": {"action": "accept", "content": {"ok": "yes"}},
        "no_content": {"action": "accept"},
    }));
    assert_eq!(
        ctx.answer::<Confirm>("accepted"),
        Answer::Accept(Confirm {
            ok: true,
            note: Some("go".into())
        })
    );
    assert_eq!(
        ctx.answer::<Confirm>("nulls"),
        Answer::Accept(Confirm {
            ok: false,
            note: None
        })
    );
    assert_eq!(ctx.answer::<Confirm>("declined"), Answer::Decline);
    assert_eq!(ctx.answer::<Confirm>("cancelled"), Answer::Cancel);
    assert_eq!(ctx.answer::<Confirm>("absent"), Answer::Missing);
    for key in ["garbage", "not_an_object"] {
        let Answer::Invalid(error) = ctx.answer::<Confirm>(key) else {
            panic!("{key} was not refused");
        };
        assert_eq!(error.field, None, "{key}");
    }
    for (key, field) in [
        ("too_long", "note"),
        ("wrong_type", "ok"),
        ("no_content", "ok"),
    ] {
        let Answer::Invalid(error) = ctx.answer::<Confirm>(key) else {
            panic!("{key} was not refused");
        };
        assert_eq!(error.field.as_deref(), Some(field), "{key}: {error}");
    }
    assert_eq!(
        ctx.answer::<Optional>("no_content"),
        Answer::Accept(Optional { note: None })
    );
    assert!(ctx.answer::<Confirm>("accepted").is_accept());
    assert_eq!(ctx.answer::<Confirm>("declined").accepted(), None);
}

#[test]
fn answers_read_from_json_text_and_from_a_tree_alike() {
    // `Ctx::answer` reads the text the client sent; `from_response`
    // reads a tree. The same answer must come out, refusals included.
    let cases = [
        json!({"action": "accept", "content": {"ok": true, "note": "go"}}),
        json!({"action": "accept", "content": {"ok": false, "note": null}}),
        json!({"action": "accept", "content": {"note": null, "ok": true, "note": "x"}}),
        json!({"action": "accept", "content": null}),
        json!({"action": "accept", "content": "not a map"}),
        json!({"action": "accept", "content": {"ok": "yes"}}),
        json!({"action": "accept", "content": {"ok": true, "note": 5}}),
        json!({"action": "accept", "content": {"ok": true}, "_meta": 3}),
        json!({"action": "decline", "content": {"ok": true}}),
        json!({"action": "cancel"}),
        json!({"action": "maybe"}),
        json!({"content": {}}),
        json!("accept"),
        json!([]),
    ];
    for case in cases {
        let text = case.to_string();
        let from_text = Answer::<Confirm>::from_json(Some(&text));
        let from_tree = Answer::<Confirm>::from_response(Some(&case));
        assert_eq!(from_text, from_tree, "{case}");
        if let Answer::Invalid(error) = &from_text {
            assert!(!error.reason.contains(" at line "), "{error}");
        }
    }
    assert_eq!(Answer::<Confirm>::from_json(None), Answer::Missing);
}

#[test]
fn answer_without_any_responses_is_missing() {
    let ctx = Ctx::detached(
        "tools/call",
        RequestMeta::new(ClientCapabilities::default()),
    );
    assert_eq!(ctx.answer::<Confirm>("confirm"), Answer::Missing);
}

#[test]
fn url_mode_request_validates() {
    let request =
        InputRequest::elicit_url("Sign in to continue.", "https://example.org/connect?s=1");
    let json = serde_json::to_value(&request).unwrap();
    assert_eq!(
        json,
        json!({
            "method": "elicitation/create",
            "params": {"mode": "url", "message": "Sign in to continue.", "url": "https://example.org/connect?s=1"}
        })
    );
    validate("ElicitRequestURLParams", &json["params"]);
    let form = InputRequest::elicit_form("Fill it in.", Confirm::requested_schema().clone());
    assert_eq!(form, Confirm::form("Fill it in."));
}

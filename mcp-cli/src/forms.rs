//! Answering a server's forms: from `--answers`, on the terminal, or by
//! declining. This module sees a form as plain JSON (its message and its
//! fields' schemas), so it does not depend on the client's types.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use serde_json::{Map, Value};

use crate::failure::Failure;

/// How many times one field is asked again after an answer it cannot take,
/// before the form is declined.
const MAX_ATTEMPTS: usize = 5;

/// One form the server asks.
#[derive(Debug, Clone)]
pub(crate) struct Form {
    /// What the user is asked.
    pub(crate) message: String,
    /// The fields, in the order the server declared them.
    pub(crate) fields: Vec<Field>,
}

/// One field of a form.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    /// Its name, the key of its value in the answer.
    pub(crate) name: String,
    /// Its schema as the server sent it (`type`, `title`, `enum`, ...).
    pub(crate) schema: Value,
    /// Whether the form requires it.
    pub(crate) required: bool,
}

/// What to do with a form.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FormAnswer {
    /// Accept, with these values (field name to value).
    Accept(Map<String, Value>),
    /// Decline, for this reason (printed on stderr).
    Decline(String),
}

/// How this command answers forms, from its options.
#[derive(Debug, Clone)]
pub(crate) enum Policy {
    /// `--decline`.
    Decline,
    /// `--answers`: the object given.
    Answers(Map<String, Value>),
    /// stdin is a terminal and nothing else was said: ask.
    Terminal,
    /// stdin is not a terminal and nothing was given: decline.
    Unattended,
}

impl Policy {
    /// The policy the options ask for: `--decline`, then `--answers` (a
    /// JSON object, or the path of a file holding one), then the terminal
    /// when stdin is one.
    pub(crate) fn from_options(decline: bool, answers: Option<&str>) -> Result<Self, Failure> {
        if decline {
            return Ok(Self::Decline);
        }
        if let Some(answers) = answers {
            return load_answers(answers).map(Self::Answers);
        }
        Ok(if std::io::stdin().is_terminal() {
            Self::Terminal
        } else {
            Self::Unattended
        })
    }

    /// Answers `form` (asking on the terminal in a blocking thread).
    pub(crate) async fn answer(&self, form: Form) -> FormAnswer {
        match self {
            Self::Decline => FormAnswer::Decline("--decline".into()),
            Self::Unattended => FormAnswer::Decline(
                "stdin is not a terminal and neither --answers nor --decline was given".into(),
            ),
            Self::Answers(answers) => from_answers(&form, answers),
            Self::Terminal => tokio::task::spawn_blocking(move || {
                let stdin = std::io::stdin();
                let mut stderr = std::io::stderr();
                ask(&form, &mut stdin.lock(), &mut stderr)
            })
            .await
            .unwrap_or_else(|e| FormAnswer::Decline(format!("asking failed: {e}"))),
        }
    }
}

/// Reads `--answers`: JSON when it parses as JSON, else a file path.
fn load_answers(argument: &str) -> Result<Map<String, Value>, Failure> {
    let (value, origin) = match serde_json::from_str::<Value>(argument) {
        Ok(value) => (value, "--answers".to_owned()),
        Err(_) => {
            let text = std::fs::read_to_string(Path::new(argument)).map_err(|e| {
                Failure::usage(format!(
                    "--answers {argument:?} is neither JSON nor a file that can be read: {e}"
                ))
            })?;
            let value = serde_json::from_str(&text).map_err(|e| {
                Failure::usage(format!("--answers file {argument:?} is not JSON: {e}"))
            })?;
            (value, format!("--answers file {argument:?}"))
        }
    };
    match value {
        Value::Object(object) => Ok(object),
        other => Err(Failure::usage(format!(
            "{origin} must be a JSON object from field name to value, not {}",
            kind(&other)
        ))),
    }
}

/// Answers `form` from `answers`: declined when a required field has no
/// (non-null) value; otherwise accepted with the values of the form's own
/// fields, each a string, number, boolean or list of strings.
pub(crate) fn from_answers(form: &Form, answers: &Map<String, Value>) -> FormAnswer {
    let given = |field: &Field| answers.get(&field.name).filter(|v| !v.is_null());
    let missing: Vec<&str> = form
        .fields
        .iter()
        .filter(|field| field.required && given(field).is_none())
        .map(|field| field.name.as_str())
        .collect();
    if !missing.is_empty() {
        return FormAnswer::Decline(format!(
            "--answers has no value for the required field(s) {}",
            quoted(&missing)
        ));
    }
    let mut content = Map::new();
    for field in &form.fields {
        let Some(value) = given(field) else { continue };
        if !is_form_value(value) {
            return FormAnswer::Decline(format!(
                "--answers gives {} for {:?}; a form takes a string, number, boolean or list \
                 of strings",
                kind(value),
                field.name
            ));
        }
        content.insert(field.name.clone(), value.clone());
    }
    FormAnswer::Accept(content)
}

/// Asks `form` field by field on `input`, writing the prompts to `output`:
/// declined at the end of input or after [`MAX_ATTEMPTS`] answers a field
/// cannot take.
pub(crate) fn ask(form: &Form, input: &mut dyn BufRead, output: &mut dyn Write) -> FormAnswer {
    let _ = writeln!(output, "{}", form.message);
    let mut content = Map::new();
    for field in &form.fields {
        match ask_field(field, input, output) {
            Asked::Value(value) => {
                content.insert(field.name.clone(), value);
            }
            Asked::Skipped => {}
            Asked::Gave(reason) => return FormAnswer::Decline(reason),
        }
    }
    FormAnswer::Accept(content)
}

/// The outcome of asking one field.
enum Asked {
    Value(Value),
    /// Left empty, and optional.
    Skipped,
    /// Nothing usable came: the form is declined for this reason.
    Gave(String),
}

/// What kind of answer a field takes, read from its schema.
enum Kind {
    Boolean,
    Number {
        integer: bool,
    },
    /// One of these values, each with its label.
    Choice(Vec<(String, String)>),
    /// Several of these values.
    Choices(Vec<(String, String)>),
    Text,
}

fn kind_of(schema: &Value) -> Kind {
    match schema.get("type").and_then(Value::as_str) {
        Some("boolean") => Kind::Boolean,
        Some("number") => Kind::Number { integer: false },
        Some("integer") => Kind::Number { integer: true },
        Some("array") => Kind::Choices(
            schema
                .get("items")
                .map(choices_of)
                .filter(|choices| !choices.is_empty())
                .unwrap_or_default(),
        ),
        _ => match choices_of(schema) {
            choices if choices.is_empty() => Kind::Text,
            choices => Kind::Choice(choices),
        },
    }
}

/// The values of `enum` (labelled by `enumNames` when present) or of
/// `oneOf`/`anyOf` (`const`, labelled by `title`).
fn choices_of(schema: &Value) -> Vec<(String, String)> {
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let values = strings(schema.get("enum"));
    if !values.is_empty() {
        let names = strings(schema.get("enumNames"));
        return values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                (
                    v.clone(),
                    names.get(i).cloned().unwrap_or_else(|| v.clone()),
                )
            })
            .collect();
    }
    let Some(options) = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    options
        .iter()
        .filter_map(|option| {
            let value = option.get("const")?.as_str()?.to_owned();
            let label = option
                .get("title")
                .and_then(Value::as_str)
                .map_or_else(|| value.clone(), str::to_owned);
            Some((value, label))
        })
        .collect()
}

fn ask_field(field: &Field, input: &mut dyn BufRead, output: &mut dyn Write) -> Asked {
    let schema = &field.schema;
    let text = |key: &str| schema.get(key).and_then(Value::as_str);
    let label = match (text("title"), text("description")) {
        (Some(title), Some(description)) if title != description => {
            format!("{title} ({description})")
        }
        (Some(title), _) => title.to_owned(),
        (None, Some(description)) => description.to_owned(),
        (None, None) => field.name.clone(),
    };
    let kind = kind_of(schema);
    let default = schema.get("default").filter(|v| !v.is_null());
    let mut hint = match &kind {
        Kind::Boolean => " [y/n]".to_owned(),
        Kind::Number { integer } => {
            let range = match (
                schema.get("minimum").and_then(Value::as_f64),
                schema.get("maximum").and_then(Value::as_f64),
            ) {
                (Some(min), Some(max)) => format!(" {min} to {max}"),
                (Some(min), None) => format!(" at least {min}"),
                (None, Some(max)) => format!(" at most {max}"),
                (None, None) => String::new(),
            };
            format!(" [{}{range}]", if *integer { "integer" } else { "number" })
        }
        Kind::Choice(_) => " [a number or a value]".to_owned(),
        Kind::Choices(_) => " [numbers or values, separated by commas]".to_owned(),
        Kind::Text => String::new(),
    };
    if let Some(default) = default {
        hint.push_str(&format!(" (default {})", show(default)));
    }
    if !field.required {
        hint.push_str(" (optional, Enter to skip)");
    }
    for attempt in 1..=MAX_ATTEMPTS {
        if attempt == 1 {
            if let Kind::Choice(choices) | Kind::Choices(choices) = &kind {
                let _ = writeln!(output, "{label}:");
                for (i, (value, name)) in choices.iter().enumerate() {
                    let _ = if name == value {
                        writeln!(output, "  {}) {value}", i + 1)
                    } else {
                        writeln!(output, "  {}) {name} ({value})", i + 1)
                    };
                }
                let _ = write!(output, "choose{hint}: ");
            } else {
                let _ = write!(output, "{label}{hint}: ");
            }
        } else {
            let _ = write!(output, "{label}{hint}: ");
        }
        let _ = output.flush();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) => return Asked::Gave("the input ended".into()),
            Ok(_) => {}
            Err(e) => return Asked::Gave(format!("cannot read the answer: {e}")),
        }
        let line = line.trim();
        if line.is_empty() {
            if let Some(default) = default {
                return Asked::Value(default.clone());
            }
            if !field.required {
                return Asked::Skipped;
            }
            let _ = writeln!(output, "  a value is required");
            continue;
        }
        match read_value(&kind, schema, line) {
            Ok(value) => return Asked::Value(value),
            Err(why) => {
                let _ = writeln!(output, "  {why}");
            }
        }
    }
    Asked::Gave(format!(
        "no usable answer for {:?} after {MAX_ATTEMPTS} tries",
        field.name
    ))
}

/// Reads one typed answer from a line, or says why it cannot.
fn read_value(kind: &Kind, schema: &Value, line: &str) -> Result<Value, String> {
    match kind {
        Kind::Boolean => match line.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(Value::Bool(true)),
            "n" | "no" | "false" => Ok(Value::Bool(false)),
            _ => Err("answer y or n".into()),
        },
        Kind::Number { integer } => {
            let number: serde_json::Number = if *integer {
                line.parse::<i64>()
                    .map_err(|_| "a whole number, please".to_owned())?
                    .into()
            } else {
                line.parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .ok_or_else(|| "a number, please".to_owned())?
            };
            let value = number.as_f64().unwrap_or(f64::NAN);
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                && value < min
            {
                return Err(format!("at least {min}, please"));
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
                && value > max
            {
                return Err(format!("at most {max}, please"));
            }
            Ok(Value::Number(number))
        }
        Kind::Choice(choices) => pick(choices, line).map(Value::String),
        Kind::Choices(choices) => line
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .map(|part| pick(choices, part).map(Value::String))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        Kind::Text => Ok(Value::String(line.to_owned())),
    }
}

/// The choice a part of an answer names: its number in the list, or its
/// value (or label) as written.
fn pick(choices: &[(String, String)], part: &str) -> Result<String, String> {
    if choices.is_empty() {
        return Ok(part.to_owned());
    }
    if let Ok(n) = part.parse::<usize>()
        && let Some((value, _)) = n.checked_sub(1).and_then(|i| choices.get(i))
    {
        return Ok(value.clone());
    }
    choices
        .iter()
        .find(|(value, label)| value == part || label.eq_ignore_ascii_case(part))
        .map(|(value, _)| value.clone())
        .ok_or_else(|| format!("{part:?} is not one of the choices"))
}

/// True for what a form answer may hold: a string, number, boolean, or a
/// list of strings.
fn is_form_value(value: &Value) -> bool {
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
        Value::Array(items) => items.iter().all(Value::is_string),
        Value::Null | Value::Object(_) => false,
    }
}

/// A value as the terminal shows it: strings without quotes.
fn show(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a JSON value's kind reads in a message.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form() -> Form {
        Form {
            message: "Booking".into(),
            fields: vec![
                Field {
                    name: "guests".into(),
                    schema: json!({"type": "integer", "title": "Guests", "minimum": 1, "maximum": 12}),
                    required: true,
                },
                Field {
                    name: "sitting".into(),
                    schema: json!({"type": "string", "oneOf": [
                        {"const": "early", "title": "Early"}, {"const": "late", "title": "Late"}]}),
                    required: true,
                },
                Field {
                    name: "terrace".into(),
                    schema: json!({"type": "boolean", "default": false}),
                    required: false,
                },
                Field {
                    name: "note".into(),
                    schema: json!({"type": "string"}),
                    required: false,
                },
            ],
        }
    }

    fn answers(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn answers_cover_the_required_fields_and_only_the_forms_fields_go() {
        let accepted = from_answers(
            &form(),
            &answers(json!({"guests": 2, "sitting": "late", "other": 1})),
        );
        assert_eq!(
            accepted,
            FormAnswer::Accept(answers(json!({"guests": 2, "sitting": "late"})))
        );
        let declined = from_answers(&form(), &answers(json!({"guests": 2, "sitting": null})));
        assert!(
            matches!(&declined, FormAnswer::Decline(why) if why.contains("\"sitting\"")),
            "{declined:?}"
        );
        let bad = from_answers(
            &form(),
            &answers(json!({"guests": 2, "sitting": "late", "note": {"a": 1}})),
        );
        assert!(matches!(bad, FormAnswer::Decline(_)));
    }

    #[test]
    fn the_terminal_asks_each_field_by_its_type() {
        let mut input: &[u8] = b"0\nx\n3\n2\ny\n\n";
        let mut output = Vec::new();
        let answer = ask(&form(), &mut input, &mut output);
        assert_eq!(
            answer,
            FormAnswer::Accept(answers(
                json!({"guests": 3, "sitting": "late", "terrace": true})
            ))
        );
        let shown = String::from_utf8(output).unwrap();
        assert!(shown.contains("at least 1, please"), "{shown}");
        assert!(shown.contains("2) Late (late)"), "{shown}");
        assert!(shown.contains("(default false)"), "{shown}");
    }

    #[test]
    fn defaults_and_the_end_of_input() {
        let mut input: &[u8] = b"12\nearly\n\n\n";
        let answer = ask(&form(), &mut input, &mut Vec::new());
        assert_eq!(
            answer,
            FormAnswer::Accept(answers(
                json!({"guests": 12, "sitting": "early", "terrace": false})
            ))
        );
        let mut input: &[u8] = b"2\n";
        assert!(matches!(
            ask(&form(), &mut input, &mut Vec::new()),
            FormAnswer::Decline(_)
        ));
    }

    #[test]
    fn answers_load_from_json_or_a_file() {
        assert_eq!(load_answers(r#"{"a": 1}"#), Ok(answers(json!({"a": 1}))));
        assert!(load_answers("[1]").is_err());
        assert!(load_answers("/no/such/file.json").is_err());
        let path =
            std::env::temp_dir().join(format!("mcp-cli-answers-{}.json", std::process::id()));
        std::fs::write(&path, r#"{"b": true}"#).unwrap();
        let loaded = load_answers(path.to_str().unwrap());
        let _ = std::fs::remove_file(&path);
        assert_eq!(loaded, Ok(answers(json!({"b": true}))));
    }
}

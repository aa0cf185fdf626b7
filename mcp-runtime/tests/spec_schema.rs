//! Values built with this crate's constructors validate against the
//! 2026-07-28 JSON Schema (`$defs` of `schema.json`).
//!
//! The schema is read at run time from the shared copy of the
//! specification (`../../shared/spec/2026-07-28/schema.json`, relative to
//! this crate). `validate` (in `tests/support/schema.rs`) checks a value
//! against one `$defs` entry by compiling the whole document with a root
//! `$ref` to that entry, so every nested `$ref` resolves inside the same
//! document.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use mcp_runtime::schema::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

mod support;

use support::schema::{assert_invalid, errors, errors_in, spec_dir, validate, validate_strict};

/// Serialises `value`, validates it against every def in `defs`, and checks
/// that it deserialises back to the same value. Returns the JSON.
fn check<T>(value: &T, defs: &[&str]) -> Value
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_value(value).expect("serialises");
    for def in defs {
        validate_strict(def, &json);
    }
    let back: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{json} does not deserialise back: {e}"));
    assert_eq!(&back, value, "round trip changed the value");
    json
}

fn request_meta() -> JsonObject {
    RequestMeta::new(ClientCapabilities::default()).to_json()
}

fn response<R>(result: R) -> JsonRpcResultResponse<R> {
    JsonRpcResultResponse {
        jsonrpc: JsonRpcVersion,
        id: RequestId::from(1),
        result,
    }
}

fn request<P>(method: &str, params: P) -> JsonRpcRequest<P> {
    JsonRpcRequest {
        jsonrpc: JsonRpcVersion,
        id: RequestId::from("req-1"),
        method: method.to_owned(),
        params,
    }
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

// ---------------------------------------------------------------------------
// The helper itself.

#[test]
fn validate_rejects_invalid_instances() {
    let valid = serde_json::to_value(CallToolResult::text("x")).unwrap();
    validate("CallToolResult", &valid);

    let mut no_result_type = valid.clone();
    no_result_type.as_object_mut().unwrap().remove("resultType");
    assert_invalid("CallToolResult", &no_result_type);
    assert_invalid(
        "CallToolResult",
        &json!({"resultType": "complete", "content": [{"type": "text"}]}),
    );
    assert_invalid(
        "CallToolResult",
        &json!({"resultType": "complete", "content": {"type": "text", "text": "x"}}),
    );
    assert_invalid("Tool", &json!({"name": "t"}));
    assert_invalid(
        "Tool",
        &json!({"name": "t", "inputSchema": {"type": "array"}}),
    );
    assert_invalid(
        "JSONRPCErrorResponse",
        &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "x"}}),
    );
    assert_invalid(
        "JSONRPCErrorResponse",
        &json!({"jsonrpc": "1.0", "id": 1, "error": {"code": -32600, "message": "x"}}),
    );
    assert_invalid(
        "UnsupportedProtocolVersionError",
        &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "x"}}),
    );
    assert_invalid(
        "MissingRequiredClientCapabilityError",
        &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32020, "message": "x",
            "data": {"requiredCapabilities": {}}}}),
    );
    assert_invalid("ElicitResult", &json!({"action": "maybe"}));
    assert_invalid(
        "ElicitResult",
        &json!({"action": "accept", "content": {"n": null}}),
    );
    assert_invalid("InputRequiredResult", &json!({"requestState": "s"}));
    assert_invalid(
        "ProgressNotification",
        &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}),
    );
    assert_invalid(
        "ListToolsResult",
        &json!({"resultType": "complete", "tools": [], "ttlMs": -1, "cacheScope": "public"}),
    );
    assert_invalid(
        "ListToolsResult",
        &json!({"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "shared"}),
    );
    assert_invalid("Icon", &json!({"src": "not a uri"}));
}

#[test]
fn strict_validation_rejects_unnamed_keys_only() {
    let misspelt = json!({"resultType": "complete", "content": [], "isErorr": true});
    validate("CallToolResult", &misspelt);
    assert!(!errors_in("CallToolResult", &misspelt, true).is_empty());
    let nested = json!({"resultType": "complete",
        "content": [{"type": "text", "text": "x", "mimeType": "text/plain"}]});
    validate("CallToolResult", &nested);
    assert!(!errors_in("CallToolResult", &nested, true).is_empty());
    // `_meta` objects stay open, and so do results' and schemas' open maps.
    validate_strict(
        "CallToolResult",
        &json!({"resultType": "complete", "content": [],
            "_meta": {"example.com/anything": [1, 2]}}),
    );
    validate_strict(
        "Tool",
        &json!({"name": "t", "inputSchema": {"type": "object", "minProperties": 1}}),
    );
    // The specific error responses (allOf) still accept message and data.
    validate_strict(
        "UnsupportedProtocolVersionError",
        &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "x",
            "data": {"supported": ["2026-07-28"], "requested": "2020-01-01"}}}),
    );
}

#[test]
#[should_panic(expected = "schema.json has no $defs/NoSuchType")]
fn validate_refuses_unknown_defs() {
    validate("NoSuchType", &json!({}));
}

#[test]
fn every_spec_example_validates_against_its_def() {
    let dir = spec_dir().join("examples");
    let mut count = 0;
    for folder in std::fs::read_dir(&dir).unwrap() {
        let folder = folder.unwrap().path();
        let def = folder.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&folder).unwrap() {
            let file = file.unwrap().path();
            let instance: Value =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            let errors = errors(&def, &instance);
            assert!(errors.is_empty(), "{}: {errors:?}", file.display());
            count += 1;
        }
    }
    assert!(count >= 129, "only {count} example files");

    // The one example our strict type refuses is valid only through the
    // open InputRequiredResult branch of the response's anyOf.
    let quirky: Value = serde_json::from_str(
        &std::fs::read_to_string(
            dir.join("ReadResourceResultResponse/read-resource-result-response.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_invalid("ReadResourceResult", &quirky["result"]);
}

// ---------------------------------------------------------------------------
// Tools.

fn every_content_block() -> Vec<ContentBlock> {
    vec![
        ContentBlock::text("hello"),
        ContentBlock::Text(TextContent {
            text: "annotated".into(),
            annotations: Some(Annotations {
                audience: Some(vec![Role::User, Role::Assistant]),
                priority: Some(0.5),
                last_modified: Some("2025-05-03T14:30:00Z".into()),
            }),
            meta: Some(object(json!({"example.com/k": "v"}))),
        }),
        ContentBlock::image("iVBORw0KGgo=", "image/png"),
        ContentBlock::audio("UklGRiQ=", "audio/wav"),
        ContentBlock::ResourceLink(
            Resource::new("file:///project/a.rs", "a.rs")
                .with_description("a file")
                .with_mime_type("text/x-rust"),
        ),
        ContentBlock::resource(ResourceContents::text(
            "file:///project/a.rs",
            "text/x-rust",
            "fn main() {}",
        )),
        ContentBlock::resource(ResourceContents::blob(
            "file:///project/a.png",
            "image/png",
            "iVBORw0KGgo=",
        )),
        ContentBlock::Image(ImageContent {
            data: "iVBORw0KGgo=".into(),
            mime_type: "image/png".into(),
            annotations: Some(Annotations {
                audience: Some(vec![Role::User]),
                priority: Some(0.0),
                last_modified: None,
            }),
            meta: Some(object(json!({"k": "v"}))),
        }),
        ContentBlock::Resource(EmbeddedResource {
            resource: ResourceContents::Text(TextResourceContents {
                uri: "file:///project/b.txt".into(),
                mime_type: None,
                text: "b".into(),
                meta: Some(object(json!({"k": "v"}))),
            }),
            annotations: Some(Annotations::default()),
            meta: Some(object(json!({"k": "v"}))),
        }),
    ]
}

#[test]
fn content_blocks() {
    for block in every_content_block() {
        let json = check(&block, &["ContentBlock"]);
        let def = match &block {
            ContentBlock::Text(_) => "TextContent",
            ContentBlock::Image(_) => "ImageContent",
            ContentBlock::Audio(_) => "AudioContent",
            ContentBlock::ResourceLink(_) => "ResourceLink",
            ContentBlock::Resource(_) => "EmbeddedResource",
        };
        validate(def, &json);
    }
}

#[test]
fn call_tool_results() {
    check(
        &CallToolResult::text("x"),
        &["CallToolResult", "ServerResult"],
    );
    let error = check(&CallToolResult::error("it failed"), &["CallToolResult"]);
    assert_eq!(error["isError"], json!(true));
    let mut rich = CallToolResult::new(every_content_block());
    rich.structured_content = Some(json!({"temperature": 22.5, "list": [1, 2]}));
    rich.meta = Some(object(json!({"example.com/trace": "abc"})));
    check(&rich, &["CallToolResult"]);
    check(
        &response(rich),
        &[
            "CallToolResultResponse",
            "JSONRPCResultResponse",
            "JSONRPCMessage",
        ],
    );
}

fn sample_tool() -> Tool {
    let mut tool = Tool::new("get_weather", "Get the weather").with_input_schema(object(json!({
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    })));
    tool.title = Some("Weather".into());
    tool.output_schema = Some(object(json!({"type": "object"})));
    tool.icons = Some(vec![Icon {
        src: "https://example.com/icon.png".into(),
        mime_type: Some("image/png".into()),
        sizes: Some(vec!["48x48".into()]),
        theme: Some("dark".into()),
    }]);
    tool.annotations = Some(ToolAnnotations {
        title: Some("Weather".into()),
        read_only_hint: Some(true),
        destructive_hint: Some(false),
        idempotent_hint: Some(true),
        open_world_hint: Some(true),
    });
    tool.meta = Some(object(json!({"example.com/k": "v"})));
    tool
}

#[test]
fn tools_list() {
    check(&Tool::new("now", "The time"), &["Tool"]);
    let result = ListToolsResult {
        result_type: ResultType::Complete,
        tools: vec![sample_tool(), Tool::new("now", "The time")],
        next_cursor: Some("page-2".into()),
        ttl_ms: 60_000,
        cache_scope: CacheScope::Public,
        meta: None,
    };
    check(&result, &["ListToolsResult", "ServerResult"]);
    check(&response(result), &["ListToolsResultResponse"]);
}

#[test]
fn tool_requests() {
    let params = CallToolRequestParams {
        meta: request_meta(),
        name: "get_weather".into(),
        arguments: Some(object(json!({"city": "Paris"}))),
        input_responses: Some(object(
            json!({"ask": {"action": "accept", "content": {"n": 1}}}),
        )),
        request_state: Some("state".into()),
    };
    check(
        &request("tools/call", params),
        &["CallToolRequest", "ClientRequest"],
    );
    let list = PaginatedRequestParams {
        meta: request_meta(),
        cursor: Some("c".into()),
    };
    check(
        &request("tools/list", list.clone()),
        &["ListToolsRequest", "ClientRequest"],
    );
    check(
        &request("prompts/list", list.clone()),
        &["ListPromptsRequest"],
    );
    check(
        &request("resources/list", list.clone()),
        &["ListResourcesRequest"],
    );
    check(
        &request("resources/templates/list", list),
        &["ListResourceTemplatesRequest"],
    );
    check(
        &request(
            "server/discover",
            RequestParams {
                meta: request_meta(),
            },
        ),
        &["DiscoverRequest", "ClientRequest"],
    );
}

#[test]
fn request_meta_objects() {
    validate("RequestMetaObject", &Value::Object(request_meta()));
    let mut meta = RequestMeta::new(ClientCapabilities {
        elicitation: Some(ElicitationCapability {
            form: Some(JsonObject::new()),
            url: Some(JsonObject::new()),
            extra: JsonObject::new(),
        }),
        ..ClientCapabilities::default()
    });
    meta.client_info = Some(Implementation::new("client", "1.0"));
    meta.log_level = Some(LoggingLevel::Warning);
    meta.progress_token = Some(ProgressToken::Number(7));
    let json = Value::Object(meta.to_json());
    validate("RequestMetaObject", &json);
    assert_eq!(RequestMeta::from_json(json.as_object().unwrap()), Ok(meta));
}

// ---------------------------------------------------------------------------
// Elicitation and input-required results.

/// Every kind of form field, each with all its optional members set.
fn every_field() -> Vec<(&'static str, PrimitiveSchemaDefinition)> {
    use PrimitiveSchemaDefinition as P;
    let mut fields = vec![
        ("StringSchema", P::String(StringSchema::default())),
        (
            "NumberSchema",
            P::Number(NumberSchema {
                kind: NumberType::Integer,
                title: Some("Age".into()),
                description: Some("Your age".into()),
                minimum: Some(18.0),
                maximum: Some(130.0),
                default: Some(30.0),
            }),
        ),
        (
            "NumberSchema",
            P::Number(NumberSchema {
                kind: NumberType::Number,
                minimum: Some(0.5),
                ..NumberSchema::default()
            }),
        ),
        (
            "BooleanSchema",
            P::Boolean(BooleanSchema {
                kind: BooleanType::Boolean,
                title: Some("Agree".into()),
                description: Some("Do you agree?".into()),
                default: Some(false),
            }),
        ),
        (
            "UntitledSingleSelectEnumSchema",
            P::UntitledSingleSelect(UntitledSingleSelectEnumSchema {
                kind: StringType::String,
                title: Some("Color".into()),
                description: Some("Pick one".into()),
                values: vec!["Red".into(), "Green".into()],
                default: Some("Red".into()),
            }),
        ),
        (
            "TitledSingleSelectEnumSchema",
            P::TitledSingleSelect(TitledSingleSelectEnumSchema {
                kind: StringType::String,
                title: Some("Color".into()),
                description: Some("Pick one".into()),
                options: vec![
                    EnumOption {
                        value: "#f00".into(),
                        title: "Red".into(),
                    },
                    EnumOption {
                        value: "#0f0".into(),
                        title: "Green".into(),
                    },
                ],
                default: Some("#f00".into()),
            }),
        ),
        (
            "UntitledMultiSelectEnumSchema",
            P::UntitledMultiSelect(UntitledMultiSelectEnumSchema {
                kind: ArrayType::Array,
                title: Some("Colors".into()),
                description: Some("Pick some".into()),
                min_items: Some(1),
                max_items: Some(2),
                items: UntitledItems {
                    kind: StringType::String,
                    values: vec!["Red".into(), "Green".into()],
                },
                default: Some(vec!["Red".into()]),
            }),
        ),
        (
            "TitledMultiSelectEnumSchema",
            P::TitledMultiSelect(TitledMultiSelectEnumSchema {
                kind: ArrayType::Array,
                title: Some("Colors".into()),
                description: Some("Pick some".into()),
                min_items: Some(1),
                max_items: Some(2),
                items: TitledItems {
                    options: vec![EnumOption {
                        value: "#f00".into(),
                        title: "Red".into(),
                    }],
                },
                default: Some(vec!["#f00".into()]),
            }),
        ),
        (
            "LegacyTitledEnumSchema",
            P::LegacyTitled(LegacyTitledEnumSchema {
                kind: StringType::String,
                title: Some("Color".into()),
                description: Some("Pick one".into()),
                values: vec!["r".into(), "g".into()],
                enum_names: Some(vec!["Red".into(), "Green".into()]),
                default: Some("r".into()),
            }),
        ),
    ];
    for format in [
        StringFormat::Email,
        StringFormat::Uri,
        StringFormat::Date,
        StringFormat::DateTime,
    ] {
        fields.push((
            "StringSchema",
            P::String(StringSchema {
                kind: StringType::String,
                title: Some("Field".into()),
                description: Some("Help".into()),
                min_length: Some(1),
                max_length: Some(100),
                format: Some(format),
                default: Some("x".into()),
            }),
        ));
    }
    fields
}

fn form(message: &str) -> ElicitRequestParams {
    let fields = every_field();
    let properties: mcp_runtime::schema::FormProperties = fields
        .into_iter()
        .enumerate()
        .map(|(i, (_, field))| (format!("field{i}"), field))
        .collect();
    ElicitRequestParams::Form(ElicitRequestFormParams {
        mode: Some(FormMode::Form),
        message: message.into(),
        requested_schema: ElicitRequestedSchema {
            schema: Some("https://json-schema.org/draft/2020-12/schema".into()),
            kind: ObjectType::Object,
            required: Some(properties.keys().take(2).cloned().collect()),
            properties,
        }
        .into(),
    })
}

fn url(message: &str) -> ElicitRequestParams {
    ElicitRequestParams::Url(ElicitRequestUrlParams {
        mode: UrlMode::Url,
        message: message.into(),
        url: "https://example.com/connect?session=abc".into(),
    })
}

#[test]
fn elicitation_field_schemas() {
    for (def, field) in every_field() {
        let json = check(&field, &[def, "PrimitiveSchemaDefinition"]);
        let back: PrimitiveSchemaDefinition = serde_json::from_value(json).unwrap();
        assert_eq!(back, field, "{def} came back as another kind of field");
    }
}

#[test]
fn elicitation_requests() {
    let form = form("Your details");
    check(&form, &["ElicitRequestFormParams", "ElicitRequestParams"]);
    let url = url("Connect your account");
    check(&url, &["ElicitRequestURLParams", "ElicitRequestParams"]);
    // A form without `mode` (allowed: a missing mode means form).
    let ElicitRequestParams::Form(mut bare) = form.clone() else {
        unreachable!()
    };
    bare.mode = None;
    check(
        &ElicitRequestParams::Form(bare),
        &["ElicitRequestFormParams"],
    );
    for params in [form, url] {
        check(
            &InputRequest::Elicitation(params),
            &["ElicitRequest", "InputRequest"],
        );
    }
}

#[test]
fn elicitation_results() {
    let mut content = BTreeMap::new();
    content.insert("name".to_owned(), ElicitValue::String("octocat".into()));
    content.insert("age".to_owned(), ElicitValue::Number(30.into()));
    content.insert("agree".to_owned(), ElicitValue::Bool(true));
    content.insert(
        "colors".to_owned(),
        ElicitValue::Strings(vec!["Red".into(), "Green".into()]),
    );
    for result in [
        ElicitResult::accept(content),
        ElicitResult::decline(),
        ElicitResult::cancel(),
    ] {
        check(&result, &["ElicitResult", "InputResponse"]);
        check(&InputResponse::Elicitation(result), &["InputResponse"]);
    }
}

#[allow(deprecated)]
fn sampling_params() -> CreateMessageRequestParams {
    let mut params = CreateMessageRequestParams::user_text("What is the capital of France?", 100);
    params.model_preferences = Some(ModelPreferences {
        hints: Some(vec![ModelHint {
            name: Some("claude".into()),
        }]),
        cost_priority: Some(0.3),
        speed_priority: Some(0.8),
        intelligence_priority: Some(0.5),
    });
    params.system_prompt = Some("Be brief.".into());
    params.include_context = Some("none".into());
    params.temperature = Some(0.7);
    params.stop_sequences = Some(vec!["\n\n".into()]);
    params.metadata = Some(object(json!({"k": "v"})));
    params.tools = Some(vec![sample_tool()]);
    params.tool_choice = Some(ToolChoice {
        mode: Some("auto".into()),
    });
    params.messages.push(SamplingMessage {
        role: Role::Assistant,
        content: SamplingContent::Many(vec![
            SamplingContentBlock::ToolUse(ToolUseContent {
                id: "call_1".into(),
                name: "get_weather".into(),
                input: object(json!({"city": "Paris"})),
                meta: Some(object(json!({"k": "v"}))),
            }),
            SamplingContentBlock::Image(ImageContent {
                data: "iVBORw0KGgo=".into(),
                mime_type: "image/png".into(),
                annotations: None,
                meta: None,
            }),
        ]),
        meta: None,
    });
    params.messages.push(SamplingMessage {
        role: Role::User,
        content: SamplingContent::Many(vec![
            SamplingContentBlock::ToolResult(ToolResultContent {
                tool_use_id: "call_1".into(),
                content: vec![ContentBlock::text("18°C")],
                structured_content: Some(json!({"celsius": 18})),
                is_error: Some(false),
                meta: None,
            }),
            SamplingContentBlock::Audio(AudioContent {
                data: "UklGRiQ=".into(),
                mime_type: "audio/wav".into(),
                annotations: None,
                meta: None,
            }),
        ]),
        meta: Some(object(json!({"k": "v"}))),
    });
    params
}

#[test]
#[allow(deprecated)]
fn sampling() {
    let params = sampling_params();
    check(&params, &["CreateMessageRequestParams"]);
    for message in &params.messages {
        check(message, &["SamplingMessage"]);
    }
    check(
        &InputRequest::sampling(params),
        &["CreateMessageRequest", "InputRequest"],
    );
    check(
        &InputRequest::sampling(CreateMessageRequestParams::user_text("hi", 10)),
        &["CreateMessageRequest"],
    );
    let text = CreateMessageResult {
        role: Role::Assistant,
        content: SamplingContent::One(SamplingContentBlock::Text(TextContent::new("Paris"))),
        model: "claude".into(),
        stop_reason: Some("endTurn".into()),
        meta: Some(object(json!({"k": "v"}))),
    };
    let tool_use = CreateMessageResult {
        content: SamplingContent::Many(vec![SamplingContentBlock::ToolUse(ToolUseContent {
            id: "call_2".into(),
            name: "get_weather".into(),
            input: object(json!({"city": "London"})),
            meta: None,
        })]),
        stop_reason: Some("toolUse".into()),
        ..text.clone()
    };
    for result in [text, tool_use] {
        check(&result, &["CreateMessageResult", "InputResponse"]);
        check(
            &InputResponse::Sampling(Box::new(result)),
            &["InputResponse"],
        );
    }
}

#[test]
#[allow(deprecated)]
fn roots() {
    let request = check(
        &InputRequest::list_roots(),
        &["ListRootsRequest", "InputRequest"],
    );
    assert_eq!(request, json!({"method": "roots/list"}));
    let result = ListRootsResult {
        roots: vec![
            Root {
                uri: "file:///home/user/project".into(),
                name: Some("Project".into()),
                meta: None,
            },
            Root {
                uri: "file:///tmp".into(),
                name: None,
                meta: Some(object(json!({"k": 1}))),
            },
        ],
    };
    for root in &result.roots {
        check(root, &["Root"]);
    }
    check(&result, &["ListRootsResult", "InputResponse"]);
    check(&InputResponse::ListRoots(result), &["InputResponse"]);
}

#[test]
#[allow(deprecated)]
fn input_required_results() {
    let one = InputRequiredResult::ask("details", InputRequest::Elicitation(form("Details")));
    check(&one, &["InputRequiredResult", "ServerResult"]);

    let all = InputRequiredResult::ask("details", InputRequest::Elicitation(form("Details")))
        .and_ask("connect", InputRequest::Elicitation(url("Connect")))
        .and_ask("sample", InputRequest::sampling(sampling_params()))
        .and_ask("roots", InputRequest::list_roots())
        .with_state("opaque-state");
    let json = check(&all, &["InputRequiredResult"]);
    validate("InputRequests", &json["inputRequests"]);
    assert_eq!(json["resultType"], json!("input_required"));
    check(&response(all.clone()), &["CallToolResultResponse"]);
    check(&response(all.clone()), &["GetPromptResultResponse"]);
    check(&response(all), &["ReadResourceResultResponse"]);

    let mut requests = InputRequests::new();
    requests.insert("a".into(), InputRequest::Elicitation(url("A")));
    check(
        &InputRequiredResult::with_requests(requests),
        &["InputRequiredResult"],
    );
    check(
        &InputRequiredResult::retry_with_state("busy"),
        &["InputRequiredResult"],
    );
}

// ---------------------------------------------------------------------------
// Discovery, capabilities, resources, prompts, completion.

#[test]
fn capabilities() {
    let client = ClientCapabilities {
        elicitation: Some(ElicitationCapability {
            form: Some(JsonObject::new()),
            url: Some(JsonObject::new()),
            extra: JsonObject::new(),
        }),
        sampling: Some(SamplingCapability {
            context: Some(JsonObject::new()),
            tools: Some(JsonObject::new()),
            extra: JsonObject::new(),
        }),
        roots: Some(JsonObject::new()),
        experimental: Some(object(json!({"example.com/x": {"on": true}}))),
        extensions: Some(object(
            json!({"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}),
        )),
        extra: JsonObject::new(),
    };
    check(&client, &["ClientCapabilities"]);
    check(&ClientCapabilities::default(), &["ClientCapabilities"]);
    check(&ServerCapabilities::default(), &["ServerCapabilities"]);
}

fn full_server_capabilities() -> ServerCapabilities {
    ServerCapabilities {
        tools: Some(ListChangedCapability {
            list_changed: Some(true),
        }),
        prompts: Some(ListChangedCapability::default()),
        resources: Some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
        }),
        completions: Some(JsonObject::new()),
        logging: Some(JsonObject::new()),
        experimental: Some(object(json!({"example.com/x": {}}))),
        extensions: Some(object(json!({"io.modelcontextprotocol/tasks": {}}))),
        extra: JsonObject::new(),
    }
}

#[test]
fn discover() {
    let mut server_info = Implementation::new("server", "1.2.3");
    server_info.title = Some("Server".into());
    server_info.website_url = Some("https://example.com".into());
    server_info.description = Some("An example server".into());
    server_info.icons = Some(vec![Icon {
        src: "https://example.com/server.png".into(),
        mime_type: None,
        sizes: None,
        theme: None,
    }]);
    let mut meta = JsonObject::new();
    meta.insert(
        meta_keys::SERVER_INFO.into(),
        serde_json::to_value(&server_info).unwrap(),
    );
    let result = DiscoverResult {
        result_type: ResultType::Complete,
        supported_versions: SUPPORTED_PROTOCOL_VERSIONS
            .iter()
            .map(|v| (*v).to_owned())
            .collect(),
        capabilities: full_server_capabilities(),
        instructions: Some("Use get_weather.".into()),
        ttl_ms: 3_600_000,
        cache_scope: CacheScope::Public,
        meta: Some(meta),
    };
    check(&server_info, &["Implementation"]);
    check(&full_server_capabilities(), &["ServerCapabilities"]);
    check(&result, &["DiscoverResult", "ServerResult"]);
    check(
        &response(result),
        &["DiscoverResultResponse", "JSONRPCResultResponse"],
    );
}

#[test]
fn resources() {
    let mut resource = Resource::new("file:///project/README.md", "README.md")
        .with_description("Docs")
        .with_mime_type("text/markdown");
    resource.title = Some("Readme".into());
    resource.size = Some(1024);
    resource.icons = Some(vec![Icon {
        src: "data:image/png;base64,iVBORw0KGgo=".into(),
        mime_type: None,
        sizes: None,
        theme: Some("light".into()),
    }]);
    resource.meta = Some(object(json!({"k": "v"})));
    resource.annotations = Some(Annotations {
        audience: Some(vec![Role::User]),
        priority: Some(1.0),
        last_modified: None,
    });
    check(&resource, &["Resource"]);
    let list = ListResourcesResult {
        result_type: ResultType::Complete,
        resources: vec![resource],
        next_cursor: None,
        ttl_ms: 0,
        cache_scope: CacheScope::Private,
        meta: None,
    };
    check(&list, &["ListResourcesResult"]);
    check(&response(list), &["ListResourcesResultResponse"]);

    let mut template = ResourceTemplate::new("file:///{path}", "files");
    template.description = Some("Project files".into());
    template.title = Some("Files".into());
    template.mime_type = Some("application/octet-stream".into());
    template.annotations = Some(Annotations {
        audience: Some(vec![Role::Assistant]),
        priority: None,
        last_modified: None,
    });
    template.icons = Some(vec![Icon {
        src: "https://example.com/folder.png".into(),
        mime_type: Some("image/png".into()),
        sizes: Some(vec!["any".into()]),
        theme: None,
    }]);
    template.meta = Some(object(json!({"k": "v"})));
    check(&template, &["ResourceTemplate"]);
    let templates = ListResourceTemplatesResult {
        result_type: ResultType::Complete,
        resource_templates: vec![template],
        next_cursor: Some("next".into()),
        ttl_ms: 10,
        cache_scope: CacheScope::Public,
        meta: None,
    };
    check(&templates, &["ListResourceTemplatesResult"]);
    check(
        &response(templates),
        &["ListResourceTemplatesResultResponse"],
    );

    let read = ReadResourceResult::new(vec![
        ResourceContents::text("file:///a.txt", "text/plain", "hello"),
        ResourceContents::blob("file:///a.png", "image/png", "iVBORw0KGgo="),
    ]);
    check(&read, &["ReadResourceResult", "ServerResult"]);
    check(&response(read), &["ReadResourceResultResponse"]);

    let params = ReadResourceRequestParams {
        meta: request_meta(),
        uri: "file:///a.txt".into(),
        input_responses: None,
        request_state: None,
    };
    check(
        &request("resources/read", params),
        &["ReadResourceRequest", "ClientRequest"],
    );
}

#[test]
fn prompts() {
    let mut titled = PromptArgument::required("code", "The code");
    titled.title = Some("Code".into());
    let mut prompt = Prompt::new("code_review", "Review code")
        .with_argument(titled)
        .with_argument(PromptArgument::optional("style", "A style guide"));
    prompt.title = Some("Code review".into());
    prompt.icons = Some(vec![Icon {
        src: "https://example.com/review.svg".into(),
        mime_type: Some("image/svg+xml".into()),
        sizes: Some(vec!["any".into()]),
        theme: None,
    }]);
    prompt.meta = Some(object(json!({"k": "v"})));
    check(&prompt, &["Prompt"]);
    let list = ListPromptsResult {
        result_type: ResultType::Complete,
        prompts: vec![prompt],
        next_cursor: None,
        ttl_ms: 600_000,
        cache_scope: CacheScope::Public,
        meta: None,
    };
    check(&list, &["ListPromptsResult"]);
    check(&response(list), &["ListPromptsResultResponse"]);

    let mut messages = vec![
        PromptMessage::user("Please review this code"),
        PromptMessage::assistant("Sure"),
    ];
    for block in every_content_block() {
        messages.push(PromptMessage {
            role: Role::User,
            content: block,
        });
    }
    for message in &messages {
        check(message, &["PromptMessage"]);
    }
    let mut result = GetPromptResult::new(messages);
    result.description = Some("A review".into());
    check(&result, &["GetPromptResult", "ServerResult"]);
    check(&response(result), &["GetPromptResultResponse"]);

    let params = GetPromptRequestParams {
        meta: request_meta(),
        name: "code_review".into(),
        arguments: Some(BTreeMap::from([("code".to_owned(), "x = 1".to_owned())])),
        input_responses: None,
        request_state: Some("s".into()),
    };
    check(
        &request("prompts/get", params),
        &["GetPromptRequest", "ClientRequest"],
    );
}

#[test]
fn completion() {
    let few = check(
        &CompleteResult::new(vec!["flask".into()]),
        &["CompleteResult"],
    );
    assert_eq!(few["completion"]["hasMore"], json!(false));
    let many: Vec<String> = (0..150).map(|i| format!("v{i}")).collect();
    let many = CompleteResult::new(many);
    let json = check(&many, &["CompleteResult", "ServerResult"]);
    assert_eq!(json["completion"]["values"].as_array().unwrap().len(), 100);
    assert_eq!(json["completion"]["total"], json!(150));
    assert_eq!(json["completion"]["hasMore"], json!(true));
    check(&response(many), &["CompleteResultResponse"]);

    for reference in [
        CompletionReference::Prompt {
            name: "code_review".into(),
            title: Some("Review".into()),
        },
        CompletionReference::Resource {
            uri: "file:///{path}".into(),
        },
    ] {
        let params = CompleteRequestParams {
            meta: request_meta(),
            reference,
            argument: CompletionArgument {
                name: "language".into(),
                value: "py".into(),
            },
            context: Some(CompletionContext {
                arguments: Some(BTreeMap::from([("a".to_owned(), "b".to_owned())])),
            }),
        };
        check(&params, &["CompleteRequestParams"]);
        check(
            &request("completion/complete", params),
            &["CompleteRequest", "ClientRequest"],
        );
    }
}

// ---------------------------------------------------------------------------
// Errors.

#[test]
fn every_error_variant() {
    let required = ClientCapabilities {
        elicitation: Some(ElicitationCapability::default()),
        ..ClientCapabilities::default()
    };
    // (error, def of the bare error object, def of the whole response)
    let cases: Vec<(McpError, &str, &str)> = vec![
        (
            McpError::ParseError {
                detail: "expected value at line 1".into(),
            },
            "ParseError",
            "JSONRPCErrorResponse",
        ),
        (
            McpError::InvalidRequest {
                detail: "no method".into(),
            },
            "InvalidRequestError",
            "JSONRPCErrorResponse",
        ),
        (
            McpError::MethodNotFound {
                method: "initialize".into(),
            },
            "MethodNotFoundError",
            "JSONRPCErrorResponse",
        ),
        (
            McpError::InvalidMeta {
                detail: "missing protocolVersion".into(),
            },
            "InvalidParamsError",
            "JSONRPCErrorResponse",
        ),
        (
            McpError::invalid_params("Unknown tool: nope"),
            "InvalidParamsError",
            "JSONRPCErrorResponse",
        ),
        (
            McpError::InvalidParams {
                message: "bad".into(),
                data: Some(json!({"field": "x"})),
            },
            "InvalidParamsError",
            "JSONRPCErrorResponse",
        ),
        (
            McpError::ResourceNotFound {
                uri: "file:///nope".into(),
            },
            "InvalidParamsError",
            "JSONRPCErrorResponse",
        ),
        (
            McpError::InvalidRequestState,
            "InvalidParamsError",
            "JSONRPCErrorResponse",
        ),
        (
            McpError::internal("db down"),
            "InternalError",
            "JSONRPCErrorResponse",
        ),
        (
            McpError::HeaderMismatch {
                detail: "Mcp-Method disagrees with the body".into(),
            },
            "Error",
            "HeaderMismatchError",
        ),
        (
            McpError::MissingClientCapability {
                required: Box::new(required),
            },
            "Error",
            "MissingRequiredClientCapabilityError",
        ),
        (
            McpError::UnsupportedProtocolVersion {
                requested: "1900-01-01".into(),
            },
            "Error",
            "UnsupportedProtocolVersionError",
        ),
        (
            McpError::Other(ErrorObject {
                code: -32000,
                message: "custom".into(),
                data: Some(json!([1, 2])),
            }),
            "Error",
            "JSONRPCErrorResponse",
        ),
    ];
    for (error, object_def, response_def) in cases {
        let object = error.to_object();
        assert_eq!(object.code, error.code());
        let object_json = check(&object, &["Error", object_def]);
        for id in [Some(RequestId::from(1)), Some(RequestId::from("a")), None] {
            let response = JsonRpcErrorResponse {
                jsonrpc: JsonRpcVersion,
                id,
                error: object.clone(),
            };
            check(
                &response,
                &[
                    "JSONRPCErrorResponse",
                    "JSONRPCResponse",
                    "JSONRPCMessage",
                    response_def,
                ],
            );
        }
        // The specific error responses pin their code: no other error passes.
        for specific in [
            "HeaderMismatchError",
            "MissingRequiredClientCapabilityError",
            "UnsupportedProtocolVersionError",
        ] {
            if specific != response_def {
                let response = json!({"jsonrpc": "2.0", "id": 1, "error": object_json});
                assert_invalid(specific, &response);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Notifications and subscriptions.

#[test]
fn notifications() {
    use notification_methods as m;
    let progress = ProgressNotificationParams {
        progress_token: ProgressToken::String("tok".into()),
        progress: 50.0,
        total: Some(100.0),
        message: Some("Halfway".into()),
        meta: NotificationParams::for_subscription(&RequestId::from(1)).meta,
    };
    let bare_progress = ProgressNotificationParams {
        progress_token: ProgressToken::Number(3),
        progress: 0.25,
        total: None,
        message: None,
        meta: None,
    };
    for params in [progress, bare_progress] {
        check(&params, &["ProgressNotificationParams"]);
        check(
            &JsonRpcNotification::new(m::PROGRESS, params),
            &[
                "ProgressNotification",
                "ServerNotification",
                "JSONRPCNotification",
                "JSONRPCMessage",
            ],
        );
    }

    for level in [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ] {
        let params = LoggingMessageNotificationParams {
            level,
            logger: Some("db".into()),
            data: json!({"error": "Connection failed"}),
            meta: Some(object(json!({"k": "v"}))),
        };
        check(&params, &["LoggingMessageNotificationParams"]);
        check(
            &JsonRpcNotification::new(m::MESSAGE, params),
            &["LoggingMessageNotification", "ServerNotification"],
        );
    }

    let cancelled = CancelledNotificationParams {
        request_id: RequestId::from(12),
        reason: Some("User cancelled".into()),
        meta: Some(object(json!({"k": "v"}))),
    };
    check(
        &JsonRpcNotification::new(m::CANCELLED, cancelled),
        &[
            "CancelledNotification",
            "ClientNotification",
            "ServerNotification",
        ],
    );

    let listen_id = RequestId::from("listen-1");
    for params in [
        NotificationParams::for_subscription(&listen_id),
        NotificationParams::default(),
    ] {
        check(&params, &["NotificationParams"]);
        for (method, def) in [
            (m::TOOLS_LIST_CHANGED, "ToolListChangedNotification"),
            (m::PROMPTS_LIST_CHANGED, "PromptListChangedNotification"),
            (m::RESOURCES_LIST_CHANGED, "ResourceListChangedNotification"),
        ] {
            check(
                &JsonRpcNotification::new(method, params.clone()),
                &[def, "ServerNotification"],
            );
        }
    }

    let updated = ResourceUpdatedNotificationParams {
        uri: "file:///project/config.json".into(),
        meta: NotificationParams::for_subscription(&listen_id).meta,
    };
    check(&updated, &["ResourceUpdatedNotificationParams"]);
    check(
        &JsonRpcNotification::new(m::RESOURCES_UPDATED, updated),
        &["ResourceUpdatedNotification", "ServerNotification"],
    );

    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        prompts_list_changed: Some(false),
        resources_list_changed: Some(true),
        resource_subscriptions: Some(vec!["file:///project/config.json".into()]),
        task_ids: None,
    };
    check(&filter, &["SubscriptionFilter"]);
    let acknowledged = SubscriptionsAcknowledgedNotificationParams {
        notifications: filter.clone(),
        meta: NotificationParams::for_subscription(&listen_id).meta,
    };
    check(
        &acknowledged,
        &["SubscriptionsAcknowledgedNotificationParams"],
    );
    check(
        &JsonRpcNotification::new(m::SUBSCRIPTIONS_ACKNOWLEDGED, acknowledged),
        &[
            "SubscriptionsAcknowledgedNotification",
            "ServerNotification",
        ],
    );

    let listen = SubscriptionsListenRequestParams {
        meta: request_meta(),
        notifications: filter,
    };
    check(
        &request("subscriptions/listen", listen),
        &["SubscriptionsListenRequest", "ClientRequest"],
    );
}

#[test]
fn subscriptions_listen_result() {
    for id in [RequestId::from("listen-1"), RequestId::from(7)] {
        let result = SubscriptionsListenResult::new(id.clone());
        let json = check(&result, &["SubscriptionsListenResult", "ServerResult"]);
        assert_eq!(
            json["_meta"][meta_keys::SUBSCRIPTION_ID],
            serde_json::to_value(&id).unwrap()
        );
        let response = JsonRpcResultResponse {
            jsonrpc: JsonRpcVersion,
            id,
            result,
        };
        check(&response, &["SubscriptionsListenResultResponse"]);
    }
    // Without the subscription id the result is not valid.
    let mut bare = SubscriptionsListenResult::new(RequestId::from(1));
    bare.meta.clear();
    assert_invalid(
        "SubscriptionsListenResult",
        &serde_json::to_value(bare).unwrap(),
    );
}

//! The prompts, and the completions of their arguments.

use mcp_runtime::prelude::*;
use mcp_runtime::schema::{ContentBlock, PromptMessage, ResourceContents, Role};
use serde::Deserialize;

use crate::fixtures::PNG_1X1;

/// A prompt with no arguments.
#[prompt]
pub(crate) async fn test_simple_prompt() -> String {
    "This is a simple prompt for testing.".to_owned()
}

/// The arguments of `test_prompt_with_arguments`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct TwoArgs {
    /// First test argument.
    arg1: String,
    /// Second test argument.
    arg2: String,
}

/// A prompt with two required arguments.
#[prompt]
pub(crate) async fn test_prompt_with_arguments(args: TwoArgs) -> String {
    format!(
        "Prompt with arguments: arg1='{}', arg2='{}'",
        args.arg1, args.arg2
    )
}

/// The arguments of `test_prompt_with_embedded_resource`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EmbedArgs {
    /// URI of the resource to embed.
    resource_uri: String,
}

/// A prompt that embeds the resource it is given.
#[prompt]
pub(crate) async fn test_prompt_with_embedded_resource(args: EmbedArgs) -> Vec<PromptMessage> {
    vec![
        PromptMessage {
            role: Role::User,
            content: ContentBlock::resource(ResourceContents::text(
                args.resource_uri,
                "text/plain",
                "Embedded resource content for testing.",
            )),
        },
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image.
#[prompt]
pub(crate) async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage {
            role: Role::User,
            content: ContentBlock::image(PNG_1X1, "image/png"),
        },
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// The values of `known` that start with what the user typed so far.
fn starting_with(known: &[&str], typed: &str) -> Vec<String> {
    known
        .iter()
        .filter(|value| value.starts_with(typed))
        .map(|value| (*value).to_owned())
        .collect()
}

/// Completes `arg1` of `test_prompt_with_arguments`.
#[completion(prompt = "test_prompt_with_arguments", argument = "arg1")]
pub(crate) async fn complete_arg1(typed: &str) -> Vec<String> {
    starting_with(&["test", "testValue1", "test-one", "value1"], typed)
}

/// Completes `arg2` of `test_prompt_with_arguments`.
#[completion(prompt = "test_prompt_with_arguments", argument = "arg2")]
pub(crate) async fn complete_arg2(typed: &str) -> Vec<String> {
    starting_with(&["test", "testValue2", "test-two", "value2"], typed)
}

/// Completes the `id` of the resource template. (Other known arguments get
/// no values; unknown ones are refused with `-32602` by the runtime.)
#[completion(template = "test://template/{id}/data", argument = "id")]
pub(crate) async fn complete_template_id(typed: &str) -> Vec<String> {
    starting_with(&["123", "456", "789"], typed)
}

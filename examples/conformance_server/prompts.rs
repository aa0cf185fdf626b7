//! The prompts, and the completions of their arguments.

use mcp_runtime::prelude::*;
use mcp_runtime::schema::{
    CompletionArgument, CompletionReference, ContentBlock, PromptMessage, ResourceContents, Role,
};
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

/// The known values of each argument that can be completed: those of
/// `test_prompt_with_arguments` and the `id` of the resource template.
fn candidates(reference: &CompletionReference, argument: &str) -> Option<&'static [&'static str]> {
    match reference {
        CompletionReference::Prompt { name, .. } if name == "test_prompt_with_arguments" => {
            Some(match argument {
                "arg1" => &["test", "testValue1", "test-one", "value1"],
                "arg2" => &["test", "testValue2", "test-two", "value2"],
                _ => &[],
            })
        }
        CompletionReference::Resource { uri } if uri == "test://template/{id}/data" => {
            Some(match argument {
                "id" => &["123", "456", "789"],
                _ => &[],
            })
        }
        _ => None,
    }
}

/// Completes the arguments of `test_prompt_with_arguments` and the `id` of
/// the resource template: the known values that start with what the user
/// typed so far.
#[completion]
pub(crate) async fn completions(
    reference: CompletionReference,
    argument: CompletionArgument,
) -> Result<Vec<String>, McpError> {
    let known = candidates(&reference, &argument.name).ok_or_else(|| {
        McpError::invalid_params(format!("nothing to complete for {reference:?}"))
    })?;
    Ok(known
        .iter()
        .filter(|value| value.starts_with(argument.value.as_str()))
        .map(|value| (*value).to_owned())
        .collect())
}

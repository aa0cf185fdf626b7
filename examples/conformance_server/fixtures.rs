//! The server the conformance scenarios run against: every fixture of the
//! specification's inventory (spec §8.2), registered by name, and those
//! only the 2025-11-25 scenarios call. The fixtures themselves are written
//! with the DSL in `tools.rs`, `prompts.rs`, `resources.rs`,
//! `input_required.rs`, `legacy.rs`, `tasks.rs` and `exactly_once.rs`.

use mcp_runtime::prelude::*;
use mcp_runtime::server::ServerBuilder;
use mcp_runtime::state::RequestStateSigner;

use crate::{exactly_once, input_required, legacy, prompts, resources, tasks, tools};

/// A 1x1 transparent PNG, base64.
pub(crate) const PNG_1X1: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// A WAV file of eight samples of silence (8 kHz, 8-bit mono), base64.
pub(crate) const WAV_SILENCE: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// The server with every fixture; `signer` signs and verifies every
/// `requestState`. The caller may add a replay guard before building.
pub(crate) fn server(signer: RequestStateSigner) -> ServerBuilder {
    Server::builder("mcp-conformance-server", env!("CARGO_PKG_VERSION"))
        // Content and behaviour tools.
        .tool(tools::test_simple_text {})
        .tool(tools::test_image_content {})
        .tool(tools::test_audio_content {})
        .tool(tools::test_embedded_resource {})
        .tool(tools::test_multiple_content_types {})
        .tool(tools::test_error_handling {})
        .tool(tools::test_tool_with_progress {})
        .tool(tools::test_missing_capability {})
        .tool(tools::test_streaming_elicitation {})
        .tool(tools::test_logging_tool {})
        .tool(tools::json_schema_2020_12_tool {})
        .tool(tools::test_custom_header {})
        .tool(tools::test_trigger_tool_change {})
        .tool(tools::test_trigger_prompt_change {})
        // Multi round-trip requests (SEP-2322).
        .tool(input_required::test_input_required_result_elicitation {})
        .tool(input_required::test_input_required_result_sampling {})
        .tool(input_required::test_input_required_result_list_roots {})
        .tool(input_required::test_input_required_result_request_state {})
        .tool(input_required::test_input_required_result_multiple_inputs {})
        .tool(input_required::test_input_required_result_multi_round {})
        .tool(input_required::test_input_required_result_tampered_state {})
        .tool(input_required::test_input_required_result_capabilities {})
        // The outcome record's (a final round that runs once).
        .handler::<exactly_once::test_exactly_once_deploy>()
        .handler::<exactly_once::test_deploy_count>()
        // Only the 2025-11-25 scenarios call these (the asking ones through
        // the bridge there, as input-required rounds in 2026-07-28).
        .tool(legacy::test_tool_with_logging {})
        .tool(legacy::test_reconnection {})
        .tool(legacy::test_sampling {})
        .tool(legacy::test_elicitation {})
        .tool(legacy::test_elicitation_sep1034_defaults {})
        .tool(legacy::test_elicitation_sep1330_enums {})
        .tool(legacy::test_trigger_resource_update {})
        // Prompts and their argument completions.
        .prompt(prompts::test_simple_prompt {})
        .prompt(prompts::test_prompt_with_arguments {})
        .prompt(prompts::test_prompt_with_embedded_resource {})
        .prompt(prompts::test_prompt_with_image {})
        .prompt(input_required::test_input_required_result_prompt {})
        .handler::<prompts::complete_arg1>()
        .handler::<prompts::complete_arg2>()
        .handler::<prompts::complete_template_id>()
        // The tasks extension's fixtures.
        .handler::<tasks::greet>()
        .handler::<tasks::slow_compute>()
        .handler::<tasks::failing_job>()
        .handler::<tasks::protocol_error_job>()
        .handler::<tasks::confirm_delete>()
        .handler::<tasks::task_deletions>()
        .handler::<tasks::multi_input>()
        .handler::<tasks::test_tool_with_task>()
        // Resources; the first one listed must be readable (the caching
        // scenario reads it).
        .resource(resources::static_text {})
        .resource(resources::static_binary {})
        .resource_template(resources::template_data {})
        // The one resources-subscribe and resources-unsubscribe subscribe to.
        .resource(legacy::watched_resource {})
        .request_state_signer(signer)
}

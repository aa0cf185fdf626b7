use std::collections::BTreeMap;
use mcp_runtime::prelude::*;
/// Counts the arguments.
async fn count(args: BTreeMap<String, String>, _ctx: Ctx) -> Result<String, ToolError> {
    Ok(args.len().to_string())
}
///The `#[tool]` handler of [`count()`]: register it with `.handler::<count>()`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct count {}
#[doc(hidden)]
#[allow(unused_qualifications)]
const _: () = {
    use ::mcp_runtime::__private as _mcp;
    impl _mcp::ToolHandler for count {
        fn descriptor(&self) -> _mcp::Tool {
            _mcp::ToolSpec {
                name: "count-args",
                description: "Counts the arguments.",
                read_only: _mcp::Option::Some(true),
                idempotent: _mcp::Option::Some(true),
                input: &[
                    <BTreeMap<String, String> as _mcp::FromCall>::input_schema,
                    <Ctx as _mcp::FromCall>::input_schema,
                ],
                output: <Result<
                    String,
                    ToolError,
                > as _mcp::IntoToolResult>::output_schema,
                .._mcp::ToolSpec::DEFAULT
            }
                .build()
        }
        fn call(
            &self,
            __mcp_arguments: _mcp::ToolArguments,
            __mcp_ctx: _mcp::Ctx,
        ) -> _mcp::ToolFuture<'_> {
            let mut __mcp_parts = _mcp::CallParts::new(__mcp_arguments, __mcp_ctx);
            _mcp::Box::pin(async move {
                let __mcp_arg0: BTreeMap<String, String> = _mcp::FromCall::from_call(
                    &mut __mcp_parts,
                )?;
                let __mcp_arg1: Ctx = _mcp::FromCall::from_call(&mut __mcp_parts)?;
                let __mcp_output = count(__mcp_arg0, __mcp_arg1).await;
                <Result<
                    String,
                    ToolError,
                > as _mcp::IntoToolResult>::into_tool_outcome(__mcp_output)
            })
        }
        fn needs_shared(&self) -> _mcp::Vec<_mcp::SharedNeed> {
            _mcp::needs_shared(
                &[
                    <BTreeMap<String, String> as _mcp::FromCall>::SHARED,
                    <Ctx as _mcp::FromCall>::SHARED,
                ],
            )
        }
        fn needs_signer(&self) -> bool {
            _mcp::needs_signer(
                &[
                    <BTreeMap<String, String> as _mcp::FromCall>::NEEDS_SIGNER,
                    <Ctx as _mcp::FromCall>::NEEDS_SIGNER,
                ],
            )
        }
    }
    impl _mcp::Register for count {
        fn register(builder: _mcp::ServerBuilder) -> _mcp::ServerBuilder {
            builder.tool(count {})
        }
    }
};
fn main() {}

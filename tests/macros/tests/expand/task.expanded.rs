use mcp_runtime::prelude::*;
/// Runs the nightly report; always as a task.
async fn nightly_report(ctx: Ctx) -> String {
    if ctx.is_cancelled() { "stopped".to_owned() } else { "done".to_owned() }
}
///The `#[tool]` handler of [`nightly_report()`]: register it with `.handler::<nightly_report>()`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct nightly_report {}
#[doc(hidden)]
#[allow(unused_qualifications)]
const _: () = {
    use ::mcp_runtime::__private as _mcp;
    impl _mcp::ToolHandler for nightly_report {
        fn descriptor(&self) -> _mcp::Tool {
            _mcp::ToolSpec {
                name: "nightly_report",
                description: "Runs the nightly report; always as a task.",
                input: &[<Ctx as _mcp::FromCall>::input_schema],
                output: <String as _mcp::IntoToolResult>::output_schema,
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
                let __mcp_arg0: Ctx = _mcp::FromCall::from_call(&mut __mcp_parts)?;
                let __mcp_output = nightly_report(__mcp_arg0).await;
                <String as _mcp::IntoToolResult>::into_tool_outcome(__mcp_output)
            })
        }
        fn task_support(&self) -> _mcp::TaskSupport {
            _mcp::TaskSupport::Required
        }
        fn required_scopes(&self) -> &[&'static str] {
            &["reports:run"]
        }
        fn needs_shared(&self) -> _mcp::Vec<_mcp::SharedNeed> {
            _mcp::needs_shared(&[<Ctx as _mcp::FromCall>::SHARED])
        }
        fn needs_signer(&self) -> bool {
            _mcp::needs_signer(&[<Ctx as _mcp::FromCall>::NEEDS_SIGNER])
        }
    }
    impl _mcp::Register for nightly_report {
        fn register(builder: _mcp::ServerBuilder) -> _mcp::ServerBuilder {
            builder.tool(nightly_report {})
        }
    }
};
fn main() {}

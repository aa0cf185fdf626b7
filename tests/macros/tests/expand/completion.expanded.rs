use mcp_runtime::prelude::*;
use mcp_runtime::schema::CompletionArgument;
/// Suggests colours.
async fn colours(argument: CompletionArgument) -> Vec<String> {
    argument.value.split(',').map(str::to_owned).collect()
}
///The `#[completion]` handler of [`colours()`]: register it with `.handler::<colours>()`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct colours {}
#[doc(hidden)]
#[allow(unused_qualifications)]
const _: () = {
    use ::mcp_runtime::__private as _mcp;
    impl _mcp::CompletionHandler for colours {
        fn complete(
            &self,
            __mcp_reference: _mcp::CompletionReference,
            __mcp_argument: _mcp::CompletionArgument,
            __mcp_context: _mcp::Option<_mcp::CompletionContext>,
            __mcp_ctx: _mcp::Ctx,
        ) -> _mcp::CompletionFuture<'_> {
            let mut __mcp_parts = _mcp::CallParts::completion(
                __mcp_reference,
                __mcp_argument,
                __mcp_context,
                __mcp_ctx,
            );
            _mcp::Box::pin(async move {
                let __mcp_arg0: CompletionArgument = _mcp::FromCall::from_call(
                    &mut __mcp_parts,
                )?;
                let __mcp_output = colours(__mcp_arg0).await;
                _mcp::IntoCompleteResult::into_complete_result(__mcp_output)
            })
        }
        fn needs_shared(&self) -> _mcp::Vec<_mcp::SharedNeed> {
            _mcp::needs_shared(&[<CompletionArgument as _mcp::FromCall>::SHARED])
        }
    }
    impl _mcp::Register for colours {
        fn register(builder: _mcp::ServerBuilder) -> _mcp::ServerBuilder {
            builder.completion(colours {})
        }
    }
};
fn main() {}
